"""The Vocabulary size page's seven charts as static SVG images (pure functions).

Each chart is drawn from its spec (ui.vocab.chart_spec: data, titles, axes, series with
their colours and dashes or shapes, the chosen-size marker), the one the Vega-Lite chart of
ui.vocab.charts is drawn from, as a picture: a first visit then loads no charting
library (the Vega bundle is most of the page's JavaScript and its slowest work). What a
tooltip gave is written on the chart or beside it: the figures at the chosen size under
the curves, each bar's count at its end, each cell's ratio in it, every real model's
size by its name. Hover and click live in the interactive charts (ui.vocab.charts), which
the page draws on request.

Each function returns HTML: a `<figure>` holding the chart twice, wide (desktop, a
projector) and narrow (a phone, so labels stay readable), one shown by a container query
(both load lazily, so the hidden one is never decoded);
each `<img>` has alt text saying what the chart shows. `STATIC_CSS` goes on the page once.
"""
from __future__ import annotations

import html
from dataclasses import dataclass

import pandas as pd

from ui.shared.a11y import scroll_box_attrs
from ui.vocab import chart_spec
from ui.vocab.chart_spec import Chart, Marker, Panel, Series, first_used_up_label
from ui.vocab.charts import MAX_POINTS, _thin
from ui.shared.svg import (
    Canvas,
    Scale,
    fmt_k,
    img_html,
    label_room,
    nice_ticks,
    wrap,
    x_axis,
    y_axis,
)

__all__ = [
    "STATIC_CSS",
    "CurvesBase",
    "curves_bases",
    "curves_figure",
    "cost_share_figure",
    "real_vocab_figure",
    "truncation_figure",
    "truncation_cost_figure",
    "language_tokens_figure",
    "language_ratio_figure",
    "table_html",
]

WIDE, NARROW = 820, 360
#: the width (px) of the chart's column under which the narrow drawing is shown
BREAK = 640
STATIC_CSS = f"""<style>
.vc-chart {{ margin: 0.3rem 0 0.8rem 0; width: 100%; max-width: 100%; container-type: inline-size; }}
.vc-chart img {{ display: block; width: 100%; height: auto; }}
.vc-chart img.vc-wide {{ max-width: {WIDE}px; }}
.vc-chart img.vc-narrow {{ display: none; max-width: {NARROW + 140}px; }}
@container (max-width: {BREAK}px) {{ .vc-chart img.vc-wide {{ display: none; }} .vc-chart img.vc-narrow {{ display: block; }} }}
.vc-chart figcaption {{ font-size: 0.9rem; opacity: 0.85; margin-top: 0.2rem; }}
.vc-table td.num {{ white-space: normal; }}
</style>"""


def _figure(name: str, draw, alt: str, title: str, caption: str = "") -> str:
    """`draw(width, font)` -> SVG, drawn wide and narrow, in one figure."""
    # Lazy: the copy the container query hides is never decoded, and the pictures below the
    # screen wait until they are scrolled to (a first load decoded all fourteen: ~0.25 s).
    wide = img_html(draw(WIDE, 15), alt=alt, title=title, css_class="vc-wide", lazy=True)
    narrow = img_html(draw(NARROW, 13), alt=alt, title=title, css_class="vc-narrow", lazy=True)
    cap = f"<figcaption>{caption}</figcaption>" if caption else ""
    return f'<figure class="vc-chart" data-chart="{name}">{wide}{narrow}{cap}</figure>'


# ---- 1. the curves ------------------------------------------------------------------------
def _thinned(curve: pd.DataFrame, keep: set[int], n: int) -> pd.DataFrame:
    """About `n` evenly spaced rows of the curve (and the rows of `keep`'s steps): a
    point every two pixels is as smooth as every point, in a much smaller picture."""
    n = min(n, MAX_POINTS)
    if len(curve) <= n:
        return curve
    idx = _thin(len(curve), n)
    return curve[curve["step"].isin(set(curve["step"].iloc[idx]) | keep)]


def _chosen_rule(c: Canvas, x: Scale, marker: Marker, top: float, bottom: float, label: bool) -> None:
    px = x(marker.value)
    c.line(px, top, px, bottom, stroke=marker.color, width=marker.width, dash=" ".join(map(str, marker.dash)))
    if label:
        right = px > (x.a + x.b) / 2
        c.text(px + (-6 if right else 6), top + c.font, marker.label(), anchor="end" if right else "start",
               weight="bold")


def _panel(c: Canvas, p: Panel, *, x: Scale, y_lo, y_hi, yticks, height=230, legend=True):
    """Title, legend and the frame of one curve panel (`p`, from the chart's spec);
    returns the y scale and the plot box."""
    c.title(p.title, p.subtitle_for("static"))
    if legend and p.legend():
        c.legend([(s.label, s.color, s.svg_dash) for s in p.legend()])
    top = c.height + 4
    bottom = top + (height if c.width > 500 else 170)
    y = Scale(y_lo, y_hi, bottom, top, p.y.scale)
    y_axis(c, y, [(t, p.y.label(t)) for t in yticks], left=x.a, right=x.b, title=p.y.title)
    return y, top, bottom


@dataclass(frozen=True)
class CurvesBase:
    """The three curve panels drawn without the chosen size: the slider moves only the
    dashed rules, so the panels are drawn once per run and width (`curves_bases`) and
    each move adds its rules on top (`svg`)."""

    canvas: Canvas
    x: Scale
    boxes: tuple[tuple[float, float], ...]  # each panel's plot box, top and bottom

    def svg(self, marker: Marker) -> str:
        """The picture with the chosen size marked in every panel (labelled in one)."""
        c = Canvas(self.canvas.width, self.canvas.font, list(self.canvas.parts), self.canvas.height)
        for i, (top, bottom) in enumerate(self.boxes):
            _chosen_rule(c, self.x, marker, top, bottom, label=i == marker.labelled)
        return c.svg()


def _line(c: Canvas, x: Scale, y: Scale, xs, ys, s: Series) -> None:
    c.polyline(zip(map(x, xs), map(y, ys)), stroke=s.color, width=s.width, dash=s.svg_dash)


def _curves_base(spec: Chart, width: int, font: int) -> CurvesBase:
    curve, held, retired = spec.data["curve"], spec.data["held"], spec.data["retired"]
    length, per_token, use = spec.panels
    keep = set(retired["step"]) if retired is not None and len(retired) else set()
    boxes = []
    pts = _thinned(curve, keep, width // 2)
    c = Canvas(width, font)
    lo, hi = int(curve["vocab_size"].min()), int(curve["vocab_size"].max())
    hi = hi if hi > lo else lo + 1
    xaxis = length.x
    xticks = [(t, xaxis.label(t)) for t in nice_ticks(lo, hi, 8 if width > 500 else 3) if lo <= t <= hi]
    # 1. corpus length
    lengths = pts[length.y.field]
    yt = [t for t in nice_ticks(float(lengths.min()), float(lengths.max()), 4)]
    left = label_room([length.y.label(t) for t in yt], font)
    x = Scale(lo, hi, left, width - 14)
    y, top, bottom = _panel(c, length, x=x, y_lo=yt[0], y_hi=yt[-1], yticks=yt)
    for s in length.series:
        _line(c, x, y, pts["vocab_size"], pts[s.key], s)
    boxes.append((top, bottom))
    x_axis(c, x, xticks, top=top, bottom=bottom, title=xaxis.title)
    c.height += 22
    # 2. units per token, training and held out
    training, *held_series = per_token.series
    values = list(pts["units_per_token"]) + (list(held["units_per_token"]) if held is not None else [])
    yt = nice_ticks(min(values), max(values), 4)
    y, top, bottom = _panel(c, per_token, x=x, y_lo=yt[0], y_hi=yt[-1], yticks=yt)
    _line(c, x, y, pts["vocab_size"], pts["units_per_token"], training)
    if held_series:
        by_text = {s.key: s for s in held_series}
        for text, part in held.groupby("text", sort=False):
            s = by_text[text]
            _line(c, x, y, part["vocab_size"], part["units_per_token"], s)
            for v, u in zip(part["vocab_size"], part["units_per_token"]):
                c.circle(x(v), y(u), 4.5, fill=s.color)
    boxes.append((top, bottom))
    x_axis(c, x, xticks, top=top, bottom=bottom, title=xaxis.title)
    c.height += 22
    # 3. vocabulary against tokens in use (symlog)
    lines = [s for s in use.series if s.mark == "line"]
    used_up, first_rule = (s for s in use.series if s.mark != "line")
    most = max(1, int(pts[[s.key for s in lines]].to_numpy().max()))
    ticks = [0] + [m * 10**e for e in range(7) for m in (1, 2, 5) if m * 10**e <= most * 1.2]
    if width <= 500:
        ticks = [t for t in ticks if t == 0 or str(t)[0] == "1"]
    y, top, bottom = _panel(c, use, x=x, y_lo=0, y_hi=max(ticks[-1], most), yticks=ticks)
    for s in lines:
        _line(c, x, y, pts["vocab_size"], pts[s.key], s)
    if retired is not None and len(retired):
        base_at = curve.set_index("step")["base_in_use"]
        for size, step in zip(retired["vocab_size"], retired["step"]):  # (itertuples builds a class per call)
            c.triangle_down(x(size), y(int(base_at.get(step, 0))), 6, fill=used_up.color)
        first = retired.iloc[0]
        px = x(first["vocab_size"])
        c.line(px, top, px, bottom, stroke=first_rule.color, width=first_rule.width)
        late = px > (x.a + x.b) / 2
        c.text(px + (-6 if late else 6), top + font + 2, first_used_up_label(first["symbol"], first["vocab_size"]),
               anchor="end" if late else "start", fill=first_rule.color, weight="bold", size=font - 1, halo=True)
    boxes.append((top, bottom))
    x_axis(c, x, xticks, top=top, bottom=bottom, title=xaxis.title)
    return CurvesBase(c, x, tuple(boxes))


def curves_bases(curve: pd.DataFrame, held: pd.DataFrame | None, retired: pd.DataFrame | None, *, unit: str,
                 training_label: str) -> dict[int, CurvesBase]:
    """The curve panels without the chosen size, wide and narrow (by width)."""
    spec = chart_spec.curves(curve, held, retired, unit=unit, training_label=training_label)
    return {width: _curves_base(spec, width, font) for width, font in ((WIDE, 15), (NARROW, 13))}


def _at_chosen(curve: pd.DataFrame, k: int, unit: str) -> str:
    """What the curves' tooltip said at the chosen size, as one sentence (HTML, escaped)."""
    row = curve.iloc[k]
    parts = [f"{int(row.step):,} merges", f"training corpus {int(row.corpus_length):,} tokens",
             f"{row.units_per_token:.3f} {unit} per token", f"{int(row.tokens_in_use):,} tokens in use",
             f"{int(row.base_in_use):,} base symbols in use"]
    if k > 0 and isinstance(row.token, str):
        parts.append(f"the merge at this step made {row.token!r} from a pair counted {int(row['count']):,} "
                     f"time{'s' if int(row['count']) != 1 else ''}, places merged = tokens saved: "
                     f"{int(row.merged_occurrences):,}")
    return html.escape(f"At vocabulary size {int(row.vocab_size):,}: " + "; ".join(parts) + ".")


def curves_alt(curve: pd.DataFrame, held: pd.DataFrame | None, unit: str) -> str:
    """The curves' alt text, all but the chosen size (the same at every slider move)."""
    first, last = curve.iloc[0], curve.iloc[-1]
    alt = (f"Three charts against vocabulary size, from {int(first.vocab_size):,} to {int(last.vocab_size):,}. "
           f"Training corpus length falls from {int(first.corpus_length):,} to {int(last.corpus_length):,} tokens, "
           f"flattening as merges save less each. {unit.capitalize()} per token on the training text rises from "
           f"{first.units_per_token:.2f} to {last.units_per_token:.2f}")
    if held is not None and len(held):
        ends = [f"{t}: {p['units_per_token'].iloc[-1]:.2f}" for t, p in held.groupby("text", sort=False)]
        alt += "; on held-out text at the largest size " + ", ".join(ends)
    return alt + (f". Tokens in use grow to {int(last.tokens_in_use):,}; base symbols still in use fall from "
                  f"{int(first.base_in_use):,} to {int(last.base_in_use):,}.")


def curves_figure(curve: pd.DataFrame, held: pd.DataFrame | None, retired: pd.DataFrame | None, *, chosen: int,
                  k: int, unit: str, training_label: str, bases: dict[int, CurvesBase] | None = None,
                  alt: str | None = None) -> str:
    """The three curve panels (corpus length, `unit` per token, tokens in use) with the
    chosen size dashed in each, and the chosen size's figures written underneath.
    `bases` and `alt`: the panels already drawn by `curves_bases` and the alt text made by
    `curves_alt` for these arguments (the page keeps them per run, so a slider move only
    adds the rules and the sentence about the chosen size)."""
    spec = chart_spec.curves(curve, held, retired, unit=unit, training_label=training_label, chosen=chosen)
    if bases is None:
        bases = {width: _curves_base(spec, width, font) for width, font in ((WIDE, 15), (NARROW, 13))}
    if alt is None:
        alt = curves_alt(curve, held, unit)
    marker = spec.marker

    def draw(width, font):
        return bases[width].svg(marker)
    alt += f" Dashed rule: the chosen size, {chosen:,}."
    return _figure(spec.name, draw, alt, f"Vocabulary size {chosen:,} marked", _at_chosen(curve, k, unit))


# ---- 2. the cost calculator's charts ------------------------------------------------------
def _records(table: pd.DataFrame | list[dict]) -> list[dict]:
    """A table's rows as dicts: the page passes plain rows at a slider move, tests may pass
    a frame."""
    return table if isinstance(table, list) else table.to_dict("records")


def _groups(frame: pd.DataFrame | list[dict], by: str, columns=None) -> dict[object, list[dict]]:
    """The rows of `frame` (its `columns`, all by default) as plain dicts, grouped by the
    value of column `by` in first-seen order: the charts redrawn at every slider move read
    rows this way, since pandas filters and groupbys cost more than the drawing. `frame`
    may already be a list of dicts (what the page passes at a slider move).

    >>> _groups(pd.DataFrame({"m": ["a", "b", "a"], "v": [1, 2, 3]}), "m")
    {'a': [{'m': 'a', 'v': 1}, {'m': 'a', 'v': 3}], 'b': [{'m': 'b', 'v': 2}]}
    >>> _groups([{"m": "a", "v": 1}, {"m": "b", "v": 2}], "m", ("m",))
    {'a': [{'m': 'a'}], 'b': [{'m': 'b'}]}
    """
    rows = _records(frame)
    if columns is not None:
        rows = [{c: r[c] for c in columns} for r in rows]
    groups: dict[object, list[dict]] = {}
    for row in rows:
        groups.setdefault(row[by], []).append(row)
    return groups


def _share_svg(spec: Chart, width: int, font: int) -> str:
    p = spec.panels[0]
    vocab_part, rest_part = p.series
    c = Canvas(width, font)
    c.title(p.title, p.subtitle_for("static"))
    c.legend([(s.label, s.color, None) for s in p.legend()], width=10)
    groups = _groups(spec.data["parts"], "measure")
    measures = list(groups)
    label_w = max(len(m) for m in measures) * 0.56 * (font + 1) + 12
    if width <= 500:
        label_w = 0
    x = Scale(0, 1, 8 + label_w, width - 16)
    for m in measures:
        rows = groups[m]
        total = float(sum(r["value"] for r in rows)) or 1.0
        vocab = float(sum(r["value"] for r in rows if r["part"] == vocab_part.key))
        if label_w == 0:
            c.height += font + 6
            c.text(8, c.height, m, size=font + 1, weight="bold")
        top = c.height + 6
        c.rect(x(0), top, x(1) - x(0), 40, fill=rest_part.color)
        c.rect(x(0), top, x(vocab / total) - x(0), 40, fill=vocab_part.color)
        if label_w:
            c.text(8, top + 26, m, size=font + 1, weight="bold")
        c.text(x(vocab / total) + 8, top + 27, f"{vocab / total:.1%}", size=font + 2, weight="bold")
        rest = ", ".join(f"{r['label']}: {int(r['value']):,}" for r in rows)
        c.height = top + 40
        for line in wrap(rest, width - 16, font - 2):
            c.height += font + 1
            c.text(x(0), c.height, line, size=font - 2, fill="#444")
        c.height += 8
    x_axis(c, x, [(t / 4, p.x.label(t / 4)) for t in range(5)], top=c.height, bottom=c.height, title=p.x.title,
           grid=False)
    return c.svg()


def cost_share_figure(parts: pd.DataFrame | list[dict]) -> str:
    """The vocabulary's share of the parameters and of the FLOPs: one 100% bar each."""
    spec = chart_spec.cost_share(_records(parts))
    vocab_key = spec.panels[0].series[0].key
    shares = []
    for m, rows in _groups(parts, "measure").items():
        total = float(sum(r["value"] for r in rows)) or 1.0
        shares.append(f"{m}: {float(sum(r['value'] for r in rows if r['part'] == vocab_key)) / total:.1%}")
    alt = "Bar chart of the vocabulary's share of the model. " + "; ".join(shares) + "."
    return _figure(spec.name, lambda w, f: _share_svg(spec, w, f), alt, "; ".join(shares))


@dataclass(frozen=True)
class _Model:
    name: str
    size: int
    kind: str


def _by_size(reals: pd.DataFrame | list[dict]) -> list[_Model]:
    """The rows by size (a stable sort: ties keep their order), as plain records: the
    slider moves the chosen size, so this chart is redrawn at every move. `reals` may be
    a list of dicts (name, size, kind)."""
    rows = [_Model(r["name"], int(r["size"]), r["kind"]) for r in _records(reals)]
    return sorted(rows, key=lambda r: r.size)


_MARKS = {"circle": Canvas.circle, "diamond": Canvas.diamond, "triangle-down": Canvas.triangle_down}


def _real_svg(spec: Chart, width: int, font: int) -> str:
    p = spec.panels[0]
    kinds = {s.key: s for s in p.series}
    data = _by_size(spec.data["reals"])
    c = Canvas(width, font)
    c.title(p.title, p.subtitle_for("static"))
    c.legend([(s.label, s.color, None) for s in p.legend()], width=10)
    lo, hi = p.x.domain
    x = Scale(lo, hi, 16, width - 16, p.x.scale)
    # Each label on the first row (counted up from the axis) where it overlaps no other.
    placed, ends = [], []
    for r in data:
        px = x(r.size)
        w = max(len(r.name), len(f"{r.size:,}")) * 0.56 * (font - 1)
        end = px + 4 + w > width - 4
        left = px - 4 - w if end else px + 4
        lane = next((j for j, e in enumerate(ends) if e < left - 8), len(ends))
        if lane == len(ends):
            ends.append(0.0)
        ends[lane] = left + w
        placed.append((r, px, end, lane))
    lane_h = 2 * font + 8
    axis_y = c.height + 10 + len(ends) * lane_h
    for r, px, end, lane in placed:
        color = kinds[r.kind].color
        ly = axis_y - 14 - lane * lane_h
        c.line(px, axis_y, px, ly - 2 * font, stroke="#aaa")
        tx, anchor = (px - 4, "end") if end else (px + 4, "start")
        c.text(tx, ly - font - 1, r.name, anchor=anchor, fill=color, size=font - 1)
        c.text(tx, ly, f"{r.size:,}", anchor=anchor, fill=color, size=font - 1, weight="bold")
    for r, px, _, _ in placed:
        s = kinds[r.kind]
        _MARKS[s.shape](c, px, axis_y, 7, fill=s.color)
    values = list(p.x.values)
    if width <= 500:
        values = [v for v in values if str(v)[0] == "1"]
    x_axis(c, x, [(v, p.x.label(v)) for v in values], top=axis_y, bottom=axis_y + 10, title=p.x.title, grid=False)
    return c.svg()


def real_vocab_figure(reals: pd.DataFrame | list[dict]) -> str:
    """Real models' vocabulary sizes on one logarithmic axis, each labelled with its size."""
    spec = chart_spec.real_vocab(_records(reals))
    yours = spec.panels[0].series[1]
    alt = ("Vocabulary sizes on a logarithmic axis: " + "; ".join(
        f"{r.name} {r.size:,}" + (f" ({yours.label})" if r.kind == yours.key else "") for r in _by_size(reals)) + ".")
    return _figure(spec.name, lambda w, f: _real_svg(spec, w, f), alt, spec.panels[0].title)


# ---- o200k cut to k ranks -----------------------------------------------------------------
def _size_frame(c: Canvas, p: Panel, marks: pd.DataFrame, height: int):
    """A log-2 size axis, the y axis, and the real models' dotted rules with their names
    on rows of their own at the top, the largest size on the top row: each rule starts at
    its own name's row, so a name, which reaches left over smaller sizes, crosses no rule.
    Returns (x, y, top, bottom, the x ticks)."""
    y_lo, y_hi = p.y.domain
    yticks = [(t, p.y.label(t)) for t in nice_ticks(y_lo, y_hi, 5) if t <= y_hi]
    left = label_room([s for _, s in yticks], c.font)
    x = Scale(*p.x.domain, left, c.width - 12, "log")
    top = c.height + 4
    bottom = top + height
    y = Scale(y_lo, y_hi, bottom, top)
    y_axis(c, y, yticks, left=x.a, right=x.b, title=p.y.title)
    rule = next(s for s in p.series if s.key == "marks")
    for i, m in enumerate(marks.sort_values("size", ascending=False).itertuples()):
        px = x(m.size)
        row = top + 4 + 18 * i
        c.line(px, row, px, bottom, stroke=rule.color, width=rule.width, dash=rule.svg_dash)
        c.text(px - 4, row + c.font - 2, f"{m.label} ({m.size:,})", anchor="end", size=c.font - 2, fill="#333",
               halo=True)
    return x, y, top, bottom, [(s, p.x.label(s)) for s in p.x.values]


def _points(c: Canvas, pts, s: Series, r: float) -> None:
    c.polyline(pts, stroke=s.color, width=s.width, dash=s.svg_dash)
    for px, py in pts:
        c.circle(px, py, r, fill=s.color)


def _trunc_svg(spec: Chart, width: int, font: int) -> str:
    p = spec.panels[0]
    table, marks = spec.data["table"], spec.data["marks"]
    c = Canvas(width, font)
    c.title(p.title, p.subtitle_for("static"))
    lines = [s for s in p.series if s.mark == "line"]
    *langs, total = lines
    _legend_columns(c, [(s.label, s.color) for s in lines], 2 if width <= 500 else 4)
    x, y, top, bottom, ticks = _size_frame(c, p, marks, 380 if width > 500 else 300)
    for s in langs:
        part = table[table["language"] == s.key].sort_values("size")
        _points(c, list(zip(map(x, part["size"]), map(y, part["chars_per_token"]))), s, 3)
    part = table[table["code"] == total.key].sort_values("size")
    pts = list(zip(map(x, part["size"]), map(y, part["chars_per_token"])))
    _points(c, pts, total, 5)
    c.text(pts[-1][0] - 10, pts[-1][1] + 20, total.label, anchor="end", weight="bold", halo=True)
    x_axis(c, x, ticks, top=top, bottom=bottom, title=p.x.title)
    return c.svg()


def _legend_columns(c: Canvas, items: list[tuple[str, str]], columns: int) -> None:
    col_w = (c.width - 8) / columns
    for i, (label, color) in enumerate(items):
        row, col = divmod(i, columns)
        y = c.height + (row + 1) * (c.font + 6)
        x0 = 6 + col * col_w
        c.line(x0, y - c.font * 0.35, x0 + 24, y - c.font * 0.35, stroke=color, width=3)
        c.text(x0 + 30, y, label)
    c.height += (-(-len(items) // columns)) * (c.font + 6) + 8


def truncation_figure(table: pd.DataFrame, marks: pd.DataFrame) -> str:
    """Characters per token of each language and of all ten, against o200k's ranks kept."""
    spec = chart_spec.truncation(table, marks)
    total = table[table["code"] == "all"].sort_values("size")
    alt = ("Line chart: characters per token against o200k's first k ranks, 256 to all, for ten languages and all "
           "ten together (" + ", ".join(f"{fmt_k(s)}: {v:.2f}" for s, v in zip(total["size"], total["chars_per_token"]))
           + "). Dotted rules mark real models' sizes: " + ", ".join(f"{m.label} {m.size:,}" for m in marks.itertuples())
           + ".")
    return _figure(spec.name, lambda w, f: _trunc_svg(spec, w, f), alt, spec.panels[0].title)


def _trunc_cost_svg(spec: Chart, width: int, font: int) -> str:
    p = spec.panels[0]
    c = Canvas(width, font)
    c.title(p.title, p.subtitle_for("static"))
    c.legend([(s.label, s.color, s.svg_dash) for s in p.legend()])
    x, y, top, bottom, ticks = _size_frame(c, p, spec.data["marks"], 380 if width > 500 else 300)
    data = spec.data["cost"].sort_values("size")
    for s in p.legend():
        _points(c, list(zip(map(x, data["size"]), map(y, data[s.key]))), s, 4.5)
    x_axis(c, x, ticks, top=top, bottom=bottom, title=p.x.title)
    return c.svg()


def truncation_cost_figure(cost: pd.DataFrame, marks: pd.DataFrame, *, model: str) -> str:
    """Embedding parameters and output-layer FLOPs per token at the same sizes."""
    spec = chart_spec.truncation_cost(cost, marks, model=model)
    data = cost.sort_values("size")
    alt = (f"Line chart of what each size costs, {model}: embedding parameters from "
           f"{int(data['embedding_params'].iloc[0]):,} at {int(data['size'].iloc[0]):,} ranks to "
           f"{int(data['embedding_params'].iloc[-1]):,} at {int(data['size'].iloc[-1]):,}; output-layer FLOPs per token "
           f"from {int(data['output_flops'].iloc[0]):,} to {int(data['output_flops'].iloc[-1]):,}. Both double with "
           "every doubling of the vocabulary.")
    return _figure(spec.name, lambda w, f: _trunc_cost_svg(spec, w, f), alt, spec.panels[0].title)


# ---- 3. ten languages ---------------------------------------------------------------------
def _cells(rows: list[dict], column: str) -> dict[tuple[str, str], float]:
    """`column` by (language, tokenizer), read in one pass: the slider redraws these
    charts at every move, and a pandas filter per language cost more than the drawing.

    >>> _cells([{"language": "English", "tokenizer": "GPT-2", "tokens": 12}], "tokens")
    {('English', 'GPT-2'): 12}
    """
    return {(r["language"], r["tokenizer"]): r[column] for r in rows}


def _by_tokenizer(rows: list[dict], describe) -> str:
    """Alt text: per tokenizer (first-seen order), `describe(row)` of each of its rows."""
    groups = _groups(rows, "tokenizer", ("tokenizer", "language", "tokens", "ratio"))
    return " ".join(f"{t}: " + ", ".join(map(describe, rows)) + "." for t, rows in groups.items())


def _tokens_svg(spec: Chart, width: int, font: int) -> str:
    p = spec.panels[0]
    table = spec.data["rows"]
    languages = p.y.values
    c = Canvas(width, font)
    c.title(p.title, p.subtitle_for("static"))
    c.legend([(s.label, s.color, None) for s in p.legend()], width=10)
    most = float(max(r["tokens"] for r in table))
    narrow = width <= 500
    left = 8 if narrow else 8 + max(len(lang) for lang in languages) * 0.56 * font + 10
    x = Scale(0, most * 1.15, left, width - 12)
    bar = 13
    tokens = _cells(table, p.x.field)
    for lang in languages:
        if narrow:
            c.height += font + 4
            c.text(8, c.height, lang, weight="bold")
        top = c.height + 4
        if not narrow:
            c.text(left - 10, top + bar * len(p.series) / 2 + font * 0.35, lang, anchor="end", weight="bold")
        for i, s in enumerate(p.series):
            if (lang, s.key) not in tokens:
                continue
            n = int(tokens[lang, s.key])
            y = top + i * bar
            c.rect(x(0), y, x(n) - x(0), bar - 1, fill=s.color)
            c.text(x(n) + 4, y + bar - 2, f"{n:,}", size=11)
        c.height = top + bar * len(p.series) + 8
    ticks = [(t, p.x.label(t)) for t in nice_ticks(0, most, 3 if narrow else 6) if t <= most * 1.15]
    x_axis(c, x, ticks, top=c.height, bottom=c.height, title=p.x.title, grid=False)
    return c.svg()


def language_tokens_figure(table: pd.DataFrame | list[dict]) -> str:
    """Tokens per language for each tokenizer, grouped bars, each count written at its bar."""
    table = _records(table)
    spec = chart_spec.language_tokens(table)
    alt = ("Grouped bar chart of the tokens each tokenizer needs for the same paragraph in ten languages. "
           + _by_tokenizer(table, lambda r: f"{r['language']} {int(r['tokens']):,}"))
    return _figure(spec.name, lambda w, f: _tokens_svg(spec, w, f), alt, spec.panels[0].title)


def _heat(ratio: float, low: float, high: float, stops: tuple[str, ...]) -> str:
    """A colour of the gradient `stops` (hex), from the first (`low`) to the last (`high`)."""
    rgbs = [tuple(int(s[i:i + 2], 16) for i in (1, 3, 5)) for s in stops]
    t = 0.0 if high <= low else min(1.0, max(0.0, (ratio - low) / (high - low)))
    i = min(len(rgbs) - 2, int(t * (len(rgbs) - 1)))
    f = t * (len(rgbs) - 1) - i
    rgb = [round(a + (b - a) * f) for a, b in zip(rgbs[i], rgbs[i + 1])]
    return "#" + "".join(f"{v:02x}" for v in rgb)


def _ratio_svg(spec: Chart, width: int, font: int) -> str:
    p = spec.panels[0]
    table, gradient = spec.data["rows"], p.gradient
    languages, tokenizers = p.y.values, p.x.values
    c = Canvas(width, font)
    c.title(p.title, p.subtitle_for("static"))
    left = 8 + max(len(lang) for lang in languages) * 0.56 * font + 8
    col_w = (width - left - 8) / max(1, len(tokenizers))
    head = min(230, max(len(t) for t in tokenizers) * 0.56 * (font - 1) + 10)
    lines = {t: t.split(", ") for t in tokenizers}
    head = max(min(head, max(len(p) for t in tokenizers for p in lines[t]) * 0.56 * (font - 1) + 10), 40)
    top = c.height + head
    for j, t in enumerate(tokenizers):
        cx = left + (j + 0.5) * col_w
        parts = lines[t]
        for i, part in enumerate(parts):
            c.text(cx + (i - (len(parts) - 1) / 2) * (font + 1), top - 6, part, rotate=-90, size=font - 1,
                   baseline="middle")
    high = max((float(r["ratio"]) for r in table if r["ratio"] == r["ratio"]), default=1.0)  # NaN skipped
    cell_h = 44 if width > 500 else 38
    ratios = _cells(table, "ratio")
    for i, lang in enumerate(languages):
        y = top + i * cell_h
        c.text(left - 8, y + cell_h / 2 + font * 0.35, lang, anchor="end")
        for j, t in enumerate(tokenizers):
            if (lang, t) not in ratios:
                continue
            r = float(ratios[lang, t])
            c.rect(left + j * col_w, y, col_w, cell_h, fill=_heat(r, gradient.low, high, gradient.stops),
                   stroke="#fff")
            c.text(left + (j + 0.5) * col_w, y + cell_h / 2 + font * 0.35, f"{r:.2f}×", anchor="middle",
                   weight="bold", fill="#fff" if r > 3.5 else "#000", size=font if col_w > 60 else font - 2)
    c.height = top + len(languages) * cell_h + 14
    c.text(8, c.height + font, f"Colour: {gradient.title}, from {gradient.low:.1f} (pale) to {high:.1f} (dark red)",
           size=font - 1, fill="#444")
    c.height += font + 10
    return c.svg()


def language_ratio_figure(table: pd.DataFrame | list[dict]) -> str:
    """Each language's tokens as a multiple of English's, per tokenizer: a grid of
    cells with the ratio written in each (a heat map)."""
    table = _records(table)
    spec = chart_spec.language_ratio(table)
    alt = ("Heat map of each language's token count as a multiple of English's. "
           + _by_tokenizer(table, lambda r: f"{r['language']} {r['ratio']:.2f}×"))
    return _figure(spec.name, lambda w, f: _ratio_svg(spec, w, f), alt, spec.panels[0].title)



# ---- small tables -------------------------------------------------------------------------
def table_html(head: tuple[str, ...], rows: list[tuple], *, strong: tuple[int, ...] = (), numeric: tuple[int, ...] = (),
               label: str = "") -> str:
    """A small table as static HTML (ui.shared.tables' look; its CSS is on the page once):
    every cell escaped, rows in `strong` bold, columns in `numeric` right-aligned.
    Drawn by st.html, which the browser lays out only once it is scrolled into view
    (a markdown table is parsed and drawn at once, wherever it is).

    >>> table_html(("a", "n"), [("x<y", "1"), ("= all", "2")], strong=(1,), numeric=(1,))
    '<div class="bpe-table-wrap" tabindex="0" role="region" aria-label="table"><table class="bpe-table vc-table"><thead><tr><th scope="col">a</th><th scope="col" class="num">n</th></tr></thead><tbody><tr><td>x&lt;y</td><td class="num">1</td></tr><tr><td><strong>= all</strong></td><td class="num"><strong>2</strong></td></tr></tbody></table></div>'
    """
    def cell(tag: str, i: int, text: object, bold: bool) -> str:
        body = html.escape(str(text))
        attrs = (' scope="col"' if tag == "th" else "") + (' class="num"' if i in numeric else "")
        return f"<{tag}{attrs}>" + (f"<strong>{body}</strong>" if bold else body) + f"</{tag}>"

    name = f' aria-label="{html.escape(label, quote=True)}"' if label else ""
    thead = "".join(cell("th", i, h, False) for i, h in enumerate(head))
    tbody = "".join("<tr>" + "".join(cell("td", i, v, r in strong) for i, v in enumerate(row)) + "</tr>"
                    for r, row in enumerate(rows))
    return (f'<div class="bpe-table-wrap"{scroll_box_attrs(label or "table")}><table class="bpe-table vc-table"{name}><thead><tr>{thead}</tr></thead>'
            f"<tbody>{tbody}</tbody></table></div>")
