"""How quick the app feels in a real browser: clicks, page loads, an upload and a paste.

Starts the app (`streamlit run app.py`) on a free loopback port, drives Debian's
Chromium through Playwright and times, several times each (median and spread):

- Train page, Sennrich preset: Step, Back, and the step slider moved by one (keyboard);
- Vocabulary size page: its slider moved by one size (keyboard), each time to a size not
  chosen before, so the server computes what that size shows (no cache answers it);
- the first load of each page in a new session (Train, Tokenize, Vocabulary size,
  Algorithms, Quirks, Vocabulary explorer), after one warm-up visit so the server has loaded its tokenizers;
- a 1 MB upload's first view on the Train page (new content each time, so no cache hit);
- 100 kB pasted on the Tokenize page, from the paste until painted (the page applies a paste
  itself; Ctrl+Enter is pressed too, for checkouts from before 2026-12-05).

"Settled" means no DOM mutation for 300 ms, after the server has started a script run
for the action, with no run in progress (so the quiet while a file uploads or a message
travels is not taken for the end), and no element still drawn as a placeholder: Streamlit
draws each kind of element with a script it fetches the first time a page shows one, and
until it has arrived the element is a grey `stSkeleton` box; on a busy machine a fetch can
take longer than 300 ms, so quiet alone ended a first load seconds before the page was
drawn (fixed 2026-12-01, branch firstload2: first loads measured before then are short). A
MutationObserver records the time of every mutation; each figure is the last mutation's
time minus the user's action (pointerdown, keydown or the file input's change event), or
minus the navigation start for a first load. So the 300 ms of quiet is not counted.

For each first load it also reports the CPU seconds the server process and the browser
(all its processes) spent on it, read from /proc: on a shared machine these move far less
with the load average than the wall times, so they compare two versions of a page.

What it leaves out: server start-up, the very first (cold) visit after it (printed
separately), network latency (everything is on 127.0.0.1), and Chromium's omnibox
drop-down, which every new window (so every first load here) would otherwise load in a
renderer of its own beside the page (`--omnibox` leaves it on; see NO_OMNIBOX_WEBUI).

    python bench/bench_browser.py [--repeats 7]

First loads only: `--floor` also times a one-`st.write` page served with the app's config
(what Streamlit itself costs), alone and as one of seven pages listed in the sidebar (as
this app's are), `--against CHECKOUT` serves another checkout too (main's,
say) and alternates the two load by load, `--pages Home ...` picks the pages.
"""
from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
import urllib.request

from _common import ROOT, corpus

CHROMIUM = "/usr/bin/chromium"
#: an argument Chromium ignores, by which the bench finds the browser's processes
MARKER = "--bench-browser-cpu-marker"
ARGS = [MARKER, "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
#: Chromium 156 (Debian's), even headless, gives every new window its own omnibox drop-down: two
#: WebUI pages (chrome://omnibox-popup.top-chrome/ and its AI-mode twin) loaded in a renderer of
#: their own, about 1.1 s of CPU. Each first load here is a new browser context, so a new
#: window, and that renderer loaded at the same time as the page, on a machine of two cores.
#: A reader opening a link in a browser already running pays it once per window, not per page,
#: so it is switched off (`--omnibox` measures with it).
NO_OMNIBOX_WEBUI = "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup"
ARGS.append(NO_OMNIBOX_WEBUI)
QUIET_MS = 300
#: the app's own output, to read when a measurement fails
LOG = Path(tempfile.gettempdir()) / "bench_browser_app.log"

#: issue 13's targets, in seconds (medians, idle machine)
TARGETS = {"step": 0.2, "back": 0.2, "slider": 0.2, "Vocabulary size: slider": 0.2, "first load": 2.0, "1 MB upload, first view": 1.0,
           "100 kB paste, painted": 0.75}

PAGES = {"Train": "train-bpe", "Tokenize": "tokenize-text", "Vocabulary size": "vocabulary-size",
         "Algorithms": "algorithms", "Quirks": "tokenizer-quirks", "Vocabulary explorer": "vocabulary-explorer",
         "Home": ""}
#: measured when no --pages are given (Home only on request: it is a reference, not a target)
DEFAULT_PAGES = [name for name in PAGES if name != "Home"]

#: `--floor`: a page with one st.write, served with the app's .streamlit/config.toml. Its
#: first load is what Streamlit's own scripts cost on this machine (the floor under every page).
#: Three apps, each served in turn: the page alone at "/"; the page at its own path, the
#: second page of an app whose navigation is hidden (the app's pages are at paths such as
#: /train-bpe, and there Streamlit's page first asks /train-bpe/_stcore/health, gets a 404,
#: waits and asks /_stcore/health, which a page at "/" does not pay); and the page at a
#: path in an app of seven pages listed in the sidebar, as this app's are (the floor under
#: its pages). Only a page that is not the default may have a path: Streamlit serves the
#: default page at "/" whatever its url_path, and its path opens a "Page not found" dialog
#: (the floor "at a page's path" measured before 2026-12-01 timed that).
_ONE = 'import streamlit as st\n\n\ndef one():\n    st.write("# One st.write")\n\n\n'
FLOOR_APPS = [
    (_ONE + 'st.navigation([st.Page(one, title="One", default=True)]).run()\n',
     {"floor (one st.write)": ""}),
    (_ONE + 'st.navigation([st.Page(one, title="Home", default=True),\n'
            '               st.Page(one, title="One", url_path="one-page")], position="hidden").run()\n',
     {"floor (one st.write), at a page's path": "one-page"}),
    (_ONE + 'st.navigation([st.Page(one, title="Home", default=True)]\n'
            '              + [st.Page(one, title=f"Page {i}", url_path=f"page-{i}") for i in range(6)]).run()\n',
     {"floor (one st.write), seven pages in the sidebar, at a page's path": "page-3"}),
]

# Runs at document start in every page: remembers the time of the last DOM mutation and
# of the first user action since the bench last armed it.
WATCH = """
window.__bench = {start: null, last: 0, ran: 0};
new MutationObserver((records) => {
  const now = performance.now();
  window.__bench.last = now;
  for (const r of records)
    if (r.attributeName === 'data-test-script-state' && r.target.getAttribute(r.attributeName) === 'running')
      window.__bench.ran = now;
}).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
for (const type of ['pointerdown', 'keydown', 'change'])
  addEventListener(type, () => { if (window.__bench.start === null) window.__bench.start = performance.now(); }, true);
"""

SETTLED = """([quiet, needRun]) => {
  const b = window.__bench, app = document.querySelector('[data-testid="stApp"]');
  return b && b.start !== null && (!needRun || b.ran > b.start) && b.last > b.start && performance.now() - b.last >= quiet
    && app && app.getAttribute('data-test-script-state') === 'notRunning'
    && document.querySelector('[data-testid="stMain"] h1') !== null
    && ![...document.querySelectorAll('[data-testid="stSkeleton"]')].some((e) => e.getBoundingClientRect().height > 0);
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(port: int, cwd: Path = ROOT, log: Path = LOG) -> subprocess.Popen:
    # A server already listening there would answer the health check below, and the bench
    # would time whatever it serves (another checkout, say) without a word: refuse instead.
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a closed connection's TIME_WAIT is fine
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            raise SystemExit(f"port {port} is in use: stop the server listening there (ss -ltnp) "
                             "or pick other ports with --port") from None
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address=127.0.0.1", f"--server.port={port}",
         "--server.headless=true", "--browser.gatherUsageStats=false", "--server.fileWatcherType=none"],
        cwd=cwd, stdout=log.open("w"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.read() == b"ok":
                    return proc
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise RuntimeError("streamlit did not start within 60 s")


def arm(page) -> None:
    page.evaluate("() => { window.__bench.start = null; window.__bench.last = 0; window.__bench.ran = 0; }")


def settled(page, *, since_navigation: bool = False, whole_run: bool = True) -> float:
    """Seconds from the action (or the navigation start) to the last mutation.

    `whole_run`: wait for the app's script state to have been "running" since the
    action (an upload or a paste reruns the page); a step reruns only a fragment,
    which does not change that state, so its clicks wait for quiet alone."""
    if since_navigation:  # the first run may start before the observer sees the attribute change
        page.evaluate("() => { window.__bench.start = 0; window.__bench.ran = Math.max(window.__bench.ran, 1e-3); }")
    page.wait_for_function(SETTLED, arg=[QUIET_MS, whole_run], polling=25, timeout=60_000)
    return page.evaluate("() => (window.__bench.last - window.__bench.start) / 1000")


def new_page(browser, url: str, path: str, *, clipboard: bool = False):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    if clipboard:
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    context.add_init_script(WATCH)
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{url}/{path}")
    return page, settled(page, since_navigation=True)


def cpu_seconds(root: int | None) -> dict[int, float]:
    """CPU seconds (user + system) each process of a tree has used so far (Linux /proc;
    empty elsewhere). Unlike wall time, this hardly moves with the load other programs
    put on the machine, so it compares two versions of a page on a busy machine."""
    if root is None:
        return {}
    children: dict[int, list[int]] = {}
    used: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry.name)
        children.setdefault(int(fields[1]), []).append(pid)
        used[pid] = (int(fields[11]) + int(fields[12])) / tick
    out, todo = {}, [root]
    while todo:
        pid = todo.pop()
        out[pid] = used.get(pid, 0.0)
        todo += children.get(pid, [])
    return out


def cpu_spent(before: dict[int, float], after: dict[int, float]) -> float:
    """What the processes alive at the end used in between (a process that ended, such
    as a closed tab's renderer, is left out rather than counted as negative)."""
    return sum(t - before.get(pid, 0.0) for pid, t in after.items())


def browser_pid() -> int | None:
    """The Chromium process this bench launched (the one given MARKER, below this process:
    other sessions on the machine may run this bench at the same time)."""
    parent: dict[int, int] = {}
    marked = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            parent[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if MARKER.encode() in (entry / "cmdline").read_bytes():
                marked.append(int(entry.name))
        except OSError:
            continue

    def ours(pid: int) -> bool:
        while pid > 1:
            pid = parent.get(pid, 0)
            if pid == os.getpid():
                return True
        return False

    return min((pid for pid in marked if ours(pid)), default=None)


def first_loads(browser, url: str, repeats: int, names: list[str], server: int,
                paths: dict[str, str] = PAGES) -> dict[str, list[float]]:
    """Wall seconds of each first load, and the CPU seconds it cost the server process
    and the browser (all its processes), which the load average moves far less."""
    out: dict[str, list[float]] = {}
    chromium = browser_pid()
    for name in names:
        path = paths[name]
        page, cold = new_page(browser, url, path)  # warm-up: the server loads what the page needs
        page.context.close()
        out[f"first load: {name}"] = []
        out[f"first load: {name} (cold, once)"] = [cold]
        server_cpu, browser_cpu = [], []
        for _ in range(repeats):
            before = cpu_seconds(server), cpu_seconds(chromium)
            page, seconds = new_page(browser, url, path)
            server_cpu.append(cpu_spent(before[0], cpu_seconds(server)))
            browser_cpu.append(cpu_spent(before[1], cpu_seconds(chromium)))
            out[f"first load: {name}"].append(seconds)
            page.context.close()
        out[f"CPU per first load: {name}, server"] = server_cpu
        out[f"CPU per first load: {name}, browser"] = browser_cpu
    return out


def compared_loads(browser, repeats: int, names: list[str], here: tuple[str, int], there: tuple[str, int],
                   label: str) -> dict[str, list[float]]:
    """First loads of the same pages from two servers (this checkout and `--against`'s),
    one after the other, repeat by repeat: on a shared machine whose load drifts, taking
    turns compares the two at the same load, which two runs minutes apart do not."""
    out: dict[str, list[float]] = {}
    chromium = browser_pid()
    for name in names:
        for url, _ in (here, there):  # warm-up: each server loads what the page needs
            page, _ = new_page(browser, url, PAGES[name])
            page.context.close()
        for _ in range(repeats):
            for (url, server), tag in ((here, "this checkout"), (there, label)):
                before = cpu_seconds(server), cpu_seconds(chromium)
                page, seconds = new_page(browser, url, PAGES[name])
                server_cpu = cpu_spent(before[0], cpu_seconds(server))
                browser_cpu = cpu_spent(before[1], cpu_seconds(chromium))
                page.context.close()
                out.setdefault(f"first load: {name}, {tag}", []).append(seconds)
                out.setdefault(f"CPU per first load: {name}, {tag}, server", []).append(server_cpu)
                out.setdefault(f"CPU per first load: {name}, {tag}, browser", []).append(browser_cpu)
    return dict(sorted(out.items(), key=lambda kv: (kv[0].startswith("CPU"), kv[0])))


def floor_loads(browser, repeats: int, port: int) -> dict[str, list[float]]:
    """First loads of each of FLOOR_APPS, served in turn from a temporary folder with the
    app's config."""
    out: dict[str, list[float]] = {}
    for source, paths in FLOOR_APPS:
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / ".streamlit").mkdir()
            (Path(folder) / ".streamlit" / "config.toml").write_text((ROOT / ".streamlit" / "config.toml").read_text())
            (Path(folder) / "app.py").write_text(source)
            proc = start_app(port, cwd=Path(folder), log=LOG.with_name("bench_browser_floor.log"))
            try:
                out |= first_loads(browser, f"http://127.0.0.1:{port}", repeats, list(paths), proc.pid, paths=paths)
            finally:
                proc.terminate()
                proc.wait(timeout=10)
    return out


def steps(browser, url: str, repeats: int, server: int | None = None) -> dict[str, list[float]]:
    """Step, Back and the slider on the Sennrich preset: wall seconds to settled, and the
    CPU seconds each action cost the server process and the browser (all its processes)."""
    page, _ = new_page(browser, url, "train-bpe?preset=sennrich")
    chromium = browser_pid()
    out: dict[str, list[float]] = {"step": [], "back": [], "slider": []}
    cpu: dict[str, list[float]] = {}

    def timed(name: str, act) -> None:
        before = cpu_seconds(server), cpu_seconds(chromium)
        arm(page)
        act()
        out[name].append(settled(page, whole_run=False))
        cpu.setdefault(f"CPU per {name}, server", []).append(cpu_spent(before[0], cpu_seconds(server)))
        cpu.setdefault(f"CPU per {name}, browser", []).append(cpu_spent(before[1], cpu_seconds(chromium)))

    step = page.locator(".st-key-train_w_btn_step button").first
    back = page.locator(".st-key-train_w_btn_back button").first
    k = 0
    for _ in range(repeats):
        for button, name in ((step, "step"), (step, "step"), (back, "back"), (back, "back")):
            timed(name, button.click)
            k += 1 if name == "step" else -1
            _check_step(page, k)
    slider = page.locator(".st-key-train_w_step").get_by_role("slider")
    for i in range(repeats):
        slider.focus()
        timed("slider", lambda: slider.press("ArrowRight" if i % 2 == 0 else "ArrowLeft"))
        _check_step(page, 1 if i % 2 == 0 else 0)
    page.context.close()
    return out | cpu


def vocab_slider(browser, url: str, repeats: int, server: int | None = None) -> dict[str, list[float]]:
    """The Vocabulary size page's slider, moved one size up (ArrowRight) each time: every
    press chooses a size the page has not drawn yet, so its curves, figures, costs and
    languages are computed for it then (the server's caches start empty with the app)."""
    page, _ = new_page(browser, url, PAGES["Vocabulary size"])
    chromium = browser_pid()
    slider = page.locator(".st-key-vocab_w_chosen").get_by_role("slider")
    start = int(slider.input_value())
    out: dict[str, list[float]] = {"Vocabulary size: slider (a new size, keyboard)": []}
    cpu: dict[str, list[float]] = {}
    for i in range(1, repeats + 1):
        slider.focus()
        before = cpu_seconds(server), cpu_seconds(chromium)
        arm(page)
        slider.press("ArrowRight")
        # the slider and all it moves are a fragment: its rerun does not change the app's
        # script state, so (as for a step) quiet alone ends the wait; the check below
        # makes sure the page did show the new size
        out["Vocabulary size: slider (a new size, keyboard)"].append(settled(page, whole_run=False))
        cpu.setdefault("CPU per vocabulary slider move, server", []).append(cpu_spent(before[0], cpu_seconds(server)))
        cpu.setdefault("CPU per vocabulary slider move, browser", []).append(cpu_spent(before[1], cpu_seconds(chromium)))
        _check_vocab(page, start + i)
    page.context.close()
    return out | (cpu if server is not None else {})


def compared_vocab_slider(browser, repeats: int, ours: str, theirs: str, label: str) -> dict[str, list[float]]:
    """The Vocabulary size slider on this checkout's server and on another's, one move on
    each in turn (which goes first swaps at every move), so that this VM's drift, which moves
    a run's median by up to ~0.05 s from one hour to the next, falls on both alike. Besides
    each side's times: the paired differences (this checkout minus the other), move by move."""
    sides = []
    for name, url in (("this checkout", ours), (label, theirs)):
        page, _ = new_page(browser, url, PAGES["Vocabulary size"])
        slider = page.locator(".st-key-vocab_w_chosen").get_by_role("slider")
        sides.append((name, page, slider, int(slider.input_value())))
    out: dict[str, list[float]] = {f"Vocabulary size: slider (a new size, keyboard), {name}": [] for name, *_ in sides}
    diffs = []
    for i in range(1, repeats + 1):
        took = {}
        for name, page, slider, start in (sides if i % 2 else sides[::-1]):
            slider.focus()
            arm(page)
            slider.press("ArrowRight")
            took[name] = settled(page, whole_run=False)
            _check_vocab(page, start + i, name)
            out[f"Vocabulary size: slider (a new size, keyboard), {name}"].append(took[name])
        diffs.append(took["this checkout"] - took[label])
    for _, page, _, _ in sides:
        page.context.close()
    return out | {f"difference, this checkout minus {label}: Vocabulary size slider (paired, move by move)": diffs}


def _check_vocab(page, size: int, who: str = "this checkout") -> None:
    """The Vocabulary size page shows `size`: the key press measured really moved the slider."""
    shown = page.locator(".vc-figure-value").first.inner_text()
    if f"{size:,}" not in shown:
        raise RuntimeError(f"{who}: expected vocabulary size {size:,} after the key press, the page shows {shown!r}")


def _check_step(page, k: int) -> None:
    """The page shows step k: the click measured really stepped."""
    label = page.locator(".st-key-train_w_step").inner_text()
    if f"Step {k} of" not in label:
        raise RuntimeError(f"expected step {k} after the click, the page says {label!r}")


def upload(browser, url: str, repeats: int, text: str) -> dict[str, list[float]]:
    page, _ = new_page(browser, url, "train-bpe")
    _open_settings(page)
    arm(page)
    page.get_by_role("radio", name="Upload a .txt file").check(force=True)
    # wait for the uploader itself (waiting for a run to be seen starting timed out now and
    # then on a loaded machine), then for quiet
    page.locator("[data-testid='stFileUploaderDropzoneInput']").wait_for(state="attached")
    settled(page, whole_run=False)
    out = []
    for i in range(repeats):
        data = _megabyte(text, i)
        _open_settings(page)
        arm(page)
        page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(
            files=[{"name": f"bench{i}.txt", "mimeType": "text/plain", "buffer": data}])
        settled(page)
        # the upload may rerun the page more than once (read, then train): wait until the
        # page names the file, then for quiet again; the time still runs from the action
        page.wait_for_function("(n) => document.body.textContent.includes(n)", arg=f"bench{i}.txt",
                               polling=100, timeout=60_000)
        out.append(settled(page))
    page.context.close()
    return {"1 MB upload, first view": out}


def _open_settings(page) -> None:
    """The Train page folds its corpus and settings once a run is on screen: open them."""
    if not page.locator(".st-key-train_w_source").is_visible():
        page.get_by_text("Corpus and settings").first.click()
        page.locator(".st-key-train_w_source").wait_for(state="visible")


def _megabyte(text: str, i: int) -> bytes:
    """1,000,000 bytes of the corpus, starting at a different place each time."""
    data = (text * 3).encode("utf-8")
    start = (i * 37_001) % len(text)
    return data[start : start + 1_000_000].decode("utf-8", errors="ignore").encode("utf-8")


def paste(browser, url: str, repeats: int, text: str, server: int | None = None,
          other: tuple[str, str] | None = None) -> dict[str, list[float]]:
    """Wall seconds from the paste (Ctrl+V) to the paste painted, and the CPU seconds each
    paste cost the server process and the browser (all its processes). The page applies a
    paste by itself (ui/shared/live_text.py); Ctrl+Enter is still pressed once the box
    holds the text, so a checkout that waits for it (before 2026-12-05) is timed the same
    way. With `other` (its URL and label, `--against`) the two servers take turns, paste
    by paste, on the same texts."""
    sites = [("", url, server)] + ([(f" ({other[1]})", other[0], None)] if other else [])
    pages = {label: new_page(browser, site, "tokenize-text", clipboard=True)[0] for label, site, _ in sites}
    chromium = browser_pid()
    found: dict[str, list[float]] = {}
    for i in range(repeats):
        chunk = text[i * 5_003 : i * 5_003 + 100_000]
        for label, _, pid in sites:
            page = pages[label]
            box = page.get_by_role("textbox", name="Text")
            page.evaluate("(t) => navigator.clipboard.writeText(t)", chunk)
            box.click()
            box.press("Control+A")
            arm(page)
            before = cpu_seconds(pid) if pid else 0.0, cpu_seconds(chromium)
            box.press("Control+V")
            page.wait_for_function("(n) => document.querySelector('textarea').value.length === n", arg=len(chunk))
            box.press("Control+Enter")
            found.setdefault(f"100 kB paste, painted{label}", []).append(settled(page))
            if pid:
                found.setdefault("CPU per paste, server", []).append(cpu_spent(before[0], cpu_seconds(pid)))
                found.setdefault("CPU per paste, browser", []).append(cpu_spent(before[1], cpu_seconds(chromium)))
    for page in pages.values():
        page.context.close()
    return found


def target_of(name: str) -> float | None:
    if name.endswith("(cold, once)"):
        return None
    return next((t for key, t in TARGETS.items() if name.startswith(key)), None)


def table(results: dict[str, list[float]]) -> str:
    lines = ["| measure | n | median s | min-max s | target (median) | met |", "|---|--:|--:|--:|--:|---|"]
    for name, values in results.items():
        med = statistics.median(values)
        target = target_of(name)
        met = "" if target is None else ("yes" if med < target else "no")
        lines.append(f"| {name} | {len(values)} | {med:.2f} | {min(values):.2f}-{max(values):.2f} | "
                     f"{'' if target is None else f'< {target:g}'} | {met} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--only", choices=["first-load", "steps", "vocab-slider", "upload", "paste"], action="append",
                        help="measure only these (repeatable); default: all")
    parser.add_argument("--pages", nargs="+", choices=list(PAGES), metavar="PAGE",
                        help=f"first loads of these pages only (of {', '.join(PAGES)})")
    parser.add_argument("--floor", action="store_true",
                        help="also the first load of a one-st.write page with the app's config (Streamlit's own cost)")
    parser.add_argument("--against", type=Path, metavar="CHECKOUT",
                        help="first loads, the Vocabulary size slider and the paste only: also serve the app from this other "
                             "checkout (e.g. main's) and take turns between the two, page by page and repeat by repeat "
                             "(first loads), move by move (the slider, with the paired differences)")
    parser.add_argument("--port", type=int, help="serve the app on this port (the floor page on the next); default: free ones")
    parser.add_argument("--omnibox", action="store_true",
                        help="leave Chromium's omnibox WebUI on: each new window (each first load) then also loads "
                             "the omnibox drop-down's pages, as this bench did before 2026-12-01")
    args = parser.parse_args()
    only = set(args.only or ["first-load", "steps", "vocab-slider", "upload", "paste"])
    from playwright.sync_api import sync_playwright

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    load_before = os.getloadavg()
    port = args.port or free_port()
    proc = start_app(port)
    url = f"http://127.0.0.1:{port}"
    text = corpus()
    results: dict[str, list[float]] = {}
    try:
        with sync_playwright() as p:
            launch = [a for a in ARGS if a != NO_OMNIBOX_WEBUI] if args.omnibox else ARGS
            browser = p.chromium.launch(executable_path=CHROMIUM, args=launch)
            if args.floor:
                results |= floor_loads(browser, args.repeats, port + 1 if args.port else free_port())
            other = label = other_url = None
            if args.against and only & {"first-load", "vocab-slider", "paste"}:
                other_port = port + 2 if args.port else free_port()
                other = start_app(other_port, cwd=args.against.resolve(), log=LOG.with_name("bench_browser_against.log"))
                other_url = f"http://127.0.0.1:{other_port}"
                label = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=args.against,
                                       capture_output=True, text=True).stdout.strip() or str(args.against)
            try:
                if "first-load" in only and other is not None:
                    results |= compared_loads(browser, args.repeats, args.pages or DEFAULT_PAGES, (url, proc.pid),
                                              (other_url, other.pid), label)
                elif "first-load" in only:
                    results |= first_loads(browser, url, args.repeats, args.pages or DEFAULT_PAGES, proc.pid)
                if "vocab-slider" in only and other is not None:
                    results |= compared_vocab_slider(browser, args.repeats * 2, url, other_url, label)
                if "paste" in only and other is not None:
                    results |= paste(browser, url, args.repeats, text, proc.pid, other=(other_url, label))
            finally:
                if other is not None:
                    other.terminate()
                    other.wait(timeout=10)
            if "steps" in only:
                results |= steps(browser, url, args.repeats, proc.pid)
            if "vocab-slider" in only and args.against is None:
                results |= vocab_slider(browser, url, args.repeats * 2, proc.pid)
            if "upload" in only:
                results |= upload(browser, url, args.repeats, text)
            if "paste" in only and args.against is None:
                results |= paste(browser, url, args.repeats, text, proc.pid)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    load_after = os.getloadavg()
    print(f"# bench_browser.py · {time.strftime('%Y-%m-%d %H:%M')} · commit {commit} · {os.cpu_count()} cores · "
          f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after · {args.repeats} repeats"
          + (f" · only {', '.join(sorted(only))}" if args.only else "")
          + (" · omnibox WebUI on (--omnibox)" if args.omnibox else ""))
    print()
    print(table(results))


if __name__ == "__main__":
    main()
