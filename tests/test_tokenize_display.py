"""The Tokenize page's display options under AppTest (issue 13, "Tokenize like the best"):
ids on the chips, every chip focusable with its id, bytes and rank for a tap, the text
and its tokens side by side, and a long paste drawn in part with a button for the rest.

How the browser lays these out (the popover on screen, the two columns) is checked in
tests/browser/test_tokenize_browser.py.
"""
from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from bpe_core.pretrained import load_pretrained
from ui.shared.chips import CHIP_CSS
from ui.tokenize.logic import EXAMPLES
from ui.tokenize.widgets import CHIP_LIMIT

APP = "../app.py"
PAGE = "views/tokenize.py"
CHIP = re.compile(r'<span(?! class="mk")( [^>]*)?>')


def open_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def ok(at: AppTest) -> AppTest:
    assert not at.exception, at.exception
    return at


def token_html(at) -> str:
    return next(h.value for h in at.get("html") if 'class="bpe-tokens bpe-scroll' in h.value)


def run_classes(html: str) -> list[str]:
    return re.search(r'<div class="(bpe-tokens[^"]*)"', html).group(1).split()


def chips(html: str) -> list[str]:
    """The attributes of each chip (a span that is not an end-of-word marker)."""
    return [m.group(1) or "" for m in CHIP.finditer(html)]


def test_ids_on_the_chips_are_an_option():
    at = open_page()
    ids = load_pretrained("cl100k_base").encode(EXAMPLES["English"])
    assert "data-id=" not in token_html(at)  # off by default
    ok(at.toggle(key="tokenize_w_show_ids").set_value(True).run())
    html = token_html(at)
    assert "bpe-ids" in run_classes(html)
    assert [int(re.search(r'data-id="(\d+)"', a).group(1)) for a in chips(html)] == ids
    assert "content: attr(data-id)" in CHIP_CSS


def test_every_chip_is_focusable_and_carries_id_bytes_and_rank_for_a_tap():
    at = open_page()
    ok(at.segmented_control(key="tokenize_w_tokenizer").set_value("gpt2").run())
    ok(at.text_area(key="tokenize_w_text").input("Hello world <b>").run())
    html = token_html(at)
    assert "bpe-tap" in run_classes(html)
    attrs = chips(html)
    assert len(attrs) == len(load_pretrained("gpt2").encode("Hello world <b>"))
    assert all('tabindex="0"' in a for a in attrs)
    assert 'title="id 995\nbytes 20 77 6F 72 6C 64\nrank 995" tabindex="0"' in html
    assert "<b>" not in html
    # the popover is the focused chip's title, drawn by CSS (no script, no markup)
    assert re.search(r"span\[title\]:focus::before \{\s*content: attr\(title\)", CHIP_CSS)


def test_text_and_tokens_side_by_side_is_an_option():
    at = open_page()

    def text_column():
        return [c for c in at.columns if any(t.key == "tokenize_w_text" for t in c.text_area)]

    def token_column():
        return [c for c in at.columns if any("bpe-scroll" in h.value for h in c.get("html"))]

    assert at.toggle(key="tokenize_w_side").value is True  # on by default
    left, right = text_column(), token_column()
    assert len(left) == 1 and len(right) == 1 and left[0] is not right[0]
    def has_counts(column):
        return any('class="bpe-counts"' in h.value for h in column.get("html"))

    assert not right[0].text_area and has_counts(right[0]) and not has_counts(left[0])  # counts go with the tokens
    ok(at.toggle(key="tokenize_w_side").set_value(False).run())
    assert not text_column() and not token_column()


def test_a_long_paste_draws_its_first_chips_and_a_button_draws_all():
    text = "word " * (CHIP_LIMIT + 500)
    at = open_page()
    ok(at.text_area(key="tokenize_w_text").input(text).run())
    ids = load_pretrained("cl100k_base").encode(text)
    n = len(ids)
    assert len(chips(token_html(at))) == CHIP_LIMIT < n
    assert f"Showing the first {CHIP_LIMIT:,} of {n:,} tokens" in token_html(at)  # the note under the chips
    assert at.text[0].value == ", ".join(map(str, ids[:CHIP_LIMIT]))  # the ids view: the same first ids
    ok(at.button(key="tokenize_w_show_all").click().run())
    assert len(chips(token_html(at))) == n
    assert at.text[0].value == ", ".join(map(str, ids))
    assert not [b for b in at.button if b.key == "tokenize_w_show_all"] and "Showing the first" not in token_html(at)
    # a new text starts short again
    ok(at.text_area(key="tokenize_w_text").input(text + "more").run())
    assert len(chips(token_html(at))) == CHIP_LIMIT


def test_the_token_being_replayed_is_drawn_even_past_the_first_chips():
    text = "word " * (CHIP_LIMIT + 500)
    at = open_page()
    ok(at.text_area(key="tokenize_w_text").input(text).run())
    ok(at.segmented_control(key="tokenize_w_view").set_value("replay").run())
    ok(at.selectbox(key="tokenize_w_token").set_value(CHIP_LIMIT + 200).run())
    html = token_html(at)
    assert len(chips(html)) == CHIP_LIMIT + 201
    assert " hl" in chips(html)[-1]
