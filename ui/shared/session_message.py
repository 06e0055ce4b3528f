"""Streamlit's per-run `new_session` message, with its theme read once per process.

At the start of every script run, a fragment's rerun included, Streamlit sends the browser
a `new_session` message. Building it reads the app's theme six times (the `[theme]`
section and five sub-sections), and each read walks every one of Streamlit's ~200 config
options (`config.get_options_for_section`). In a class of 150 following students that was
6% of the server's CPU at each step, for a message whose theme part never changes while
the server runs (py-spy, docs/class_mode.md "Load").

`install()` wraps Streamlit 1.67's `app_session._populate_theme_msg` so that each section
is built once, by Streamlit's own function, and then copied (a protobuf merge of the bytes
it produced). The copy is keyed by the section and by Streamlit's config object: when the
config files are read again (Streamlit replaces that object), each section is built afresh.
A section Streamlit leaves unset (every option None) stays unset, so the message is the
same, byte for byte, as Streamlit's (`tests/test_session_message.py` checks it).

No theme option can be changed while the server runs (none is `scriptable`: `st.set_option`
refuses them), so the config object's identity is all that can change what a section holds.

Process-wide and idempotent: the first browser tab's first script run installs it; later calls do
nothing. If Streamlit's internals are not there (another version), nothing is changed.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

__all__ = ["install", "installed"]

_lock = threading.Lock()
_installed = False
#: At most this many (section, config object) entries: six sections per config reading.
MAX_ENTRIES = 64


def _memoized(original: Callable[..., None], config: Any) -> Callable[..., None]:
    cache: dict[tuple[str, int], bytes] = {}

    def populate_theme_msg(msg: Any, section: str = "theme") -> None:
        key = (section, id(config.get_config_options()))
        data = cache.get(key)
        if data is None:
            fresh = type(msg)()
            original(fresh, section)
            data = fresh.SerializeToString()
            with _lock:
                if len(cache) >= MAX_ENTRIES:
                    cache.clear()
                cache[key] = data
        if data:  # an unset section stays unset (a merge of nothing would mark it set)
            msg.MergeFromString(data)

    populate_theme_msg.__wrapped__ = original  # type: ignore[attr-defined]
    return populate_theme_msg


def install() -> bool:
    """Build the theme part of `new_session` once per process. True when installed (now
    or before)."""
    global _installed
    if _installed:
        return True
    with _lock:
        if _installed:
            return True
        try:
            from streamlit import config
            from streamlit.runtime import app_session
            original = app_session._populate_theme_msg
        except (ImportError, AttributeError):
            return False
        if not callable(original) or not callable(getattr(config, "get_config_options", None)):
            return False
        app_session._populate_theme_msg = _memoized(original, config)  # type: ignore[attr-defined]
        _installed = True
        return True


def installed() -> bool:
    return _installed
