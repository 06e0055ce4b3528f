"""Accessibility in a real browser, page by page: axe-core's WCAG 2.1 A/AA rules on every
page at its address and on every tab of the pages drawn in tabs (Quirks, Vocabulary size),
and in the Vocabulary explorer with a card and a search, at 1440x900 and on a 390x844
touch phone; no page scrolls sideways at either size, every page shows its heading and no
"Page not found" dialog. test_a11y_states_browser.py checks the states the tests reach
(a step, the last step, a predict-mode question, an uploaded tokenizer file, an error),
the phone's Train page and the keyboard alone.

A serious or critical violation fails the test, and the message lists each one (rule,
element, axe's summary). Screenshots: test-artifacts/a11y-<size>-<state>.png.
tests/browser/axe.py says where axe-core comes from; docs/accessibility.md what was fixed.
The tests of a size share one browser context (`sized_contexts`); each opens its own page.
"""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.a11y import SIZES, Checker, open_page
from tests.browser.pages import HEADINGS, declared_paths


def _page_name(path: str) -> str:
    return path or "home"


@pytest.mark.parametrize("size", list(SIZES))
def test_every_page_passes_axe_and_fits_the_width(sized_contexts, app_url, artifacts, size):
    """Each address app.py declares, opened fresh: its heading, no "Page not found" dialog
    (tests/browser/pages.py), 0 serious/critical axe violations, and (both sizes) no
    sideways scroll of the page."""
    paths = sorted(declared_paths())
    assert set(HEADINGS) <= set(paths) | {""}, paths
    page = open_page(sized_contexts, size)
    checker = Checker(page, size, artifacts)
    try:
        for path in paths:
            page.goto(f"{app_url}/{path}")
            # a page added to app.py after this test is checked too: then any title will do
            heading = (page.get_by_role("heading", name=HEADINGS[path], exact=True) if path in HEADINGS
                       else page.locator("h1"))
            expect(heading.first).to_be_visible(timeout=60_000)
            checker.check(_page_name(path))  # the first run is over: a dialog would be drawn
            if page.get_by_test_id("stDialog").count():
                checker.note(_page_name(path), f"/{path}: a dialog: {page.get_by_test_id('stDialog').inner_text()}")
            if page.get_by_text("Page not found").count():
                checker.note(_page_name(path), f"/{path}: Page not found")
    finally:
        page.close()
    assert not checker.found, checker.report()


def _tab_addresses() -> list[tuple[str, str]]:
    """(name, address) of every tab of the pages drawn in tabs (only the open tab is drawn,
    so each is a state of its own): Quirks (`?quirk=`) and Vocabulary size (`?section=`)."""
    from urllib.parse import quote_plus

    from ui.quirks.logic import QUIRKS
    from ui.quirks.widgets import EXAMPLES_TAB, TAB_KEY

    quirks = [q.tab for q in QUIRKS] + [EXAMPLES_TAB]
    sections = ("1. Sequence length", "2. What it costs", "3. Ten languages")  # views/vocab_size.py TABS
    return ([(f"quirks-{i}", f"/tokenizer-quirks?{TAB_KEY}={quote_plus(t)}") for i, t in enumerate(quirks)]
            + [(f"vocab-{i}", f"/vocabulary-size?section={quote_plus(t)}") for i, t in enumerate(sections)])


@pytest.mark.parametrize("size", list(SIZES))
def test_every_tab_passes_axe(sized_contexts, app_url, artifacts, size):
    """Each tab of Quirks and Vocabulary size, opened by its link."""
    page = open_page(sized_contexts, size)
    checker = Checker(page, size, artifacts)
    try:
        for name, address in _tab_addresses():
            page.goto(app_url + address)
            expect(page.locator("h1").first).to_be_visible(timeout=60_000)
            expect(page.get_by_role("tab", selected=True).first).to_be_visible()
            checker.check(name)
    finally:
        page.close()
    assert not checker.found, checker.report()


@pytest.mark.parametrize("size", list(SIZES))
def test_explorer_card_and_search_pass_axe(sized_contexts, app_url, artifacts, size):
    """The Vocabulary explorer with one token's card and a search's results."""
    page = open_page(sized_contexts, size)
    checker = Checker(page, size, artifacts)
    try:
        page.goto(f"{app_url}/vocabulary-explorer?tokenizer=gpt2&id=1000&q=ing")
        expect(page.locator("h1").first).to_be_visible(timeout=60_000)
        checker.check("explorer-card-search")
    finally:
        page.close()
    assert not checker.found, checker.report()
