"""The Vocabulary size page's numbers and charts, without Streamlit.

The curve of training-corpus length against vocabulary size is read off the merge
events (one training run, no retraining); here it must equal re-encoding the training
corpus with the first k merges, at sampled k. Chart specs are checked through
`chart.to_dict()`: titles, worded axis titles, the linked selection parameters,
tooltips with exact-number formats, and thinning of long curves.
"""
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from bpe_core import TrainerSettings, WordTable, train
from ui.vocab.model_cost import REAL_VOCABS
from ui.vocab.charts import (
    CHOSEN,
    HOVER,
    MAX_POINTS,
    PICK,
    cost_share_chart,
    curves_chart,
    display_height,
    language_ratio_chart,
    language_tokens_chart,
    picked_vocab,
    real_vocab_chart,
    set_param,
)
from ui.vocab.curves import (
    base_retirements,
    corpus_units,
    count_tokens,
    held_out_curve,
    held_out_steps,
    language_table,
    length_by_reencoding,
    overlapping_merges,
    sample_steps,
    split_text,
    step_for_vocab,
    training_curve,
    vocab_accounting,
)

ROOT = Path(__file__).resolve().parent.parent
ENGLISH = (ROOT / "corpora" / "english_sample.txt").read_text(encoding="utf-8")
TRAIN_TEXT, HELD_TEXT = split_text(ENGLISH, 0.8)


@pytest.fixture(scope="module")
def byte_run():
    return train(WordTable.from_text(TRAIN_TEXT, "gpt2"), TrainerSettings(units="byte", merges=None, top_n=0))


@pytest.fixture(scope="module")
def char_run():
    return train(WordTable.from_text(TRAIN_TEXT, "gpt2"), TrainerSettings(units="char", merges=400, top_n=0))


@pytest.fixture(scope="module")
def toy_run():
    """Sennrich's toy corpus, separate end-of-word marker: markers count as tokens."""
    return train(WordTable.from_word_counts("low 5\nlower 2\nnewest 6\nwidest 3"),
                 TrainerSettings(end_of_word="separate", merges=None))


@pytest.fixture(scope="module")
def python_run():
    from pydoc_data import topics

    text = "\n".join(topics.topics.values())[:60_000]
    return train(WordTable.from_text(text, "gpt2"), TrainerSettings(units="byte", merges=800, top_n=0))


# ---- the curve from events equals re-encoding ----------------------------------------------
@pytest.mark.parametrize("name", ["byte_run", "char_run", "toy_run", "python_run"])
def test_curve_from_events_equals_replaying_the_merges(name, request):
    run = request.getfixturevalue(name)
    curve = training_curve(run)
    assert len(curve) == run.steps + 1
    for k in sample_steps(run.steps, 12):
        assert curve.loc[k, "corpus_length"] == length_by_reencoding(run, k), k
        assert curve.loc[k, "vocab_size"] == run.vocab_size(k)
        assert curve.loc[k, "tokens_in_use"] == run.tokens_in_use(k)


@pytest.mark.parametrize("name", ["byte_run", "char_run", "python_run"])
def test_curve_from_events_equals_encoding_the_training_text(name, request):
    """The word table came from the training text, so encoding the text with the first
    k merges gives exactly the corpus length after step k."""
    from pydoc_data import topics

    run = request.getfixturevalue(name)
    text = "\n".join(topics.topics.values())[:60_000] if name == "python_run" else TRAIN_TEXT
    curve = training_curve(run)
    for k in sample_steps(run.steps, 6):
        assert len(run.tokenizer(k, special_tokens={}).encode(text)) == curve.loc[k, "corpus_length"], k


@pytest.mark.parametrize("name", ["byte_run", "toy_run", "python_run"])
def test_each_merge_shortens_the_corpus_by_its_merged_occurrences(name, request):
    run = request.getfixturevalue(name)
    before = run.initial_corpus_length
    for ev in run.events:
        assert before - ev.corpus_length == ev.merged_occurrences
        assert ev.merged_occurrences <= ev.count
        before = ev.corpus_length


def test_a_pair_that_overlaps_itself_merges_fewer_places_than_its_count():
    """'a a a': the pair (a, a) is counted twice, but only one merge fits."""
    run = train(WordTable.from_word_counts("aaa 1"), TrainerSettings(merges=1))
    ev = run.events[0]
    assert (ev.pair_text, ev.count, ev.merged_occurrences) == (("a", "a"), 2, 1)
    assert run.corpus_length(1) == 2  # aa a
    assert overlapping_merges(run).values.tolist() == [[1, "aa", 2, 1]]


def test_python_reference_has_overlapping_merges(python_run):
    """Runs of spaces and dashes: the page quotes the first such merge."""
    overlaps = overlapping_merges(python_run)
    assert len(overlaps) > 0
    assert (overlaps["merged"] < overlaps["count"]).all()


def test_units_per_token_uses_text_units_not_markers(toy_run):
    curve = training_curve(toy_run)
    units = corpus_units(toy_run)
    assert units == 5 * 3 + 2 * 5 + 6 * 6 + 3 * 6
    # 16 words, each with an end-of-word marker symbol: step 0 has units + 16 tokens
    assert curve.loc[0, "corpus_length"] == units + 16
    assert curve.loc[0, "units_per_token"] == pytest.approx(units / (units + 16))


def test_bytes_per_token_grows_with_merges(byte_run):
    curve = training_curve(byte_run)
    assert curve.loc[0, "units_per_token"] == pytest.approx(1.0)
    assert curve["units_per_token"].is_monotonic_increasing
    assert curve["corpus_length"].is_monotonic_decreasing


# ---- vocabulary size vs base + merges, tokens in use ------------------------------------------
@pytest.mark.parametrize("name", ["byte_run", "char_run", "toy_run"])
def test_vocabulary_accounting_adds_up(name, request):
    run = request.getfixturevalue(name)
    for k in sample_steps(run.steps, 10):
        a = vocab_accounting(run, k)
        assert a.vocab_size == a.base + a.merges - a.reused == run.vocab_size(k)
        assert a.in_use == a.vocab_size - a.never_used - a.retired_base - a.retired_merged == run.tokens_in_use(k)


def test_byte_vocabularies_keep_unused_bytes(byte_run):
    a = vocab_accounting(byte_run, 0)
    assert a.base == 256
    assert a.never_used == 256 - len(set(TRAIN_TEXT.encode()) - set(b"\n"[:0]))


def test_a_merge_that_recreates_a_token_is_counted_as_reused(toy_run):
    """The engine never re-creates a token on these corpora; a hand-edited event shows the
    accounting would count it."""
    events = list(toy_run.events)
    events[2] = replace(events[2], is_new_token=False)
    edited = replace(toy_run, events=tuple(events))
    assert vocab_accounting(edited, 3).reused == 1
    assert vocab_accounting(toy_run, 3).reused == 0


def test_base_retirements_are_where_base_symbols_stop_being_used(byte_run):
    retired = base_retirements(byte_run)
    assert len(retired) > 0
    curve = training_curve(byte_run)
    for row in retired.itertuples():
        ev = byte_run.events[row.step - 1]
        assert any(byte_run.displays[t] == row.symbol for t in ev.tokens_retired)
        # base symbols in use fall at exactly these steps
        assert curve.loc[row.step, "base_in_use"] < curve.loc[row.step - 1, "base_in_use"]
    assert curve["base_in_use"].iloc[-1] == byte_run.base_tokens_in_use - len(retired)


def test_step_for_vocab_round_trips(byte_run):
    for k in sample_steps(byte_run.steps, 20):
        assert step_for_vocab(byte_run, byte_run.vocab_size(k)) == k
    assert step_for_vocab(byte_run, 1) == 0
    assert step_for_vocab(byte_run, 10**9) == byte_run.steps


# ---- held-out text -----------------------------------------------------------------------------
def test_held_out_curve_encodes_with_the_first_k_merges(byte_run):
    steps = held_out_steps(byte_run)
    assert steps[0] == 0 and steps[-1] == byte_run.steps and len(steps) <= 13
    held = held_out_curve(byte_run, HELD_TEXT, steps, "held out")
    for row in held.itertuples():
        assert row.tokens == len(byte_run.tokenizer(row.step).encode(HELD_TEXT))
        assert row.vocab_size == byte_run.vocab_size(row.step)
    assert held.loc[0, "tokens"] == len(HELD_TEXT.encode())
    curve = training_curve(byte_run)
    # the gap: text the run never saw compresses less well at the end
    assert held["units_per_token"].iloc[-1] < curve["units_per_token"].iloc[-1]


def test_unknown_characters_are_counted_not_crashed_on(char_run):
    tok = char_run.tokenizer()
    with pytest.raises(ValueError):
        tok.encode("Ωmega")
    got = count_tokens(tok, "Ωmega ж")
    assert got.unknown == 2
    held = held_out_curve(char_run, "Привет, мир", [0, 10], "russian")
    assert (held["unknown"] > 0).all()


# ---- languages ---------------------------------------------------------------------------------
def test_language_table_ratios_are_relative_to_english(byte_run):
    texts = {"en": "The sky was grey.", "ru": "Небо было серым.", "zh": "天空灰蒙蒙的。"}
    table = language_table({"ours": byte_run.tokenizer()}, texts)
    assert list(table["code"]) == ["en", "ru", "zh"]
    assert table.loc[0, "ratio"] == 1.0
    en_tokens = table.loc[0, "tokens"]
    for row in table.itertuples():
        assert row.ratio == pytest.approx(row.tokens / en_tokens)
    zh = table.set_index("code").loc["zh"]
    assert zh.bytes_per_char == pytest.approx(len(texts["zh"].encode()) / len(texts["zh"]))


# ---- charts ---------------------------------------------------------------------------------------
def _walk(node):
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from _walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v)


def _titled_axes(spec):
    """Every x/y encoding that draws an axis has a title in words."""
    for node in _walk(spec):
        enc = node.get("encoding")
        if not isinstance(enc, dict):
            continue
        for channel in ("x", "y"):
            e = enc.get(channel)
            if isinstance(e, dict) and "field" in e and e.get("axis", {}) is not None and "title" in e:
                yield e["title"]


def _check_titles(spec, n_titles=1):
    titles = [n["title"]["text"] for n in _walk(spec) if isinstance(n.get("title"), dict) and "text" in n["title"]]
    assert len(titles) >= n_titles and all(len(t) > 10 for t in titles)
    axis_titles = list(_titled_axes(spec))
    assert axis_titles and all(t is None or (isinstance(t, str) and " " in t or t.isalpha()) for t in axis_titles)


@pytest.fixture(scope="module")
def curves_spec(byte_run):
    curve = training_curve(byte_run)
    held = held_out_curve(byte_run, HELD_TEXT, held_out_steps(byte_run), "held out")
    return curves_chart(curve, held, base_retirements(byte_run), chosen_vocab=600, unit="bytes").to_dict()


def test_curves_chart_has_three_titled_panels(curves_spec):
    assert len(curves_spec["vconcat"]) == 3
    _check_titles(curves_spec, 3)
    x_titles = {e["encoding"]["x"].get("title") for e in _walk(curves_spec)
                if isinstance(e.get("encoding"), dict) and isinstance(e["encoding"].get("x"), dict)}
    assert "Vocabulary size (tokens)" in x_titles
    y_titles = {t for t in _titled_axes(curves_spec)}
    assert {"Tokens in training corpus", "Bytes per token", "Tokens (logarithmic scale)"} <= y_titles


def test_curves_chart_links_one_selection_across_the_panels(curves_spec):
    params = {p["name"]: p for p in curves_spec["params"]}
    assert set(params) == {PICK, HOVER, CHOSEN}
    assert params[PICK]["select"] == {"type": "point", "fields": ["vocab_size"], "nearest": True, "on": "click"}
    assert params[HOVER]["select"]["on"] == "pointerover"
    panel_views = set()
    for panel in curves_spec["vconcat"]:
        names = {layer.get("name") for layer in panel["layer"] if layer.get("name")}
        assert names & set(params[HOVER]["views"]), "every panel catches the pointer"
        panel_views |= names
        # and every panel draws the hover rule filtered by the shared parameter
        assert any(t.get("filter") == {"param": HOVER, "empty": False}
                   for layer in panel["layer"] for t in layer.get("transform", []))
    assert len(panel_views) == 3


def test_curves_chart_marks_the_chosen_size_in_every_panel(curves_spec):
    """The dashed rule reads the `chosen` parameter, so moving the slider changes only
    that value (set_param), never the chart."""
    params = {p["name"]: p for p in curves_spec["params"]}
    assert params[CHOSEN]["value"] == 600
    for panel in curves_spec["vconcat"]:
        chosen = [layer for layer in panel["layer"] if layer.get("mark", {}).get("strokeDash") == [6, 4]
                  and layer["mark"]["type"] == "rule"]
        assert len(chosen) == 1
        assert {"calculate": CHOSEN, "as": "vocab_size"} in chosen[0]["transform"]
    moved = set_param(curves_spec, CHOSEN, 700)
    assert {p["name"]: p for p in moved["params"]}[CHOSEN]["value"] == 700
    assert params[CHOSEN]["value"] == 600  # the original is untouched
    with pytest.raises(ValueError, match="no parameter named 'nope'"):
        set_param(curves_spec, "nope", 1)


def test_curves_tooltips_give_exact_numbers(curves_spec):
    tips = [t for n in _walk(curves_spec) if isinstance(n.get("encoding"), dict)
            for t in (n["encoding"].get("tooltip") or []) if isinstance(t, dict)]
    formats = {t["field"]: t.get("format") for t in tips}
    assert formats["corpus_length"] == ",d"
    assert formats["vocab_size"] == ",d"
    assert formats["units_per_token"] == ",.3f"
    assert "merged_occurrences" in formats


def test_curves_chart_marks_base_symbols_stopping(curves_spec, byte_run):
    first = base_retirements(byte_run).iloc[0]
    texts = [row["label"] for data in curves_spec["datasets"].values() for row in data if "label" in row]
    assert f"first base symbol used up: '{first.symbol}' at {int(first.vocab_size):,}" in texts


def test_long_curves_are_thinned_but_keep_retirements():
    n = MAX_POINTS * 3
    curve = pd.DataFrame(dict(step=range(n + 1), vocab_size=range(256, 257 + n), corpus_length=range(10**6, 10**6 - n - 1, -1),
                              tokens_in_use=100, base_in_use=50, units_per_token=1.0, token="x", count=2,
                              merged_occurrences=2, is_new_token=True, retired=""))
    retired = pd.DataFrame(dict(step=[7], vocab_size=[263], symbol=["q"], token=["qu"], merge=["q + u"]))
    spec = curves_chart(curve, None, retired, chosen_vocab=300).to_dict()
    sizes = [len(rows) for rows in spec["datasets"].values()]
    assert max(sizes) <= 3 * (MAX_POINTS + 1)  # the long-form panel has three series
    steps = {row.get("step") for rows in spec["datasets"].values() for row in rows}
    assert 7 in steps and n in steps and 0 in steps


def test_picked_vocab_reads_streamlit_selection_state():
    assert picked_vocab({"selection": {PICK: [{"vocab_size": 700.0}]}}) == 700
    assert picked_vocab({"selection": {PICK: {"vocab_size": [512]}}}) == 512
    assert picked_vocab({"selection": {PICK: []}}) is None
    assert picked_vocab({"selection": {}}) is None
    assert picked_vocab(None) is None


def test_real_vocab_chart_puts_every_model_on_a_log_axis():
    reals = pd.DataFrame([dict(name=r.name, size=r.size, kind="published") for r in REAL_VOCABS]
                         + [dict(name="chosen above", size=629, kind="yours")])
    chart = real_vocab_chart(reals)
    spec = chart.to_dict()
    _check_titles(spec)
    xs = [n["encoding"]["x"] for n in _walk(spec) if isinstance(n.get("encoding"), dict) and "x" in n["encoding"]]
    assert all(x["scale"]["type"] == "log" for x in xs if "scale" in x)
    rows = next(rows for rows in spec["datasets"].values() if len(rows) == len(reals))
    assert {r["name"] for r in rows} == set(reals["name"])
    # neighbours never share a label lane
    lanes = [r["lane"] for r in sorted(rows, key=lambda r: r["size"])]
    assert all(a != b for a, b in zip(lanes, lanes[1:]))
    assert display_height(chart) > chart.height


def _language_frame():
    rows = []
    for tok, factor in (("GPT-2 (50K)", 1.0), ("ours, V = 600", 2.0)):
        for code, lang, tokens in (("en", "English", 60), ("hi", "Hindi", 380)):
            rows.append(dict(tokenizer=tok, code=code, language=lang, script="", tokens=int(tokens * factor),
                             unknown=0, chars=100, bytes=100, bytes_per_char=1.0, chars_per_token=1.0,
                             ratio=tokens / 60))
    return pd.DataFrame(rows)


def test_language_charts_are_titled_and_keep_the_language_order():
    frame = _language_frame()
    tokens = language_tokens_chart(frame).to_dict()
    _check_titles(tokens)
    assert tokens["encoding"]["y"]["sort"] == ["English", "Hindi"]
    assert tokens["encoding"]["yOffset"]["field"] == "tokenizer"
    assert tokens["encoding"]["x"]["title"] == "Tokens for the paragraph"
    ratio = language_ratio_chart(frame).to_dict()
    _check_titles(ratio)
    texts = {row["ratio_text"] for rows in ratio["datasets"].values() for row in rows}
    assert {"1.00×", "6.33×"} <= texts
    # long tokenizer names wrap at ", " instead of being cut off
    assert ratio["layer"][0]["encoding"]["x"]["axis"]["labelExpr"] == "split(datum.label, ', ')"


def test_cost_share_chart_stacks_to_one_hundred_percent():
    parts = pd.DataFrame([
        dict(measure="Parameters", part="vocabulary", value=1, label="a"),
        dict(measure="Parameters", part="rest", value=3, label="b"),
    ])
    spec = cost_share_chart(parts).to_dict()
    _check_titles(spec)
    bar = spec["layer"][0]
    assert bar["encoding"]["x"]["stack"] == "normalize"
    shares = [row["share"] for rows in spec["datasets"].values() for row in rows]
    assert shares == [0.25, 0.75]


def test_a_run_without_pre_tokenizer_encodes_held_out_text_line_by_line():
    """Pre-tokenizer `none`: merges cross spaces, so held-out text is one piece per line."""
    run = train(WordTable.from_text("aaabdaaabac aaab", "none"), TrainerSettings(merges=3))
    text = "aaab aaab\ndaaabac\n"
    held = held_out_curve(run, text, [0, 3], "lines")
    tok = run.tokenizer(3, special_tokens={})
    assert held.loc[1, "tokens"] == len(tok.encode("aaab aaab")) + len(tok.encode("daaabac"))
    assert held.loc[0, "tokens"] == len("aaab aaab") + len("daaabac")


def test_titles_wrap_to_the_chart_width_in_the_browser(curves_spec):
    """fit_titles: each panel's title and subtitle pick, by the container's width, lines
    that fit it (a phone's 358 px gets short lines; a projector one line)."""
    import json
    import re

    from ui.vocab.charts import fit_titles

    spec = fit_titles(curves_spec)
    assert spec["vconcat"][0]["title"]["text"]["expr"].startswith("containerSize()[0] >= ")
    assert "signal" in spec["vconcat"][1]["title"]["subtitle"]
    assert curves_spec["vconcat"][0]["title"]["text"] == "Training corpus length shrinks with every merge"  # a copy
    for panel in spec["vconcat"]:
        for part, px in (("text", 20), ("subtitle", 15)):
            expr = panel["title"][part].get("expr") or panel["title"][part]["signal"]
            narrowest = json.loads(re.split(r" : (?=[\[\"])", expr)[-1])
            lines = [narrowest] if isinstance(narrowest, str) else narrowest
            assert all(len(line) * 0.48 * px <= 300 for line in lines), lines
    one = fit_titles({"title": "Short", "mark": "bar"})
    assert one["title"]["text"] == {"expr": '"Short"'}
