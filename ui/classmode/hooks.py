"""Class mode's hook in the Train page's step fragment (kept apart so the page imports little).

Left out: drawing (panels.py) and the store calls themselves (session.py).
"""
from __future__ import annotations

from ui.classmode import session
from ui.train.render import RunView


def after_step(view: RunView, k: int) -> None:
    """The step fragment has drawn step k: an instructor's page sends it to the class."""
    if session.role() == "instructor":
        session.push_step(view, k)
