"""Token chips as drawn by a real browser, at a laptop (1440x900), a projector
(1920x1080) and a phone (390x844): every chip is one box (its client rects never span
two lines), the boxes on screen add up to the token count (a "\\n\\n\\n" token is one
chip), right-to-left chips stay in logical order with their byte labels readable and
the space mark on the side of the space, and invisible characters are named chips.

Screenshots land in test-artifacts/chips_*.png. Pages are opened by their URLs (text,
tokenizer and view in the query string), so no typing is needed.
"""
from __future__ import annotations

from urllib.parse import urlencode

import pytest
from playwright.sync_api import Page, expect

from bpe_core.pretrained import load_pretrained
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


@pytest.fixture(params=list(VIEWPORTS))
def sized(request, browser, app_url):
    width, height = VIEWPORTS[request.param]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(30_000)
    expect.set_options(timeout=30_000)
    page.goto(app_url)  # the page list is known once app.py has run
    expect(page.get_by_role("heading", name="Byte-pair encoding, step by step")).to_be_visible()
    yield request.param, page
    expect.set_options(timeout=5_000)
    context.close()


def open_tokenize(page: Page, app_url: str, **params) -> None:
    page.goto(f"{app_url}/tokenize-text?{urlencode(params)}")
    expect(page.get_by_role("heading", name="Tokenize text")).to_be_visible()
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning")
    expect(page.locator(".bpe-tokens.bpe-scroll").first).to_be_visible()


def boxes(page: Page, sel: str = ".bpe-tokens.bpe-scroll") -> list[dict]:
    return page.evaluate(CHIP_BOXES, sel)


def assert_one_box_each(chips: list[dict], where: str) -> None:
    """No chip is drawn across two lines: one client rect each, no taller than a line."""
    split = [c["text"] for c in chips if len(c["rects"]) != 1]
    assert not split, f"{where}: {len(split)} chips drawn in pieces, e.g. {split[:5]}"
    heights = sorted(c["rects"][0][3] for c in chips)
    line = heights[len(heights) // 2]
    tall = [c["text"] for c in chips if c["rects"][0][3] > 1.5 * line]
    assert not tall, f"{where}: chips taller than a line (wrapped inside): {tall[:5]}"


def assert_logical_order(chips: list[dict], where: str) -> None:
    """Each run reads left to right, line by line, in the order of the tokens."""
    for a, b in zip(chips, chips[1:]):
        if a["run"] != b["run"]:
            continue
        (ax, ay, aw, ah), (bx, by, _, _) = a["rects"][0], b["rects"][0]
        new_line = by >= ay + ah / 2
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
def test_right_to_left_chips_stay_in_logical_order(sized, app_url, artifacts, name):
    size, page = sized
    open_tokenize(page, app_url, tokenizer=name, text=ARABIC)
    chips = boxes(page)
    assert len(chips) == token_count(name, ARABIC)
    assert_one_box_each(chips, f"Arabic, {name}, {size}")
    assert_logical_order(chips, f"Arabic, {name}, {size}")
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


def test_train_corpus_and_merge_list_chips(sized, app_url, artifacts):
    """The Train page: a newline token stays on its row, the joiner in 👩‍💻 is ⟨ZWJ⟩, and
    no chip of the corpus, the pair table or the merge list breaks."""
    size, page = sized
    text = ("the coder 👩\u200d💻 writes\n\nthe coder 👩\u200d💻 reads\n\n" * 3) + "مرحبا بالعالم مرحبا\n\n"
    page.goto(f"{app_url}/train-bpe?{urlencode({'text': text, 'pre': 'gpt2', 'step': '12'})}")
    expect(page.get_by_role("heading", name="Train a BPE tokenizer")).to_be_visible()
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning")
    expect(page.locator(".tp-words").first).to_be_visible()
    chips = boxes(page, ".tp .bpe-tokens")
    assert len(chips) > 20
    assert_one_box_each(chips, f"Train, {size}")
    assert_logical_order(chips, f"Train, {size}")
    texts = [c["text"] for c in chips]
    assert any("⟨ZWJ⟩" in t for t in texts), "the zero-width joiner is named"
    newline = [c for c in chips if "↵" in c["text"]]
    assert newline and all(len(c["rects"]) == 1 for c in newline)
    page.locator(".tp-words").first.screenshot(path=str(artifacts / f"chips_train_corpus_{size}.png"))
