"""Each Vocabulary size chart has one definition (ui/vocab/chart_spec.py), from which both
drawings are made: the interactive Vega-Lite chart (ui/vocab/charts.py) and the static
picture (ui/vocab/static.py). For every chart, both drawings must show exactly what its
spec says: its titles, subtitles, axis titles and legend labels, in its series' colours
and dash patterns. A title, colour or dash edited in one drawing only fails here.
"""
import json

import pandas as pd
import pytest

from bpe_core import TrainerSettings, WordTable, train
from ui.vocab import chart_spec, charts, static
from ui.vocab.curves import base_retirements, held_out_curve, held_out_steps, training_curve
from ui.vocab.model_cost import REAL_VOCABS
from tests.test_vocab_static import _Figure, _texts
from tests.test_vocab_ui import HELD_TEXT, TRAIN_TEXT, _walk


def _languages():
    rows = []
    for t, f in (("GPT-2 (50K)", 1.0), ("cl100k_base, GPT-4", 0.8), ("Training text, V = 756", 2.0)):
        for lang, code, n in (("English", "en", 60), ("Hindi", "hi", 380)):
            rows.append(dict(tokenizer=t, language=lang, code=code, script="Latin", tokens=int(n * f), ratio=n / 60,
                             chars=300, bytes=400, bytes_per_char=1.3, chars_per_token=5.0, unknown=0))
    return rows


def _cases():
    """(spec, Vega-Lite dict, picture HTML) for every chart of the page."""
    run = train(WordTable.from_text(TRAIN_TEXT, "gpt2"), TrainerSettings(units="byte", merges=300, top_n=0))
    curve, retired = training_curve(run), base_retirements(run)
    held = held_out_curve(run, HELD_TEXT, held_out_steps(run), "held out")
    vocab = run.vocab_size(100)
    label = "Training text (English)"
    langs = _languages()
    parts = [dict(measure="Parameters", part="vocabulary", value=25, label="embedding matrices"),
             dict(measure="Parameters", part="rest", value=75, label="everything else"),
             dict(measure="FLOPs per token", part="vocabulary", value=1, label="output layer (2dV)"),
             dict(measure="FLOPs per token", part="rest", value=9, label="everything else")]
    reals = [dict(name=r.name, size=r.size, kind="published") for r in REAL_VOCABS] + [
        dict(name="chosen above", size=vocab, kind="yours")]
    sizes = [256, 1024, 4096, 199_998]
    table = pd.DataFrame([dict(size=s, code=c, language=lang, tokens=100, chars=300, chars_per_token=1 + i / 2 + j)
                          for i, s in enumerate(sizes) for j, (c, lang) in enumerate((("en", "English"),
                                                                                     ("hi", "Hindi"), ("all", "all")))])
    marks = pd.DataFrame([dict(size=50_257, label="GPT-2"), dict(size=100_277, label="GPT-4 · cl100k")])
    cost = pd.DataFrame([dict(size=s, embedding_params=s * 768, output_flops=2 * s * 768) for s in sizes])
    model = "d = 768, tied embeddings"
    return {
        "curves": (chart_spec.curves(curve, held, retired, unit="bytes", training_label=label, chosen=vocab),
                   charts.curves_chart(curve, held, retired, chosen_vocab=vocab, unit="bytes", training_label=label),
                   static.curves_figure(curve, held, retired, chosen=vocab, k=100, unit="bytes", training_label=label)),
        "cost_share": (chart_spec.cost_share(parts), charts.cost_share_chart(pd.DataFrame(parts)),
                       static.cost_share_figure(parts)),
        "real_vocab": (chart_spec.real_vocab(reals), charts.real_vocab_chart(pd.DataFrame(reals)),
                       static.real_vocab_figure(reals)),
        "language_tokens": (chart_spec.language_tokens(langs), charts.language_tokens_chart(pd.DataFrame(langs)),
                            static.language_tokens_figure(langs)),
        "language_ratio": (chart_spec.language_ratio(langs), charts.language_ratio_chart(pd.DataFrame(langs)),
                           static.language_ratio_figure(langs)),
        "truncated": (chart_spec.truncation(table, marks), charts.truncation_chart(table, marks),
                      static.truncation_figure(table, marks)),
        "truncated_cost": (chart_spec.truncation_cost(cost, marks, model=model),
                           charts.truncation_cost_chart(cost, marks, model=model),
                           static.truncation_cost_figure(cost, marks, model=model)),
    }


@pytest.fixture(scope="module")
def cases():
    return {name: (spec, chart.to_dict(), markup) for name, (spec, chart, markup) in _cases().items()}


def _vega_texts(vl: dict) -> set[str]:
    """The titles, subtitles, axis titles, legend labels and fixed text labels a Vega-Lite
    chart shows (a legend's labelExpr mapping keys to labels is read as the labels it
    writes)."""
    out = set()
    for node in _walk(vl):
        title = node.get("title")
        if isinstance(title, dict):
            out |= {t for t in (title.get("text"), title.get("subtitle")) if isinstance(t, str)}
        encoding = node.get("encoding") if isinstance(node.get("encoding"), dict) else {}
        for channel, enc in encoding.items():
            if not isinstance(enc, dict):
                continue
            if isinstance(enc.get("title"), str):
                out.add(enc["title"])
            if channel == "text" and isinstance(enc.get("value"), str):  # a series labelled in place
                out.add(enc["value"])
            if isinstance(enc.get("title"), list):
                out |= set(enc["title"])
            if channel == "color" and enc.get("legend") is not None and "domain" in enc.get("scale", {}):
                expr = (enc.get("legend") or {}).get("labelExpr")
                labels = [json.loads(part.split(" : ")[0]) for part in expr.split(" ? ")[1:]] if expr else []
                if expr:
                    labels.append(json.loads(expr.rsplit(" : ", 1)[1]))
                out |= set(labels or enc["scale"]["domain"])
    return out


def _vega_cues(vl: dict) -> set[tuple]:
    """Every (colour, dash) pair a Vega-Lite chart gives a series: through its scales or
    on a mark of its own."""
    cues = set()
    for node in _walk(vl):
        mark = node.get("mark")
        if isinstance(mark, dict) and isinstance(mark.get("color"), str):
            cues.add((mark["color"], tuple(mark.get("strokeDash", [1, 0]))))
        encoding = node.get("encoding") if isinstance(node.get("encoding"), dict) else {}
        color, dash = encoding.get("color"), encoding.get("strokeDash")
        if isinstance(color, dict) and "range" in color.get("scale", {}):
            dashes = dash["scale"]["range"] if isinstance(dash, dict) else [[1, 0]] * len(color["scale"]["range"])
            cues |= {(c, tuple(d)) for c, d in zip(color["scale"]["range"], dashes)}
    return cues


@pytest.mark.parametrize("name", ["curves", "cost_share", "real_vocab", "language_tokens", "language_ratio",
                                  "truncated", "truncated_cost"])
def test_both_drawings_show_what_the_spec_says(cases, name):
    spec, vl, markup = cases[name]
    # the interactive chart: its words are exactly the spec's
    assert _vega_texts(vl) == set(spec.texts("interactive")), name
    legend = [s for p in spec.panels for s in p.legend()]
    assert {(s.color, tuple(s.vega_dash)) for s in legend} <= _vega_cues(vl)
    # the picture, wide and narrow: every word of the spec (titles wrap), every series'
    # colour with its dash in the legend
    fig = _Figure(markup)
    assert [f["data-chart"] for f in fig.figures] == [spec.name]
    for _, _, svg in fig.images:
        words = " ".join(_texts(svg))
        for text in spec.texts("static"):
            assert " ".join(text.split()) in words or all(w in words for w in text.split()), (name, text)
        for s in legend:
            stroke = f'stroke="{s.color}"' if s.mark != "bar" else f'fill="{s.color}"'
            assert stroke in svg, (name, s.label)
            if s.svg_dash:
                assert f'stroke="{s.color}" stroke-width="{s.width}" stroke-dasharray="{s.svg_dash}"' in svg or \
                    f'stroke-dasharray="{s.svg_dash}"' in svg, (name, s.label)


def test_the_chosen_size_is_one_marker_in_both_drawings(cases):
    spec, vl, markup = cases["curves"]
    marker = spec.marker
    params = {p["name"]: p.get("value") for p in vl["params"]}
    assert params[charts.CHOSEN] == marker.value
    rules = [n for n in _walk(vl) if isinstance(n.get("mark"), dict) and n["mark"].get("strokeDash") == list(marker.dash)]
    assert len(rules) == len(spec.panels) and all(r["mark"]["color"] == marker.color for r in rules)
    for _, _, svg in _Figure(markup).images:
        assert svg.count(f'stroke="{marker.color}" stroke-width="{marker.width}" '
                         f'stroke-dasharray="{" ".join(map(str, marker.dash))}"') == len(spec.panels)
        assert marker.label() in _texts(svg)


def test_an_edit_of_the_spec_reaches_both_drawings(monkeypatch):
    """A title changed in the spec changes both drawings; the test above then still holds."""
    original = chart_spec.cost_share

    def renamed(parts):
        spec = original(parts)
        panel = spec.panels[0]
        series = (chart_spec.Series("the words", "#123456", key="vocabulary", mark="bar"), panel.series[1])
        return chart_spec.Chart(spec.name, (chart_spec.Panel("A new title", panel.subtitle, panel.x, panel.y, series),),
                                spec.data)

    monkeypatch.setattr(chart_spec, "cost_share", renamed)
    parts = [dict(measure="Parameters", part="vocabulary", value=1, label="a"),
             dict(measure="Parameters", part="rest", value=3, label="b")]
    vl = charts.cost_share_chart(pd.DataFrame(parts)).to_dict()
    assert {"A new title", "the words"} <= _vega_texts(vl) and ("#123456", (1, 0)) in _vega_cues(vl)
    for _, _, svg in _Figure(static.cost_share_figure(parts)).images:
        assert {"A new title", "the words"} <= set(_texts(svg)) and 'fill="#123456"' in svg
