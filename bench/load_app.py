"""Load a running app the way browsers do: N sessions over Streamlit's websocket protocol.

Each session opens ``/_stcore/stream`` (subprotocol ``streamlit``), asks for the page in
``--url`` with a ``rerun_script`` BackMsg (page name and query string, as the browser
sends them), reads the ForwardMsgs until ``script_finished``, and finds the Train page's
Step button in the deltas (its widget id and the fragment it sits in). Then, until
``--duration`` is up, it waits a think time (``--think`` seconds, drawn from 0.5x-1.5x so
sessions drift apart) and clicks Step: a ``rerun_script`` with the fragment id and a
widget state whose ``trigger_value`` is true for the button's id, as the browser does.
A rerun's **latency** runs from sending that message to receiving its
``script_finished``. With ``--action open`` each session instead opens the URL afresh
over a new connection every think time (the cost of arriving by a shared link).

Counted as **errors**: a failed or dropped connection, a rerun with no ``script_finished``
within ``--timeout``, a script that did not finish successfully, a page without a Step
button, and a click after which the step slider ("Step k of n") did not move on by one.
**Exceptions** are exception elements in the deltas (what a browser shows as a red box).
When the step reaches the end, the session clicks Reset (not timed) and goes on.

With ``--action follow`` the sessions are a class: one extra session, the instructor,
opens ``--url`` (the Train page), opens "Class mode" and clicks "Start a class", reads the join link from the
page and clicks Step every think time; each of ``--sessions`` students opens that link
(the join page, which switches to the Train page), then does what a browser does: it reads
every message the server sends (runs the server starts by itself, when the class's change
wakes the session, ``pushed``) and sends an auto-rerun of the class banner's timer
fragment whenever that timer (``auto_rerun``: interval and fragment id) is due, one at a
time; a tick's **latency** runs to the next run's ``script_finished``. The **lag** runs
from the instructor's step (its click's ``script_finished``) to the end of the first run
that shows it on a student's page; ``app_reruns`` counts runs that ended early to rerun
another (a new step reruns the Train page's step fragment alone), ``full_reruns`` those
whose rerun ran the whole page. At the end every student must show the instructor's last
step (within ``--timeout``), or it is an error; ``--server-pid`` adds the server's CPU per
student per instructor's step.

The browser also sends every other widget's current value with each click; this script
sends only the button's trigger (the Train page keeps its state under its own keys, so
the rerun does the same work). It never leaves loopback: the URL's host must be
127.0.0.1, ::1 or localhost. Loops are bounded by time and by count.

    python -m streamlit run app.py --server.port 8765 --server.headless true &
    python bench/load_app.py --url "http://127.0.0.1:8765/train-bpe?preset=english" \\
        --sessions 30 --think 2 --duration 120
    python bench/load_app.py --url "http://127.0.0.1:8765/train-bpe?preset=english" \\
        --action follow --sessions 30 --think 2.5 --duration 120

Prints a Markdown table (``--json`` prints one JSON object instead); exits 1 when any
error or exception was seen.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import resource
import sys
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

LOOPBACK = {"127.0.0.1", "::1", "localhost"}
STEP_LABEL = re.compile(r"Step (\d+) of (\d+)")
FINISHED_OK = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}
JOIN_LINK = re.compile(r"/join\?class=([A-Za-z0-9_-]+)$")


@dataclass
class Page:
    """What one run of the script drew that the load script cares about."""

    buttons: dict[str, tuple[str, str, bool]] = field(default_factory=dict)  # label -> (id, fragment, disabled)
    expanders: dict[str, str] = field(default_factory=dict)  # label -> widget id (keyed expanders only)
    step: int | None = None
    steps: int | None = None
    exceptions: list[str] = field(default_factory=list)
    status: int | None = None
    messages: int = 0
    bytes: int = 0
    join_token: str | None = None          # the class's join link, if the page shows one
    auto_rerun: tuple[float, str] | None = None  # (interval, fragment id) of a timer
    reran_app: bool = False                # the run ended early for a rerun (st.rerun, st.switch_page)
    full_rerun: bool = False               # ...and the run that followed was the whole page
    page_hash: str = ""                    # the page the session is on (after st.switch_page)
    radios: dict[str, tuple[str, list[str]]] = field(default_factory=dict)  # label -> (id, options)
    uploader: str | None = None            # the file uploader's widget id, if drawn
    session_id: str = ""
    file_urls: list = field(default_factory=list)  # a file_urls_response's FileURLs


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    rerun_bytes: list[int] = field(default_factory=list)
    resets: int = 0
    lags: list[float] = field(default_factory=list)          # follow: instructor's step -> a student sees it
    app_reruns: int = 0                                       # follow: ticks that ran another run (a new step)
    full_reruns: int = 0                                      # ...of which the whole page
    pushed: int = 0                                           # follow: runs the server started (a wake)
    arrived: int = 0                                          # follow: students showing the last step at the end
    instructor: list[float] = field(default_factory=list)    # follow: the instructor's Step latencies
    uploads: list[float] = field(default_factory=list)       # --uploaders: upload -> trained and drawn


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile, q in [0, 100]; NaN for no values.

    >>> percentile([0.1, 0.2, 0.3, 0.4], 50), percentile([0.1, 0.2, 0.3, 0.4], 95)
    (0.2, 0.4)
    """
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil without floats drifting
    return ordered[int(rank) - 1]


def stream_url(url: str) -> tuple[str, str, str]:
    """(websocket URL, page name, query string) for an app URL on loopback.

    >>> stream_url("http://127.0.0.1:8765/train-bpe?preset=english")
    ('ws://127.0.0.1:8765/_stcore/stream', 'train-bpe', 'preset=english')
    """
    parts = urlsplit(url)
    if parts.scheme != "http" or parts.hostname not in LOOPBACK:
        raise SystemExit(f"--url must be http:// on loopback (127.0.0.1, ::1, localhost), got {url!r}")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"ws://{host}:{parts.port or 80}/_stcore/stream", parts.path.strip("/"), parts.query


def rerun_message(page_name: str, query: str, *, fragment: str = "", trigger: str = "",
                  auto: bool = False, page_hash: str = "") -> bytes:
    msg = BackMsg()
    state = msg.rerun_script
    state.page_name, state.query_string = page_name, query
    if page_hash:  # as the browser does once it knows the page (e.g. after st.switch_page)
        state.page_name, state.page_script_hash = "", page_hash
    if fragment:
        state.fragment_id = fragment
    if auto:
        state.is_auto_rerun = True
    if trigger:
        widget = state.widget_states.widgets.add()
        widget.id, widget.trigger_value = trigger, True
    return msg.SerializeToString()


def read_element(fm: ForwardMsg, page: Page) -> None:
    delta = fm.delta
    if delta.WhichOneof("type") == "add_block" and delta.add_block.WhichOneof("type") == "expandable":
        box = delta.add_block.expandable
        if box.id:  # a keyed expander that reruns when opened: its contents come only then
            page.expanders[box.label] = box.id
        return
    if delta.WhichOneof("type") != "new_element":
        return
    element = delta.new_element
    kind = element.WhichOneof("type")
    if kind == "button":
        b = element.button
        page.buttons[b.label] = (b.id, delta.fragment_id, b.disabled)
    elif kind == "radio":
        r = element.radio
        page.radios[r.label] = (r.id, list(r.options))
    elif kind == "file_uploader":
        page.uploader = element.file_uploader.id
    elif kind == "slider":
        m = STEP_LABEL.fullmatch(element.slider.label)
        if m:
            page.step, page.steps = int(m.group(1)), int(m.group(2))
    elif kind == "code":
        m = JOIN_LINK.search(element.code.code_text.strip())
        if m:
            page.join_token = m.group(1)
    elif kind == "exception":
        page.exceptions.append(f"{element.exception.type}: {element.exception.message}"[:300])


async def run_once(ws, message: bytes, timeout: float) -> Page:
    """Send one rerun request and read until its script_finished."""
    page = Page()
    await ws.send(message)
    async with asyncio.timeout(timeout):
        while True:
            data = await ws.recv()
            page.messages += 1
            page.bytes += len(data)
            fm = ForwardMsg()
            fm.ParseFromString(data)
            kind = fm.WhichOneof("type")
            if kind == "delta":
                read_element(fm, page)
            elif kind == "new_session":
                page.page_hash = fm.new_session.page_script_hash
                page.session_id = page.session_id or fm.new_session.initialize.session_id
            elif kind == "navigation" and fm.navigation.page_script_hash:
                page.page_hash = fm.navigation.page_script_hash  # the page drawn (new_session may name app.py)
            elif kind == "auto_rerun":
                page.auto_rerun = (fm.auto_rerun.interval, fm.auto_rerun.fragment_id)
            elif kind == "script_finished":
                if fm.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    page.reran_app = True  # st.rerun or st.switch_page: its rerun follows
                    continue
                if page.reran_app and not fm.metadata.run.fragment_ids:
                    page.full_rerun = True  # the rerun that followed ran the whole page
                page.status = fm.script_finished
                return page


def connect(ws_url: str, cookie: str | None = None):
    headers = {"Cookie": cookie} if cookie else None
    return websockets.connect(ws_url, subprotocols=["streamlit"], max_size=None,
                              open_timeout=30, ping_interval=None, additional_headers=headers)


def session_cookie(args, n: int) -> str | None:
    """A sticky-session cookie of this session's own, when --cookie names one."""
    return f"{args.cookie}=load-{args.seed}-{n}" if args.cookie else None


def check(page: Page, tally: Tally, what: str) -> bool:
    tally.exceptions += page.exceptions
    if page.status not in FINISHED_OK:
        tally.errors.append(f"{what}: script finished with status {page.status}")
        return False
    return True


def finished(args, deadline: float, done: int, waiting_for: "ClassClock | None" = None) -> bool:
    """Whether a session stops: past the deadline and at least --min-clicks timed actions
    done (a following student also waits for the instructor to finish), or past the
    deadline by --timeout whatever it has done (so a slow machine ends the run too)."""
    now = time.monotonic()
    if now < deadline:
        return False
    if now >= deadline + args.timeout:
        return True
    return done >= args.min_clicks and (waiting_for is None or waiting_for.done)


def rounds(args, per: float) -> range:
    """How many turns a session's loop may take: the duration's worth, plus --min-clicks."""
    return range(int(args.duration / per) + 2 + args.min_clicks)


async def stepping_session(n: int, args, tally: Tally, deadline: float) -> None:
    ws_url, page_name, query = stream_url(args.url)
    rng = random.Random(args.seed * 1000 + n)
    await asyncio.sleep(rng.uniform(0, args.think))  # arrive spread over one think time
    async with connect(ws_url, session_cookie(args, n)) as ws:
        started = time.perf_counter()
        page = await run_once(ws, rerun_message(page_name, query), args.timeout)
        tally.loads.append(time.perf_counter() - started)
        if not check(page, tally, "first load"):
            return
        clicks = 0
        for _ in rounds(args, args.think * 0.5):  # bounded by count too
            await asyncio.sleep(args.think * rng.uniform(0.5, 1.5))
            if finished(args, deadline, clicks):
                return
            if "Step" not in page.buttons:
                tally.errors.append("no Step button on the page")
                return
            button, fragment, disabled = page.buttons["Step"]
            if disabled:  # the end of the run: start again, untimed
                reset, fragment, _ = page.buttons["Reset"]
                page = await run_once(ws, rerun_message(page_name, query, fragment=fragment, trigger=reset), args.timeout)
                tally.resets += 1
                check(page, tally, "reset")
                continue
            before = page.step
            sent = time.perf_counter()
            new = await run_once(ws, rerun_message(page_name, query, fragment=fragment, trigger=button), args.timeout)
            tally.latencies.append(time.perf_counter() - sent)
            tally.rerun_bytes.append(new.bytes)
            clicks += 1
            if check(new, tally, "step") and before is not None and new.step != before + 1:
                tally.errors.append(f"the step went from {before} to {new.step}, not up by one")
            page = Page(buttons={**page.buttons, **new.buttons}, step=new.step, steps=new.steps)


async def opening_session(n: int, args, tally: Tally, deadline: float) -> None:
    ws_url, page_name, query = stream_url(args.url)
    rng = random.Random(args.seed * 1000 + n)
    await asyncio.sleep(rng.uniform(0, args.think))
    for _ in range(int(args.duration / (args.think * 0.5)) + 1):
        if time.monotonic() >= deadline:
            return
        sent = time.perf_counter()
        async with connect(ws_url, session_cookie(args, n)) as ws:
            page = await run_once(ws, rerun_message(page_name, query), args.timeout)
        tally.latencies.append(time.perf_counter() - sent)
        tally.rerun_bytes.append(page.bytes)
        check(page, tally, "open")
        await asyncio.sleep(args.think * rng.uniform(0.5, 1.5))


def upload_text(n: int, size: int) -> bytes:
    """A different text of about `size` UTF-8 bytes for upload n (words of Python's language
    reference drawn with the seed n, so no cache has it)."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from ui.shared.corpora import python_reference_text  # noqa: PLC0415 (only for uploads)
    words = python_reference_text().split()
    rng = random.Random(n)
    out, total = [], 0
    while total < size - 20:
        w = rng.choice(words)
        out.append(w)
        total += len(w.encode()) + 1
    return " ".join(out).encode()[: size - 1]


def put_file(url: str, name: str, data: bytes) -> int:
    """PUT one file as the browser's uploader does (multipart form); the HTTP status."""
    import urllib.request  # noqa: PLC0415
    boundary = f"----load{random.getrandbits(64):x}"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"UploadedFile\"; filename=\"{name}\"\r\n"
            "Content-Type: text/plain\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    req = urllib.request.Request(url, data=body, method="PUT",
                                 headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return r.status


async def open_box(ws, page: Page, label: str, page_name: str, query: str, args, tally: Tally,
                   who: str) -> Page | None:
    """Open the folded keyed expander whose label holds `label`, as a click on it does (a
    rerun with its state True, which draws its contents); the page that run drew, or None
    (with an error counted) if the run failed. No such box: the page as it was."""
    box = next((i for name, i in page.expanders.items() if label in name), None)
    if box is None:
        return page
    msg = BackMsg()
    msg.rerun_script.page_name, msg.rerun_script.query_string = page_name, query
    w = msg.rerun_script.widget_states.widgets.add()
    w.id, w.bool_value = box, True
    opened = await run_once(ws, msg.SerializeToString(), args.timeout)
    return opened if check(opened, tally, f"{who}: open {label}") else None


async def uploading_session(n: int, args, tally: Tally, deadline: float) -> None:
    """Choose "Upload" as the corpus, then upload a new text of --upload-bytes every think
    time; each upload's latency runs from sending the widget state (the file is already on
    the server) to the run's script_finished, training included. Needs the app started
    with --server.enableXsrfProtection=false (the script sends no XSRF token)."""
    ws_url, page_name, query = stream_url(args.upload_url or args.url)
    parts = urlsplit(args.upload_url or args.url)
    rng = random.Random(args.seed * 1000 + 500 + n)
    await asyncio.sleep(rng.uniform(0, args.think))
    async with connect(ws_url, session_cookie(args, 20_000 + n)) as ws:
        page = await run_once(ws, rerun_message(page_name, query), args.timeout)
        if check(page, tally, "uploader: first load") and "Corpus" not in page.radios:
            page = await open_box(ws, page, "Corpus and settings", page_name, query, args, tally, "uploader")
        if page is None or "Corpus" not in page.radios:
            tally.errors.append("uploader: no Corpus choice on the page")
            return
        radio, options = page.radios["Corpus"]
        msg = BackMsg()
        msg.rerun_script.page_name, msg.rerun_script.query_string = page_name, query
        w = msg.rerun_script.widget_states.widgets.add()
        w.id, w.int_value = radio, next(i for i, o in enumerate(options) if "pload" in o)
        chosen = await run_once(ws, msg.SerializeToString(), args.timeout)
        if not check(chosen, tally, "uploader: choose upload") or not chosen.uploader:
            tally.errors.append("uploader: no file uploader after choosing Upload")
            return
        for i in range(int(args.duration / (args.think * 0.5)) + 1):
            if time.monotonic() >= deadline:
                return
            name = f"upload-{n}-{i}.txt"
            data = upload_text(args.seed * 100_000 + n * 1000 + i, args.upload_bytes)
            req = BackMsg()
            req.file_urls_request.request_id = f"{n}-{i}"
            req.file_urls_request.file_names.append(name)
            req.file_urls_request.session_id = page.session_id
            await ws.send(req.SerializeToString())
            urls = None
            async with asyncio.timeout(args.timeout):
                while urls is None:
                    fm = ForwardMsg()
                    fm.ParseFromString(await ws.recv())
                    if fm.WhichOneof("type") == "file_urls_response":
                        urls = fm.file_urls_response.file_urls[0]
            upload_url = urls.upload_url if urls.upload_url.startswith("http") else \
                f"http://{parts.hostname}:{parts.port or 80}{urls.upload_url}"
            status = await asyncio.to_thread(put_file, upload_url, name, data)
            if status not in (200, 204):
                tally.errors.append(f"uploader: PUT answered {status}")
                return
            msg = BackMsg()
            msg.rerun_script.page_name, msg.rerun_script.query_string = page_name, query
            w = msg.rerun_script.widget_states.widgets.add()
            w.id = chosen.uploader
            info = w.file_uploader_state_value.uploaded_file_info.add()
            info.name, info.size, info.file_id = name, len(data), urls.file_id
            info.file_urls.CopyFrom(urls)
            sent = time.perf_counter()
            done = await run_once(ws, msg.SerializeToString(), args.timeout)
            tally.uploads.append(time.perf_counter() - sent)
            check(done, tally, "upload")
            await asyncio.sleep(args.think * rng.uniform(0.5, 1.5))


class ClassClock:
    """When the instructor's page finished showing each step (shared by the sessions)."""

    def __init__(self) -> None:
        self.shown: dict[int, float] = {}
        self.join_token: str | None = None
        self.ready = asyncio.Event()
        self.done = False  # the instructor has stopped stepping
        self.last_step: int | None = None  # the step the instructor's page shows now
        self.joined = 0  # students whose join finished
        self.steps = 0   # the instructor's steps so far
        self.steady: tuple[float, int] | None = None  # (server CPU, steps) once every student joined


async def instructor_session(args, tally: Tally, deadline: float, clock: ClassClock) -> None:
    try:
        await _instructor_steps(args, tally, deadline, clock)
    finally:
        clock.done = True


async def _instructor_steps(args, tally: Tally, deadline: float, clock: ClassClock) -> None:
    ws_url, page_name, query = stream_url(args.url)
    rng = random.Random(args.seed * 1000 - 1)
    async with connect(ws_url, session_cookie(args, 10_000)) as ws:
        page = await run_once(ws, rerun_message(page_name, query), args.timeout)
        if not check(page, tally, "instructor: first load"):
            return
        if "Start a class" not in page.buttons:  # the "Class mode" box is folded: open it, as a click does
            page = await open_box(ws, page, "Class mode", page_name, query, args, tally, "instructor")
            if page is None:
                return
        if "Start a class" not in page.buttons:
            tally.errors.append("instructor: no 'Start a class' button on the page")
            return
        start, fragment, _ = page.buttons["Start a class"]
        started = await run_once(ws, rerun_message(page_name, query, fragment=fragment, trigger=start), args.timeout)
        if not check(started, tally, "instructor: start a class") or not started.join_token:
            tally.errors.append("instructor: no join link after starting a class")
            return
        # Later clicks name the page, as a browser does: a full rerun a click asks for
        # (st.rerun from the step fragment) then reruns this page, not the app's default one.
        page_hash = page.page_hash
        page = Page(buttons={**page.buttons, **started.buttons}, step=started.step, steps=started.steps)
        clock.join_token = started.join_token
        clock.shown[page.step or 0] = time.perf_counter()
        clock.last_step = page.step or 0
        clock.ready.set()
        steps = 0
        for _ in rounds(args, args.think * 0.5):
            await asyncio.sleep(args.think * rng.uniform(0.8, 1.2) if steps < args.min_clicks
                                else min(args.think * rng.uniform(0.8, 1.2), max(0.0, deadline - time.monotonic())))
            if finished(args, deadline, steps):
                return
            button, fragment, disabled = page.buttons["Step"]
            if disabled:
                button, fragment, _ = page.buttons["Reset"]
            sent = time.perf_counter()
            new = await run_once(ws, rerun_message(page_name, query, fragment=fragment, trigger=button,
                                                   page_hash=page_hash), args.timeout)
            tally.instructor.append(time.perf_counter() - sent)
            steps += 1
            if check(new, tally, "instructor: step") and new.step is not None:
                clock.shown[new.step] = time.perf_counter()
                clock.last_step = new.step
                clock.steps += 1
            page = Page(buttons={**page.buttons, **new.buttons}, step=new.step, steps=new.steps)


async def following_session(n: int, args, tally: Tally, deadline: float, clock: ClassClock) -> None:
    ws_url, _, _ = stream_url(args.url)
    rng = random.Random(args.seed * 1000 + n)
    async with asyncio.timeout(args.timeout):
        await clock.ready.wait()
    await asyncio.sleep(rng.uniform(0, 2.0))  # students arrive over a couple of seconds
    async with connect(ws_url, session_cookie(args, n)) as ws:
        started = time.perf_counter()
        page = await run_once(ws, rerun_message("join", f"class={clock.join_token}"), args.timeout)
        tally.loads.append(time.perf_counter() - started)
        if not check(page, tally, "join") or page.auto_rerun is None:
            tally.errors.append(f"student {n}: no class banner timer after joining")
            return
        clock.joined += 1
        if clock.joined == args.sessions and args.server_pid:  # from here on: steps only, no first loads
            clock.steady = (sum(process_cpu(pid) for pid in args.server_pid), clock.steps)
        await _follow(n, ws, page, args, tally, deadline, clock)


async def _follow(n: int, ws, page: Page, args, tally: Tally, deadline: float, clock: ClassClock) -> None:
    """A student's page after joining: read every message the server sends (a run the
    server starts by itself, when the class's change wakes the session, or one a timer
    tick asked for) and send a tick whenever the class banner's timer is due, as the
    browser does. Ends once the instructor is done and this page shows the last step
    (or --timeout after that: an error)."""
    timer = {"interval": page.auto_rerun[0], "fragment": page.auto_rerun[1]}
    page_hash, seen = page.page_hash, page.step
    sent_at: list[float] = []  # ticks waiting for their run's end

    async def ticker() -> None:
        for _ in rounds(args, 0.2):
            await asyncio.sleep(timer["interval"])
            for _ in range(int(min(args.timeout, 2 * timer["interval"] + 2) / 0.05)):
                if not sent_at:  # one tick at a time, as the old poll loop did...
                    break
                await asyncio.sleep(0.05)
            sent_at.clear()  # ...but a tick the server dropped (its fragment was gone) stops no timer
            sent_at.append(time.perf_counter())
            await ws.send(rerun_message("", "", fragment=timer["fragment"], auto=True, page_hash=page_hash))

    ticking = asyncio.create_task(ticker())
    run = Page()
    runs_after, banner = 0, "Explore on my own"  # what the class banner offered last (following or not)
    try:
        for _ in range(10_000_000):  # bounded: ends by time below
            if clock.done and time.monotonic() >= deadline:
                if seen == clock.last_step or time.monotonic() >= deadline + args.timeout:
                    break
            try:
                data = await asyncio.wait_for(ws.recv(), timeout=0.25)
            except TimeoutError:
                continue
            run.messages += 1
            run.bytes += len(data)
            fm = ForwardMsg()
            fm.ParseFromString(data)
            kind = fm.WhichOneof("type")
            if kind == "delta":
                read_element(fm, run)
            elif kind == "auto_rerun":
                timer["interval"], timer["fragment"] = fm.auto_rerun.interval, fm.auto_rerun.fragment_id
            elif kind == "script_finished":
                if fm.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    run.reran_app = True
                    continue
                done = time.perf_counter()
                run.status = fm.script_finished
                run.full_rerun = run.reran_app and not fm.metadata.run.fragment_ids
                tally.rerun_bytes.append(run.bytes)
                tally.app_reruns += run.reran_app
                tally.full_reruns += run.full_rerun
                if sent_at:
                    tally.latencies.append(done - sent_at.pop(0))
                else:
                    tally.pushed += 1
                runs_after += clock.done
                banner = next((b for b in run.buttons if b.startswith(("Rejoin", "Explore on my own"))), banner)
                if check(run, tally, "student run") and run.step is not None and run.step != seen:
                    seen = run.step
                    if seen in clock.shown:
                        tally.lags.append(done - clock.shown[seen])
                run = Page()
    finally:
        ticking.cancel()
    if seen != clock.last_step:
        tally.errors.append(f"student {n}: shows step {seen}, not the instructor's last step {clock.last_step} "
                            f"({runs_after} runs since the instructor stopped; the banner offered {banner!r})")
    else:
        tally.arrived += 1


async def guarded(session, n, args, tally, deadline) -> None:
    try:
        await session(n, args, tally, deadline)
    except TimeoutError:
        tally.errors.append(f"session {n}: no script_finished within {args.timeout} s")
    except (OSError, websockets.exceptions.WebSocketException) as e:
        tally.errors.append(f"session {n}: connection failed: {type(e).__name__}: {e}")


async def load(args) -> Tally:
    tally = Tally()
    args.class_clock = None
    deadline = time.monotonic() + args.duration
    if args.action == "follow":
        clock = ClassClock()
        args.class_clock = clock

        async def student(n, args, tally, deadline):
            await following_session(n, args, tally, deadline, clock)

        async def teacher(n, args, tally, deadline):
            await instructor_session(args, tally, deadline, clock)

        tasks = [guarded(teacher, -1, args, tally, deadline)]
        tasks += [guarded(student, n, args, tally, deadline) for n in range(args.sessions)]
    else:
        session = stepping_session if args.action == "step" else opening_session
        tasks = [guarded(session, n, args, tally, deadline) for n in range(args.sessions)]
    tasks += [guarded(uploading_session, n, args, tally, deadline) for n in range(args.uploaders)]
    try:
        async with asyncio.timeout(args.duration + args.timeout * (2 if args.min_clicks else 1) + args.think * 2 + 30):
            await asyncio.gather(*tasks)
    except TimeoutError:
        tally.errors.append("the run overran its time bound")
    return tally


def summary(args, tally: Tally, wall: float, cpu: float) -> dict:
    lat = tally.latencies
    return {
        "url": args.url, "action": args.action, "sessions": args.sessions, "think_s": args.think,
        "duration_s": args.duration, "reruns": len(lat) + tally.pushed,
        "reruns_per_s": round((len(lat) + tally.pushed) / wall, 2),
        "p50_s": round(percentile(lat, 50), 3), "p95_s": round(percentile(lat, 95), 3),
        "max_s": round(max(lat, default=float("nan")), 3),
        "first_load_p50_s": round(percentile(tally.loads, 50), 3),
        "kb_per_rerun": round(sum(tally.rerun_bytes) / max(1, len(tally.rerun_bytes)) / 1024, 1),
        "errors": len(tally.errors), "exceptions": len(tally.exceptions), "resets": tally.resets,
        "client_cpu_s": round(cpu, 1), "wall_s": round(wall, 1),
        "first_errors": tally.errors[:5], "first_exceptions": tally.exceptions[:5],
    } | ({
        "lag_p50_s": round(percentile(tally.lags, 50), 3), "lag_p95_s": round(percentile(tally.lags, 95), 3),
        "lags": len(tally.lags), "app_reruns": tally.app_reruns, "full_reruns": tally.full_reruns,
        "pushed": tally.pushed, "students_at_last_step": tally.arrived,
        "instructor_steps": len(tally.instructor),
        "instructor_p50_s": round(percentile(tally.instructor, 50), 3),
        "instructor_p95_s": round(percentile(tally.instructor, 95), 3),
    } if args.action == "follow" else {}) | ({
        "uploaders": args.uploaders, "upload_bytes": args.upload_bytes, "uploads": len(tally.uploads),
        "upload_p50_s": round(percentile(tally.uploads, 50), 3),
        "upload_max_s": round(max(tally.uploads, default=float("nan")), 3),
    } if args.uploaders else {})


def markdown(s: dict) -> str:
    head = ("| sessions | think s | action | reruns | reruns/s | p50 s | p95 s | max s "
            "| kB/rerun | errors | exceptions |\n|---|---|---|---|---|---|---|---|---|---|---|")
    row = (f"| {s['sessions']} | {s['think_s']:g} | {s['action']} | {s['reruns']} | {s['reruns_per_s']} "
           f"| {s['p50_s']:.2f} | {s['p95_s']:.2f} | {s['max_s']:.2f} | {s['kb_per_rerun']} "
           f"| {s['errors']} | {s['exceptions']} |")
    notes = [f"{s['url']}, {s['duration_s']:g} s, first load p50 {s['first_load_p50_s']} s, "
             f"client CPU {s['client_cpu_s']} s of {s['wall_s']} s wall, load average {os.getloadavg()[0]:.1f}"]
    if "server_cpu_s" in s:
        notes.append(f"server CPU {s['server_cpu_s']} s, {s['server_cpu_ms_per_rerun']} ms per timed rerun "
                     "(first loads and resets included in the CPU)")
        if "server_cpu_ms_per_student_step" in s:
            notes.append(f"server CPU per student per instructor's step: {s['server_cpu_ms_per_student_step']} ms "
                         "(from the moment every student had joined: everything the server did, ticks included, "
                         "over steps x students)")
    if s["action"] == "follow":
        notes.append(f"follow: {s['reruns']} runs reached the students ({s['pushed']} started by the server, "
                     f"a wake; the others by the timer's ticks, whose latency is p50/p95 above); "
                     f"{s['app_reruns']} found a new step and reran "
                     f"(the whole page {s['full_reruns']} times, the step area alone the others); "
                     f"{s['students_at_last_step']} of {s['sessions']} students showed the instructor's last step; "
                     f"step seen by a student after the instructor's step: p50 {s['lag_p50_s']} s, "
                     f"p95 {s['lag_p95_s']} s ({s['lags']} sightings); the instructor's Step: "
                     f"p50 {s['instructor_p50_s']} s, p95 {s['instructor_p95_s']} s ({s['instructor_steps']} steps)")
    if s.get("uploaders"):
        notes.append(f"uploads: {s['uploaders']} sessions uploading {s['upload_bytes']:,} bytes every think "
                     f"time, {s['uploads']} uploads, upload to drawn p50 {s['upload_p50_s']} s, max {s['upload_max_s']} s")
    notes += [f"error: {e}" for e in s["first_errors"]] + [f"exception: {e}" for e in s["first_exceptions"]]
    return "\n".join([head, row, *notes])


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by process ``pid`` (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", default="http://127.0.0.1:8501/train-bpe?preset=english",
                   help="the page to load (loopback only)")
    p.add_argument("--sessions", type=int, default=3, help="how many sessions at once")
    p.add_argument("--think", type=float, default=2.0, help="mean seconds between clicks")
    p.add_argument("--duration", type=float, default=60.0, help="seconds to keep clicking")
    p.add_argument("--action", choices=["step", "open", "follow"], default="step",
                   help="click Step on the page, open the URL afresh each time, or follow a class "
                        "(one instructor steps every think time; the sessions are students polling)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for one rerun")
    p.add_argument("--min-clicks", type=int, default=0,
                   help="each session goes on past --duration (by at most --timeout) until it has done this "
                        "many timed clicks or ticks (the instructor: steps; students wait for the instructor), "
                        "so a smoke test on a slow machine still sees some")
    p.add_argument("--seed", type=int, default=0, help="seed for the think times")
    p.add_argument("--cookie", default=None,
                   help="send each session its own cookie of this name (a proxy's sticky-session cookie)")
    p.add_argument("--server-pid", type=int, action="append", default=[],
                   help="an app process id, to report the app's CPU time per rerun (Linux; repeat for several)")
    p.add_argument("--uploaders", type=int, default=0,
                   help="also run this many sessions that upload a new text every think time (the app "
                        "must run with --server.enableXsrfProtection=false)")
    p.add_argument("--upload-url", default=None, help="the page the uploaders open (default --url), e.g. with more merges")
    p.add_argument("--upload-bytes", type=int, default=1_990_000, help="bytes per upload (the limit is 2,000,000)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    if not (1 <= args.sessions <= 500 and 0 < args.duration <= 3600 and args.think >= 0.05):
        p.error("need 1-500 sessions, a duration of at most 3600 s and a think time >= 0.05 s")
    stream_url(args.url)
    server0 = sum(process_cpu(pid) for pid in args.server_pid)
    cpu0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    tally = asyncio.run(load(args))
    cpu1, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - wall0
    s = summary(args, tally, wall, (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime))
    if args.server_pid:
        server = sum(process_cpu(pid) for pid in args.server_pid) - server0
        s["server_cpu_s"] = round(server, 1)
        s["server_cpu_ms_per_rerun"] = round(1000 * server / max(1, s["reruns"]))
        clock = args.class_clock
        if clock is not None and clock.steady is not None and clock.steps > clock.steady[1]:
            # every student joined: the CPU from then on over the steps since, per student
            cpu = sum(process_cpu(pid) for pid in args.server_pid) - clock.steady[0]
            s["server_cpu_ms_per_student_step"] = round(
                1000 * cpu / ((clock.steps - clock.steady[1]) * args.sessions), 1)
    print(json.dumps(s) if args.json else markdown(s))
    return 1 if s["errors"] or s["exceptions"] else 0


if __name__ == "__main__":
    sys.exit(main())
