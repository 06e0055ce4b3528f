"""Class mode's hook in the Train page's step fragment (kept apart so the page imports little).

Left out: drawing (panels.py) and the store calls themselves (session.py).
"""
from __future__ import annotations

import streamlit as st

from ui.classmode import session
from ui.train.run_view import RunView


def after_step(view: RunView, k: int) -> None:
    """The step fragment has drawn step k: an instructor's page sends it to the class; a
    following student who clicked a stepping button this run stops following (a button
    is True only in the run its click started, so a stale value from the browser never
    detaches anyone)."""
    role = session.role()
    if role == "student":
        session.note_step_fragment()  # a new class step reruns this fragment alone
    if role == "instructor":
        before = (session.role(), session.outage())
        session.push_step(view, k)
        changed = (session.role(), session.outage()) != before
        if session.take_qr_fold() or changed:
            # the store went away, came back, or the class is gone: the panel at the top
            # says so (and runs its retry timer); or the class is under way and its QR
            # code folds (asked once). The panel is drawn by full runs only.
            st.rerun(scope="app")
    elif role == "student" and session.following():
        if session.clicked_own_step():
            session.detach()


def before_step(view: RunView) -> None:
    """The step fragment starts a run of its own (not inside a full run of the page): a
    following student's session is woken by the class's change straight into its step
    area (`session.wake_me`), so read the class here and put its step on the page, as
    the poll fragment does (one script run per student per step, not a poll's run and
    then the step area's)."""
    if not session.following() or not session.fragment_run():
        return
    state, _changed = session.poll()
    if session.role() is None or state is None:  # the class ended or expired
        st.rerun(scope="app")  # the next full run says why
    session.apply_class_step(view)
    session.wake_me()  # registered again with the version just read


def after_draw(view: RunView) -> None:
    """The step fragment has drawn everything (its last call): a student's class panel
    that no longer says what holds (a question opened or revealed, the student stopped
    following) is rerun, alone."""
    if session.role() != "student" or not session.fragment_run():
        return
    from ui.classmode import panels  # (panels draws; this module stays light)
    if panels.panel_stale(view):
        session.rerun_fragments([session.PANEL_FRAGMENT])


def hides_next(view: RunView, k: int) -> bool:
    """Whether the Train page must hide the counts and the next pair at step k: a class
    question about merge k+1 is open or waiting for its reveal on this tab's class run
    (the instructor's projected page and every student's, following or not)."""
    hidden = session.question_pending(view, k)
    session.note_hidden(hidden)  # a student's poll reruns the step area when this changes
    return hidden
