"""The Quirks page under AppTest: it draws every section with no exception, every "try
your own" box and toggle recomputes, hostile text is escaped (never markup, never a link),
the quiz reveals its answers only after a try, the worked examples link to the Train page
with their presets, and the Vocabulary size page asks its question."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from ui.quiz import questions as quiz
from ui.quirks.logic import QUIRKS
from ui.quirks.widgets import TRY_LABEL, open_key, try_store

APP = "../app.py"
PAGE = "views/quirks.py"
HOSTILE = '<img src=x onerror=alert(1)>[link](http://evil.example) :red[x] $x$ <|endoftext|>'


@pytest.fixture(scope="module")
def opened() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def open_try(at: AppTest, *quirk_ids: str) -> AppTest:
    """Open these sections' try boxes, as a click on them does (a rerun draws them)."""
    for quirk_id in quirk_ids:
        at.session_state[open_key(quirk_id)] = True
    return at.run()


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, at.exception
    return at


def _all_html(at: AppTest) -> str:
    return "".join(h.value for h in at.html)


def _all_markdown(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for kind in ("success", "warning", "error", "info") for e in at.get(kind)]
    return "\n".join(parts)


def test_page_draws_every_section(opened):
    html = _all_html(opened)
    # each section's heading, with the id the links at the top point to
    for quirk in QUIRKS:
        assert f'<h2 id="quirk-{quirk.id}">{quirk.title}</h2>' in html
        assert f'<a href="#quirk-{quirk.id}">{quirk.title}</a>' in html
    assert '<h2 id="worked-examples">Worked examples of the source texts</h2>' in html
    assert "strawberry" in html.replace("<span", "").replace("</span>", "") or "berry" in html
    # claims: some hold, some do not, each says so in words
    assert "The claim <b>does not hold</b>" in html and "The claim <b>holds</b>" in html
    assert html.count('class="qk-note why"') == len(QUIRKS)


def test_sections_are_few_elements(opened):
    """A section's heading, text, examples, extras, claims and "why" are one HTML block
    (each markdown, caption, alert and heading is an element the browser renders on a
    first load: the page had ~200): no header, subheader or alert elements are left
    outside the quiz."""
    assert not opened.header and not opened.subheader
    assert not opened.success and not opened.warning and not opened.info
    sections = [h for h in opened.html if h.value.startswith('<section class="qk-section"><h2 id=')]
    assert len(sections) == len(QUIRKS) + 1
    # static HTML tables: no data grid, no Arrow scripts for the browser on a first load
    assert len(opened.table) == 0 and len(opened.dataframe) == 0
    assert sum(h.value.count('<table class="bpe-table"') for h in opened.html) >= 10


def test_tables_escape_html_in_every_cell_and_header():
    """The tables are HTML: a tag typed in a box (or in a header) stays text."""
    from ui.shared.tables import read_table, table_html

    hostile = '<img src=x onerror=alert(1)> [x](http://evil.example/a) **b**'
    markup = table_html([{"word": hostile, "tokens": 3, hostile: "x"}])
    assert "<img" not in markup and "&lt;img" in markup
    assert read_table(markup) == [{"word": hostile, "tokens": "3", hostile: "x"}]


def test_try_boxes_are_folded_at_first_and_keep_the_text_while_folded():
    """A first visit draws no text box (each section has a folded "Try it on your own
    text"); opening one draws its box; text typed there survives folding it, leaving the
    page and coming back, and a box that holds text opens by itself."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page(PAGE).run()
    _ok(at)
    assert len(at.text_input) == 0 and len(at.text_area) == 0
    assert [e.label for e in at.expander].count(TRY_LABEL) == len(QUIRKS)
    open_try(at, "numbers")
    assert [w.key for w in at.text_input] == ["quirks_w_try_numbers"]
    at.text_input(key="quirks_w_try_numbers").input("1234").run()
    _ok(at)
    assert any("For 1234, the next number GPT-2 cuts" in m.value for m in at.markdown)
    at.session_state[open_key("numbers")] = False
    at.run()
    assert len(at.text_input) == 0 and at.session_state[try_store("numbers")] == "1234"
    assert not any("For 1234" in m.value for m in at.markdown)
    open_try(at, "numbers")
    assert at.text_input(key="quirks_w_try_numbers").value == "1234"
    at.switch_page("views/home.py").run()
    at.switch_page(PAGE).run()
    _ok(at)
    assert at.text_input(key="quirks_w_try_numbers").value == "1234"  # opened by itself
    assert any("For 1234, the next number GPT-2 cuts" in m.value for m in at.markdown)


@pytest.mark.parametrize("key", [f"quirks_w_try_{q.id}" for q in QUIRKS])
def test_every_try_box_recomputes_and_escapes(key):
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page(PAGE).run()
    open_try(at, key.removeprefix("quirks_w_try_"))
    before = len(at.html)
    box = next(w for w in list(at.text_input) + list(at.text_area) if w.key == key)
    box.input(HOSTILE).run()
    _ok(at)
    assert len(at.html) > before  # the typed text is drawn under every tokenizer
    html = _all_html(at)
    assert "<img" not in html and "&lt;img" in html
    md = _all_markdown(at)
    assert "](http" not in md.replace("\\](http", "")  # no live link from typed text
    assert ":red[" not in md.replace("\\:red\\[", "")


def test_letter_and_number_extras():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page(PAGE).run()
    open_try(at, "letters", "numbers")
    at.text_input(key="quirks_w_try_letters").input("Mississippi").run()
    at.text_input(key="quirks_w_try_letter").input("s").run()
    _ok(at)
    assert any("occurs **4** times" in m.value for m in at.markdown)
    at.text_input(key="quirks_w_try_numbers").input("1234").run()
    _ok(at)
    assert any("For 1234, the next number GPT-2 cuts" in m.value for m in at.markdown)


def test_special_try_shows_text_and_one_control_token():
    """Typed special-token text is drawn as text, then with specials allowed (one token)."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page(PAGE).run()
    n_before = _all_html(at).count("1 token<")
    open_try(at, "special")
    at.text_input(key="quirks_w_try_special").input("<|endoftext|>").run()
    _ok(at)
    drawn = next(h.value for h in at.html if "Your text with special tokens allowed" in h.value)
    as_text, allowed = drawn.split("Your text with special tokens allowed")
    assert "1 token<" not in as_text  # as typed text: several tokens under every tokenizer
    assert allowed.count("1 token<") >= 3  # allowed: the OpenAI tokenizers' one special id
    assert _all_html(at).count("1 token<") > n_before


def open_quiz(at: AppTest) -> AppTest:
    """Open every quiz box on the page, as clicks on them do."""
    for q in quiz.questions_for("quirks"):
        at.session_state[f"quiz_w_open_{q.id}"] = True
    return at.run()


def test_quiz_questions_are_folded_until_opened_and_keep_their_answers():
    """A first visit draws each question as a shut box (no radio, so no Radio script);
    an answer survives shutting the box and a visit to another page, where it opens by itself."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page(PAGE).run()
    assert len(at.radio) == 0
    labels = [e.label for e in at.expander]
    for q in quiz.questions_for("quirks"):
        assert quiz.quiz_label(q) in labels
    q = quiz.questions_for("quirks", "examples")[0]
    at.session_state[f"quiz_w_open_{q.id}"] = True
    at.run()
    at.radio(key=f"quirks_w_quiz_{q.id}").set_value(q.answer).run()
    assert any(e.value == "Right." for e in _ok(at).success)
    at.session_state[f"quiz_w_open_{q.id}"] = False
    at.run()
    assert len(_ok(at).radio) == 0 and not at.success
    at.switch_page("views/home.py").run()
    at.switch_page(PAGE).run()
    assert _ok(at).radio(key=f"quirks_w_quiz_{q.id}").value == q.answer
    assert any(e.value == "Right." for e in at.success)
    assert len(at.radio) == 1  # only the answered question opened by itself


def test_quiz_reveals_only_after_a_try(opened):
    at = open_quiz(opened)
    for q in quiz.questions_for("quirks"):
        radio = at.radio(key=f"quirks_w_quiz_{q.id}")
        assert radio.value is None
    q = quiz.questions_for("quirks", "examples")[0]
    at.radio(key=f"quirks_w_quiz_{q.id}").set_value((q.answer + 1) % len(q.options)).run()
    _ok(at)
    assert any("Not quite" in e.value for e in at.error)
    at.radio(key=f"quirks_w_quiz_{q.id}").set_value(q.answer).run()
    assert any(e.value == "Right." for e in at.success)


def test_vocab_page_asks_the_arithmetic_question():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("views/vocab_size.py").run()
    _ok(at)
    at.session_state["quiz_w_open_double_vocab"] = True  # the page draws its quiz only once its box is opened
    at.run()
    box = at.number_input(key="quirks_w_quiz_double_vocab")
    assert box.value is None
    box.set_value(524).run()
    _ok(at)
    assert any("524" in e.value for e in at.success)
    assert any("524,288,000" in m.value for m in at.markdown)


def test_worked_examples_link_to_train_presets(opened):
    links = [p for p in opened.get("page_link")]
    targets = {(p.proto.page, p.proto.query_string) for p in links} if links and hasattr(links[0].proto, "query_string") else set()
    labels = [p.proto.label for p in links]
    assert sum("Train page" in label for label in labels) == 5
    if targets:
        assert any("preset=classroom" in q for _, q in targets)


def test_train_page_opens_each_new_preset():
    for preset in ("seed000_bytebpe", "seed000_underscore", "seed001_five_words", "seed002_sennrich", "classroom"):
        at = AppTest.from_file(APP, default_timeout=120)
        at.query_params["preset"] = preset
        at.query_params["step"] = "5"
        at.run()
        at.switch_page("views/train.py").run()
        _ok(at)

