"""The Tokenize page's drawings as HTML strings: the text as token chips, the pieces,
decoded ids, and the merge ladder of a replay.

Pure functions built on the one chip renderer, ui/shared/chips.py (its runs, colouring
rule, whitespace marks and CSS); this module adds what only this page knows about a
token: its tooltip (id, bytes, rank), its end-of-word marker, special tokens by name.
Long drawings (text, pieces, ids) are cut into blocks at newlines, each
`content-visibility: auto`, so the browser lays out and paints only the blocks in view.
"""
from __future__ import annotations

import html
from typing import Callable, Sequence

from bpe_core import Replay, Tokenizer
from bpe_core.contracts import TextTokenizer
from bpe_core.display import name_invisible

from ui.tokenize.logic import PieceTokens, has_merges, token_title
from ui.shared.chips import (
    BLOCK_CHARS, CHIP_CSS, TokenChip, blocks, chip_for, chip_html, chips_html, spans_html, wrap_run,
)

__all__ = [
    "TOKENIZE_CSS", "BLOCK_CHARS", "reveal", "chip_html_for", "chip_for_id", "text_html", "pieces_html",
    "ids_html", "replay_rows", "replay_html", "symbol_text", "counts_html",
]

#: Styles this page adds to CHIP_CSS: the scroll box, the replay ladder, larger type for
#: projectors. Page-wide, so every class is prefixed `bpe-`.
TOKENIZE_CSS = CHIP_CSS + """
<style>
.bpe-tokens.bpe-scroll { font-size: 1.3rem; }
.bpe-scroll { max-height: 30rem; overflow-y: auto; padding: 0.4rem 0.5rem;
  border: 1px solid rgba(128,128,128,0.35); border-radius: 6px; }
.bpe-ladder { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.bpe-row { display: flex; align-items: baseline; gap: 0.8rem; padding: 0.15rem 0.3rem;
  border-radius: 6px; }
.bpe-row.now { background: rgba(213,94,0,0.10); }
.bpe-row .bpe-tokens { font-size: 1.3rem; }
.bpe-rank { min-width: 10.5rem; text-align: right; font-size: 1.0rem; opacity: 0.85;
  white-space: nowrap; }
.bpe-big .bpe-tokens { font-size: 1.35rem; }
.st-key-tokenize-ids [data-testid="stText"] { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.bpe-caption { font-size: 0.875rem; opacity: 0.75; margin: 0.5rem 0 0; }
.bpe-counts { display: grid; grid-template-columns: repeat(auto-fit, minmax(5.2rem, 1fr)); gap: 0.4rem 0.75rem;
  margin: 0 0 0.6rem; }
.bpe-count-label { font-size: 0.875rem; opacity: 0.8; }
.bpe-count-value { font-size: 1.75rem; line-height: 1.35; font-variant-numeric: tabular-nums; }
.bpe-help { position: relative; cursor: help; text-decoration: underline dotted rgba(128,128,128,0.8);
  text-underline-offset: 3px; }
.bpe-help .bpe-tip { display: none; position: absolute; left: 0; top: 1.5rem; z-index: 20; width: 15rem;
  padding: 0.4rem 0.6rem; border-radius: 6px; background: #262730; color: #fafafa; font-size: 0.85rem;
  line-height: 1.35; opacity: 1; }
.bpe-help:hover .bpe-tip, .bpe-help:focus .bpe-tip { display: block; }
</style>
"""

#: Invisible characters named (⟨ZWJ⟩): bpe_core.display's one table.
reveal = name_invisible


def chip_for_id(tok: Tokenizer, token_id: int | None, *, title: str = "", classes: tuple[str, ...] = (),
                fallback: str = "?") -> TokenChip:
    """The chip of one token id: its text (or bytes), its end-of-word marker, specials bold.

    >>> from bpe_core.pretrained import openai_tokenizer
    >>> gpt2 = openai_tokenizer("gpt2")
    >>> chip_for_id(gpt2, 995).text, chip_for_id(gpt2, 50256).classes, chip_for_id(gpt2, 171).text
    (' world', ('special',), '<EF>')
    """
    if token_id is None:
        return TokenChip(fallback, title=title, classes=classes + ("unk",))
    special = {v: k for k, v in tok.special_tokens.items()}
    if token_id in special:
        return TokenChip(special[token_id], title=title, classes=classes + ("special",))
    if not has_merges(tok):  # SentencePiece: the piece as the model writes it (▁the, <0x0A>)
        return TokenChip(tok.id_to_piece(token_id), title=title, classes=classes)
    body, eow = tok.tokens[token_id]
    return chip_for(body, eow, tok.marker, title=title, classes=classes)


def chip_html_for(tok: Tokenizer, token_id: int | None, index: int, *, show_whitespace: bool = True,
                  title: str = "") -> str:
    """One token id as a chip (a run of one, coloured as position `index` of a run), for
    captions and notices."""
    chip = chip_for_id(tok, token_id, title=title)
    return chips_html([chip], start=index, show_whitespace=show_whitespace)


def symbol_text(tok: Tokenizer, token_id: int | None) -> str:
    """A token as plain text for captions and tables: bytes as <E4>, marker kept.

    >>> from bpe_core.pretrained import openai_tokenizer
    >>> symbol_text(openai_tokenizer("gpt2"), 995), symbol_text(openai_tokenizer("gpt2"), 171)
    (' world', '<EF>')
    """
    chip = chip_for_id(tok, token_id)
    return chip.text + chip.marker


def _marker_of(tok: TextTokenizer) -> Callable | None:
    """The end-of-word marker a span's token carries (trained tokenizers), if any."""
    if not tok.marker:
        return None
    return lambda span: tok.marker_of(span.id) if span.id is not None and not span.special else ""


def text_html(
    text: str,
    spans: Sequence,
    tok,
    *,
    show_whitespace: bool = True,
    highlight: int | None = None,
    complete: bool = True,
    css: bool = True,
    scroll: bool = True,
    ids: bool = False,
) -> str:
    """The text as token chips, in order (the shared `spans_html`, with this page's
    tooltips and end-of-word markers); text no token covers is drawn dimmed between.
    A tap (or Tab) on a chip shows its id, bytes and rank; `ids` writes the ids under
    the chips.

    >>> from bpe_core.pretrained import load_pretrained
    >>> gpt2 = load_pretrained("gpt2")
    >>> out = text_html("a <b>", gpt2.token_spans("a <b>"), gpt2, css=False, scroll=False)
    >>> out.count('<span title="id '), out.count('tabindex="0"'), "<b>" in out, "&gt;" in out
    (4, 4, False, True)
    >>> 'data-id="64"' in text_html("a <b>", gpt2.token_spans("a <b>"), gpt2, css=False, ids=True)
    True
    """
    drawn = spans_html(text, spans, title_of=lambda s: token_title(tok, s.id, s.token_bytes),
                       marker_of=_marker_of(tok), show_whitespace=show_whitespace, highlight=highlight,
                       complete=complete, css=False, scroll=scroll, tap=True, ids=ids)
    return (TOKENIZE_CSS if css else "") + drawn


def _running(chips: Sequence[TokenChip], show_whitespace: bool) -> str:
    """Chips as running text, cut into blocks: a chip holding newlines is followed by them."""
    return blocks([(chip_html(c, show_whitespace=show_whitespace) + "\n" * c.text.count("\n"), c.text, True)
                   for c in chips])


def pieces_html(pieces: Sequence[PieceTokens], *, show_whitespace: bool = True, css: bool = True) -> str:
    """Each pre-tokenization piece as one chip (hover: its offsets and token count).

    >>> out = pieces_html([PieceTokens("Hi", 0, 2, 1), PieceTokens(" <i>", 2, 6, 2)], css=False)
    >>> out.count('<span title="piece'), "&lt;i&gt;" in out
    (2, True)
    """
    chips = []
    for i, p in enumerate(pieces):
        what = "special token" if p.special else f"{p.n_tokens} token{'s' if p.n_tokens != 1 else ''}"
        title = f"piece {i + 1} · characters {p.start} to {p.end} · {what}"
        chips.append(TokenChip(p.text, title=title, classes=("special",) if p.special else ()))
    return (TOKENIZE_CSS if css else "") + wrap_run(_running(chips, show_whitespace), css=False, scroll=True)


def ids_html(tok: Tokenizer, ids: Sequence[int], *, show_whitespace: bool = True, css: bool = True) -> str:
    """Token ids (already checked) as chips: what each id decodes to.

    >>> from bpe_core.pretrained import openai_tokenizer
    >>> out = ids_html(openai_tokenizer("gpt2"), [15496, 995], css=False)
    >>> out.count('<span title="token'), "Hello" in out
    (2, True)
    """
    chips = [chip_for_id(tok, tid, title=token_title(tok, tid, tok.token_bytes(tid), position=i))
             for i, tid in enumerate(ids)]
    return (TOKENIZE_CSS if css else "") + wrap_run(_running(chips, show_whitespace), css=False, scroll=True)


def replay_rows(replay: Replay) -> list[tuple[int | None, tuple[int | None, ...], int | None]]:
    """The ladder of a replay: (rank, symbols, position of the new token) per row; the
    first row is the base symbols (no rank, nothing new).

    >>> from bpe_core.pretrained import openai_tokenizer
    >>> rows = replay_rows(openai_tokenizer("gpt2").replay(" low"))
    >>> [(rank, len(symbols), new) for rank, symbols, new in rows]
    [(None, 4, None), (300, 3, 0), (322, 2, 1), (1877, 1, 0)]
    """
    rows: list[tuple[int | None, tuple[int | None, ...], int | None]] = [(None, tuple(replay.base), None)]
    for step in replay.steps:
        rows.append((step.rank, tuple(step.symbols), step.position))
    return rows


def replay_html(
    tok: Tokenizer,
    replay: Replay,
    upto: int,
    *,
    show_whitespace: bool = True,
    trained: bool = False,
    css: bool = True,
) -> str:
    """The merge ladder up to step `upto`: one row per merge, its rank on the left, the
    symbols after it as chips, the token it made outlined. The current row is shaded.

    >>> from bpe_core.pretrained import openai_tokenizer
    >>> gpt2 = openai_tokenizer("gpt2")
    >>> out = replay_html(gpt2, gpt2.replay(" low"), 2, css=False)
    >>> out.count('class="bpe-row'), "rank 322" in out, out.count(" hl")
    (3, True, 2)
    """
    rows_html = []
    for k, (rank, symbols, new) in enumerate(replay_rows(replay)[: upto + 1]):
        if rank is None:
            label = "base symbols"
        elif trained:
            label = f"merge {k} · training step {rank:,}"
        else:
            label = f"merge {k} · rank {rank:,}"
        chips = []
        for i, sid in enumerate(symbols):
            data = tok.token_bytes(sid) if sid is not None else b""
            title = token_title(tok, sid, data)
            chips.append(chip_for_id(tok, sid, title=title, classes=("hl",) if i == new else ()))
        now = " now" if k == upto else ""
        rows_html.append(
            f'<div class="bpe-row{now}"><span class="bpe-rank">{label}</span>'
            f"{chips_html(chips, show_whitespace=show_whitespace, block=True)}</div>"
        )
    return (TOKENIZE_CSS if css else "") + f'<div class="bpe-ladder">{"".join(rows_html)}</div>'


def counts_html(counts: Sequence[tuple[str, str, str]]) -> str:
    """The text's counts as one static block (label, value, help each), not five
    st.metric: a metric makes a first load fetch and run its own scripts (number
    formatting, ~60 kB) and draws five elements. A label with help shows it on hover
    or focus (a tap on a phone); labels and values are escaped.

    >>> counts_html([("Tokens", "1,234", "")])
    '<div class="bpe-counts" role="group" aria-label="Counts"><div class="bpe-count" data-label="Tokens"><div class="bpe-count-label">Tokens</div><div class="bpe-count-value">1,234</div></div></div>'
    """
    cells = []
    for label, value, help_text in counts:
        name = html.escape(label)
        if help_text:
            name = (f'<span class="bpe-help" tabindex="0" title="{html.escape(help_text)}">{name}'
                    f'<span class="bpe-tip" role="tooltip">{html.escape(help_text)}</span></span>')
        cells.append(f'<div class="bpe-count" data-label="{html.escape(label)}"><div class="bpe-count-label">{name}'
                     f'</div><div class="bpe-count-value">{html.escape(value)}</div></div>')
    return f'<div class="bpe-counts" role="group" aria-label="Counts">{"".join(cells)}</div>'
