"""Altair charts for the Vocabulary size page, built by pure functions.

Each function takes plain frames (from ui.vocab.curves) and returns a top-level Altair
chart, so tests check `chart.to_dict()` without a browser. What a chart shows (titles,
axes, series with their colours and dashes or shapes, the chosen-size marker) comes from
its spec in ui.vocab.chart_spec, which the static picture (ui.vocab.static) is drawn from
too; this module adds what only an interactive chart has (tooltips, hover, click). Charts are meant to be read
from the back of a classroom: large fonts, a title and worded axis titles on every
chart, thousands separators, exact numbers in the tooltips.

The three curve panels are one vertically concatenated chart so that a vocabulary
size can be linked across them: hovering anywhere shows a rule at that size in every
panel (the `hover` parameter), clicking picks it (the `pick` parameter, which the page
reads back through Streamlit's `on_select`), and the size chosen on the page's slider
is drawn as a dashed rule in each panel.

Colours are Okabe-Ito (colour-blind safe); series also differ by dash pattern or shape.
"""
from __future__ import annotations

import json
import warnings

import altair as alt
import pandas as pd

from ui.vocab import chart_spec
from ui.vocab.chart_spec import Axis, Marker, Panel, Series, first_used_up_label

__all__ = [
    "display_height",
    "MAX_POINTS",
    "PICK",
    "HOVER",
    "CHOSEN",
    "set_param",
    "curves_chart",
    "real_vocab_chart",
    "language_tokens_chart",
    "language_ratio_chart",
    "cost_share_chart",
    "picked_vocab",
    "truncation_chart",
    "truncation_cost_chart",
    "fit_titles",
    "fast_render",
    "CURVES_AXIS_ROOM",
]

#: curves are thinned to about this many rows (Altair's default limit is 5,000)
MAX_POINTS = 1500
PICK = "pick"
HOVER = "hover"
CHOSEN = "chosen"

PANEL_WIDTH = 820
PANEL_HEIGHT = 230
#: the curve panels' y-axis labels get exactly this many pixels, so the three plots line
#: up and the page knows how much room the axis takes beside a stretched plot
CURVES_LABEL_ROOM = 64
#: what the page leaves free beside the curves (Streamlit makes each panel's plot as wide
#: as the chart's container): the y axis (labels, title padding, the title's line, 90 px)
#: plus what sticks out on the right (the last x label, the last points)
CURVES_AXIS_ROOM = 112
TRUNCATION_HEIGHT = 380


def display_height(chart, extra: int = 170) -> int:
    """The height to give st.altair_chart for a single (or layered) chart: Streamlit
    drops a top-level chart's own height, so pass the plot height plus `extra` room for
    the title, the legend and the axes."""
    return int(chart.height) + extra


def _readable(chart):
    """Large fonts for a projector; legends on top so panels keep their width."""
    return (
        chart.configure_axis(labelFontSize=15, titleFontSize=16, titlePadding=10, labelLimit=260,
                             labelColor="#222", titleColor="#222")
        .configure_title(fontSize=20, anchor="start", subtitleFontSize=15, subtitleColor="#444")
        .configure_legend(labelFontSize=15, titleFontSize=15, orient="top", labelLimit=420, labelColor="#222",
                          symbolStrokeWidth=3, symbolSize=220)
        .configure_header(labelFontSize=15, titleFontSize=16)
        .configure_view(strokeWidth=0)
    )


def _title(p: Panel) -> alt.Title:
    """A panel's title and its subtitle as the interactive chart writes it."""
    subtitle = p.subtitle_for("interactive")
    return alt.Title(p.title, subtitle=subtitle) if subtitle else alt.Title(p.title)


def _axis_title(axis: Axis):
    return list(axis.title) if isinstance(axis.title, tuple) else axis.title


#: how a tick is written, for the formats of chart_spec.Axis that d3 has no name for
_SIZE_LABEL = ("datum.value >= 1024 ? format(datum.value / 1024, ',d') + 'K' : format(datum.value, ',d')")
_SI_LABEL = "replace(format(datum.value, '.3~s'), 'G', 'B')"


def _tick_format(axis: Axis) -> dict:
    """The alt.Axis arguments that write `axis`'s ticks as the picture does."""
    if axis.format == "k":
        return {"labelExpr": _SIZE_LABEL}
    if axis.format == "si":
        return {"labelExpr": _SI_LABEL}
    return {"format": axis.format}


def _scale(axis: Axis, **kwargs) -> alt.Scale:
    kinds = {"log2": {"type": "log", "base": 2}, "log": {"type": "log"}, "symlog": {"type": "symlog", "constant": 1}}
    if axis.domain is not None:
        kwargs = {"domain": list(axis.domain), "nice": False, **kwargs}
    return alt.Scale(**kinds.get(axis.scale, {}), **kwargs)


def _label_expr(series: list[Series]) -> str | None:
    """A legend's labelExpr that writes each series' label for its key (None when the keys
    are the labels).

    >>> _label_expr([Series("real models", "#000", key="published"), Series("yours", "#f00", key="yours")])
    'datum.label == "published" ? "real models" : "yours"'
    """
    if all(s.key == s.label for s in series):
        return None
    expr = json.dumps(series[-1].label)
    for s in reversed(series[:-1]):
        expr = f"datum.label == {json.dumps(s.key)} ? {json.dumps(s.label)} : {expr}"
    return expr


def _color(field: str, series: list[Series], sort: bool = False, **legend) -> alt.Color:
    """Colour by `field`, each series' key in its colour, its legend labelled as the spec says."""
    expr = _label_expr(series)
    if expr:
        legend["labelExpr"] = expr
    domain = [s.key for s in series]
    return alt.Color(field, title=None, scale=alt.Scale(domain=domain, range=[s.color for s in series]),
                     legend=alt.Legend(**legend), **({"sort": domain} if sort else {}))


def _dash(field: str, series: list[Series], sort: bool = False) -> alt.StrokeDash:
    """The non-colour cue of a line series: its dash pattern."""
    domain = [s.key for s in series]
    return alt.StrokeDash(field, legend=None, scale=alt.Scale(domain=domain, range=[s.vega_dash for s in series]),
                          **({"sort": domain} if sort else {}))


def _vocab_x(axis: Axis, domain) -> alt.X:
    # labelFlush: the last label ends at the plot's edge instead of sticking out past it
    return alt.X(f"{axis.field}:Q", title=_axis_title(axis), scale=alt.Scale(domain=domain, nice=False, zero=False),
                 axis=alt.Axis(**_tick_format(axis), tickCount=8, labelFlush=True))


def _curves_y_axis(axis: Axis, **kwargs) -> alt.Axis:
    return alt.Axis(minExtent=CURVES_LABEL_ROOM, maxExtent=CURVES_LABEL_ROOM, **_tick_format(axis), **kwargs)


def _chosen_layers(marker: Marker, label: bool, middle: float = 0) -> list:
    """A dashed rule at the chosen vocabulary size (and its label in the top panel).

    The size is the `chosen` variable parameter, not data, so the chart does not change
    when the slider moves: a page can build (and cache) it once per run and only set
    the parameter's value (`set_param`).
    """
    one = pd.DataFrame({"row": [0]})
    base = alt.Chart(one).transform_calculate(
        vocab_size=CHOSEN, label=f"{json.dumps(marker.prefix)} + format({CHOSEN}, ',d')"
    )
    rule = base.mark_rule(color=marker.color, strokeDash=list(marker.dash), strokeWidth=marker.width).encode(
        x="vocab_size:Q",
        tooltip=[alt.Tooltip("vocab_size:Q", title="Chosen vocabulary size", format=",d")],
    )
    if not label:
        return [rule]
    # Written on the side of the rule with more room, so it never runs off a narrow chart.
    right = f"{CHOSEN} > {middle}"
    text = base.mark_text(align=alt.expr(f"{right} ? 'right' : 'left'"), dx=alt.expr(f"{right} ? -6 : 6"), dy=-6,
                          fontSize=15, fontWeight="bold", color=marker.color).encode(
        x="vocab_size:Q", y=alt.value(12), text="label:N"
    )
    return [rule, text]


def set_param(spec: dict, name: str, value) -> dict:
    """A copy of a chart spec (from `to_dict`) with variable parameter `name` set to
    `value`. Datasets are shared with the original, not copied; nothing is mutated.

    >>> spec = {"params": [{"name": "chosen", "value": 1}], "datasets": {"d": [1, 2]}}
    >>> new = set_param(spec, "chosen", 7)
    >>> new["params"], spec["params"], new["datasets"] is not spec["datasets"], new["datasets"] == spec["datasets"]
    ([{'name': 'chosen', 'value': 7}], [{'name': 'chosen', 'value': 1}], True, True)
    """
    import copy

    out = {k: (dict(v) if k == "datasets" else copy.deepcopy(v)) for k, v in spec.items()}
    for param in out.get("params", []):
        if param.get("name") == name:
            param["value"] = value
            return out
    raise ValueError(f"The chart has no parameter named {name!r}.")


def _hover_layers(curve: pd.DataFrame, tooltip: list, pick: alt.Parameter, hover: alt.Parameter) -> list:
    """An invisible layer that catches the pointer (nearest vocabulary size) and clicks,
    the hover rule it draws in every panel, and the tooltip with the exact numbers.

    The same two layer objects go into every panel, so Altair writes the parameters
    once, listing the panels as their views, and a hover in one panel shows in all.
    """
    catcher = alt.Chart(curve).mark_rule(strokeWidth=8, opacity=0).encode(
        x="vocab_size:Q", tooltip=tooltip
    ).add_params(pick, hover)
    rule = alt.Chart(curve).mark_rule(color="#555", strokeWidth=1.5).encode(
        x="vocab_size:Q"
    ).transform_filter(hover)
    return [catcher, rule]


def _curve_tooltip(unit: str) -> list:
    return [
        alt.Tooltip("step:Q", title="Merges", format=",d"),
        alt.Tooltip("vocab_size:Q", title="Vocabulary size", format=",d"),
        alt.Tooltip("corpus_length:Q", title="Training corpus, tokens", format=",d"),
        alt.Tooltip("units_per_token:Q", title=f"{unit.capitalize()} per token", format=",.3f"),
        alt.Tooltip("tokens_in_use:Q", title="Tokens in use", format=",d"),
        alt.Tooltip("base_in_use:Q", title="Base symbols in use", format=",d"),
        alt.Tooltip("token:N", title="Token made at this step"),
        alt.Tooltip("count:Q", title="Its pair count", format=",d"),
        alt.Tooltip("merged_occurrences:Q", title="Places merged = tokens saved", format=",d"),
    ]


def curves_chart(
    curve: pd.DataFrame,
    held_out: pd.DataFrame | None = None,
    retirements: pd.DataFrame | None = None,
    *,
    chosen_vocab: int | None = None,
    unit: str = "characters",
    training_label: str = "Training corpus",
    width: int = PANEL_WIDTH,
) -> alt.VConcatChart:
    """Three linked panels against vocabulary size (chart_spec.curves says what they show).

    1. the training corpus length in tokens (from the merge events);
    2. `unit` per token: the training corpus and each held-out text (`held_out` has
       columns vocab_size, units_per_token, tokens, unknown, step, text);
    3. the vocabulary size itself, the tokens in use and the base symbols in use, with
       a marker where each base symbol stops being used (`retirements`).
    `curve` is ui.vocab.curves.training_curve (thinned to MAX_POINTS rows if longer).
    """
    if len(curve) > MAX_POINTS:
        keep = set(retirements["step"]) if retirements is not None and len(retirements) else set()
        idx = _thin(len(curve), MAX_POINTS)
        curve = curve[curve["step"].isin(set(curve["step"].iloc[idx]) | keep)]
    # One table for every layer (Altair writes it into the spec once): the columns the
    # lines and tooltips read, ratios rounded. The spec is what the browser parses.
    fields = ["step", "vocab_size", "corpus_length", "units_per_token", "tokens_in_use", "base_in_use",
              "token", "count", "merged_occurrences"]
    curve = curve[fields].reset_index(drop=True).assign(units_per_token=curve["units_per_token"].round(4).to_numpy())
    domain = [int(curve["vocab_size"].min()), int(curve["vocab_size"].max())]
    if domain[0] == domain[1]:
        domain[1] += 1
    spec = chart_spec.curves(curve, held_out, retirements, unit=unit, training_label=training_label,
                             chosen=chosen_vocab if chosen_vocab is not None else domain[0])
    length, per_token, use = spec.panels
    marker = spec.marker
    pick = alt.selection_point(name=PICK, on="click", nearest=True, fields=["vocab_size"], empty=False)
    hover = alt.selection_point(name=HOVER, on="pointerover", nearest=True, fields=["vocab_size"],
                                empty=False, clear="pointerout")
    hover_layers = _hover_layers(curve, _curve_tooltip(unit), pick, hover)
    x = _vocab_x(length.x, domain)

    def chosen(i: int, middle: float = 0) -> list:
        return _chosen_layers(marker, label=i == marker.labelled, middle=middle)

    def panel(p: Panel, layers: list, i: int, middle: float = 0):
        return alt.layer(*layers, *hover_layers, *chosen(i, middle)).properties(
            width=width, height=PANEL_HEIGHT, title=_title(p))

    # 1. corpus length
    line = length.series[0]
    length_line = alt.Chart(curve).mark_line(color=line.color, strokeWidth=line.width).encode(
        x=x,
        y=alt.Y(f"{length.y.field}:Q", title=_axis_title(length.y), axis=_curves_y_axis(length.y),
                scale=alt.Scale(zero=False)),
    )
    panel1 = panel(length, [length_line], 0, middle=(domain[0] + domain[1]) / 2)

    # 2. units per token, training and held out
    texts = list(per_token.series)
    legend = dict(orient="top", direction="horizontal", columns=1, labelLimit=220)
    color, dash = _color("text:N", texts, **legend), _dash("text:N", texts)
    train_rows = alt.Chart(curve).transform_calculate(text=json.dumps(texts[0].key))
    ydef = alt.Y(f"{per_token.y.field}:Q", title=_axis_title(per_token.y), axis=_curves_y_axis(per_token.y),
                 scale=alt.Scale(zero=False))
    layers2 = [train_rows.mark_line(strokeWidth=texts[0].width).encode(x=x, y=ydef, color=color, strokeDash=dash)]
    if held_out is not None and len(held_out):
        held_tooltip = [
            alt.Tooltip("text:N", title="Text"),
            alt.Tooltip("step:Q", title="Merges", format=",d"),
            alt.Tooltip("vocab_size:Q", title="Vocabulary size", format=",d"),
            alt.Tooltip("tokens:Q", title="Tokens", format=",d"),
            alt.Tooltip("units_per_token:Q", title=f"{unit.capitalize()} per token", format=",.3f"),
            alt.Tooltip("unknown:Q", title="Unknown characters", format=",d"),
        ]
        base = alt.Chart(held_out).encode(x=x, y=ydef, color=color)
        layers2.append(base.mark_line(strokeWidth=texts[-1].width).encode(strokeDash=dash))
        layers2.append(base.mark_point(size=90, filled=True).encode(tooltip=held_tooltip))
    panel2 = panel(per_token, layers2, 1)

    # 3. vocabulary vs tokens in use
    lines = [s for s in use.series if s.mark == "line"]
    used_up, first_rule = (s for s in use.series if s.mark != "line")
    # the three series folded from the one table in the browser, not written out three times
    columns = {s.key: s.label for s in lines}
    long = alt.Chart(curve).transform_fold(list(columns), as_=["column", "tokens"]).transform_calculate(
        series=f"{json.dumps(columns)}[datum.column]")
    by_label = [Series(s.label, s.color, key=s.label, dash=s.dash) for s in lines]
    use_color = _color("series:N", by_label, sort=True, **legend)
    use_dash = _dash("series:N", by_label, sort=True)
    top = max(1, int(curve[list(columns)].to_numpy().max()))
    ticks = [0] + [m * 10**e for e in range(6) for m in (1, 2, 5) if m * 10**e <= top * 1.2]
    y3 = alt.Y(f"{use.y.field}:Q", title=_axis_title(use.y), scale=_scale(use.y),
               axis=_curves_y_axis(use.y, values=ticks))
    layers3 = [long.mark_line(strokeWidth=lines[0].width).encode(x=x, y=y3, color=use_color, strokeDash=use_dash)]
    if retirements is not None and len(retirements):
        base_at = curve.set_index("step")["base_in_use"]
        marks = retirements.assign(tokens=[int(base_at.get(s, 0)) for s in retirements["step"]])
        layers3.append(alt.Chart(marks).mark_point(shape=used_up.shape, size=160, filled=True,
                                                   color=used_up.color).encode(
            x="vocab_size:Q", y=y3,
            tooltip=[alt.Tooltip("symbol:N", title="Base symbol used up"),
                     alt.Tooltip("vocab_size:Q", title="At vocabulary size", format=",d"),
                     alt.Tooltip("step:Q", title="Merge", format=",d"),
                     alt.Tooltip("merge:N", title="By the merge"),
                     alt.Tooltip("token:N", title="Which made")],
        ))
        first = marks.iloc[[0]].assign(label=lambda f: first_used_up_label(f["symbol"].iloc[0], f["vocab_size"].iloc[0]))
        layers3.append(alt.Chart(first).mark_rule(color=first_rule.color, strokeWidth=first_rule.width).encode(
            x="vocab_size:Q"))
        late = float(first["vocab_size"].iloc[0]) > (domain[0] + domain[1]) / 2
        layers3.append(alt.Chart(first).mark_text(align="right" if late else "left", dx=-6 if late else 6, dy=14,
                                                  fontSize=15, color=first_rule.color, fontWeight="bold").encode(
            x="vocab_size:Q", y=alt.value(0), text="label:N"))
    panel3 = panel(use, layers3, 2)
    with warnings.catch_warnings():
        # Sharing one parameter across the panels is the point; Altair warns that it
        # merged the copies into one, which is what we want.
        warnings.filterwarnings("ignore", message="Automatically deduplicated selection parameter")
        chart = alt.vconcat(panel1, panel2, panel3, spacing=36).resolve_scale(
            color="independent", strokeDash="independent")
    chart = chart.add_params(alt.param(name=CHOSEN, value=int(marker.value)))
    # The page passes width="stretch": Streamlit then makes each panel's plot as wide as
    # the chart's container, and the page leaves CURVES_AXIS_ROOM beside it for the axis.
    return _readable(chart)


#: container widths (px) at which a title is wrapped afresh, widest first
_TITLE_WIDTHS = (1400, 1000, 760, 560, 420, 300)
#: a generous average glyph width, in ems, of the title font (measured: 0.42)
_EM_PER_CHAR = 0.48


def _wrapped(text: str, font_px: float, width: int) -> str | list[str]:
    """`text` in lines that fit `width` pixels at `font_px` (one string if it fits).

    >>> _wrapped("Tokens for the same paragraph", 20, 200)
    ['Tokens for the same', 'paragraph']
    >>> _wrapped("Short", 20, 200)
    'Short'
    """
    import textwrap

    lines = textwrap.wrap(text, max(8, int(width / (_EM_PER_CHAR * font_px))), break_on_hyphens=False)
    return lines[0] if len(lines) == 1 else lines


def _fitted(text: str, font_px: float) -> str:
    """A Vega expression that picks `text` wrapped for the chart's container width.

    >>> _fitted("a b", 20)
    '"a b"'
    >>> _fitted("Tokens for the same paragraph in ten languages", 20)
    'containerSize()[0] >= 560 ? "Tokens for the same paragraph in ten languages" : containerSize()[0] >= 420 ? ["Tokens for the same paragraph in ten", "languages"] : ["Tokens for the same paragraph", "in ten languages"]'
    """
    import json

    variants = [(w, json.dumps(_wrapped(text, font_px, w))) for w in _TITLE_WIDTHS]
    expr = variants[-1][1]
    narrower = expr
    for w, lines in reversed(variants[:-1]):
        if lines != narrower:
            expr = f"containerSize()[0] >= {w} ? {lines} : {expr}"
        narrower = lines
    return expr


def fit_titles(spec: dict, *, title_px: float = 20, subtitle_px: float = 15) -> dict:
    """A copy of a chart spec (from `to_dict`) whose titles and subtitles wrap to the
    width of the chart's container when the browser draws it, so a long title never
    makes a chart wider than a phone's screen (Vega titles do not wrap by themselves).

    The top level and each concatenated panel are handled; datasets are shared, not
    copied. Tests validate the charts without this (Vega-Lite's schema allows a
    subtitle only as text; Vega itself takes a signal there).
    """
    def fit(title):
        if isinstance(title, str):
            title = {"text": title}
        if not isinstance(title, dict) or not isinstance(title.get("text"), str):
            return title
        out = dict(title, text={"expr": _fitted(title["text"], title_px)})
        if isinstance(out.get("subtitle"), str):
            out["subtitle"] = {"signal": _fitted(out["subtitle"], subtitle_px)}
        return out

    out = dict(spec)
    if "title" in out:
        out["title"] = fit(out["title"])
    for key in ("vconcat", "hconcat", "concat"):
        if key in out:
            out[key] = [dict(p, title=fit(p["title"])) if "title" in p else p for p in out[key]]
    return out


def fast_render(spec: dict) -> dict:
    """A copy of a chart spec that the browser draws quickly: on a canvas rather than as
    SVG (an SVG element, with its attributes, per point, rule and label: most of the
    page's first-load time went into setting them) and without a screen-reader label
    per mark (the page's text says what each chart shows; the tooltips give the numbers).

    >>> fast_render({"mark": "line"})["usermeta"], fast_render({"config": {"view": {}}})["config"]["aria"]
    ({'embedOptions': {'renderer': 'canvas'}}, False)
    """
    meta = dict(spec.get("usermeta") or {})
    meta["embedOptions"] = {**meta.get("embedOptions", {}), "renderer": "canvas"}
    return {**spec, "usermeta": meta, "config": {**spec.get("config", {}), "aria": False}}


def _thin(n: int, max_points: int) -> list[int]:
    every = (n - 1) / (max_points - 1)
    return sorted({round(i * every) for i in range(max_points)})


def picked_vocab(selection: object) -> int | None:
    """The vocabulary size clicked on the curves chart, from Streamlit's selection
    state (`{"selection": {"pick": [{"vocab_size": 1024}]}}`), or None.

    >>> picked_vocab({"selection": {"pick": [{"vocab_size": 1024.0}]}})
    1024
    >>> picked_vocab({"selection": {"pick": []}}), picked_vocab(None)
    (None, None)
    """
    try:
        points = selection["selection"][PICK]  # type: ignore[index]
        value = points[0]["vocab_size"] if isinstance(points, list) else points["vocab_size"][0]
        return int(round(float(value)))
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def real_vocab_chart(reals: pd.DataFrame, *, width: int = PANEL_WIDTH) -> alt.LayerChart:
    """Real models' vocabulary sizes on one logarithmic axis (chart_spec.real_vocab).

    `reals` has columns name, size and kind ("published" or "yours"); labels alternate
    above and below the axis so neighbours do not overlap.
    """
    data = reals.reset_index(drop=True).sort_values("size").reset_index(drop=True)
    p = chart_spec.real_vocab(data.to_dict("records")).panels[0]
    # Neighbours on a log axis sit close together: cycle the labels through six lanes
    # (three heights above the axis, three below) so no two nearby labels collide.
    lanes = (1, -1, 2, -2, 3, -3)
    data = data.assign(
        lane=[lanes[i % len(lanes)] for i in range(len(data))],
        label=[f"{n}\n{s:,}" for n, s in zip(data["name"], data["size"])],
    )
    x = alt.X(f"{p.x.field}:Q", title=_axis_title(p.x), scale=_scale(p.x),
              axis=alt.Axis(**_tick_format(p.x), values=list(p.x.values)))
    kinds = list(p.series)
    color = _color("kind:N", kinds, orient="top")
    tooltip = [alt.Tooltip("name:N", title="Model or tokenizer"), alt.Tooltip("size:Q", title="Vocabulary size", format=",d")]
    data = data.assign(zero=0.0, lane_y=data["lane"] * 0.9)
    y_scale = alt.Scale(domain=[-3.4, 3.4])
    base = alt.Chart(data)
    axis_line = alt.Chart(pd.DataFrame({"y": [0.0]})).mark_rule(color="#888").encode(
        y=alt.Y("y:Q", axis=None, scale=y_scale))
    stems = base.mark_rule(color="#888").encode(x=x, y=alt.Y("zero:Q", axis=None, scale=y_scale), y2="lane_y:Q")
    points = base.mark_point(filled=True, size=220, opacity=1).encode(
        x=x, y=alt.Y("zero:Q", axis=None, scale=y_scale), color=color,
        shape=alt.Shape("kind:N", scale=alt.Scale(domain=[s.key for s in kinds], range=[s.shape for s in kinds]),
                        legend=None),
        tooltip=tooltip,
    )
    text_up = base.transform_filter("datum.lane > 0").mark_text(baseline="bottom", fontSize=15, lineBreak="\n", dy=-22).encode(
        x=x, y=alt.Y("lane_y:Q", axis=None, scale=y_scale), text="label:N", color=color, tooltip=tooltip)
    text_down = base.transform_filter("datum.lane < 0").mark_text(baseline="top", fontSize=15, lineBreak="\n", dy=3).encode(
        x=x, y=alt.Y("lane_y:Q", axis=None, scale=y_scale), text="label:N", color=color, tooltip=tooltip)
    chart = alt.layer(axis_line, stems, points, text_up, text_down).properties(
        width=width, height=330, title=_title(p)).resolve_scale(color="shared")
    return _readable(chart)


def language_tokens_chart(table: pd.DataFrame, *, width: int = PANEL_WIDTH) -> alt.Chart:
    """Tokens per language for each tokenizer: grouped horizontal bars
    (chart_spec.language_tokens). `table` is ui.vocab.curves.language_table."""
    p = chart_spec.language_tokens(table.to_dict("records")).panels[0]
    languages, tokenizers = list(p.y.values), list(p.series)
    chart = alt.Chart(table).mark_bar(height={"band": 1}).encode(
        y=alt.Y(f"{p.y.field}:N", title=_axis_title(p.y), sort=languages),
        yOffset=alt.YOffset("tokenizer:N", sort=[s.key for s in tokenizers]),
        x=alt.X(f"{p.x.field}:Q", title=_axis_title(p.x), axis=alt.Axis(**_tick_format(p.x))),
        color=_color("tokenizer:N", tokenizers, sort=True, orient="top", columns=1, labelLimit=240),
        tooltip=_language_tooltip(),
    ).properties(
        width=width, height=13 * len(tokenizers) * len(languages) + 8 * len(languages), title=_title(p),
    )
    return _readable(chart)


def _language_tooltip() -> list:
    return [
        alt.Tooltip("language:N", title="Language"),
        alt.Tooltip("script:N", title="Script"),
        alt.Tooltip("tokenizer:N", title="Tokenizer"),
        alt.Tooltip("tokens:Q", title="Tokens", format=",d"),
        alt.Tooltip("ratio:Q", title="Tokens relative to English", format=".2f"),
        alt.Tooltip("chars:Q", title="Characters", format=",d"),
        alt.Tooltip("bytes:Q", title="UTF-8 bytes", format=",d"),
        alt.Tooltip("chars_per_token:Q", title="Characters per token", format=".2f"),
        alt.Tooltip("unknown:Q", title="Unknown characters", format=",d"),
    ]


def language_ratio_chart(table: pd.DataFrame, *, width: int = PANEL_WIDTH) -> alt.LayerChart:
    """The ratio of each language's tokens to English's, per tokenizer, as a heat map
    with the ratio written in each cell (chart_spec.language_ratio; 1.00 is English's own
    cost)."""
    p = chart_spec.language_ratio(table.to_dict("records")).panels[0]
    gradient = p.gradient
    data = table.assign(ratio_text=[f"{r:.2f}×" for r in table["ratio"]])
    # Tokenizer names are written upwards (one line per ", " part): they never overlap,
    # however narrow the columns get on a phone; the colour legend sits below.
    base = alt.Chart(data).encode(
        x=alt.X(f"{p.x.field}:N", title=_axis_title(p.x), sort=list(p.x.values),
                axis=alt.Axis(orient="top", labelAngle=270, labelAlign="left", labelBaseline="middle",
                              labelOverlap=False, labelFontSize=14, labelLimit=230,
                              labelExpr="split(datum.label, ', ')")),
        y=alt.Y(f"{p.y.field}:N", title=_axis_title(p.y), sort=list(p.y.values)),
        tooltip=_language_tooltip(),
    )
    cells = base.mark_rect(stroke="#fff", strokeWidth=2).encode(
        color=alt.Color("ratio:Q", title=gradient.title,
                        scale=alt.Scale(scheme=gradient.scheme, domainMin=gradient.low),
                        legend=alt.Legend(orient="bottom", direction="horizontal", format=".1f", gradientLength=220,
                                          titleLimit=330)),
    )
    labels = base.mark_text(fontSize=15, fontWeight="bold").encode(
        text="ratio_text:N",
        color=alt.condition("datum.ratio > 3.5", alt.value("#fff"), alt.value("#000")),
    )
    chart = alt.layer(cells, labels).properties(width=width, height=44 * len(p.y.values), title=_title(p))
    return _readable(chart)


def cost_share_chart(parts: pd.DataFrame, *, width: int = PANEL_WIDTH) -> alt.LayerChart:
    """What share of the parameters and of the forward FLOPs the vocabulary takes
    (chart_spec.cost_share).

    `parts` has columns measure, part ("vocabulary" or "rest"), value, label; one
    100%-stacked bar per measure, the vocabulary's share written on it.
    """
    p = chart_spec.cost_share(parts.to_dict("records")).panels[0]
    order = {s.key: i for i, s in enumerate(p.series)}
    data = parts.assign(order=[order.get(part, len(order)) for part in parts["part"]])
    totals = data.groupby("measure")["value"].transform("sum")
    data = data.assign(share=data["value"] / totals)
    measures = list(dict.fromkeys(data["measure"]))
    base = alt.Chart(data).encode(
        y=alt.Y(f"{p.y.field}:N", title=_axis_title(p.y), sort=measures, axis=alt.Axis(labelFontSize=16)),
        x=alt.X(f"{p.x.field}:Q", stack="normalize", title=_axis_title(p.x),
                axis=alt.Axis(**_tick_format(p.x), labelFlush=True)),
        order=alt.Order("order:Q"),
        tooltip=[alt.Tooltip("measure:N", title="Measure"), alt.Tooltip("label:N", title="Part"),
                 alt.Tooltip("value:Q", title="Amount", format=",d"), alt.Tooltip("share:Q", title="Share", format=".1%")],
    )
    bars = base.mark_bar(height=44).encode(color=_color("part:N", list(p.series), orient="top", columns=1,
                                                        labelLimit=190))
    text = base.transform_filter(f"datum.part == {json.dumps(p.series[0].key)}").mark_text(
        align="left", dx=8, fontSize=17, fontWeight="bold", color="#000").encode(
        x=alt.X("share:Q"), text=alt.Text("share:Q", format=".1%"))
    chart = alt.layer(bars, text).properties(width=width, height=150, title=_title(p))
    return _readable(chart)


# ---- a real tokenizer cut to its first k ranks ---------------------------------------------


def _size_x(axis: Axis) -> alt.X:
    """A base-2 logarithmic size axis with a tick at every drawn size (256, 1K, ...);
    on a narrow screen Vega drops the labels that would overlap."""
    # a title in two lines, so it fits under a phone-wide plot
    return alt.X(f"{axis.field}:Q", title=_axis_title(axis), scale=_scale(axis),
                 axis=alt.Axis(values=list(axis.values), **_tick_format(axis), labelOverlap="greedy", labelFlush=True,
                               grid=True, tickCount=len(axis.values)))


#: rows of real models' names above the curves (one row each, so none overlap)
_LANE = 18


def _mark_layers(p: Panel, marks: pd.DataFrame, height: int) -> list:
    """Real models' sizes: a dotted rule each, its name on a row of its own at the top
    of the plot, ending at the rule, so close sizes never overlap (even on a phone).
    The largest size takes the top row and each rule starts at its own name's row: a
    name reaches left over the smaller sizes, whose rules start below it, so no rule
    crosses a name."""
    x = _size_x(p.x)
    rule = next(s for s in p.series if s.key == "marks")
    marks = marks.sort_values("size", ascending=False).reset_index(drop=True)
    marks = marks.assign(top=[4 + _LANE * i for i in range(len(marks))])
    tooltip = [alt.Tooltip("label:N", title=rule.label), alt.Tooltip("size:Q", title="Vocabulary size", format=",d")]
    rules = alt.Chart(marks).mark_rule(color=rule.color, strokeDash=list(rule.dash), strokeWidth=rule.width).encode(
        x=x, y=alt.Y("top:Q", scale=None), y2=alt.value(height), tooltip=tooltip)
    names = alt.Chart(marks).mark_text(align="right", baseline="top", dx=-4, fontSize=14, color="#333").encode(
        x=x, y=alt.Y("top:Q", scale=None), text="label:N", tooltip=tooltip)
    return [rules, names]


def truncation_chart(table: pd.DataFrame, marks: pd.DataFrame, *, width: int | str = "container") -> alt.LayerChart:
    """Characters per token of each language (thin lines) and of all of them together
    (a thick black line) against the number of ranks kept, with real models' sizes marked
    (chart_spec.truncation).

    `table` is ui.vocab.real_sizes.truncation_table (code "all" is the total); `marks`
    has columns size and label. `width="container"` lets the page stretch it to the
    screen (a phone or a projector).
    """
    p = chart_spec.truncation(table, marks).panels[0]
    *langs, total = [s for s in p.series if s.mark == "line"]
    x = _size_x(p.x)
    tooltip = [alt.Tooltip("language:N", title="Text"), alt.Tooltip("size:Q", title="Ranks kept", format=",d"),
               alt.Tooltip("tokens:Q", title="Tokens", format=",d"), alt.Tooltip("chars:Q", title="Characters", format=",d"),
               alt.Tooltip("chars_per_token:Q", title="Characters per token", format=".2f")]
    y = alt.Y(f"{p.y.field}:Q", title=_axis_title(p.y), axis=alt.Axis(**_tick_format(p.y)), scale=_scale(p.y))
    each = alt.Chart(table[table["code"] != total.key]).mark_line(
        strokeWidth=langs[0].width if langs else 2, point=alt.OverlayMarkDef(size=40)).encode(
        x=x, y=y, tooltip=tooltip,
        color=_color("language:N", langs, sort=True, orient="top", columns=3, labelFontSize=14, labelLimit=110,
                     symbolSize=120, symbolStrokeWidth=3),
    )
    rows = table[table["code"] == total.key]
    line = alt.Chart(rows).mark_line(
        strokeWidth=total.width, color=total.color, point=alt.OverlayMarkDef(size=90, color=total.color, filled=True)).encode(
        x=x, y=y, tooltip=tooltip)
    label = alt.Chart(rows.tail(1)).mark_text(
        align="right", dx=-10, dy=16, fontSize=15, fontWeight="bold").encode(
        x=x, y=y, text=alt.value(total.label))
    chart = alt.layer(*_mark_layers(p, marks, TRUNCATION_HEIGHT), each, line, label).properties(
        width=width, height=TRUNCATION_HEIGHT, title=_title(p))
    return _readable(chart)


def truncation_cost_chart(cost: pd.DataFrame, marks: pd.DataFrame, *, model: str,
                          width: int | str = "container") -> alt.LayerChart:
    """What those sizes cost: embedding parameters and output-layer FLOPs per token
    against the same size axis (chart_spec.truncation_cost). `cost` is
    ui.vocab.real_sizes.cost_at_sizes."""
    p = chart_spec.truncation_cost(cost, marks, model=model).panels[0]
    lines = p.legend()
    long = cost.melt(id_vars=["size"], value_vars=[s.key for s in lines], var_name="measure",
                     value_name=p.y.field)
    long["measure"] = long["measure"].map({s.key: s.label for s in lines})
    by_label = [Series(s.label, s.color, key=s.label, dash=s.dash) for s in lines]
    chart = alt.layer(
        *_mark_layers(p, marks, TRUNCATION_HEIGHT),
        alt.Chart(long).mark_line(strokeWidth=lines[0].width, point=alt.OverlayMarkDef(size=70, filled=True)).encode(
            x=_size_x(p.x),
            y=alt.Y(f"{p.y.field}:Q", title=_axis_title(p.y), axis=alt.Axis(**_tick_format(p.y)), scale=_scale(p.y)),
            color=_color("measure:N", by_label, sort=True, orient="top", columns=1, labelLimit=240),
            strokeDash=_dash("measure:N", by_label, sort=True),
            tooltip=[alt.Tooltip("measure:N", title="Measure"), alt.Tooltip("size:Q", title="Vocabulary size", format=",d"),
                     alt.Tooltip("amount:Q", title="Amount", format=",d")],
        ),
    ).properties(width=width, height=TRUNCATION_HEIGHT, title=_title(p))
    return _readable(chart)
