"""Small SVG drawing kit for the static charts: the Vocabulary size page's (ui.vocab.static)
and the Train page's corpus-length chart (ui.train.chart.chart_html).

A chart here is an SVG document drawn as an `<img>` (st.html keeps a `data:` image and
strips inline SVG), so a first visit loads no charting library: the browser decodes one
picture per chart. Everything is pure string building: scales, ticks, text wrapped by a
width estimate, and a `Canvas` that collects elements and knows its height.

What it leaves out: interaction (hover, click); the page offers the Vega-Lite charts for
that. Every text drawn goes through `html.escape` (token strings can be what a user typed).
"""
from __future__ import annotations

import base64
import html
import math
import re
import textwrap
from dataclasses import dataclass, field

__all__ = ["Scale", "Canvas", "nice_ticks", "wrap", "img_html", "data_url", "fmt_si", "fmt_k",
           "x_axis", "y_axis", "label_room"]

#: an average glyph width, in ems, of a sans-serif font (generous, so text fits)
EM_PER_CHAR = 0.56


def wrap(text: str, width_px: float, font_px: float) -> list[str]:
    """`text` in lines that fit `width_px` at `font_px`.

    >>> wrap("Tokens for the same paragraph", 200, 20)
    ['Tokens for the', 'same paragraph']
    """
    return textwrap.wrap(text, max(6, int(width_px / (EM_PER_CHAR * font_px))), break_on_hyphens=False) or [""]


def fmt_k(v: float) -> str:
    """Powers of two as 1K, 2K, ... (256 stays 256).

    >>> fmt_k(256), fmt_k(2048), fmt_k(199998)
    ('256', '2K', '195K')
    """
    return f"{int(v) // 1024:,}K" if v >= 1024 else f"{int(v):,}"


def fmt_si(v: float) -> str:
    """A large amount in three digits and a unit (B for billions, as the charts write it).

    >>> fmt_si(0), fmt_si(1_500_000), fmt_si(2.5e9)
    ('0', '1.5M', '2.5B')
    """
    for div, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= div:
            return f"{v / div:.3g}{unit}"
    return f"{v:.3g}"


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About `n` round values covering [lo, hi].

    >>> nice_ticks(0, 10)
    [0, 2, 4, 6, 8, 10]
    >>> nice_ticks(1.13, 1.52, 4)
    [1.1, 1.2, 1.3, 1.4, 1.5, 1.6]
    """
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / max(1, n)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw * 0.999)
    t = math.floor(lo / step + 1e-9) * step
    ticks = []
    while t < hi + step * 1e-9:
        ticks.append(int(round(t)) if step >= 1 else round(t, 10))
        t += step
    if ticks[-1] < hi - 1e-9:
        ticks.append(ticks[-1] + step)
    return ticks


@dataclass(frozen=True)
class Scale:
    """Maps a value in [lo, hi] to pixels [a, b]: `linear`, `log` or `symlog` (log of 1 + |v|)."""

    lo: float
    hi: float
    a: float
    b: float
    kind: str = "linear"

    def _t(self, v: float) -> float:
        if self.kind == "log":
            return math.log(max(v, 1e-12))
        if self.kind == "symlog":
            return math.copysign(math.log1p(abs(v)), v)
        return v

    def __call__(self, v: float) -> float:
        lo, hi = self._t(self.lo), self._t(self.hi)
        span = (hi - lo) or 1.0
        return self.a + (self._t(v) - lo) / span * (self.b - self.a)


#: keyword -> attribute name (font_size -> font-size), filled as names are met
_ATTR_NAMES: dict[str, str] = {}
#: what html.escape(..., quote=True) would change; most values (numbers, colours) have none
_TO_ESCAPE = re.compile(r"[&<>\"']")


def _attrs(**kw) -> str:
    """SVG attributes, each value escaped as html.escape(quote=True) would (skipped when
    there is nothing to escape: the pictures redrawn at each slider move are mostly numbers).

    >>> _attrs(x="1.0", font_size=15, text_anchor=None, fill='a"b')
    ' x="1.0" font-size="15" fill="a&quot;b"'
    """
    parts = []
    for k, v in kw.items():
        if v is None:
            continue
        name = _ATTR_NAMES.get(k)
        if name is None:
            name = _ATTR_NAMES[k] = k.rstrip("_").replace("_", "-")
        s = v if isinstance(v, str) else str(v)
        if _TO_ESCAPE.search(s):
            s = html.escape(s, quote=True)
        parts.append(f' {name}="{s}"')
    return "".join(parts)


def _value(v) -> str:
    """One attribute value as `_attrs` writes it (escaped only if it needs to be).

    >>> _value(15), _value('a"b')
    ('15', 'a&quot;b')
    """
    s = v if isinstance(v, str) else str(v)
    return html.escape(s, quote=True) if _TO_ESCAPE.search(s) else s


def _opt(name: str, v) -> str:
    """` name="v"` as `_attrs` writes it, or nothing for None (the drawing calls at a slider
    move write their attributes one by one through this, not through `_attrs`' keywords).

    >>> _opt("fill", "#fff"), _opt("stroke", None)
    (' fill="#fff"', '')
    """
    return "" if v is None else f' {name}="{_value(v)}"'


@dataclass
class Canvas:
    """An SVG document being drawn: `width` fixed, height grows with what is added."""

    width: int
    font: int = 15
    parts: list[str] = field(default_factory=list)
    height: float = 0.0

    def add(self, markup: str) -> None:
        self.parts.append(markup)

    def text(self, x: float, y: float, s: str, *, size: float | None = None, anchor: str = "start",
             weight: str | None = None, fill: str = "#222", rotate: float | None = None,
             baseline: str | None = None, halo: bool = False) -> None:
        """Text at (x, y); `halo` draws a white outline under it, so it reads over lines.
        Written out here rather than through `_attrs` (same markup, attributes in the same
        order): the pictures redrawn at a slider move are mostly text and bars.

        >>> c = Canvas(100); c.text(1, 2, "a<b", weight="bold", rotate=-90); c.parts[0]
        '<text x="1.0" y="2.0" font-size="15" text-anchor="start" font-weight="bold" fill="#222" transform="rotate(-90 1.0 2.0)">a&lt;b</text>'
        """
        transform = f"rotate({rotate} {x:.1f} {y:.1f})" if rotate is not None else None
        self.parts.append(
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="{_value(size or self.font)}"' + _opt("text-anchor", anchor)
            + _opt("font-weight", weight) + _opt("fill", fill) + _opt("transform", transform)
            + _opt("dominant-baseline", baseline) + (' stroke="#fff" stroke-width="4" paint-order="stroke"' if halo else "")
            + f">{html.escape(s)}</text>")

    def line(self, x1, y1, x2, y2, *, stroke="#222", width=1.0, dash: str | None = None) -> None:
        self.parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"' + _opt("stroke", stroke)
                          + _opt("stroke-width", width) + _opt("stroke-dasharray", dash) + "/>")

    def polyline(self, points, *, stroke, width=3.0, dash: str | None = None) -> None:
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        self.add(f"<polyline{_attrs(points=pts, fill='none', stroke=stroke, stroke_width=width, stroke_dasharray=dash, stroke_linejoin='round')}/>")

    def rect(self, x, y, w, h, *, fill, stroke: str | None = None) -> None:
        self.parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(0, w):.1f}" height="{max(0, h):.1f}"'
                          + _opt("fill", fill) + _opt("stroke", stroke) + "/>")

    def circle(self, x, y, r, *, fill) -> None:
        self.add(f"<circle{_attrs(cx=f'{x:.1f}', cy=f'{y:.1f}', r=r, fill=fill)}/>")

    def triangle_down(self, x, y, r, *, fill) -> None:
        self.add(f"<path{_attrs(d=f'M{x - r:.1f},{y - r:.1f}H{x + r:.1f}L{x:.1f},{y + r:.1f}Z', fill=fill)}/>")

    def diamond(self, x, y, r, *, fill) -> None:
        self.add(f"<path{_attrs(d=f'M{x:.1f},{y - r:.1f}L{x + r:.1f},{y:.1f}L{x:.1f},{y + r:.1f}L{x - r:.1f},{y:.1f}Z', fill=fill)}/>")

    def title(self, title: str, subtitle: str = "") -> None:
        """A bold title and a grey subtitle, wrapped to the width, at the current height."""
        for line in wrap(title, self.width - 8, self.font + 4):
            self.height += self.font + 8
            self.text(4, self.height, line, size=self.font + 4, weight="bold")
        for line in wrap(subtitle, self.width - 8, self.font - 1):
            self.height += self.font + 3
            self.text(4, self.height, line, size=self.font - 1, fill="#444")
        self.height += 8

    def legend(self, items: list[tuple[str, str, str | None]], *, width: float = 3.0) -> None:
        """One row per item: a line sample (colour, dash) and its label, wrapped."""
        for label, color, dash in items:
            lines = wrap(label, self.width - 50, self.font)
            y = self.height + self.font + 2
            self.line(6, y - self.font * 0.35, 36, y - self.font * 0.35, stroke=color, width=width, dash=dash)
            for i, line in enumerate(lines):
                self.text(44, y + i * (self.font + 3), line)
            self.height += (self.font + 3) * len(lines) + 3
        self.height += 6

    def svg(self) -> str:
        h = math.ceil(self.height)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.width} {h}" width="{self.width}" '
                f'height="{h}" font-family="sans-serif"><rect width="100%" height="100%" fill="#fff"/>'
                + "".join(self.parts) + "</svg>")


def x_axis(c: Canvas, x: Scale, ticks: list[tuple[float, str]], *, top: float, bottom: float, title: list[str] | str,
           grid: bool = True) -> None:
    """Tick labels under the plot (dropping any that would overlap the previous one) and the title."""
    last = -1e9
    for value, label in ticks:
        px = x(value)
        half = len(label) * EM_PER_CHAR * c.font / 2
        anchor = "middle"
        if px + half > c.width - 2:
            anchor, left = "end", px - 2 * half
        elif px - half < 2:  # the first label starts at its tick rather than past the picture's edge
            anchor, left = "start", px
        else:
            left = px - half
        if left < last + 6:
            continue
        if grid:
            c.line(px, top, px, bottom, stroke="#ddd")
        c.line(px, bottom, px, bottom + 5, stroke="#888")
        c.text(px, bottom + c.font + 6, label, anchor=anchor)
        last = left + 2 * half
    c.line(x.a, bottom, x.b, bottom, stroke="#888")
    y = bottom + c.font + 8
    for line in [title] if isinstance(title, str) else title:
        y += c.font + 4
        c.text((x.a + x.b) / 2, y, line, anchor="middle", size=c.font + 1, weight="bold")
    c.height = max(c.height, y + 8)


def y_axis(c: Canvas, y: Scale, ticks: list[tuple[float, str]], *, left: float, right: float, title: str) -> None:
    """Tick labels left of the plot, a light grid line at each, the title written upwards."""
    for value, label in ticks:
        py = y(value)
        c.line(left, py, right, py, stroke="#e4e4e4")
        c.text(left - 6, py + c.font * 0.35, label, anchor="end")
    top, bottom = min(y.a, y.b), max(y.a, y.b)
    c.text(16, (top + bottom) / 2, title, anchor="middle", size=c.font + 1, weight="bold",
           rotate=-90, baseline="middle")


def label_room(labels: list[str], font: int) -> float:
    """Pixels that the y labels plus the axis title need left of a plot."""
    return 34 + max((len(s) for s in labels), default=1) * EM_PER_CHAR * font


def data_url(svg: str) -> str:
    """An SVG document as a `data:` URL (base64), for an `<img src>`."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode("ascii")


def img_html(svg: str, *, alt: str, title: str, css_class: str, lazy: bool = False) -> str:
    """The SVG as a `data:` image with its alt text and tooltip (both escaped), drawn at
    most its own width and never wider than its column. `lazy`: the browser decodes it
    only once it is shown and near the screen (a copy hidden by CSS is never decoded)."""
    return (f'<img class="{css_class}" src="{data_url(svg)}" alt="{html.escape(alt, quote=True)}" '
            f'title="{html.escape(title, quote=True)}"' + (' loading="lazy">' if lazy else ">"))
