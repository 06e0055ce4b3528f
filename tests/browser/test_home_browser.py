"""The app opens in a real browser and the navigation works; on a 390x844 phone the
home page's links wrap (not cut with an ellipsis) and nothing on it, or on "Join a
class", is wider than the screen."""
import re

from playwright.sync_api import expect

from tests.browser.phone import open_phone, too_wide

LINKS = ("Train", "Tokenize", "Vocabulary size", "Algorithms", "Vocabulary explorer", "Quirks", "Teach a class",
         "Join a class")


def test_home_page_opens_and_links_to_every_page(page, app_url, artifacts):
    page.goto(app_url)
    expect(page.get_by_role("heading", name="Byte-pair encoding, step by step")).to_be_visible()
    for name in ("Train", "Tokenize", "Vocabulary size", "Teach a class", "Join a class"):
        expect(page.get_by_role("link", name=name, exact=True)).to_be_visible()
    page.screenshot(path=str(artifacts / "home.png"))


def test_on_a_phone_the_home_links_wrap_and_nothing_is_wider_than_the_screen(browser, app_url, artifacts):
    context, page = open_phone(browser)
    try:
        page.goto(app_url)
        expect(page.get_by_role("heading", name="Byte-pair encoding, step by step")).to_be_visible(timeout=60_000)
        links = page.get_by_test_id("stPageLink")
        expect(links).to_have_count(len(LINKS))
        # each label is whole on screen: its last words are visible, not cut off
        expect(links.filter(has_text="on the Sennrich et al. (2016) toy corpus or your own text.")).to_be_visible()
        expect(links.filter(has_text="the source texts' worked examples.")).to_be_visible()
        assert too_wide(page) == []
        page.screenshot(path=str(artifacts / "home_phone.png"))
        links.nth(0).click()  # a link still works once it wraps
        # the Train page then writes its corpus and step into the URL (?preset=…&step=0)
        expect(page).to_have_url(re.compile(re.escape(app_url + "/train-bpe") + r"(\?.*)?$"), timeout=30_000)
    finally:
        context.close()


def test_on_a_phone_join_a_class_is_no_wider_than_the_screen(browser, app_url, artifacts):
    context, page = open_phone(browser)
    try:
        page.goto(app_url + "/join")
        expect(page.get_by_role("heading").first).to_be_visible(timeout=60_000)
        expect(page.get_by_role("textbox").first).to_be_visible()
        assert too_wide(page) == []
        page.screenshot(path=str(artifacts / "join_phone.png"))
    finally:
        context.close()
