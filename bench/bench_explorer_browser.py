"""The Vocabulary explorer's first load in a real browser, against the app's 2 s target.

    python bench/bench_explorer_browser.py [--repeats 5] [--cases default magikarp o200k]

Starts `streamlit run app.py` on a free loopback port and drives Debian's Chromium
through Playwright (the helpers of bench_browser.py). For each case, each repeat:

- a **fresh server process** (so no index of a built-in vocabulary is built yet), its
  home page opened once in a browser context of its own (a deep link as the very first
  visit to a new server can show "Page not found"; tests/browser/conftest.py does the same);
- **cold**: the case's link opened in a new context (a new session): the server loads
  the tokenizer and builds its `VocabIndex`;
- **warm**: the same link again in another new context (the index is shared now).

Cases: `home` (the Home page, for reference: what any page's first load costs at the same
moment), `default` (/vocabulary-explorer: GPT-2, the search view's first page of tokens),
`magikarp` (?tokenizer=gpt2&q=SolidGoldMagikarp: the card of token 43,453),
`o200k` (?tokenizer=o200k_base: 200,000 tokens).

Two figures per load, both from the navigation start:
- **first content**: the first DOM mutation at which the case's content is on screen
  (the token card, or a table of tokens) and has height: on a first visit, the page shows
  the link's card or the first tokens while the index is built (ui/explorer/widgets.py
  `_first_build`);
- **drawn**: bench_browser.py's "settled" (the last DOM mutation before 300 ms of quiet, no
  script run in progress, no grey placeholder left) with the content on screen. This is the
  figure held against the 2 s target.

The server's CPU seconds per load are reported too (they move less with the machine's load
than wall times). The header gives the date, commit and load average before and after.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT  # noqa: E402
from bench_browser import (  # noqa: E402
    ARGS, CHROMIUM, QUIET_MS, SETTLED, WATCH, cpu_seconds, cpu_spent, free_port, start_app,
)

#: name -> (path and query, CSS selector of the content, text the content must hold)
CASES = {
    "home": ("", '[data-testid="stMain"] h1', "Byte-pair encoding"),
    "default": ("vocabulary-explorer", ".vx-rows table", ""),
    "magikarp": ("vocabulary-explorer?tokenizer=gpt2&q=SolidGoldMagikarp", ".vx-card", "43,453"),
    "o200k": ("vocabulary-explorer?tokenizer=o200k_base", ".vx-rows table", ""),
}
TARGET = 2.0

# Records the first mutation at which the wanted content is on screen (and holds the text).
CONTENT = """
window.__content = null;
new MutationObserver(() => {
  if (window.__content !== null) return;
  const want = window.__want;
  if (!want) return;
  for (const el of document.querySelectorAll(want.sel))
    if (el.getBoundingClientRect().height > 0 && el.textContent.includes(want.text)) {
      window.__content = performance.now();
      return;
    }
}).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
"""

DRAWN = """([quiet, sel, text]) => {
  const ok = [...document.querySelectorAll(sel)].some((e) => e.getBoundingClientRect().height > 0
                                                           && e.textContent.includes(text));
  return ok && window.__content !== null && (""" + SETTLED + """)([quiet, false]);
}"""


def load(browser, url: str, case: str, server: int) -> tuple[float, float, float]:
    """(first content s, drawn s, server CPU s) of one first load of `case` in a new session."""
    path, sel, text = CASES[case]
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.add_init_script(WATCH)
    context.add_init_script(f"window.__want = {{sel: {sel!r}, text: {text!r}}};" + CONTENT)
    before = cpu_seconds(server)
    try:
        page = context.new_page()
        page.set_default_timeout(90_000)
        page.goto(f"{url}/{path}")
        page.evaluate("() => { window.__bench.start = 0; window.__bench.ran = Math.max(window.__bench.ran, 1e-3); }")
        page.wait_for_function(DRAWN, arg=[QUIET_MS, sel, text], polling=25, timeout=90_000)
        first, drawn = page.evaluate("() => [window.__content / 1000, window.__bench.last / 1000]")
    finally:
        context.close()
    return first, drawn, cpu_spent(before, cpu_seconds(server))


def open_home(browser, url: str) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(url)
        page.get_by_role("heading", name="Byte-pair encoding, step by step").wait_for(timeout=90_000)
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    load_before = os.getloadavg()
    results: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for _ in range(args.repeats):
            for case in args.cases:  # a fresh server per case and repeat: its index is not built yet
                port = free_port()
                proc = start_app(port)
                url = f"http://127.0.0.1:{port}"
                try:
                    open_home(browser, url)
                    results.setdefault((case, "cold"), []).append(load(browser, url, case, proc.pid))
                    results.setdefault((case, "warm"), []).append(load(browser, url, case, proc.pid))
                finally:
                    proc.terminate()
                    proc.wait(timeout=10)
        browser.close()
    load_after = os.getloadavg()
    print(f"# bench_explorer_browser.py · {time.strftime('%Y-%m-%d %H:%M')} · commit {commit} · "
          f"{os.cpu_count()} cores · load average {load_before[0]:.1f} before, {load_after[0]:.1f} after · "
          f"{args.repeats} repeats\n")
    print("| case | visit | n | first content, median s | drawn, median s | drawn, min-max s | server CPU s "
          f"| drawn < {TARGET:g} s |")
    print("|---|---|--:|--:|--:|--:|--:|---|")
    for (case, visit), runs in results.items():
        first = statistics.median(r[0] for r in runs)
        drawn = [r[1] for r in runs]
        cpu = statistics.median(r[2] for r in runs)
        med = statistics.median(drawn)
        print(f"| {CASES[case][0]} | {visit} | {len(runs)} | {first:.2f} | {med:.2f} | {min(drawn):.2f}-{max(drawn):.2f} "
              f"| {cpu:.2f} | {'yes' if med < TARGET else 'no'} |")


if __name__ == "__main__":
    main()
