"""The Quirks page under AppTest: it draws every section with no exception, every "try
your own" box and toggle recomputes, hostile text is escaped (never markup, never a link),
the quiz reveals its answers only after a try, the worked examples link to the Train page
with their presets, and the Vocabulary size page asks its question."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from ui.quiz import questions as quiz
from ui.quirks.logic import QUIRKS
from ui.quirks.widgets import EXAMPLES_TAB, TAB_KEY, TRY_LABEL, open_key, try_store

APP = "../app.py"
PAGE = "views/quirks.py"
HOSTILE = '<img src=x onerror=alert(1)>[link](http://evil.example) :red[x] $x$ <|endoftext|>'


TABS = {q.id: q.tab for q in QUIRKS} | {"examples": EXAMPLES_TAB}


def visit(section: str | None = None) -> AppTest:
    """The Quirks page, opened at a section's tab (`?quirk=<its tab label>`) or the first."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    if section:
        at.query_params[TAB_KEY] = TABS[section]
    at.switch_page(PAGE).run()
    return _ok(at)


def show(at: AppTest, section: str) -> AppTest:
    """Switch the open page to a section's tab, as a link does. (AppTest cannot click a
    tab, and a bound tab ignores a link back to the first tab: use `visit` for that.)"""
    at.query_params[TAB_KEY] = TABS[section]
    return _ok(at.run())


@pytest.fixture(scope="module")
def opened() -> AppTest:
    return visit("examples")


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


def test_every_tab_draws_its_section_and_only_it():
    """One tab per quirk and one for the worked examples; the open tab alone is drawn
    (a first visit is one section, not twenty screens), and `?quirk=` opens a tab."""
    at = visit()
    assert [t.label for t in at.tabs] == [q.tab for q in QUIRKS] + [EXAMPLES_TAB]
    whys = 0
    for quirk in QUIRKS:
        show(at, quirk.id)
        html = _all_html(at)
        assert f'<h2 id="quirk-{quirk.id}">{quirk.title}</h2>' in html
        assert html.count("<h2 id=") == 1  # no other section drawn
        whys += html.count('class="qk-note why"')
        if quirk.id == "letters":
            assert "berry" in html
        if quirk.id == "numbers":
            assert "The claim <b>does not hold</b>" in html or "The claim <b>holds</b>" in html
    assert whys == len(QUIRKS)
    show(at, "examples")
    html = _all_html(at)
    assert '<h2 id="worked-examples">Worked examples of the source texts</h2>' in html
    assert html.count("<h2 id=") == 1


def test_claims_say_whether_they_hold_in_words():
    verdicts = ""
    for quirk in QUIRKS:
        verdicts += _all_html(visit(quirk.id))
    assert "The claim <b>does not hold</b>" in verdicts and "The claim <b>holds</b>" in verdicts


def test_an_unknown_tab_in_a_link_opens_the_first():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.query_params[TAB_KEY] = "<img src=x>"
    at.switch_page(PAGE).run()
    _ok(at)
    assert f'<h2 id="quirk-{QUIRKS[0].id}">' in _all_html(at)


def test_sections_are_few_elements():
    """A section's heading, text, examples, extras, claims and "why" are one HTML block
    (each markdown, caption, alert and heading is an element the browser renders on a
    first load): no header, subheader or alert elements are left outside the quiz."""
    for section in ("letters", "scripts", "examples"):
        at = visit(section)
        assert not at.header and not at.subheader
        assert not at.success and not at.warning and not at.info
        sections = [h for h in at.html if h.value.startswith('<section class="qk-section"><h2 id=')]
        assert len(sections) == 1
        # static HTML tables: no data grid, no Arrow scripts for the browser on a first load
        assert len(at.table) == 0 and len(at.dataframe) == 0
    assert sum(h.value.count('<table class="bpe-table"') for h in visit("examples").html) >= 8


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
    at = visit("numbers")
    assert len(at.text_input) == 0 and len(at.text_area) == 0
    assert [e.label for e in at.expander].count(TRY_LABEL) == 1
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
    show(at, "numbers")
    assert at.text_input(key="quirks_w_try_numbers").value == "1234"  # opened by itself
    assert any("For 1234, the next number GPT-2 cuts" in m.value for m in at.markdown)


@pytest.mark.parametrize("key", [f"quirks_w_try_{q.id}" for q in QUIRKS])
def test_every_try_box_recomputes_and_escapes(key):
    at = visit(key.removeprefix("quirks_w_try_"))
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
    at = visit("letters")
    open_try(at, "letters", "numbers")
    at.text_input(key="quirks_w_try_letters").input("Mississippi").run()
    at.text_input(key="quirks_w_try_letter").input("s").run()
    _ok(at)
    assert any("occurs **4** times" in m.value for m in at.markdown)
    show(at, "numbers")
    at.text_input(key="quirks_w_try_numbers").input("1234").run()
    _ok(at)
    assert any("For 1234, the next number GPT-2 cuts" in m.value for m in at.markdown)


def test_special_try_shows_text_and_one_control_token():
    """Typed special-token text is drawn as text, then with specials allowed (one token)."""
    at = visit("special")
    n_before = _all_html(at).count("1 token<")
    open_try(at, "special")
    at.text_input(key="quirks_w_try_special").input("<|endoftext|>").run()
    _ok(at)
    drawn = next(h.value for h in at.html if "Your text with special tokens allowed" in h.value)
    as_text, allowed = drawn.split("Your text with special tokens allowed")
    assert "1 token<" not in as_text  # as typed text: several tokens under every tokenizer
    assert allowed.count("1 token<") >= 3  # allowed: the OpenAI tokenizers' one special id
    assert _all_html(at).count("1 token<") > n_before


def open_quiz(section: str) -> AppTest:
    """A section's tab with every quiz box opened, as clicks on them do."""
    at = visit(section)
    for q in quiz.questions_for("quirks", section):
        at.session_state[f"quiz_w_open_{q.id}"] = True
    return at.run()


def test_quiz_questions_are_folded_until_opened_and_keep_their_answers():
    """A first visit draws each question as a shut box (no radio, so no Radio script);
    an answer survives shutting the box and a visit to another page, where it opens by itself."""
    for q in quiz.questions_for("quirks"):
        at = visit(q.section)
        assert len(at.radio) == 0
        assert quiz.quiz_label(q) in [e.label for e in at.expander]
    at = visit("examples")
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
    show(at, "examples")
    assert _ok(at).radio(key=f"quirks_w_quiz_{q.id}").value == q.answer
    assert any(e.value == "Right." for e in at.success)
    assert len(at.radio) == 1  # only the answered question opened by itself


def test_quiz_reveals_only_after_a_try():
    for q in quiz.questions_for("quirks"):
        at = open_quiz(q.section)
        assert at.radio(key=f"quirks_w_quiz_{q.id}").value is None
    at = open_quiz("examples")
    q = quiz.questions_for("quirks", "examples")[0]
    at.radio(key=f"quirks_w_quiz_{q.id}").set_value((q.answer + 1) % len(q.options)).run()
    _ok(at)
    assert any("Not quite" in e.value for e in at.error)
    at.radio(key=f"quirks_w_quiz_{q.id}").set_value(q.answer).run()
    assert any(e.value == "Right." for e in at.success)


def test_vocab_page_asks_the_arithmetic_question():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.query_params["section"] = "2. What it costs"  # the quiz is in the cost tab
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

