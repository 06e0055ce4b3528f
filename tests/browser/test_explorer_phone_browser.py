"""The Vocabulary explorer on a 390x844 touch phone, in a real browser: the search box, a
result and the token card fit the screen's width (nothing scrolls sideways), a search typed
on the phone and the overview's charts too, and axe-core finds no serious or critical
WCAG 2.1 A/AA violation in any of these states. Screenshots go to test-artifacts/
(explorer_phone_*.png: look at them)."""
from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.axe import serious_violations
from tests.browser.phone import PHONE, open_phone, too_wide


def _settled(page) -> None:
    expect(page.get_by_test_id("stSkeleton")).to_have_count(0, timeout=60_000)
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning", timeout=60_000)


def _fits(page, locator) -> None:
    """The element is drawn, and lies within the phone's width."""
    expect(locator).to_be_visible()
    # a rerun can replace the element between the two calls (bounding_box is then None):
    # ask again until one drawn element answers
    box = None
    for _ in range(20):
        box = locator.bounding_box()
        if box is not None:
            break
        page.wait_for_timeout(250)
    assert box is not None and box["x"] >= -1 and box["x"] + box["width"] <= PHONE["width"] + 1, box


def _checked(page, artifacts, name: str) -> None:
    _settled(page)
    assert too_wide(page) == []
    assert serious_violations(page) == []
    # the page scrolls inside Streamlit's main box, not the document: a tall viewport of the
    # phone's width shows all of it in one picture
    page.set_viewport_size({"width": PHONE["width"], "height": 3200})
    page.screenshot(path=str(artifacts / f"explorer_phone_{name}.png"))
    page.set_viewport_size(PHONE)


def test_on_a_phone_the_search_a_result_and_the_card_fit_and_pass_axe(browser, app_url, artifacts):
    context, page = open_phone(browser)
    try:
        page.goto(f"{app_url}/vocabulary-explorer?tokenizer=gpt2&q=SolidGoldMagikarp")
        expect(page.get_by_role("heading", name="Vocabulary explorer")).to_be_visible(timeout=60_000)
        _settled(page)
        card = page.locator(".vx-card").first
        expect(card).to_contain_text("43,453")
        _fits(page, card)
        _fits(page, page.get_by_label("Search the tokens' text"))
        _fits(page, page.get_by_role("region", name="Search results"))  # the one result (its box scrolls sideways)
        expect(page.get_by_text("1 of 50,257 tokens match")).to_be_visible()
        _checked(page, artifacts, "card_search")

        box = page.get_by_label("Search the tokens' text")
        box.tap()
        box.fill("ing")
        box.press("Enter")
        _settled(page)
        expect(page.get_by_text("tokens match").first).not_to_contain_text("1 of 50,257")
        _fits(page, page.get_by_role("region", name="Search results"))  # a page of 25 results
        _fits(page, page.get_by_label("Show one of these tokens above"))
        _fits(page, card)
        _checked(page, artifacts, "results")

        page.get_by_role("radio", name="Overview").or_(page.get_by_role("button", name="Overview")).first.tap()
        _settled(page)
        charts = page.locator(".vega-embed")
        expect(charts).to_have_count(2, timeout=60_000)
        for i in range(2):
            _fits(page, charts.nth(i))
        _checked(page, artifacts, "overview")
    finally:
        context.close()
