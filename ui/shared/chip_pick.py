"""Chips that open something: a click, a tap, or Enter / Space on a focused chip.

`st.html` drops scripts and event handlers, so the chips themselves (ui/shared/chips.py)
stay plain markup. `chip_pick(scope, key=..., on_pick=...)` mounts a tiny
`st.components.v2` component (inline JavaScript, `chip_pick.js`, no build step, nothing
fetched) with one listener on the page: a chip picked in a run inside the keyed container
`scope` (a run matching the CSS selector `runs`) calls `on_pick(i, run)` with the chip's
place in its run and the run's place among the scope's runs, in a callback (before the
rerun draws). Chips drawn with `tap=True` are focusable, so the keyboard picks too.

Reusable by any page: draw the chips inside `st.container(key=scope)`, call `chip_pick`
once per run of the page (anywhere), and map `(i, run)` to what the chip stands for (the
Tokenize page: the token whose replay opens).

What it leaves out: browsers without JavaScript (a click then only focuses the chip and
shows its title). AppTest runs no JavaScript: tests call the callback themselves.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st

from ui.shared.state import Key

__all__ = ["chip_pick", "pick_of"]

_JS = (Path(__file__).with_name("chip_pick.js")).read_text(encoding="utf-8")
_component = st.components.v2.component("bpe_chip_pick", js=_JS)


def pick_of(value) -> tuple[int, int] | None:
    """The chip picked, as (i, run), from the component's state (sent by the browser, so
    checked like any input).

    >>> pick_of({"pick": {"i": 3, "run": 0}}), pick_of({"pick": {"i": -1}}), pick_of({"pick": "x"}), pick_of(None)
    ((3, 0), None, None, None)
    """
    pick = getattr(value, "pick", None)
    if pick is None and isinstance(value, dict):
        pick = value.get("pick")
    if not isinstance(pick, dict):
        return None
    i, run = pick.get("i"), pick.get("run", 0)
    if type(i) is not int or type(run) is not int or i < 0 or run < 0:
        return None
    return i, run


def chip_pick(scope: str, *, key: Key[Any], on_pick: Callable[[int, int], None], runs: str = ".bpe-tokens") -> None:
    """Mount the chip listener for the keyed container `scope` (its state, what was picked,
    under the widget key `key`). Draws nothing visible."""
    def changed() -> None:
        found = pick_of(key.get())
        if found is not None:
            on_pick(*found)

    _component(key=key, height=0, data={"scope": scope, "runs": runs}, on_pick_change=changed)
