"""Accessibility in a real browser: axe-core's WCAG 2.1 A/AA rules on every page, at
1440x900 and on a 390x844 touch phone, in the states the tests reach (a step, the last
step, a predict-mode question, an uploaded tokenizer file, an error), and no page that
scrolls sideways on the phone.

A serious or critical violation fails the test, and the message lists each one (rule,
element, axe's summary). Screenshots: test-artifacts/a11y-<size>-<state>.png.
tests/browser/axe.py says where axe-core comes from; docs/accessibility.md what was fixed.
"""
from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from tests.browser.axe import serious_violations
from tests.browser.phone import PHONE
from tests.browser.test_page_paths import HEADINGS, declared_paths

SIZES = {
    "desktop": dict(viewport={"width": 1440, "height": 900}),
    "phone": dict(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True),
}


def ready(page: Page) -> None:
    """Every widget drawn (no skeleton) and no script run in progress."""
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning", timeout=60_000)
    expect(page.get_by_test_id("stSkeleton")).to_have_count(0, timeout=60_000)
    page.wait_for_timeout(300)  # the last run's elements settle (a fragment can redraw once)
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning", timeout=60_000)


def sideways(page: Page) -> int:
    """How far the page scrolls sideways (0: it does not)."""
    return page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")


class Checker:
    """Runs axe and the sideways check in each state, and keeps every finding, so one test
    reports all pages' problems at once."""

    def __init__(self, page: Page, size: str, artifacts) -> None:
        self.page, self.size, self.artifacts, self.found = page, size, artifacts, {}

    def check(self, name: str) -> None:
        ready(self.page)
        problems = serious_violations(self.page)
        extra = sideways(self.page)
        if extra > 0:
            problems.append(f"the page scrolls sideways by {extra} px")
        if problems:
            self.found[name] = problems
        self.page.screenshot(path=str(self.artifacts / f"a11y-{self.size}-{name}.png"))

    def report(self) -> str:
        return json.dumps(self.found, indent=1, ensure_ascii=False)


def _page_name(path: str) -> str:
    return path or "home"


def _tokenizer_file(path) -> None:
    """A small WordPiece tokenizer.json (Hugging Face tokenizers), for an upload."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(["tokenizers split words into pieces"] * 5,
                            trainers.WordPieceTrainer(vocab_size=60, show_progress=False, special_tokens=["[UNK]"]))
    tok.save(str(path))


@pytest.mark.parametrize("size", list(SIZES))
def test_every_page_passes_axe_and_fits_the_width(browser, app_url, artifacts, size):
    """Each address app.py declares, opened fresh: 0 serious/critical axe violations, and
    (both sizes) no sideways scroll of the page."""
    context = browser.new_context(**SIZES[size])
    page = context.new_page()
    page.set_default_timeout(60_000)
    checker = Checker(page, size, artifacts)
    try:
        for path in sorted(declared_paths()):
            page.goto(f"{app_url}/{path}")
            expect(page.get_by_role("heading", name=HEADINGS.get(path, HEADINGS[""]), exact=True).first).to_be_visible(timeout=60_000)
            checker.check(_page_name(path))
    finally:
        context.close()
    assert not checker.found, checker.report()


@pytest.mark.parametrize("size", list(SIZES))
def test_train_states_pass_axe(browser, app_url, artifacts, size):
    """Train after a Step, at the last step, and a predict-mode question; a class code that
    does not exist (an error)."""
    context = browser.new_context(**SIZES[size])
    page = context.new_page()
    page.set_default_timeout(60_000)
    checker = Checker(page, size, artifacts)
    try:
        page.goto(f"{app_url}/train-bpe?preset=sennrich&step=0")
        ready(page)
        page.locator(".st-key-train_w_btn_step button:visible").click()
        expect(page.locator(".tp-sentence")).to_contain_text("Merged")
        checker.check("train-step1")
        page.goto(f"{app_url}/train-bpe?preset=sennrich&step=10")
        expect(page.locator(".tp-sentence")).to_contain_text("Merged")
        checker.check("train-last")
        page.goto(f"{app_url}/train-bpe?preset=sennrich&step=0&mode=predict")
        expect(page.get_by_text("Which pair merges next")).to_be_visible()
        checker.check("train-predict")
        page.goto(f"{app_url}/join?code=ZZZZ-ZZZZ")
        expect(page.get_by_test_id("stAlertContentError")).to_be_visible()
        checker.check("join-error")
    finally:
        context.close()
    assert not checker.found, checker.report()


@pytest.mark.parametrize("size", list(SIZES))
def test_tokenize_upload_and_error_pass_axe(browser, app_url, artifacts, size, tmp_path):
    """Tokenize with an uploaded tokenizer file, then with a broken one (its error)."""
    good = tmp_path / "tokenizer.json"
    _tokenizer_file(good)
    broken = tmp_path / "broken.json"
    broken.write_text('{"model": ', encoding="utf-8")
    context = browser.new_context(**SIZES[size])
    page = context.new_page()
    page.set_default_timeout(60_000)
    checker = Checker(page, size, artifacts)
    try:
        page.goto(f"{app_url}/tokenize-text")
        ready(page)
        page.get_by_text("Your own tokenizer file").click()
        ready(page)
        page.locator("[class*='st-key-tokenize_w_upload'] input[type=file]").first.set_input_files(str(good))
        expect(page.get_by_text("WordPiece").first).to_be_visible()
        checker.check("tokenize-upload")
        page.goto(f"{app_url}/tokenize-text")
        ready(page)
        page.get_by_text("Your own tokenizer file").click()
        ready(page)
        page.locator("[class*='st-key-tokenize_w_upload'] input[type=file]").first.set_input_files(str(broken))
        expect(page.get_by_test_id("stAlertContentError").first).to_be_visible()
        checker.check("tokenize-error")
    finally:
        context.close()
    assert not checker.found, checker.report()
