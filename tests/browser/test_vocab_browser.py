"""The Vocabulary size page in a real browser: it renders its charts, and a click on
the curves picks a vocabulary size. Screenshots go to test-artifacts/ (look at them)."""
from playwright.sync_api import expect

CHART_COUNT = 5  # curves, cost share, real vocabularies, tokens per language, ratio to English


def _open(page, app_url):
    page.set_viewport_size({"width": 1400, "height": 7600})
    page.goto(app_url + "/vocabulary-size")
    expect(page.get_by_role("heading", name="Vocabulary size: what it buys, what it costs")).to_be_visible()
    charts = page.locator("[data-testid='stVegaLiteChart'] canvas, [data-testid='stVegaLiteChart'] svg.marks")
    expect(charts).to_have_count(CHART_COUNT, timeout=60_000)
    return charts


def test_vocab_page_renders_charts_and_screenshot(page, app_url, artifacts):
    _open(page, app_url)
    expect(page.get_by_text("Why the corpus gets shorter")).to_be_visible()
    expect(page.get_by_text("Published figures", exact=False)).to_have_count(0)
    page.screenshot(path=str(artifacts / "vocab_size.png"), full_page=True)
