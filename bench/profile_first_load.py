"""Where a page's first load goes in the browser (Chromium through Playwright and CDP).

For each page: one warm-up visit (so the server has its caches), then ``--repeats`` first
loads, each in a new browser context (a new session), and per load:

- the timeline: navigation start to DOMContentLoaded, the websocket opened, the first and
  last message from the server, the page's title drawn (h1), the script run ended, and
  the last DOM mutation (what bench_browser.py reports as the first load);
- what came over the network: scripts and style sheets (count, bytes, the last one to
  arrive), websocket messages (count, bytes each way);
- the browser's main-thread time by kind (CDP ``Performance.getMetrics``: script, layout,
  style, all tasks), long tasks (over 50 ms) and the CPU seconds of all its processes;
- what the page holds: element containers, skeletons (not yet drawn), iframes, DOM nodes.

With ``--profile``, the JS self time over all loads by script file and by function
(CDP ``Profiler``), so a cost can be traced to a chunk (Vega, the data grid, ...).

    python bench/profile_first_load.py --port 19310 [--pages Train Quirks] [--repeats 3] [--profile]

The app must already run on that port (``streamlit run app.py --server.port 19310``);
``--path`` loads any other path (the floor app's "" for instance).
"""
from __future__ import annotations

import argparse
import base64
import collections
import statistics

from bench_browser import ARGS, CHROMIUM, PAGES, WATCH, browser_pid, cpu_seconds, settled

#: the times (ms since navigation start) of a few moments of the load, and the long tasks
MOMENTS = """
window.__moments = {h1: null, running: null, done: null, longtasks: []};
new MutationObserver(() => {
  const m = window.__moments, now = performance.now();
  if (m.h1 === null && document.querySelector('[data-testid="stMain"] h1')) m.h1 = now;
  const app = document.querySelector('[data-testid="stApp"]');
  const state = app && app.getAttribute('data-test-script-state');
  if (state === 'running' && m.running === null) m.running = now;
  if (state === 'notRunning' && m.running !== null) m.done = now;
}).observe(document, {subtree: true, childList: true, attributes: true});
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__moments.longtasks.push([e.startTime, e.duration]);
  }).observe({type: 'longtask', buffered: true});
} catch (e) {}
"""

READ = """() => {
  const m = window.__moments, nav = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource').map(r => ({name: r.name, type: r.initiatorType,
    start: r.startTime, end: r.responseEnd, bytes: r.encodedBodySize}));
  const paint = Object.fromEntries(performance.getEntriesByType('paint').map(p => [p.name, p.startTime]));
  const main = document.querySelector('[data-testid="stMain"]');
  return {dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, h1: m.h1, running: m.running, done: m.done,
          last: window.__bench.last, longtasks: m.longtasks, res, fcp: paint['first-contentful-paint'] || null,
          elements: document.querySelectorAll('[data-testid="stElementContainer"]').length,
          main_elements: main ? main.querySelectorAll('[data-testid="stElementContainer"]').length : 0,
          skeletons: document.querySelectorAll('[data-testid="stSkeleton"]').length,
          iframes: document.querySelectorAll('iframe').length,
          nodes: document.getElementsByTagName('*').length,
          html_bytes: [...document.querySelectorAll('[data-testid="stHtml"]')].reduce((a, e) => a + e.innerHTML.length, 0),
          style_bytes: [...document.querySelectorAll('style')].reduce((a, e) => a + e.textContent.length, 0)};
}"""

KINDS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")


def one_load(browser, url: str, profile: bool):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.add_init_script(WATCH)
    context.add_init_script(MOMENTS)
    page = context.new_page()
    page.set_default_timeout(60_000)
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    cdp.send("Network.enable")
    ws = {"in": 0, "in_bytes": 0, "out": 0, "out_bytes": 0, "first_in": None, "last_in": None, "opened": None}
    t0 = {}

    def frame(direction):
        def on(ev):
            data = ev["response"]["payloadData"]
            size = len(base64.b64decode(data)) if ev["response"]["opcode"] == 2 else len(data.encode())
            ws[direction] += 1
            ws[f"{direction}_bytes"] += size
            if direction == "in":
                ws["first_in"] = ws["first_in"] or ev["timestamp"]
                ws["last_in"] = ev["timestamp"]
        return on

    cdp.on("Network.requestWillBeSent", lambda ev: t0.setdefault("t", ev["timestamp"]))
    cdp.on("Network.webSocketCreated", lambda ev: ws.__setitem__("opened", ws["opened"] or t0.get("t")))
    cdp.on("Network.webSocketHandshakeResponseReceived", lambda ev: ws.__setitem__("opened", ev["timestamp"]))
    cdp.on("Network.webSocketFrameReceived", frame("in"))
    cdp.on("Network.webSocketFrameSent", frame("out"))
    if profile:
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 250})
        cdp.send("Profiler.start")
    chromium = browser_pid()
    cpu0 = sum(cpu_seconds(chromium).values())
    before = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    page.goto(url)
    wall = settled(page, since_navigation=True)
    cpu1 = sum(cpu_seconds(chromium).values())
    after = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    got = page.evaluate(READ)
    prof = cdp.send("Profiler.stop")["profile"] if profile else None
    context.close()
    # CDP timestamps are seconds on a monotonic clock; the first request is navigation start (about)
    rel = lambda t: None if t is None or "t" not in t0 else (t - t0["t"]) * 1000
    scripts = [r for r in got["res"] if r["name"].endswith(".js")]
    styles = [r for r in got["res"] if r["name"].endswith(".css")]
    row = {"wall": wall, "cpu": cpu1 - cpu0, **{k: after[k] - before.get(k, 0) for k in KINDS},
           "dcl": got["dcl"], "fcp": got["fcp"], "ws_open": rel(ws["opened"]), "first_msg": rel(ws["first_in"]),
           "last_msg": rel(ws["last_in"]), "h1": got["h1"], "run_done": got["done"], "last_mutation": got["last"],
           "msgs_in": ws["in"], "kB_in": ws["in_bytes"] / 1e3, "msgs_out": ws["out"], "kB_out": ws["out_bytes"] / 1e3,
           "js_files": len(scripts), "js_kB": sum(r["bytes"] for r in scripts) / 1e3,
           "last_js": max((r["end"] for r in scripts), default=0), "css_files": len(styles),
           "longtasks": len(got["longtasks"]), "longtask_ms": sum(d for _, d in got["longtasks"]),
           "elements": got["elements"], "main_elements": got["main_elements"], "skeletons": got["skeletons"],
           "iframes": got["iframes"], "nodes": got["nodes"], "html_kB": got["html_bytes"] / 1e3,
           "style_kB": got["style_bytes"] / 1e3}
    return row, scripts, got["longtasks"], prof


def report_profile(profiles) -> None:
    self_time, by_file = collections.Counter(), collections.Counter()
    for prof in profiles:
        by_id = {n["id"]: n for n in prof["nodes"]}
        for sid, delta in zip(prof["samples"], prof["timeDeltas"]):
            cf = by_id[sid]["callFrame"]
            url = cf["url"].rsplit("/", 1)[-1]
            self_time[f"{cf['functionName'] or '(anon)'} {url}:{cf['lineNumber']}"] += delta
            by_file[url.split(".")[0] or cf["functionName"]] += delta
    n = len(profiles)
    print(f"\nJS self time by script file (ms per load, mean of {n}):")
    for k, v in by_file.most_common(25):
        print(f"{v / 1e3 / n:9.1f}  {k}")
    print(f"\nJS self time by function (ms per load, mean of {n}):")
    for k, v in self_time.most_common(30):
        print(f"{v / 1e3 / n:9.1f}  {k}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--pages", nargs="+", choices=list(PAGES), default=["Train", "Tokenize", "Vocabulary size",
                                                                        "Algorithms", "Quirks"])
    ap.add_argument("--path", help="load this path instead of the pages ('' for the root)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--scripts", action="store_true", help="list the script files each page loads")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    targets = {args.path or "/": args.path} if args.path is not None else {n: PAGES[n] for n in args.pages}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        table = {}
        for name, path in targets.items():
            url = f"http://127.0.0.1:{args.port}/{path}"
            one_load(browser, url, False)  # warm-up
            rows, profiles = [], []
            for _ in range(args.repeats):
                row, scripts, longtasks, prof = one_load(browser, url, args.profile)
                rows.append(row)
                profiles += [prof] if prof else []
            table[name] = {k: statistics.median(r[k] for r in rows if r[k] is not None) if any(r[k] is not None for r in rows) else float("nan")
                           for k in rows[0]}
            if args.scripts:
                print(f"\n{name}: scripts of the last load (ms since navigation: start-end, kB)")
                for r in sorted(scripts, key=lambda r: r["start"]):
                    print(f"  {r['start']:7.0f}-{r['end']:7.0f}  {r['bytes'] / 1e3:7.1f}  {r['name'].rsplit('/', 1)[-1]}")
                print("  long tasks (start, ms):", ", ".join(f"{s:.0f}+{d:.0f}" for s, d in longtasks))
            if args.profile:
                print(f"\n## {name}")
                report_profile(profiles)
        browser.close()
    keys = list(next(iter(table.values())))
    print(f"\nmedians of {args.repeats} first loads (times in ms since navigation unless s)")
    print("| measure | " + " | ".join(table) + " |")
    print("|---|" + "--:|" * len(table))
    for k in keys:
        print(f"| {k} | " + " | ".join(f"{table[n][k]:.2f}" if isinstance(table[n][k], float) and table[n][k] < 100
                                      else f"{table[n][k]:.0f}" for n in table) + " |")


if __name__ == "__main__":
    main()
