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
    # the page is drawn in one run; its last element is the last quiz question
    expect(page.get_by_text("In the worked example, why is the end-of-word marker")).to_be_visible(timeout=60_000)
    # the sections are st.html blocks, drawn once the browser has the HTML element's script
    expect(page.get_by_role("heading", name=QUIRKS[0].title)).to_be_visible(timeout=60_000)
    expect(page.locator('[data-testid="stSkeleton"]')).to_have_count(0, timeout=60_000)


def test_every_section_renders_and_saves_screenshots(page, app_url, artifacts):
    _open(page, app_url)
    for quirk in QUIRKS:
        expect(page.get_by_role("heading", name=quirk.title)).to_be_attached()
    expect(page.get_by_role("heading", name="Worked examples of the source texts")).to_be_attached()
    page.screenshot(path=str(artifacts / "quirks_top.png"))
    # the links at the top go to their section (headings inside st.html blocks, with ids)
    page.locator('a[href="#glitch"]').click()
    expect(page.get_by_role("heading", name="Glitch tokens")).to_be_in_viewport()
    page.screenshot(path=str(artifacts / "quirks_link_glitch.png"))
    page.get_by_role("heading", name="Numbers come in arbitrary chunks").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "quirks_numbers.png"))
    page.get_by_role("heading", name="Other scripts cost more").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "quirks_scripts.png"))
    page.get_by_role("heading", name="Worked examples of the source texts").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "quirks_examples.png"))
    page.get_by_role("heading", name="low 5, lower 2, newest 6, widest 3, new 2 with </w>").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "quirks_seed001.png"))


def test_try_your_own_recomputes(page, app_url, artifacts):
    _open(page, app_url)
    assert page.locator('[data-testid="stTextInput"]').count() == 0  # every try box starts folded
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
        page.get_by_role("heading", name="Numbers come in arbitrary chunks").scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / "quirks_phone_numbers.png"))
        page.get_by_role("heading", name="Worked examples of the source texts").scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / "quirks_phone_examples.png"))
    finally:
        context.close()
