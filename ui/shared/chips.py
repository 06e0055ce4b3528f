"""Token boundaries as HTML: coloured chips with a non-colour cue and visible whitespace.

Pure functions returning HTML strings, so tests check them without a browser. Every
piece of user text goes through `html.escape`. Neighbouring tokens never share a colour
(colour by position), each chip also has a dark border (the non-colour cue), and
whitespace is drawn: `·` for a space, `↵` for a newline (followed by a real line
break), `→` for a tab.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Iterable, Sequence

__all__ = ["PALETTE", "TokenChip", "tokens_html", "chip_html", "chip_for", "TOKEN_CSS", "visible"]

# Okabe-Ito colours at about 45% tint: black text stays above 10:1 contrast.
PALETTE: tuple[str, ...] = (
    "#F4D48C", "#B3DDF5", "#8CD3C0", "#F8F3AA", "#8CC0DC", "#ECB78C", "#E8C3D7",
)

TOKEN_CSS = """
<style>
.bpe-tokens { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 1.15rem; line-height: 2.1; white-space: pre-wrap; word-break: break-word; }
.bpe-tok { color: #000; border: 1px solid #333; border-radius: 4px; padding: 1px 3px;
  margin: 0 2px 0 0; display: inline; }
.bpe-tok.hl { outline: 3px solid #D55E00; outline-offset: 1px; font-weight: 700; }
.bpe-tok.unk { background: #fff !important; border: 2px dashed #D55E00; }
.bpe-tok.special { border: 2px solid #000; font-weight: 700; }
.bpe-tok.partial { font-style: italic; }
.bpe-tok .ws { color: #555; }
.bpe-tok .mk { color: #0B3C8C; font-weight: 600; }
</style>
"""

_WS = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍", "\u00a0": "⍽", "\u3000": "□"}


@dataclass(frozen=True)
class TokenChip:
    """One token to draw: its text, a tooltip, and optional extra CSS classes.

    `marker` is an end-of-word marker drawn after the text in a distinct style.
    """

    text: str
    title: str = ""
    classes: tuple[str, ...] = ()
    marker: str = ""


def visible(text: str, *, show_whitespace: bool = True) -> str:
    """Escape text for HTML, drawing whitespace visibly (newlines also break the line).

    >>> visible("a b\\n<i>")
    'a<span class="ws">·</span>b<span class="ws">↵</span>\\n&lt;i&gt;'
    >>> visible("a b", show_whitespace=False)
    'a b'
    """
    if not show_whitespace:
        return html.escape(text)
    out = []
    for ch in text:
        sym = _WS.get(ch)
        if sym is None:
            out.append(html.escape(ch))
        else:
            out.append(f'<span class="ws">{sym}</span>' + ("\n" if ch == "\n" else ""))
    return "".join(out)


def chip_html(chip: TokenChip, index: int, *, show_whitespace: bool = True) -> str:
    """One token chip; `index` picks the colour so neighbours differ."""
    color = PALETTE[index % len(PALETTE)]
    classes = " ".join(("bpe-tok",) + chip.classes)
    body = visible(chip.text, show_whitespace=show_whitespace)
    if chip.marker:
        body += f'<span class="mk">{html.escape(chip.marker)}</span>'
    if not body:
        body = "&#8203;"  # an empty token still gets a visible chip
    title = f' title="{html.escape(chip.title, quote=True)}"' if chip.title else ""
    return f'<span class="{classes}" style="background:{color}"{title}>{body}</span>'


def tokens_html(
    chips: Iterable[TokenChip] | Sequence[TokenChip],
    *,
    show_whitespace: bool = True,
    css: bool = True,
) -> str:
    """A run of token chips as one HTML block (with the CSS unless `css=False`).

    >>> out = tokens_html([TokenChip("lo"), TokenChip("w</w>")], css=False)
    >>> out.count('class="bpe-tok"'), "#F4D48C" in out, "#B3DDF5" in out
    (2, True, True)
    >>> "<script>" in tokens_html([TokenChip("<script>")])
    False
    """
    body = "".join(
        chip_html(chip, i, show_whitespace=show_whitespace) for i, chip in enumerate(chips)
    )
    return (TOKEN_CSS if css else "") + f'<div class="bpe-tokens">{body}</div>'


def chip_for(body: str | bytes, eow: bool, marker: str, *, title: str = "", classes: tuple[str, ...] = ()) -> TokenChip:
    """A chip for a token given as (body, eow): bytes that are not valid UTF-8 on their
    own are shown as `<E4>` (and styled as partial), the end-of-word marker apart.

    >>> chip_for(b"\\xe4", False, "").text, chip_for("w", True, "</w>").marker
    ('<E4>', '</w>')
    """
    if isinstance(body, bytes):
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            text = "".join(f"<{b:02X}>" for b in body)
            classes = classes + ("partial",)
    else:
        text = body
    return TokenChip(text=text, title=title, classes=classes, marker=marker if eow else "")
