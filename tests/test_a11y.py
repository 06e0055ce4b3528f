"""Accessibility and the student's wording, without a browser: the shared CSS and the
announcer (ui/shared/a11y.py), the step sentence handed to the live region, "Train more
merges" at the last step, and presets named for a student (tests/browser/test_a11y_browser.py
checks the pages with axe-core)."""
from __future__ import annotations

import html
import re

from streamlit.testing.v1 import AppTest

from ui.shared.a11y import A11Y_CSS, A11Y_SCRIPT, scroll_box_attrs
from ui.train import state as state
from ui.train.config import load_presets

APP = "../app.py"
PAGE = "views/train.py"


def _train(query: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def test_a_scroll_box_is_a_named_tab_stop_and_its_label_is_escaped():
    attrs = scroll_box_attrs('<img src=x onerror=alert(1)>')
    assert attrs.startswith(' tabindex="0" role="region" aria-label="') and "<img" not in attrs


def test_the_announcer_holds_nothing_the_sanitizer_drops_and_speaks_politely():
    """DOMPurify drops a script holding "<" before "!", "/" or a letter (tests/test_guard.py)."""
    body = A11Y_SCRIPT.split("<script>", 1)[1].rsplit("</script>", 1)[0]
    assert re.findall(r"<[/\w!]", body) == []
    assert '"aria-live", "polite"' in body and "data-announce" in body
    assert "prefers-reduced-motion: reduce" in A11Y_CSS and ":focus-visible" in A11Y_CSS


def test_every_page_installs_the_announcer_once_in_the_sidebar():
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    found = [h for h in at.sidebar.get("html") if "__bpeAnnouncer" in h.value]
    assert len(found) == 1 and found[0].proto.unsafe_allow_javascript


def test_the_step_sentence_is_handed_to_the_live_region_in_plain_words():
    at = _train({"preset": "sennrich", "step": "1"})
    marked = [h.value for h in at.html if "data-announce=" in h.value]
    assert len(marked) == 1
    spoken = html.unescape(re.search(r'data-announce="([^"]*)"', marked[0]).group(1))
    assert spoken.startswith("Step 1 of 10. Merged e + s into es (count 9).") and "->" not in spoken


def test_train_more_merges_at_the_last_step_goes_on_to_the_next_merge():
    """Sennrich's preset stops at its default of 10 merges: the page says where it is set
    (not "the number asked for"), and the button raises the limit by 10 and steps on."""
    at = _train({"preset": "sennrich", "step": "10"})
    note = " ".join(s.value for s in at.success)
    assert "Training stopped after 10 merges, where this run is set to stop" in note and "asked for" not in note
    at.button(key="train_w_btn_more").click().run()
    assert not at.exception, at.exception
    assert at.session_state[state.SETTING + "merges"] == 20
    assert at.session_state[state.STEP] == 11
    assert at.query_params["merges"] == "20" and at.query_params["step"] == "11"  # the link carries it


def test_no_train_more_where_no_pairs_are_left():
    """merges=40 on Sennrich's words: training ends at 15 merges, no pairs left; no button."""
    at = _train({"preset": "sennrich", "merges": "40", "step": "40"})
    assert at.session_state[state.STEP] == 15
    assert "no pairs are left" in " ".join(s.value for s in at.success)
    assert not [b for b in at.button if b.key == "train_w_btn_more"]


def test_presets_are_named_for_a_student_and_say_where_they_come_from():
    for p in load_presets().values():
        assert "source text" not in p.title, p.title
        assert p.source, f"{p.id}: no line saying where it comes from"
    assert load_presets()["classroom"].source.endswith("(source text 003)")
