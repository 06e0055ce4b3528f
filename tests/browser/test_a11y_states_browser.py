"""Accessibility in a real browser, in the states the tests reach: axe-core's WCAG 2.1
A/AA rules and no sideways scroll at 1440x900 and on a 390x844 touch phone on Train after
a Step, at its last step, with a predict-mode question and in the presentation view, Join
with a class code that does not exist (an error), Tokenize with an uploaded tokenizer file
and with a broken one (its error); the student's Train page on a phone (Step and its
sentence on screen, the live region); the keyboard alone through Train and Tokenize.
test_a11y_browser.py checks every page and tab as first opened.

A serious or critical violation fails the test, and the message lists each one (rule,
element, axe's summary). Screenshots: test-artifacts/a11y-<size>-<state>.png and
a11y-phone-*.png, a11y-keyboard-*.png. The tests of a size share one browser context
(`sized_contexts`); each opens its own page.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.a11y import SIZES, Checker, open_page, ready, sideways


def _tokenizer_file(path) -> None:
    """A small WordPiece tokenizer.json (Hugging Face tokenizers), for an upload."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(["tokenizers split words into pieces"] * 5,
                            trainers.WordPieceTrainer(vocab_size=60, show_progress=False, special_tokens=["[UNK]"]))
    tok.save(str(path))


@pytest.mark.parametrize("size", list(SIZES))
def test_train_states_pass_axe(sized_contexts, app_url, artifacts, size):
    """Train after a Step, at the last step, with a predict-mode question and in the
    presentation view; a class code that does not exist (an error)."""
    page = open_page(sized_contexts, size)
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
        page.goto(f"{app_url}/train-bpe?preset=sennrich&step=4&view=present")
        expect(page.locator(".tp-sentence")).to_contain_text("Merged")
        checker.check("train-present")
        page.goto(f"{app_url}/join?code=ZZZZ-ZZZZ")
        expect(page.get_by_test_id("stAlertContentError")).to_be_visible()
        checker.check("join-error")
    finally:
        page.close()
    assert not checker.found, checker.report()


@pytest.mark.parametrize("size", list(SIZES))
def test_tokenize_upload_and_error_pass_axe(sized_contexts, app_url, artifacts, size, tmp_path):
    """Tokenize with an uploaded tokenizer file, then with a broken one (its error)."""
    good = tmp_path / "tokenizer.json"
    _tokenizer_file(good)
    broken = tmp_path / "broken.json"
    broken.write_text('{"model": ', encoding="utf-8")
    page = open_page(sized_contexts, size)
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
        page.close()
    assert not checker.found, checker.report()


# ---- the student on a phone: Step and its sentence on screen, the bar stays -------------------
def _inside(page: Page, selector: str, width: int, height: int) -> bool:
    b = page.locator(selector).first.bounding_box()
    return b is not None and b["y"] >= 0 and b["y"] + b["height"] <= height and b["x"] >= 0 and b["x"] + b["width"] <= width


def test_on_a_phone_step_and_its_sentence_are_on_screen_and_announced(sized_contexts, app_url, artifacts):
    """390x844, touch: after a tap on Step, the Step button and the step's sentence are both
    on screen without scrolling; scrolled down to the corpus, the compact bar (Back, "Step k
    of n", Step) and the sentence are still there; the live region says the step; nothing
    scrolls sideways, and the pair table scrolls inside its own box."""
    page = open_page(sized_contexts, "phone")
    try:
        page.goto(f"{app_url}/train-bpe?preset=sennrich&step=0")
        ready(page)
        step = ".st-key-train_w_btn_step button:visible"
        page.locator(step).tap()
        expect(page.locator(".st-key-train_w_step:not([data-stale=true])")).to_contain_text("Step 1 of 10")
        expect(page.locator(".tp-sentence")).to_contain_text("Merged")
        ready(page)
        assert _inside(page, step, 390, 844) and _inside(page, ".tp-sentence", 390, 844)
        for key in ("train_w_btn_back", "train_w_btn_step", "train_w_btn_play"):
            assert _inside(page, f".st-key-{key} button:visible", 390, 844), key
        bar = page.locator(".st-key-train_w_buttons").bounding_box()
        assert bar["height"] < 60, "the bar is one row"
        page.screenshot(path=str(artifacts / "a11y-phone-train-after-tap.png"))
        live = page.locator("#bpe-live")
        expect(live).to_have_attribute("aria-live", "polite")
        expect(live).to_have_text(re.compile(r"^Step 1 of 10\. Merged e \+ s into es \(count 9\)\."))

        page.evaluate("document.querySelector('.stMain').scrollTop = 1600")
        expect(page.get_by_role("heading", name="The corpus after 1 merge")).to_be_in_viewport()
        assert _inside(page, step, 390, 844) and _inside(page, ".tp-sentence", 390, 844)
        page.screenshot(path=str(artifacts / "a11y-phone-train-scrolled.png"))
        page.locator(step).tap()  # Step works from the stuck bar
        expect(page.locator(".st-key-train_w_step:not([data-stale=true])")).to_contain_text("Step 2 of 10")
        expect(live).to_have_text(re.compile(r"^Step 2 of 10\. Merged es \+ t into est"))
        ready(page)
        assert _inside(page, ".tp-sentence", 390, 844)
        assert sideways(page) == 0
        for box in page.locator(".tp-scroll").all():
            b = box.bounding_box()
            assert b["x"] >= 0 and b["x"] + b["width"] <= 391, "each table's box fits the screen"
    finally:
        page.close()


def test_on_a_phone_train_more_merges_is_on_screen_at_the_last_step(sized_contexts, app_url, artifacts):
    """390x844: a tap on Step to the last merge shows "Train 10 more merges" on screen,
    under the sentence; a tap on it goes on to merge 11 (Sennrich's words run out at 15)."""
    page = open_page(sized_contexts, "phone")
    try:
        page.goto(f"{app_url}/train-bpe?preset=sennrich&step=9")
        ready(page)
        page.locator(".st-key-train_w_btn_step button:visible").tap()
        more = page.locator(".st-key-train_w_btn_more button")
        expect(more).to_have_text(re.compile("Train 10 more merges"))
        ready(page)
        assert _inside(page, ".st-key-train_w_btn_more button", 390, 844)
        assert _inside(page, ".tp-sentence", 390, 844)
        expect(page.get_by_text("where this run is set to stop")).to_be_visible()
        assert page.get_by_text("the number asked for").count() == 0
        page.screenshot(path=str(artifacts / "a11y-phone-train-more.png"))
        more.tap()
        expect(page.locator(".st-key-train_w_step:not([data-stale=true])")).to_contain_text("Step 11 of 15")
        expect(page.locator("#bpe-live")).to_have_text(re.compile(r"^Step 11 of 15\. Merged "))
        assert sideways(page) == 0
    finally:
        page.close()


def test_on_a_phone_the_merges_next_badge_is_whole(sized_contexts, app_url, artifacts):
    """Predict mode on a phone, after an answer: the pair table scrolls in its own box and
    its "merges next" badge is drawn whole (not cut to "merg")."""
    page = open_page(sized_contexts, "phone")
    try:
        page.goto(f"{app_url}/train-bpe?preset=sennrich&step=0&mode=predict")
        ready(page)
        box = page.locator(".st-key-train_w_pick").get_by_role("combobox")
        box.click()
        box.fill("e + s")
        box.press("Enter")
        ready(page)
        page.locator(".st-key-train_w_btn_check button").click()
        badge = page.locator(".tp-badge.win")
        expect(badge).to_have_text("merges next")
        ready(page)
        badge.scroll_into_view_if_needed()
        assert badge.evaluate("e => e.scrollWidth <= e.clientWidth + 1 && getComputedStyle(e).whiteSpace === 'nowrap'")
        holder = badge.locator("xpath=ancestor::div[contains(@class,'tp-scroll')]")
        assert holder.get_attribute("tabindex") == "0"
        b, h = badge.bounding_box(), holder.bounding_box()
        assert b["x"] + b["width"] <= h["x"] + h["width"] + 1, "the badge shows whole inside its box"
        assert sideways(page) == 0
        holder.screenshot(path=str(artifacts / "a11y-phone-predict-badge.png"))
    finally:
        page.close()


# ---- the keyboard alone --------------------------------------------------------------------
def _tab_to(page: Page, selector: str, limit: int = 80, back: bool = False) -> None:
    """Press Tab (Shift+Tab with `back`) until the focus is on an element matching `selector`."""
    for _ in range(limit):
        if page.evaluate("s => !!document.activeElement && document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Shift+Tab" if back else "Tab")
    raise AssertionError(f"Tab never reached {selector}")


def _focus_ring(page: Page) -> str:
    """The focused element's outline (a visible focus: not 'none', at least 2 px)."""
    return page.evaluate("() => { const s = getComputedStyle(document.activeElement); "
                         "return s.outlineStyle + ' ' + s.outlineWidth; }")


def _visible_ring(ring: str) -> bool:
    style, width = ring.split()
    return style != "none" and float(width.rstrip("px")) >= 2


def test_keyboard_alone_steps_through_training_and_opens_a_chip(sized_contexts, app_url, artifacts):
    """1440x900, no mouse: Tab to Step (a visible focus ring), Enter steps; the → and ←
    keys step and step back; Tab reaches the merge list and Enter jumps to a merge; the
    slider moves with the arrow keys; predict mode is answered with the keyboard; on
    Tokenize, Tab reaches a chip and its details (id, bytes, rank) open, Enter opens its
    replay, and Tab and Enter on Next replay its first merge."""
    page = open_page(sized_contexts, "desktop")
    try:
        page.goto(f"{app_url}/train-bpe?preset=sennrich&step=0")
        ready(page)
        _tab_to(page, ".st-key-train_w_btn_step button")
        assert _visible_ring(_focus_ring(page)), _focus_ring(page)
        page.screenshot(path=str(artifacts / "a11y-keyboard-step-focus.png"))
        page.keyboard.press("Enter")
        expect(page.locator(".st-key-train_w_step:not([data-stale=true])")).to_contain_text("Step 1 of 10")
        ready(page)
        page.evaluate("document.activeElement && document.activeElement.blur()")  # the page's own keys
        page.keyboard.press("ArrowRight")  # the Step button's shortcut
        expect(page.locator(".st-key-train_w_step:not([data-stale=true])")).to_contain_text("Step 2 of 10")
        ready(page)
        page.keyboard.press("ArrowLeft")  # Back's
        expect(page.locator(".st-key-train_w_step:not([data-stale=true])")).to_contain_text("Step 1 of 10")
        ready(page)
        page.keyboard.press("ArrowRight")
        expect(page.locator(".st-key-train_w_step:not([data-stale=true])")).to_contain_text("Step 2 of 10")
        ready(page)
        _tab_to(page, ".st-key-train_w_goto_1 button")
        assert _visible_ring(_focus_ring(page)), _focus_ring(page)
        page.keyboard.press("Enter")  # the merge list jumps
        expect(page.locator(".st-key-train_w_step:not([data-stale=true])")).to_contain_text("Step 1 of 10")
        ready(page)
        _tab_to(page, ".st-key-train_w_step [role=slider], .st-key-train_w_step input[type=range]", back=True)
        page.keyboard.press("ArrowRight")  # the slider moves, and the page follows
        expect(page.locator(".st-key-train_w_step:not([data-stale=true])")).to_contain_text("Step 2 of 10")
        ready(page)

        page.goto(f"{app_url}/train-bpe?preset=sennrich&step=0&mode=predict")
        ready(page)
        _tab_to(page, ".st-key-train_w_pick input")
        page.keyboard.type("e + s")
        page.keyboard.press("Enter")
        ready(page)
        _tab_to(page, ".st-key-train_w_btn_check button")
        assert _visible_ring(_focus_ring(page)), _focus_ring(page)
        page.keyboard.press("Enter")
        expect(page.locator(".tp-fb.ok")).to_be_visible()
        ready(page)
        page.screenshot(path=str(artifacts / "a11y-keyboard-predict.png"))

        page.goto(f"{app_url}/tokenize-text?tokenizer=gpt2&text=unbelievable%20tokenization")
        ready(page)
        _tab_to(page, ".bpe-tap span[tabindex]", limit=120)
        assert _visible_ring(_focus_ring(page)), _focus_ring(page)
        details = page.evaluate("() => getComputedStyle(document.activeElement, '::before').content")
        assert "id " in details and "bytes " in details, details
        page.screenshot(path=str(artifacts / "a11y-keyboard-chip.png"))
        page.keyboard.press("Enter")  # the chip's replay opens
        expect(page.get_by_role("radio", name="Replay merges")).to_be_checked()
        ready(page)
        merge = page.locator(".st-key-tokenize_w_replay_step input[type=range]")
        expect(merge).to_have_value("0")
        _tab_to(page, ".st-key-tokenize_w_next button")
        assert _visible_ring(_focus_ring(page)), _focus_ring(page)
        page.keyboard.press("Enter")  # replay: the next merge
        expect(merge).to_have_value("1")
        ready(page)
        page.screenshot(path=str(artifacts / "a11y-keyboard-replay.png"))
    finally:
        page.close()
