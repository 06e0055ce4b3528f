"""Token chips as drawn by a real browser, at a laptop (1440x900), a projector
(1920x1080) and a phone (390x844): every chip is one box (its client rects never span
two lines), the boxes on screen add up to the token count (a "\\n\\n\\n" token is one
chip), right-to-left chips stay in logical order with their byte labels readable and
the space mark on the side of the space, and invisible characters are named chips.

Screenshots land in test-artifacts/chips_*.png. Pages are opened by their URLs (text,
tokenizer and view in the query string), so no typing is needed.
"""
from __future__ import annotations

import html
import time

from urllib.parse import urlencode

import pytest
from playwright.sync_api import Page, expect

from bpe_core.pretrained import load_pretrained
from ui.shared.chips import chip_label, hex_bytes
from ui.tokenize.logic import EXAMPLES

VIEWPORTS = {"laptop": (1440, 900), "projector": (1920, 1080), "phone": (390, 844)}
ENGLISH = EXAMPLES["English"]
NEWLINES = "A title\n\n\nA paragraph after three newlines.\n\nAnd  another\n"
ARABIC = "مرحبا بالعالم، هذه جملة عربية قصيرة للاختبار. שלום עולם"
ZWJ = "coder 👩\u200d💻 at work"

#: Every chip of every drawing matching `sel`: client rects, text, and where its first
#: and last characters stand (a Range per character: the visual order inside the chip).
CHIP_BOXES = """(sel) => Array.from(document.querySelectorAll(sel), (run, r) =>
  Array.from(run.querySelectorAll(':scope > span, :scope > .bpe-block > span'), (el) => {
    const rects = Array.from(el.getClientRects(), (b) => [b.left, b.top, b.width, b.height]);
    const text = el.firstChild && el.firstChild.nodeType === 3 ? el.firstChild : null;
    const charX = (i) => { const g = document.createRange(); g.setStart(text, i); g.setEnd(text, i + 1);
                           return g.getBoundingClientRect().left; };
    const n = text ? text.length : 0;
    const ends = n >= 2 ? [charX(0), charX(n - 1), charX(1)] : null;
    return {run: r, rects, text: el.textContent, ends};
  })).flat()"""


@pytest.fixture(scope="module")
def _contexts(browser):
    """A browser context per viewport, shared by this file's tests (each gets its own
    page: a new session), so the app's scripts come from the HTTP cache (conftest.py)."""
    made: dict[str, object] = {}
    yield made
    for context in made.values():
        context.close()


@pytest.fixture(params=list(VIEWPORTS))
def sized(request, browser, _contexts):
    width, height = VIEWPORTS[request.param]
    if request.param not in _contexts:
        _contexts[request.param] = browser.new_context(viewport={"width": width, "height": height})
    page = _contexts[request.param].new_page()
    page.set_default_timeout(30_000)
    expect.set_options(timeout=30_000)
    yield request.param, page
    expect.set_options(timeout=5_000)
    page.close()


def open_tokenize(page: Page, app_url: str, **params) -> None:
    page.goto(f"{app_url}/tokenize-text?{urlencode(params)}")
    expect(page.get_by_role("heading", name="Tokenize text")).to_be_visible()
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning")
    expect(page.locator(".bpe-tokens.bpe-scroll").first).to_be_visible()


def boxes(page: Page, sel: str = ".bpe-tokens.bpe-scroll") -> list[dict]:
    return page.evaluate(CHIP_BOXES, sel)


def settled_boxes(page: Page, sel: str, timeout: float = 5.0) -> list[dict]:
    """The chips' boxes once no chip is split, or as they are after `timeout` seconds: a
    page still swapping in the elements of a run just ended (seen once under two test
    workers' load) is measured again, a layout that stays broken still fails."""
    deadline = time.monotonic() + timeout
    chips = boxes(page, sel)
    while any(len(c["rects"]) != 1 for c in chips) and time.monotonic() < deadline:
        page.wait_for_timeout(250)
        chips = boxes(page, sel)
    return chips


def assert_one_box_each(chips: list[dict], where: str) -> None:
    """No chip is drawn across two lines: one client rect each, no taller than a line."""
    split = [c["text"] for c in chips if len(c["rects"]) != 1]
    assert not split, f"{where}: {len(split)} chips drawn in pieces, e.g. {split[:5]}"
    heights = sorted(c["rects"][0][3] for c in chips)
    line = heights[len(heights) // 2]
    tall = [c["text"] for c in chips if c["rects"][0][3] > 1.5 * line]
    assert not tall, f"{where}: chips taller than a line (wrapped inside): {tall[:5]}"


def assert_logical_order(chips: list[dict], where: str, *, rtl: bool = False) -> None:
    """Each run reads in the order of the tokens (the order of the markup), line by line:
    left to right, or right to left (`rtl`: Arabic, Hebrew, the first token rightmost)."""
    for a, b in zip(chips, chips[1:]):
        if a["run"] != b["run"]:
            continue
        (ax, ay, aw, ah), (bx, by, bw, _) = a["rects"][0], b["rects"][0]
        new_line = by >= ay + ah / 2
        if rtl:
            assert new_line or bx + bw <= ax + 1, f"{where}: {b['text']!r} is drawn right of {a['text']!r}"
        else:
            assert new_line or bx >= ax + aw - 1, f"{where}: {b['text']!r} is drawn before {a['text']!r}"


def token_count(name: str, text: str) -> int:
    return len(load_pretrained(name).encode(text))


def test_tokenize_text_chips_never_break(sized, app_url, artifacts):
    size, page = sized
    open_tokenize(page, app_url, tokenizer="cl100k_base", text=ENGLISH)
    chips = boxes(page)
    assert len(chips) == token_count("cl100k_base", ENGLISH)
    assert_one_box_each(chips, f"English, cl100k, {size}")
    assert_logical_order(chips, f"English, cl100k, {size}")
    page.locator(".bpe-tokens.bpe-scroll").first.screenshot(path=str(artifacts / f"chips_english_{size}.png"))


def test_compare_chips_never_break(sized, app_url, artifacts):
    size, page = sized
    names = ["gpt2", "cl100k_base", "o200k_base"]
    open_tokenize(page, app_url, tokenizer="cl100k_base", text=ENGLISH, view="compare", compare=",".join(names))
    expect(page.locator(".bpe-tokens.bpe-scroll")).to_have_count(len(names) + 1)
    chips = boxes(page)
    total = token_count("cl100k_base", ENGLISH) + sum(token_count(n, ENGLISH) for n in names)
    assert len(chips) == total
    assert_one_box_each(chips, f"Compare, {size}")
    page.screenshot(path=str(artifacts / f"chips_compare_{size}.png"), full_page=True)


def test_a_newline_token_is_one_chip_then_a_line_break(sized, app_url, artifacts):
    size, page = sized
    open_tokenize(page, app_url, tokenizer="cl100k_base", text=NEWLINES)
    chips = boxes(page)
    ids = load_pretrained("cl100k_base").encode(NEWLINES)
    assert len(chips) == len(ids)
    # the boxes on screen add up to the token count: one rect per chip
    assert sum(len(c["rects"]) for c in chips) == len(ids)
    assert_one_box_each(chips, f"newlines, {size}")
    triple = [i for i, c in enumerate(chips) if "↵↵↵" in c["text"]]
    assert len(triple) == 1
    after = chips[triple[0] + 1]["rects"][0]
    assert after[1] > chips[triple[0]]["rects"][0][1], "the chip after a newline token starts a new line"
    page.locator(".bpe-tokens.bpe-scroll").first.screenshot(path=str(artifacts / f"chips_newlines_{size}.png"))


@pytest.mark.parametrize("name", ["gpt2", "o200k_base"])
def test_right_to_left_chips_run_right_to_left_in_logical_order(sized, app_url, artifacts, name):
    """Arabic and Hebrew: the first token is rightmost and each next one to its left (a
    block with dir="rtl"), while the markup keeps the tokens in order (a screen reader
    reads them in order); a partial token's title names its character; a left-to-right
    line after it runs left to right again."""
    size, page = sized
    open_tokenize(page, app_url, tokenizer=name, text=ARABIC + "\nEnglish after")
    rtl_line = len(load_pretrained(name).encode(ARABIC + "\n"))
    chips = boxes(page)
    spans = load_pretrained(name).token_spans(ARABIC + "\nEnglish after")
    assert len(chips) == len(spans)
    assert [c["text"] for c in chips] == [html.unescape(chip_label(s.label)) for s in spans]  # the markup in token order
    assert_one_box_each(chips, f"Arabic, {name}, {size}")
    assert_logical_order(chips[:rtl_line - 1], f"Arabic, {name}, {size}", rtl=True)
    assert chips[0]["rects"][0][0] > chips[1]["rects"][0][0], "the first token is rightmost"
    assert_logical_order(chips[rtl_line:], f"English after Arabic, {name}, {size}")
    if name == "gpt2":
        title = page.locator(".bpe-tokens.bpe-scroll .bpe-tok.partial").first.get_attribute("title")
        assert "part of " in title and "ARABIC LETTER" in title, title
    labels = [c for c in chips if c["text"].startswith("<") and c["text"].endswith(">")]
    if name == "gpt2":
        assert labels, "GPT-2 splits some Arabic letters into bytes"
    for c in labels:  # "<D8>" reads left to right: "<" on the left, ">" on the right
        first, last, _ = c["ends"]
        assert first < last, f"byte label {c['text']!r} drawn reversed"
    spaced = [c for c in chips if c["text"].startswith("·") and "\u0600" <= c["text"][1:2] <= "\u06ff"]
    if name == "o200k_base":
        assert spaced, "o200k has Arabic words with their space as one token"
    for c in spaced:  # the space comes first in reading order: on the right of an Arabic word
        dot, _, letter = c["ends"]
        assert dot > letter, f"the space mark of {c['text']!r} is on the left"
    page.locator(".bpe-tokens.bpe-scroll").first.screenshot(path=str(artifacts / f"chips_rtl_{name}_{size}.png"))
    if name == "gpt2":
        page.locator(".bpe-tokens.bpe-scroll .bpe-tok.partial").first.focus()  # its popover names the character
        page.screenshot(path=str(artifacts / f"chips_rtl_{name}_{size}_partial.png"))


def test_train_corpus_and_merge_list_chips(sized, app_url, artifacts):
    """The Train page: a newline token stays on its row, the joiner in 👩‍💻 is ⟨ZWJ⟩, and
    no chip of the corpus, the pair table or the merge list breaks."""
    size, page = sized
    text = ("the coder 👩\u200d💻 writes\n\nthe coder 👩\u200d💻 reads\n\n" * 3) + "مرحبا بالعالم مرحبا\n\n"
    page.goto(f"{app_url}/train-bpe?{urlencode({'text': text, 'pre': 'gpt2', 'step': '12'})}")
    expect(page.get_by_role("heading", name="Train a BPE tokenizer")).to_be_visible()
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning")
    expect(page.locator(".tp-words").first).to_be_visible()
    chips = settled_boxes(page, ".tp .bpe-tokens")
    assert len(chips) > 20
    assert_one_box_each(chips, f"Train, {size}")
    assert_logical_order(chips, f"Train, {size}")
    texts = [c["text"] for c in chips]
    assert any("⟨ZWJ⟩" in t for t in texts), "the zero-width joiner is named"
    newline = [c for c in chips if "↵" in c["text"]]
    assert newline and all(len(c["rects"]) == 1 for c in newline)
    page.locator(".tp-words").first.screenshot(path=str(artifacts / f"chips_train_corpus_{size}.png"))


# ---- tap to inspect, ids on the chips, side by side (issue 13, "Tokenize like the best") ----
#: The points of the screen (a 4 px grid) that hit the focused chip or its popover, with
#: the chip's own box; the popover (a ::before) answers hit tests as its chip does.
POPOVER_POINTS = """() => {
  const el = document.activeElement, r = el.getBoundingClientRect(), pts = [];
  for (let y = 0; y < innerHeight; y += 4)
    for (let x = 0; x < innerWidth; x += 4) {
      const hit = document.elementFromPoint(x, y);
      if (hit && el.contains(hit) && !(x >= r.left && x <= r.right && y >= r.top && y <= r.bottom)) pts.push([x, y]);
    }
  return {chip: [r.left, r.top, r.right, r.bottom], pts, w: innerWidth, h: innerHeight,
          text: getComputedStyle(el, '::before').content};
}"""


def test_tap_a_chip_shows_its_id_bytes_and_rank_on_a_phone(browser, app_url, artifacts):
    """On a 390x844 phone a tap (no hover) on a chip, at the middle or at the right edge,
    shows its id, bytes and rank in a popover that lies inside the screen."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    expect.set_options(timeout=30_000)
    try:
        open_tokenize(page, app_url, tokenizer="gpt2", text=ENGLISH)
        tok = load_pretrained("gpt2")
        spans = tok.token_spans(ENGLISH)
        chips = page.locator(".bpe-tokens.bpe-scroll > span")
        expect(chips).to_have_count(len(spans))
        # a test-only style: let the popover answer hit tests, to measure where it is
        page.add_style_tag(content=".bpe-tap span:focus::before { pointer-events: auto !important; }")
        rights = page.evaluate("""() => Array.from(document.querySelectorAll('.bpe-tokens.bpe-scroll > span'),
                                   (e) => e.getBoundingClientRect().right)""")
        edge = max(range(8, len(rights)), key=lambda i: rights[i])  # a chip at a line's right end
        for name, i in (("middle", 5), ("edge", edge)):
            # the chip mid-screen vertically: this checks the sides (a chip at a line's right end);
            # where the chip sits in the page's height depends on the layout above it
            chips.nth(i).evaluate("(e) => e.scrollIntoView({block: 'center'})")
            # A tap also opens the token's replay (a rerun that redraws the chips:
            # test_a_click_or_enter_on_a_chip_opens_its_replay); the popover is what a
            # focused chip shows, so the chip is focused as the tap's first effect is.
            chips.nth(i).focus()
            assert page.evaluate("(i) => document.activeElement === "
                                 "document.querySelectorAll('.bpe-tokens.bpe-scroll > span')[i]", i)
            seen = page.evaluate(POPOVER_POINTS)
            span = spans[i]
            assert f"id {span.id}" in seen["text"] and f"bytes {hex_bytes(span.token_bytes)}" in seen["text"]
            assert f"rank {span.id}" in seen["text"]
            assert seen["pts"], f"no popover drawn for the {name} chip"
            xs, ys = [p[0] for p in seen["pts"]], [p[1] for p in seen["pts"]]
            assert max(xs) - min(xs) >= 100 and max(ys) - min(ys) >= 40, "the popover is too small to read"
            assert min(xs) > 0 and max(xs) < seen["w"] - 4, f"the {name} popover touches the screen's side"
            assert min(ys) > 0 and max(ys) < seen["h"] - 4, f"the {name} popover touches the screen's top or bottom"
            page.screenshot(path=str(artifacts / f"chips_tap_phone_{name}.png"))
        page.get_by_role("heading", name="Tokenize text").tap()  # a tap elsewhere closes it (focus leaves)
        assert page.evaluate("() => getComputedStyle(document.activeElement, '::before').content") in ("none", "normal")
    finally:
        expect.set_options(timeout=5_000)
        context.close()


@pytest.mark.parametrize("size", ["laptop-wide", "phone"])
def test_text_and_tokens_side_by_side_on_a_wide_screen(browser, app_url, artifacts, size):
    """At 1440x900 the text box is on the left and the chips on the right, level with
    it; on a phone they stack. Ids on the chips (the toggle) are drawn under each chip."""
    width, height = (1440, 900) if size == "laptop-wide" else (390, 844)
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(30_000)
    expect.set_options(timeout=30_000)
    try:
        open_tokenize(page, app_url, tokenizer="cl100k_base", text=ENGLISH)
        text_box = page.get_by_role("textbox", name="Text").bounding_box()
        run = page.locator(".bpe-tokens.bpe-scroll").first.bounding_box()
        if size == "phone":
            assert run["y"] >= text_box["y"] + text_box["height"], "on a phone the tokens come below the text"
            assert run["x"] + run["width"] <= width + 1
        else:
            assert text_box["x"] + text_box["width"] < run["x"], "the tokens are right of the text"
            assert run["y"] < text_box["y"] + text_box["height"], "the tokens start level with the text"
            assert run["y"] < height, "the tokens are in the first screen"
        page.locator(".st-key-tokenize_w_show_ids label").click()
        expect(page.locator(".bpe-tokens.bpe-scroll.bpe-ids")).to_have_count(1)
        ids = load_pretrained("cl100k_base").encode(ENGLISH)
        shown = page.evaluate("""() => Array.from(document.querySelectorAll('.bpe-tokens.bpe-scroll > span'),
                                  (e) => getComputedStyle(e, '::after').content)""")
        assert shown == [f'"{i}"' for i in ids]
        chips = boxes(page)
        assert len(chips) == len(ids)
        assert_one_box_each(chips, f"ids on, {size}")
        page.screenshot(path=str(artifacts / f"tokenize_side_by_side_{size}.png"))
    finally:
        expect.set_options(timeout=5_000)
        context.close()
