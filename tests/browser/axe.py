"""axe-core in the browser tests: WCAG 2.1 A and AA rules, run in the page itself.

axe-core comes from the PyPI package axe-playwright-python (pinned in
requirements-dev.txt), which ships the library's minified build (axe.min.js, axe-core
4.12); only that file is used, injected with `page.evaluate`, so the checks run in the
same Chromium as the other browser tests and a fresh clone needs nothing but pip.

`serious_violations(page)` returns the serious and critical violations as plain lines
(rule, impact, how many elements, the first elements' selectors and axe's summary), so a
failing assertion prints what to fix.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

#: The rule sets asked for: WCAG 2.0 and 2.1, levels A and AA.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
SERIOUS = ("serious", "critical")

_RUN = """async tags => {
  const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
  return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(' '), summary: n.failureSummary || '',
                              html: n.html.slice(0, 200)}))}));
}"""


@lru_cache(maxsize=1)
def axe_source() -> str:
    import axe_playwright_python

    return (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")


def violations(page) -> list[dict]:
    """Every WCAG 2.1 A/AA violation axe finds in the page as it is now."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(axe_source())
    return page.evaluate(_RUN, TAGS)


def serious_violations(page) -> list[str]:
    """The serious and critical violations, one readable line per element (empty: none)."""
    out = []
    for v in violations(page):
        if v["impact"] not in SERIOUS:
            continue
        for n in v["nodes"][:8]:
            summary = " ".join(n["summary"].split())[:300]
            out.append(f'{v["id"]} ({v["impact"]}, {len(v["nodes"])} elements): {n["target"]} :: {summary} :: {n["html"]}')
    return out
