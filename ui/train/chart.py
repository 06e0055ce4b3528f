"""Train page, pure drawing: corpus length in tokens against step, as an SVG image
(`chart_html`); its axes and curve are drawn once per run (`_chart_frame`)."""
from __future__ import annotations

from ui.shared.svg import data_url, nice_ticks
from ui.train.run_view import RunView
from ui.train.step_cache import step_cached


CHART_POINTS = 1000


def chart_rows(view: RunView) -> list[dict[str, int]]:
    """(step, corpus length, vocabulary size) for every step, thinned to about
    CHART_POINTS rows for long runs."""
    run = view.run
    n = run.steps
    stride = max(1, -(-n // CHART_POINTS))
    steps = list(range(0, n + 1, stride))
    if steps[-1] != n:
        steps.append(n)
    return [{"step": s, "tokens": run.corpus_length(s), "vocab": run.vocab_size(s)} for s in steps]


#: The chart's size in SVG units (the image is drawn at the column's width, this aspect).
CHART_W, CHART_H = 460, 220
_PAD_L, _PAD_R, _PAD_T, _PAD_B = 62, 14, 10, 46
#: The curve is drawn with at most this many points (a pixel each at the chart's width).
SVG_POINTS = 400


@step_cached
def _chart_frame(view: RunView) -> tuple[str, tuple[float, float, float, float]]:
    """The chart's part that is the same at every step of a run (axes, grid, curve) as
    SVG markup, and its scale (x0, x-per-step, y0, y-per-token)."""
    rows = chart_rows(view)
    stride = max(1, -(-len(rows) // SVG_POINTS))
    pts = rows[::stride] + ([rows[-1]] if (len(rows) - 1) % stride else [])
    steps = max(1, view.steps)
    tokens = [r["tokens"] for r in rows]
    yticks = nice_ticks(min(tokens), max(tokens))
    xticks = [t for t in nice_ticks(0, steps, 6) if t <= steps]
    ylo, yhi = yticks[0], yticks[-1]
    w, h = CHART_W - _PAD_L - _PAD_R, CHART_H - _PAD_T - _PAD_B
    sx, sy = w / steps, h / max(1, yhi - ylo)
    X = lambda s: _PAD_L + s * sx
    Y = lambda t: _PAD_T + h - (t - ylo) * sy
    out = []
    for t in yticks:
        out.append(f'<line class="g" x1="{_PAD_L}" x2="{_PAD_L + w}" y1="{Y(t):.1f}" y2="{Y(t):.1f}"/>'
                   f'<text x="{_PAD_L - 6}" y="{Y(t) + 4:.1f}" text-anchor="end">{t:,}</text>')
    for t in xticks:
        out.append(f'<line class="g" x1="{X(t):.1f}" x2="{X(t):.1f}" y1="{_PAD_T}" y2="{_PAD_T + h}"/>'
                   f'<text x="{X(t):.1f}" y="{_PAD_T + h + 16}" text-anchor="middle">{t:,}</text>')
    out.append(f'<text x="{_PAD_L + w / 2:.1f}" y="{CHART_H - 6}" text-anchor="middle">step (merges so far)</text>'
               f'<text transform="translate(16 {_PAD_T + h / 2:.1f}) rotate(-90)" text-anchor="middle">tokens in the corpus</text>')
    path = " ".join(f"{X(r['step']):.1f},{Y(r['tokens']):.1f}" for r in pts)
    out.append(f'<polyline class="line" points="{path}"/>')
    return "".join(out), (_PAD_L, sx, _PAD_T + h + ylo * sy, sy)


_CHART_STYLE = ("<style>text{font:14px sans-serif;fill:#555}.g{stroke:#ddd;stroke-width:1}"
                ".line{fill:none;stroke:#0072B2;stroke-width:3;stroke-linejoin:round}"
                ".now{stroke:#D55E00;stroke-width:2;stroke-dasharray:4 3}.dot{fill:#D55E00}"
                "@media (prefers-color-scheme: dark){text{fill:#bbb}.g{stroke:#444}}</style>")


@step_cached
def chart_html(view: RunView, k: int) -> str:
    """Corpus length in tokens against step, step k marked (a dashed rule and a dot), as
    an SVG image in an <img> (st.html keeps a data: image; it strips inline SVG). One
    small element: no charting library in the browser, and a step swaps one image whose
    curve and axes the run's `_chart_frame` drew once. The alt text and the tooltip say
    what the picture shows."""
    frame, (x0, sx, y0, sy) = _chart_frame(view)
    t = view.run.corpus_length(k)
    x, y = x0 + k * sx, y0 - t * sy
    marker = (f'<line class="now" x1="{x:.1f}" x2="{x:.1f}" y1="{_PAD_T}" y2="{CHART_H - _PAD_B}"/>'
              f'<circle class="dot" cx="{x:.1f}" cy="{y:.1f}" r="7"/>')
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {CHART_W} {CHART_H}">'
           f"{_CHART_STYLE}{frame}{marker}</svg>")
    src = data_url(svg)
    run = view.run
    alt_text = (f"Chart: tokens in the corpus against step, from {run.corpus_length(0):,} at step 0 to "
                f"{run.corpus_length(run.steps):,} after {run.steps:,} merges; marked: step {k:,}, {t:,} tokens.")
    return (f'<div class="tp tp-chart" data-step="{k}" data-tokens="{t}"><img src="{src}" alt="{alt_text}" '
            f'title="step {k:,}: {t:,} tokens" width="{CHART_W}" height="{CHART_H}"></div>')
