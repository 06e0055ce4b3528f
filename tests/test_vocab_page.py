"""The Vocabulary size page under AppTest: every control, with and without a session run.

Each test opens the app, switches to views/vocab_size.py and drives one control by its
widget key, then checks what the page shows. Built-in runs are cached per process
(st.cache_resource), so only the first test pays for training.
"""
import html
import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from bpe_core import TrainerSettings, WordTable, train
from ui.vocab.cost_tab import FORMULAS_KEY, REAL_SIZES_KEY
from ui.vocab.curves_tab import WHY_CURVES_KEY, WHY_CURVES_LABEL

APP = "../app.py"
PAGE = "views/vocab_size.py"
#: the page's three tabs (views/vocab_size.py TABS), opened with ?section=<label>
TABS = ("1. Sequence length", "2. What it costs", "3. Ten languages")
#: each tab's charts in order: 1 the curves; 2 cost share, real vocabularies, o200k cut to
#: k ranks, what those sizes cost; 3 tokens per language, ratio to English
CHARTS = {1: 1, 2: 4, 3: 2}  # tab 2's last two once "At real sizes" is opened
TRUNC, TRUNC_COST, LANG_TOKENS = 2, 3, 0


def _open(*, interactive: bool = True, tab: int = 1, **state) -> AppTest:
    """The page after one run, at tab `tab` (1 to 3). `interactive`: 'Charts' is set to
    interactive, so the charts are Vega-Lite specs these tests can read (a first visit
    draws pictures: test_a_first_visit_draws_pictures_and_loads_no_charting_library)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["vocab.interactive"] = interactive
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    if tab != 1:
        at.query_params["section"] = TABS[tab - 1]
    if tab == 2 and REAL_SIZES_KEY not in state:
        at.session_state[REAL_SIZES_KEY] = True  # "At real sizes" opened, as a reader would
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def _tab(at: AppTest, tab: int) -> AppTest:
    """Open tab 2 or 3, as a link with ?section= does (AppTest cannot click a tab, and a
    bound tab ignores a link back to the first: open the page again for tab 1)."""
    assert tab != 1
    at.query_params["section"] = TABS[tab - 1]
    return _ok(at.run())


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, at.exception
    return at


#: one figure of the page's figure rows (ui/vocab/blocks.py stats_html): label, value
FIGURE = re.compile(r'<div class="vc-figure-label">(.*?)</div><div class="vc-figure-value">(.*?)</div>')


def _figures_shown(at: AppTest) -> dict[str, str]:
    """Every figure of the page's figure rows (what st.metric showed), label -> value."""
    return {html.unescape(label): html.unescape(value)
            for block in at.html for label, value in FIGURE.findall(block.value)}


def _metric(at: AppTest, label: str) -> str:
    return _figures_shown(at)[label]


def _open_calculator(at: AppTest) -> AppTest:
    """Open "Change the model" (its inputs are drawn only while it is open)."""
    at.session_state["vocab_w_cost_inputs"] = True
    at.run()
    return _ok(at)


def _specs(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]


def _markdown(at: AppTest) -> str:
    """The page's prose: markdown and captions, and the text of its HTML blocks (tags
    dropped, entities read), where most of it is written now."""
    blocks = [re.sub(r"<[^>]+>", "", h.value) for h in at.html if not h.value.lstrip().startswith("<script")]
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption]
                     + [html.unescape(b) for b in blocks])


def _headings(at: AppTest, tag: str) -> list[str]:
    """The text of every <tag> heading in the page's HTML blocks (ui/vocab/blocks.py heading_html)."""
    return [html.unescape(t) for h in at.html for t in re.findall(rf"<{tag}[^>]*>(.*?)</{tag}>", h.value)]


def _rows(at: AppTest, index: int) -> list[dict]:
    """Every data row of chart `index` (Streamlit ships chart data as Arrow)."""
    import pyarrow as pa

    rows = []
    for dataset in at.get("vega_lite_chart")[index].proto.datasets:
        rows.extend(pa.ipc.open_stream(dataset.data.data).read_all().to_pylist())
    return rows


def _chosen_rule_value(at: AppTest) -> int:
    """The vocabulary size drawn as the dashed 'chosen' rule on the curves chart."""
    params = {p["name"]: p for p in _specs(at)[0]["params"]}
    return params["chosen"]["value"]


def test_default_page_shows_every_section_and_chart():
    at = _open()
    assert at.title[0].value == "Vocabulary size: what it buys, what it costs"
    assert [t.label for t in at.tabs] == list(TABS)
    assert _headings(at, "h2") == ["1. Sequence length against vocabulary size"]  # only the open tab
    specs = _specs(at)
    assert len(specs) == CHARTS[1]
    assert "vconcat" in specs[0] and {p["name"] for p in specs[0]["params"]} == {"pick", "hover", "chosen"}
    assert at.radio(key="vocab_w_source").value == "english"
    slider = at.slider(key="vocab_w_chosen")
    assert slider.min == 256 and slider.value > 256
    assert _metric(at, "Vocabulary size") == f"{slider.value:,}"
    assert _chosen_rule_value(at) == slider.value
    assert "held-out 20%" in _markdown(at)
    # the explanations are folded: drawn once their box is opened
    assert WHY_CURVES_LABEL in [e.label for e in at.expander]
    assert "the number of places it merges" not in _markdown(at)
    at.session_state[WHY_CURVES_KEY] = True
    text = _markdown(_ok(at.run()))
    assert "the number of places it merges" in text and "counted twice" in text
    tables = "\n".join(h.value for h in at.html)  # the accounting table is static HTML
    assert "<strong>= vocabulary size</strong>" in tables and "<strong>= tokens the corpus uses</strong>" in tables
    at.session_state[REAL_SIZES_KEY] = True  # "At real sizes" opened: tab 2's last two charts
    for tab, heading in ((2, "2. What the vocabulary costs a model"), (3, "3. The same text in ten languages")):
        _tab(at, tab)
        assert _headings(at, "h2") == [heading]
        assert len(_specs(at)) == CHARTS[tab]
    at = _open(tab=2)
    assert "Output layer&#x27;s share" not in "\n".join(h.value for h in at.html)  # the formulas are folded
    at.session_state[FORMULAS_KEY] = True
    assert "Output layer&#x27;s share" in "\n".join(h.value for h in _ok(at.run()).html)


def test_vocab_slider_moves_metrics_chart_rule_and_calculator():
    at = _open()
    at.slider(key="vocab_w_chosen").set_value(400).run()
    _ok(at)
    assert _metric(at, "Vocabulary size") == "400"
    assert _chosen_rule_value(at) == 400
    # the calculator follows the chart's vocabulary: 400 x 768, tied
    _tab(at, 2)
    _open_calculator(at)
    assert at.number_input(key="vocab_w_cost_vocab").value == 400
    assert at.number_input(key="vocab_w_cost_vocab").proto.disabled
    assert _metric(at, "Embedding parameters") == f"{400 * 768:,}"
    # and so does the languages chart's own tokenizer
    _tab(at, 3)
    tokenizers = {row["tokenizer"] for row in _rows(at, LANG_TOKENS)}
    assert "English sample run (bytes), V = 400" in tokenizers
    # at the smallest size there are no merges: one token per byte of the training text
    at = _open()
    at.slider(key="vocab_w_chosen").set_value(256).run()
    _ok(at)
    assert _metric(at, "Bytes per token, training text") == "1.00"


def test_merges_and_units_radios_retrain():
    at = _open()
    at.radio(key="vocab_w_merges").set_value(250).run()
    _ok(at)
    assert at.slider(key="vocab_w_chosen").max == 256 + 250
    at.radio(key="vocab_w_units").set_value("char").run()
    _ok(at)
    slider = at.slider(key="vocab_w_chosen")
    assert slider.min < 256  # each distinct character, not all 256 bytes
    assert slider.max == slider.min + 250
    assert "Characters per token, training text" in _figures_shown(at)
    at.session_state[WHY_CURVES_KEY] = True
    assert "each distinct character" in "\n".join(h.value for h in _ok(at.run()).html)  # the accounting table


def test_python_reference_source_trains_with_a_progress_bar_and_shows_overlaps():
    at = _open(**{"vocab.merges.python": 500, WHY_CURVES_KEY: True})
    at.radio(key="vocab_w_source").set_value("python").run()
    _ok(at)
    assert at.slider(key="vocab_w_chosen").max == 256 + 500
    text = _markdown(at)
    assert "merges overlapped" in text  # runs of spaces: count > places merged
    assert "Python reference: the held-out 10%" in text
    assert "English sample (another kind of text)" in text


@pytest.mark.parametrize("preset, embedding, share", [
    ("llama3_8b", "1,050,673,152", "6.5%"),
    ("qwen3_0_6b", "155,582,464", "25.9%"),
    ("d8192_70b", "2,489,319,424", "1.8%"),
    ("gpt2_small", "38,597,376", "31.0%"),
])
def test_cost_presets_reproduce_published_figures(preset, embedding, share):
    at = _open(tab=2)
    at.radio(key="vocab_w_cost_preset").set_value(preset).run()
    _ok(at)
    assert _metric(at, "Embedding parameters") == embedding
    assert _metric(at, "Share of the forward pass") == share
    _open_calculator(at)
    assert not at.number_input(key="vocab_w_cost_vocab").proto.disabled
    text = _markdown(at)
    assert "Published figures" in text and "✗" not in text and text.count("✓") >= 1


def test_doubling_preset_compares_two_vocabulary_sizes():
    at = _open(tab=2)
    at.radio(key="vocab_w_cost_preset").set_value("double_v").run()
    _open_calculator(at)
    assert at.number_input(key="vocab_w_cost_compare").value == 128_000
    assert "524,288,000 more parameters" in _markdown(at)
    assert "(about 524M)" in _markdown(at)


def test_cost_inputs_each_change_the_result():
    at = _open(tab=2)
    at.radio(key="vocab_w_cost_preset").set_value("llama3_8b").run()
    _open_calculator(at)
    at.radio(key="vocab_w_cost_tied").set_value("tied").run()
    _ok(at)
    assert _metric(at, "Embedding parameters") == "525,336,576"
    at.radio(key="vocab_w_cost_precision").set_value("int4").run()
    _ok(at)
    assert _metric(at, "Their memory at int4") == "263 MB"
    at.number_input(key="vocab_w_cost_hidden").set_value(2048).run()
    _ok(at)
    assert _metric(at, "Embedding parameters") == f"{128_256 * 2048:,}"
    at.number_input(key="vocab_w_cost_vocab").set_value(32_000).run()
    _ok(at)
    assert _metric(at, "Output-layer FLOPs per token") == f"{2 * 2048 * 32_000:,}"
    at.number_input(key="vocab_w_cost_total").set_value(1_000_000_000).run()
    _ok(at)
    assert _metric(at, "Share of the forward pass") == f"{2048 * 32_000 / 1e9:.1%}"
    at.number_input(key="vocab_w_cost_compare").set_value(64_000).run()
    _ok(at)
    assert f"{32_000 * 2048:,} more parameters" in _markdown(at)
    assert "You have changed the Llama 3 8B figures" in _markdown(at)
    # back to the chart's vocabulary: V follows the slider again
    at.radio(key="vocab_w_cost_preset").set_value("chart").run()
    _ok(at)
    assert at.number_input(key="vocab_w_cost_vocab").value == at.slider(key="vocab_w_chosen").value


def test_a_first_visit_draws_no_calculator_input_and_no_metric():
    """The calculator's six inputs are drawn only once "Change the model" is opened (a
    first load then fetches no number-input script); the figures are HTML, not
    st.metric; "Start from" and the results are drawn folded or not."""
    at = _open(interactive=False, tab=2)
    keys = {w.key for w in list(at.number_input) + list(at.radio)}
    assert {k for k in keys if k and k.startswith("vocab_w_cost_")} == {"vocab_w_cost_preset"}  # "Start from"
    assert len(at.metric) == 0
    assert "Change the model: V, d, N, tied, precision, compare" in [e.label for e in at.expander]
    assert at.radio(key="vocab_w_cost_preset").value == "chart"
    vocab = at.slider(key="vocab_w_chosen").value
    assert f"V = {vocab:,} · d = 768 · N = 124,439,808" in _markdown(at)
    assert _metric(at, "Embedding parameters") == f"{vocab * 768:,}"
    assert "Changed from the preset" not in _markdown(at)
    _open_calculator(at)
    assert at.number_input(key="vocab_w_cost_hidden").value == 768
    assert at.radio(key="vocab_w_cost_precision").value == "bf16"


def test_a_calculator_value_changed_then_folded_is_kept_and_said():
    """d changed, the box folded: the results, the caption and the real-sizes chart keep
    the new d, a note says it differs from the preset; reopened, the input shows it;
    "Back to the preset's values" undoes it."""
    at = _open(tab=2)
    vocab = at.slider(key="vocab_w_chosen").value
    _open_calculator(at)
    at.number_input(key="vocab_w_cost_hidden").set_value(1024).run()
    at.radio(key="vocab_w_cost_precision").set_value("int4").run()
    _ok(at)
    at.session_state["vocab_w_cost_inputs"] = False  # fold it
    at.run()
    _ok(at)
    assert not [w for w in at.number_input if w.key == "vocab_w_cost_hidden"]
    assert _metric(at, "Embedding parameters") == f"{vocab * 1024:,}"
    assert "Their memory at int4" in _figures_shown(at)
    text = _markdown(at)
    assert f"V = {vocab:,} · d = 1,024 · N = 124,439,808 (≈ 124M) · tied · int4" in text
    assert "Changed from the preset: d 768 → 1,024, precision bf16 → int4. Open “Change the model”" in text
    assert "d = 1,024, tied" in json.dumps(_specs(at)[TRUNC_COST]["title"])  # the real sizes follow too
    # the slider still drives V while folded
    at.slider(key="vocab_w_chosen").set_value(400).run()
    assert _metric(_ok(at), "Embedding parameters") == f"{400 * 1024:,}"
    _open_calculator(at)
    assert at.number_input(key="vocab_w_cost_hidden").value == 1024
    assert at.radio(key="vocab_w_cost_precision").value == "int4"
    at.button(key="vocab_w_cost_reset").click().run()
    _ok(at)
    assert at.number_input(key="vocab_w_cost_hidden").value == 768
    assert _metric(at, "Embedding parameters") == f"{400 * 768:,}"
    assert "Changed from the preset" not in _markdown(at)


def test_the_figures_show_the_run_s_numbers_with_arrows_and_signs():
    """The curves' four figures: the corpus length at the chosen size and how much it
    shrank (▼ and a minus sign, "better" for a screen reader, not colour alone), as the
    curve's own data say; the held-out gap; each help line."""
    at = _open()
    vocab = at.slider(key="vocab_w_chosen").value
    block = next(h.value for h in at.html if 'aria-label="At vocabulary size' in h.value)
    assert f'aria-label="At vocabulary size {vocab:,}"' in block
    lengths = {row["vocab_size"]: row["corpus_length"] for row in _rows(at, 0)
               if "corpus_length" in row and "vocab_size" in row}
    shown = _figures_shown(at)
    assert shown["Training corpus"] == f"{lengths[vocab]:,} tokens"
    shrink = lengths[vocab] - lengths[min(lengths)]
    assert shrink < 0
    assert (f'<div class="vc-delta vc-good"><span aria-hidden="true">▼ </span>−{-shrink:,} vs no merges'
            '<span class="vc-sr"> (better)</span></div>') in block
    assert f"256 base symbols + {vocab - 256:,} merges" in block
    assert "Bytes per token, held out" in shown
    assert re.search(r"[−+]\d\.\d\d vs training", block) and "tokens at this size" in block


def test_the_quiz_is_folded_and_keeps_its_answer():
    """The quiz question is drawn only once its box is opened (a first load then draws no
    number input at all); an answer survives folding the box and a visit to another
    page, where the box opens by itself."""
    at = _open(interactive=False, tab=2)
    assert len(at.number_input) == 0
    assert "Check your understanding: how many parameters does doubling V add?" in [e.label for e in at.expander]
    at.session_state["quiz_w_open_double_vocab"] = True
    at.run()
    answer = _ok(at).number_input(key="quirks_w_quiz_double_vocab")
    answer.set_value(524).run()
    assert any(s.value.startswith("Right") for s in _ok(at).success)
    at.session_state["quiz_w_open_double_vocab"] = False
    at.run()
    assert len(_ok(at).number_input) == 0
    at.session_state["quiz_w_open_double_vocab"] = True
    at.run()
    assert _ok(at).number_input(key="quirks_w_quiz_double_vocab").value == 524
    at.switch_page("views/home.py").run()
    at.switch_page(PAGE).run()
    _tab(at, 2)
    assert _ok(at).number_input(key="quirks_w_quiz_double_vocab").value == 524
    assert any(s.value.startswith("Right") for s in at.success)


def test_settings_survive_a_visit_to_another_page():
    at = _open(tab=2)
    at.slider(key="vocab_w_chosen").set_value(333).run()
    at.radio(key="vocab_w_cost_preset").set_value("gpt2_small").run()
    at.switch_page("views/home.py").run()
    at.switch_page(PAGE).run()
    _tab(at, 2)
    assert at.slider(key="vocab_w_chosen").value == 333
    assert at.radio(key="vocab_w_cost_preset").value == "gpt2_small"
    assert _metric(at, "Embedding parameters") == "38,597,376"


def test_languages_section_counts_all_tokenizers():
    at = _open(tab=3)
    tokenizers = {row["tokenizer"] for row in _rows(at, LANG_TOKENS)}
    assert {"GPT-2 (50K)", "GPT-4 cl100k (100K)", "GPT-4o o200k (200K)"} <= tokenizers
    assert any(t.startswith("English sample run (bytes), V = ") for t in tokenizers)
    languages = {row["language"] for row in _rows(at, LANG_TOKENS)}
    assert len(languages) == 10
    assert "byte-level fallback" in _markdown(at)


@pytest.fixture(scope="module")
def session_state():
    """What the Train page publishes: a char-level run on Sennrich's toy corpus."""
    run = train(WordTable.from_word_counts("low 5\nlower 2\nnewest 6\nwidest 3"),
                TrainerSettings(end_of_word="separate", merges=10))
    return {"shared.run": run, "shared.step": 4, "shared.label": "Sennrich toy corpus"}


def test_session_run_is_the_default_source(session_state):
    at = _open(**session_state, **{WHY_CURVES_KEY: True})
    assert at.radio(key="vocab_w_source").value == "session"
    run = session_state["shared.run"]
    slider = at.slider(key="vocab_w_chosen")
    assert (slider.min, slider.max) == (run.base_size, run.vocab_size(10))
    assert slider.value == run.vocab_size(4)  # the Train page's step
    text = _markdown(at)
    assert "English sample" in text and "Python reference" in text  # held-out texts
    assert "characters per token starts below 1" in text  # the </w> markers are tokens
    assert "Characters per token, training text" in _figures_shown(at)
    # the char-level vocabulary does not know most characters of the other languages
    _tab(at, 3)
    infos = "\n".join(i.value for i in at.info)
    assert "has never seen some characters" in infos and "Russian" in infos


def test_builtin_source_with_a_session_run_also_shows_the_train_page_tokenizer(session_state):
    at = _open(**session_state, tab=3)
    at.radio(key="vocab_w_source").set_value("english").run()
    _ok(at)
    tokenizers = {row["tokenizer"] for row in _rows(at, LANG_TOKENS)}
    assert any(t.startswith("Train page tokenizer, V = ") for t in tokenizers)


def test_session_run_without_merges_says_so():
    run = train(WordTable.from_word_counts("low 5"), TrainerSettings(merges=0))
    at = _open(**{"shared.run": run, "shared.step": 0, "shared.label": "empty"})
    assert "has no merges yet" in at.warning[0].value


def test_session_run_without_pre_tokenizer_stays_quick():
    """The Wikipedia example trains with pre-tokenizer `none`: held-out text is encoded
    line by line, so the page does not run BPE over 12 kB as one piece."""
    run = train(WordTable.from_text("aaabdaaabac", "none"), TrainerSettings(merges=3, tie_break="smallest-id"))
    at = _open(**{"shared.run": run, "shared.step": 3, "shared.label": "Wikipedia: aaabdaaabac"})
    assert at.slider(key="vocab_w_chosen").max == run.vocab_size(3)
    assert "English sample" in _markdown(at)


def test_real_sizes_section_draws_o200k_cut_to_each_power_of_two():
    at = _open(tab=2)
    rows = [row for row in _rows(at, TRUNC) if "code" in row]  # not the real models' marks
    marks = {row["label"]: row["size"] for row in _rows(at, TRUNC) if "label" in row}
    assert marks["GPT-2"] == 50_257
    assert next(size for label, size in marks.items() if "Llama 3" in label) == 128_256
    sizes = sorted({row["size"] for row in rows})
    assert sizes[:-1] == [2**e for e in range(8, 18)] and sizes[-1] == 199_998  # o200k's ranks, whole
    every = {row["size"]: row for row in rows if row["code"] == "all"}
    assert every[256]["tokens"] == sum(len(t.encode("utf-8")) for t in _language_texts().values())
    assert "At real sizes: o200k cut to its first k tokens" in _headings(at, "h3")
    text = _markdown(at)
    assert "first k ranks of a real tokenizer" in text and "shrink the most" in text


def test_real_sizes_cost_follows_the_calculator():
    at = _open(tab=2)
    params = [row["amount"] for row in _rows(at, TRUNC_COST)
              if row.get("size") == 65_536 and row.get("measure") == "Embedding parameters"]
    assert params == [65_536 * 768]  # the calculator's default: GPT-2 small's width, tied
    at.radio(key="vocab_w_cost_preset").set_value("llama3_8b").run()
    _ok(at)
    params = [row["amount"] for row in _rows(at, TRUNC_COST)
              if row.get("size") == 65_536 and row.get("measure") == "Embedding parameters"]
    assert params == [2 * 65_536 * 4096]  # Llama 3 8B: d = 4,096, untied
    assert "d = 4,096, untied" in json.dumps(_specs(at)[TRUNC_COST]["title"])


def _language_texts():
    from ui.vocab.sources import language_texts

    return language_texts()


def test_the_tables_are_drawn_only_once_their_expander_opens():
    """A first visit draws no data table (they cost the browser more than the charts);
    opening an expander draws its table."""
    at = _open(tab=3)
    labels = [e.label for e in at.expander]
    assert "Exact numbers" in labels and "The ten texts" in labels
    assert len(at.dataframe) == 0 and not any("English" == m.value.strip("*") for m in at.markdown)
    at.session_state["vocab_w_lang_table"] = True
    at.run()
    assert len(_ok(at).dataframe) == 1
    at.session_state["vocab_w_lang_texts"] = True
    at.run()
    assert any(m.value == "**English** (Latin)" for m in _ok(at).markdown)


def _figures(at: AppTest) -> dict[str, str]:
    """The static charts (ui/vocab/static.py) by name, from the page's st.html blocks."""
    import re

    out = {}
    for block in at.html:
        for name in re.findall(r'<figure class="vc-chart" data-chart="(\w+)"', block.value):
            out[name] = block.value
    return out


def test_a_slider_move_with_pictures_builds_no_pandas_frame(monkeypatch):
    """A slider move reads the curve, the held-out texts and the ten languages off what
    the run keeps (per-run lists and counts) and draws the pictures from plain rows: it
    builds no pandas DataFrame, which cost the move more than the drawing did (the page
    run took ~75 ms with them, ~27 ms without; bench/README.md). The page still shows the
    new size."""
    import pandas as pd

    at = _open(interactive=False)
    slider = at.slider(key="vocab_w_chosen")
    start = slider.value
    slider.set_value(start + 1).run()  # the first move may fill per-run caches
    built = []
    real_init = pd.DataFrame.__init__

    def counting_init(self, *args, **kwargs):
        built.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "__init__", counting_init)
    _ok(at.slider(key="vocab_w_chosen").set_value(start + 2).run())
    assert built == []
    assert _figures_shown(at)["Vocabulary size"] == f"{start + 2:,}"


def test_a_first_visit_draws_pictures_and_loads_no_charting_library():
    """By default every chart is a static picture (st.html), so the browser loads no Vega;
    'Charts: interactive' brings back the interactive charts, and the pictures follow the slider."""
    at = _open(interactive=False)
    assert at.radio(key="vocab_w_interactive").value is False
    assert len(at.get("vega_lite_chart")) == 0
    assert list(_figures(at)) == ["curves"]
    slider = at.slider(key="vocab_w_chosen")
    assert f"At vocabulary size {slider.value:,}:" in _figures(at)["curves"]
    at.slider(key="vocab_w_chosen").set_value(400).run()
    assert "At vocabulary size 400:" in _figures(_ok(at))["curves"]
    assert list(_figures(_tab(at, 2))) == ["cost_share", "real_vocab"]  # "At real sizes" is folded
    at.session_state[REAL_SIZES_KEY] = True
    assert list(_figures(_ok(at.run()))) == ["cost_share", "real_vocab", "truncated", "truncated_cost"]
    figures = _figures(_tab(at, 3))
    assert list(figures) == ["language_tokens", "language_ratio"]
    assert "English sample run (bytes), V = 400" in figures["language_tokens"]  # in its alt text
    at.radio(key="vocab_w_interactive").set_value(True).run()
    assert len(_ok(at).get("vega_lite_chart")) == CHARTS[3] and not _figures(at)
    at = _open(interactive=True)
    assert len(at.get("vega_lite_chart")) == CHARTS[1]
