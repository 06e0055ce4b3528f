"""The Train page's pure helpers: configuration and URL, drawing, predict mode.

No Streamlit here: the helpers take a TrainingRun (wrapped in a RunView) and return
plain values or HTML strings, so these tests check them directly against the engine.
"""
from __future__ import annotations

import dataclasses
import hashlib
import html
import re
import tomllib
from pathlib import Path

import pytest

from bpe_core import TrainerSettings, WordTable, train
from ui.train import predict as predict
from ui.train import chart, corpus_view, drawing, merges, pair_table, run_view, sentence, vocab_view
from ui.train.config import (
    MAX_WORD_LENGTH, NO_PRETOKENIZER_LIMIT, SHARE_TEXT_LIMIT, UPLOAD_LIMIT_MB, Corpus, Settings,
    build_word_table, describe, from_params, load_presets, preset_corpus, read_upload, run_key, to_params,
)

ROOT = Path(__file__).resolve().parent.parent
SENNRICH = "low 5\nlower 2\nnewest 6\nwidest 3"
FIGURE1 = "low 1\nlowest 1\nnewer 1\nwider 1"


def _key(*parts) -> str:
    """A content key, as the page gives its runs (the step cache shares drawings by it)."""
    return "test-" + hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def run_of(words: str, **settings) -> run_view.RunView:
    s = dict(end_of_word="separate", merges=10)
    s.update(settings)
    return run_view.RunView(train(WordTable.from_word_counts(words), TrainerSettings(**s)), key=_key(words, s))


def text_run(text: str, pretokenizer: str = "gpt2", **settings) -> run_view.RunView:
    s = dict(units="byte", merges=60)
    s.update(settings)
    return run_view.RunView(train(WordTable.from_text(text, pretokenizer), TrainerSettings(**s)),
                          key=_key(text, pretokenizer, s))


def strip(h: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", h))


# ---- configuration and the URL -------------------------------------------------------------
def test_upload_limit_matches_the_server_config():
    """The server takes the largest upload any page reads (the Tokenize page's tokenizer
    files, 40 MB); the Train page's 2 MB corpus limit is its own check (read_upload)."""
    from ui.tokenize.upload import LIMIT_MB

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == LIMIT_MB > UPLOAD_LIMIT_MB == 2


def test_the_browser_sends_no_usage_statistics():
    """The app runs offline; Streamlit's usage statistics are on unless switched off."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["browser"]["gatherUsageStats"] is False


def test_the_server_watches_no_files():
    """A file watcher per browser session polled every module five times a second: with
    a class following, about a quarter of the server's CPU. The README's run command
    (no flags) must serve without it; Streamlit reads this file for that command."""
    from streamlit import config as st_config

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["fileWatcherType"] == "none"
    st_config.get_config_options(force_reparse=True, options_from_flags={})
    assert st_config.get_option("server.fileWatcherType") == "none"


@pytest.mark.parametrize("preset", list(load_presets()))
def test_every_preset_builds_and_round_trips_through_the_url(preset):
    corpus = preset_corpus(preset)
    s = load_presets()[preset].settings
    table, notes = build_word_table(corpus, s)
    assert len(table) > 0 and notes == ()
    params = to_params(corpus, s, 3)
    assert params == {"preset": preset, "step": "3"}  # the preset's own settings are left out
    r = from_params(params)
    assert r.corpus == corpus and r.settings == s and r.step == 3 and not r.problems


@pytest.mark.parametrize("changes", [
    {"tie_break": "smallest-id"},
    {"units": "byte", "end_of_word": "attached", "marker": "@@"},
    {"stop": "vocab", "vocab_size": 40, "min_count": 2},
    {"pretokenizer": "gpt2", "merges": 0},
    {"marker": "a&b=c d#"},  # characters that need URL escaping
])
def test_changed_settings_round_trip(changes):
    s = dataclasses.replace(load_presets()["sennrich"].settings, **changes)
    r = from_params(to_params(preset_corpus("sennrich"), s, 0))
    assert r.settings == s and not r.problems


def test_short_pasted_corpora_travel_in_the_link_and_long_ones_do_not():
    short = Corpus("text", "text", 'a "quoted", <tag> & #hash 🙂')
    r = from_params(to_params(short, Settings(), 2))
    assert r.corpus == short and r.step == 2
    words = Corpus("words", "words", "low 5\nlower 2")
    assert from_params(to_params(words, Settings(), 0)).corpus == words
    long = Corpus("text", "text", "x " * SHARE_TEXT_LIMIT)
    params = to_params(long, Settings(), 1)
    assert "text" not in params and not long.shareable
    upload = Corpus("upload", "text", "x", name="f.txt")
    assert not upload.shareable and "text" not in to_params(upload, Settings(), 0)


def test_bad_link_values_are_ignored_with_a_message():
    r = from_params({"preset": "sennrich", "units": "qubits", "merges": "lots", "view": "huge", "mode": "x"})
    assert r.settings == load_presets()["sennrich"].settings
    assert len(r.problems) == 4
    assert from_params({}).corpus is None and from_params({}).settings is None


def test_run_key_changes_with_corpus_and_settings():
    a = run_key(Corpus("words", "words", "a 1"), Settings())
    assert a == run_key(Corpus("words", "words", "a 1"), Settings())
    assert a != run_key(Corpus("words", "words", "a 2"), Settings())
    assert a != run_key(Corpus("text", "text", "a 1"), Settings())
    assert a != run_key(Corpus("words", "words", "a 1"), Settings(merges=11))
    # the pre-tokenizer does not matter for a word list, and does for text
    assert a == run_key(Corpus("words", "words", "a 1"), Settings(pretokenizer="gpt2"))
    assert run_key(Corpus("text", "text", "a"), Settings()) != run_key(Corpus("text", "text", "a"), Settings(pretokenizer="gpt2"))


def test_settings_the_engine_rejects_raise_value_error():
    with pytest.raises(ValueError, match="marker is empty"):
        Settings(marker="").trainer_settings()
    with pytest.raises(ValueError, match="at most 5,000 merges"):
        Settings(merges=6000).trainer_settings()
    table, _ = build_word_table(Corpus("words", "words", SENNRICH), Settings())
    with pytest.raises(ValueError, match="smaller than the 11 base symbols"):
        train(table, Settings(stop="vocab", vocab_size=5).trainer_settings())


def test_no_pretokenizer_cuts_long_text_and_long_words_are_refused():
    text = "ab " * (NO_PRETOKENIZER_LIMIT // 2)
    table, notes = build_word_table(Corpus("text", "text", text), Settings(pretokenizer="none"))
    assert len(table.words[0]) == NO_PRETOKENIZER_LIMIT and "first 10,000 characters" in notes[0]
    with pytest.raises(ValueError, match="One word of this corpus is 10,001 characters long"):
        build_word_table(Corpus("text", "text", "a" * (MAX_WORD_LENGTH + 1)), Settings(pretokenizer="gpt2"))


@pytest.mark.parametrize("data, message", [
    ("café".encode("latin-1"), "is not valid UTF-8 text"),
    (b"PK\x03\x04\x00\x00", "looks like a binary file"),
    (b"", "is empty"),
    (b" \n\t", "is empty"),
    (b"x" * (UPLOAD_LIMIT_MB * 1_000_000 + 1), r"is 2\.00 MB \(2,000,001 bytes\); the limit is 2 MB \(2,000,000 bytes\)"),
])
def test_bad_uploads(data, message):
    with pytest.raises(ValueError, match=message):
        read_upload(data, "f.txt")


def test_upload_with_bom_and_describe():
    assert read_upload("\ufefflow 5".encode("utf-8")) == "low 5"
    assert describe(Corpus("upload", "text", "x", name="notes.txt"), Settings(units="byte", end_of_word="none")) == \
        "notes.txt · byte, none, first-seen"


def test_run_cache_evicts_least_recently_used_by_bytes():
    """The shared run cache weighs each run by what it holds and drops the least
    recently used beyond its byte budget; a run bigger than the budget is not kept."""
    from ui.shared.cache import ByteLRU

    small = run_of(SENNRICH)
    weight = small.nbytes()
    cache = ByteLRU("test", budget=10 * weight)
    for i in range(10):
        cache.put(f"s{i}", small, weight)
    assert cache.get("s0") is small  # now the most recently used
    cache.put("big", small, 5 * weight)
    # the 5 least recently used small runs made room; s0 (just used) stays
    assert cache.get("big") is small and cache.get("s0") is small
    assert [cache.get(f"s{i}") for i in range(1, 6)] == [None] * 5 and cache.get("s6") is small
    assert cache.nbytes <= cache.budget
    cache.put("huge", small, 11 * weight)  # bigger than the whole budget: not kept
    assert cache.get("huge") is None and cache.get("big") is small


# ---- RunView: segmentations at any step, without replay ------------------------------------
@pytest.mark.parametrize("units", ["char", "byte"])
@pytest.mark.parametrize("eow", ["none", "separate", "attached"])
@pytest.mark.parametrize("rule", ["first-seen", "lexicographic", "smallest-id"])
def test_tokens_at_equals_the_engines_replay(units, eow, rule):
    text = (ROOT / "corpora" / "multilingual_short.txt").read_text(encoding="utf-8")
    view = run_view.RunView(train(WordTable.from_text(text, "gpt2"),
                                TrainerSettings(units=units, end_of_word=eow, tie_break=rule, merges=40)))
    words = range(len(view.run.words))
    for k in (0, 1, 7, 20, view.steps):
        assert view.segmentations(k, words) == view.run.segmentations(k, words), k


def test_changed_and_recent_words_follow_the_events():
    view = run_of(SENNRICH)
    assert view.changed_words(0) == []
    assert view.changed_words(1) == [2, 3]  # e + s: newest and widest
    assert view.recent_words(4)[:2] == list(view.run.events[3].changed_words)[:2]
    assert view.by_count == [2, 0, 3, 1]


def test_labels_show_whitespace_and_partial_bytes():
    view = text_run("a é b", units="byte", merges=3)
    labels = {view.label(t) for t in range(view.run.base_size) if t in view.base_in_corpus}
    assert "·" in labels and "a" in labels and "<C3>" in labels and "<A9>" in labels


# ---- the sentence --------------------------------------------------------------------------
def test_sentence_first_seen_names_ties_rule_and_word():
    view = run_of(SENNRICH)
    assert sentence.explain_step(view, 1).text == (
        "Merged e + s -> es (count 9). Tied with s + t and t + </w>; the first-seen rule picked "
        "e + s because it occurs first: reading “newest” left to right, e + s comes before s + t and t + </w>.")
    assert sentence.explain_step(view, 3).text == \
        "Merged est + </w> -> est</w> (count 9). No other pair occurs that often, so no tie rule was needed."
    assert sentence.explain_step(view, 0).text.startswith("Step 0")


def test_sentence_lexicographic_and_smallest_id():
    lex = run_of(SENNRICH, tie_break="lexicographic")
    ev = lex.run.events[0]
    assert sentence.explain_step(lex, 1).text.endswith(
        f"the lexicographic rule picked {drawing.pair_label(lex, ev.pair)} because it is the largest pair as strings.")
    sid = run_of(SENNRICH, tie_break="smallest-id")
    ev = sid.run.events[0]
    a, b = ev.pair
    text = sentence.explain_step(sid, 1).text
    assert f"because it has the smallest ids ({sid.label(a)}={a}, {sid.label(b)}={b})." in text


def test_sentence_figure1_five_way_tie():
    view = run_of(FIGURE1)
    ev = view.run.events[0]
    assert ev.tie_count == 5
    text = sentence.explain_step(view, 1).text
    assert text.count(" + ") == 8 and "first-seen rule picked" in text and "r + </w>" in text
    assert text.endswith("reading “low” left to right, l + o comes before o + w.")  # the other ties come later
    assert sentence.explain_step(view, 1).html.count('title="token ') >= 10


def test_sentence_names_many_ties_and_reused_tokens():
    view = text_run("abcdefghij " * 3, "whitespace", units="char", merges=2)
    ev = view.run.events[0]
    assert ev.tie_count == 9
    assert "Tied with b + c, c + d, d + e, e + f, f + g and 3 more pairs;" in sentence.explain_step(view, 1).text
    # a merge that re-makes an existing token (is_new_token False) says so
    events = list(view.run.events)
    events[1] = dataclasses.replace(events[1], is_new_token=False)
    fake = run_view.RunView(dataclasses.replace(view.run, events=tuple(events)))
    assert "was already in the vocabulary" in sentence.explain_step(fake, 2).text
    assert "re-made a token" in vocab_view.vocab_summary(fake, 2)
    assert ">again<" in merges.merge_list_html(fake, 2)


# ---- the pair table, merge list, corpus, vocabulary ----------------------------------------
def test_pair_table_marks_winner_ties_and_changes():
    view = run_of(SENNRICH)
    out = pair_table.pair_table_html(view, 1)
    assert out.count('class="win"') == 1 and out.count('class="tie"') == 2
    assert 'data-pair="e + s"' in out and "tp-d" not in out  # nothing changed before merge 1
    out3 = pair_table.pair_table_html(view, 3)
    # merge 2 (es + t) changed counts: est + </w> is new, es + t is gone (a struck row)
    assert "new</span>" in out3 and 'data-gone="es + t"' in out3 and "gone</span>" in out3
    hidden = pair_table.pair_table_html(view, 1, reveal=False, hide_counts=True)
    assert 'class="win"' not in hidden and "tp-bar" not in hidden and ">?<" in hidden


def test_pair_table_rows_follow_the_event_and_the_order():
    view = run_of(SENNRICH)
    rows = re.findall(r'data-pair="([^"]*)"', pair_table.pair_table_html(view, 2))
    assert rows == [html.escape(drawing.pair_label(view, p)) for p, _ in view.run.events[1].top_pairs]
    order = list(reversed(range(len(rows))))
    assert re.findall(r'data-pair="([^"]*)"', pair_table.pair_table_html(view, 2, order=order)) == rows[::-1]


def test_merge_list_equals_the_engine_and_windows():
    view = text_run((ROOT / "corpora" / "english_sample.txt").read_text(), merges=40)
    out = merges.merge_list_html(view, 30)
    rows = re.findall(r'data-rank="(\d+)" data-left="([^"]*)" data-right="([^"]*)" data-token="([^"]*)"', out)
    assert [(int(r), html.unescape(a), html.unescape(b), html.unescape(t)) for r, a, b, t in rows] == [
        (e.step, e.pair_text[0], e.pair_text[1], e.token) for e in view.run.events[15:30]]
    assert 'class="now" data-rank="30"' in out and "Merges 16 to 30" in out
    assert merges.merge_list_html(view, 0).count("No merges yet") == 1


def test_corpus_sample_small_and_large():
    small = run_of(SENNRICH)
    s = corpus_view.corpus_sample(small, 2)
    assert s.groups == (("", (0, 1, 2, 3)),) and s.caption == "4 distinct words, 16 in all."
    out = corpus_view.corpus_html(small, 1)
    assert out.count("tp-word changed") == 2 and len(re.findall(r'class="bpe-tok hl bpe-c\d"', out)) == 2
    big = text_run((ROOT / "corpora" / "english_sample.txt").read_text(), merges=80)
    s = corpus_view.corpus_sample(big, 80)
    recent = dict(s.groups)["Changed by the latest merges"]
    assert set(big.changed_words(80)) <= set(recent) or len(recent) == run_view.RECENT_SHOWN
    assert s.shown <= drawing.FREQUENT_SHOWN + run_view.RECENT_SHOWN
    assert s.caption.startswith(f"Showing {s.shown} of {len(big.run.words):,} distinct words")


def test_a_long_word_is_drawn_in_part():
    view = text_run("ab" * 600, "none", units="char", merges=1)
    out = corpus_view.corpus_html(view, 0)
    assert "… 800 more tokens" in out


def test_vocab_marks_retired_tokens_and_figures():
    view = run_of(SENNRICH, merges=4)
    out = vocab_view.vocab_html(view, 4)
    retired = view.run.retired_tokens(4)
    assert out.count("bpe-tok retired") == len(retired) == 6
    assert vocab_view.vocab_summary(view, 4).startswith("15 tokens: 11 base symbols + 4 merged tokens.")
    f = vocab_view.figures(view, 4)
    assert (f.vocab_size, f.corpus_length, f.unit) == (15, view.run.corpus_length(4), "characters")
    assert f.per_token == pytest.approx(view.total_chars / view.run.corpus_length(4))
    assert f.length_delta < 0 and f.per_token > f.per_token_start


def test_byte_vocab_mentions_unused_bytes():
    view = text_run("hello", units="byte", merges=2)
    assert "252 of the 256 base symbols never occur in this corpus" in vocab_view.vocab_summary(view, 1)
    view = text_run("hello", units="byte", end_of_word="attached", merges=2)
    assert "508 of the 512 base symbols never occur" in vocab_view.vocab_summary(view, 1)
    assert "each of them as a word end too" in vocab_view.vocab_summary(view, 1)


def _chart_svg(chart: str):
    """The SVG inside `chart_html`'s image, parsed."""
    import base64
    import xml.etree.ElementTree as ET
    src = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', chart).group(1)
    return ET.fromstring(base64.b64decode(src))


def test_chart_rows_are_thinned_and_the_chart_draws():
    view = text_run((ROOT / "corpora" / "english_sample.txt").read_text(), merges=200)
    rows = chart.chart_rows(view)
    assert rows[0]["step"] == 0 and rows[-1]["step"] == view.steps and len(rows) == view.steps + 1
    assert rows[7] == {"step": 7, "tokens": view.run.corpus_length(7), "vocab": view.run.vocab_size(7)}
    ns = {"s": "http://www.w3.org/2000/svg"}
    svg5, svg9 = _chart_svg(chart.chart_html(view, 5)), _chart_svg(chart.chart_html(view, 9))
    line = svg5.find("s:polyline", ns).get("points").split()
    assert len(line) == len(rows)  # 201 points: every step drawn
    xs = [float(p.split(",")[0]) for p in line]
    ys = [float(p.split(",")[1]) for p in line]
    assert xs == sorted(xs) and xs[0] == chart._PAD_L
    # the corpus only shrinks: the curve falls (a larger y is lower on screen)
    assert all(a <= b for a, b in zip(ys, ys[1:]))
    dot5, dot9 = svg5.find("s:circle", ns), svg9.find("s:circle", ns)
    assert float(dot5.get("cx")) == pytest.approx(xs[5], abs=0.1) and float(dot5.get("cy")) == pytest.approx(ys[5], abs=0.1)
    assert float(dot9.get("cx")) == pytest.approx(xs[9], abs=0.1)
    # only the marker differs between steps: the axes and the curve are the run's
    strip = lambda svg: [ET_tostring(e) for e in svg if e.tag.split("}")[1] not in ("circle",) and e.get("class") != "now"]
    assert strip(svg5) == strip(svg9)
    drawn = chart.chart_html(view, 5)
    assert f'alt="Chart: tokens in the corpus against step, from {view.run.corpus_length(0):,} at step 0' in drawn
    assert f"marked: step 5, {view.run.corpus_length(5):,} tokens." in drawn
    big = text_run(preset_corpus("python_reference").text[:150_000], merges=1500)
    assert big.steps > chart.CHART_POINTS
    big_rows = chart.chart_rows(big)
    assert len(big_rows) <= chart.CHART_POINTS + 1 and big_rows[-1]["step"] == big.steps
    big_line = _chart_svg(chart.chart_html(big, big.steps)).find("s:polyline", ns).get("points").split()
    assert len(big_line) <= chart.SVG_POINTS + 1


def ET_tostring(e) -> bytes:
    import xml.etree.ElementTree as ET
    return ET.tostring(e)


def test_vocab_section_is_one_block_with_the_marker_escaped():
    """Figures, the step-0 note (at step 0 only), the vocabulary and the chart in one HTML
    block; the end-of-word marker (typed by the reader) is escaped in the note."""
    view = text_run("low low lower newest widest", units="char", end_of_word="separate", marker="<b>", merges=4)
    out = vocab_view.vocab_section_html(view, 2)
    assert out.startswith(vocab_view.figures_html(view, 2)) and vocab_view.vocab_html(view, 2) in out
    assert chart.chart_html(view, 2) in out and html.escape(vocab_view.vocab_summary(view, 2)) in out
    assert "Why " not in out  # the step-0 note does not stay at later steps
    out = vocab_view.vocab_section_html(view, 0)
    assert "marker &lt;b&gt; is one more token per word" in out and "<b>" not in out.replace(vocab_view.vocab_html(view, 0), "")


# ---- every symbol --------------------------------------------------------------------------
SYMBOL_WORDS = '", 5\n"" 4\n<< 3\n&& 3\n## 3\n🙂🙂 2\n</w></w> 2\n,, 3\n\'\' 2\n<script>alert(1)</script> 2\n'


@pytest.mark.parametrize("units", ["char", "byte"])
@pytest.mark.parametrize("eow", ["separate", "attached", "none"])
def test_symbols_merge_and_are_escaped_everywhere(units, eow):
    view = run_of(SYMBOL_WORDS, units=units, end_of_word=eow, merges=60)
    assert view.steps > 10
    merged = {e.token for e in view.run.events}
    assert {'""', "<<", "&&", "##", ",,"} <= {t.replace("</w>", "") for t in merged} or units == "byte"
    for k in range(0, view.steps + 1):
        pieces = [corpus_view.corpus_html(view, k), merges.merge_list_html(view, k), vocab_view.vocab_html(view, k),
                  sentence.explain_step(view, k).html]
        if k:
            pieces.append(pair_table.pair_table_html(view, k))
        out = "".join(pieces)
        assert "<script" not in out and "<<" not in out and "&&" not in out.replace("&amp;&amp;", "")
    rows = re.findall(r'data-left="([^"]*)" data-right="([^"]*)" data-token="([^"]*)"', merges.merge_list_html(view, view.steps, window=10_000))
    assert [tuple(html.unescape(x) for x in r) for r in rows] == [(*e.pair_text, e.token) for e in view.run.events]


def test_text_with_spaces_quotes_and_emoji():
    view = text_run('He said, "hi" & <b>left</b> #1 🙂🙂 — he said, "hi"', merges=40)
    out = corpus_view.corpus_html(view, view.steps)
    for escaped in ("·", "&quot;", "&lt;", "&amp;", "#", "🙂", ","):
        assert escaped in out, escaped
    assert "<b>" not in out
    labels = [view.label(e.token_id) for e in view.run.events]
    assert any(label.startswith("·") for label in labels)


# ---- predict mode --------------------------------------------------------------------------
def test_row_order_shuffles_only_within_counts():
    view = run_of(FIGURE1)
    rows = view.run.events[0].top_pairs
    order = predict.row_order(view, 0, "seed")
    counts = [rows[i][1] for i in order]
    assert counts == sorted(counts, reverse=True) and sorted(order) == list(range(len(rows)))
    assert any(predict.row_order(view, 0, str(s))[0] != 0 for s in range(20))  # the winner is not always first
    assert sorted(predict.row_order(view, 0, "seed", hide_counts=True)) == list(range(len(rows)))


def test_grading_exact_tied_wrong_and_feedback():
    view = run_of(SENNRICH)
    ev = view.run.events[0]
    assert predict.grade_pair(view, 0, ev.pair) == "exact"
    assert predict.grade_pair(view, 0, ev.ties[1]) == "tied"
    low = [p for p, c in ev.top_pairs if c < ev.count][0]
    assert predict.grade_pair(view, 0, low) == "wrong"
    fb = predict.pair_feedback(view, 0, ev.pair)
    assert fb.ok and fb.text.startswith("Right: e + s merges next (count 9), tied with 2 other pairs.")
    assert "The first-seen rule picks e + s because it occurs first" in fb.text
    fb = predict.pair_feedback(view, 0, low)
    assert not fb.ok and fb.text.startswith(f"Not this time: {drawing.pair_label(view, low)} occurs")
    no_tie = predict.pair_feedback(view, 2, view.run.events[2].pair)
    assert no_tie.text == "Right: est + </w> merges next, the most frequent pair (count 9)."


@pytest.mark.parametrize("words", [SENNRICH, FIGURE1, "hug 10\npug 5\npun 12\nbun 4\nhugs 5", "aaabdaaabac 1"])
def test_split_questions_always_include_the_engines_answer(words):
    view = run_of(words)
    for k in range(view.steps):
        for seed in ("a", "b", "c"):
            q = predict.split_question(view, k, range(len(view.run.words)), seed)
            if q is None:
                continue
            right = tuple(view.run.tokens[t] for t in view.tokens_at(q.word, k + 1))
            assert q.options[q.answer] == right
            assert len(set(q.options)) == len(q.options) >= 2
            fb = predict.split_feedback(view, q, q.answer)
            assert fb.ok and fb.text.startswith("Right: after the merge")
            assert predict.LETTERS[q.answer] in predict.options_html(view, q)


def test_split_question_is_none_at_the_end():
    view = run_of(SENNRICH)
    assert predict.split_question(view, view.steps, range(4), "x") is None


def test_score():
    assert predict.score({}) == predict.Score(0, 0, 0, 0)
    s = predict.score({("r", 0): {"pair": "exact", "split": True}, ("r", 1): {"pair": "tied", "split": None},
                       ("r", 2): {"pair": "wrong", "split": False}})
    assert s == predict.Score(2, 3, 1, 2)
    assert s.text() == "Score: 2 of 3 pairs right, 1 of 2 splits right."


def test_a_link_with_a_superscript_digit_is_refused_not_crashed():
    """'²'.isdigit() is True but int('²') fails: such links are warned about, not raised."""
    from ui.train.config import from_params

    restored = from_params({"step": "²", "merges": "³"})
    assert restored.step is None
    assert len(restored.problems) == 2


@pytest.mark.parametrize("words", ["low 5\nlower 2\nnewest 6\nwidest 3", "aaabdaaabac 1\nabab 3\nba 2\nbaab 1"])
def test_first_seen_word_is_the_first_word_holding_the_pair(words):
    """The word the sentence names ("it occurs first in ...") is the first word, in order
    of first appearance, whose tokens hold the merged pair just before the merge."""
    view = run_of(words, merges=12)
    for k in range(1, view.steps + 1):
        a, b = view.run.events[k - 1].pair
        holding = [w for w in range(len(view.run.words))
                   if any(p == (a, b) for p in zip(view.tokens_at(w, k - 1), view.tokens_at(w, k - 1)[1:]))]
        assert view.first_seen_word(k) == holding[0]


# ---- issue 13: each merge shown as it happens ------------------------------------------------
def test_step_k_shows_merge_k_own_effect():
    """Sennrich, merge 4 is l + o -> lo: it changes "low" (x5) and "lower" (x2), 7 places."""
    view = run_of(SENNRICH)
    ev = view.run.events[3]
    assert drawing.pair_label(view, ev.pair) == "l + o"
    out = merges.merge_effect_html(view, 4)
    assert 'data-merge="4"' in out and "7 places merged" in out
    assert "corpus &minus;7 tokens" in out and f"({view.run.corpus_length(3)} &rarr; {view.run.corpus_length(4)})" in out
    # the changed words, before (the pair's two chips marked) and after (the new chip joining)
    assert re.findall(r'class="tp-ex" data-word="(\d+)"', out) == [str(w) for w in ev.changed_words]
    assert len(re.findall(r'class="bpe-tok tp-part bpe-c\d"', out)) == 2 * 2 and out.count("tp-join") == 2
    # the joining is an animation that readers who ask for less motion do not get
    css = drawing.PAGE_CSS
    assert "animation: tp-join" in css
    # ...and it moves only transform and box-shadow: no frame lays the page out again
    frames = re.search(r"@keyframes tp-join \{(.*?)\n\}", css, re.S).group(1)
    assert set(re.findall(r"([a-z-]+):", frames)) == {"transform", "box-shadow"}
    assert re.search(r"@media \(prefers-reduced-motion: reduce\) \{ \.bpe-tok\.tp-join \{ animation: none; \} \}", css)
    assert 'data-merge="0"' in merges.merge_effect_html(view, 0)


def test_effect_examples_are_the_most_frequent_changed_words_and_say_how_many_more():
    view = text_run("the cat the hat the mat that then " * 3 + "them there these those", merges=5)
    k = 1
    ev = view.run.events[0]
    out = merges.merge_effect_html(view, k, examples=2)
    counts = view.run.words.counts
    best = sorted(ev.changed_words, key=lambda w: (-counts[w], w))[:2]
    assert re.findall(r'data-word="(\d+)"', out) == [str(w) for w in best]
    assert f"{len(ev.changed_words) - 2} more word" in out


def test_table_at_step_k_is_the_table_after_merge_k_with_its_changes():
    """The table drawn at step 4 is what merge 5 is picked from; its change column and
    its gone rows are merge 4's (l + o is gone, lo + w is new), not merge 3's."""
    view = run_of(SENNRICH)
    out = pair_table.pair_section_html(view, 4)
    rows = re.findall(r'<tr class="[^"]*" data-pair="([^"]*)"', out)
    assert rows == [html.escape(drawing.pair_label(view, p)) for p, _ in view.run.events[4].top_pairs]
    gone = re.findall(r'data-gone="([^"]*)"', out)
    assert "l + o" in gone and "o + w" in gone and "es + t" not in gone  # es + t went at merge 2
    assert re.search(r'data-pair="lo \+ w">.*?new</span>', out)
    assert 'class="win"' in out and "merges next" in out  # merge 5's winner, marked
    assert "after merge 4" in out and "Merge 5 is picked from these" in out
    assert "Gone since the last merge" not in out


def test_table_after_the_last_merge_is_derived_from_its_changes():
    view = run_of(SENNRICH)
    n = view.steps
    rows, complete = pair_table.table_after(view, n)
    last = view.run.events[-1]
    assert last.pair not in dict(rows)  # the last merge's pair is gone
    for c in last.count_changes:
        if c.after:
            assert dict(rows)[c.pair] == c.after or not complete
    assert [c for _, c in rows] == sorted((c for _, c in rows), reverse=True)
    out = pair_table.pair_section_html(view, n)
    assert "win" not in re.findall(r'<tr class="(\w*)"', out) and "The last merge" in out


def test_merge_row_labels_name_rank_pair_token_and_count():
    view = run_of(SENNRICH)
    assert merges.merge_row_label(view, 1) == "1 · e + s → es  (9, 3-way tie)"
    assert merges.merge_row_label(view, 3) == "3 · est + </w> → est</w>  (9)"
    assert len(merges.merge_row_label(view, 1, max_chars=8)) == 8
    assert list(merges.merge_window(20, 15)) == list(range(6, 21)) and list(merges.merge_window(3)) == [1, 2, 3]


# ---- issue 13: wording ----------------------------------------------------------------------
def test_base_symbols_heading_agrees_with_the_strike_through():
    view = run_of(SENNRICH)
    out = vocab_view.vocab_html(view, 10)
    struck_base = sum(1 for t in range(view.run.base_size) if t in view.run.retired_tokens(10))
    assert struck_base >= 1
    assert f"Base symbols (11 in the corpus at step 0; {struck_base} struck through: no longer in the corpus)" in out
    assert "Base symbols (11 in the corpus at step 0)" in vocab_view.vocab_html(view, 0)


def test_one_merged_token_is_singular_and_the_stop_is_said_once():
    view = run_of(SENNRICH)
    assert "11 base symbols + 1 merged token." in vocab_view.vocab_summary(view, 1)
    assert view.run.stop_message() == "Training stopped after 10 merges, the number asked for."
    short = run_of("ab 1", merges=5, end_of_word="none")
    assert short.run.stop_message() == "Training stopped after 1 merge: no pairs are left: every word is a single token."


def test_skipped_questions_count_in_the_score():
    sc = predict.score({("r", 0): {"pair": "skipped", "picked": None, "split": None},
                        ("r", 1): {"pair": "exact", "split": None}})
    assert (sc.pairs_right, sc.pairs_asked, sc.skipped) == (1, 2, 1)
    assert sc.text() == "Score: 1 of 2 pairs right (1 skipped)."
    view = run_of(SENNRICH)
    assert predict.skipped_feedback(view, 0).text == "Skipped: e + s merged next (count 9)."


# ---- issue 13: Windows line endings ------------------------------------------------------------
def test_crlf_text_is_read_as_lf_with_a_note():
    crlf = "low lower\r\nnewest\r\nwidest\r"
    lf = "low lower\nnewest\nwidest\n"
    s = Settings(pretokenizer="gpt2")
    table, notes = build_word_table(Corpus("text", "text", crlf), s)
    assert table == build_word_table(Corpus("text", "text", lf), s)[0]
    assert any("3 Windows line endings" in n for n in notes)
    assert build_word_table(Corpus("text", "text", lf), s)[1] == ()
    assert build_word_table(Corpus("upload", "text", crlf, name="w.txt"), s)[0] == table  # upload too


def test_a_token_has_one_colour_in_the_corpus_and_the_base_symbols():
    """RunView.colours: each token's colour class is the same in the corpus and in the
    vocabulary's base symbols, and neighbours in a word differ."""
    view = run_of(SENNRICH)
    chip = re.compile(r'<span class="bpe-tok[^"]*bpe-c(\d)" title="token (\d+)')
    for k in (0, 1, 5):
        corpus = {int(t): c for c, t in chip.findall(corpus_view.corpus_html(view, k))}
        vocab = {int(t): c for c, t in chip.findall(vocab_view.vocab_html(view, k))}
        assert corpus and vocab and all(vocab[t] == c for t, c in corpus.items() if t in vocab)
        assert set(corpus) & set(vocab)
