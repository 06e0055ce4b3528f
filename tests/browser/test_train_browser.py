"""The Train page in a real browser: choose Sennrich, step, step back, play to the end,
compare the merge list with the engine's, then open the shared link in a new page.

Screenshots go to test-artifacts/ (train-step2.png, train-end.png, train-shared.png,
train-present.png, train-predict.png).
"""
from __future__ import annotations

import re

import pytest

from playwright.sync_api import Page, expect

from bpe_core import train
from ui.train.config import build_word_table, load_presets, preset_corpus

SENNRICH_TITLE = load_presets()["sennrich"].title


def engine_merges() -> list[tuple[str, str]]:
    """(rank, label) of every merge, as the merge list's buttons name them."""
    from ui.train.merges import merge_row_label
    from ui.train.run_view import RunView

    s = load_presets()["sennrich"].settings
    words, _ = build_word_table(preset_corpus("sennrich"), s)
    view = RunView(train(words, s.trainer_settings()))
    return [(str(e.step), " ".join(merge_row_label(view, e.step).split())) for e in view.run.events]


#: (rank, label) of every row of the merge list (its navigator buttons), read in one go
#: (a rerun may replace the rows between two separate reads).
_ROWS_JS = """Array.from(document.querySelectorAll('[class*="st-key-train_w_goto_"]')).map(el => [
  el.className.match(/st-key-train_w_goto_(\\d+)/)[1],
  el.querySelector('button').textContent.replace('◀ now', '').trim().split(/\\s+/).join(' ')])"""


def shown_merges(page: Page) -> list[tuple[str, str]]:
    return [tuple(r) for r in page.evaluate(_ROWS_JS)]


def expect_merges(page: Page, expected: list[tuple[str, str]]) -> None:
    """Wait (auto-retrying, like expect) until the merge list shows exactly `expected`."""
    try:
        page.wait_for_function(f"want => JSON.stringify({_ROWS_JS}) === JSON.stringify(want)",
                               arg=[list(r) for r in expected], timeout=20_000)
    except Exception:
        pass  # the assertion below shows the difference
    assert shown_merges(page) == expected


def button(page: Page, key: str):
    # Streamlit draws a hidden twin of a button with help text; take the visible one.
    return page.locator(f".st-key-{key} button:visible")


def settled(page: Page) -> None:
    """Wait until Streamlit has loaded every widget (it draws a skeleton until a widget's
    code arrives; a widget that loads late re-renders the page and closes open dropdowns)."""
    expect(page.get_by_test_id("stSkeleton")).to_have_count(0, timeout=30_000)


def idle(page: Page) -> None:
    """Wait until no script run is in progress (a click during a run can be lost when the
    run replaces the element)."""
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning", timeout=30_000)


def click(page: Page, key: str) -> None:
    idle(page)
    button(page, key).click()


def choose(page: Page, key: str, typed: str, value: re.Pattern) -> None:
    """Pick an option of the selectbox `key` by typing part of it and pressing Enter."""
    box = page.locator(f".st-key-{key}").get_by_role("combobox")
    settled(page)
    box.click()
    box.fill(typed)
    box.press("Enter")
    expect(box).to_have_value(value)
    idle(page)


def expect_step(page: Page, k: int, n: int = 10) -> None:
    expect(page.locator(".st-key-train_w_step:not([data-stale=true])")).to_contain_text(f"Step {k} of {n}", timeout=30_000)


def full_height_screenshot(page: Page, path) -> None:
    page.set_viewport_size({"width": 1400, "height": 2600})
    page.screenshot(path=str(path))
    page.set_viewport_size({"width": 1400, "height": 1800})


def test_train_sennrich_step_back_play_and_share(page: Page, app_url, artifacts, browser):
    page.goto(app_url)
    page.get_by_role("link", name="Train", exact=True).click()
    # the first page of a fresh server: its cold start can pass 5 s on a busy machine
    expect(page.get_by_role("heading", name="Train a BPE tokenizer")).to_be_visible(timeout=20_000)

    # choose the Sennrich preset (it is the default; pick it explicitly anyway) in the
    # settings, folded away while a run is on screen
    page.get_by_text("Corpus and settings").click()
    choose(page, "train_w_preset", "toy words", re.compile(re.escape(SENNRICH_TITLE)))
    expect_step(page, 0)

    for k in (1, 2, 3):
        click(page, "train_w_btn_step")
        expect_step(page, k)
    expect(page.locator(".tp-sentence")).to_contain_text("Merged")
    click(page, "train_w_btn_back")
    expect_step(page, 2)
    # stepping reruns only a fragment; the sidebar's caption follows it all the same
    expect(page.get_by_test_id("stSidebar")).to_contain_text("step 2 of 10")
    expect_merges(page, engine_merges()[:2])
    full_height_screenshot(page, artifacts / "train-step2.png")

    # play to the end, fast (0.5 s: at 0.3 s a tick can arrive while a loaded server is
    # still drawing the previous one)
    click(page, "train_w_speed")
    expect(button(page, "train_w_speed")).to_contain_text("Speed: 0.5 s per step")
    idle(page)
    click(page, "train_w_btn_play")
    expect_step(page, 10)
    expect(button(page, "train_w_btn_play")).to_contain_text("Play")  # play stopped by itself
    expect_merges(page, engine_merges())
    expect(page.get_by_text("Training stopped after 10 merges")).to_be_visible()
    expect(page.get_by_test_id("stSidebar")).to_contain_text("step 10 of 10")
    full_height_screenshot(page, artifacts / "train-end.png")

    # the shared link reproduces the view in a new page (a new session)
    page.get_by_text("Download and share").click()
    link = page.locator(".stCode code").inner_text().strip()
    assert "preset=sennrich" in link and "step=10" in link, link
    other = page.context.browser.new_context(viewport={"width": 1400, "height": 2600}).new_page()
    other.goto(link)
    expect_step(other, 10)
    expect_merges(other, engine_merges())
    other.screenshot(path=str(artifacts / "train-shared.png"))
    other.context.close()


def test_presentation_view_and_predict_mode(page: Page, app_url, artifacts):
    page.goto(app_url + "/train-bpe?preset=sennrich_figure1&step=0&view=present")
    expect_step(page, 0)
    click(page, "train_w_btn_step")
    expect_step(page, 1)
    expect(page.locator(".tp-sentence.present")).to_contain_text("Tied with")
    expect(page.get_by_text("Corpus and settings")).to_have_count(0)
    page.set_viewport_size({"width": 1400, "height": 1500})
    page.screenshot(path=str(artifacts / "train-present.png"))

    page.goto(app_url + "/train-bpe?preset=sennrich&step=0&mode=predict")
    expect(page.get_by_text("Which pair merges next (merge 1)?")).to_be_visible()
    choose(page, "train_w_pick", "s + t", re.compile(r"^#\d+: +s \+ t$"))
    click(page, "train_w_btn_check")
    expect(page.get_by_text("Counts as right")).to_be_visible()
    expect(page.get_by_text("Score: 1 of 1 pair right", exact=False)).to_be_visible()
    page.set_viewport_size({"width": 1400, "height": 2200})
    page.screenshot(path=str(artifacts / "train-predict.png"))


# ---- issue 13: the controls in reach, presentation at a projector, a phone -------------------
def open_train(page: Page, app_url: str, query: str) -> None:
    page.goto(app_url + "/train-bpe?" + query)
    expect(page.locator(".st-key-train_w_step:not([data-stale=true])")).to_be_visible(timeout=30_000)
    settled(page)
    idle(page)


def box(page: Page, selector: str) -> dict:
    loc = page.locator(selector).first
    expect(loc).to_be_visible()
    return loc.bounding_box()


def inside(b: dict, width: int, height: int) -> bool:
    return b["y"] >= 0 and b["y"] + b["height"] <= height and b["x"] >= 0 and b["x"] + b["width"] <= width


def test_step_and_sentence_in_the_first_viewport_and_the_bar_stays(browser, app_url, artifacts):
    """1440x900: the Step button and the sentence are on screen without scrolling, and
    stay there (a sticky bar) after scrolling down to the corpus; a merge list row jumps
    to its step; the joining chip animates unless the reader asks for reduced motion."""
    page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
    open_train(page, app_url, "preset=sennrich&step=0")
    click(page, "train_w_btn_step")
    expect_step(page, 1)
    expect(page.locator(".tp-sentence")).to_contain_text("Merged")
    assert inside(box(page, ".st-key-train_w_btn_step button:visible"), 1440, 900)
    assert inside(box(page, ".tp-sentence"), 1440, 900)
    page.screenshot(path=str(artifacts / "train-1440-top.png"))

    page.mouse.move(900, 700)
    page.mouse.wheel(0, 1400)
    expect(page.get_by_role("heading", name="The corpus after 1 merge")).to_be_in_viewport()
    page.wait_for_function("document.querySelector('.stMain').scrollTop > 600")
    assert inside(box(page, ".st-key-train_w_btn_step button:visible"), 1440, 900)
    assert inside(box(page, ".tp-sentence"), 1440, 900)
    page.screenshot(path=str(artifacts / "train-1440-scrolled.png"))
    click(page, "train_w_btn_step")  # Step works from the stuck bar
    expect_step(page, 2)
    expect(page.locator(".tp-effect")).to_have_attribute("data-merge", "2")
    assert page.locator(".tp-join").first.evaluate("e => getComputedStyle(e).animationName") == "tp-join"

    page.locator(".st-key-train_w_goto_1 button").click()  # the merge list navigates
    expect_step(page, 1)
    page.emulate_media(reduced_motion="reduce")
    assert page.locator(".tp-join").first.evaluate("e => getComputedStyle(e).animationName") == "none"
    page.context.close()


def test_presentation_fits_a_projector(browser, app_url, artifacts):
    """1920x1080 presentation view: the sentence, the top pairs and the corpus without
    scrolling; the slider's number sits above its track, not on it."""
    page = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    open_train(page, app_url, "preset=sennrich&step=4&view=present")
    expect(page.locator(".tp-sentence.present")).to_contain_text("Merged")
    page.screenshot(path=str(artifacts / "train-present-1920.png"))
    number = box(page, ".st-key-train_w_step [data-testid=stSliderThumbValue]")
    track = box(page, ".st-key-train_w_step [role=group] > div > div:first-child")  # the rail
    assert number["y"] + number["height"] <= track["y"] + 1, (number, track)
    assert inside(box(page, ".tp-sentence"), 1920, 1080)
    top_pairs = page.locator("table.tp-table").first.locator("tr[data-pair]")
    expect(top_pairs.first).to_be_visible()
    assert top_pairs.count() >= 5 and inside(top_pairs.last.bounding_box(), 1920, 1080)
    assert inside(box(page, ".tp-words"), 1920, 1080)
    page.context.close()


_TOO_WIDE_JS = """() => { const vw = innerWidth; const bad = [];
  for (const e of document.querySelectorAll('.stMain *')) {
    const r = e.getBoundingClientRect();
    if (!r.width || r.right <= vw + 1) continue;
    let clipped = false;  // inside a box that scrolls or clips within the screen: fine
    for (let a = e.parentElement; a && !a.classList.contains('stMain'); a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible' && a.getBoundingClientRect().right <= vw + 1) { clipped = true; break; }
    }
    if (!clipped) bad.push(e.tagName + '.' + String(e.className).slice(0, 50) + ' right=' + Math.round(r.right));
  }
  return bad; }"""


@pytest.mark.parametrize("view", ["normal", "present"])
def test_nothing_wider_than_a_phone(browser, app_url, artifacts, view):
    page = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page()
    open_train(page, app_url, f"preset=sennrich&step=4&view={view}")
    expect(page.locator(".tp-words")).to_be_visible()
    page.set_viewport_size({"width": 390, "height": 3000})
    page.screenshot(path=str(artifacts / f"train-phone-{view}.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate(_TOO_WIDE_JS) == []
    assert page.evaluate("document.querySelector('.stMain').scrollWidth") <= 390
    page.context.close()
