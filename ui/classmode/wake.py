"""Class mode: wake a class's students when the instructor changes the class (push).

A student's page used to learn of a new step by polling the store every second: one rerun
a second per student whether or not anything changed, and half a second of waiting in
every step on average. Now the store announces each change (`classroom.ClassStore.watch`:
in the process, or through Redis publish/subscribe from any process), and each server
process keeps a registry of its students: an announcement for class X wakes the sessions
of X in this process, and only them. A woken session reruns its class poll fragment, as
if that fragment's timer had fired: it asks the store for the class state (the store,
never the announcement, says what the step is) and reruns the step area when the step
moved. The timer stays as a safety net every `SAFETY_SECONDS` (an announcement lost while
Redis was away only delays a student; after such a break the store says "anything may
have changed" and every student here is woken).

Waking goes out at a measured pace, on the server's event loop:

- a session that announces (the instructor's step) finishes its own run before any
  student is woken (`hold`), so the instructor's Step never waits for the class;
- at most `CONCURRENT` woken sessions run their scripts at once, the rest wait their turn
  in order (one process runs Python code on one core at a time: forty threads started at
  once all finish late, taken in turns the first are served at once);
- each session is queued once, however many announcements arrive meanwhile;
- a session whose own script run is still going (it is joining, or its student clicked)
  waits in the queue until that run ends: a wake that arrived in the middle of a join's run
  cut it short, and the student's page never got its class timer (3-12 of 300 students).

Everything that touches Streamlit's internals (1.67: the runtime's sessions, their event
loop, `AppSession.request_rerun`, whether a session's script runner is still alive) is in
`StreamlitRuntime`; when any of it is missing (another Streamlit, AppTest, a bare run),
`available()` is False and the student's poll runs every second as before.

Bounded: at most `MAX_FOLLOWERS` registered sessions per process (beyond that a session
polls every second), one queued wake per session, and one listener per process. Nothing
a session typed is in a wake: it names a session and one of its fragments, nothing else.

Left out: what a woken poll does (`ui.classmode.panels._student_fragment`).
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Protocol

#: While waking works, a student's poll timer runs this often (a safety net only).
SAFETY_SECONDS = 12.0
#: Woken sessions running their scripts at once in one process.
CONCURRENT = 4
#: Sessions one process keeps in its registry.
MAX_FOLLOWERS = 5000
#: A woken session counts as running for at most this long (a stuck run frees its place).
RUN_LIMIT_SECONDS = 3.0
#: Students wait at most this long for the announcing session's own run to finish.
HOLD_LIMIT_SECONDS = 1.0
#: How often the pump looks again while sessions wait their turn.
PUMP_SECONDS = 0.004
#: ... and while the only sessions waiting are still in a run of their own.
BUSY_PUMP_SECONDS = 0.02


class Runtime(Protocol):
    """What the registry needs from the server (`StreamlitRuntime`; tests pass a fake)."""

    def call_soon(self, fn: Callable[[], None], delay: float = 0.0) -> bool: ...
    def busy(self, session_id: str) -> bool | None: ...
    def rerun(self, session_id: str, fragment_id: str) -> bool: ...


@dataclass
class Follower:
    code: str
    fragment_id: str | tuple[str, ...]  # what to rerun: the first of these the session still has
    version: int | None  # the class version this session last read


class Registry:
    """The students of each class in this process, and the pump that wakes them.

    `follow`, `forget`, `hold` and `announce` may be called from any thread; the pump
    runs on the runtime's event loop (`Runtime.call_soon`)."""

    def __init__(self, runtime: Runtime, *, concurrent: int = CONCURRENT, max_followers: int = MAX_FOLLOWERS,
                 clock: Callable[[], float] = time.monotonic):
        self.runtime = runtime
        self.concurrent = concurrent
        self.max_followers = max_followers
        self._clock = clock
        self._lock = threading.Lock()
        self._followers: dict[str, Follower] = {}           # session -> what to wake
        self._by_code: dict[str, dict[str, None]] = {}      # class code -> sessions, in joining order
        self._pending: OrderedDict[str, None] = OrderedDict()  # sessions waiting for their wake
        self._running: dict[str, float] = {}                # woken sessions still running -> since
        self._holds: dict[str, float] = {}                  # announcing sessions still running -> since
        self._scheduled = False
        #: figures for the benchmark and the tests
        self.woken = 0
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._followers)

    # ---- from the sessions' script threads ----

    def follow(self, session_id: str, code: str, fragment_id: str | tuple[str, ...], version: int | None) -> bool:
        """Register (or refresh) a student of class ``code``, to be woken by rerunning
        ``fragment_id`` (or the first of several ids the session still has: a following
        student's step area, else its poll). False when the registry is full (that
        session polls instead)."""
        with self._lock:
            old = self._followers.get(session_id)
            if old is None and len(self._followers) >= self.max_followers:
                return False
            if old is not None and old.code != code:
                self._unindex(session_id, old.code)
            self._followers[session_id] = Follower(code, fragment_id, version)
            self._by_code.setdefault(code, {})[session_id] = None
            return True

    def forget(self, session_id: str) -> None:
        with self._lock:
            self._forget(session_id)

    def hold(self, session_id: str) -> None:
        """This session is about to announce a change: wake nobody before its run ends."""
        with self._lock:
            self._holds[session_id] = self._clock()

    def announce(self, code: str | None, version: int | None) -> None:
        """The store's listener: queue a wake for each student of ``code`` who has not read
        ``version`` yet (every student of the class when the class ended, ``version``
        None; every student here when ``code`` is None)."""
        with self._lock:
            sessions = self._followers.keys() if code is None else self._by_code.get(code, ())
            for sid in list(sessions):
                f = self._followers[sid]
                if version is None or f.version is None or f.version < version:
                    self._pending[sid] = None
            self._schedule()

    # ---- on the event loop ----

    def pump(self) -> None:
        """Wake waiting sessions while fewer than `concurrent` woken ones still run."""
        now = self._clock()
        with self._lock:
            self._scheduled = False
            for table, limit in ((self._holds, HOLD_LIMIT_SECONDS), (self._running, RUN_LIMIT_SECONDS)):
                for sid, since in list(table.items()):
                    if now - since > limit or not self.runtime.busy(sid):
                        del table[sid]
            busy_waiting = 0  # sessions passed over because their own run goes on
            if not self._holds:
                for sid in list(self._pending):
                    if len(self._running) >= self.concurrent:
                        break
                    f = self._followers.get(sid)
                    if f is None:
                        del self._pending[sid]
                        continue
                    if self.runtime.busy(sid):
                        # its own run (a join, a click, a tick) is still going: a wake now
                        # would cut into it; it is woken, in its turn, once that run ends
                        busy_waiting += 1
                        continue
                    del self._pending[sid]
                    if self.runtime.rerun(sid, f.fragment_id):
                        self._running[sid] = now
                        self.woken += 1
                    else:  # the session closed, or is on another page: its next poll registers it again
                        self._forget(sid)
                        self.dropped += 1
            if self._pending:
                only_busy = busy_waiting == len(self._pending) and len(self._running) < self.concurrent
                self._schedule(BUSY_PUMP_SECONDS if only_busy else PUMP_SECONDS)

    # ---- inside ----

    def _schedule(self, delay: float = 0.0) -> None:
        if not self._scheduled and self._pending:
            self._scheduled = self.runtime.call_soon(self.pump, delay)

    def _forget(self, session_id: str) -> None:
        f = self._followers.pop(session_id, None)
        if f is not None:
            self._unindex(session_id, f.code)
        self._pending.pop(session_id, None)

    def _unindex(self, session_id: str, code: str) -> None:
        sessions = self._by_code.get(code)
        if sessions is not None:
            sessions.pop(session_id, None)
            if not sessions:
                del self._by_code[code]


class StreamlitRuntime:
    """The one place that uses Streamlit 1.67's internals to rerun another session.

    Each method fails soft: an unknown session or a missing internal returns None/False,
    so waking degrades to the poll timer and never raises into a page."""

    def __init__(self) -> None:
        self._loop = None

    def _runtime(self):
        from streamlit.runtime import Runtime as _Runtime
        return _Runtime.instance() if _Runtime.exists() else None

    def session(self, session_id: str):
        try:
            runtime = self._runtime()
            return None if runtime is None else runtime.get_app_session(session_id)
        except Exception:  # another Streamlit: no waking
            return None

    def supports(self, session_id: str) -> bool:
        """Whether this session can be woken (its AppSession has what `rerun` uses)."""
        app = self.session(session_id)
        if app is None or not all(hasattr(app, a) for a in ("request_rerun", "has_fragment", "_scriptrunner",
                                                            "_client_state", "_event_loop")):
            return False
        self._loop = app._event_loop
        return True

    def call_soon(self, fn: Callable[[], None], delay: float = 0.0) -> bool:
        loop = self._loop
        if loop is None or loop.is_closed():
            return False
        try:
            if delay:
                loop.call_soon_threadsafe(loop.call_later, delay, fn)
            else:
                loop.call_soon_threadsafe(fn)
        except RuntimeError:  # the server is stopping
            return False
        return True

    def busy(self, session_id: str) -> bool | None:
        """Whether the session's script runner is still alive (its runs, chained reruns
        included, are not over); None for a session that is gone. Event loop only."""
        app = self.session(session_id)
        return None if app is None else app._scriptrunner is not None

    def rerun(self, session_id: str, fragment_id: str | tuple[str, ...]) -> bool:
        """Rerun one fragment of the session (the first of ``fragment_id``'s ids that it
        still has), as its timer would (the browser's last address and page; no widget
        values: nothing the browser holds changes). Event loop only."""
        app = self.session(session_id)
        ids = (fragment_id,) if isinstance(fragment_id, str) else fragment_id
        try:
            fragment_id = next(i for i in ids if i and app is not None and app.has_fragment(i))
        except StopIteration:
            return False
        try:
            from streamlit.proto.ClientState_pb2 import ClientState
            state = ClientState()
            state.CopyFrom(app._client_state)
            state.ClearField("widget_states")
            state.fragment_id = fragment_id
            state.is_auto_rerun = True
            app.request_rerun(state)
        except Exception:  # another Streamlit, or the session shutting down: its timer polls
            return False
        return True


_runtime = StreamlitRuntime()
_registry = Registry(_runtime)
_watching: tuple[object, Callable[[], None]] | None = None
_watch_lock = threading.Lock()


def registry() -> Registry:
    return _registry


def _session_id() -> str | None:
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
        ctx = get_script_run_ctx()
    except ImportError:
        return None
    return None if ctx is None else ctx.session_id


def available() -> bool:
    """Whether this session can be woken (a real server with the internals `rerun` uses)."""
    sid = _session_id()
    return sid is not None and _runtime.supports(sid)


def listen(store) -> None:
    """Have the class store's announcements wake this process's students (once per store)."""
    global _watching
    with _watch_lock:
        if _watching is not None and _watching[0] is store:
            return
        if _watching is not None:
            _watching[1]()  # a test put in another store
        _watching = (store, store.watch(_registry.announce))


def follow(store, code: str, fragment_id: str | None, version: int | None) -> bool:
    """Called from a student's poll fragment: wake this session when class ``code``
    changes. False when it cannot be woken (then its poll must run every second)."""
    sid = _session_id()
    if sid is None or not fragment_id or not _runtime.supports(sid):
        return False
    listen(store)
    return _registry.follow(sid, code, fragment_id, version)


def forget() -> None:
    """This session left its class (or stopped being a student): wake it no more."""
    sid = _session_id()
    if sid is not None:
        _registry.forget(sid)


def hold() -> None:
    """This session is about to change the class: its own run ends before students wake."""
    sid = _session_id()
    if sid is not None and _runtime.supports(sid):
        _registry.hold(sid)
