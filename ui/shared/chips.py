"""Tokens as chips: the one renderer, the one colouring rule and the one stylesheet
every page draws tokens with (Train, Tokenize, Vocabulary size, Algorithms, Quirks).

Pure functions returning HTML strings, so tests check them without a browser; every
piece of user text goes through `html.escape`. The rules, all in one place:

- A *run* of chips is one container (`bpe-tokens bpe-oK`); each chip is a `<span>`
  directly inside it. Colour comes from the chip's position in its run (`nth-of-type`
  rules, seven colours in turn, starting at colour K), so neighbours never share a
  colour, and a chip needs no colour class or inline style (long texts are ~25,000
  chips, and Streamlit's HTML sanitizer pays per attribute). Every chip also has a dark
  border: the cue that does not depend on colour.
- A chip is one unbreakable box (`display: inline-block`): a line breaks between chips,
  never inside one. A token longer than the line wraps inside its own box.
- Whitespace and invisible characters are drawn with bpe_core.display's one table
  (`·` space, `↵` newline, `⟨ZWJ⟩`...). No chip holds a real line break: in running
  text (`line_breaks=True`) a token holding newlines is one chip *followed by* those
  line breaks; in words and tables it stays on its line.
- Each chip is isolated from its neighbours' direction and takes its own from its first
  strong character (`unicode-bidi: plaintext`): `<D8>` byte labels are never reordered,
  and the space mark of an Arabic token stands on its right, where the space is. Lines
  whose first strong character is right-to-left (Arabic, Hebrew) are drawn in a block of
  their own with `dir="rtl"`: their chips run right to left (the first token rightmost)
  while the markup keeps the tokens in order, which is what a screen reader reads.
- A token that holds only part of a character says which character, in its title
  (`part_of`): `<E2><80>` is "part of ’ (U+2019 RIGHT SINGLE QUOTATION MARK)".
- A token that is only part of a character is labelled with its bytes (`<E4>`) and
  styled `partial`; specials are bold, unknown characters dashed.
- Tap to inspect (`tap=True`, run class `bpe-tap`): each chip is focusable
  (`tabindex="0"`), and the focused chip shows its title (id, bytes, rank) in a popover
  drawn by CSS alone (`::before` with `content: attr(title)`, so the text is never
  markup): a tap on a phone, a click or Tab on a laptop. The popover is anchored to the
  chip (CSS anchor positioning, flipped to stay on screen); where that is not supported
  it is a sheet at the bottom of the screen. No script: st.html drops scripts.
- Ids on the chips (`ids=True`, run class `bpe-ids`): each chip's id is drawn under its
  text from a `data-id` attribute (generated content: copying the text leaves it out).

Any tokenizer's spans (id, bytes, label, offsets: `TokenSpan` and its SentencePiece
form) are drawn by `spans_html`, the same way for every tokenizer. What it leaves out:
what a page shows around the chips (titles beyond id and bytes, tables, ladders).
"""
from __future__ import annotations

import html
import unicodedata
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from bpe_core.display import WHITESPACE_MARKS, bytes_label, name_invisible

__all__ = [
    "PALETTE", "CHIP_CSS", "TokenChip", "chip_label", "chip_html", "chips_html", "chip_for",
    "span_chip", "spans_html", "run_open", "BLOCK_CHARS", "hex_bytes",
]

# Okabe-Ito colours at about 45% tint: black text stays above 10:1 contrast.
PALETTE: tuple[str, ...] = (
    "#F4D48C", "#B3DDF5", "#8CD3C0", "#F8F3AA", "#8CC0DC", "#ECB78C", "#E8C3D7",
)

_N = len(PALETTE)

#: The one stylesheet for chips. Page-wide, so every class is prefixed `bpe-`.
CHIP_CSS = """
<style>
.bpe-tokens { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 1.15rem; line-height: 2.1; white-space: pre-wrap; overflow-wrap: anywhere;
  direction: ltr; text-align: left; unicode-bidi: isolate; }
.bpe-tokens > span, .bpe-block > span { display: inline-block; vertical-align: baseline; max-width: 100%;
  box-sizing: border-box; white-space: pre-wrap; overflow-wrap: break-word; line-height: 1.45;
  unicode-bidi: plaintext; color: #000; border: 1px solid #333; border-radius: 4px;
  padding: 1px 3px; margin: 0 2px 2px 0; }
.bpe-tokens > span:empty::before, .bpe-block > span:empty::before { content: "\\200B"; }
.bpe-tok.hl { outline: 3px solid #D55E00; outline-offset: 1px; font-weight: 700; }
.bpe-tok.unk { background: #fff !important; border: 2px dashed #D55E00; }
.bpe-tok.special { border: 2px solid #000; font-weight: 700; }
.bpe-tok.partial { font-style: italic; }
.bpe-tok.blank { color: #555; }
.bpe-tok.retired { opacity: .55; text-decoration: line-through; border-style: dashed; }
.bpe-tok .mk { color: #0B3C8C; font-weight: 600; }
.bpe-tokens .bpe-gap { color: #666; font-style: normal; }
.bpe-block { content-visibility: auto; }
.bpe-block[dir="rtl"] { direction: rtl; text-align: right; }
.bpe-ids > span[data-id]::after, .bpe-ids > .bpe-block > span[data-id]::after { content: attr(data-id);
  display: block; font-size: .62em; line-height: 1.15; text-align: center; color: #1a1a1a;
  font-style: normal; font-weight: 400; direction: ltr; unicode-bidi: isolate; }
.bpe-tap > span[tabindex], .bpe-tap > .bpe-block > span[tabindex] { cursor: pointer; }
.bpe-tap > span:focus, .bpe-tap > .bpe-block > span:focus { outline: 3px solid #0B3C8C;
  outline-offset: 1px; anchor-name: --bpe-chip; }
.bpe-tap .bpe-block:focus-within { content-visibility: visible; }
.bpe-tap > span[title]:focus::before, .bpe-tap > .bpe-block > span[title]:focus::before {
  content: attr(title); position: fixed; z-index: 100000; left: .5rem; right: .5rem; bottom: .5rem;
  white-space: pre-line; direction: ltr; unicode-bidi: isolate; text-align: left;
  font: 400 1rem/1.35 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-style: normal;
  color: #000; background: #fff; border: 2px solid #0B3C8C; border-radius: 6px; padding: .35rem .6rem;
  box-shadow: 0 3px 12px rgba(0,0,0,.3); pointer-events: none; text-decoration: none; opacity: 1; }
@supports (position-area: bottom) {
  .bpe-tap > span[title]:focus::before, .bpe-tap > .bpe-block > span[title]:focus::before {
    position-anchor: --bpe-chip; left: auto; right: auto; bottom: auto; margin: 5px 0;
    position-area: bottom span-right; position-try-fallbacks: flip-inline, flip-block, flip-block flip-inline;
    width: max-content; max-width: min(24rem, calc(100vw - 1rem)); }
}
""" + "".join(
    f".bpe-o{k} > span:nth-of-type({_N}n+{j + 1}) {{ background: {PALETTE[(k + j) % _N]}; }}\n"
    for k in range(_N) for j in range(_N)
) + "</style>\n"


@dataclass(frozen=True)
class TokenChip:
    """One token to draw: its text, a tooltip, and optional extra CSS classes.

    `marker` is an end-of-word marker drawn after the text in a distinct style;
    `id_label` is shown under the chip when the run shows ids.
    """

    text: str
    title: str = ""
    classes: tuple[str, ...] = ()
    marker: str = ""
    id_label: str = ""  #: drawn under the chip in a run with `bpe-ids` (its token id)


_BLANK = frozenset(WHITESPACE_MARKS)
_MARKS = str.maketrans(WHITESPACE_MARKS)
_NO_NEWLINES = str.maketrans({"\n": None})


def chip_label(text: str, *, show_whitespace: bool = True) -> str:
    r"""A token's text as a chip's HTML body: escaped, whitespace marked and invisible
    characters named (unless `show_whitespace` is off), never a real line break.

    >>> chip_label(" <b>\n"), chip_label("👩\u200d💻"), chip_label("a b\n", show_whitespace=False)
    ('·&lt;b&gt;↵', '👩⟨ZWJ⟩💻', 'a b')
    """
    if show_whitespace:
        text = name_invisible(text).translate(_MARKS)
    else:
        text = text.translate(_NO_NEWLINES)
    return html.escape(text)


def chip_html(chip: TokenChip, *, show_whitespace: bool = True, tap: bool = False, ids: bool = False) -> str:
    r"""One chip: a `<span>` to put directly inside a run (its position gives its colour).
    Classes only where needed (`hl`, `special`, `unk`, `partial`, `blank`, `retired`).
    `tap` makes a titled chip focusable (its popover); `ids` adds its `id_label`.

    >>> chip_html(TokenChip(" <b>", title='id 1 "x"'))
    '<span title="id 1 &quot;x&quot;">·&lt;b&gt;</span>'
    >>> chip_html(TokenChip("\n  ", classes=("hl",))), chip_html(TokenChip("w", marker="</w>"))
    ('<span class="bpe-tok hl blank">↵··</span>', '<span>w<span class="mk">&lt;/w&gt;</span></span>')
    >>> chip_html(TokenChip("a", title="id 7", id_label="7"), tap=True, ids=True)
    '<span title="id 7" tabindex="0" data-id="7">a</span>'
    """
    classes = "".join(" " + c for c in chip.classes)
    if show_whitespace and chip.text and all(ch in _BLANK for ch in chip.text):
        classes += " blank"
    body = chip_label(chip.text, show_whitespace=show_whitespace)
    if chip.marker:
        body += f'<span class="mk">{html.escape(chip.marker)}</span>'
    cls = f' class="bpe-tok{classes}"' if classes else ""
    title = f' title="{html.escape(chip.title, quote=True)}"' if chip.title else ""
    if tap and chip.title:
        title += ' tabindex="0"'
    if ids and chip.id_label:
        title += f' data-id="{html.escape(chip.id_label, quote=True)}"'
    return f"<span{cls}{title}>{body}</span>"


def _breaks(text: str, line_breaks: bool) -> str:
    """The line breaks that follow a chip in running text: the token's own newlines."""
    return "\n" * text.count("\n") if line_breaks else ""


def run_open(*, start: int = 0, tag: str = "span", extra: str = "") -> str:
    """The opening tag of a run whose first chip takes colour `start`."""
    return f'<{tag} class="bpe-tokens{" " + extra if extra else ""} bpe-o{start % _N}">'


def chips_html(
    chips: Iterable[TokenChip],
    *,
    start: int = 0,
    show_whitespace: bool = True,
    line_breaks: bool = False,
    css: bool = False,
    block: bool = False,
    extra: str = "",
) -> str:
    r"""A run of chips: inline (a `<span>`) unless `block`; its first chip takes colour
    `start`, so a run continued elsewhere keeps neighbours apart. With `line_breaks`
    (running text) a token holding newlines is followed by them; `css` prepends CHIP_CSS.

    >>> chips_html([TokenChip("lo"), TokenChip("w", marker="</w>")], start=3)
    '<span class="bpe-tokens bpe-o3"><span>lo</span><span>w<span class="mk">&lt;/w&gt;</span></span></span>'
    >>> chips_html([TokenChip("\n\n\n"), TokenChip("x")], line_breaks=True, block=True)
    '<div class="bpe-tokens bpe-o0"><span class="bpe-tok blank">↵↵↵</span>\n\n\n<span>x</span></div>'
    >>> "<script>" in chips_html([TokenChip("<script>")], css=True)
    False
    """
    tag = "div" if block else "span"
    body = "".join(
        chip_html(c, show_whitespace=show_whitespace) + _breaks(c.text, line_breaks) for c in chips
    )
    return (CHIP_CSS if css else "") + run_open(start=start, tag=tag, extra=extra) + body + f"</{tag}>"


def chip_for(body: str | bytes, eow: bool, marker: str, *, title: str = "", classes: tuple[str, ...] = ()) -> TokenChip:
    """A chip for a token given as (body, eow): bytes that are not valid UTF-8 on their
    own are shown as `<E4>` (and styled as partial), the end-of-word marker apart.

    >>> chip_for(b"\\xe4", False, "").text, chip_for(b"\\xe4", False, "").classes, chip_for("w", True, "</w>").marker
    ('<E4>', ('partial',), '</w>')
    """
    if isinstance(body, bytes):
        text = bytes_label(body)
        if not _is_utf8(body):
            classes = classes + ("partial",)
    else:
        text = body
    return TokenChip(text=text, title=title, classes=classes, marker=marker if eow else "")


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def hex_bytes(data: bytes, limit: int = 24) -> str:
    """Bytes as spaced hex (for tooltips), shortened past `limit` bytes.

    >>> hex_bytes("你".encode()), hex_bytes(b"a" * 30, limit=4)
    ('E4 BD A0', '61 61 61 61 … (30 bytes)')
    """
    shown = " ".join(f"{b:02X}" for b in data[:limit])
    return shown + (f" … ({len(data)} bytes)" if len(data) > limit else "")


# ---- any tokenizer's spans ------------------------------------------------------------------
def _span_title(span) -> str:
    if span.id is None:
        return f"no id: this character is not in the vocabulary\nbytes {hex_bytes(span.token_bytes)}"
    return f"id {span.id}\nbytes {hex_bytes(span.token_bytes)}"


def span_chip(span, *, title: str = "", marker: str = "", highlight: bool = False) -> TokenChip:
    """The chip of one span of any tokenizer (`TokenSpan` or a subclass): its label,
    and a class for a highlighted, special, unknown or partial token.

    >>> from bpe_core import TokenSpan
    >>> span_chip(TokenSpan(None, b"x", "x", 0, 1, 0)).classes, span_chip(TokenSpan(5, b"\\xe4", "<E4>", 0, 1, 0)).classes
    (('unk',), ('partial',))
    """
    classes = ("hl",) if highlight else ()
    if span.special:
        classes += ("special",)
    elif span.id is None or getattr(span, "unknown", False):
        classes += ("unk",)
    elif getattr(span, "byte_fallback", False) or not _is_utf8(span.token_bytes):
        classes += ("partial",)
    id_label = "?" if span.id is None else str(span.id)
    return TokenChip(span.label, title=title or _span_title(span), classes=classes, marker=marker, id_label=id_label)


#: A long drawing is cut into blocks of at least this many characters (cut after a
#: newline, so the lines look exactly as without blocks).
BLOCK_CHARS = 2_000
#: Height of one line of chips in rem (1.3rem type, line-height 2.1), and characters per
#: line, to guess a block's height before the browser has laid it out.
_LINE_REM = 2.73
_LINE_CHARS = 70


def spans_html(
    text: str,
    spans: Sequence,
    *,
    title_of: Callable[[object], str] | None = None,
    marker_of: Callable[[object], str] | None = None,
    show_whitespace: bool = True,
    highlight: int | None = None,
    complete: bool = True,
    css: bool = True,
    scroll: bool = True,
    extra: str = "",
    tap: bool = False,
    ids: bool = False,
) -> str:
    r"""A text as the chips of its spans, in order, as running text (a token holding
    newlines is one chip followed by the line breaks); text no span covers is drawn
    dimmed between chips. `title_of(span)` and `marker_of(span)` let a page add to a
    chip (default: id and bytes; no marker). `highlight` outlines one token (by
    position); with `complete=False` the text after the last span is left out. `tap`:
    a tap (or Tab) on a chip shows its title in a popover; `ids`: ids under the chips.

    A chip's HTML depends only on its token, so each distinct token is built once:
    100 kB of text is ~25,000 chips but only a few thousand distinct tokens.

    >>> from bpe_core.pretrained import load_pretrained
    >>> cl100k = load_pretrained("cl100k_base")
    >>> out = spans_html("a <b>\n\n\nc", cl100k.token_spans("a <b>\n\n\nc"), css=False, scroll=False)
    >>> out.count('<span title="id '), out.count("&gt;↵↵↵</span>\n\n\n<span"), "<b>" in out
    (5, 1, False)
    """
    parts: list[tuple[str, str, bool]] = []  # (html, the text it draws, is it a chip)
    memo: dict[tuple, str] = {}
    pos = 0
    for i, span in enumerate(spans):
        if span.start > pos:
            gap = text[pos : span.start]
            parts.append((_gap(gap, show_whitespace), gap, False))
        covered = text[span.start : span.end]  # a partial token's title names its character
        key = (span.id, span.special, span.token_bytes, span.label, i == highlight, covered)
        chip = memo.get(key)
        if chip is None:
            title = title_of(span) if title_of else ""
            marker = marker_of(span) if marker_of else ""
            made = span_chip(span, title=title, marker=marker, highlight=i == highlight)
            if "partial" in made.classes:
                made = TokenChip(made.text, (made.title or _span_title(span)) + "\n" + part_of(covered, span.token_bytes),
                                 made.classes, made.marker, made.id_label)
            chip = memo[key] = chip_html(made, show_whitespace=show_whitespace, tap=tap, ids=ids)
        drawn = text[span.start : span.end] if span.end > span.start else span.label
        parts.append((chip + _breaks(drawn, True), drawn, True))
        pos = max(pos, span.end)
    if complete and pos < len(text):
        parts.append((_gap(text[pos:], show_whitespace), text[pos:], False))
    extra = " ".join(c for c in (extra, "bpe-tap" if tap else "", "bpe-ids" if ids else "") if c)
    return wrap_run(blocks(parts), css=css, scroll=scroll, extra=extra)


def part_of(covered: str, data: bytes) -> str:
    r"""Which characters of `covered` (the text a token's span covers) the token's bytes
    `data` hold only part of.

    >>> part_of(" ’", b" \xe2\x80"), part_of("你", b"\xa0")
    ('part of ’ (U+2019 RIGHT SINGLE QUOTATION MARK)', 'part of 你 (U+4F60 CJK UNIFIED IDEOGRAPH-4F60)')
    """
    encoded = covered.encode("utf-8", errors="surrogatepass")
    at = encoded.find(data)
    start, end = (at, at + len(data)) if at >= 0 else (0, len(encoded))
    split, pos = [], 0
    for ch in covered:
        size = len(ch.encode("utf-8", errors="surrogatepass"))
        if pos < end and pos + size > start and not (start <= pos and pos + size <= end):
            split.append(f"{ch} (U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed')})")
        pos += size
    return "part of " + ", ".join(split) if split else "part of a character"


def wrap_run(body: str, *, css: bool, scroll: bool, extra: str = "") -> str:
    """A run of chips in its box (`bpe-scroll`: a box of its own height that scrolls)."""
    more = ("bpe-scroll" if scroll else "") + (f" {extra}" if extra else "")
    return (CHIP_CSS if css else "") + run_open(tag="div", extra=more.strip()) + body + "</div>"


def _gap(text: str, show_whitespace: bool) -> str:
    """Text no token covers (whitespace a pre-tokenizer dropped): dimmed, not a chip; its
    newlines break the line after their marks."""
    body = chip_label(text, show_whitespace=show_whitespace) + "\n" * text.count("\n")
    return f'<i class="bpe-gap" title="not part of any token">{body}</i>'


def _strong(text: str) -> str | None:
    """The direction of the first strong character of `text`, if any."""
    for ch in text:
        kind = unicodedata.bidirectional(ch)
        if kind == "L":
            return "ltr"
        if kind in ("R", "AL"):
            return "rtl"
    return None


def _line_directions(parts: Sequence[tuple[str, str, bool]]) -> list[str]:
    r"""Each part's line direction: its line's first strong character's ("ltr" or "rtl"),
    or the line before's for a line with none (blank lines, digits). A line ends with a
    part whose text ends with a newline.

    >>> _line_directions([("", "hi ", True), ("", "שלום\n", True), ("", "שלום", True), ("", "1\n", True), ("", "2", True)])
    ['ltr', 'ltr', 'rtl', 'rtl', 'rtl']
    """
    out: list[str] = []
    line_start, found, last = 0, None, "ltr"
    for i, (_, t, _) in enumerate(parts):
        if found is None:
            found = _strong(t)
        if t.endswith("\n") or i == len(parts) - 1:
            last = found or last
            out.extend([last] * (i + 1 - line_start))
            line_start, found = i + 1, None
    return out


def blocks(parts: Sequence[tuple[str, str, bool]], block_chars: int = BLOCK_CHARS) -> str:
    r"""Join a run of (html, text, is a chip); a long run is cut into blocks at newlines.

    Each block is `content-visibility: auto`: the browser skips layout and paint of the
    blocks out of view (in the scroll box), which for 100 kB of text is most of them. A
    block's height before its first layout is a guess (`contain-intrinsic-size`; `auto`
    keeps the real one afterwards). Its class `bpe-oK` starts its colours at K, so the
    colours run on across blocks. Text with no newline stays one block: a cut elsewhere
    would look like a line break. Lines whose first strong character is right-to-left
    get blocks of their own, `dir="rtl"` (also in a short text).

    >>> blocks([("<a>", "x\n", True), ("<b>", "y", True)], block_chars=100)
    '<a><b>'
    >>> print(blocks([("<a>", "x\n", True), ("<i>", " ", False), ("<b>", "y\n", True), ("<c>", "z", True)],
    ...              block_chars=2).replace("</div>", "</div>\n"))
    <div class="bpe-block bpe-o0" style="contain-intrinsic-size:auto 2.73rem"><a></div>
    <div class="bpe-block bpe-o1" style="contain-intrinsic-size:auto 2.73rem"><i><b></div>
    <div class="bpe-block bpe-o2" style="contain-intrinsic-size:auto 2.73rem"><c></div>
    <BLANKLINE>
    """
    dirs = _line_directions(parts)
    if sum(len(t) for _, t, _ in parts) <= block_chars and "rtl" not in dirs:
        return "".join(h for h, _, _ in parts)
    out: list[str] = []
    chunk: list[str] = []
    chars = lines = chips = first = 0
    now = dirs[0] if dirs else "ltr"

    def close() -> None:
        rem = round(max(lines + chars / _LINE_CHARS, 1.0)) * _LINE_REM
        rtl = ' dir="rtl"' if now == "rtl" else ""
        out.append(f'<div class="bpe-block bpe-o{first % _N}"{rtl} style="contain-intrinsic-size:auto {rem:g}rem">'
                   + "".join(chunk) + "</div>")

    for (h, t, is_chip), d in zip(parts, dirs):
        if chunk and d != now:  # a line of the other direction starts: a block of its own
            close()
            chunk, chars, lines, first = [], 0, 0, chips
        now = d
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
