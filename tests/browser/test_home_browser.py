"""The app opens in a real browser and the navigation works."""
from playwright.sync_api import expect


def test_home_page_opens_and_links_to_every_page(page, app_url, artifacts):
    page.goto(app_url)
    expect(page.get_by_role("heading", name="Byte-pair encoding, step by step")).to_be_visible()
    for name in ("Train", "Tokenize", "Vocabulary size"):
        expect(page.get_by_role("link", name=name, exact=True)).to_be_visible()
    page.screenshot(path=str(artifacts / "home.png"))
