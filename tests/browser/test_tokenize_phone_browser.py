"""The Tokenize page on a 390x844 phone, in a real browser: the first token is on the first
screen (the display options and counts follow the tokens there), the "Side by side" switch
is not shown where it does nothing, nothing is wider than the screen, and Compare draws
each tokenizer whole, one below the other, with no scroll box of its own and no name cut.
A file of its own so the test workers share the page's browser tests evenly."""
from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.phone import PHONE, open_phone, too_wide
from tests.browser.test_tokenize_browser import (  # noqa: F401  (patient_expect: an autouse fixture)
    idle, metric, patient_expect,
)

FIRST_CHIP = ".bpe-tokens.bpe-scroll > span, .bpe-tokens.bpe-scroll > .bpe-block > span"


def test_on_a_phone_the_first_token_is_on_the_first_screen(browser, app_url, artifacts):
    context, page = open_phone(browser)
    try:
        page.goto(app_url + "/tokenize-text")
        chip = page.locator(FIRST_CHIP).first
        expect(chip).to_be_visible(timeout=60_000)
        idle(page)
        box = chip.bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], box  # whole, with no scrolling
        expect(page.get_by_text("Side by side")).to_be_hidden()  # stacked anyway below 1200 px
        expect(page.get_by_text("Show whitespace and invisible characters")).to_be_visible()
        assert page.get_by_text("Show whitespace and invisible characters").bounding_box()["y"] > box["y"]
        assert metric(page, "Tokens").bounding_box()["y"] > box["y"]  # the counts follow the tokens
        assert too_wide(page) == []
        page.screenshot(path=str(artifacts / "tokenize_phone_first_screen.png"))
    finally:
        context.close()


def test_on_a_phone_compare_draws_each_tokenizer_whole_with_names_uncut(browser, app_url, artifacts):
    context, page = open_phone(browser)
    try:
        page.goto(app_url + "/tokenize-text?view=compare")
        table = page.locator('table[aria-label="Token counts by tokenizer"]')
        expect(table).to_be_visible(timeout=60_000)
        expect(table.locator("tbody tr")).to_have_count(4)  # GPT-2, cl100k, o200k and Mistral 7B
        expect(table).to_contain_text("Mistral 7B")
        drawings = page.locator(".st-key-tokenize-compare .bpe-scroll")
        expect(drawings).to_have_count(4)
        idle(page)
        styles = drawings.evaluate_all(
            "(els) => els.map(e => [getComputedStyle(e).maxHeight, getComputedStyle(e).overflowY])")
        assert styles == [["none", "visible"]] * 4, styles
        tops = [d.bounding_box()["y"] for d in drawings.all()]
        assert tops == sorted(tops) and len(set(tops)) == 4  # one below the other
        assert too_wide(page) == []
        wrap = table.locator("xpath=..")  # the table fits: its box does not scroll sideways
        assert wrap.evaluate("(e) => e.scrollWidth <= e.clientWidth + 1"), wrap.evaluate("(e) => [e.scrollWidth, e.clientWidth]")
        page.set_viewport_size({"width": PHONE["width"], "height": 2400})
        page.screenshot(path=str(artifacts / "tokenize_phone_compare.png"), clip={
            "x": 0, "y": table.bounding_box()["y"] - 200, "width": PHONE["width"], "height": 1400})
    finally:
        context.close()


def test_on_a_wide_screen_side_by_side_is_offered(browser, app_url):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    try:
        page.goto(app_url + "/tokenize-text")
        expect(page.get_by_text("Side by side")).to_be_visible(timeout=60_000)
    finally:
        context.close()
