"""Session state shared between pages, behind a few small functions.

The Train page publishes the session's training run and its current step; the
Tokenize and Vocabulary-size pages read them. Keys are namespaced ("shared.*"), and
only plain values and immutable results are stored (the run is a frozen TrainingRun,
shared read-only), so per-session state stays small.

Streamlit deletes a widget's value when a page that does not draw the widget runs, so
pages keep the real value under a non-widget key and copy it into the widget key each
run (`persist`), writing it back in the widget's on_change (`remember`).
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from bpe_core import TrainingRun, Tokenizer
from ui.shared.markdown import md_escape

RUN_KEY = "shared.run"
STEP_KEY = "shared.step"
LABEL_KEY = "shared.label"
CAPTION_DRAWN = "shared.caption_drawn"  # this run's sidebar caption is drawn already
GOTO_STEP_KEY = "shared.goto_step"  # another page asks the Train page to show this step


def request_train_step(step: int) -> None:
    """Ask the Train page to open its current run at `step` (the Tokenize page's replay
    links to the training step that learned a merge)."""
    st.session_state[GOTO_STEP_KEY] = step


def take_train_step_request() -> int | None:
    """The step another page asked for, once (the Train page reads it as it opens)."""
    return st.session_state.pop(GOTO_STEP_KEY, None)


def publish_run(run: TrainingRun, step: int, label: str) -> None:
    """The Train page calls this whenever its run or step changes."""
    st.session_state[RUN_KEY] = run
    st.session_state[STEP_KEY] = step
    st.session_state[LABEL_KEY] = label


def session_run() -> TrainingRun | None:
    return st.session_state.get(RUN_KEY)


def session_step() -> int:
    run = session_run()
    step = st.session_state.get(STEP_KEY, 0)
    return min(step, run.steps) if run is not None else 0


def session_label() -> str:
    return st.session_state.get(LABEL_KEY, "")


def sidebar_caption_text() -> str:
    """The sidebar's line about the session's tokenizer (run and step)."""
    run = session_run()
    if run is None:
        return "No tokenizer trained yet in this session: the Train page makes one."
    return (
        f"Your tokenizer: {session_label()} — step {session_step()} of {run.steps}, "
        f"vocabulary {run.vocab_size(session_step())}."
    )


def sidebar_caption() -> None:
    """Draw the caption in the sidebar.

    The router (app.py) draws it after each page, unless the page drew it already: the
    Train page draws it from its step fragment, so that stepping, which reruns only the
    fragment, updates the sidebar too (a fragment may write to the sidebar).
    """
    with st.sidebar:
        st.caption(md_escape(sidebar_caption_text()))
    st.session_state[CAPTION_DRAWN] = True


def session_tokenizer() -> Tokenizer | None:
    """The session's trained tokenizer at the Train page's current step, if any."""
    run = session_run()
    return None if run is None else run.tokenizer(session_step())


def persist(widget_key: str, store_key: str, default: Any) -> None:
    """Before drawing a widget: make sure the stored value exists and copy it into the
    widget's key, so it survives visits to other pages."""
    if store_key not in st.session_state:
        st.session_state[store_key] = default
    st.session_state[widget_key] = st.session_state[store_key]


def remember(widget_key: str, store_key: str) -> None:
    """on_change callback: copy the widget's new value to its store."""
    st.session_state[store_key] = st.session_state[widget_key]


def stored(widget_key: str, store_key: str, default: Any) -> dict:
    """A widget kept in a store: copy the stored value into the widget key (`persist`) and
    return the widget's key and callback arguments, so its value survives the widget not
    being drawn (a folded box, another page)."""
    persist(widget_key, store_key, default)
    return dict(key=widget_key, on_change=remember, args=(widget_key, store_key))


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
