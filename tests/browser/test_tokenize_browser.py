"""The Tokenize page in a real browser: count shown equals tiktoken's, replay steps,
pasted HTML stays text, and screenshots to look at (test-artifacts/tokenize_*.png).

Waits use Playwright's auto-retrying `expect`, never sleeps. Pages are opened by deep
links: the `app_url` fixture has opened the home page once (a fresh server knows its page
list only once app.py has run).
"""
from __future__ import annotations

import json
import re
import time

import pytest
import tiktoken
from playwright.sync_api import Page, expect

from bpe_core.pretrained.openai_files import load_openai_encoding

MULTILINGUAL = (
    "English: Good morning! The library opens at 9:30 today.\n"
    "Deutsch: Guten Morgen! Die Bibliothek öffnet heute um 9:30 Uhr.\n"
    "Ελληνικά: Καλημέρα! Η βιβλιοθήκη ανοίγει σήμερα.\n"
    "Русский: Доброе утро! Сегодня библиотека открывается в 9:30.\n"
    "中文：早上好！图书馆今天九点半开门。\n"
    "日本語：おはようございます！\n"
    "한국어: 좋은 아침입니다!\n"
    "Emoji: 👩‍💻 👍🏽 🇯🇵"
)
PAYLOAD = "<img src=x onerror=alert(1)><script>window.__pwned=1</script>"


@pytest.fixture(autouse=True)
def patient_expect(page: Page, app_url):
    """Tokenizers load on first use (about a second each; over 20 s once with the machine's
    load average at 24): wait up to 30 s, then restore.
    Pasting goes through the real clipboard, as a user's paste does."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_url)
    expect.set_options(timeout=30_000)
    yield
    expect.set_options(timeout=5_000)


def reference(name: str) -> tiktoken.Encoding:
    f = load_openai_encoding(name)
    return tiktoken.Encoding(name, pat_str=f.pattern, mergeable_ranks=f.mergeable_ranks,
                             special_tokens=f.special_tokens)


def open_tokenize(page: Page, app_url: str, query: str = "") -> None:
    page.goto(f"{app_url}/tokenize-text{query}")
    expect(page.get_by_role("heading", name="Tokenize text")).to_be_visible()
    expect(metric(page, "Tokens")).to_be_visible()


def metric(page: Page, label: str):
    """The value of one of the counts above the chips (one HTML block, counts_html)."""
    return page.locator(f'.bpe-count[data-label="{label}"] .bpe-count-value')


def idle(page: Page) -> None:
    """Wait until no script run is in progress: a run still going (say, after a click on
    the tokenizer) redraws the text box and can swallow a paste made meanwhile."""
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning", timeout=30_000)


def paste(page: Page, text: str, *, apply: bool = True, before_paste=None) -> None:
    """Paste text over the Text box's content through the clipboard; the page applies a
    paste by itself (ui/shared/live_text.py), and with `apply` Ctrl+Enter is pressed too
    (harmless once applied). `before_paste` runs just before Ctrl+V (a timer's start).
    (Playwright's fill types through the editing pipeline, which takes a minute for
    100 kB; a real paste takes well under a second.)"""
    idle(page)
    page.evaluate("(t) => navigator.clipboard.writeText(t)", text)
    box = page.get_by_role("textbox", name="Text")
    box.click()
    box.press("Control+A")
    if before_paste is not None:
        before_paste()
    box.press("Control+V")
    expect(box).to_have_value(text)
    if apply:
        box.press("Control+Enter")


def chips(page: Page):
    """The chips of the main drawing: every span in it but end-of-word markers."""
    return page.locator(".bpe-tokens.bpe-scroll").first.locator("span:not(.mk)")


#: For every chip of the main drawing: its computed background colour and border width.
CHIP_STYLES = """() => Array.from(document.querySelector('.bpe-tokens.bpe-scroll').querySelectorAll('span:not(.mk)'),
    (el) => { const cs = getComputedStyle(el); return [cs.backgroundColor, cs.borderTopWidth, cs.borderTopStyle]; })"""


CHIPS_DRAWN = """(n) => { const box = document.querySelector('.bpe-tokens.bpe-scroll');
    return box !== null && box.querySelectorAll('span:not(.mk)').length === n; }"""


def assert_neighbours_differ(page: Page, n: int) -> None:
    """As drawn: n chips, each with a border, no two neighbours the same colour."""
    styles = page.evaluate(CHIP_STYLES)
    assert len(styles) == n
    assert all(width != "0px" and style != "none" for _, width, style in styles)
    clashes = [i for i in range(1, n) if styles[i][0] == styles[i - 1][0]]
    assert not clashes, f"neighbouring chips share a colour at {clashes[:5]}"
    assert len({bg for bg, _, _ in styles}) >= 6


def test_multilingual_count_equals_tiktoken_and_replay_steps(page: Page, app_url, artifacts):
    open_tokenize(page, app_url)
    page.get_by_role("radio", name="GPT-4o · o200k").click()
    expect(page.get_by_text("GPT-4o (o200k_base, 200,019 tokens)")).to_be_visible()
    paste(page, MULTILINGUAL)
    ids = reference("o200k_base").encode_ordinary(MULTILINGUAL)
    expect(metric(page, "Tokens")).to_have_text(f"{len(ids):,}")
    expect(metric(page, "Characters")).to_have_text(f"{len(MULTILINGUAL):,}")
    # a count's help shows on focus (a tap on a phone), as the metric's tooltip did
    help_tip = page.locator('.bpe-count[data-label="Characters"] .bpe-tip')
    expect(help_tip).to_be_hidden()
    page.locator('.bpe-count[data-label="Characters"] .bpe-help').focus()
    expect(help_tip).to_be_visible()
    expect(help_tip).to_contain_text("Unicode code points")
    expect(chips(page)).to_have_count(len(ids))
    assert_neighbours_differ(page, len(ids))
    expect(page.locator('.st-key-tokenize-ids [data-testid="stText"]').first).to_contain_text(", ".join(map(str, ids[:5])))
    # "Download all ids" makes its file on click (a deferred download): the ids the page shows
    with page.expect_download() as download:
        page.get_by_role("button", name="Download all ids (JSON)").click()
    assert download.value.suggested_filename.endswith("_ids.json")
    assert json.loads(open(download.value.path(), encoding="utf-8").read()) == ids
    title = chips(page).first.get_attribute("title")
    assert title.startswith(f"id {ids[0]}\nbytes ") and f"rank {ids[0]}" in title
    page.locator(".bpe-tokens.bpe-scroll").first.screenshot(path=str(artifacts / "tokenize_multilingual_tokens.png"))
    page.screenshot(path=str(artifacts / "tokenize_page.png"), full_page=True)

    # Replay one token: pick it in the list, then step through every merge.
    page.get_by_role("radio", name="Replay merges").click()
    picker = page.get_by_role("combobox", name=re.compile("Token to replay"))
    expect(picker).to_be_visible()
    picker.click()
    picker.fill("library")
    page.get_by_role("option", name=re.compile(r"·library")).first.click()
    expect(picker).to_have_value(re.compile(r"·library"))
    expect(page.locator(".bpe-scroll .bpe-tok.hl")).to_have_count(1)
    ladder_rows = page.locator(".bpe-ladder .bpe-row")
    expect(ladder_rows).to_have_count(1)
    next_button = page.get_by_role("button", name="Next")
    merges = 0
    while next_button.is_enabled():
        next_button.click()
        merges += 1
        expect(ladder_rows).to_have_count(merges + 1)
        expect(page.get_by_text(re.compile(rf"Merge {merges} of \d+"))).to_be_visible()
        if merges == 2:
            page.locator(".st-key-tokenize-view").screenshot(path=str(artifacts / "tokenize_replay_midway.png"))
    assert merges >= 2
    expect(ladder_rows.last.locator(".bpe-tok")).to_have_count(1)  # " library" is one token at the end
    expect(ladder_rows.last.locator(".bpe-tok")).to_have_text("·library")
    page.get_by_role("button", name="Back").click()
    expect(ladder_rows).to_have_count(merges)
    page.keyboard.press("ArrowLeft")  # keyboard shortcuts: ← back, → next
    expect(ladder_rows).to_have_count(merges - 1)
    page.keyboard.press("ArrowRight")
    expect(ladder_rows).to_have_count(merges)
    page.locator(".st-key-tokenize-view").screenshot(path=str(artifacts / "tokenize_replay.png"))


def test_pasted_html_and_script_stay_text(page: Page, app_url, artifacts):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    open_tokenize(page, app_url)
    paste(page, PAYLOAD)
    n = len(reference("cl100k_base").encode_ordinary(PAYLOAD))
    expect(metric(page, "Tokens")).to_have_text(str(n))
    expect(chips(page)).to_have_count(n)
    expect(page.locator(".bpe-tokens").first).to_contain_text("<img")  # shown as text
    expect(page.locator("img[src=x]")).to_have_count(0)
    expect(page.locator(".bpe-tokens script")).to_have_count(0)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert dialogs == []
    page.locator(".bpe-tokens.bpe-scroll").first.screenshot(path=str(artifacts / "tokenize_html_as_text.png"))


def test_special_tokens_and_compare(page: Page, app_url, artifacts):
    open_tokenize(page, app_url)
    page.get_by_role("radio", name="Special token", exact=True).click()
    expect(page.get_by_text("It is encoded as ordinary text", exact=False)).to_be_visible()
    page.locator('[data-testid="stCheckbox"]').get_by_text("Allow special tokens").click()
    expect(page.get_by_text("Special tokens are allowed", exact=False)).to_be_visible()
    expect(page.locator(".bpe-scroll .bpe-tok.special")).to_have_count(1)
    page.locator(".st-key-tokenize-tokens").screenshot(path=str(artifacts / "tokenize_special_tokens.png"))
    page.locator('[data-testid="stAlert"]').first.screenshot(path=str(artifacts / "tokenize_special_notice.png"))
    page.get_by_role("radio", name="Compare").click()
    # the text's drawing and Compare's four (GPT-2, cl100k, o200k and Mistral 7B by default)
    expect(page.locator(".bpe-tokens.bpe-scroll")).to_have_count(5)
    page.locator(".st-key-tokenize-view").screenshot(path=str(artifacts / "tokenize_compare.png"))


def test_a_link_reproduces_the_view(page: Page, app_url, artifacts):
    open_tokenize(page, app_url, "?tokenizer=gpt2&text=unbelievable%20tokenization&view=replay&token=2")
    ids = reference("gpt2").encode_ordinary("unbelievable tokenization")
    expect(metric(page, "Tokens")).to_have_text(str(len(ids)))
    expect(page.get_by_role("radio", name="GPT-2", exact=True)).to_be_checked()
    expect(page.locator(".bpe-ladder")).to_be_visible()
    expect(page.get_by_role("combobox", name=re.compile("Token to replay"))).to_have_value(re.compile(r"^#2 "))
    assert "tokenizer=gpt2" in page.url and "view=replay" in page.url


def test_paint_times_for_20_and_100_kB(page: Page, app_url, artifacts):
    """Measures (does not assert) how long a paste takes, from Ctrl+V (the page applies a
    paste by itself, with no Ctrl+Enter), to show its count and chips
    (20 kB, 100 kB, then 20 kB again over the 100 kB shown whole), and how long the
    browser's main thread was busy meanwhile (CPU work of the page: sanitizing, building,
    laying out; less sensitive to a busy machine than the wall clock); then the same for
    **Show all**. Asserts only what is drawn: the
    first CHIP_LIMIT chips, then every chip, neighbours differ, blocks."""
    from ui.tokenize.widgets import CHIP_LIMIT

    import pydoc_data.topics

    corpus = "".join(pydoc_data.topics.topics.values()).encode()
    open_tokenize(page, app_url)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")

    def busy() -> float:
        return next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "TaskDuration")

    timings: dict = {}
    # Growing, then shrinking: the second 20 kB paste replaces 100 kB of chips, and the
    # counts below show no chip of the longer text is left behind. (Repeated timings are
    # bench/'s job: bench/bench_browser.py --only paste.)
    for run, size in ((0, 20_000), (0, 100_000), (1, 20_000)):
        text = corpus[run * 5_000 : run * 5_000 + size].decode("utf-8", errors="ignore")
        n = len(reference("cl100k_base").encode_ordinary(text))
        clock = {}
        paste(page, text, apply=False, before_paste=lambda: clock.update(busy=busy(), start=time.perf_counter()))
        busy0, start = clock["busy"], clock["start"]
        expect(metric(page, "Tokens")).to_have_text(f"{n:,}", timeout=30_000)
        count_s = time.perf_counter() - start
        # A plain querySelectorAll poll: Playwright's own selector engine, polled over
        # 22,000 chips, would add its own work to the time measured.
        first = min(n, CHIP_LIMIT)
        page.wait_for_function(CHIPS_DRAWN, arg=first, polling=50, timeout=30_000)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        chips_s = time.perf_counter() - start
        expect(chips(page)).to_have_count(first)
        entry = timings.setdefault(f"{size // 1000} kB", {
            "tokens": [], "seconds_to_count": [], "seconds_to_count_and_chips": [], "main_thread_busy_seconds": [],
            "show_all_seconds": [], "show_all_main_thread_busy_seconds": []})
        entry["tokens"].append(n)
        entry["seconds_to_count"].append(round(count_s, 3))
        entry["seconds_to_count_and_chips"].append(round(chips_s, 3))
        entry["main_thread_busy_seconds"].append(round(busy() - busy0, 3))
        idle(page)
        busy0, start = busy(), time.perf_counter()
        page.get_by_role("button", name=re.compile(r"^Show all [\d,]+ tokens")).click()
        page.wait_for_function(CHIPS_DRAWN, arg=n, polling=50, timeout=30_000)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        entry["show_all_seconds"].append(round(time.perf_counter() - start, 3))
        entry["show_all_main_thread_busy_seconds"].append(round(busy() - busy0, 3))
        expect(chips(page)).to_have_count(n)
        if run == 0 and size == 100_000:
            assert_neighbours_differ(page, n)  # across the blocks too
            assert page.locator(".bpe-tokens.bpe-scroll .bpe-block").count() > 10
    (artifacts / "tokenize_timings.json").write_text(json.dumps(timings, indent=2))
    print(timings)


def test_typing_updates_tokens_without_ctrl_enter(page: Page, app_url, artifacts):
    """Typed text is applied after a pause in typing: no Ctrl+Enter, no click outside.
    While the typed text is not drawn yet, the tokens are marked "Updating…"
    (ui/shared/live_text.py); the mark goes once the new tokens are drawn."""
    open_tokenize(page, app_url, "?tokenizer=cl100k_base&text=hello")
    expect(metric(page, "Tokens")).to_have_text("1")
    idle(page)
    box = page.get_by_role("textbox", name="Text")
    box.click()
    box.press("End")
    tokens = page.locator(".st-key-tokenize-tokens")
    # slow typing (80 ms a key, under the pause): the mark is up while keys come in
    box.press_sequentially(" world, typed", delay=80)
    expect(tokens).to_have_attribute("data-bpe-stale", "")
    page.screenshot(path=str(artifacts / "tokenize_typing_updating.png"))
    expected = len(reference("cl100k_base").encode_ordinary("hello world, typed"))
    expect(metric(page, "Tokens")).to_have_text(str(expected))
    expect(tokens).not_to_have_attribute("data-bpe-stale", "")
    expect(box).to_be_focused()  # typing goes on in the box
    expect(chips(page)).to_have_count(expected)
    page.screenshot(path=str(artifacts / "tokenize_typing_updated.png"))
    # a paste applies at once, with no key pressed after it
    paste(page, "a pasted sentence", apply=False)
    expect(metric(page, "Tokens")).to_have_text(str(len(reference("cl100k_base").encode_ordinary("a pasted sentence"))))
    # typed and undone before the pause ends: nothing to apply, and the mark goes
    idle(page)
    box.press("End")
    box.press("x")
    box.press("Backspace")
    expect(tokens).not_to_have_attribute("data-bpe-stale", "")
    expect(box).to_have_value("a pasted sentence")


def test_a_click_or_enter_on_a_chip_opens_its_replay(page: Page, app_url, artifacts):
    """A click on the third chip opens the Replay view of token #3 (outlined in the text);
    from the keyboard, Tab to a chip and Enter does the same (ui/shared/chip_pick.py)."""
    open_tokenize(page, app_url, "?tokenizer=gpt2&text=unbelievable%20tokenization%20again")
    idle(page)
    expect(page.locator("html[data-bpe-chip-pick~='tokenize-tokens']")).to_have_count(1)
    chips(page).nth(2).click()
    replay = page.get_by_role("radio", name="Replay merges")
    expect(replay).to_be_checked()
    token = page.get_by_role("combobox", name=re.compile("^Token to replay"))
    expect(token).to_have_value(re.compile(r"^#3 "))
    expect(chips(page).nth(2)).to_have_class(re.compile(r"\bhl\b"))
    page.screenshot(path=str(artifacts / "tokenize_chip_click_replay.png"))
    idle(page)
    chips(page).nth(4).focus()
    page.keyboard.press("Enter")
    expect(token).to_have_value(re.compile(r"^#5 "))
    expect(chips(page).nth(4)).to_have_class(re.compile(r"\bhl\b"))
