"""The Algorithms page in a real browser: it opens from the sidebar, every tab draws
(only the open one is drawn; a click reruns the page), stepping WordPiece moves the merge,
a value typed in a tab survives a visit to another tab, and it saves screenshots to test-artifacts/ at a
desktop size (1440x900) and a phone size (390x844). Look at them."""
from playwright.sync_api import expect

from bpe_core.algorithms import ALGORITHMS

from tests.browser.phone import open_phone, too_wide

TITLE = "Three ways to learn a vocabulary"
TABS = ("Side by side", *(a.title for a in ALGORITHMS.values()), "The course's examples")


def _open(page, app_url, width=1440, height=900):
    page.set_viewport_size({"width": width, "height": height})
    page.goto(app_url + "/algorithms")
    expect(page.get_by_role("heading", name=TITLE)).to_be_visible(timeout=60_000)
    expect(page.get_by_text("most frequent words, split by each algorithm")).to_be_visible(timeout=60_000)
    _finished(page)


def _finished(page):
    """Wait until the whole page is drawn: the last section of the first tab (the overlap
    table, its counts drawn as bars) exists."""
    expect(page.get_by_role("heading", name="Vocabulary overlap")).to_be_visible(timeout=60_000)
    expect(page.get_by_role("table", name="Vocabulary overlap").locator(".bar").first).to_be_visible(timeout=60_000)


def _tall(page, path, width=1440, height=4200):
    """The whole page (Streamlit scrolls inside the page, so a screenshot shows only the
    viewport): make the viewport tall, shoot, restore."""
    before = page.viewport_size
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_timeout(300)  # let the layout settle at the new size (no state to wait for)
    page.screenshot(path=str(path))
    page.set_viewport_size(before)


def _tab(page, name):
    page.get_by_role("tab", name=name, exact=True).click()


def test_every_tab_draws_and_screenshots(page, app_url, artifacts):
    _open(page, app_url)
    expect(page.get_by_text("Merge 1 of")).to_have_count(0)  # the shut tabs are not drawn
    page.screenshot(path=str(artifacts / "algorithms_desktop.png"))
    _tall(page, artifacts / "algorithms_desktop_full.png")
    _tab(page, "WordPiece")
    expect(page.get_by_text("Merge 1 of")).to_be_visible()
    expect(page.get_by_text("BPE would merge ##u + ##g")).to_be_visible()
    page.get_by_role("button", name="Step ▶").click()
    expect(page.get_by_text("Merge 2 of")).to_be_visible()
    expect(page.get_by_text("Encoding: longest match first")).to_be_visible()
    expect(page.get_by_text("The same word in a real WordPiece vocabulary")).to_be_visible()
    _tall(page, artifacts / "algorithms_wordpiece.png")
    _tab(page, "Unigram")
    expect(page.get_by_text("The lattice of one word")).to_be_visible()
    expect(page.locator(".ulat")).to_be_visible()
    _tall(page, artifacts / "algorithms_unigram.png")
    _tab(page, "BPE")
    expect(page.get_by_text("Without dropout")).to_be_visible()
    word = page.get_by_label("Word to split")
    word.fill("pugs")
    word.press("Enter")
    expect(page.get_by_text("6 draws with p = 0.10")).to_be_visible()
    _tab(page, "Side by side")
    expect(page.get_by_role("heading", name="Vocabulary overlap")).to_be_visible()
    _tab(page, "BPE")
    expect(page.get_by_label("Word to split")).to_have_value("pugs")  # kept while its tab was shut
    page.get_by_role("link", name="Home", exact=True).click()
    expect(page.get_by_role("heading", name="Byte-pair encoding, step by step")).to_be_visible(timeout=60_000)
    page.get_by_role("link", name="Algorithms", exact=True).click()
    expect(page.get_by_label("Word to split")).to_have_value("pugs", timeout=60_000)  # the tab and the word
    _tall(page, artifacts / "algorithms_bpe.png")
    _tab(page, "The course's examples")
    expect(page.get_by_text("numbers agree")).to_be_visible()
    _tall(page, artifacts / "algorithms_course.png")


def test_phone_width(browser, app_url, artifacts):
    """390x844: on every tab nothing is wider than the screen (the Unigram tab's two
    linked panels leave room for their axes); screenshots of the top and of each tab."""
    context, page = open_phone(browser)
    try:
        page.goto(app_url + "/algorithms")
        expect(page.get_by_role("heading", name=TITLE)).to_be_visible(timeout=60_000)
        _finished(page)
        page.screenshot(path=str(artifacts / "algorithms_phone.png"))
        _tall(page, artifacts / "algorithms_phone_full.png", width=390, height=5000)
        wide = {}
        for name in TABS:
            _tab(page, name)
            if name == "Unigram":
                expect(page.locator(".ulat")).to_be_visible()
                expect(page.get_by_test_id("stVegaLiteChart").filter(visible=True)).to_have_count(1)
                _tall(page, artifacts / "algorithms_phone_unigram.png", width=390, height=5000)
            wide[name] = too_wide(page)
        assert wide == {name: [] for name in TABS}
    finally:
        context.close()
