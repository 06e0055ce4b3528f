"""The Vocabulary size page's text blocks as static HTML (pure functions, no Streamlit).

A first load draws every element of a page (React, styling, a measurement of its width)
and fetches a script for each *kind* of widget the first time one appears. So the page
writes its figures, headings, prose and captions as a few `st.html` blocks built here,
instead of `st.metric` rows (the Metric script and its number formatting, one element
and one column per figure) and runs of `st.markdown` / `st.caption` (each a markdown
parse in the browser).

Every value that reaches these functions is escaped here (`html.escape`); text marked
up by the page itself (headings, paragraphs with <strong>, <em>, <code>) is built by the
callers from constants and escaped values, and passed in as HTML.

What it leaves out: hover tooltips. A figure's help is a small visible line under it
(readable on a projector and a phone, where hovering is not possible).
"""
from __future__ import annotations

import html
from dataclasses import dataclass

__all__ = ["Stat", "BLOCKS_CSS", "stats_html", "heading_html", "caption_html", "signed"]

#: Styles for the blocks; the page draws them once with its other CSS.
BLOCKS_CSS = """<style>
.vc-figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(9.5rem, 1fr)); gap: 0.5rem 1rem;
  margin: 0.2rem 0 0.8rem; container-type: inline-size; }
.vc-figure { min-width: 0; }
.vc-figure-label { font-size: 0.95rem; line-height: 1.3; }
.vc-figure-value { font-size: clamp(1.2rem, 5.5cqi, 1.9rem); line-height: 1.3; font-weight: 500;
  font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.vc-delta { display: inline-block; font-size: 0.9rem; padding: 0.05rem 0.45rem; border-radius: 0.8rem;
  margin: 0.1rem 0; background: rgba(128,128,128,0.15); overflow-wrap: anywhere; }
.vc-delta.vc-good { background: rgba(0,158,115,0.22); }
.vc-delta.vc-bad { background: rgba(213,94,0,0.22); }
.vc-figure-help { font-size: 0.85rem; line-height: 1.3; opacity: 0.85; overflow-wrap: anywhere; }
.vc-caption { font-size: 0.9rem; opacity: 0.85; margin: 0.2rem 0 0.5rem; }
.vc-note { font-size: 0.95rem; margin: 0.2rem 0 0.5rem; padding: 0.3rem 0.6rem; border-left: 4px solid #E69F00;
  background: rgba(230,159,0,0.12); }
h2.vc-h { font-size: 2.25rem; font-weight: 600; line-height: 1.2; padding: 1rem 0; margin: 0; }
h3.vc-h { font-size: 1.75rem; font-weight: 600; line-height: 1.2; padding: 0.5rem 0 0.75rem; margin: 0; }
h4.vc-h { font-size: 1.3rem; font-weight: 600; line-height: 1.3; padding: 0.5rem 0; margin: 0; }
.vc-prose p { margin: 0 0 0.8rem; }
.vc-pair { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 24rem), 1fr)); gap: 0.5rem 2rem;
  align-items: start; }
.vc-pair > * { min-width: 0; }
.vc-sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
</style>"""


@dataclass(frozen=True)
class Stat:
    """One figure of a row: what `st.metric` showed, as plain strings.

    `delta` is the change with its sign ("-1,234 vs no merges"); `better` says whether
    the change is good (True), bad (False) or neither (None): it picks the tint, and
    the arrow and the sign say which way it went, so colour is never the only cue."""

    label: str
    value: str
    delta: str = ""
    up: bool | None = None   # the change's direction: an arrow ▲ (True) or ▼ (False)
    better: bool | None = None
    help: str = ""


def signed(number: float, fmt: str = ",") -> str:
    """A number with its sign always written (a true minus sign, U+2212).

    >>> signed(1234), signed(-1234), signed(0), signed(-0.356, ".2f")
    ('+1,234', '−1,234', '0', '−0.36')
    """
    text = format(abs(number), fmt)
    if float(text.replace(",", "")) == 0:
        return text
    return ("+" if number > 0 else "−") + text


def _stat(f: Stat) -> str:
    parts = [f'<div class="vc-figure-label">{html.escape(f.label)}</div>',
             f'<div class="vc-figure-value">{html.escape(f.value)}</div>']
    if f.delta:
        tone = {True: " vc-good", False: " vc-bad", None: ""}[f.better]
        arrow = {True: "▲ ", False: "▼ ", None: ""}[f.up]
        word = {True: " (better)", False: " (worse)", None: ""}[f.better]
        parts.append(f'<div class="vc-delta{tone}"><span aria-hidden="true">{arrow}</span>{html.escape(f.delta)}'
                     f'<span class="vc-sr">{word}</span></div>')
    if f.help:
        parts.append(f'<div class="vc-figure-help">{html.escape(f.help)}</div>')
    return f'<div class="vc-figure">{"".join(parts)}</div>'


def stats_html(stats: list[Stat], *, label: str) -> str:
    """A row of figures (each label, value, delta, help) as one block that wraps: four
    across on a wide page, two on a phone. `label` names the group for screen readers.

    >>> stats_html([Stat("V", "1,000", "+10 vs x", up=True, better=False, help="a<b")], label="Cost")
    '<div class="vc-figures" role="group" aria-label="Cost"><div class="vc-figure"><div class="vc-figure-label">V</div><div class="vc-figure-value">1,000</div><div class="vc-delta vc-bad"><span aria-hidden="true">▲ </span>+10 vs x<span class="vc-sr"> (worse)</span></div><div class="vc-figure-help">a&lt;b</div></div></div>'
    """
    cells = "".join(_stat(f) for f in stats)
    return f'<div class="vc-figures" role="group" aria-label="{html.escape(label)}">{cells}</div>'


def heading_html(level: int, text: str, anchor: str = "") -> str:
    """A real heading (<h2>, <h3>, <h4>): screen readers and the browser tests find it by
    its role. `anchor` gives it an id, as Streamlit's own headings have.

    >>> heading_html(2, "2. What <it> costs", "costs")
    '<h2 class="vc-h" id="costs">2. What &lt;it&gt; costs</h2>'
    """
    if level not in (2, 3, 4):
        raise ValueError(f"heading level {level!r}: use 2, 3 or 4 (the page's title is the only <h1>)")
    ident = f' id="{html.escape(anchor)}"' if anchor else ""
    return f'<h{level} class="vc-h"{ident}>{html.escape(text)}</h{level}>'


def caption_html(inner_html: str, *, note: bool = False) -> str:
    """A caption (small text) or, with `note`, a note that stands out (a bar at its left,
    a tint). `inner_html` is HTML the caller built from escaped values.

    >>> caption_html("V = 1 &middot; d = 2")
    '<p class="vc-caption">V = 1 &middot; d = 2</p>'
    """
    return f'<p class="{"vc-note" if note else "vc-caption"}">{inner_html}</p>'
