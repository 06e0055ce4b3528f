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

from classroom import ClassError, ClassNotFound, ClassState, ClassStore, RateLimited, StoreUnavailable, open_store
from ui.classmode import logic
from ui.shared.state import request_train_step
from ui.train import state as train_state
from ui.train.render import RunView

ss = st.session_state
T = TypeVar("T")

ROLE = "class.role"            # None, "instructor" or "student"
CODE = "class.code"
TOKEN = "class.token"          # the instructor token (instructor sessions only)
CLASS = "class.state"          # the last ClassState seen
FOLLOW = "class.follow"        # a student follows the class's step
APPLIED = "class.applied"      # the class step last put on this student's page (informative)
PUSHED = "class.pushed"        # the step the instructor last sent
ERROR = "class.error"          # what the last poll met (cleared by the next good one), or None
NOTICE = "class.notice"        # what the last action met (cleared by the next action), or None
ANSWERED = "class.answered"    # (code, question number) -> the option this tab sent
NICK = "class.nick"            # optional nickname (students)
SID = "class.sid"              # this tab's id for the store (rate limits, one answer each)
PAUSED_UNTIL = "class.paused_until"  # the store was away: do not ask before this time
APP_RERUN = "class.app_rerun"  # a callback inside a fragment asks for a full rerun
TRIED = "class.tried"          # join-page parameters already tried (not retried on rerun)
STEP_FRAGMENT = "class.step_fragment"    # the id of the Train page's step fragment (see rerun_fragments)
PANEL_FRAGMENT = "class.panel_fragment"  # the id of a student's class panel fragment (banner, question)

#: Seconds between polls (the students' fragment timer).
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
def sid() -> str:
    if SID not in ss:
        ss[SID] = secrets.token_urlsafe(12)
    return ss[SID]


def role() -> str | None:
    return ss.get(ROLE)


def current() -> ClassState | None:
    return ss.get(CLASS) if role() else None


def error() -> str | None:
    return ss.get(ERROR)


def following() -> bool:
    return role() == "student" and bool(ss.get(FOLLOW))


def take_app_rerun() -> bool:
    return bool(ss.pop(APP_RERUN, False))


def notice() -> str | None:
    return ss.get(NOTICE)


def _call(fn: Callable[[], T], *, into: str = NOTICE) -> T | None:
    """Run one store call; a class error becomes a message under ``into`` (ERROR for
    polls, NOTICE for actions) and None is returned."""
    try:
        result = fn()
    except StoreUnavailable as exc:
        ss[PAUSED_UNTIL] = time.monotonic() + PAUSE_SECONDS
        ss[into] = str(exc)
        return None
    except (ClassError, RateLimited) as exc:
        ss[into] = str(exc)
        if isinstance(exc, ClassNotFound) and role():
            ss[ROLE] = None  # the class is gone: stop polling it
            ss[ERROR] = str(exc)
        return None
    ss[into] = None
    ss.pop(PAUSED_UNTIL, None)
    return result


def _enter(role_name: str, state: ClassState, token: str | None = None) -> None:
    ss[ROLE], ss[CODE], ss[CLASS], ss[TOKEN] = role_name, state.code, state, token
    ss[FOLLOW], ss[APPLIED], ss[PUSHED] = role_name == "student", None, None
    ss[ERROR] = ss[NOTICE] = None


def _load_class_corpus(state: ClassState) -> None:
    """Put the class's corpus and settings on this tab's Train page (trained on its next run)."""
    train_state.init()
    params = logic.snapshot_params(state.snapshot)
    if params:
        train_state.restore_from_link(params)
        train_state.stop_playing()


# ---- the instructor -------------------------------------------------------------------------
def start_class() -> None:
    """Start a class on the Train page's current run and step (a button's callback)."""
    corpus, settings = train_state.active_corpus()
    view = train_state.current_view()
    try:
        snapshot = logic.class_snapshot(corpus, settings, view.key)
    except ValueError as exc:
        ss[NOTICE] = str(exc)
        return
    store = class_store()
    keys = _call(lambda: store.create_class(snapshot, session=sid()))
    if keys is None:
        return
    state = _call(lambda: store.set_step(keys.code, train_state.step(), instructor_token=keys.instructor_token))
    if state is None:  # the store went away just now; the unused class expires by itself
        return
    _enter("instructor", state, keys.instructor_token)
    ss[PUSHED] = state.step


def take_control(code: str, token: str) -> bool:
    """Open the instructor link: take control of the class if the token is its own."""
    store = class_store()
    if not _call(lambda: store.is_instructor(code, token)):
        if ss.get(NOTICE) is None:
            ss[NOTICE] = "This instructor link does not control that class: use the link from the class's own page."
        return False
    state = _call(lambda: store.poll(code, session=sid()))
    if state is None:
        return False
    _load_class_corpus(state)
    _enter("instructor", state, token)
    request_train_step(state.step)  # the Train page shows it once the run is ready
    return True


def push_step(view: RunView, k: int) -> None:
    """The instructor's page is at step k: tell the class (only for the class's own run)."""
    state = current()
    if role() != "instructor" or state is None or k == ss.get(PUSHED):
        return
    if view.key != logic.snapshot_run(state.snapshot):
        return
    if ss.get(PAUSED_UNTIL, 0) > time.monotonic():
        return
    new = _call(lambda: class_store().set_step(state.code, k, instructor_token=ss[TOKEN]), into=ERROR)
    if new is not None:
        ss[CLASS], ss[PUSHED] = new, k


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
    new = _call(lambda: change(class_store(), state.code, ss[TOKEN]))
    if new is not None:
        ss[CLASS] = new
        ss[APP_RERUN] = True  # the answers' timer runs only while a question is open


def open_question() -> None:
    view, k = train_state.current_view(), train_state.step()
    state = current()
    if state is None:
        return
    options = logic.question_options(view, k, state.code)
    if len(options) < 2:
        ss[NOTICE] = "There is nothing to ask at this step: fewer than two pairs are left. Step back first."
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
        ss[NOTICE] = "Go back to the class's corpus and settings to reveal the answer."
        return
    options = logic.question_options(view, q.step, state.code)
    correct = [c for c in logic.correct_options(view, q.step, options) if c in q.options]
    _instructor_change(lambda s, code, tok: s.reveal(code, correct, instructor_token=tok))


def close_question() -> None:
    _instructor_change(lambda s, code, tok: s.close_question(code, instructor_token=tok))


def end_class() -> None:
    state = current()
    if role() == "instructor" and state is not None:
        _call(lambda: class_store().end_class(state.code, instructor_token=ss[TOKEN]))
    leave()


def tally():
    """The answers to the current question (instructor: any time; others: once revealed)."""
    state = current()
    if state is None or state.question is None:
        return None
    return _call(lambda: class_store().tally(state.code, instructor_token=ss.get(TOKEN)), into=ERROR)


# ---- students -------------------------------------------------------------------------------
def note_step_fragment() -> None:
    """Called from inside the Train page's step fragment: remember its id, so a following
    student's poll can rerun that fragment alone when the class's step changes."""
    note_fragment(STEP_FRAGMENT)


def note_fragment(key: str) -> None:
    """Called from inside a fragment: keep its id under `key` (for `rerun_fragments`)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState
        fragment_id = ThreadState.get().fragment_id
    except (ImportError, AttributeError):  # another Streamlit: the poll reruns the page instead
        return
    if fragment_id:
        ss[key] = fragment_id


def rerun_step_area() -> None:
    """Rerun the Train page's step fragment alone (see `rerun_fragments`)."""
    rerun_fragments([STEP_FRAGMENT])


def rerun_fragments(keys: list[str]) -> None:
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
    ids = [ss.get(key) for key in keys]
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
    state = _call(lambda: class_store().join(code_or_token, session=sid()))
    if state is None:
        return False
    _load_class_corpus(state)
    _enter("student", state)
    ss[NICK] = nick
    return True


def leave() -> None:
    for key in (ROLE, CODE, TOKEN, CLASS, APPLIED, PUSHED, PAUSED_UNTIL, NOTICE):
        ss.pop(key, None)
    ss[FOLLOW] = False
    ss[APP_RERUN] = True


def poll() -> tuple[ClassState | None, bool]:
    """(the class state, whether it changed since the last poll). Paused while the store
    is away (the previous state is returned, unchanged)."""
    state = current()
    if state is None:
        return None, False
    if ss.get(PAUSED_UNTIL, 0) > time.monotonic():
        return state, False
    new = _call(lambda: class_store().poll(state.code, session=sid(), since=state.version), into=ERROR)
    if new is None:
        return current(), False
    ss[CLASS] = new
    return new, True


def class_step_applies(view: RunView) -> bool:
    """Whether this tab shows the class's run (so the class's step can be put on it)."""
    state = current()
    return state is not None and view.key == logic.snapshot_run(state.snapshot)


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
        ss[FOLLOW] = False
        return False
    target = min(state.step, view.steps)
    ss[APPLIED] = target
    if train_state.step() == target:
        return False
    train_state.stop_playing()
    train_state.set_step(target)
    return True


#: The Train page's own stepping buttons: a following student who clicks one explores alone.
OWN_STEP_BUTTONS = ("train_w_btn_step", "train_w_btn_back", "train_w_btn_reset", "train_w_btn_play", "train_w_btn_next")


def clicked_own_step() -> bool:
    """Whether this run started with a click on one of the page's stepping buttons (a
    button is True only in the run its click started, so a stale value never counts)."""
    return any(ss.get(key) is True for key in OWN_STEP_BUTTONS)


def detach() -> None:
    ss[FOLLOW] = False


def rejoin() -> None:
    """Follow the class again, at its step (reloading its corpus if this tab changed it)."""
    state = current()
    if state is None:
        return
    view = train_state.current_view()
    if view.key != logic.snapshot_run(state.snapshot):
        _load_class_corpus(state)
    ss[FOLLOW], ss[APPLIED] = True, None
    ss[APP_RERUN] = True


def answer(option: str) -> None:
    state = current()
    if state is None or state.question is None:
        return
    number = state.question.number
    done = _call(lambda: class_store().answer(state.code, option, session=sid(),
                                              nickname=ss.get(NICK), question=number) or True)
    if done:
        ss[ANSWERED] = {**ss.get(ANSWERED, {}), (state.code, number): option}


def my_answer() -> str | None:
    """The option this tab sent for the current question (kept in the session: no store call)."""
    state = current()
    if state is None or state.question is None:
        return None
    return ss.get(ANSWERED, {}).get((state.code, state.question.number))
