"""A text area that applies as the user types (debounced), with an "updating" mark.

Streamlit's `st.text_area` sends its value on Ctrl+Enter or when it loses focus, never
per keystroke. `live_text(input_key, output_key)` mounts a tiny `st.components.v2`
component (inline JavaScript, `live_text.js`, no build step, nothing fetched) that
listens to the text area whose widget key is `input_key`: after a pause in typing
(`DELAY_MS`, longer for long text, at most `MAX_DELAY_MS`) or at once after a paste, it
applies the text the way Streamlit's own Ctrl+Enter does. The text area stays Streamlit's
widget (label, help, state, the paste path), so a page keeps reading it as before.

Until the page has drawn the new text, the keyed container `output_key` carries the
attribute `data-bpe-stale`; `stale_css` dims it and writes "Updating…" above it, so
tokens drawn from the old text never sit beside new text unmarked. Call `live_text`
after the output is drawn (at the end of the page): each run hands it the length of the
text it drew, and the mark goes when that matches what the box holds.

What it leaves out: browsers without JavaScript (the text area then applies on Ctrl+Enter
or blur, as before). AppTest runs no JavaScript: it sees the component's data only.
"""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui.shared.state import Key

__all__ = ["DELAY_MS", "MAX_DELAY_MS", "stale_css", "live_text", "utf16_length"]

#: Pause in typing before the text is applied, in ms (plus 1 ms per 100 characters).
DELAY_MS = 300
#: The longest pause waited for, in ms (a long text reruns slower, so typing waits longer).
MAX_DELAY_MS = 1200

_JS = (Path(__file__).with_name("live_text.js")).read_text(encoding="utf-8")
_component = st.components.v2.component("bpe_live_text", js=_JS)


def stale_css(output_key: str) -> str:
    """The "updating" look of the keyed container `output_key` while its text is stale."""
    box = f".st-key-{output_key}[data-bpe-stale]"
    return (
        f"{box} {{ position: relative; }}\n"
        f"{box} > * {{ opacity: .45; transition: opacity .2s; }}\n"
        f'{box}::before {{ content: "Updating…"; position: absolute; z-index: 2; top: .1rem; right: 0; '
        "padding: .1rem .55rem; border-radius: .3rem; background: #0B3C8C; color: #fff; "
        "font-size: .85rem; font-weight: 600; }\n"
        f"@media (prefers-reduced-motion: reduce) {{ {box} > * {{ transition: none; }} }}\n"
    )


def utf16_length(text: str) -> int:
    """The text's length as JavaScript counts it (UTF-16 code units).

    >>> utf16_length("a😀")
    3
    """
    return len(text.encode("utf-16-le", errors="surrogatepass")) // 2


def live_text(input_key: str, output_key: str, text: str, *, key: str, runs_key: Key[int]) -> None:
    """Mount the typing helper for the text area `input_key`, whose current `text` the
    container `output_key` shows. Draws nothing visible. `runs_key` counts the page's runs
    (the helper tells a new run from a repeated message)."""
    runs = runs_key.get() + 1
    runs_key.set(runs)
    _component(
        key=key, height=0,
        data={"run": runs, "input": input_key, "output": output_key, "length": utf16_length(text),
              "delay": DELAY_MS, "maxDelay": MAX_DELAY_MS},
    )
