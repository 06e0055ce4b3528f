"""The Train page under AppTest: every control, every bad input, the URL.

Each test opens the app, goes to the Train page and drives it through its widgets
(found by their stable keys), then checks what the page shows against the engine:
the merge list's rows carry the engine's display strings as data attributes, so
"the merge list equals the engine's" is a direct comparison. Play ticks: timers never
fire in AppTest, so a test reruns with the playing state set (each rerun is one tick).
"""
from __future__ import annotations

import html
import re

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from bpe_core import WordTable, train
from ui.shared.state import GOTO_STEP_KEY
from ui.shared.markdown import md_escape
from ui.train import drawing, merges
from ui.train import state as state
from ui.train.run_view import RunView
from ui.train.panels import SETTINGS_KEY
from tests.train_settings import open_settings
from ui.train.config import Settings, build_word_table, load_presets, preset_corpus

APP = "../app.py"
PAGE = "views/train.py"


def open_train(query: dict[str, str] | None = None, *, settings: bool = True) -> AppTest:
    """The Train page; `settings`: with "Corpus and settings" opened (its widgets are
    drawn only while it is open)."""
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return open_settings(at) if settings else at


def engine_run(preset: str = "sennrich", **changes):
    s = load_presets()[preset].settings
    s = Settings(**{**s.__dict__, **changes})
    words, _ = build_word_table(preset_corpus(preset), s)
    return train(words, s.trainer_settings())


def all_html(at: AppTest) -> str:
    return "\n".join(h.value for h in at.html)


NOW = "  ◀ now"


def merge_rows(at: AppTest) -> list[tuple[int, str]]:
    """(rank, label) of every row of the merge list on the page: its navigator buttons
    (`train_w_goto_<rank>`), the current one's "now" mark taken off."""
    rows = []
    for b in at.button:
        m = re.fullmatch(r"train_w_goto_(\d+)", b.key or "")
        if m:
            rows.append((int(m.group(1)), b.label.removesuffix(NOW)))
    return rows


def engine_rows(run, k: int) -> list[tuple[int, str]]:
    """The same rows from the engine's run: merges.merge_row_label of each merge."""
    view = RunView(run)
    return [(e.step, md_escape(merges.merge_row_label(view, e.step))) for e in run.events[:k]]


def step_of(at: AppTest) -> int:
    return at.session_state[state.STEP]


def click(at: AppTest, key: str) -> AppTest:
    at.button(key=key).click().run()
    assert not at.exception, at.exception
    return at


def errors(at: AppTest) -> str:
    return " ".join(e.value for e in at.error)


# ---- stepping ------------------------------------------------------------------------------
def test_opens_on_sennrich_at_step_0():
    at = open_train()
    run = engine_run()
    assert step_of(at) == 0
    assert at.session_state[state.PRESET] == "sennrich"
    assert "No merges yet." in all_html(at)  # the merge list's note, in its heading block
    assert "Step 0 of 10" in at.slider(key="train_w_step").label
    # the pair table before merge 1, in the engine's order
    rows = re.findall(r'<tr class="[^"]*" data-pair="([^"]*)"', all_html(at))
    assert rows[:3] == ["e + s", "s + t", "t + &lt;/w&gt;"]
    assert len(rows) == len(run.events[0].top_pairs)


def test_step_back_jump_reset_and_merge_list_equals_engine():
    at = open_train()
    run = engine_run()
    for _ in range(3):
        click(at, "train_w_btn_step")
    assert step_of(at) == 3
    assert merge_rows(at) == engine_rows(run, 3)
    assert at.query_params["step"] == ["3"] or at.query_params["step"] == "3"
    click(at, "train_w_btn_back")
    assert step_of(at) == 2 and merge_rows(at) == engine_rows(run, 2)
    at.slider(key="train_w_step").set_value(7).run()
    assert not at.exception
    assert step_of(at) == 7 and merge_rows(at) == engine_rows(run, 7)
    assert "Step 7 of 10" in at.slider(key="train_w_step").label
    click(at, "train_w_btn_reset")
    assert step_of(at) == 0 and merge_rows(at) == []


def test_the_sentence_names_the_ties_and_the_rule():
    at = open_train()
    click(at, "train_w_btn_step")
    sentence = [h.value for h in at.html if "tp-sentence" in h.value and "Merged" in h.value][0]
    text = html.unescape(re.sub(r"<[^>]+>", "", sentence))  # chips lose their borders here
    assert text == ("Merged es → es (count 9). Tied with st and t</w>; the first-seen rule picked es "
                    "because it occurs first: reading “newest” left to right, es comes before st and t</w>.")
    at.selectbox(key="train_w_tie_break").set_value("smallest-id").run()
    sentence = [h.value for h in at.html if "tp-sentence" in h.value and "Merged" in h.value][0]
    assert "the <b" in sentence and "smallest-id</b> rule picked" in sentence
    assert "because it has the smallest ids (" in sentence


def test_step_is_published_for_the_other_pages():
    at = open_train()
    click(at, "train_w_btn_step")
    click(at, "train_w_btn_step")
    assert at.session_state["shared.step"] == 2
    assert at.session_state["shared.run"].steps == 10
    assert "Sennrich" in at.session_state["shared.label"]


def test_play_ticks_to_the_end_then_stops():
    at = open_train()
    click(at, "train_w_btn_play")
    assert at.session_state[state.PLAYING] is True
    assert step_of(at) == 0  # pressing Play does not itself step
    ticks = 0
    while at.session_state[state.PLAYING] and ticks < 20:
        at.run()  # a timer tick reruns the page (AppTest never fires timers)
        assert not at.exception, at.exception
        ticks += 1
    assert ticks == 10 and step_of(at) == 10
    assert at.session_state[state.PLAYING] is False
    assert merge_rows(at) == engine_rows(engine_run(), 10)
    assert "Training stopped after 10 merges" in " ".join(s.value for s in at.success)


def test_pause_stops_and_play_at_the_end_starts_over():
    at = open_train()
    click(at, "train_w_btn_play")
    at.run()
    at.run()
    assert step_of(at) == 2
    click(at, "train_w_btn_play")  # now it reads Pause
    assert at.session_state[state.PLAYING] is False
    at.run()
    assert step_of(at) == 2  # no tick while paused
    at.slider(key="train_w_step").set_value(10).run()
    click(at, "train_w_btn_play")
    assert step_of(at) == 0 and at.session_state[state.PLAYING]


def test_tick_function_directly(monkeypatch):
    view = state.train_view(preset_corpus("sennrich"), load_presets()["sennrich"].settings)
    assert view.steps == 10
    # the tick logic on a plain dict standing in for session state
    fake = {state.PLAYING: True, state.STEP: 9}
    monkeypatch.setattr(st, "session_state", fake)
    assert state.tick(view) is True and fake[state.STEP] == 10 and fake[state.PLAYING] is False
    assert state.tick(view) is False and fake[state.STEP] == 10


def test_speed_control():
    """Play speed is one button beside Play that goes round the four speeds (no drop-down
    nor button group: their scripts cost a first visit); its label names the speed."""
    at = open_train()
    speed = at.button(key="train_w_speed")
    assert speed.label == "Speed: 1 s per step"
    seen = []
    for _ in range(4):
        at.button(key="train_w_speed").click().run()
        assert not at.exception
        seen.append((at.session_state[state.SPEED], at.button(key="train_w_speed").label))
    assert seen == [("fast", "Speed: 0.5 s per step"), ("fastest", "Speed: 0.3 s per step"),
                    ("slow", "Speed: 2 s per step"), ("normal", "Speed: 1 s per step")]
    assert not at.button_group and not [s for s in at.selectbox if s.key == "train_w_speed"]


def test_changing_speed_while_playing_sets_the_timer_afresh():
    """While playing, the speed button asks for a full rerun (the timer is read there) and
    does not itself advance a step."""
    at = open_train()
    at.button(key="train_w_btn_play").click().run()
    assert at.session_state[state.PLAYING]
    k = at.session_state[state.STEP]
    at.button(key="train_w_speed").click().run()
    assert not at.exception
    assert at.session_state[state.SPEED] == "fast"
    assert at.session_state[state.PLAYING]
    assert at.session_state[state.STEP] == k


# ---- corpus and settings -------------------------------------------------------------------
def test_every_preset_trains_and_shows_its_merges():
    at = open_train()
    for preset in load_presets():
        open_settings(at)  # the slider below steps, which folds them
        at.selectbox(key="train_w_preset").set_value(preset).run()
        assert not at.exception, (preset, at.exception)
        assert not at.error, preset
        run = engine_run(preset)
        k = min(3, run.steps)
        at.slider(key="train_w_step").set_value(k).run()
        assert merge_rows(at) == engine_rows(run, k), preset
        assert at.session_state[state.SETTING + "marker"] == load_presets()[preset].settings.marker


def test_preset_change_resets_step_and_applies_its_settings():
    at = open_train()
    click(at, "train_w_btn_step")
    at.selectbox(key="train_w_preset").set_value("classroom").run()
    assert step_of(at) == 0
    assert at.session_state[state.SETTING + "marker"] == "_"
    assert at.text_input(key="train_w_marker").value == "_"
    click(at, "train_w_btn_step")
    assert merge_rows(at) == engine_rows(engine_run("classroom"), 1)


@pytest.mark.parametrize("rule", ["lexicographic", "smallest-id"])
def test_settings_change_retrains_and_keeps_the_step(rule):
    at = open_train()
    at.slider(key="train_w_step").set_value(4).run()
    at.selectbox(key="train_w_tie_break").set_value(rule).run()
    assert not at.exception
    assert step_of(at) == 4
    assert merge_rows(at) == engine_rows(engine_run(tie_break=rule), 4)
    assert at.query_params["tie"] in (rule, [rule])


def test_units_end_of_word_and_stop_settings():
    at = open_train()
    at.selectbox(key="train_w_end_of_word").set_value("attached").run()
    at.radio(key="train_w_units").set_value("byte").run()
    at.number_input(key="train_w_merges").set_value(5).run()
    assert not at.exception
    run = engine_run(end_of_word="attached", units="byte", merges=5)
    at.slider(key="train_w_step").set_value(5).run()
    assert merge_rows(at) == engine_rows(run, 5)
    open_settings(at)  # stepping folded them
    at.selectbox(key="train_w_stop").set_value("vocab").run()
    assert not at.error  # switching starts from the vocabulary the run reached
    assert at.number_input(key="train_w_vocab_size").value == run.vocab_size(5)
    at.number_input(key="train_w_vocab_size").set_value(520).run()
    assert not at.exception and not at.error
    assert at.session_state[state.ACTIVE][2].stop == "vocab"
    assert at.session_state["shared.run"].events[-1].vocab_size == 520


def test_paste_text():
    at = open_train()
    at.radio(key="train_w_source").set_value("text").run()
    at.selectbox(key="train_w_pretokenizer").set_value("gpt2").run()
    text = "the cat, the hat & the <mat> #1"
    at.text_area(key="train_w_text").set_value(text).run()
    assert not at.exception and not at.error
    run = at.session_state["shared.run"]
    assert run.words.words[:2] == ("the", " cat")
    at.slider(key="train_w_step").set_value(run.steps).run()
    assert [r[1:] for r in merge_rows(at)][-3:] == [r[1:] for r in engine_rows(run, run.steps)][-3:]
    assert at.query_params["text"] in (text, [text])


def test_word_list_edit():
    at = open_train()
    at.radio(key="train_w_source").set_value("words").run()
    assert at.text_area(key="train_w_words").value.startswith("low 5")
    at.text_area(key="train_w_words").set_value("hug 10\npug 5\npun 12\nbun 4\nhugs 5").run()
    assert not at.exception and not at.error
    at.slider(key="train_w_step").set_value(3).run()
    run = train(WordTable.from_word_counts("hug 10\npug 5\npun 12\nbun 4\nhugs 5"), Settings().trainer_settings())
    assert merge_rows(at) == engine_rows(run, 3)


def test_upload_a_text_file_and_read_it_as_words():
    at = open_train()
    at.radio(key="train_w_source").set_value("upload").run()
    assert "at most 2 MB" in at.get("file_uploader")[0].proto.label
    # the browser refuses a bigger file too (the server takes 40 MB for the Tokenize page)
    assert at.get("file_uploader")[0].proto.max_upload_size_mb == 2
    at.get("file_uploader")[0].upload("toy.txt", "aaabdaaabac".encode(), "text/plain").run()
    assert not at.exception and not at.error
    assert at.session_state["shared.run"].words.words == ("aaabdaaabac",)
    at.radio(key="train_w_upload_kind").set_value("words").run()
    # not a word-count list: the engine's message, the previous run kept
    assert "is not a 'word count' line" in errors(at)
    assert at.session_state["shared.run"].words.words == ("aaabdaaabac",)


def test_the_uploader_is_a_fragment_and_a_new_file_reruns_the_page(monkeypatch):
    """Picking a file where one was chosen first removes the old one: that reruns only
    the uploader's fragment (it used to redraw the whole page while the new file was on
    its way, and slowed the upload); a file read, or a change of how to read it, reruns
    the page, which trains on it."""
    import streamlit as st
    from ui.train import panels

    wrapped = []
    real = st.fragment

    def spy(fn=None, **kw):
        wrapped.append(getattr(fn, "__name__", ""))
        return real(fn, **kw)

    monkeypatch.setattr(st, "fragment", spy)
    at = open_train()
    at.radio(key="train_w_source").set_value("upload").run()
    assert panels._upload_fragment.__name__ in wrapped
    at.get("file_uploader")[0].upload("toy.txt", "aaabdaaabac".encode(), "text/plain").run()
    assert not at.exception and not at.error
    assert at.session_state["shared.run"].words.words == ("aaabdaaabac",)
    assert state.UPLOAD_CHANGED not in at.session_state  # consumed: no rerun loop
    at.file_uploader(key="train_w_upload").set_value(None).run()  # the file removed
    assert not at.exception and at.session_state["shared.run"].words.words == ("aaabdaaabac",)
    assert state.UPLOAD_CHANGED not in at.session_state  # a removal asks for no page rerun


# ---- bad input -----------------------------------------------------------------------------
def test_empty_text_shows_an_error_and_keeps_the_previous_state():
    at = open_train()
    at.radio(key="train_w_source").set_value("text").run()  # starts with a sample text
    assert not at.error
    click(at, "train_w_btn_step")
    key = at.session_state[state.ACTIVE][0]
    open_settings(at)  # stepping folded them
    at.text_area(key="train_w_text").set_value("   ").run()
    assert not at.exception
    assert "The corpus is empty" in errors(at)
    # the empty text never trained: the page still shows the sample text at step 1
    assert at.session_state[state.ACTIVE][0] == key and step_of(at) == 1
    click(at, "train_w_btn_step")  # still usable
    assert step_of(at) == 2 and "The corpus is empty" in errors(at)


def test_malformed_word_line():
    at = open_train()
    at.radio(key="train_w_source").set_value("words").run()
    before = at.session_state[state.ACTIVE][0]
    at.text_area(key="train_w_words").set_value("low 5\nlower two\n").run()
    assert not at.exception
    assert "Line 2" in errors(at) and "'lower two'" in errors(at)
    assert at.session_state[state.ACTIVE][0] == before
    at.text_area(key="train_w_words").set_value("low 5\nlower 2\n").run()
    assert not at.error


def test_non_utf8_upload_shows_an_error_and_keeps_the_corpus():
    at = open_train()
    at.radio(key="train_w_source").set_value("upload").run()
    at.get("file_uploader")[0].upload("latin1.txt", "café naïve".encode("latin-1"), "text/plain").run()
    assert not at.exception
    assert "latin1.txt is not valid UTF-8 text" in errors(at)
    assert at.session_state[state.UPLOAD_TEXT] is None
    assert at.session_state["shared.run"].words.words[0] == "low"  # Sennrich still shown


def test_upload_handler_directly(monkeypatch):
    """The handler the uploader calls, on its own (no widget)."""
    fake = {state.UPLOAD_TEXT: "old", state.UPLOAD_NAME: "old.txt", state.UPLOAD_ERROR: None, state.RESET_STEP: False}
    monkeypatch.setattr(st, "session_state", fake)
    msg = state.handle_upload(b"\xff\xfe\x00a", "bin.txt")
    assert "binary file" in msg and fake[state.UPLOAD_TEXT] == "old"
    msg = state.handle_upload(b"\xe9t\xe9", "latin.txt")
    assert "not valid UTF-8" in msg and fake[state.UPLOAD_TEXT] == "old"
    assert state.handle_upload(b"  \n", "blank.txt").startswith("blank.txt is empty")
    assert state.UPLOAD_CHANGED not in fake  # a refused file: only the uploader's fragment reruns
    assert state.handle_upload("low lower".encode(), "ok.txt") is None
    assert fake[state.UPLOAD_TEXT] == "low lower" and fake[state.UPLOAD_ERROR] is None
    assert fake.pop(state.UPLOAD_CHANGED) is True  # a file read: the page reruns and trains
    assert state.handle_upload(None, "gone.txt") is None and fake[state.UPLOAD_TEXT] == "low lower"
    assert state.UPLOAD_CHANGED not in fake  # a file removed: nothing to retrain


def test_vocab_size_below_base():
    at = open_train()
    click(at, "train_w_btn_step")
    at.selectbox(key="train_w_stop").set_value("vocab").run()
    at.number_input(key="train_w_vocab_size").set_value(5).run()
    assert not at.exception
    assert "smaller than the 11 base symbols" in errors(at)
    assert step_of(at) == 1 and at.session_state["shared.run"].steps == 10
    at.number_input(key="train_w_vocab_size").set_value(15).run()
    assert not at.error and at.session_state["shared.run"].events[-1].vocab_size == 15


def test_empty_marker_is_refused():
    at = open_train()
    at.text_input(key="train_w_marker").set_value("").run()
    assert not at.exception
    assert "end-of-word marker is empty" in errors(at)
    at.text_input(key="train_w_marker").set_value("_").run()
    assert not at.error
    assert at.session_state["shared.run"].events[2].token == "est_"


def test_min_count_too_high_leaves_nothing_to_step():
    at = open_train()
    at.number_input(key="train_w_min_count").set_value(100).run()
    assert not at.exception
    assert at.session_state["shared.run"].steps == 0
    assert "nothing to step through" in " ".join(i.value for i in at.info)


def test_no_pretokenizer_on_a_long_text_is_cut_with_a_note():
    at = open_train()
    at.radio(key="train_w_source").set_value("text").run()
    at.selectbox(key="train_w_pretokenizer").set_value("none").run()
    assert not at.exception and not at.warning
    assert len(at.session_state["shared.run"].words) == 1
    at.text_area(key="train_w_text").set_value("low lower newest widest " * 500).run()  # 12,000 characters
    assert not at.exception
    assert "first 10,000 characters" in " ".join(w.value for w in at.warning)
    assert at.session_state["shared.run"].words.words[0] == ("low lower newest widest " * 500)[:10_000]


# ---- every symbol --------------------------------------------------------------------------
SYMBOLS = '", 5\n"" 4\n<< 3\n&& 3\n## 3\n🙂🙂 2\n</w></w> 2\n,, 3\n\'\' 2\n<b>& 2\n'


@pytest.mark.parametrize("units", ["char", "byte"])
def test_symbols_display_and_merge(units):
    at = open_train()
    at.radio(key="train_w_source").set_value("words").run()
    at.text_area(key="train_w_words").set_value(SYMBOLS).run()
    at.radio(key="train_w_units").set_value(units).run()
    at.number_input(key="train_w_merges").set_value(40).run()
    assert not at.exception and not at.error
    run = at.session_state["shared.run"]
    assert run.steps > 8
    for k in (1, run.steps // 2, run.steps):
        at.slider(key="train_w_step").set_value(k).run()
        assert not at.exception
        assert merge_rows(at) == engine_rows(run, k)[-15:]
        page = all_html(at)
        assert "<b>" not in page.replace("<b>first-seen</b>", "").replace("<b title=", "")
        assert "&lt;" in page and "&amp;" in page


def test_the_marker_itself_as_a_word_with_a_separate_marker():
    at = open_train()
    at.radio(key="train_w_source").set_value("words").run()
    at.text_area(key="train_w_words").set_value("</w> 5\nw> 3").run()
    assert not at.error
    run = at.session_state["shared.run"]
    at.slider(key="train_w_step").set_value(run.steps).run()
    assert merge_rows(at) == engine_rows(run, run.steps)
    # the literal characters and the marker are different tokens
    assert ("w", ">") == run.events[0].pair_text or ">" in run.events[0].pair_text


# ---- the URL -------------------------------------------------------------------------------
def test_url_restores_preset_settings_and_step():
    at = open_train({"preset": "hf_course", "step": "4", "tie": "lexicographic"})
    assert at.session_state[state.PRESET] == "hf_course"
    assert at.session_state[state.SETTING + "tie_break"] == "lexicographic"
    assert step_of(at) == 4
    assert merge_rows(at) == engine_rows(engine_run("hf_course", tie_break="lexicographic"), 4)
    assert not at.warning


def test_url_restores_a_word_list_and_the_views():
    at = open_train({"words": "aa 3\nab 2", "step": "1", "view": "present", "mode": "predict"})
    assert at.session_state[state.SOURCE] == "words"
    assert at.session_state[state.LAYOUT] == "present" and at.session_state[state.MODE] == "predict"
    assert step_of(at) == 1
    assert "present" in all_html(at)


def test_url_with_bad_values_warns_and_falls_back():
    at = open_train({"preset": "nope", "step": "99", "units": "qubits", "merges": "-3"})
    assert not at.exception
    warnings = " ".join(w.value for w in at.warning)
    assert "unknown preset 'nope'" in warnings and "qubits" in warnings and "'-3'" in warnings
    assert "asks for step 99" in warnings
    assert step_of(at) == 10


def test_url_with_a_bad_word_list_falls_back_to_the_default_preset():
    at = open_train({"words": "low five"})
    assert not at.exception
    assert "is not a 'word count' line" in errors(at)
    assert at.session_state["shared.run"].words.words[0] == "low"


def test_leaving_and_coming_back_keeps_corpus_and_step():
    at = open_train()
    at.selectbox(key="train_w_preset").set_value("hf_course").run()
    click(at, "train_w_btn_step")
    click(at, "train_w_btn_step")
    at.switch_page("views/home.py").run()
    assert not at.exception
    at.switch_page(PAGE).run()
    assert not at.exception
    assert at.session_state[state.PRESET] == "hf_course" and step_of(at) == 2
    assert open_settings(at).selectbox(key="train_w_preset").value == "hf_course"
    assert at.query_params["preset"] in ("hf_course", ["hf_course"])


# ---- predict mode and presentation view ----------------------------------------------------
def test_predict_mode_grades_a_tied_pair_as_right_and_keeps_a_score():
    at = open_train()
    at.toggle(key="train_w_predict").set_value(True).run()
    assert not at.exception
    assert at.session_state[state.MODE] == "predict"
    assert "merged" not in re.findall(r'tp-badge (\w+)', all_html(at))  # the winner is hidden
    pick = at.selectbox(key="train_w_pick")
    assert pick.value is None  # nothing chosen for the student
    at.button(key="train_w_btn_check").click().run()
    assert "Choose the pair you think merges next" in " ".join(w.value for w in at.warning)
    pick = at.selectbox(key="train_w_pick")
    pick.select_index([i for i, o in enumerate(pick.options) if o.endswith("s + t")][0])
    at.button(key="train_w_btn_check").click().run()
    assert not at.exception, at.exception
    page = all_html(at)
    assert "Counts as right" in page and "first-seen" in page
    result = at.session_state[state.RESULTS][(at.session_state[state.ACTIVE][0], 0)]
    assert result["pair"] == "tied"
    assert "Score: 1 of 1 pair right" in " ".join(c.value for c in at.caption)
    click(at, "train_w_btn_next")
    assert step_of(at) == 1


def test_predict_mode_wrong_answer_and_play_disabled():
    at = open_train()
    at.toggle(key="train_w_predict").set_value(True).run()
    assert at.button(key="train_w_btn_play").disabled
    pick = at.selectbox(key="train_w_pick")
    pick.select_index([i for i, o in enumerate(pick.options) if o.endswith("w + </w>")][0])
    q_word = at.radio(key="train_w_split")
    q_word.set_value(q_word.options[0])
    at.button(key="train_w_btn_check").click().run()
    assert "Not this time" in all_html(at)
    result = at.session_state[state.RESULTS][(at.session_state[state.ACTIVE][0], 0)]
    assert result["pair"] == "wrong" and result["split"] in (True, False)
    assert "split" in " ".join(c.value for c in at.caption)
    assert "Score: 0 of 1 pair right" in " ".join(c.value for c in at.caption)


def test_presentation_view_shows_only_the_essentials_in_large_type():
    at = open_train()
    click(at, "train_w_btn_step")
    at.toggle(key="train_w_present").set_value(True).run()
    assert not at.exception
    assert not at.expander or all("Corpus and settings" not in e.label for e in at.expander)
    page = all_html(at)
    assert 'class="tp present"' in page and "tp-sentence present" in page
    assert 'class="tp tp-vocab"' not in page and 'class="tp tp-chart"' not in page and not at.get("vega_lite_chart")
    assert merge_rows(at) == engine_rows(engine_run(), 1)
    click(at, "train_w_btn_step")
    assert step_of(at) == 2
    assert at.query_params["view"] in ("present", ["present"])


def test_downloads_and_share_link():
    """Folded, the "Download and share" area draws nothing (a step would resend its ~15
    elements); open, it has the downloads and the link, and follows the step."""
    at = open_train()
    click(at, "train_w_btn_step")
    assert [e.label for e in at.expander if "Download" in e.label] == ["**Download and share**"]
    assert not at.get("download_button") and not at.code
    at.session_state["train_w_share"] = True  # the reader opens it
    at.run()
    labels = [d.proto.label for d in at.get("download_button")]
    assert any("JSON" in x for x in labels) and any("Merges" in x for x in labels) and any("Vocabulary" in x for x in labels)
    code = " ".join(c.value for c in at.code)
    assert "preset=sennrich" in code and "step=1" in code
    click(at, "train_w_btn_step")  # it stays open and follows the step
    assert "step=2" in " ".join(c.value for c in at.code)


def test_the_chart_is_an_image_whose_marker_follows_the_step():
    """The chart is one HTML element (an SVG image): a step swaps that element, with no
    Vega chart for the browser to load or update; its marker is at the step shown."""
    at = open_train()

    def chart() -> str:
        blocks = [h.value for h in at.html if 'class="tp tp-chart"' in h.value]
        assert len(blocks) == 1
        return blocks[0]

    run = engine_run()
    assert f'data-step="0" data-tokens="{run.corpus_length(0)}"' in chart()
    click(at, "train_w_btn_step")
    click(at, "train_w_btn_step")
    assert f'data-step="2" data-tokens="{run.corpus_length(2)}"' in chart()
    assert "data:image/svg+xml;base64," in chart() and not at.get("vega_lite_chart")


def test_a_step_sends_the_vocabulary_and_figures_as_one_element():
    """Under "Vocabulary and figures" a step draws one HTML block (figures, the note,
    the vocabulary, the chart), not columns of captions and blocks; the corpus's caption
    is inside the corpus's block."""
    at = open_train()
    click(at, "train_w_btn_step")
    blocks = [h.value for h in at.html]
    vocab = [b for b in blocks if 'class="tp tp-figs"' in b]
    assert len(vocab) == 1 and 'class="tp tp-vocab"' in vocab[0] and 'class="tp tp-chart"' in vocab[0]
    assert "Why 0.83 at step 0" not in vocab[0] and "base symbols" in vocab[0]  # the note is step 0's
    click(at, "train_w_btn_back")
    assert "Why 0.83 at step 0" in next(h.value for h in at.html if 'class="tp tp-figs"' in h.value)
    click(at, "train_w_btn_step")
    assert not at.columns or all("tp-figs" not in h.value for c in at.columns for h in c.html)
    assert not at.caption or all("distinct words" not in c.value and "Why 0.83" not in c.value for c in at.caption)
    assert any(b.startswith('<h3 class="tp-h3">The corpus after 1 merge</h3><p class="tp-cap">4 distinct words, 16 in all. '
                            'Outlined words') for b in blocks)
    # the two headings are inside those blocks, not elements of their own
    assert vocab[0].startswith('<h3 class="tp-h3">Vocabulary and figures</h3>') and not at.subheader


def test_large_corpus_shows_a_sample_of_words():
    at = open_train()
    at.selectbox(key="train_w_preset").set_value("english").run()
    at.slider(key="train_w_step").set_value(50).run()
    assert not at.exception
    page = all_html(at)
    assert re.search(r'<p class="tp-cap">Showing \d+ of [\d,]+ distinct words', page)
    assert len(re.findall(r'<div class="tp-word[ "]', page)) <= 60
    assert 'class="tp tp-chart" data-step="50"' in page


def test_another_page_can_open_a_training_step():
    """The Tokenize page's replay links a merge back to the step that learned it: it
    sets `shared.goto_step` and switches here; the Train page shows that step once
    (clamped to the run) and publishes it."""
    at = open_train()
    at.session_state[GOTO_STEP_KEY] = 7
    at.switch_page("views/home.py").run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert step_of(at) == 7
    assert at.session_state["shared.step"] == 7
    assert GOTO_STEP_KEY not in at.session_state
    at.session_state[GOTO_STEP_KEY] = 999
    at.switch_page(PAGE).run()
    assert step_of(at) == 10


# ---- issue 13: see each merge happen ---------------------------------------------------------
def test_step_k_shows_merge_k_effect_and_the_table_after_it():
    """At step 4 the page shows merge 4's own effect (the words it changed, before and
    after, "7 places merged") and the pair table after merge 4, with merge 4's changes."""
    at = open_train()
    run = engine_run()
    at.slider(key="train_w_step").set_value(4).run()
    page = all_html(at)
    ev = run.events[3]
    assert 'data-merge="4"' in page and f"{ev.merged_occurrences} places merged" in page
    assert re.findall(r'class="tp-ex" data-word="(\d+)"', page) == [str(w) for w in ev.changed_words]
    view = RunView(run)
    rows = re.findall(r'<tr class="[^"]*" data-pair="([^"]*)"', page)
    assert rows == [html.escape(drawing.pair_label(view, p)) for p, _ in run.events[4].top_pairs]
    assert "l + o" in re.findall(r'data-gone="([^"]*)"', page)
    assert "Gone since the last merge" not in page
    click(at, "train_w_btn_step")  # step 5: merge 5's effect now
    assert 'data-merge="5"' in all_html(at) and 'data-merge="4"' not in all_html(at)


def test_control_bar_holds_the_buttons_slider_and_sentence_and_settings_collapse():
    at = open_train(settings=False)
    bar = at.main.get_by_key("train_w_bar")
    assert {"train_w_btn_step", "train_w_btn_back", "train_w_btn_play"} <= {b.key for b in bar.button}
    assert [s.key for s in bar.slider] == ["train_w_step"]
    assert any("tp-sentence" in h.value for h in bar.html)
    assert "position: sticky" in " ".join(h.value for h in at.html)
    # a run exists: the corpus and settings are folded away, their widgets not drawn (a
    # first visit does not wait for them); a click opens them; an upload waiting for its
    # file keeps them open
    drawn = lambda: "train_w_source" in {r.key for r in at.radio}
    assert at.expander[0].label == "**Corpus and settings**"
    assert at.session_state[SETTINGS_KEY] is False and not drawn()
    assert not at.get("number_input") and not at.get("text_input")
    open_settings(at)
    assert drawn() and at.number_input(key="train_w_merges").value == 10
    at.radio(key="train_w_source").set_value("upload").run()
    assert at.session_state[SETTINGS_KEY] is True and drawn()
    at.radio(key="train_w_source").set_value("text").run()  # editing: the box stays open...
    assert at.session_state[SETTINGS_KEY] is True and drawn()
    click(at, "train_w_btn_step")  # ...until the reader steps
    assert at.session_state[SETTINGS_KEY] is False and not drawn()
    assert at.session_state[state.SOURCE] == "text"  # folded, nothing forgotten
    assert open_settings(at).radio(key="train_w_source").value == "text"
    # the slider's number keeps its size in the presentation view (it overlapped the track)
    at.toggle(key="train_w_present").set_value(True).run()
    css = " ".join(h.value for h in at.html)
    assert ".stSlider p {" not in css and '.stSlider [data-testid="stWidgetLabel"] p' in css


def test_a_merge_list_row_jumps_to_its_step():
    at = open_train()
    at.slider(key="train_w_step").set_value(6).run()
    assert [r for r, _ in merge_rows(at)] == [1, 2, 3, 4, 5, 6]
    assert at.button(key="train_w_goto_6").proto.type == "primary"  # the current step, marked
    click(at, "train_w_goto_2")
    assert step_of(at) == 2 and "Step 2 of 10" in at.slider(key="train_w_step").label
    assert [r for r, _ in merge_rows(at)] == [1, 2]


def test_predict_mode_hides_counts_and_step_waits_for_an_answer():
    at = open_train()
    at.toggle(key="train_w_predict").set_value(True).run()
    table = all_html(at)
    assert ">?<" in table and 'class="tp-bar"' not in table  # counts hidden by default
    assert at.toggle(key="train_w_show_counts").value is False
    step = at.button(key="train_w_btn_step")
    assert step.label == "Skip" and not step.disabled
    click(at, "train_w_btn_step")  # skip: the merge is done, the question is marked skipped
    key = at.session_state[state.ACTIVE][0]
    assert step_of(at) == 1 and at.session_state[state.RESULTS][(key, 0)]["pair"] == "skipped"
    assert "Score: 0 of 1 pair right (1 skipped)." in " ".join(c.value for c in at.caption)
    at.toggle(key="train_w_show_counts").set_value(True).run()  # the option to show them
    assert 'class="tp-bar"' in all_html(at) and at.session_state[state.HIDE_COUNTS] is False
    click(at, "train_w_btn_back")  # the skipped question says so
    assert "Skipped:" in all_html(at) and at.button(key="train_w_btn_step").label == "Step"


def test_play_tooltip_follows_its_state():
    at = open_train()
    assert at.button(key="train_w_btn_play").help.startswith("Step automatically")
    click(at, "train_w_btn_play")
    at.run()
    assert at.button(key="train_w_btn_play").label == "Pause"
    assert at.button(key="train_w_btn_play").help.startswith("Pause")


def test_crlf_paste_and_upload_count_like_the_command_line(tmp_path):
    """A CRLF text pasted (the browser sends \\n) and the same file on the command line
    train the same merges; a CRLF text or upload reaching the page says it converted."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    crlf = "low lower\r\nnewest low\r\nwidest\r\n"
    f = tmp_path / "crlf.txt"
    f.write_bytes(crlf.encode())
    cli = subprocess.run([sys.executable, "-m", "bpe_core", "train", "--text", str(f), "--pretokenizer", "gpt2",
                          "--merges", "6", "--json"], cwd=Path(__file__).resolve().parent.parent,
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    cli_events = json.loads(cli.stdout)
    at = open_train()
    at.radio(key="train_w_source").set_value("text").run()
    at.selectbox(key="train_w_pretokenizer").set_value("gpt2").run()
    at.selectbox(key="train_w_end_of_word").set_value("none").run()
    at.number_input(key="train_w_merges").set_value(6).run()
    at.text_area(key="train_w_text").set_value(crlf.replace("\r\n", "\n")).run()  # what a browser sends
    run = at.session_state["shared.run"]
    assert [list(e.pair_text) for e in run.events] == [e["pair"] for e in cli_events]
    assert [e.corpus_length for e in run.events] == [e["corpus_length"] for e in cli_events]
    assert not any("line ending" in w.value for w in at.warning)
    at.text_area(key="train_w_text").set_value(crlf).run()  # \r reaching the page (a script, a link)
    assert any("3 Windows line endings" in w.value for w in at.warning)
    assert [e.corpus_length for e in at.session_state["shared.run"].events] == [e["corpus_length"] for e in cli_events]
    at.radio(key="train_w_source").set_value("upload").run()
    at.get("file_uploader")[0].upload("win.txt", crlf.encode(), "text/plain").run()
    assert any("3 Windows line endings" in w.value for w in at.warning)
    assert [e.corpus_length for e in at.session_state["shared.run"].events] == [e["corpus_length"] for e in cli_events]


def test_a_stale_slider_echo_does_not_step_play_backwards(monkeypatch):
    """While playing, the browser may send the slider's previous value (a tick cut short
    by the next one); that is not a jump. A real jump still works."""
    at = open_train()
    at.slider(key="train_w_step").set_value(4).run()
    at.session_state[state.PLAYING] = True
    monkeypatch.setattr(st, "session_state", at.session_state)
    at.session_state["train_w_step"] = 3
    state.on_jump()
    assert at.session_state[state.STEP] == 4
    at.session_state["train_w_step"] = 8
    state.on_jump()
    assert at.session_state[state.STEP] == 8
    # the last tick of a play: play has stopped, the rerun that ends the timer is
    # pending; the browser's echo of the step before must not undo the last merge
    n = at.session_state["shared.run"].steps
    at.session_state[state.STEP] = n - 1
    at.session_state[state.PLAYING] = True
    assert state.tick(state.current_view())
    at.session_state[state.END_PENDING] = True
    assert not at.session_state[state.PLAYING]
    at.session_state["train_w_step"] = n - 1
    state.on_jump()
    assert at.session_state[state.STEP] == n
    # once the full run has drawn the end, the same value is a real jump
    at.session_state[state.END_PENDING] = False
    state.on_jump()
    assert at.session_state[state.STEP] == n - 1
