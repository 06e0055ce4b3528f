"""Class mode's hook in the Train page's step fragment (kept apart so the page imports little).

Left out: drawing (panels.py) and the store calls themselves (session.py).
"""
from __future__ import annotations

from ui.classmode import session
from ui.train.render import RunView


def after_step(view: RunView, k: int) -> None:
    """The step fragment has drawn step k: an instructor's page sends it to the class; a
    following student who clicked a stepping button this run stops following (a button
    is True only in the run its click started, so a stale value from the browser never
    detaches anyone)."""
    role = session.role()
    if role == "student":
        session.note_step_fragment()  # a new class step reruns this fragment alone
    if role == "instructor":
        session.push_step(view, k)
    elif role == "student" and session.following():
        if session.clicked_own_step():
            session.detach()
