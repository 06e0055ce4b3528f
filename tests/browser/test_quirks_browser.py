"""The Quirks page in a real browser: one tab per quirk and one for the worked examples,
each drawn when opened and no taller than about three screens; a link with `?quirk=`
opens its tab and a tab click writes it into the address; the "try your own" box
recomputes, the quiz reveals its answer after a try, a worked example links to the Train
page with its preset; screenshots at 1440x900 and on a 390x844 phone go to
test-artifacts/ (look at them)."""
import re
from urllib.parse import quote_plus

from playwright.sync_api import expect

from tests.browser.phone import open_phone, too_wide

from ui.quirks.logic import QUIRKS
from ui.quirks.widgets import EXAMPLES_TAB, TAB_KEY

EXAMPLES_HEADING = "Worked examples of the source texts"


def _settled(page) -> None:
    expect(page.locator('[data-testid="stSkeleton"]')).to_have_count(0, timeout=60_000)
    # the run has ended: a click on a folded box during a run can be lost
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning", timeout=30_000)


def _open(page, app_url, tab: str = "", width=1440, height=900) -> None:
    page.set_viewport_size({"width": width, "height": height})
    query = f"?{TAB_KEY}={quote_plus(tab)}" if tab else ""
    page.goto(app_url + "/tokenizer-quirks" + query)
    expect(page.get_by_role("heading", name="Tokenizer quirks")).to_be_visible(timeout=60_000)
    heading = next((q.title for q in QUIRKS if q.tab == tab), EXAMPLES_HEADING if tab == EXAMPLES_TAB else QUIRKS[0].title)
    expect(page.get_by_role("heading", name=heading)).to_be_visible(timeout=60_000)
    _settled(page)


def _page_height(page) -> int:
    """The main area's height once fonts are in and it holds still for half a second (a
    busy machine can measure a layout mid-way: fallback fonts, retained elements)."""
    page.evaluate("() => document.fonts.ready.then(() => true)")
    measure = "() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight"
    last = page.evaluate(measure)
    for _ in range(20):
        page.wait_for_timeout(500)
        now = page.evaluate(measure)
        if now == last:
            break
        last = now
    return last


def test_every_tab_draws_its_section_within_three_screens(page, app_url, artifacts):
    """Each tab opens one section, the address names it, and with its folded boxes shut
    no tab is taller than about four 1440x900 screens (the page was twenty), but Numbers
    (five numbers under thirteen tokenizers, two columns of them), about five. (With ten
    tokenizers, five rows of two, the bounds were 3.3 and 4.5 screens; the three BERT
    vocabularies add two rows under every text.)"""
    _open(page, app_url)
    page.screenshot(path=str(artifacts / "quirks_top.png"))
    heights = {}
    for label, title in [(q.tab, q.title) for q in QUIRKS] + [(EXAMPLES_TAB, EXAMPLES_HEADING)]:
        page.get_by_role("tab", name=label, exact=True).click()
        expect(page.get_by_role("heading", name=title)).to_be_visible()
        _settled(page)
        assert page.locator("h2[id]").count() == 1  # only the open tab's section is drawn
        if label != QUIRKS[0].tab:  # the first tab is the page's default: no parameter
            assert f"{TAB_KEY}={quote_plus(label)}" in page.url.replace("%20", "+")
        heights[label] = _page_height(page)
        page.screenshot(path=str(artifacts / f"quirks_tab_{label.lower().replace(' ', '_')}.png"))
    longest = sorted(heights.items(), key=lambda kv: -kv[1])
    # Numbers (five numbers under every real tokenizer, and its digit-group table) is the
    # one tab past three screens
    assert heights["Numbers"] <= 5.3 * 900 and longest[1][1] <= 4.4 * 900, longest


def test_a_link_opens_its_tab_and_a_reload_keeps_it(page, app_url, artifacts):
    _open(page, app_url, "Glitch tokens")
    expect(page.get_by_role("tab", name="Glitch tokens", exact=True)).to_have_attribute("aria-selected", "true")
    page.screenshot(path=str(artifacts / "quirks_link_glitch.png"))
    page.reload()
    expect(page.get_by_role("heading", name="Glitch tokens")).to_be_visible(timeout=60_000)


def test_the_tabs_work_from_the_keyboard(page, app_url):
    _open(page, app_url)
    page.get_by_role("tab", name=QUIRKS[0].tab, exact=True).focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name=QUIRKS[1].title)).to_be_visible()


def test_try_your_own_recomputes(page, app_url, artifacts):
    _open(page, app_url, "Capitals")
    assert page.locator('[data-testid="stTextInput"]').count() == 0  # the try box starts folded
    page.locator(".st-key-quirks_w_open_case summary").click()
    box = page.get_by_label("Try your own — Type a word in any case")
    box.fill("<b>SHOUTING</b>")
    box.press("Enter")
    # the hostile text comes back as escaped text inside chips, never as markup
    expect(page.get_by_text("SHOUTING").first).to_be_attached()
    assert page.locator("b", has_text="SHOUTING").count() == 0
    page.locator(".st-key-quirks_w_open_case").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "quirks_try_case_open.png"))


def test_quiz_reveals_after_a_try_and_example_links_to_train(page, app_url, artifacts):
    _open(page, app_url)
    assert page.locator('[data-testid="stRadio"]').count() == 0  # every question starts folded
    page.locator(".st-key-quiz_w_open_reverse_letters summary").click()
    page.get_by_text("Often it is mostly tokenization").click()
    expect(page.get_by_text("Right.")).to_be_visible()
    page.get_by_role("tab", name=EXAMPLES_TAB, exact=True).click()
    link = page.get_by_role("link", name="Step through it on the Train page (step 5)").last
    expect(link).to_be_visible()
    assert "preset=classroom" in link.get_attribute("href")
    link.click()
    expect(page).to_have_url(re.compile(r"/train-bpe\?.*preset=classroom"), timeout=60_000)
    _settled(page)
    page.screenshot(path=str(artifacts / "quirks_to_train.png"))


def test_phone_layout(browser, app_url, artifacts):
    """390x844: no tab's page is wider than the screen (the tab row scrolls in its own
    box); screenshots of the top, a section and the worked examples."""
    context, page = open_phone(browser)
    try:
        _open(page, app_url, width=390, height=844)
        assert too_wide(page) == []
        page.screenshot(path=str(artifacts / "quirks_phone_top.png"))
        for tab in ("Numbers", "Other scripts", EXAMPLES_TAB):
            _open(page, app_url, tab, width=390, height=844)
            assert too_wide(page) == [], tab
            page.screenshot(path=str(artifacts / f"quirks_phone_{tab.lower().replace(' ', '_')}.png"))
    finally:
        context.close()
