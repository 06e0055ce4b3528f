"""The Algorithms page under AppTest: every control, and bad input, with no exception.

Each test opens the app, switches to views/algorithms.py and drives one control by its
widget key, then checks what the page shows. Runs are cached across tests in the
process (the shared byte cache), so only the first test on a corpus pays for training.
"""
import pytest
from streamlit.testing.v1 import AppTest

from bpe_core.algorithms import ALGORITHMS
from ui.shared.tables import read_table

APP = "../app.py"
PAGE = "views/algorithms.py"


def _open(tab: str = "Side by side", **state) -> AppTest:
    """The page with `tab` open (only the open tab is drawn)."""
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    at.session_state["algo.tab"] = tab
    at.switch_page(PAGE).run()
    return _ok(at)


def tab_labels() -> tuple[str, ...]:
    """The page's tabs: side by side, one per registered algorithm, the course."""
    return ("Side by side", *(a.title for a in ALGORITHMS.values()), "The course's examples")


def _tab(at: AppTest, tab: str) -> AppTest:
    """Switch tabs as a click would (the tab's widget value, copied to its store)."""
    at.session_state["algo.tab"] = tab
    return _ok(at.run())


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, at.exception
    return at


def _markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown) + "\n".join(i.value for i in at.info)


def _html(at: AppTest) -> str:
    return "\n".join(h.value for h in at.html)


def test_default_corpus_is_the_course_and_shows_its_merges():
    at = _open()
    assert at.selectbox(key="algo_w_corpus").value == "hf_course"
    assert at.number_input(key="algo_w_extra").value == 3
    # side by side: every word in the table, each algorithm's tokens as chips
    html = _html(at)
    assert "<th>WordPiece</th>" in html and "▁" in html
    text = _markdown(_tab(at, "WordPiece"))
    assert "Merge 1 of 3" in text and "##g + ##s" in text.replace("\\#", "#")
    assert "BPE would merge ##u + ##g" in text.replace("\\#", "#")


def test_only_the_open_tab_is_drawn():
    """A first visit draws the first tab alone (drawing all five cost the browser seconds,
    bench/README.md); each tab draws once opened, and the others are then left out."""
    at = _open()
    assert tuple(t.label for t in at.tabs) == tab_labels()
    assert "Merge 1 of" not in _markdown(at) and "numbers agree" not in _markdown(at)
    assert not at.get("slider")
    # the first tab: static HTML tables, no data grid and no chart (lighter first load)
    assert not at.get("vega_lite_chart") and not at.dataframe
    # the tab is one HTML block: the words side by side, tokens per word, the overlap
    block = next(h.value for h in at.html if 'aria-label="Vocabulary overlap"' in h.value)
    assert 'aria-label="Tokens per word"' in block and "<h3>Vocabulary overlap</h3>" in block
    overlap = read_table(block, 2)
    assert overlap and all(int(r["tokens"].replace(",", "")) > 0 for r in overlap)
    assert any(r["vocabularies"].startswith("only ") for r in overlap)
    per_word = read_table(block, 1)
    assert [r["algorithm"] for r in per_word] == [a.title for a in ALGORITHMS.values()]
    _tab(at, "Unigram")
    assert at.slider(key="algo_w_ug_step") and "<th>WordPiece</th>" not in _html(at)
    assert "numbers agree" in _markdown(_tab(at, "The course's examples"))


def test_values_set_in_a_tab_survive_other_tabs_and_pages():
    """Widgets in a shut tab are not drawn, and Streamlit forgets the value of a widget it
    does not draw: every one of them keeps its value in the page's store."""
    at = _open("BPE")
    at.text_input(key="algo_w_dropout_word").set_value("pugs").run()
    at.slider(key="algo_w_dropout_p").set_value(0.5).run()
    at.number_input(key="algo_w_dropout_seed").set_value(9).run()
    _tab(at, "Unigram")
    at.slider(key="algo_w_sample_alpha").set_value(1.0).run()
    at.text_input(key="algo_w_lattice_word").set_value("bugs").run()
    _tab(at, "WordPiece")
    at.radio(key="algo_w_trace_pick").set_value("another word").run()
    at.text_input(key="algo_w_trace_word").set_value("hugger").run()
    at.switch_page("views/home.py").run()
    at.switch_page(PAGE).run()
    _ok(at)
    assert at.radio(key="algo_w_trace_pick").value == "another word"  # the open tab is kept too
    assert at.text_input(key="algo_w_trace_word").value == "hugger"
    _tab(at, "BPE")
    assert at.text_input(key="algo_w_dropout_word").value == "pugs"
    assert at.slider(key="algo_w_dropout_p").value == 0.5 and at.number_input(key="algo_w_dropout_seed").value == 9
    _tab(at, "Unigram")
    assert at.slider(key="algo_w_sample_alpha").value == 1.0 and at.text_input(key="algo_w_lattice_word").value == "bugs"


def test_a_word_of_another_corpus_gives_way():
    """The trace's word choices belong to a corpus: on another corpus the first is picked."""
    at = _open("WordPiece")
    at.radio(key="algo_w_trace_pick").set_value("pug").run()
    at.selectbox(key="algo_w_corpus").set_value("sennrich").run()
    radio = _ok(at).radio(key="algo_w_trace_pick")
    assert radio.value == radio.options[0] != "pug"


def test_wordpiece_step_and_back_buttons_and_slider():
    at = _open("WordPiece")
    at.button(key="algo_w_wp_next").click().run()
    _ok(at)
    assert at.session_state["algo.wp.step"] == 2
    assert "Merge 2 of 3" in _markdown(at)
    at.button(key="algo_w_wp_back").click().run()
    assert _ok(at).session_state["algo.wp.step"] == 1
    at.slider(key="algo_w_wp_step").set_value(3).run()
    text = _ok(at).session_state["algo.wp.step"], _markdown(at).replace("\\#", "#")
    assert text[0] == 3 and "hu + ##gs" in text[1]


def test_step_survives_a_visit_to_another_page():
    at = _open("WordPiece")
    at.slider(key="algo_w_wp_step").set_value(2).run()
    at.switch_page("views/home.py").run()
    at.switch_page(PAGE).run()
    assert _ok(at).slider(key="algo_w_wp_step").value == 2


def test_unigram_stepper_chart_and_removed_pieces():
    at = _open("Unigram")
    last = at.slider(key="algo_w_ug_step").max
    assert at.slider(key="algo_w_ug_step").value == last  # starts at the final vocabulary
    at.slider(key="algo_w_ug_step").set_value(1).run()
    _ok(at)
    assert "round 1, EM 1" in _markdown(at)
    assert len(at.get("vega_lite_chart")) == 1  # the Unigram rounds (the overlap chart's tab is shut)
    at.button(key="algo_w_ug_back").click().run()
    assert "seed vocabulary" in _ok(at).markdown[0].value + _markdown(at)


def test_lattice_word_alpha_seed_and_draws():
    at = _open("Unigram")
    at.text_input(key="algo_w_lattice_word").set_value("unhug").run()
    _ok(at)
    assert 'class="ulat"' in _html(at) and "ulb best" in _html(at)
    at.slider(key="algo_w_sample_alpha").set_value(0.0).run()
    at.number_input(key="algo_w_sample_seed").set_value(7).run()
    at.number_input(key="algo_w_sample_draws").set_value(3).run()
    _ok(at)
    at.text_input(key="algo_w_lattice_word").set_value("").run()
    assert "Type a word" in _ok(at).info[-1].value or any("Type a word" in i.value for i in at.info)


def test_trace_radio_unknown_word_and_another_word():
    at = _open("WordPiece")
    radio = at.radio(key="algo_w_trace_pick")
    unknown = [o for o in radio.options if o not in ("pun", "hug", "pug", "hugs", "bun", "another word")]
    assert unknown, radio.options
    radio.set_value(unknown[0]).run()
    _ok(at)
    assert any("becomes \\[UNK\\]" in w.value for w in at.warning), [w.value for w in at.warning]
    at.radio(key="algo_w_trace_pick").set_value("another word").run()
    at.text_input(key="algo_w_trace_word").set_value("bugs").run()
    assert len(_ok(at).dataframe) >= 3


def test_wordpiece_tab_traces_the_word_in_berts_real_vocabulary():
    """Beside the vocabulary trained here, the same word in BERT base uncased (the built-in
    real WordPiece model): BERT's own words (lowercased, punctuation split off) and pieces."""
    from bpe_core.pretrained import load_pretrained

    at = _open("WordPiece")
    at.radio(key="algo_w_trace_pick").set_value("another word").run()
    at.text_input(key="algo_w_trace_word").set_value("Unaffable!").run()
    _ok(at)
    assert "The same word in a real WordPiece vocabulary" in [h.value for h in at.subheader]
    assert "**BERT uncased** (Google's BERT base, 30,522 tokens" in _markdown(at), _markdown(at)
    assert "(unaffable \\| !)" in _markdown(at) and "13 lookups" in _markdown(at)
    assert load_pretrained("bert-base-uncased").tokens("Unaffable!") == ["una", "##ffa", "##ble", "!"]
    assert all(f'title="{t}"' in _html(at) for t in ("una", "##ffa", "##ble", "!")), _html(at)
    at.text_input(key="algo_w_trace_word").set_value("hug\U0001f99c").run()
    assert any("becomes \\[UNK\\] in BERT too" in w.value for w in _ok(at).warning), [w.value for w in at.warning]


def test_dropout_controls():
    at = _open("BPE")
    at.text_input(key="algo_w_dropout_word").set_value("hugs").run()
    at.slider(key="algo_w_dropout_p").set_value(1.0).run()
    _ok(at)
    # p = 1 drops every merge: every draw is the four letters
    assert _html(at).count('title="h"') >= 6
    at.number_input(key="algo_w_dropout_seed").set_value(3).run()
    at.number_input(key="algo_w_dropout_draws").set_value(2).run()
    _ok(at)
    at.text_input(key="algo_w_dropout_word").set_value("hug€").run()  # a character BPE never saw
    _ok(at)


def test_tokens_beyond_the_alphabet():
    at = _open("WordPiece")
    at.number_input(key="algo_w_extra").set_value(0).run()
    assert "made no merge" in _ok(at).info[0].value or "no merge" in _markdown(at)
    at.number_input(key="algo_w_extra").set_value(8).run()
    assert "Merge 1 of 8" in _ok(at).markdown[-1].value + _markdown(at)


@pytest.mark.parametrize("preset", ["english", "sennrich", "wikipedia", "multilingual"])
def test_every_kind_of_preset(preset):
    at = _open()
    at.selectbox(key="algo_w_corpus").set_value(preset).run()
    for tab in tab_labels():
        _tab(at, tab)
        assert not at.error or all("could not train" in e.value for e in at.error)


def test_own_text_hostile_and_empty():
    at = _open()
    at.selectbox(key="algo_w_corpus").set_value("own").run()
    at.text_area(key="algo_w_text").set_value("![x](http://h/x.png) <b>bold</b> :red[x] " * 5).run()
    _ok(at)
    assert "<b>bold</b>" not in _html(at) and "&lt;b&gt;" in _html(at)
    for tab in tab_labels()[1:-1]:  # each algorithm's tab draws a word of the text as chips
        assert "<b>bold</b>" not in _html(_tab(at, tab))
    at.text_area(key="algo_w_text").set_value("   ").run()
    assert "empty" in _ok(at).error[0].value


def test_the_course_tab_names_the_wrong_numbers():
    at = _open("The course's examples")
    text = _markdown(at)
    assert "numbers agree" in text
    frames = [df.value for df in at.dataframe]
    course = [f for f in frames if "the course" in f.columns]
    assert len(course) == 3
    wordpiece = course[1]
    row = wordpiece[wordpiece["claim"].str.contains(r"\(hu, ##g\)")].iloc[0]
    assert row["the course"] == "1/15" and "2/45" in row["this app"] and row["agrees"] == "NO"
