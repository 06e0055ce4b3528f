"""Untrusted input in a real browser: a pasted unpaired surrogate (half an emoji) can
never reach the server, so the page's guard repairs it in the box and says so, and the
counts follow the text the box shows (issue: the page silently kept the old text)."""
from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_tokenize_browser import metric, open_tokenize


@pytest.fixture(autouse=True)
def patient_expect():
    expect.set_options(timeout=20_000)
    yield
    expect.set_options(timeout=5_000)


def _type_into(page: Page, box, text_js: str) -> None:
    """Put `text_js` (a JavaScript string expression) in the box as typing would, then
    leave the box so Streamlit sends the value."""
    box.click()
    box.evaluate(
        """(el, value) => {
            const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set;
            setter.call(el, value);
            el.dispatchEvent(new Event("input", { bubbles: true }));
        }""",
        page.evaluate(f"() => {text_js}"),
    )
    box.press("Control+Enter")


def test_a_lone_surrogate_is_repaired_and_the_counts_follow(page: Page, app_url, artifacts):
    open_tokenize(page, app_url, "?tokenizer=gpt2&text=hello")
    expect(metric(page, "Characters")).to_have_text("5")
    box = page.get_by_label("Text", exact=True)
    _type_into(page, box, '"ab\\uD83D cd"')  # the first half of an emoji, alone
    expect(page.locator(".bpe-surrogate-note")).to_be_visible()
    expect(page.locator(".bpe-surrogate-note")).to_contain_text("replaced")
    # The server analysed the repaired text: "ab\ufffd cd" is 6 characters, 8 bytes.
    expect(metric(page, "Characters")).to_have_text("6")
    expect(metric(page, "Bytes")).to_have_text("8")
    assert box.input_value() == "ab\ufffd cd"
    page.screenshot(path=str(artifacts / "untrusted_surrogate.png"))


def test_a_whole_emoji_is_left_alone(page: Page, app_url):
    open_tokenize(page, app_url, "?tokenizer=gpt2&text=hello")
    box = page.get_by_label("Text", exact=True)
    _type_into(page, box, '"ab\\uD83D\\uDE00 cd"')
    expect(metric(page, "Characters")).to_have_text("6")  # the emoji is one character
    expect(page.locator(".bpe-surrogate-note")).to_have_count(0)
