"""The Vocabulary size page on a 390x844 phone, in a real browser: the pictures fit and show
their narrow drawings, nothing is wider than the screen (the interactive curves included),
the figure rows wrap and the folded calculator keeps a value. A file of its own so the two
test workers (pytest-xdist, a file at a time) share the page's browser tests evenly."""
from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.phone import PHONE, open_phone, too_wide
from tests.browser.test_vocab_browser import (  # noqa: F401  (patient_expect: an autouse fixture)
    CHART_COUNT,
    REAL_SIZES,
    _calculator_keeps_d_folded,
    _finished,
    _interactive,
    _tab,
    patient_expect,
)

#: each tab's pictures, in order
NAMES = {1: ("curves",), 2: ("cost_share", "real_vocab", "truncated", "truncated_cost"),
         3: ("language_tokens", "language_ratio")}


def _open_on_phone(browser, app_url, interactive=True, tab=1):
    context, page = open_phone(browser)
    page.goto(app_url + "/vocabulary-size")
    _finished(page)
    if tab != 1:
        _tab(page, tab)
    if interactive:
        _interactive(page, tab)
        _finished(page, tab)
    return context, page


def test_on_a_phone_the_pictures_fit_and_the_narrow_drawing_is_shown(browser, app_url, artifacts):
    """390x844, first visit: every chart is its narrow picture (readable labels), as wide
    as the screen at most."""
    context, page = _open_on_phone(browser, app_url, interactive=False)
    try:
        page.set_viewport_size({"width": PHONE["width"], "height": 9000})
        for tab in (1, 2, 3):
            if tab != 1:
                _tab(page, tab)
            if tab == 2:
                page.get_by_text(REAL_SIZES, exact=True).click()
            shown = page.locator("figure.vc-chart img.vc-narrow:visible")
            expect(shown).to_have_count(len(NAMES[tab]), timeout=60_000)
            assert page.locator("figure.vc-chart img.vc-wide:visible").count() == 0
            assert too_wide(page) == []
            for i, name in enumerate(NAMES[tab]):
                shown.nth(i).screenshot(path=str(artifacts / f"vocab_phone_picture_{name}.png"))
    finally:
        context.close()


def test_on_a_phone_nothing_is_wider_than_the_screen_not_even_the_linked_curves(browser, app_url, artifacts):
    """390x844: every chart stretches to the screen, the three linked curve panels too
    (their titles wrap, their plots leave room for the axis), the tables wrap.
    Screenshots of the charts (look at them: the heat map's tokenizer names are written
    upwards and do not overlap; tests/test_vocab_ui.py checks the angle in the spec)."""
    context, page = _open_on_phone(browser, app_url)
    try:
        assert too_wide(page) == []
        # A tall screen of the same width, so each chart is on screen whole for its picture.
        page.set_viewport_size({"width": PHONE["width"], "height": 4000})
        curves = page.locator(".st-key-vocab-curves")
        curves.scroll_into_view_if_needed()
        page.wait_for_timeout(300)  # the layout settles at the new height (no state to wait for)
        page.screenshot(path=str(artifacts / "vocab_phone_curves.png"), clip=curves.bounding_box())
        for tab in (2, 3):
            _tab(page, tab)
            if tab == 2:
                page.get_by_text(REAL_SIZES, exact=True).click()
            charts = page.get_by_test_id("stVegaLiteChart")
            expect(charts).to_have_count(len(NAMES[tab]), timeout=60_000)
            assert too_wide(page) == []
            for i, name in enumerate(NAMES[tab]):
                charts.nth(i).screenshot(path=str(artifacts / f"vocab_phone_{name}.png"))
    finally:
        context.close()


def test_on_a_phone_the_figures_wrap_and_the_calculator_keeps_a_value(browser, app_url, artifacts):
    """390x844: the figure rows wrap to the screen (nothing past its right edge), and the
    folded calculator works as on a desktop."""
    context, page = _open_on_phone(browser, app_url, interactive=False)
    try:
        assert too_wide(page) == []
        first = page.locator(".vc-figures").first
        box = first.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        first.scroll_into_view_if_needed()
        first.screenshot(path=str(artifacts / "vocab_phone_figures.png"))
        _tab(page, 2)
        rows = page.locator(".vc-figures")
        expect(rows).to_have_count(1)
        for i in range(1):
            box = rows.nth(i).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        _calculator_keeps_d_folded(page, artifacts, "phone")
        assert too_wide(page) == []
    finally:
        context.close()
