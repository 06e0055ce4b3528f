"""The Quirks page in a real browser: every section and the worked examples render, the
"try your own" box recomputes, the quiz reveals its answer after a try, a worked example
links to the Train page with its preset; screenshots at 1440x900 and on a 390x844 phone
go to test-artifacts/ (look at them)."""
from playwright.sync_api import expect

from tests.browser.phone import open_phone, too_wide

from ui.quirks.logic import QUIRKS


def _open(page, app_url, width=1440, height=900):
    page.set_viewport_size({"width": width, "height": height})
    page.goto(app_url + "/tokenizer-quirks")
    expect(page.get_by_role("heading", name="Tokenizer quirks")).to_be_visible(timeout=60_000)
    # the page is drawn in one run; its last element is the last quiz question's folded box
    expect(page.get_by_text("Check your understanding: why the end-of-word marker?")).to_be_attached(timeout=60_000)
    # the sections are st.html blocks, drawn once the browser has the HTML element's script
    expect(page.get_by_role("heading", name=QUIRKS[0].title)).to_be_visible(timeout=60_000)
    expect(page.locator('[data-testid="stSkeleton"]')).to_have_count(0, timeout=60_000)
    # the run has ended: a click on a folded box during a run can be lost
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning", timeout=30_000)


def _scroll_to(page, heading: str) -> None:
    """Bring a heading into view for a screenshot. The sections on the way are drawn as
    they come near the screen (content-visibility: auto) and grow from their estimated
    height, so a jump from far away lands short; the second scroll is on drawn sections."""
    target = page.get_by_role("heading", name=heading)
    for _ in range(2):
        target.scroll_into_view_if_needed()
        page.wait_for_timeout(300)


def _click_summary(page, key: str) -> None:
    """Open a folded box. It is first brought into view and left a moment: the sections
    scrolled past are drawn as they come near the screen and grow from their estimated
    height (content-visibility: auto), so a click aimed at once can land where the box was."""
    summary = page.locator(f".st-key-{key} summary")
    for _ in range(2):
        summary.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
    summary.click()


def test_every_section_renders_and_saves_screenshots(page, app_url, artifacts):
    _open(page, app_url)
    for quirk in QUIRKS:
        expect(page.get_by_role("heading", name=quirk.title)).to_be_attached()
    expect(page.get_by_role("heading", name="Worked examples of the source texts")).to_be_attached()
    page.screenshot(path=str(artifacts / "quirks_top.png"))
    # the links at the top go to their section (headings inside st.html blocks, with ids)
    # Sections are drawn only near the screen (content-visibility: auto), so those above the
    # target are estimated while the page jumps: the heading must still land at the top.
    page.locator('a[href="#quirk-glitch"]').click()
    glitch = page.get_by_role("heading", name="Glitch tokens")
    expect(glitch).to_be_in_viewport()
    page.wait_for_timeout(500)
    assert 0 <= glitch.bounding_box()["y"] < 250, glitch.bounding_box()
    page.screenshot(path=str(artifacts / "quirks_link_glitch.png"))
    _scroll_to(page, "Numbers come in arbitrary chunks")
    page.screenshot(path=str(artifacts / "quirks_numbers.png"))
    _scroll_to(page, "Other scripts cost more")
    page.screenshot(path=str(artifacts / "quirks_scripts.png"))
    _scroll_to(page, "Worked examples of the source texts")
    page.screenshot(path=str(artifacts / "quirks_examples.png"))
    _scroll_to(page, "low 5, lower 2, newest 6, widest 3, new 2 with </w>")
    page.screenshot(path=str(artifacts / "quirks_seed001.png"))


#: The heading's top once it has stayed within [0, limit) for 250 ms (sections on the way
#: are drawn as they come near the screen and can still push it), or wherever it is after 3 s.
LANDED = """([selector, limit]) => new Promise((resolve) => {
  const top = () => document.querySelector(selector).getBoundingClientRect().top;
  const start = performance.now();
  let since = null;
  const look = () => {
    const y = top(), now = performance.now();
    if (y >= 0 && y < limit) { since = since ?? now; } else { since = null; }
    if ((since !== null && now - since >= 250) || now - start > 3000) resolve(y); else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})"""


def _landed(page, selector: str, limit: float) -> float:
    return page.evaluate(LANDED, [selector, limit])


def test_every_link_at_the_top_lands_on_its_heading(browser, app_url):
    """Each link at the top has its target in the page (the sanitizer once dropped the id
    "scripts"), and a click brings that heading to the top of the screen although the
    sections in between are drawn only near the screen (content-visibility: auto)."""
    for width, height in ((1440, 900), (390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height})
        try:
            page = context.new_page()
            _open(page, app_url, width, height)
            links = page.locator(".qk-toc a")
            hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
            assert len(hrefs) == len(QUIRKS) + 1
            for href in hrefs:
                assert page.locator(href).count() == 1, f"{href}: no such heading"
            for href in hrefs:
                page.mouse.wheel(0, -100_000)
                link = page.locator(f'.qk-toc a[href="{href}"]')
                expect(link).to_be_in_viewport()
                link.click()
                y = _landed(page, href, height / 3)
                assert 0 <= y < height / 3, f"{width} px, {href}: heading at y={y:.0f}"
        finally:
            context.close()


def test_try_your_own_recomputes(page, app_url, artifacts):
    _open(page, app_url)
    assert page.locator('[data-testid="stTextInput"]').count() == 0  # every try box starts folded
    _click_summary(page, "quirks_w_open_case")
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
    _click_summary(page, "quiz_w_open_reverse_letters")
    page.get_by_text("Often it is mostly tokenization").click()
    expect(page.get_by_text("Right.")).to_be_visible()
    link = page.get_by_role("link", name="Step through it on the Train page (step 5)").last
    assert "preset=classroom" in link.get_attribute("href")
    link.click()
    expect(page.get_by_text("Classroom example (source text 003)").first).to_be_visible(timeout=60_000)
    page.screenshot(path=str(artifacts / "quirks_to_train.png"))


def test_phone_layout(browser, app_url, artifacts):
    """390x844: nothing is wider than the screen; screenshots of the top, a section and
    the worked examples."""
    context, page = open_phone(browser)
    try:
        _open(page, app_url, width=390, height=844)
        assert too_wide(page) == []
        page.screenshot(path=str(artifacts / "quirks_phone_top.png"))
        _scroll_to(page, "Numbers come in arbitrary chunks")
        page.screenshot(path=str(artifacts / "quirks_phone_numbers.png"))
        _scroll_to(page, "Worked examples of the source texts")
        page.screenshot(path=str(artifacts / "quirks_phone_examples.png"))
    finally:
        context.close()
