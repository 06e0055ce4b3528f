"""Real-browser tests: a Streamlit server on a free port, Debian's Chromium via Playwright.

Without Chromium (or the playwright package) these tests skip, so a developer can run the
rest; with BPE_REQUIRE_BROWSER=1 (set by .ci/run) a missing browser is a failure.
Screenshots go to test-artifacts/ (look at them).
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
REQUIRED = os.environ.get("BPE_REQUIRE_BROWSER") == "1"


def _missing_browser(reason: str):
    if REQUIRED:
        pytest.fail(f"{reason} (BPE_REQUIRE_BROWSER=1: browser tests must run here)")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def app_url(browser):
    """Start `streamlit run app.py` on a free port, open its home page once; stop it after
    the session.

    Streamlit knows the app's page list only once app.py has run in a session: a deep link
    (/tokenize-text?...) as the very first visit to a fresh server can show "Page not
    found". The home page opened here, once per server, lets every test open deep links
    directly (before, each test opened the home page first, or hoped another test had)."""
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "streamlit", "run", "app.py",
            "--server.address=127.0.0.1", f"--server.port={port}", "--server.headless=true",
            "--browser.gatherUsageStats=false", "--server.fileWatcherType=none",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.read() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
                pytest.fail(f"streamlit did not start:\n{out[-2000:]}")
            time.sleep(0.2)
        _open_home_once(browser, url)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _open_home_once(browser, url: str) -> None:
    from playwright.sync_api import expect

    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(url)
        expect(page.get_by_role("heading", name="Byte-pair encoding, step by step")).to_be_visible(timeout=60_000)
    finally:
        context.close()


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing_browser("the playwright package is not installed")
    if not Path(CHROMIUM).exists():
        _missing_browser(f"Chromium not found at {CHROMIUM}")
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-quic",
                # Each new context is a new window, and Chromium 156 loads every window's omnibox
                # drop-down (two WebUI pages, ~1 s of CPU in a renderer of their own) alongside the
                # page under test; these tests never use the address bar (bench_browser.py ARGS).
                "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup",
            ],
        )
        yield b
        b.close()


@pytest.fixture(scope="module")
def _file_context(browser):
    """One browser context for a test file's `page`s. Each test still gets a page of its
    own (a new Streamlit session: its own websocket), but the pages of a file share the
    HTTP cache, so each does not fetch and compile the app's scripts afresh: about 0.6 s of
    CPU per test on this 2-core machine, where the suite is CPU-bound. A test that needs
    another viewport kind (phone, touch) or clean permissions makes its own context."""
    context = browser.new_context(viewport={"width": 1400, "height": 1800})
    yield context
    context.close()


@pytest.fixture
def page(_file_context):
    pg = _file_context.new_page()
    pg.set_default_timeout(20_000)
    yield pg
    pg.close()


#: the longest single wait of an `expect` in the driver, in ms (see `_poll_often`)
EXPECT_CHUNK_MS = 2_000


def _poll_often() -> None:
    """Make every `expect` look again every 100 ms, however long its timeout.

    Playwright's driver checks an `expect` condition at 0, 20, 70, 170, 270 ms and then
    every 500 ms, unless the timeout is under 2.5 s (then every 100 ms, its largest step
    being at most a fifth of the timeout). Most waits here are for a Streamlit rerun, which
    takes 0.3-1 s: each such wait returned on average about 0.25 s after its condition came
    true, hundreds of times per run of the suite. Here a long `expect` is made of waits of
    at most EXPECT_CHUNK_MS each, one after another until its own timeout: the same
    condition and the same total timeout, seen true sooner. (This wraps a private method of
    playwright's Python client, pinned in requirements-lock.txt; if it is missing, the
    waits keep the driver's pace and nothing else changes.)"""
    try:
        from playwright._impl import assertions
    except ImportError:
        return
    for cls in (assertions.LocatorAssertions, assertions.PageAssertions):
        call = cls.__dict__.get("_call_expect")
        if call is None or getattr(call, "_chunked", False):
            continue

        def chunked(self, expression, options, title, _call=call):
            return _chunked_call(_call, self, expression, options, title)

        chunked._chunked = True  # type: ignore[attr-defined]
        cls._call_expect = chunked


async def _chunked_call(call, self, expression, options, title):
    total = options.get("timeout") or 5_000
    deadline = time.monotonic() + total / 1000
    while True:
        left = (deadline - time.monotonic()) * 1000
        result = await call(self, expression, {**options, "timeout": max(1.0, min(EXPECT_CHUNK_MS, left))}, title)
        if result["matches"] != self._is_not or left <= EXPECT_CHUNK_MS:
            return result


_poll_often()


@pytest.fixture(autouse=True)
def patient_expect():
    """Every `expect` waits up to 30 s (Playwright's default is 5 s), then the default is
    restored. A click or a page load reruns a Streamlit script; with two test workers, their
    browsers and servers on two cores (CI's machine), a rerun of a heavy page took more
    than 5 s. Waiting longer for the same condition proves the same; a module may override
    this fixture (same name) with its own timeout."""
    try:
        from playwright.sync_api import expect
    except ImportError:  # the `browser` fixture skips (or fails) with the reason
        yield
        return
    expect.set_options(timeout=30_000)
    yield
    expect.set_options(timeout=5_000)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="module")
def sized_contexts(browser):
    """`sized_contexts(kind, **options)`: one browser context per kind for a test file
    (made at first use, closed after the file), for tests that each open a page of their
    own at the same viewport (say a desktop and a touch phone): as with `_file_context`,
    the pages of a kind share the HTTP cache instead of fetching and compiling the app's
    scripts afresh."""
    made: dict = {}

    def get(kind: str, **options):
        if kind not in made:
            made[kind] = browser.new_context(**options)
        return made[kind]

    yield get
    for context in made.values():
        context.close()
