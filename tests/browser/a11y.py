"""What the accessibility browser tests share (test_a11y_browser.py: every page and tab;
test_a11y_states_browser.py: the states the tests reach, the phone, the keyboard): the two
sizes, a wait until the page has settled, and a checker that runs axe-core and the
sideways check in each state and keeps every finding, so one test reports all problems.
"""
from __future__ import annotations

import json

from playwright.sync_api import Page

from tests.browser.axe import serious_violations
from tests.browser.phone import PHONE

SIZES = {
    "desktop": dict(viewport={"width": 1440, "height": 900}),
    "phone": dict(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True),
}

#: how long the page must not have changed before it counts as settled, in ms
QUIET_MS = 250

_SETTLED = """quiet => {
  const w = window;
  if (!w.__testQuiet) {  // the time of the page's last change, kept by an observer made once
    w.__testQuiet = {last: performance.now()};
    new MutationObserver(() => { w.__testQuiet.last = performance.now(); })
      .observe(document.body, {childList: true, subtree: true, characterData: true});
  }
  const app = document.querySelector('[data-testid="stApp"]');
  return !!app && app.getAttribute('data-test-script-state') === 'notRunning'
    && !document.querySelector('[data-testid="stSkeleton"]')
    && performance.now() - w.__testQuiet.last >= quiet;
}"""


def ready(page: Page) -> None:
    """Every widget drawn (no skeleton), no script run in progress, and nothing in the page
    changed for QUIET_MS: the last run's elements have settled (a fragment can redraw once;
    the page script makes scroll boxes tab stops 150 ms after the page starts changing,
    ui/shared/a11y.py). Checked every 50 ms in the page, so a settled page is seen at once
    (this was a fixed 400 ms pause between two waits for the script state)."""
    page.wait_for_function(_SETTLED, arg=QUIET_MS, polling=50, timeout=60_000)


def sideways(page: Page) -> int:
    """How far the page scrolls sideways (0: it does not)."""
    return page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")


def open_page(sized_contexts, size: str) -> Page:
    """A new page (a new Streamlit session) in the test file's context of that size."""
    page = sized_contexts(size, **SIZES[size]).new_page()
    page.set_default_timeout(60_000)
    return page


class Checker:
    """Runs axe and the sideways check in each state, and keeps every finding, so one test
    reports all pages' problems at once."""

    def __init__(self, page: Page, size: str, artifacts) -> None:
        self.page, self.size, self.artifacts, self.found = page, size, artifacts, {}

    def check(self, name: str) -> None:
        ready(self.page)
        problems = serious_violations(self.page)
        extra = sideways(self.page)
        if extra > 0:
            problems.append(f"the page scrolls sideways by {extra} px")
        if problems:
            self.found.setdefault(name, []).extend(problems)
        self.page.screenshot(path=str(self.artifacts / f"a11y-{self.size}-{name}.png"))

    def note(self, name: str, problem: str) -> None:
        """A finding of the test's own, reported with axe's."""
        self.found.setdefault(name, []).append(problem)

    def report(self) -> str:
        return json.dumps(self.found, indent=1, ensure_ascii=False)
