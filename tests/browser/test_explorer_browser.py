"""The Vocabulary explorer in a real browser: the two URL examples, a search typed in the
box, a token picked with the keyboard in the menu under the results table, the overview's
charts and a comparison; each step saves a screenshot to test-artifacts/ (look at them).
No page of it fetches the data grid's scripts (its tables are HTML)."""
from __future__ import annotations

import re

from playwright.sync_api import expect


def _settled(page) -> None:
    expect(page.locator('[data-testid="stSkeleton"]')).to_have_count(0, timeout=60_000)
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning", timeout=60_000)


def _open(page, app_url, query: str) -> None:
    page.goto(f"{app_url}/vocabulary-explorer?{query}")
    expect(page.get_by_role("heading", name="Vocabulary explorer")).to_be_visible(timeout=60_000)
    _settled(page)


def _no_grid_scripts(page) -> None:
    names = page.evaluate("() => performance.getEntriesByType('resource').map(r => r.name)")
    assert not [n for n in names if "/DataFrame." in n or "/arrowFormatUtils." in n], names


def test_links_show_their_tokens(page, app_url, artifacts):
    _open(page, app_url, "tokenizer=gpt2&q=SolidGoldMagikarp")
    card = page.locator(".vx-card").first
    expect(card).to_contain_text("43,453")
    expect(page.locator(".vx-big").first).to_contain_text("·SolidGoldMagikarp")
    expect(page.get_by_text("1 of 50,257 tokens match")).to_be_visible()
    expect(page.get_by_role("table", name="Search results")).to_contain_text("·SolidGoldMagikarp")
    page.screenshot(path=str(artifacts / "explorer_magikarp.png"), full_page=True)
    _open(page, app_url, "tokenizer=gpt2&id=50256")
    expect(page.locator(".vx-big").first).to_contain_text("<|endoftext|>")
    expect(page.locator(".vx-card").first).to_contain_text("Special token")
    page.screenshot(path=str(artifacts / "explorer_endoftext.png"))
    _no_grid_scripts(page)


def test_search_pick_overview_and_compare(page, app_url, artifacts):
    _open(page, app_url, "tokenizer=cl100k_base")
    box = page.get_by_label("Search the tokens' text")
    box.fill(" tokeni")
    box.press("Enter")
    _settled(page)
    expect(page.get_by_text("tokens match").first).to_contain_text("of 100,261 tokens match")
    expect(page).to_have_url(re.compile(r"q=(\+|%20)tokeni"))  # the address follows the search
    results = page.get_by_role("table", name="Search results")
    expect(results).to_contain_text("·tokeni")
    page.screenshot(path=str(artifacts / "explorer_search.png"), full_page=True)
    # pick the second row's token with the keyboard, in the menu under the table
    second = results.locator("tbody tr").nth(1).locator("td").first.inner_text()
    menu = page.get_by_label("Show one of these tokens above")
    menu.focus()
    menu.press("ArrowDown")  # the menu opens on the keyboard
    expect(page.get_by_role("option").first).to_be_visible()
    menu.fill(second)  # typing narrows it to the row's id
    menu.press("Enter")
    _settled(page)
    expect(page.locator(".vx-card").first).to_contain_text(f"{int(second):,}")
    expect(page).to_have_url(re.compile(rf"id={second}"))
    page.screenshot(path=str(artifacts / "explorer_picked.png"), full_page=True)
    # the merge tree of a token typed into the id box
    ident = page.get_by_label("Token id")
    ident.fill("4037")
    ident.press("Enter")
    _settled(page)
    page.get_by_text("How token 4,037 is built").click()
    _settled(page)
    expect(page.locator(".vx-tree").first).to_be_visible()
    page.screenshot(path=str(artifacts / "explorer_tree.png"), full_page=True)
    page.get_by_role("radio", name="Overview").or_(page.get_by_role("button", name="Overview")).first.click()
    _settled(page)
    expect(page.locator(".vega-embed").first).to_be_visible(timeout=60_000)
    expect(page.get_by_text("Most tokens are").first).to_be_visible()
    page.screenshot(path=str(artifacts / "explorer_overview.png"), full_page=True)
    page.locator(".vega-embed").nth(1).scroll_into_view_if_needed()
    page.locator(".vega-embed").nth(1).screenshot(path=str(artifacts / "explorer_overview_scripts.png"))
    page.get_by_role("radio", name="Compare").or_(page.get_by_role("button", name="Compare")).first.click()
    _settled(page)
    expect(page.get_by_text("share", exact=False).first).to_be_visible(timeout=60_000)
    expect(page.locator(".vega-embed").first).to_be_visible(timeout=60_000)
    expect(page.get_by_role("table", name=re.compile("^Only in")).first).to_be_visible()
    page.screenshot(path=str(artifacts / "explorer_compare.png"), full_page=True)
    page.locator(".vega-embed").first.scroll_into_view_if_needed()
    page.locator(".vega-embed").first.screenshot(path=str(artifacts / "explorer_compare_chart.png"))
