"""The Vocabulary size page in a real browser: three tabs under one slider; a first visit
draws each tab's charts as pictures and loads no Vega script, no metric, number input,
selectbox or toggle script; every tab is about three screens at most;
with "Charts: interactive", it draws them with Vega-Lite and a click on the curves picks
a vocabulary size (the slider and the figures follow); the calculator's inputs open on
request and keep their values folded. Screenshots go to test-artifacts/ (look at them)."""
import re

import pytest
from playwright.sync_api import expect

#: the page's tabs, and each tab's charts: 1 the curves; 2 cost share, real vocabularies
#: (and, folded, o200k cut to k ranks and what that costs); 3 tokens per language, ratio to English
TABS = ("1. Sequence length", "2. What it costs", "3. Ten languages")
HEADINGS = ("1. Sequence length against vocabulary size", "2. What the vocabulary costs a model",
            "3. The same text in ten languages")
CHART_COUNT = {1: 1, 2: 2, 3: 2}  # tab 2: two more once "At real sizes" is opened
REAL_SIZES = "At real sizes: o200k cut to its first k tokens, and what each size costs"
SLIDER = re.compile("Vocabulary size to study")
WHY_CURVES = "Why the curves look like this: a shorter corpus, unseen text, tokens in use"


@pytest.fixture(autouse=True)
def patient_expect():
    """Each action here reruns the whole page (seven charts, three tokenizers): on a machine
    loaded by two test workers a click's rerun took more than Playwright's default 5 s
    (the slider had not moved yet). Wait up to 30 s, then restore the default."""
    expect.set_options(timeout=30_000)
    yield
    expect.set_options(timeout=5_000)


PICTURES = "figure.vc-chart img"
#: the scripts of the widgets and elements a first visit no longer draws (Metric's number
#: formatting, the calculator's number inputs, the presets' selectbox, the toggle)
DROPPED_SCRIPTS = re.compile(r"/(Metric|NumberInput|Selectbox|Checkbox|useSyncComboBoxEnterTargetFocus)\.[\w-]+\.js")
CALCULATOR = "Change the model: V, d, N, tied, precision, compare"
#: Streamlit's Vega-Lite element and the Vega bundle it loads (Metric's 1 kB loader of it
#: is loaded by every metric, and loads nothing until a metric draws a sparkline)
VEGA_SCRIPT = re.compile(r"/(ArrowVegaLiteChart|embed|vega-interpreter)\.[\w-]+\.js")
VEGA_CHARTS = "[data-testid='stVegaLiteChart'] canvas, [data-testid='stVegaLiteChart'] svg.marks"


def _interactive(page, tab: int = 1):
    """Set 'Charts' to interactive and wait for the open tab's Vega-Lite charts."""
    page.locator(".st-key-vocab_w_interactive").get_by_text("interactive", exact=True).click()
    expect(page.locator(".st-key-vocab_w_interactive").get_by_role("radio", name="interactive")).to_be_checked()
    charts = page.locator(VEGA_CHARTS)
    expect(charts).to_have_count(CHART_COUNT[tab], timeout=60_000)
    return charts


def _tab(page, tab: int) -> None:
    """Click tab `tab` (1 to 3) and wait for its section to be drawn."""
    page.get_by_role("tab", name=TABS[tab - 1], exact=True).click()
    expect(page.get_by_role("heading", name=HEADINGS[tab - 1])).to_be_visible(timeout=60_000)
    _finished(page, tab)


def _open(page, app_url, height=1800, interactive=True, tab=1):
    """Open the app, then the page from the sidebar, as a student would; open tab `tab`,
    then switch the interactive charts on (unless `interactive` is False) and return the
    charts."""
    page.set_viewport_size({"width": 1400, "height": height})
    page.goto(app_url)
    expect(page.get_by_role("heading", name="Byte-pair encoding, step by step")).to_be_visible(timeout=60_000)
    page.get_by_role("link", name="Vocabulary size", exact=True).click()
    # the first visit after the server starts trains a run and loads three tokenizers
    expect(page.get_by_role("heading", name="Vocabulary size: what it buys, what it costs")).to_be_visible(
        timeout=60_000)
    _finished(page)
    if tab != 1:
        _tab(page, tab)
    if not interactive:
        return page.locator("figure.vc-chart")
    charts = _interactive(page, tab)
    _finished(page, tab)
    return charts


#: what each tab draws last in its run
_LAST = {1: lambda page: page.get_by_text(WHY_CURVES, exact=True),
         2: lambda page: page.get_by_text("Check your understanding: how many parameters does doubling V add?",
                                          exact=True),
         3: lambda page: page.get_by_text("The ten texts", exact=True)}


def _finished(page, tab: int = 1):
    """Wait until the open tab has been drawn: its last element is on screen and the
    run has ended."""
    expect(page.get_by_role("slider", name=SLIDER)).to_be_visible(timeout=60_000)
    expect(_LAST[tab](page)).to_be_visible(timeout=60_000)
    expect(page.locator('[data-testid="stSkeleton"]')).to_have_count(0, timeout=60_000)
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning", timeout=60_000)


def _figure(page, label):
    """One figure of the page's figure rows (label, value, change, help)."""
    return page.locator(".vc-figure").filter(has=page.locator(".vc-figure-label", has_text=label)).first


def test_a_first_visit_draws_pictures_and_loads_no_vega(page, app_url, artifacts):
    """Each chart of each tab is one picture with alt text; no Vega script is fetched
    until the interactive charts are switched on."""
    scripts = []
    page.on("request", lambda r: scripts.append(r.url) if r.resource_type == "script" else None)
    _open(page, app_url, height=3000, interactive=False)
    for tab in (1, 2, 3):
        if tab != 1:
            _tab(page, tab)
        expect(page.locator("figure.vc-chart")).to_have_count(CHART_COUNT[tab], timeout=60_000)
        pictures = page.locator(PICTURES + ":visible")
        expect(pictures).to_have_count(CHART_COUNT[tab])
        for i in range(CHART_COUNT[tab]):
            img = pictures.nth(i)
            assert len(img.get_attribute("alt")) > 40
            # decoded and drawn: a picture that failed to load has no natural width
            img.scroll_into_view_if_needed()
            page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=img.element_handle())
            assert img.bounding_box()["height"] > 100
        if tab == 1:
            expect(page.locator("figure.vc-chart figcaption").first).to_contain_text("At vocabulary size")
        page.screenshot(path=str(artifacts / f"vocab_size_pictures_tab{tab}.png"))
    assert page.locator("[data-testid='stVegaLiteChart']").count() == 0
    assert not [u for u in scripts if VEGA_SCRIPT.search(u)], scripts
    assert not [u for u in scripts if DROPPED_SCRIPTS.search(u)], scripts
    _interactive(page, 3)
    assert [u for u in scripts if VEGA_SCRIPT.search(u)]


def test_pictures_are_decoded_only_when_shown(page, app_url, artifacts):
    """Each picture is drawn twice (wide and narrow, one hidden by a container query), and
    both copies load lazily: the hidden copy is never decoded, a picture below the screen
    is decoded once scrolled to."""
    figures = _open(page, app_url, height=900, interactive=False, tab=2)
    page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, 0)")
    # "At real sizes" opened without scrolling to it (a script click), so its pictures are
    # drawn far below the screen
    page.get_by_text(REAL_SIZES, exact=True).evaluate("e => e.closest('summary').click()")
    expect(figures).to_have_count(4, timeout=60_000)
    decoded = "e => e.complete && e.naturalWidth > 0"
    first, last = figures.first, figures.last  # the cost share (full width), o200k's cost (half)
    shown = last.locator("img.vc-narrow")  # a half-width column shows the narrow drawing
    assert not shown.evaluate(decoded)  # far below the screen: not yet
    first.scroll_into_view_if_needed()
    expect(first.locator("img.vc-wide")).to_be_visible()
    page.wait_for_function(decoded, arg=first.locator("img.vc-wide").element_handle())
    assert not first.locator("img.vc-narrow").evaluate(decoded)  # hidden: never decoded
    last.scroll_into_view_if_needed()
    page.wait_for_function(decoded, arg=shown.element_handle())
    page.screenshot(path=str(artifacts / "vocab_last_picture_scrolled_to.png"))


def _page_height(page) -> int:
    return page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")


def test_every_tab_is_about_three_screens_and_says_why_on_request(page, app_url, artifacts):
    """Each tab holds one section and, with its folded boxes shut, is at most about three
    1440x900 screens (the page was 5.8 with every section one under another). The
    explanations of the curves open on request."""
    _open(page, app_url, height=900, interactive=False)
    heights = {}
    for tab in (1, 2, 3):
        if tab != 1:
            _tab(page, tab)
        for other in HEADINGS:
            expect(page.get_by_role("heading", name=other)).to_have_count(int(other == HEADINGS[tab - 1]))
        heights[tab] = _page_height(page)
        page.screenshot(path=str(artifacts / f"vocab_size_tab{tab}_top.png"))
    assert max(heights.values()) <= 3.3 * 900, heights
    page.get_by_role("tab", name=TABS[0], exact=True).click()
    _finished(page, 1)
    page.get_by_text(WHY_CURVES, exact=True).click()
    expect(page.get_by_text("Why the corpus gets shorter")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("= tokens the corpus uses")).to_be_visible()
    page.get_by_text("Why the corpus gets shorter").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "vocab_size_why_open.png"))


def test_clicking_the_curves_picks_a_vocabulary_size(page, app_url, artifacts):
    charts = _open(page, app_url)
    slider = page.get_by_role("slider", name=SLIDER)
    before = slider.input_value()
    curves = charts.first
    box = curves.bounding_box()
    # a third of the way along the top panel: a smaller vocabulary than the default
    page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + 150)
    tooltip = page.locator("#vg-tooltip-element")
    expect(tooltip).to_contain_text("Training corpus, tokens")  # exact numbers on hover
    expect(tooltip).to_contain_text("Places merged")
    page.screenshot(path=str(artifacts / "vocab_size_hover.png"))
    # Streamlit's hover toolbar floats over the chart's top edge: it must not cover the
    # figures' last line above it (their help text), which it did before the chart had room
    toolbar = page.locator('[data-testid="stElementToolbar"]').first
    expect(toolbar).to_be_visible()
    above = page.locator(".vc-figures").first.locator(".vc-figure-help").last
    t, a = toolbar.bounding_box(), above.bounding_box()
    assert t["y"] >= a["y"] + a["height"], (t, a)
    page.mouse.click(box["x"] + box["width"] * 0.3, box["y"] + 150)
    expect(slider).not_to_have_value(before)
    picked = int(slider.input_value())
    assert picked < int(before)
    expect(_figure(page, "Vocabulary size")).to_contain_text(f"{picked:,}")
    page.screenshot(path=str(artifacts / "vocab_size_picked.png"))


def test_a_cost_preset_reproduces_llama3(page, app_url):
    _open(page, app_url, tab=2)
    page.locator(".st-key-vocab_w_cost_preset").get_by_text("Llama 3 8B", exact=True).click()
    expect(page.get_by_role("radio", name="Llama 3 8B")).to_be_checked()
    expect(_figure(page, "Embedding parameters")).to_contain_text("1,050,673,152")
    expect(page.get_by_text("computed 525M", exact=False)).to_be_visible()


def _calculator_keeps_d_folded(page, artifacts, name: str) -> None:
    """Open "Change the model", set d to 1,024, fold it: the figures, the caption and a
    note keep the new d; reopened, the input still shows it. Screenshots of the folded
    calculator go to test-artifacts/vocab_calculator_folded_<name>.png."""
    expect(page.get_by_label("Hidden size d (model width)", exact=True)).to_have_count(0)  # not drawn at first
    figure = _figure(page, "Embedding parameters")
    vocab = int(figure.locator(".vc-figure-value").inner_text().replace(",", "")) // 768
    page.get_by_text(CALCULATOR, exact=True).click()
    hidden = page.get_by_label("Hidden size d (model width)", exact=True)
    expect(hidden).to_have_value("768")
    hidden.fill("1024")
    hidden.press("Enter")
    expect(figure).to_contain_text(f"{vocab * 1024:,}")
    page.get_by_text(CALCULATOR, exact=True).click()  # fold it
    expect(hidden).to_have_count(0)
    expect(figure).to_contain_text(f"{vocab * 1024:,}")
    expect(page.get_by_text(f"V = {vocab:,} · d = 1,024 ·", exact=False)).to_be_visible()
    note = page.get_by_text("Changed from the preset: d 768 → 1,024", exact=False)
    expect(note).to_be_visible()
    note.scroll_into_view_if_needed()
    section = page.locator(".vc-figures").filter(has=page.locator(".vc-figure-label", has_text="Embedding parameters"))
    top = page.get_by_text("Start from", exact=True).bounding_box()
    bottom = section.bounding_box()
    page.screenshot(path=str(artifacts / f"vocab_calculator_folded_{name}.png"),
                    clip={"x": 0, "y": top["y"] - 10, "width": page.viewport_size["width"],
                          "height": bottom["y"] + bottom["height"] - top["y"] + 20})
    page.get_by_text(CALCULATOR, exact=True).click()  # open it again
    expect(page.get_by_label("Hidden size d (model width)", exact=True)).to_have_value("1024")


def test_the_calculator_opens_on_request_and_keeps_a_value_folded(page, app_url, artifacts):
    _open(page, app_url, interactive=False, tab=2)
    _calculator_keeps_d_folded(page, artifacts, "desktop")


#: records, in the page, every element above the slider that a rerun marks stale (greys
#: out): the title, the chart switch and the run picker. A rerun of the whole page marks
#: them all; a rerun of the slider's fragment marks none.
WATCH_ABOVE = """() => {
  window.__staleAbove = [];
  const above = '.st-key-vocab_w_interactive, .st-key-vocab_w_source, h1';
  new MutationObserver((records) => {
    for (const r of records) {
      const t = r.target;
      if (t.getAttribute('data-stale') === 'true' && (t.matches(above) || t.querySelector(above)))
        window.__staleAbove.push(t.getAttribute('data-testid') || t.className);
    }
  }).observe(document.querySelector('[data-testid="stMain"]'),
             {subtree: true, attributes: true, attributeFilter: ['data-stale']});
}"""


def test_the_slider_moves_every_section_and_reruns_only_what_it_moves(page, app_url, artifacts):
    """A key press on the slider moves the open tab: the figures and the curves' caption,
    the calculator (which follows the chosen size), the ten-language chart; only the
    slider's fragment reruns, so the title, the chart switch and the run picker above it
    are never greyed out (a whole-page rerun marks every element stale)."""
    _open(page, app_url, height=1800, interactive=False)
    slider = page.get_by_role("slider", name=SLIDER)
    size = int(slider.input_value())
    checks = {
        1: lambda new: (expect(_figure(page, "Vocabulary size")).to_contain_text(new),
                        expect(page.locator("figure.vc-chart figcaption").first).to_contain_text(
                            f"At vocabulary size {new}")),
        2: lambda new: expect(page.get_by_text(f"V = {new} · d = 768 ·", exact=False)).to_be_visible(),
        3: lambda new: expect(page.locator("figure.vc-chart[data-chart='language_tokens'] img.vc-wide")
                              ).to_have_attribute("alt", re.compile(f"V = {re.escape(new)}:")),
    }
    step = 0
    for tab in (1, 2, 3):
        if tab != 1:
            _tab(page, tab)
        page.evaluate(WATCH_ABOVE)
        for _ in (1, 2):
            step += 1
            slider.focus()
            slider.press("ArrowRight")
            checks[tab](f"{size + step:,}")
        assert page.evaluate("window.__staleAbove") == [], tab
    page.screenshot(path=str(artifacts / "vocab_slider_moved.png"))
