"""The Vocabulary size page's static charts (ui/vocab/static.py), without Streamlit.

Each figure holds two SVG pictures (wide and narrow) as `data:` images: both must parse
as SVG, carry alt text, and show what the Vega-Lite chart showed: titles, every series,
the chosen size, and the numbers the tooltips gave (written on the chart or under it).
Text that can come from a user (a token of a session run) is escaped everywhere.
"""
import base64
import re
import xml.dom.minidom
from html.parser import HTMLParser

import pandas as pd
import pytest

from bpe_core import TrainerSettings, WordTable, train
from ui.vocab import static
from ui.vocab.curves import base_retirements, held_out_curve, held_out_steps, training_curve
from ui.vocab.model_cost import REAL_VOCABS
from ui.shared.svg import Scale, nice_ticks, wrap
from tests.test_vocab_ui import HELD_TEXT, TRAIN_TEXT


class _Figure(HTMLParser):
    """The figure's images (class, alt, decoded SVG) and its caption's text."""

    def __init__(self, markup: str):
        super().__init__()
        self.images, self.caption, self._in_caption, self.figures = [], "", False, []
        self.feed(markup)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure":
            self.figures.append(a)
        if tag == "img":
            src = a["src"]
            assert src.startswith("data:image/svg+xml;base64,")
            svg = base64.b64decode(src.split(",", 1)[1]).decode()
            self.images.append((a["class"], a["alt"], svg))
        self._in_caption = tag == "figcaption" or self._in_caption

    def handle_endtag(self, tag):
        if tag == "figcaption":
            self._in_caption = False

    def handle_data(self, data):
        if self._in_caption:
            self.caption += data


def _texts(svg: str) -> list[str]:
    """Every <text> of an SVG, unescaped (the document must parse)."""
    doc = xml.dom.minidom.parseString(svg)
    return ["".join(n.data for n in t.childNodes if n.nodeType == n.TEXT_NODE) for t in doc.getElementsByTagName("text")]


def _check(markup: str, name: str) -> _Figure:
    fig = _Figure(markup)
    assert fig.figures == [{"class": "vc-chart", "data-chart": name}]
    assert [c for c, _, _ in fig.images] == ["vc-wide", "vc-narrow"]
    for _, alt, svg in fig.images:
        assert len(alt) > 40
        _texts(svg)  # parses
    return fig


@pytest.fixture(scope="module")
def byte_run():
    return train(WordTable.from_text(TRAIN_TEXT, "gpt2"), TrainerSettings(units="byte", merges=500, top_n=0))


def test_curves_figure_draws_three_panels_the_chosen_size_and_its_figures(byte_run):
    curve = training_curve(byte_run)
    held = held_out_curve(byte_run, HELD_TEXT, held_out_steps(byte_run), "held out")
    k = 200
    vocab = byte_run.vocab_size(k)
    fig = _check(static.curves_figure(curve, held, base_retirements(byte_run), chosen=vocab, k=k, unit="bytes",
                                      training_label="Training text (English)"), "curves")
    for _, alt, svg in fig.images:
        texts = _texts(svg)
        joined = " ".join(texts)  # titles wrap on the narrow picture
        assert "Training corpus length shrinks with every merge" in joined
        assert "Vocabulary size against the tokens actually in use" in joined
        assert "Bytes per token: the text the run learned from" in joined
        assert {"Training text (English)", "held out", "Tokens the corpus uses"} <= set(texts)
        assert f"chosen: {vocab:,}" in texts
        assert svg.count('stroke-dasharray="6 4"') >= 3  # the chosen size, dashed in every panel
        assert any(t.startswith("first base symbol used up") for t in texts)
        assert f"from {int(curve.iloc[0].vocab_size):,} to {int(curve.iloc[-1].vocab_size):,}" in alt
    row = curve.iloc[k]
    # what the hover tooltip gave at the chosen size, written under the chart
    for part in (f"At vocabulary size {vocab:,}", f"{k:,} merges", f"training corpus {int(row.corpus_length):,} tokens",
                 f"{int(row.tokens_in_use):,} tokens in use", f"places merged = tokens saved: {int(row.merged_occurrences):,}",
                 repr(row.token)):
        assert part in fig.caption


def test_curves_figure_escapes_tokens_a_user_typed():
    run = train(WordTable.from_word_counts("<b>x</b> 9\n<b>y 4"), TrainerSettings(units="char", merges=6))
    curve = training_curve(run)
    markup = static.curves_figure(curve, None, base_retirements(run), chosen=run.vocab_size(6), k=6, unit="characters",
                                  training_label="<i>mine</i>")
    assert "<b>" not in markup and "<i>" not in markup
    fig = _check(markup, "curves")
    assert "&lt;" not in fig.caption and "<" in fig.caption  # escaped in the markup, text again when read
    assert any("<i>mine</i>" in _texts(svg) for _, _, svg in fig.images)


def _languages():
    rows = []
    for t, factor in (("GPT-2 (50K)", 1.0), ("<script>x</script>, V = 300", 2.0)):
        for lang, code, n in (("English", "en", 60), ("Hindi", "hi", 380)):
            rows.append(dict(tokenizer=t, language=lang, code=code, script="Latin", tokens=int(n * factor),
                             ratio=n / 60, chars=300, bytes=400, bytes_per_char=1.3, chars_per_token=5.0, unknown=0))
    return pd.DataFrame(rows)


def test_language_figures_write_every_count_and_ratio():
    table = _languages()
    tokens = _check(static.language_tokens_figure(table), "language_tokens")
    ratio = _check(static.language_ratio_figure(table), "language_ratio")
    assert "<script>" not in static.language_tokens_figure(table)
    for _, alt, svg in tokens.images:
        texts = _texts(svg)
        assert {"60", "380", "120", "760"} <= set(texts)  # each bar's count, as the tooltip gave
        assert "<script>x</script>, V = 300" in texts and "Hindi 760" in alt
    for _, alt, svg in ratio.images:
        texts = _texts(svg)
        assert {"1.00×", "6.33×"} <= set(texts)
        assert "V = 300" in texts  # the tokenizer's name, one line per ", " part


def test_cost_and_real_size_figures():
    parts = pd.DataFrame([
        dict(measure="Parameters", part="vocabulary", value=25, label="embedding matrices"),
        dict(measure="Parameters", part="rest", value=75, label="everything else"),
        dict(measure="FLOPs per token", part="vocabulary", value=1, label="output layer (2dV)"),
        dict(measure="FLOPs per token", part="rest", value=9, label="everything else"),
    ])
    share = _check(static.cost_share_figure(parts), "cost_share")
    for _, alt, svg in share.images:
        assert {"25.0%", "10.0%"} <= set(_texts(svg)) and "Parameters: 25.0%" in alt
    reals = pd.concat([pd.DataFrame([dict(name=r.name, size=r.size, kind="published") for r in REAL_VOCABS]),
                       pd.DataFrame([dict(name="chosen above", size=629, kind="yours")])], ignore_index=True)
    real = _check(static.real_vocab_figure(reals), "real_vocab")
    for _, alt, svg in real.images:
        texts = _texts(svg)
        for r in REAL_VOCABS:  # every model's name and exact size, as the tooltip gave
            assert r.name in texts and f"{r.size:,}" in texts
        assert "chosen above" in texts and "629" in texts


def test_truncation_figures_mark_real_models_and_every_size():
    sizes = [256, 512, 1024, 199_998]
    table = pd.DataFrame([dict(size=s, code=c, language=lang, tokens=100, chars=300, chars_per_token=1 + i / 2)
                          for i, s in enumerate(sizes)
                          for c, lang in (("en", "English"), ("hi", "Hindi"), ("all", "all"))])
    marks = pd.DataFrame([dict(size=50_257, label="GPT-2")])
    fig = _check(static.truncation_figure(table, marks), "truncated")
    for _, alt, svg in fig.images:
        texts = _texts(svg)
        assert {"English", "Hindi", "all ten together", "GPT-2 (50,257)", "256", "1K"} <= set(texts)
        assert "GPT-2 50,257" in alt
    cost = pd.DataFrame([dict(size=s, embedding_params=s * 768, output_flops=2 * s * 768) for s in sizes])
    fig = _check(static.truncation_cost_figure(cost, marks, model="d = 768, tied"), "truncated_cost")
    for _, alt, svg in fig.images:
        assert {"What those sizes cost", "d = 768, tied", "Embedding parameters"} <= set(_texts(svg))
        assert f"{199_998 * 768:,}" in alt


def test_scales_and_ticks():
    assert Scale(0, 10, 100, 200)(5) == 150
    assert Scale(1, 100, 0, 100, "log")(10) == pytest.approx(50)
    assert Scale(0, 99, 0, 100, "symlog")(9) == pytest.approx(50)
    assert nice_ticks(256, 1002, 8) == [200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100]
    assert all(len(line) <= 20 for line in wrap("a phrase " * 10, 200, 16))


def test_the_css_shows_the_narrow_picture_in_a_narrow_column():
    # one rule as specific as the default one, else the narrow picture never shows
    assert re.search(r"@container \(max-width: \d+px\) \{ \.vc-chart img\.vc-wide \{ display: none; \} "
                     r"\.vc-chart img\.vc-narrow \{ display: block; \}", static.STATIC_CSS)


def test_no_label_starts_left_of_the_picture():
    """A centred tick label at the plot's left edge (the cost share's 0%) is written from its
    tick instead, so the narrow picture does not cut it."""
    parts = pd.DataFrame([dict(measure="Parameters", part=p, value=v, label=p) for p, v in (("vocabulary", 1),
                                                                                             ("rest", 3))])
    for _, _, svg in _Figure(static.cost_share_figure(parts)).images:
        doc = xml.dom.minidom.parseString(svg)
        for t in doc.getElementsByTagName("text"):
            if t.getAttribute("text-anchor") == "middle":
                text = "".join(n.data for n in t.childNodes if n.nodeType == n.TEXT_NODE)
                half = len(text) * 0.72 * float(t.getAttribute("font-size")) / 2  # digits and % are wide
                assert float(t.getAttribute("x")) - half >= 0, text


def test_both_drawings_of_a_picture_load_lazily():
    """Wide and narrow copies carry loading="lazy": the browser skips the copy CSS hides
    and the pictures below the screen on a first load."""
    figure = static.cost_share_figure(pd.DataFrame([
        dict(measure="Parameters", part="vocabulary", value=10, label="embedding matrices"),
        dict(measure="Parameters", part="rest", value=90, label="everything else"),
        dict(measure="FLOPs per token", part="vocabulary", value=20, label="output layer (2dV)"),
        dict(measure="FLOPs per token", part="rest", value=80, label="everything else"),
    ]))
    assert figure.count("<img ") == 2 and figure.count('loading="lazy"') == 2


def test_no_real_model_rule_crosses_a_name():
    """The names of real models' sizes sit on rows of their own above the curves, each
    ending at its dotted rule. A name reaches left over smaller sizes, so those sizes'
    rules must start below its row ("Mi¦stral 7B" was crossed by the rules under it)."""
    sizes = [256, 1024, 32_768, 262_144]
    table = pd.DataFrame([dict(size=s, code=c, language=lang, tokens=100, chars=300, chars_per_token=2.0)
                          for s in sizes for c, lang in (("en", "English"), ("all", "all"))])
    marks = pd.DataFrame([dict(size=s, label=n) for s, n in ((32_000, "Mistral 7B"), (50_257, "GPT-2"),
                                                            (100_277, "GPT-4 · cl100k"), (200_019, "GPT-4o · o200k"))])
    for markup in (static.truncation_figure(table, marks),
                   static.truncation_cost_figure(pd.DataFrame([dict(size=s, embedding_params=s, output_flops=2 * s)
                                                               for s in sizes]), marks, model="m")):
        for _, _, svg in _Figure(markup).images:
            doc = xml.dom.minidom.parseString(svg)
            rules = [(float(ln.getAttribute("x1")), min(float(ln.getAttribute("y1")), float(ln.getAttribute("y2"))))
                     for ln in doc.getElementsByTagName("line") if ln.getAttribute("stroke-dasharray") == "2 3"]
            names = [t for t in doc.getElementsByTagName("text")
                     if t.getAttribute("text-anchor") == "end" and "(" in "".join(n.data for n in t.childNodes
                                                                                  if n.nodeType == n.TEXT_NODE)]
            assert len(rules) == len(names) == 4
            for t in names:
                right, baseline = float(t.getAttribute("x")), float(t.getAttribute("y"))
                size = float(t.getAttribute("font-size"))
                text = "".join(n.data for n in t.childNodes if n.nodeType == n.TEXT_NODE)
                left = right - len(text) * 0.6 * size
                for x, y_top in rules:
                    if left < x < right:  # a rule under the name's span starts below its row
                        assert y_top > baseline - 2, (text, x, y_top, baseline)
