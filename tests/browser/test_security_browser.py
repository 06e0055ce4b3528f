"""Hostile input in a real browser (issue 15): every page, every URL parameter and every
text input, with a local HTTP listener standing in for the attacker's server.

The hostile value (tests/hostile.py) carries a markdown image, a markdown link, raw HTML,
a script and Streamlit's markdown directives at once; each of its URLs points at the
listener and names the parameter or input it was put into. After each page has drawn,
the test checks:

- no request reached the listener (an image that loads would be one);
- no element of the page links to it or loads from it (`href`, `src`, `srcset`, `style`
  url(), …), counting a link to a backslash-garbled copy of its address (what escaping
  some punctuation in markdown gives: the link is still drawn, the backslashes are shown);
- no red exception box (`stException`);
- the page still answers: its heading is on screen.

One server and one browser serve the whole file; several parameters share one URL. A
value of 100,000 characters goes into the text boxes (pasted, as a user would), and one
of 30,000 into one URL parameter per page (the server refuses longer request lines; the
AppTest walk, tests/test_security_pages.py, puts 100,000 into every parameter in turn).
Screenshots: test-artifacts/security-*.png (look at them).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Page, expect
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from hostile import hostile, long_hostile

HEADINGS = {
    "": "Byte-pair encoding, step by step",  # the home page, at "/"
    "train-bpe": "Train a BPE tokenizer",
    "tokenize-text": "Tokenize text",
    "vocabulary-size": "Vocabulary size: what it buys, what it costs",
    "algorithms": "Three ways to learn a vocabulary",
    "tokenizer-quirks": "Tokenizer quirks",
}
SIDEBAR_LINKS = {"": "Home", "train-bpe": "Train", "tokenize-text": "Tokenize", "vocabulary-size": "Vocabulary size"}
TRAIN_SETTINGS = ("units", "eow", "marker", "pre", "tie", "stop", "merges", "vocab", "min")
TOKENIZE_PARAMS = ("tokenizer", "text", "special", "view", "token", "compare", "ids")
LONG = 100_000
#: Links carry less: the server refuses long request lines (HTTP 400; 150,000 characters
#: always, 92,000 at times), and a hostile value grows by about 40% when URL-encoded.
LONG_IN_LINK = 30_000


# ---- the attacker's server ---------------------------------------------------------------
@dataclass
class Listener:
    base: str
    address: str
    requests: list[str] = field(default_factory=list)

    def short(self, tag: str) -> str:
        return hostile(self.base, tag)

    def long(self, tag: str, length: int = LONG) -> str:
        return long_hostile(self.base, tag, length)

    def take(self) -> list[str]:
        got, self.requests[:] = list(self.requests), []
        return got


@pytest.fixture(scope="module")
def listener():
    """An HTTP server on a free local port that answers everything and records it."""
    seen: list[str] = []

    class Record(BaseHTTPRequestHandler):
        def _answer(self):
            seen.append(f"{self.command} {self.path}")
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "2")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(b"ok")

        do_GET = do_POST = do_HEAD = do_OPTIONS = do_PUT = _answer

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Record)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]
    yield Listener(f"http://127.0.0.1:{port}", f"127.0.0.1:{port}", seen)
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


@pytest.fixture(scope="module")
def served(app_url):
    """The app's address (the `app_url` fixture has opened its home page once: a deep link
    as the very first request to a fresh server can find no pages yet)."""
    return app_url


class RunCounter:
    """Counts the script runs the server reports finished to this page (ForwardMsg
    `script_finished` frames on its websocket), so a test can wait for the run an action
    starts. Read from the wire, not the page: a run that starts and ends between two
    paints may change nothing a DOM observer sees."""

    def __init__(self, page: Page):
        self.finished = 0
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload) -> None:
        if isinstance(payload, bytes) and ForwardMsg.FromString(payload).WhichOneof("type") == "script_finished":
            self.finished += 1

    def wait_past(self, page: Page, before: int, timeout: float = 30.0) -> bool:
        """Wait (letting Playwright deliver the frames) until a run after `before` ended."""
        deadline = time.monotonic() + timeout
        while self.finished <= before:
            if time.monotonic() > deadline:
                return False
            page.wait_for_timeout(25)
        return True


COUNTERS: dict[int, RunCounter] = {}


@pytest.fixture
def secure(page: Page, served, listener):
    """A fresh page that may paste; earlier requests to the listener forgotten."""
    COUNTERS[id(page)] = RunCounter(page)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=served)
    expect.set_options(timeout=30_000)
    listener.take()
    yield page
    expect.set_options(timeout=5_000)


# ---- looking at the page -----------------------------------------------------------------
#: Every element that links to or loads from `address`, with where it is on the page.
SCAN = r"""(address) => {
  const attrs = ["href", "src", "srcset", "action", "formaction", "poster", "background", "data",
                 "xlink:href", "ping", "cite", "style"];
  const target = (raw) => {
    const tries = [raw];
    try { tries.push(decodeURIComponent(raw).replace(/\\/g, "")); } catch (e) {}
    tries.push(raw.replace(/%5c/gi, "").replace(/\\/g, ""));
    return tries.some((v) => { try { return new URL(v.trim(), document.baseURI).host === address; } catch (e) { return false; } });
  };
  const urls = (name, value) => {
    if (name === "style") return [...value.matchAll(/url\(\s*['"]?([^'")]*)/gi)].map((m) => m[1]);
    if (name === "srcset") return value.split(",").map((s) => s.trim().split(/\s+/)[0]);
    return [value];
  };
  const where = (el) => {
    const box = el.closest("[data-testid^='st']");
    const id = box ? box.getAttribute("data-testid") : "page";
    return id + (box ? ` ("${box.innerText.slice(0, 70).replace(/\s+/g, " ")}")` : "");
  };
  const found = [];
  for (const el of document.querySelectorAll("*")) {
    for (const name of el.getAttributeNames()) {
      if (!attrs.includes(name)) continue;
      const value = el.getAttribute(name) || "";
      if (urls(name, value).some(target))
        found.push(`<${el.tagName.toLowerCase()} ${name}="${value.slice(0, 90)}"> in ${where(el)}`);
    }
    if (el.tagName === "SCRIPT" && el.textContent.includes(address)) found.push(`<script> naming the listener in ${where(el)}`);
  }
  return found;
}"""

#: Wait (at most 5 s) until every image of the page has loaded or failed.
IMAGES_DONE = """() => Promise.race([
  Promise.all(Array.from(document.images).filter((i) => !i.complete).map(
    (i) => new Promise((r) => { i.addEventListener('load', r); i.addEventListener('error', r); }))),
  new Promise((r) => setTimeout(r, 5000))])"""


def idle(page: Page) -> None:
    """No script run in progress and every widget loaded."""
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning", timeout=60_000)
    expect(page.get_by_test_id("stSkeleton")).to_have_count(0, timeout=30_000)


def examine(page: Page, listener: Listener, path: str, what: str) -> list[str]:
    """Everything wrong with the page as drawn now (see the module docstring)."""
    problems: list[str] = []
    try:
        expect(page.get_by_role("heading", name=HEADINGS[path])).to_be_visible(timeout=60_000)
    except AssertionError:
        problems.append(f"{what}: the page no longer answers (no heading {HEADINGS[path]!r})")
    idle(page)
    boxes = page.get_by_test_id("stException")
    problems += [f"{what}: exception box {t[:200]!r}" for t in boxes.all_inner_texts()]
    page.evaluate(IMAGES_DONE)
    problems += [f"{what}: {found}" for found in page.evaluate(SCAN, listener.address)]
    problems += [f"{what}: the listener got {request[:150]}" for request in dict.fromkeys(listener.take())]
    return problems


def assert_clean(problems: list[str], shown: int = 60) -> None:
    """Fail with every distinct problem (the first `shown` of them)."""
    distinct = list(dict.fromkeys(problems))
    more = f"\n… and {len(distinct) - shown} more" if len(distinct) > shown else ""
    assert not distinct, "the hostile value got through:\n" + "\n".join(distinct[:shown]) + more


def visit(page: Page, app_url: str, path: str, query: dict[str, str]) -> None:
    page.goto(f"{app_url}/{path}" + (f"?{urlencode(query)}" if query else ""))


def go(page: Page, path: str) -> None:
    """Another page of the same session, from the sidebar."""
    idle(page)
    page.get_by_test_id("stSidebar").get_by_role("link", name=SIDEBAR_LINKS[path], exact=True).click()
    expect(page.get_by_role("heading", name=HEADINGS[path])).to_be_visible(timeout=60_000)


def rerun(page: Page, action) -> None:
    """Do `action` and wait until the script run it starts has ended."""
    idle(page)
    counter = COUNTERS[id(page)]
    before = counter.finished
    action()
    assert counter.wait_past(page, before), "the action started no script run within 30 s"
    idle(page)


def paste(page: Page, box, text: str) -> None:
    """Paste over a text box's content through the clipboard and apply it (Ctrl+Enter);
    typing 100,000 characters one by one would take minutes."""
    idle(page)
    page.evaluate("(t) => navigator.clipboard.writeText(t)", text)
    box.click()
    box.press("Control+A")
    box.press("Control+V")
    expect(box).to_have_value(text)
    rerun(page, lambda: box.press("Control+Enter"))


def type_in(page: Page, box, text: str) -> None:
    """Type into a one-line box key by key, as a user does (the box keeps what its own
    limit allows; a `fill` beyond the limit is refused outright), then apply it (Enter)."""
    idle(page)
    box.click()
    box.press("Control+A")
    box.press_sequentially(text)
    rerun(page, lambda: box.press("Enter"))


def pick(page: Page, name: str) -> None:
    """Choose an option of a segmented control (a click during a run can be lost)."""
    option = page.get_by_role("radio", name=name, exact=True)
    idle(page)
    if not option.is_checked():
        rerun(page, option.click)
    expect(option).to_be_checked()


def decode_view(page: Page, listener: Listener, what: str) -> list[str]:
    """On Tokenize: your tokenizer, the Decode view, hostile ids typed in."""
    pick(page, "Yours")
    pick(page, "Decode ids")
    paste(page, page.get_by_role("textbox", name="Token ids"), "1 " + listener.short("typed-ids") + " 2")
    return examine(page, listener, "tokenize-text", f"Tokenize (yours, Decode) after {what}")


def every_page_after(page: Page, listener: Listener, what: str, shots=None) -> list[str]:
    """The session's run is named after hostile input: Train, then Tokenize and Vocabulary
    size, reached from the sidebar (the sidebar's caption is on each; home adds nothing)."""
    problems = examine(page, listener, "train-bpe", f"Train with {what}")
    if shots is not None:
        page.screenshot(path=f"{shots}-train.png")
    go(page, "tokenize-text")
    problems += decode_view(page, listener, what)
    if shots is not None:
        page.screenshot(path=f"{shots}-tokenize-decode.png")
    go(page, "vocabulary-size")
    problems += examine(page, listener, "vocabulary-size", f"Vocabulary size after {what}")
    return problems


# ---- URL parameters ------------------------------------------------------------------------
def test_train_links(secure: Page, app_url, listener):
    """Every setting, step, view and mode hostile with a bad word list; an unknown preset;
    a hostile text."""
    short = listener.short
    links = {
        "every parameter": {**{k: short(k) for k in TRAIN_SETTINGS + ("step", "view", "mode")},
                            "words": "low 5\n" + short("words")},
        "preset": {"preset": short("preset")},
        "text": {"text": short("text"), "pre": "none"},
    }
    problems: list[str] = []
    for name, query in links.items():
        visit(secure, app_url, "train-bpe", query)
        problems += examine(secure, listener, "train-bpe", f"/train-bpe with a hostile {name}")
    assert_clean(problems)


def test_marker_on_every_page(secure: Page, app_url, listener, artifacts):
    """A hostile end-of-word marker names the run on every page of the session."""
    visit(secure, app_url, "train-bpe", {"words": "low 5\nlower 2\nnewest 6\n", "eow": "separate",
                                         "marker": listener.short("marker"), "step": "2"})
    assert_clean(every_page_after(secure, listener, "a hostile marker in the link", artifacts / "security-marker"))


def test_tokenize_links(secure: Page, app_url, listener):
    """Every parameter hostile, on each view that shows one of them (and a hostile view)."""
    problems: list[str] = []
    for view in ("decode", "replay", "compare", "hostile"):
        query = {k: listener.short(k) for k in TOKENIZE_PARAMS}
        if view != "hostile":
            query["view"] = view
        visit(secure, app_url, "tokenize-text", query)
        problems += examine(secure, listener, "tokenize-text", f"/tokenize-text with every parameter hostile, view={view}")
    assert_clean(problems)


def test_pages_that_read_no_parameters(secure: Page, app_url, listener):
    """Home, Algorithms and Quirks with hostile parameters (Vocabulary size, which reads
    none either, is visited by the walks above with a hostile run name)."""
    query = {k: listener.short(k) for k in ("preset", "words", "text", "tokenizer", "ids", "view", "quirk", "x")}
    problems: list[str] = []
    for path in ("", "algorithms", "tokenizer-quirks"):
        visit(secure, app_url, path, query)
        problems += examine(secure, listener, path, f"/{path} with hostile parameters")
    assert_clean(problems)


def test_long_link_values(secure: Page, app_url, listener):
    """30,000 characters in one parameter per page: the Train page's marker (it names the
    run), the Tokenize page's tokenizer, with hostile ids."""
    problems: list[str] = []
    visit(secure, app_url, "train-bpe", {"words": "low 5\nlower 2\n", "eow": "separate",
                                         "marker": listener.long("long-marker", LONG_IN_LINK)})
    problems += examine(secure, listener, "train-bpe", "/train-bpe with a long marker")
    visit(secure, app_url, "tokenize-text", {"tokenizer": listener.long("long-tokenizer", LONG_IN_LINK),
                                             "view": "decode", "ids": listener.short("ids")})
    problems += examine(secure, listener, "tokenize-text", "/tokenize-text with a long tokenizer")
    assert_clean(problems)


# ---- text inputs ---------------------------------------------------------------------------
def choose_source(page: Page, label: str) -> None:
    radio = page.locator(".st-key-train_w_source")
    idle(page)
    if not radio.is_visible():  # the settings fold away while a run is on screen
        page.get_by_text("Corpus and settings").first.click()
    expect(radio).to_be_visible()
    idle(page)  # the expander has opened and its run (if any) has ended
    option = radio.get_by_text(label, exact=True)
    counter = COUNTERS[id(page)]
    for attempt in range(3):  # a click that lands while the expander still moves is lost: click again
        before = counter.finished
        option.click()
        if counter.wait_past(page, before, timeout=15.0):
            break
        if radio.get_by_role("radio", name=label, exact=True).is_checked():
            break  # it took: the run was not seen, but the radio shows the choice
        assert attempt < 2, f"clicking {label!r} started no script run"
    idle(page)


def test_train_inputs(secure: Page, app_url, listener):
    """The corpus text (100,000 characters), a word list with a hostile line, the marker
    (the browser keeps its first 12 characters)."""
    page = secure
    visit(page, app_url, "train-bpe", {})
    choose_source(page, "Paste text")
    paste(page, page.locator(".st-key-train_w_text textarea"), listener.long("typed-text"))
    problems = examine(page, listener, "train-bpe", "Train, a long hostile text typed in")
    choose_source(page, "Type a word list")
    paste(page, page.locator(".st-key-train_w_words textarea"), "low 5\n" + listener.short("typed-words"))
    problems += examine(page, listener, "train-bpe", "Train, a hostile word list typed in")
    paste(page, page.locator(".st-key-train_w_words textarea"), "low 5\nlower 2\n")
    type_in(page, page.locator(".st-key-train_w_marker input"), listener.short("typed-marker"))
    problems += examine(page, listener, "train-bpe", "Train, a hostile marker typed in")
    assert_clean(problems)


def test_upload_with_hostile_file_name(secure: Page, app_url, listener, artifacts):
    """The file name is the browser's to send; the page shows it in its caption and the
    run's name."""
    page = secure
    visit(page, app_url, "train-bpe", {})
    choose_source(page, "Upload a .txt file")
    name = listener.short("filename") + ".txt"
    # Wait for what the upload shows, not for a counted run: under a loaded machine (two
    # test workers) the run counter can miss the upload's run while the page still shows it.
    page.locator(".st-key-train_w_upload input[type=file]").set_input_files(
        files=[{"name": name, "mimeType": "text/plain", "buffer": b"low lower newest widest lowest\n"}])
    idle(page)
    expect(page.get_by_text("Using", exact=False).first).to_be_attached(timeout=60_000)
    idle(page)
    if not page.locator(".st-key-train_w_upload").is_visible():  # the settings fold once the upload trained
        page.get_by_text("Corpus and settings").first.click()
    expect(page.get_by_text("Using", exact=False).first).to_be_visible(timeout=30_000)
    idle(page)
    assert_clean(every_page_after(page, listener, "an upload with a hostile file name", artifacts / "security-upload"))


def test_tokenize_inputs(secure: Page, app_url, listener, artifacts):
    """The text (100,000 characters), the Decode ids, the word to replay."""
    page = secure
    visit(page, app_url, "tokenize-text", {})
    paste(page, page.get_by_role("textbox", name="Text"), listener.long("typed-text"))
    problems = examine(page, listener, "tokenize-text", "Tokenize, a long hostile text typed in")
    paste(page, page.get_by_role("textbox", name="Text"), listener.short("typed-text"))  # quicker reruns
    pick(page, "Decode ids")
    paste(page, page.get_by_role("textbox", name="Token ids"), "1 " + listener.short("typed-ids"))
    problems += examine(page, listener, "tokenize-text", "Tokenize, hostile ids typed in")
    page.screenshot(path=str(artifacts / "security-tokenize-ids.png"))
    pick(page, "Replay merges")
    pick(page, "A word you type")
    type_in(page, page.get_by_role("textbox", name="Word or piece to build"), listener.short("typed-word"))
    problems += examine(page, listener, "tokenize-text", "Tokenize, a hostile word to replay typed in")
    assert_clean(problems)
