"""Session state, behind one small API: every key is a declared `Key`.

The Train page publishes the session's training run and its current step; the
Tokenize and Vocabulary-size pages read them. Keys are namespaced ("shared.*"), and
only plain values and immutable results are stored (the run is a frozen TrainingRun,
shared read-only), so per-session state stays small.

Every key a page keeps is declared once, in that page's keys module, as a `Key` (one value,
with its type and default: `STEP: Key[int] = Key("train.step", 0)`, then `STEP.get()`,
`STEP.set(3)`) or a `KeyFamily` (keys made at run time under one prefix: a widget key
`train_w_<name>`, a quiz answer `quiz.answer.<id>`; `FAMILY.key(name, default)` gives the
`Key`). Pages read and write only through these methods: this module is the only one that
touches `st.session_state` (tests/test_state_keys.py reads the source of ui/, views/ and
app.py and fails on any other use, or on a widget key that is not declared).

Streamlit deletes a widget's value when a run does not draw the widget (another page, a
folded box, a shut tab), so a value that must survive lives in a store key and the widget
is drawn with `**STORE.widget(widget_key)`: the stored value is copied into the widget key
before the widget is drawn, and the widget's on_change copies its new value back.
"""
from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import streamlit as st

from bpe_core import TrainingRun, Tokenizer
from ui.shared.markdown import md_escape

T = TypeVar("T")

#: Every declared key and key family: name -> the module that declares it.
_DECLARED: dict[str, str] = {}
_FAMILIES: dict[str, str] = {}


def _declare(table: dict[str, str], name: str, what: str) -> None:
    owner = sys._getframe(2).f_globals.get("__name__", "?")  # the module holding the declaration
    held = table.get(name)
    if held is not None and held != owner:
        raise ValueError(f"session-state {what} {name!r} is declared twice ({held} and {owner}): "
                         "give one of them another name")
    table[name] = owner


_UNSET: Any = object()


class Key(str, Generic[T]):
    """A session-state key declared once, with the type and default of its value.

    A `str` (the name Streamlit stores it under); `get`, `set`, `pop`, `init` and `is_set`
    read and write through it, `widget` keeps a widget's value in it. Declaring the same
    name in two modules is a ValueError.
    """

    default: T

    def __new__(cls, name: str, default: T = None):  # type: ignore[assignment]
        key = cls._made(name, default)
        _declare(_DECLARED, name, "key")
        return key

    @classmethod
    def _made(cls, name: str, default: T) -> Key[T]:
        key = super().__new__(cls, name)
        key.default = default
        return key

    def __reduce__(self):  # a copy or a pickle is the plain name (declared once, here)
        return str, (str(self),)

    def get(self) -> T:
        """The value, or the default when the session has none yet."""
        return st.session_state.get(self, self.default)

    def set(self, value: T) -> None:
        st.session_state[self] = value

    def pop(self) -> T:
        """Remove the value and return it (the default when there was none)."""
        return st.session_state.pop(self, self.default)

    def init(self) -> T:
        """Store the default unless the session has a value (a list, dict or set default
        is copied, so sessions never share one); return the value."""
        if self not in st.session_state:
            default = self.default
            st.session_state[self] = copy.copy(default) if isinstance(default, (list, dict, set)) else default
        return st.session_state[self]

    def is_set(self) -> bool:
        return self in st.session_state

    def widget(self, widget_key: str, default: T = _UNSET, *, valid: Callable[[T], bool] | None = None,
               on_change: Callable[..., None] | None = None, args: tuple = ()) -> dict:
        """The `key`, `on_change` and `args` of a widget whose value is kept in this key, so it
        survives runs that do not draw the widget: `st.slider(..., **STEP.widget("train_w_step"))`.

        The stored value (`default`, else the key's default, when there is none; also when
        `valid` refuses the stored one, e.g. a word of another corpus) is copied into the widget
        key unless the widget holds it already (a value written to a widget key is sent to the
        browser again: for a text area, the whole paste at every rerun); the widget's on_change
        copies its new value back, then calls `on_change(*args)` if given (what else a change
        does: the Train page's corpus choice also starts again at step 0).
        """
        if valid is not None and self.is_set() and not valid(st.session_state[self]):
            del st.session_state[self]
        if self not in st.session_state:
            st.session_state[self] = self.default if default is _UNSET else default
        value = st.session_state[self]
        held = st.session_state.get(widget_key, _UNSET)
        if type(held) is not type(value) or held != value:
            st.session_state[widget_key] = value
        return {"key": widget_key, "on_change": _keep, "args": (widget_key, self, on_change, *args)}


def _keep(widget_key: str, store: str, then: Callable[..., None] | None = None, *args: Any) -> None:
    """A kept widget's on_change: its new value goes to its store, then `then(*args)`."""
    st.session_state[store] = st.session_state[widget_key]
    if then is not None:
        then(*args)


class KeyFamily(str):
    """A prefix under which keys are made at run time (`family + name`), declared once:
    a page's widget keys (`tokenize_w_`), a quiz's answers (`quiz.answer.`).
    `FAMILY.key(name, default)` is the `Key` of one of them."""

    def __new__(cls, prefix: str):
        family = super().__new__(cls, prefix)
        _declare(_FAMILIES, prefix, "key family")
        return family

    def __reduce__(self):
        return str, (str(self),)

    def key(self, name: str, default: Any = None) -> Key[Any]:
        """The key `family + name` (declared by the family), with its default."""
        return Key._made(self + name, default)


def declared_keys() -> dict[str, str]:
    """Each declared key's name and the module that declares it."""
    return dict(_DECLARED)


def declared_families() -> dict[str, str]:
    """Each declared key family's prefix and the module that declares it."""
    return dict(_FAMILIES)


def is_declared(name: str) -> bool:
    """Whether `name` is a declared key or lies under a declared key family."""
    return name in _DECLARED or any(name.startswith(prefix) for prefix in _FAMILIES)


# ---- the keys shared by every page ---------------------------------------------------------
RUN_KEY: Key[TrainingRun | None] = Key("shared.run", None)
STEP_KEY: Key[int] = Key("shared.step", 0)
LABEL_KEY: Key[str] = Key("shared.label", "")
CAPTION_DRAWN: Key[bool] = Key("shared.caption_drawn", False)  # this run's sidebar caption is drawn already
GOTO_STEP_KEY: Key[int | None] = Key("shared.goto_step", None)  # another page asks the Train page to show this step


def request_train_step(step: int) -> None:
    """Ask the Train page to open its current run at `step` (the Tokenize page's replay
    links to the training step that learned a merge)."""
    GOTO_STEP_KEY.set(step)


def take_train_step_request() -> int | None:
    """The step another page asked for, once (the Train page reads it as it opens)."""
    return GOTO_STEP_KEY.pop()


def publish_run(run: TrainingRun, step: int, label: str) -> None:
    """The Train page calls this whenever its run or step changes."""
    RUN_KEY.set(run)
    STEP_KEY.set(step)
    LABEL_KEY.set(label)


def session_run() -> TrainingRun | None:
    return RUN_KEY.get()


def session_step() -> int:
    run = session_run()
    step = STEP_KEY.get()
    return min(step, run.steps) if run is not None else 0


def session_label() -> str:
    return LABEL_KEY.get()


def sidebar_caption_text(*, following: bool = False) -> str:
    """The sidebar's line about the session's tokenizer (run and step); ``following``: a
    student following a class, whose step moves with the instructor's (the line names no
    step, so the class's steps need not redraw it)."""
    run = session_run()
    if run is None:
        return "No tokenizer trained yet in this session: the Train page makes one."
    if following:
        return f"Your tokenizer: {session_label()}, at the step your class is on."
    return (
        f"Your tokenizer: {session_label()} — step {session_step()} of {run.steps}, "
        f"vocabulary {run.vocab_size(session_step())}."
    )


def sidebar_caption(*, following: bool = False) -> None:
    """Draw the caption in the sidebar.

    The router (app.py) draws it after each page, unless the page drew it already: the
    Train page draws it from its step fragment, so that stepping, which reruns only the
    fragment, updates the sidebar too (a fragment may write to the sidebar). A student
    following a class gets the line without a step, drawn by the page's full run: written
    from the fragment, the line costs each woken student two elements more at every step
    (the line and the sidebar box Streamlit sends again for a fragment's write outside it).
    """
    with st.sidebar:
        st.caption(md_escape(sidebar_caption_text(following=following)))
    CAPTION_DRAWN.set(True)


def session_tokenizer() -> Tokenizer | None:
    """The session's trained tokenizer at the Train page's current step, if any."""
    run = session_run()
    return None if run is None else run.tokenizer(session_step())


def folded(label: str, key: str, *, reopen: bool = False, **kwargs):
    """An expander whose contents the caller draws only while it is open: keyed, opening
    it reruns the page, so a first visit renders no widget (nor fetches its script) out of
    sight. `reopen`: open it by itself when the page is visited again (Streamlit drops the
    box's state when the reader leaves the page), e.g. because it holds what they typed.
    Returns the expander, or None while it is shut."""
    if reopen and key not in st.session_state:
        st.session_state[key] = True
    box = st.expander(label, key=key, on_change="rerun", **kwargs)
    return box if box.open else None
