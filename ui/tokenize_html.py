"""The Tokenize page's drawings as HTML strings: the text as token chips, the pieces,
decoded ids, and the merge ladder of a replay.

Pure functions built on ui/tokens.py (`chip_html`, `chip_for`, `visible`, `TOKEN_CSS`),
so every token is one coloured chip with a border, neighbours never share a colour, and
every piece of user text goes through `html.escape`. A token that is only part of a
character gets its own chip, labelled with its bytes (`<E4><BD>`). Whitespace a
pre-tokenizer drops (the `whitespace` one) is drawn between chips, dimmed, not as a chip.
"""
from __future__ import annotations

from typing import Sequence

from bpe_core import Replay, Tokenizer, TokenSpan

from .tokenize_logic import Piece, token_title
from .tokens import PALETTE, TOKEN_CSS, TokenChip, chip_for, chip_html, visible

__all__ = [
    "TOKENIZE_CSS", "reveal", "chip_html_for", "chip_for_id", "text_html", "pieces_html", "ids_html", "replay_rows",
    "replay_html", "symbol_text",
]

#: Styles this page adds to TOKEN_CSS: dropped whitespace, the replay ladder, larger
#: type for projectors. Page-wide, so every class is prefixed `bpe-`.
TOKENIZE_CSS = TOKEN_CSS + """
<style>
.bpe-tokens { overflow-wrap: anywhere; }
.bpe-tokens .bpe-tok { white-space: pre; }
.bpe-tokens .bpe-gap { color: #666; }
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
</style>
"""


#: Chips are joined with nothing between them. A line breaks between two chips, never
#: inside one: chips are `white-space: pre` and the container may wrap anywhere
#: (TOKEN_CSS's word-break), so "Byte" never ends a line as "By" and looks like two
#: tokens. (A <wbr> between chips did the same at the cost of one more DOM node per
#: token, which the browser's HTML sanitizer pays for on long texts.)
_BREAK = ""


#: Names for characters that draw nothing (or look like a plain space); others get U+XXXX.
_INVISIBLE_NAMES = {
    0x00: "NUL", 0x0B: "VT", 0x0C: "FF", 0x1B: "ESC", 0x7F: "DEL", 0x85: "NEL", 0xAD: "SHY",
    0x034F: "CGJ", 0x180E: "MVS", 0x2002: "ENSP", 0x2003: "EMSP", 0x2009: "THSP", 0x200A: "HSP",
    0x200B: "ZWSP", 0x200C: "ZWNJ", 0x200D: "ZWJ", 0x200E: "LRM", 0x200F: "RLM", 0x2028: "LS",
    0x2029: "PS", 0x202A: "LRE", 0x202B: "RLE", 0x202C: "PDF", 0x202D: "LRO", 0x202E: "RLO",
    0x202F: "NNBSP", 0x205F: "MMSP", 0x2060: "WJ", 0x2066: "LRI", 0x2067: "RLI", 0x2068: "FSI",
    0x2069: "PDI", 0xFE0E: "VS15", 0xFE0F: "VS16", 0xFEFF: "BOM",
}
#: Drawn by ui/tokens.visible already (·, ↵, →, ␍, ⍽, □).
_ALREADY_VISIBLE = frozenset(" \n\t\r\u00a0\u3000")


def reveal(text: str) -> str:
    """Name the characters that would otherwise be invisible in a chip: ⟨ZWJ⟩ for a
    zero-width joiner, ⟨VS16⟩ for the emoji variation selector, ⟨U+E0041⟩ for a tag...

    >>> reveal("a\u200db"), reveal("❤\ufe0f"), reveal("plain text"), reveal("\x01")
    ('a⟨ZWJ⟩b', '❤⟨VS16⟩', 'plain text', '⟨U+0001⟩')
    """
    if text.isprintable() and not any(0xFE00 <= ord(c) <= 0xFE0F or 0xE0100 <= ord(c) <= 0xE01EF for c in text):
        return text
    out = []
    for ch in text:
        cp = ord(ch)
        if ch in _ALREADY_VISIBLE or (ch.isprintable() and not (0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF)):
            out.append(ch)
        else:
            out.append(f"⟨{_INVISIBLE_NAMES.get(cp, f'U+{cp:04X}')}⟩")
    return "".join(out)


def _revealed(chip: TokenChip, show_whitespace: bool) -> TokenChip:
    if not show_whitespace:
        return chip
    text = reveal(chip.text)
    return chip if text == chip.text else TokenChip(text, chip.title, chip.classes, chip.marker)


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
    body, eow = tok.tokens[token_id]
    return chip_for(body, eow, tok.marker, title=title, classes=classes)


def chip_html_for(tok: Tokenizer, token_id: int | None, index: int, *, show_whitespace: bool = True,
                  title: str = "") -> str:
    """One token id as a chip's HTML, invisible characters named (captions, notices)."""
    chip = chip_for_id(tok, token_id, title=title)
    return chip_html(_revealed(chip, show_whitespace), index, show_whitespace=show_whitespace)


def symbol_text(tok: Tokenizer, token_id: int | None) -> str:
    """A token as plain text for captions and tables: bytes as <E4>, marker kept.

    >>> from bpe_core.pretrained import openai_tokenizer
    >>> symbol_text(openai_tokenizer("gpt2"), 995), symbol_text(openai_tokenizer("gpt2"), 171)
    (' world', '<EF>')
    """
    chip = chip_for_id(tok, token_id)
    return chip.text + chip.marker


def _span_chip(tok: Tokenizer, span: TokenSpan, highlight: bool) -> TokenChip:
    title = token_title(tok, span.id, span.token_bytes)
    classes = ("hl",) if highlight else ()
    if span.id is None:
        return TokenChip(span.label, title=title, classes=classes + ("unk",))
    if span.special:
        return TokenChip(span.label, title=title, classes=classes + ("special",))
    return chip_for_id(tok, span.id, title=title, classes=classes)


def text_html(
    text: str,
    spans: Sequence[TokenSpan],
    tok: Tokenizer,
    *,
    show_whitespace: bool = True,
    highlight: int | None = None,
    complete: bool = True,
    css: bool = True,
    scroll: bool = True,
) -> str:
    """The text as token chips, in order; text no token covers is drawn dimmed between.

    `highlight` outlines one token (by position). With `complete=False` the text after
    the last span is left out (a preview). A chip depends only on its token and colour,
    so each distinct (token, colour) is built once: 100 kB of text is ~25,000 chips but
    only a few thousand distinct ones.

    >>> from bpe_core.pretrained import openai_tokenizer
    >>> gpt2 = openai_tokenizer("gpt2")
    >>> out = text_html("a <b>", gpt2.token_spans("a <b>"), gpt2, css=False, scroll=False)
    >>> out.count('<span class="bpe-tok'), "<b>" in out, "&gt;" in out
    (4, False, True)
    """
    parts: list[str] = []
    memo: dict[tuple, str] = {}
    n_colours = len(PALETTE)
    pos = 0
    for i, span in enumerate(spans):
        if span.start > pos:
            parts.append(_gap(text[pos : span.start], show_whitespace))
        key = (span.id, span.special, span.token_bytes, i % n_colours, i == highlight)
        chip = memo.get(key)
        if chip is None:
            chip = memo[key] = chip_html(_revealed(_span_chip(tok, span, i == highlight), show_whitespace), i,
                                         show_whitespace=show_whitespace)
        parts.append(chip)
        pos = max(pos, span.end)
    if complete and pos < len(text):
        parts.append(_gap(text[pos:], show_whitespace))
    return _wrap(_BREAK.join(parts), css=css, scroll=scroll)


def _gap(text: str, show_whitespace: bool) -> str:
    return f'<span class="bpe-gap" title="not part of any token">{visible(text, show_whitespace=show_whitespace)}</span>'


def _wrap(body: str, *, css: bool, scroll: bool, extra: str = "") -> str:
    classes = "bpe-tokens" + (" bpe-scroll" if scroll else "") + (f" {extra}" if extra else "")
    return (TOKENIZE_CSS if css else "") + f'<div class="{classes}">{body}</div>'


def pieces_html(pieces: Sequence[Piece], *, show_whitespace: bool = True, css: bool = True) -> str:
    """Each pre-tokenization piece as one chip (hover: its offsets and token count).

    >>> out = pieces_html([Piece("Hi", 0, 2, 1), Piece(" <i>", 2, 6, 2)], css=False)
    >>> out.count('<span class="bpe-tok'), "&lt;i&gt;" in out
    (2, True)
    """
    chips = []
    for i, p in enumerate(pieces):
        what = "special token" if p.special else f"{p.n_tokens} token{'s' if p.n_tokens != 1 else ''}"
        title = f"piece {i + 1} · characters {p.start} to {p.end} · {what}"
        chip = TokenChip(p.text, title=title, classes=("special",) if p.special else ())
        chips.append(chip_html(_revealed(chip, show_whitespace), i, show_whitespace=show_whitespace))
    return _wrap(_BREAK.join(chips), css=css, scroll=True)


def ids_html(tok: Tokenizer, ids: Sequence[int], *, show_whitespace: bool = True, css: bool = True) -> str:
    """Token ids (already checked) as chips: what each id decodes to.

    >>> from bpe_core.pretrained import openai_tokenizer
    >>> out = ids_html(openai_tokenizer("gpt2"), [15496, 995], css=False)
    >>> out.count('<span class="bpe-tok'), "Hello" in out
    (2, True)
    """
    chips = [
        chip_html(_revealed(chip_for_id(tok, tid, title=token_title(tok, tid, tok.token_bytes(tid), position=i)),
                            show_whitespace), i, show_whitespace=show_whitespace)
        for i, tid in enumerate(ids)
    ]
    return _wrap(_BREAK.join(chips), css=css, scroll=True)


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
            chip = chip_for_id(tok, sid, title=title, classes=("hl",) if i == new else ())
            chips.append(chip_html(_revealed(chip, show_whitespace), i, show_whitespace=show_whitespace))
        now = " now" if k == upto else ""
        rows_html.append(
            f'<div class="bpe-row{now}"><span class="bpe-rank">{label}</span>'
            f'<div class="bpe-tokens">{_BREAK.join(chips)}</div></div>'
        )
    return (TOKENIZE_CSS if css else "") + f'<div class="bpe-ladder">{"".join(rows_html)}</div>'
