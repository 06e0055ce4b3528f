"""The Train page in a real browser: choose Sennrich, step, step back, play to the end,
compare the merge list with the engine's, then open the shared link in a new page.

Screenshots go to test-artifacts/ (train-step2.png, train-end.png, train-shared.png,
train-present.png, train-predict.png).
"""
from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from bpe_core import train
from ui.train.config import build_word_table, load_presets, preset_corpus

SENNRICH_TITLE = load_presets()["sennrich"].title


def engine_merges() -> list[tuple[str, str, str, str]]:
    s = load_presets()["sennrich"].settings
    words, _ = build_word_table(preset_corpus("sennrich"), s)
    run = train(words, s.trainer_settings())
    return [(str(e.step), e.pair_text[0], e.pair_text[1], e.token) for e in run.events]


def shown_merges(page: Page) -> list[tuple[str, str, str, str]]:
    """(rank, left, right, token) of every row of the merge list, read in one go (a rerun
    may replace the rows between two separate reads)."""
    rows = page.locator("table.tp-merges tr[data-rank]").evaluate_all(
        "rows => rows.map(r => ['data-rank', 'data-left', 'data-right', 'data-token'].map(a => r.getAttribute(a)))"
    )
    return [tuple(r) for r in rows]


_ROWS_JS = "Array.from(document.querySelectorAll('table.tp-merges tr[data-rank]')).map(r => ['data-rank', 'data-left', 'data-right', 'data-token'].map(a => r.getAttribute(a)))"


def expect_merges(page: Page, expected: list[tuple[str, str, str, str]]) -> None:
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
    expect(page.locator(".st-key-train_w_step")).to_contain_text(f"Step {k} of {n}", timeout=30_000)


def full_height_screenshot(page: Page, path) -> None:
    page.set_viewport_size({"width": 1400, "height": 2600})
    page.screenshot(path=str(path))
    page.set_viewport_size({"width": 1400, "height": 1800})


def test_train_sennrich_step_back_play_and_share(page: Page, app_url, artifacts, browser):
    page.goto(app_url)
    page.get_by_role("link", name="Train", exact=True).click()
    expect(page.get_by_role("heading", name="Train a BPE tokenizer")).to_be_visible()

    # choose the Sennrich preset (it is the default; pick it explicitly anyway)
    choose(page, "train_w_preset", "Algorithm 1", re.compile(re.escape(SENNRICH_TITLE)))
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
    choose(page, "train_w_speed", "0.5", re.compile(r"^0\.5 s per step$"))
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
    # A fresh server knows its pages only after app.py has run once: open the app first
    # (a deep link as the very first request shows Streamlit's "Page not found" dialog).
    page.goto(app_url)
    expect(page.get_by_role("link", name="Train", exact=True)).to_be_visible()
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
