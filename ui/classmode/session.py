"""Class mode, Streamlit part 1: this tab's part in a class, and every call to the store.

Per session (st.session_state, keys "class.*"): the role ("instructor" or "student"),
the class code, the instructor token (only in the instructor's own session; never in a
URL the page writes), the last `ClassState` seen and its version, whether a student
follows the class or explores alone, and the last error. The store is made once per
process (`class_store`) from BPE_CLASS_STORE; tests put their own in with `use_store`.

Every store call goes through `_call`, which turns a class error (a bad or expired code,
a rate limit, the store being away) into a message in ERROR for the page to show, so the
page keeps working; while the store is away, polls pause for a few seconds between
tries and the class carries on once it is back.

Left out: drawing (panels.py), grading and options (logic.py).
"""
from __future__ import annotations

import secrets
import threading
import time
from typing import Callable, TypeVar

import streamlit as st

from classroom import (
    LOCAL, ClassError, ClassNotFound, ClassState, ClassStore, RateLimited, StoreUnavailable, client_key,
    open_store, proxy_hops,
)
from ui.classmode import logic, wake
from ui.shared.state import Key, KeyFamily, request_train_step
from ui.train import state as train_state
from ui.train.run_view import RunView

T = TypeVar("T")

#: Every widget key of class mode: `class_w_<name>`.
WIDGETS = KeyFamily("class_w_")

ROLE: Key[str | None] = Key("class.role")            # None, "instructor" or "student"
CODE: Key[str | None] = Key("class.code")
TOKEN: Key[str | None] = Key("class.token")          # the instructor token (instructor sessions only)
CLASS: Key[ClassState | None] = Key("class.state")   # the last ClassState seen
FOLLOW: Key[bool] = Key("class.follow", False)       # a student follows the class's step
APPLIED: Key[int | None] = Key("class.applied")      # the class step last put on this student's page (informative)
PUSHED: Key[int | None] = Key("class.pushed")        # the step the instructor last sent
ERROR: Key[str | None] = Key("class.error")          # what the last poll met (cleared by the next good one), or None
NOTICE: Key[str | None] = Key("class.notice")        # what the last action met (cleared by the next action), or None
ANSWERED: Key[dict[tuple[str, int], int]] = Key("class.answered", {})  # (code, question number) -> the option this tab sent (replaced, never changed in place)
NICK: Key[str | None] = Key("class.nick")            # optional nickname (students)
SID: Key[str | None] = Key("class.sid")              # this tab's id for the store (rate limits, one answer each)
CLIENT: Key[str | None] = Key("class.client")        # this visitor's address key (limits counted per address)
PASSPHRASE: Key[str | None] = WIDGETS.key("passphrase")  # the instructor passphrase box (when the server asks for one)
PAUSED_UNTIL: Key[float] = Key("class.paused_until", 0.0)  # the store was away: do not ask before this time
APP_RERUN: Key[bool] = Key("class.app_rerun", False)  # a callback inside a fragment asks for a full rerun
TRIED: Key[set[tuple]] = Key("class.tried", set())    # join-page parameters already tried (not retried on rerun)
STEP_FRAGMENT: Key[str | None] = Key("class.step_fragment")    # the id of the Train page's step fragment (see rerun_fragments)
PANEL_FRAGMENT: Key[str | None] = Key("class.panel_fragment")  # the id of a student's class panel fragment (banner, question)
POLL_FRAGMENT: Key[str | None] = Key("class.poll_fragment")    # the id of a student's poll fragment (the timer)
ENDED: Key[str | None] = Key("class.ended")          # why this tab's class is over (shown until dismissed), or None
DEVICE: Key[str | None] = Key("class.device")        # what to do with the instructor cookie this run: "save", "forget" or None
RESUME_TRIED: Key[bool] = Key("class.resume_tried", False)  # the instructor cookie was tried in this session
BACK: Key[bool] = Key("class.back", False)           # the store is back after an outage: say so once
#: the step the class started at (the QR code folds once it moves); None: the class was
#: under way when this tab joined it; not set: it started here
START_STEP: Key[int | None] = Key("class.start_step")
# the class panel's (ui/classmode/panels.py)
FULL_RUN: Key[bool] = Key("class.full_run", False)  # the fragment is running inside a full run of the page
GO_TRAIN: Key[bool] = Key("class.go_train", False)  # the join form's callback joined: go to the Train page
PANEL_SHOWN: Key[tuple | None] = Key("class.panel_shown")  # what a student's class panel last drew (`_panel_signature`)
QR_CACHE: Key[tuple[str, bytes] | None] = Key("class.qr")  # (link, png) of this instructor's QR code
OPEN: Key[bool] = WIDGETS.key("open", False)  # the Train page's "Class mode" expander (True while open)
OPENED_FOR: Key[tuple | None] = Key("class.opened_for")  # the (role, notice) it last opened by itself for
QR_FOLDED: Key[bool | None] = Key("class.qr_folded")  # the instructor folded (True) or opened (False) the QR code; None: automatic
PUBLIC: Key[str | None] = Key("class.public_root")   # the address students open, as typed in the panel (an app root), or None
PUBLIC_NOTE: Key[str | None] = Key("class.public_note")  # what was wrong with the typed address
QR_DRAWN: Key[bool | None] = Key("class.qr_drawn")    # whether the panel last drew the QR code folded (None: not since a fold was asked)
UNSENT: Key[bool] = Key("class.unsent", False)        # the instructor's step did not reach the store (it was away)
DRAWN: Key[int | None] = Key("class.drawn")          # the step a student's step area last drew in full
HIDDEN: Key[bool | None] = Key("class.hidden")       # the step area last drew the pair table hidden (a question pending)

#: Seconds between polls (the students' fragment timer) where a session cannot be woken
#: (`ui.classmode.wake`); where it can, the timer is a safety net every wake.SAFETY_SECONDS.
POLL_SECONDS = 1.0
#: After the store was unreachable, wait this long before asking again.
PAUSE_SECONDS = 5.0

_store: ClassStore | None = None
_store_lock = threading.Lock()


def class_store() -> ClassStore:
    """The process's class store (made on first use from BPE_CLASS_STORE)."""
    global _store
    with _store_lock:
        if _store is None:
            _store = open_store()
        return _store


def use_store(store: ClassStore | None) -> None:
    """Put in a store (tests: a memory store on a fake clock); None goes back to the default."""
    global _store
    with _store_lock:
        _store = store


# ---- session values -------------------------------------------------------------------------
def client_address() -> str | None:
    """The key this visitor's class limits are counted under: their address as the server
    saw it, or as the proxy reports it when BPE_BEHIND_PROXY says there is one (see
    `classroom.clients`). Read once per session (a session keeps its connection).

    None for a visitor on the server's own machine (loopback, no proxy): the store then
    counts per browser session, so a teacher running the app on a laptop, or a test
    suite's browsers, are not one shared visitor."""
    if not CLIENT.is_set():
        try:
            hops = proxy_hops()
        except ValueError:  # a bad setting: count by the connection, never by the header
            hops = 0
        try:
            peer = st.context.ip_address
            forwarded = st.context.headers.get("X-Forwarded-For")
        except Exception:  # no browser connection (a bare script run): one local key
            peer = forwarded = None
        CLIENT.set(client_key(peer, forwarded, hops))
    return None if CLIENT.get() == LOCAL else CLIENT.get()


def sid() -> str:
    if not SID.is_set():
        SID.set(secrets.token_urlsafe(12))
    return SID.get()


def role() -> str | None:
    return ROLE.get()


def current() -> ClassState | None:
    return CLASS.get() if role() else None


def error() -> str | None:
    return ERROR.get()


def following() -> bool:
    return role() == "student" and bool(FOLLOW.get())


def take_app_rerun() -> bool:
    return bool(APP_RERUN.pop())


def notice() -> str | None:
    return NOTICE.get()


#: What the instructor reads while the store cannot be reached (the students read the store's own message).
OUTAGE = ("The class store cannot be reached: your students do not see your steps now. This page "
          f"tries again every {PAUSE_SECONDS:g} s and sends your current step as soon as the store is back.")


def ended() -> str | None:
    return ENDED.get()


def dismiss_ended() -> None:
    ENDED.set(None)


def _call(fn: Callable[[], T], *, into: Key[str | None] = NOTICE) -> T | None:
    """Run one store call; a class error becomes a message under ``into`` (ERROR for
    polls, NOTICE for actions) and None is returned. A class that is gone (ended or
    expired) is left, and ENDED says why."""
    try:
        result = fn()
    except StoreUnavailable as exc:
        PAUSED_UNTIL.set(time.monotonic() + PAUSE_SECONDS)
        into.set(OUTAGE if role() == "instructor" else str(exc))
        return None
    except ClassNotFound as exc:
        if role():
            _gone()  # the class is gone: stop polling it, say why
        else:
            into.set(str(exc))
        return None
    except (ClassError, RateLimited) as exc:
        into.set(str(exc))
        return None
    into.set(None)
    PAUSED_UNTIL.pop()
    return result


def _store_now() -> float:
    """The store's clock (a test's store runs on a fake one)."""
    return getattr(class_store(), "_clock", time.time)()


def _gone() -> None:
    """This tab's class is gone: leave it and say why, as well as this tab can tell. A
    class expires ``ttl`` after its last action, and every state seen carries the time it
    would expire by (`expires_at`, later with each action); gone before that, it was ended."""
    state, was = CLASS.get(), role()
    code = state.display_code if state is not None else ""
    cut_short = state is not None and _store_now() < state.expires_at
    hours = class_store().ttl_seconds / 3600
    life = f"{hours:g} hours" if hours >= 1 else f"{hours * 60:g} minutes"
    if was == "student":
        why = (f"Your instructor ended the class {code}." if cut_short else
               f"The class {code} is over: the instructor ended it, or it ended {life} after its last action.")
        ENDED.set(why + " Your page stays as it is: explore on your own as long as you like.")
    else:
        why = (f"Your class {code} was ended on another device (with its instructor link)." if cut_short else
               f"Your class {code} is over: it was ended on another device, or it ended {life} after its last action.")
        ENDED.set(why + " Your steps no longer go to anyone. Start a new class from Class mode below.")
        DEVICE.set("forget")
    leave()


def _enter(role_name: str, state: ClassState, token: str | None = None) -> None:
    ROLE.set(role_name)
    CODE.set(state.code)
    CLASS.set(state)
    TOKEN.set(token)
    FOLLOW.set(role_name == "student")
    APPLIED.set(None)
    PUSHED.set(None)
    ERROR.set(None)
    NOTICE.set(None)
    ENDED.set(None)
    if role_name == "instructor":
        DEVICE.set("save")  # the page keeps the instructor token in this browser (see device_script)


def _load_class_corpus(state: ClassState) -> None:
    """Put the class's corpus and settings on this tab's Train page (trained on its next run)."""
    train_state.init()
    params = logic.snapshot_params(state.snapshot)
    if params:
        layout = train_state.LAYOUT.get()  # the class's corpus, not its view: a projector stays one
        train_state.restore_from_link(params)
        if layout is not None:
            train_state.LAYOUT.set(layout)
        train_state.stop_playing()


# ---- the instructor -------------------------------------------------------------------------
def start_class() -> None:
    """Start a class on the Train page's current run and step (a button's callback)."""
    corpus, settings = train_state.active_corpus()
    view = train_state.current_view()
    try:
        snapshot = logic.class_snapshot(corpus, settings, view.key)
    except ValueError as exc:
        NOTICE.set(str(exc))
        return
    store = class_store()
    typed = PASSPHRASE.get() if store.needs_passphrase else None
    PASSPHRASE.set("")  # not kept in the session once used
    keys = _call(lambda: store.create_class(snapshot, session=sid(), client=client_address(), passphrase=typed))
    if keys is None:
        return
    state = _call(lambda: store.set_step(keys.code, train_state.step(), instructor_token=keys.instructor_token))
    if state is None:  # the store went away just now; the unused class expires by itself
        return
    _enter("instructor", state, keys.instructor_token)
    PUSHED.set(state.step)
    START_STEP.set(state.step)


def take_control(code: str, token: str) -> bool:
    """Open the instructor link: take control of the class if the token is its own."""
    store = class_store()
    state = _call(lambda: store.claim(code, token, session=sid(), client=client_address()))
    if state is None:  # every wrong link reads the same (the store's message)
        return False
    _load_class_corpus(state)
    _enter("instructor", state, token)
    START_STEP.set(None)  # a class already under way: its QR code starts folded
    request_train_step(state.step)  # the Train page shows it once the run is ready
    return True


def push_step(view: RunView, k: int, *, retry: bool = False) -> None:
    """The instructor's page is at step k: tell the class (only for the class's own run).
    While the store is away, sends wait PAUSE_SECONDS between tries, unless `retry` (the
    instructor panel's timer, which runs only during an outage)."""
    state = current()
    if role() != "instructor" or state is None or k == PUSHED.get():
        return
    if view.key != logic.snapshot_run(state.snapshot):
        return
    if not retry and PAUSED_UNTIL.get() > time.monotonic():
        return
    wake.hold()  # this run ends before the students are woken
    new = _call(lambda: class_store().set_step(state.code, k, instructor_token=TOKEN.get()), into=ERROR)
    if new is not None:
        CLASS.set(new)
        PUSHED.set(k)
        if UNSENT.pop():
            BACK.set(True)  # the outage is over and the class has the step: say so once
    elif role() == "instructor" and PAUSED_UNTIL.get():
        UNSENT.set(True)  # the store is away: the panel's timer sends the step when it is back


def instructor_run_starts() -> None:
    """The instructor's step area starts a run (a Step, Back, a slider move): students
    woken by an earlier step wait until it ends, so the instructor's page stays quick
    while the class catches up (`ui.classmode.wake`)."""
    if role() == "instructor":
        wake.hold()


def back_to_class_run() -> None:
    """The instructor changed the corpus or settings: go back to the class's."""
    state = current()
    if state is not None:
        _load_class_corpus(state)
        request_train_step(state.step)


def _instructor_change(change: Callable[[ClassStore, str, str], ClassState]) -> None:
    state = current()
    if role() != "instructor" or state is None:
        return
    wake.hold()
    new = _call(lambda: change(class_store(), state.code, TOKEN.get()))
    if new is not None:
        CLASS.set(new)
        APP_RERUN.set(True)  # the answers' timer runs only while a question is open


def open_question() -> None:
    view, k = train_state.current_view(), train_state.step()
    state = current()
    if state is None:
        return
    options = logic.question_options(view, k, state.code)
    if len(options) < 2:
        NOTICE.set("There is nothing to ask at this step: fewer than two pairs are left. Step back first.")
        return
    labels = [label for label, _ in options]
    _instructor_change(lambda s, code, tok: s.open_question(
        code, labels, instructor_token=tok, prompt=f"Which pair merges next (merge {k + 1})?"))


def reveal() -> None:
    state = current()
    if state is None or state.question is None:
        return
    q = state.question
    view = train_state.current_view()
    if view.key != logic.snapshot_run(state.snapshot) or q.step >= view.steps:
        NOTICE.set("Go back to the class's corpus and settings to reveal the answer.")
        return
    options = logic.question_options(view, q.step, state.code)
    correct = [c for c in logic.correct_options(view, q.step, options) if c in q.options]
    _instructor_change(lambda s, code, tok: s.reveal(code, correct, instructor_token=tok))


def close_question() -> None:
    _instructor_change(lambda s, code, tok: s.close_question(code, instructor_token=tok))


def end_class() -> None:
    state = current()
    if role() == "instructor" and state is not None:
        _call(lambda: class_store().end_class(state.code, instructor_token=TOKEN.get()))
        if role():  # not already left as gone
            ENDED.set(f"You ended the class {state.display_code}: your students read that you ended it.")
        DEVICE.set("forget")
    leave()


def qr_folded(state: ClassState) -> bool:
    """The QR code folds to one line once the class is under way (the instructor stepped
    or asked: students had their time to join at the start), unless the instructor chose."""
    chosen = QR_FOLDED.get()
    if chosen is not None:
        return chosen
    # not set: the class started here and has not moved; None: it was under way when joined
    return (START_STEP.is_set() and state.step != START_STEP.get()) or state.question is not None


def take_qr_fold() -> bool:
    """Whether the instructor's panel (drawn by full runs) last drew the QR code open and
    should now fold it: the step area, which a step reruns alone, then asks for one full
    run. True once: the request is spent here, and only the panel's next draw records
    what it shows again, so a full run that does not draw the panel (it was cut short)
    never asks again and again."""
    state = current()
    due = (role() == "instructor" and state is not None and QR_DRAWN.get() is False
           and qr_folded(state))
    if due:
        QR_DRAWN.set(None)  # asked: the next draw of the panel says what it showed
    return due


def outage() -> bool:
    """The instructor's step has not reached the store (it was away): the panel says so and
    retries on a timer."""
    return role() == "instructor" and bool(UNSENT.get())


def resend() -> None:
    """During an outage (the instructor panel's timer): send the page's current step again
    (even if it is the step last sent: the send is what finds the store back)."""
    PUSHED.set(None)
    push_step(train_state.current_view(), train_state.step(), retry=True)


def take_back() -> bool:
    """Whether an outage just ended (said once)."""
    return bool(BACK.pop())


# ---- this device keeps the instructor's control (a reload, a browser restart) ----------------
#: The cookie that keeps "code.token" in the instructor's browser: written by the page's own
#: script (`device_script`), read by the server from the next session's first request
#: (st.context.cookies); never part of a link.
COOKIE = "bpe_class_teach"


def saved_control() -> tuple[str, str] | None:
    """(code, token) this browser keeps for a class it runs, from its cookie, or None."""
    try:
        value = st.context.cookies.get(COOKIE)
    except Exception:  # no browser (bare mode, AppTest): nothing kept
        return None
    if not isinstance(value, str) or value.count(".") != 1 or len(value) > 120:
        return None
    code, token = value.split(".")
    return (code, token) if code and token else None


def resume_saved() -> bool:
    """A new session (a reload, a restarted browser) of a browser that runs a class: take
    control again, once per session, if its kept token is the class's. Quiet on failure (a
    class that ended meanwhile only forgets the cookie)."""
    if role() is not None or RESUME_TRIED.get():
        return False
    RESUME_TRIED.set(True)
    saved = saved_control()
    if saved is None:
        return False
    code, token = saved
    store = class_store()
    try:
        mine = store.is_instructor(code, token)
    except ClassNotFound:
        mine = False
    except ClassError:  # the store is away or busy: try again on the next full run
        RESUME_TRIED.set(False)
        return False
    if not mine:
        DEVICE.set("forget")
        return False
    return take_control(code, token)


def forget_device() -> None:
    """This browser's instructor cookie is for no class it can run: delete it (the page's
    script does, on this run)."""
    DEVICE.set("forget")


def device_script(app_path: str) -> str | None:
    """The script that saves (or forgets) this browser's instructor cookie, for st.html
    with JavaScript on; None when there is nothing to do. The cookie lives as long as a
    class does after its last action, for the app's path only, SameSite=Strict (no other
    site's page sends it), Secure over https."""
    todo = DEVICE.get()
    if todo == "save" and role() == "instructor" and TOKEN.get():
        value = f"{CODE.get()}.{TOKEN.get()}"
        age = int(class_store().ttl_seconds)
    elif todo == "forget":
        value, age = "", 0
    else:
        return None
    if not all(c.isalnum() or c in "-_." for c in value) or not all(c.isalnum() or c in "/-_." for c in app_path):
        return None  # (never: codes and tokens are base 32 and URL-safe base 64)
    return ("<script>(function(){var s=location.protocol==='https:'?'; secure':'';"
            f"document.cookie='{COOKIE}={value}; path={app_path}; max-age={age}; samesite=strict'+s;}})();</script>")


def tally():
    """The answers to the current question (instructor: any time; others: once revealed)."""
    state = current()
    if state is None or state.question is None:
        return None
    return _call(lambda: class_store().tally(state.code, instructor_token=TOKEN.get()), into=ERROR)


# ---- students -------------------------------------------------------------------------------
def note_step_fragment() -> None:
    """Called from inside the Train page's step fragment, once it has drawn the page's
    step: remember its id, so a following student's poll can rerun that fragment alone
    when the class's step changes, and the step it drew (`step_undrawn`)."""
    note_fragment(STEP_FRAGMENT)
    DRAWN.set(train_state.STEP.get())


def step_undrawn() -> bool:
    """A following student's page holds a step its step area has not drawn (the rerun a
    poll asked for was lost, e.g. merged with another request on a busy server): the
    next poll reruns the step area, instead of finding the class unchanged and leaving
    the old step on screen."""
    return following() and DRAWN.get() is not None and DRAWN.get() != train_state.step()


def note_fragment(key: Key[str | None]) -> None:
    """Called from inside a fragment: keep its id under `key` (for `rerun_fragments`)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState
        fragment_id = ThreadState.get().fragment_id
    except (ImportError, AttributeError):  # another Streamlit: the poll reruns the page instead
        return
    if fragment_id:
        key.set(fragment_id)


def rerun_step_area() -> None:
    """Rerun the Train page's step fragment alone (see `rerun_fragments`)."""
    rerun_fragments([STEP_FRAGMENT])


def rerun_fragments(keys: list[Key[str | None]]) -> None:
    """Rerun the fragments whose ids are kept under `keys` (`note_fragment`), in page
    order, and nothing else; ends the calling fragment's run, as st.rerun does.

    Streamlit 1.67 reruns another fragment by key only from a widget callback, and a poll
    is a timer's run, not a callback; so this queues the same request st.rerun queues
    (a fragment-scoped rerun naming the fragments' ids) and stops at the next element, as
    st.rerun does. A following student's poll then reruns only the step area and the
    class panel when the class moves, not the whole page, and nothing when it did not.
    If this Streamlit has no such request or a fragment is unknown, the whole page reruns
    (the old way), so following still works.
    """
    ids = [key.get() for key in keys]
    try:
        from streamlit.runtime.scriptrunner_utils.script_requests import RerunData
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
    except ImportError:
        st.rerun(scope="app")
    ctx = get_script_run_ctx()
    storage = getattr(ctx, "fragment_storage", None)
    if (not ids or not all(ids) or ctx is None or ctx.script_requests is None or storage is None
            or not all(storage.contains(i) for i in ids)):
        st.rerun(scope="app")
    ctx.script_requests.request_rerun(RerunData(
        query_string=ctx.query_string, page_script_hash=ctx.page_script_hash,
        fragment_id_queue=ids, is_fragment_scoped_rerun=True,
        cached_message_hashes=ctx.cached_message_hashes, context_info=ctx.context_info))
    st.empty()  # the next element is where the runner takes the request (st.rerun does the same)
    st.rerun(scope="app")  # not reached unless the request was refused: then the whole page


def join(code_or_token: str, nickname: str | None = None) -> bool:
    """Join a class by its code or link token; load its corpus; follow it."""
    nick = (nickname or "").strip() or None
    state = _call(lambda: class_store().join(code_or_token, session=sid(), client=client_address()))
    if state is None:
        return False
    _load_class_corpus(state)
    _enter("student", state)
    NICK.set(nick)
    return True


def leave() -> None:
    wake.forget()
    for key in (ROLE, CODE, TOKEN, CLASS, APPLIED, PUSHED, PAUSED_UNTIL, NOTICE, ERROR, UNSENT, BACK):
        key.pop()
    FOLLOW.set(False)
    APP_RERUN.set(True)


def poll_seconds() -> float:
    """The student's poll timer: a slow safety net when this session is woken by the
    class's changes (`ui.classmode.wake`), else every POLL_SECONDS."""
    return wake.SAFETY_SECONDS if wake.available() else POLL_SECONDS


def wake_me() -> bool:
    """Have the class's next change rerun this session at once (`ui.classmode.wake`): a
    following student's step area (which reads the class first, `hooks.before_step`: one
    run per student per step), else the poll fragment (`note_fragment(POLL_FRAGMENT)`,
    also the fallback when the step area is gone from the page). Called from the poll
    and from a following student's step area. False when this session cannot be woken."""
    state = current()
    if role() != "student" or state is None or not POLL_FRAGMENT.get():
        return False
    targets = (POLL_FRAGMENT.get(),)
    if following() and STEP_FRAGMENT.get():
        targets = (STEP_FRAGMENT.get(),) + targets
    return wake.follow(class_store(), state.code, targets, state.version)


def fragment_run() -> bool:
    """Whether this script run reruns fragments only (a wake, a timer, a click inside a
    fragment), not the whole page."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
    except ImportError:
        return False
    ctx = get_script_run_ctx()
    return bool(getattr(ctx, "fragment_ids_this_run", None))


def poll() -> tuple[ClassState | None, bool]:
    """(the class state, whether it changed since the last poll). Paused while the store
    is away (the previous state is returned, unchanged)."""
    state = current()
    if state is None:
        return None, False
    if PAUSED_UNTIL.get() > time.monotonic():
        return state, False
    new = _call(lambda: class_store().poll(state.code, session=sid(), since=state.version), into=ERROR)
    if new is None:
        return current(), False
    CLASS.set(new)
    return new, True


def class_step_applies(view: RunView) -> bool:
    """Whether this tab shows the class's run (so the class's step can be put on it)."""
    state = current()
    return state is not None and view.key == logic.snapshot_run(state.snapshot)


def question_pending(view: RunView, k: int) -> bool:
    """A question about merge k+1 is open or closed but not yet revealed, and this tab
    shows the class's run: its page must not show the counts or the next pair."""
    state = current()
    q = state.question if state is not None else None
    return q is not None and q.status != "revealed" and q.step == k and class_step_applies(view)


def note_hidden(hidden: bool) -> None:
    HIDDEN.set(hidden)


def hidden_changed(view: RunView) -> bool:
    """Whether the step area drew its pair table hidden or shown, and that no longer holds
    (a question opened or was revealed): a student's poll then reruns the step area."""
    return question_pending(view, train_state.step()) != bool(HIDDEN.get())


def apply_class_step(view: RunView) -> bool:
    """A following student: put the class's step on the page. Returns True if it moved.

    The class's step is enforced while following, whatever the page's step is: a polling
    tick can carry the slider's previous value from the browser (sent before the browser
    saw the new step) and move the page back; the next poll puts it right again. A student
    leaves the class's pace with "Explore on my own" or by clicking Step, Back, Reset or
    Play (see `hooks.after_step`); changing the corpus or the settings also detaches.
    """
    state = current()
    if not following() or state is None:
        return False
    if not class_step_applies(view) or clicked_own_step():
        FOLLOW.set(False)
        return False
    target = min(state.step, view.steps)
    APPLIED.set(target)
    if train_state.step() == target:
        return False
    train_state.stop_playing()
    train_state.set_step(target)
    return True


#: The Train page's own stepping buttons: a following student who clicks one explores alone.
OWN_STEP_BUTTONS = tuple(train_state.WIDGETS.key(name) for name in ("btn_step", "btn_back", "btn_reset", "btn_play", "btn_next"))


def clicked_own_step() -> bool:
    """Whether this run started with a click on one of the page's stepping buttons (a
    button is True only in the run its click started, so a stale value never counts)."""
    return any(key.get() is True for key in OWN_STEP_BUTTONS)


def detach() -> None:
    FOLLOW.set(False)


def rejoin() -> None:
    """Follow the class again, at its step (reloading its corpus if this tab changed it)."""
    state = current()
    if state is None:
        return
    view = train_state.current_view()
    if view.key != logic.snapshot_run(state.snapshot):
        _load_class_corpus(state)
    FOLLOW.set(True)
    APPLIED.set(None)
    APP_RERUN.set(True)


def answer(option: str) -> None:
    state = current()
    if state is None or state.question is None:
        return
    number = state.question.number
    done = _call(lambda: class_store().answer(state.code, option, session=sid(),
                                              nickname=NICK.get(), question=number) or True)
    if done:
        ANSWERED.set({**ANSWERED.get(), (state.code, number): option})


def my_answer() -> str | None:
    """The option this tab sent for the current question (kept in the session: no store call)."""
    state = current()
    if state is None or state.question is None:
        return None
    return ANSWERED.get().get((state.code, state.question.number))
