"""The Tokenize page's drawings as HTML strings: the text as token chips, the pieces,
decoded ids, and the merge ladder of a replay.

Pure functions built on ui/shared/chips.py (`chip_for`, `TOKEN_CSS`, `PALETTE`), so every
token is one coloured chip with a border, neighbours never share a colour, and every
piece of user text goes through `html.escape`. A token that is only part of a
character gets its own chip, labelled with its bytes (`<E4><BD>`). Whitespace a
pre-tokenizer drops (the `whitespace` one) is drawn between chips, dimmed, not as a chip.

Built for long texts (100 kB is ~25,000 chips): Streamlit's frontend runs every `st.html`
body through an HTML sanitizer (DOMPurify), which pays per element and per attribute, and
then lays the page out. So in the long drawings (text, pieces, ids) a chip is a bare
`<span title="...">`: its colour comes from its position (`nth-of-type` rules in
TOKENIZE_CSS, seven colours in turn), not from a class or an inline style; whitespace
marks are plain characters (no inner span per space; a chip of only whitespace gets the
class `blank`, which dims it); only highlighted, special, unknown and partial chips carry
classes. Gaps are `<i>`, so they do not count as positions. Long texts are cut into
blocks at newlines, each `content-visibility: auto`, so the browser lays out and paints
only the blocks in view; each block names the colour its first chip takes (`bpe-o3`).
Small drawings (captions, the merge ladder) use `chip_html`: a colour class `c0`..`c6`.
"""
from __future__ import annotations

import html
from typing import Sequence

from bpe_core import Replay, Tokenizer, TokenSpan

from ui.tokenize.logic import Piece, token_title
from ui.shared.chips import PALETTE, TOKEN_CSS, TokenChip, chip_for

__all__ = [
    "TOKENIZE_CSS", "BLOCK_CHARS", "reveal", "chip_html", "chip_html_for", "chip_for_id", "text_html", "pieces_html", "ids_html", "replay_rows",
    "replay_html", "symbol_text",
]

#: Styles this page adds to TOKEN_CSS: dropped whitespace, the replay ladder, larger
#: type for projectors. Page-wide, so every class is prefixed `bpe-`.
TOKENIZE_CSS = TOKEN_CSS + """
<style>
.bpe-tokens { overflow-wrap: anywhere; }
.bpe-tokens .bpe-tok { white-space: pre; }
.bpe-tok.blank { color: #555; }
.bpe-tokens .bpe-gap { color: #666; font-style: normal; }
.bpe-block { content-visibility: auto; }
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
""" + "".join(f".bpe-tok.c{k} {{ background: {colour}; }}\n" for k, colour in enumerate(PALETTE)) + (
    # Runs of chips (text, pieces, ids): any span directly inside `.bpe-oK` is a chip, styled
    # as ui/shared/chips.py styles `.bpe-tok`, and coloured by position starting at colour K.
    ", ".join(f".bpe-o{k} > span" for k in range(len(PALETTE)))
    + " { color: #000; border: 1px solid #333; border-radius: 4px; padding: 1px 3px; margin: 0 2px 0 0; }\n"
    + "".join(f".bpe-o{k} > span:nth-of-type({len(PALETTE)}n+{j + 1}) {{ background: {PALETTE[(k + j) % len(PALETTE)]}; }}\n"
              for k in range(len(PALETTE)) for j in range(len(PALETTE)))
) + """</style>
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


#: Whitespace marks, as plain characters (a newline mark is followed by a real newline).
#: The same marks as ui/tokens.visible, without its span per character.
_MARKS = str.maketrans({" ": "·", "\n": "↵\n", "\t": "→", "\r": "␍", "\u00a0": "⍽", "\u3000": "□"})
_BLANK = frozenset(" \n\t\r\u00a0\u3000")


def chip_html(chip: TokenChip, index: int, *, show_whitespace: bool = True) -> str:
    r"""One chip as compact HTML: `index` picks the colour class, so neighbours differ.

    >>> chip_html(TokenChip(" <b>", title='id 1 "x"'), 3)
    '<span class="bpe-tok c3" title="id 1 &quot;x&quot;">·&lt;b&gt;</span>'
    >>> chip_html(TokenChip("\n  ", classes=("hl",)), 7)
    '<span class="bpe-tok c0 hl blank">↵\n··</span>'
    >>> chip_html(TokenChip("a b"), 1, show_whitespace=False), chip_html(TokenChip(""), 2)
    ('<span class="bpe-tok c1">a b</span>', '<span class="bpe-tok c2">&#8203;</span>')
    """
    classes, title, body = _chip_parts(chip, show_whitespace)
    return f'<span class="bpe-tok c{index % len(PALETTE)}{classes}"{title}>{body}</span>'


def _chip_parts(chip: TokenChip, show_whitespace: bool) -> tuple[str, str, str]:
    """A chip's HTML apart from its colour: (extra classes, title attribute, body)."""
    classes = "".join(" " + c for c in chip.classes)
    text = chip.text
    body = html.escape(text, quote=False)
    if show_whitespace:
        body = body.translate(_MARKS)
        if text and all(ch in _BLANK for ch in text):
            classes += " blank"
    if chip.marker:
        body += f'<span class="mk">{html.escape(chip.marker)}</span>'
    if not body:
        body = "&#8203;"  # an empty token still gets a visible chip
    title = f' title="{html.escape(chip.title, quote=True)}"' if chip.title else ""
    return classes, title, body


def _run_chip(chip: TokenChip, show_whitespace: bool) -> str:
    """A chip inside a run (`.bpe-oK`): coloured by its position, so no colour class.

    >>> _run_chip(TokenChip(" <b>", title="id 1"), True), _run_chip(TokenChip("  ", classes=("hl",)), True)
    ('<span title="id 1">·&lt;b&gt;</span>', '<span class="bpe-tok hl blank">··</span>')
    """
    classes, title, body = _chip_parts(chip, show_whitespace)
    cls = f' class="bpe-tok{classes}"' if classes else ""
    return f"<span{cls}{title}>{body}</span>"


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
    the last span is left out (a preview). A chip's HTML depends only on its token (its
    colour comes from its position), so each distinct token is built once: 100 kB of
    text is ~25,000 chips but only a few thousand distinct tokens.

    >>> from bpe_core.pretrained import openai_tokenizer
    >>> gpt2 = openai_tokenizer("gpt2")
    >>> out = text_html("a <b>", gpt2.token_spans("a <b>"), gpt2, css=False, scroll=False)
    >>> out.count('<span title="id '), "<b>" in out, "&gt;" in out
    (4, False, True)
    """
    parts: list[tuple[str, str, bool]] = []  # (html, the text it draws, is it a chip)
    memo: dict[tuple, str] = {}
    pos = 0
    for i, span in enumerate(spans):
        if span.start > pos:
            gap = text[pos : span.start]
            parts.append((_gap(gap, show_whitespace), gap, False))
        key = (span.id, span.special, span.token_bytes, i == highlight)
        chip = memo.get(key)
        if chip is None:
            chip = memo[key] = _run_chip(_revealed(_span_chip(tok, span, i == highlight), show_whitespace),
                                         show_whitespace)
        parts.append((chip, span.label, True))
        pos = max(pos, span.end)
    if complete and pos < len(text):
        parts.append((_gap(text[pos:], show_whitespace), text[pos:], False))
    return _wrap(_blocks(parts), css=css, scroll=scroll)


#: A long drawing is cut into blocks of at least this many characters (cut after a
#: newline, so the lines look exactly as without blocks).
BLOCK_CHARS = 2_000
#: Height of one line of chips in rem (1.3rem type, line-height 2.1), and characters per
#: line, to guess a block's height before the browser has laid it out.
_LINE_REM = 2.73
_LINE_CHARS = 70


def _blocks(parts: Sequence[tuple[str, str, bool]], block_chars: int = BLOCK_CHARS) -> str:
    r"""Join a run of (html, text, is a chip); a long run is cut into blocks at newlines.

    Each block is `content-visibility: auto`: the browser skips layout and paint of the
    blocks out of view (in the scroll box), which for 100 kB of text is most of them. A
    block's height before its first layout is a guess (`contain-intrinsic-size`; `auto`
    keeps the real one afterwards). Its class `bpe-oK` starts its colours at K, so the
    colours run on across blocks. Text with no newline stays one block: a cut elsewhere
    would look like a line break.

    >>> _blocks([("<a>", "x\n", True), ("<b>", "y", True)], block_chars=100)
    '<a><b>'
    >>> print(_blocks([("<a>", "x\n", True), ("<i>", " ", False), ("<b>", "y\n", True), ("<c>", "z", True)],
    ...               block_chars=2).replace("</div>", "</div>\n"))
    <div class="bpe-block bpe-o0" style="contain-intrinsic-size:auto 2.73rem"><a></div>
    <div class="bpe-block bpe-o1" style="contain-intrinsic-size:auto 2.73rem"><i><b></div>
    <div class="bpe-block bpe-o2" style="contain-intrinsic-size:auto 2.73rem"><c></div>
    <BLANKLINE>
    """
    if sum(len(t) for _, t, _ in parts) <= block_chars:
        return _BREAK.join(h for h, _, _ in parts)
    out: list[str] = []
    chunk: list[str] = []
    chars = lines = chips = first = 0

    def close() -> None:
        rem = round(max(lines + chars / _LINE_CHARS, 1.0)) * _LINE_REM
        out.append(f'<div class="bpe-block bpe-o{first % len(PALETTE)}" style="contain-intrinsic-size:auto {rem:g}rem">'
                   f"{_BREAK.join(chunk)}</div>")

    for h, t, is_chip in parts:
        chunk.append(h)
        chars += len(t)
        lines += t.count("\n")
        chips += is_chip
        if chars >= block_chars and t.endswith("\n"):
            close()
            chunk, chars, lines, first = [], 0, 0, chips
    if chunk:
        close()
    return "".join(out)


def _gap(text: str, show_whitespace: bool) -> str:
    body = html.escape(text, quote=False)
    if show_whitespace:
        body = body.translate(_MARKS)
    return f'<i class="bpe-gap" title="not part of any token">{body}</i>'


def _wrap(body: str, *, css: bool, scroll: bool, extra: str = "") -> str:
    """A run of chips in its box; `bpe-o0` colours the chips directly inside it."""
    classes = "bpe-tokens" + (" bpe-scroll" if scroll else "") + " bpe-o0" + (f" {extra}" if extra else "")
    return (TOKENIZE_CSS if css else "") + f'<div class="{classes}">{body}</div>'


def pieces_html(pieces: Sequence[Piece], *, show_whitespace: bool = True, css: bool = True) -> str:
    """Each pre-tokenization piece as one chip (hover: its offsets and token count).

    >>> out = pieces_html([Piece("Hi", 0, 2, 1), Piece(" <i>", 2, 6, 2)], css=False)
    >>> out.count('<span title="piece'), "&lt;i&gt;" in out
    (2, True)
    """
    chips = []
    for i, p in enumerate(pieces):
        what = "special token" if p.special else f"{p.n_tokens} token{'s' if p.n_tokens != 1 else ''}"
        title = f"piece {i + 1} · characters {p.start} to {p.end} · {what}"
        chip = TokenChip(p.text, title=title, classes=("special",) if p.special else ())
        chips.append((_run_chip(_revealed(chip, show_whitespace), show_whitespace), p.text, True))
    return _wrap(_blocks(chips), css=css, scroll=True)


def ids_html(tok: Tokenizer, ids: Sequence[int], *, show_whitespace: bool = True, css: bool = True) -> str:
    """Token ids (already checked) as chips: what each id decodes to.

    >>> from bpe_core.pretrained import openai_tokenizer
    >>> out = ids_html(openai_tokenizer("gpt2"), [15496, 995], css=False)
    >>> out.count('<span title="token'), "Hello" in out
    (2, True)
    """
    chips = []
    for i, tid in enumerate(ids):
        chip = chip_for_id(tok, tid, title=token_title(tok, tid, tok.token_bytes(tid), position=i))
        chips.append((_run_chip(_revealed(chip, show_whitespace), show_whitespace), chip.text, True))
    return _wrap(_blocks(chips), css=css, scroll=True)


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
