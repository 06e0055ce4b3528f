"""The Tokenize page's session state: every key it keeps, declared once (ui.shared.state.Key).

`SETTINGS` are the values a link or a widget sets by name (`tokenize.<name>`, widget
`tokenize_w_<name>`); the rest is the page's own bookkeeping, the word replay's
(ui/tokenize/explain.py) and the uploaded file's (ui/tokenize/upload.py).
"""
from __future__ import annotations

from typing import Any

from ui.shared.state import Key, KeyFamily
from ui.tokenize.logic import EXAMPLES, RANK_TABLE_NAMES

#: Every widget key of the page: `tokenize_w_<name>`.
WIDGETS = KeyFamily("tokenize_w_")
EXAMPLE_PILLS: Key[str | None] = WIDGETS.key("example", None)  # the example texts (a pick loads one, then clears)
LIVE_RUNS: Key[int] = Key("tokenize_w_live.runs", 0)  # the page's runs, for the typing helper (ui/shared/live_text.py)

# ---- the settings (a link's query parameters and the widgets set them by name) ------------
TOKENIZER: Key[str] = Key("tokenize.tokenizer", "cl100k_base")
TEXT: Key[str] = Key("tokenize.text", EXAMPLES["English"])
SHOW_WS: Key[bool] = Key("tokenize.show_ws", True)
SHOW_IDS: Key[bool] = Key("tokenize.show_ids", False)
SIDE: Key[bool] = Key("tokenize.side", True)
SPECIAL: Key[bool] = Key("tokenize.special", False)
VIEW: Key[str] = Key("tokenize.view", "ids")
TOKEN: Key[int | None] = Key("tokenize.token", None)
REPLAY_STEP: Key[int] = Key("tokenize.replay_step", 0)
REPLAY_SOURCE: Key[str] = Key("tokenize.replay_source", "text")
TYPED: Key[str] = Key("tokenize.typed", " tokenization")
#: three byte-level BPEs and a SentencePiece model
COMPARE: Key[list[str]] = Key("tokenize.compare", [*RANK_TABLE_NAMES, "mistral-7b-v1"])
IDS: Key[str] = Key("tokenize.ids", "")

SETTINGS: dict[str, Key[Any]] = {
    key.removeprefix("tokenize."): key
    for key in (TOKENIZER, TEXT, SHOW_WS, SHOW_IDS, SIDE, SPECIAL, VIEW, TOKEN, REPLAY_STEP, REPLAY_SOURCE,
                TYPED, COMPARE, IDS)
}

# ---- the page's bookkeeping ---------------------------------------------------------------
URL_WRITTEN: Key[dict | None] = Key("tokenize.url_written", None)  # the query parameters this page wrote last
URL_WARNINGS: Key[list[str]] = Key("tokenize.url_warnings", [])      # what a link's parameters got wrong
TOKEN_FOR: Key[tuple | None] = Key("tokenize.token_for", None)       # (tokenizer, text, special) the token was picked for
SHOW_ALL_FOR: Key[tuple | None] = Key("tokenize.show_all_for", None)  # the same, when "Show all" was pressed

# ---- the word replay of a file's model (explain.py) ---------------------------------------
EXPLAIN_SOURCE: Key[str] = Key("tokenize.explain_source", "text")  # "text" (a token of the text) or "typed"
EXPLAIN_TYPED: Key[str] = Key("tokenize.explain_typed", "tokenization")
EXPLAIN_STEP: Key[int] = Key("tokenize.explain_step", 0)
EXPLAIN_STEP_FOR: Key[tuple | None] = Key("tokenize.explain_step_for", None)  # (tokenizer id, word) of the step

# ---- an uploaded tokenizer file (upload.py) -----------------------------------------------
UPLOAD: Key[Any] = Key("tokenize.upload", None)  # an Upload: {"key", "name", "seconds"}; ["tok"], ["files"] from the registry
UPLOAD_ERRORS: Key[list] = Key("tokenize.upload_errors", [])  # [(file name, error message)] of the last upload
UPLOAD_HALF: Key[tuple | None] = Key("tokenize.upload_half", None)  # (name, bytes): vocab.json or merges.txt waiting for the other
UPLOAD_GENERATION: Key[int] = Key("tokenize.upload_generation", 0)  # bumped after each read: a fresh, empty uploader
UPLOAD_PENDING: Key[bool] = Key("tokenize.upload_pending", False)  # set by the uploader's callbacks: read the files now
UPLOAD_OPENED: Key[bool] = Key("tokenize.upload_opened", False)  # opened for "Your file" (once per choice)
UPLOAD_DROPPED: Key[str | None] = Key("tokenize.upload_dropped", None)  # this session's file the registry dropped
