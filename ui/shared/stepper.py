"""The replay stepper: Start, Back, Next and End buttons and a slider over merges 0..n.

The Tokenize page replays a piece of text (`ui/tokenize/widgets.py`) and a file model's
word (`ui/tokenize/explain.py`) with it. The step is kept under a non-widget key (the
store), so it survives the slider not being drawn; the buttons and the slider write to
the store in their callbacks, and the caller reads it back with `clamped_step`.
"""
from __future__ import annotations

import streamlit as st

from ui.shared.state import remember


def clamped_step(store_key: str, n: int) -> int:
    """The stored step, kept within 0..n (the piece may have changed since it was set)."""
    k = min(max(st.session_state.get(store_key, 0), 0), n)
    st.session_state[store_key] = k
    return k


def _step_to(store_key: str, value: int) -> None:
    st.session_state[store_key] = value


def step_controls(k: int, n: int, *, store_key: str, prefix: str, slider_key: str) -> None:
    """Draw the buttons (keys `prefix` + first, prev, next, last; ← and → for Back and
    Next) and the slider (key `slider_key`) at step `k` of `n` merges."""
    b = st.columns([1, 1.3, 1.3, 1, 3.4], vertical_alignment="center")
    b[0].button("Start", key=prefix + "first", on_click=_step_to, args=(store_key, 0), disabled=k == 0,
                width="stretch", icon=":material/first_page:")
    b[1].button("Back", key=prefix + "prev", on_click=_step_to, args=(store_key, k - 1), disabled=k == 0,
                width="stretch", icon=":material/chevron_left:", shortcut="Left")
    b[2].button("Next", key=prefix + "next", on_click=_step_to, args=(store_key, k + 1), disabled=k == n,
                width="stretch", type="primary", icon=":material/chevron_right:", icon_position="right",
                shortcut="Right")
    b[3].button("End", key=prefix + "last", on_click=_step_to, args=(store_key, n), disabled=k == n,
                width="stretch", icon=":material/last_page:", icon_position="right")
    st.session_state[slider_key] = k
    b[4].slider("Merge", 0, n, key=slider_key, on_change=remember, args=(slider_key, store_key),
                label_visibility="collapsed")
