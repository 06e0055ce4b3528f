"""The Vocabulary explorer's session state: every key it keeps, declared once
(ui.shared.state.Key). `SETTINGS` are the values a link or a widget sets by name
(`explorer.<name>`, widget `explorer_w_<name>`)."""
from __future__ import annotations

from typing import Any

from ui.explorer.logic import DEFAULT, REAL_NAMES
from ui.shared.state import Key, KeyFamily

ANY = "any"
LENGTH_MAX = 64

#: Every widget key of the page: `explorer_w_<name>`.
WIDGETS = KeyFamily("explorer_w_")

_DEFAULTS: dict[str, Any] = {
    "tokenizer": DEFAULT, "id": None, "q": "", "mode": "substring", "view": "search", "page": 1,
    "sort": "id", "desc": False, "script": ANY, "chars": (0, LENGTH_MAX), "bytes": (0, LENGTH_MAX),
    "space": ANY, "digits": ANY, "whitespace": False, "fragment": ANY, "special": ANY, "continues": ANY,
    "other": "o200k_base" if "o200k_base" in REAL_NAMES else REAL_NAMES[-1], "cmp_by": "script", "unit": "characters",
}
SETTINGS: dict[str, Key[Any]] = {name: Key("explorer." + name, value) for name, value in _DEFAULTS.items()}

URL_WRITTEN: Key[dict | None] = Key("explorer.url_written", None)   # the query parameters the page wrote last
URL_WARNINGS: Key[list[str]] = Key("explorer.url_warnings", [])     # what a link's parameters got wrong
SESSION_INDEX: Key[tuple | None] = Key("explorer.session_index", None)  # (tokenizer, index) of this session's own
PICK_FIRST: Key[bool] = Key("explorer.pick_first", False)           # show the first result of the next search
ODD: Key[dict] = Key("explorer.odd", {})                             # (tokenizer id, which) -> odd tokens found
#: "Find the odd tokens" was asked for: `explorer.odd_asked.<name>.<which>.<tokenizer id>`
ODD_ASKED = KeyFamily("explorer.odd_asked.")
