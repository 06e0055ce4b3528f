"""Where a Train-page step's time goes in the browser (Chromium through Playwright and CDP).

Opens the Sennrich preset, then clicks Step / Back ``--repeats`` times each and reports,
per click: the browser's main-thread time by kind from CDP ``Performance.getMetrics``
(script, layout, style recalculation, all tasks), the DOM nodes added and removed
(a MutationObserver), the elements Streamlit re-rendered in the main block, and, with
``--profile``, the JS functions with the most self time over all the clicks (CDP
``Profiler``).

    python bench/profile_step_browser.py --port 8902 [--repeats 6] [--profile] [--trace]

``--trace`` records a Chromium trace around each click and reports the renderer main
thread's **CPU** milliseconds (the trace's thread time, ``tdur``: what the thread ran,
not how long it waited for a core), split by kind (script, paint, style, layout). On a
shared machine whose load average moves, it compares two versions far better than wall
time or ``Performance.getMetrics`` (wall durations): run it on two servers, one after the
other, a few times each.

The app must already run on that port (``streamlit run app.py --server.port 8902``).
"""
from __future__ import annotations

import argparse
import collections
import statistics

from bench_browser import ARGS, CHROMIUM, WATCH, arm, browser_pid, cpu_seconds, settled

COUNT = """
window.__nodes = {added: 0, removed: 0, attrs: 0, text: 0};
new MutationObserver((records) => {
  for (const r of records) {
    if (r.type === 'childList') {
      for (const n of r.addedNodes) window.__nodes.added += 1 + (n.querySelectorAll ? n.querySelectorAll('*').length : 0);
      for (const n of r.removedNodes) window.__nodes.removed += 1 + (n.querySelectorAll ? n.querySelectorAll('*').length : 0);
    } else if (r.type === 'attributes') window.__nodes.attrs++;
    else window.__nodes.text++;
  }
}).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
"""

#: forced layouts: every getBoundingClientRect call and the time it took (a call after a
#: DOM change makes the browser lay the page out there and then)
RECTS = """
window.__rects = {n: 0, ms: 0};
const __gbcr = Element.prototype.getBoundingClientRect;
Element.prototype.getBoundingClientRect = function () {
  const t = performance.now(); const r = __gbcr.call(this);
  window.__rects.n++; window.__rects.ms += performance.now() - t; return r;
};
"""

def cpu(pid: int | None) -> float:
    """CPU seconds the browser's processes have used (bench_browser.cpu_seconds)."""
    return sum(cpu_seconds(pid).values())


KINDS = ("ScriptDuration", "LayoutDuration", "RecalcStyleDuration", "TaskDuration")


#: Chromium trace categories for --trace (RunTask and the timeline's events, with thread time)
TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "toplevel", "v8.execute"]
#: timeline events reported by kind (thread milliseconds; nested events are counted in each)
TRACE_KINDS = ("FunctionCall", "Paint", "PrePaint", "UpdateLayoutTree", "Layout", "Layerize", "Commit", "ParseHTML")


def main_thread_cpu(trace: bytes) -> dict[str, float]:
    """Thread milliseconds of the busiest renderer main thread in a Chromium trace: all its
    tasks ("cpu ms") and the events named in TRACE_KINDS."""
    import json

    events = json.loads(trace)
    events = events["traceEvents"] if isinstance(events, dict) else events
    mains = {(e["pid"], e["tid"]) for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"
             and e["args"].get("name") == "CrRendererMain"}
    tasks: collections.Counter = collections.Counter()
    kinds: dict[tuple, collections.Counter] = collections.defaultdict(collections.Counter)
    for e in events:
        thread = (e.get("pid"), e.get("tid"))
        if thread not in mains or e.get("ph") != "X":
            continue
        ms = e.get("tdur", 0) / 1000
        if e["name"] == "RunTask":
            tasks[thread] += ms
        elif e["name"] in TRACE_KINDS:
            kinds[thread][e["name"]] += ms
    if not tasks:
        return {"cpu ms": 0.0}
    main = max(tasks, key=tasks.get)
    return {"cpu ms": tasks[main], **{k: kinds[main][k] for k in TRACE_KINDS}}


def metrics(cdp) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--repeats", type=int, default=6)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--trace", action="store_true",
                    help="the renderer main thread's CPU per click, by kind, from a Chromium trace")
    ap.add_argument("--reduced-motion", action="store_true", help="as a reader who asks for less motion")
    ap.add_argument("--path", default="train-bpe?preset=sennrich")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport={"width": 1440, "height": 900},
                                      reduced_motion="reduce" if args.reduced_motion else "no-preference")
        context.add_init_script(WATCH)
        context.add_init_script(COUNT)
        context.add_init_script(RECTS)
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(f"http://127.0.0.1:{args.port}/{args.path}")
        settled(page, since_navigation=True)
        cdp = context.new_cdp_session(page)
        cdp.send("Performance.enable")
        if args.profile:
            cdp.send("Profiler.enable")
            cdp.send("Profiler.setSamplingInterval", {"interval": 200})
            cdp.send("Profiler.start")
        chromium = browser_pid()
        step = page.locator(".st-key-train_w_btn_step button").first
        back = page.locator(".st-key-train_w_btn_back button").first
        rows = collections.defaultdict(list)
        for i in range(args.repeats):
            for button, name in ((step, "step"), (back, "back")):
                before = metrics(cdp)
                cpu0 = cpu(chromium)
                page.evaluate("() => { window.__nodes = {added: 0, removed: 0, attrs: 0, text: 0}; window.__rects = {n: 0, ms: 0}; }")
                if args.trace:
                    browser.start_tracing(page=page, categories=TRACE_CATEGORIES)
                arm(page)
                button.click()
                wall = settled(page, whole_run=False)
                page.wait_for_timeout(800)  # let animations end: their frames count too
                traced = main_thread_cpu(browser.stop_tracing()) if args.trace else {}
                cpu1 = cpu(chromium)
                after = metrics(cdp)
                nodes = page.evaluate("() => ({...window.__nodes, rects: window.__rects.n, rect_ms: window.__rects.ms / 1000})")
                rows[name].append({"wall": wall, "cpu": cpu1 - cpu0, **{k: after[k] - before[k] for k in KINDS}, **nodes, **traced})
        print("| click | n | wall s | browser CPU s | task s | script s | layout s | style s | nodes added | removed | attrs | text | rect calls | rect s |")
        print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
        for name, rs in rows.items():
            med = lambda k: statistics.median(r[k] for r in rs)
            print(f"| {name} | {len(rs)} | {med('wall'):.2f} | {med('cpu'):.2f} | {med('TaskDuration'):.3f} | {med('ScriptDuration'):.3f} | "
                  f"{med('LayoutDuration'):.3f} | {med('RecalcStyleDuration'):.3f} | {med('added'):.0f} | "
                  f"{med('removed'):.0f} | {med('attrs'):.0f} | {med('text'):.0f} | {med('rects'):.0f} | {med('rect_ms'):.3f} |")
        if args.trace:
            print("\nRenderer main thread, CPU ms per click (trace thread time; medians):\n")
            print("| click | n | cpu ms | " + " | ".join(TRACE_KINDS) + " |")
            print("|---|--:|--:|" + "--:|" * len(TRACE_KINDS))
            for name, rs in rows.items():
                med = lambda k: statistics.median(r[k] for r in rs)
                print(f"| {name} | {len(rs)} | {med('cpu ms'):.0f} | " + " | ".join(f"{med(k):.0f}" for k in TRACE_KINDS) + " |")
        if args.profile:
            prof = cdp.send("Profiler.stop")["profile"]
            self_time = collections.Counter()
            by_id = {n["id"]: n for n in prof["nodes"]}
            dt = collections.Counter()
            for sid, delta in zip(prof["samples"], prof["timeDeltas"]):
                dt[sid] += delta
            for nid, us in dt.items():
                cf = by_id[nid]["callFrame"]
                url = cf["url"].rsplit("/", 1)[-1]
                self_time[f"{cf['functionName'] or '(anon)'} {url}:{cf['lineNumber']}"] += us
            total = sum(self_time.values())
            print(f"\nJS self time over all clicks (µs, total {total/1e6:.2f} s incl. idle):")
            for k, v in self_time.most_common(40):
                print(f"{v/1e3:9.1f} ms  {k}")
            by_file = collections.Counter()
            for nid, us in dt.items():
                cf = by_id[nid]["callFrame"]
                by_file[cf["url"].rsplit("/", 1)[-1].split(".")[0] or cf["functionName"]] += us
            print("\nJS self time by script file:")
            for k, v in by_file.most_common(25):
                print(f"{v/1e3:9.1f} ms  {k}")
            parent = {c: n["id"] for n in prof["nodes"] for c in n.get("children", [])}
            name = lambda nid: (lambda cf: f"{cf['functionName'] or '(anon)'} {cf['url'].rsplit('/', 1)[-1]}:{cf['lineNumber']}")(by_id[nid]["callFrame"])
            for target in ("getBoundingClientRect", "parseFromString", "setAttribute"):
                chains = collections.Counter()
                for nid, us in dt.items():
                    if by_id[nid]["callFrame"]["functionName"] == target:
                        chain, cur = [], parent.get(nid)
                        while cur is not None and len(chain) < 6:
                            chain.append(name(cur))
                            cur = parent.get(cur)
                        chains[" <- ".join(chain)] += us
                print(f"\n{target} callers:")
                for k, v in chains.most_common(6):
                    print(f"{v/1e3:9.1f} ms  {k}")
        browser.close()


if __name__ == "__main__":
    main()
