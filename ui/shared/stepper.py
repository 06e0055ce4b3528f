"""The replay stepper: Start, Back, Next and End buttons and a slider over merges 0..n.

The Tokenize page replays a piece of text (`ui/tokenize/widgets.py`) and a file model's
word (`ui/tokenize/explain.py`) with it. The step is kept in a non-widget key (the store, a
`ui.shared.state.Key`), so it survives the slider not being drawn; the buttons and the
slider write to the store in their callbacks, and the caller reads it back with
`clamped_step`.
"""
from __future__ import annotations

import streamlit as st

from ui.shared.state import Key


def clamped_step(store: Key[int], n: int) -> int:
    """The stored step, kept within 0..n (the piece may have changed since it was set)."""
    k = min(max(store.get(), 0), n)
    store.set(k)
    return k


def _step_to(store: Key[int], value: int) -> None:
    store.set(value)


def step_controls(k: int, n: int, *, store: Key[int], prefix: str, slider_key: str) -> None:
    """Draw the buttons (keys `prefix` + first, prev, next, last; ← and → for Back and
    Next) and the slider (key `slider_key`) at step `k` of `n` merges (`k`: the stored step,
    from `clamped_step`)."""
    b = st.columns([1, 1.3, 1.3, 1, 3.4], vertical_alignment="center")
    b[0].button("Start", key=prefix + "first", on_click=_step_to, args=(store, 0), disabled=k == 0,
                width="stretch", icon=":material/first_page:")
    b[1].button("Back", key=prefix + "prev", on_click=_step_to, args=(store, k - 1), disabled=k == 0,
                width="stretch", icon=":material/chevron_left:", shortcut="Left")
    b[2].button("Next", key=prefix + "next", on_click=_step_to, args=(store, k + 1), disabled=k == n,
                width="stretch", type="primary", icon=":material/chevron_right:", icon_position="right",
                shortcut="Right")
    b[3].button("End", key=prefix + "last", on_click=_step_to, args=(store, n), disabled=k == n,
                width="stretch", icon=":material/last_page:", icon_position="right")
    b[4].slider("Merge", 0, n, label_visibility="collapsed", **store.widget(slider_key))
