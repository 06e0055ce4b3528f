"""Live classes: an instructor steps, students follow and answer (pure Python, no Streamlit).

Choose where classes are kept with one setting, the environment variable
``BPE_CLASS_STORE``:

- unset or ``memory``: in the server process (nothing to install; one process only);
- ``redis://host:port/db`` (or ``rediss://`` or ``unix://``): in Redis, shared by every
  process that points at it.

``BPE_CLASS_HOURS`` sets how long a class lives after its last action (default 3),
``BPE_MAX_CLASSES`` how many classes the server runs at once (default 200, in either
store), and ``BPE_CLASS_PASSPHRASE``, when set, is a passphrase an instructor must type
to start a class. ``BPE_BEHIND_PROXY`` says how many proxies stand in front of the app,
for the client address that limits are counted by (`classroom.clients`).

    store = open_store()                    # once per process (st.cache_resource)
    keys = store.create_class({"corpus": "sennrich", "merges": 10}, session=sid)
    state = store.join(keys.code, session=other_sid)
    store.set_step(keys.code, 1, instructor_token=keys.instructor_token)
    store.poll(keys.code, session=other_sid, since=state.version)   # the new state

Left out: drawing (the page), grading (the page, as the Train page grades ties).
"""
from __future__ import annotations

import os

from classroom.clients import LOCAL, PROXY_SETTING, client_key, proxy_hops
from classroom.codes import CODE_BITS, CODE_LENGTH, canonical_code, format_code, guess_odds
from classroom.limits import DEFAULT_LIMITS, Limit, RateLimited, RateLimiter
from classroom.store import (
    DEFAULT_TTL_SECONDS, NICKNAME_MAX, AlreadyAnswered, ClassError, ClassFull, ClassKeys,
    ClassNotFound, ClassState, ClassStore, NotInstructor, Question, QuestionNotOpen,
    StoreUnavailable, Tally, WRONG_INSTRUCTOR_LINK, WRONG_PASSPHRASE,
)

STORE_SETTING = "BPE_CLASS_STORE"
HOURS_SETTING = "BPE_CLASS_HOURS"
MAX_CLASSES_SETTING = "BPE_MAX_CLASSES"
PASSPHRASE_SETTING = "BPE_CLASS_PASSPHRASE"

__all__ = [
    "open_store", "STORE_SETTING", "HOURS_SETTING", "MAX_CLASSES_SETTING", "PASSPHRASE_SETTING",
    "PROXY_SETTING", "LOCAL", "client_key", "proxy_hops", "WRONG_INSTRUCTOR_LINK", "WRONG_PASSPHRASE",
    "ClassStore", "ClassKeys", "ClassState", "Question", "Tally",
    "ClassError", "ClassNotFound", "NotInstructor", "QuestionNotOpen", "AlreadyAnswered",
    "ClassFull", "StoreUnavailable", "RateLimited",
    "Limit", "RateLimiter", "DEFAULT_LIMITS", "DEFAULT_TTL_SECONDS", "NICKNAME_MAX",
    "CODE_BITS", "CODE_LENGTH", "canonical_code", "format_code", "guess_odds",
]


def open_store(setting: str | None = None, **options) -> ClassStore:
    """The store named by ``setting`` (default: the BPE_CLASS_STORE variable, else memory).

    ``options`` go to the store (``ttl_seconds``, ``limits``, ``clock``, ``max_answers``,
    ``max_classes``, ``passphrase``; ``prefix`` for Redis); the settings above fill in
    the ones not given.
    """
    if setting is None:
        setting = os.environ.get(STORE_SETTING, "") or "memory"
    if "ttl_seconds" not in options and os.environ.get(HOURS_SETTING):
        options["ttl_seconds"] = _hours(os.environ[HOURS_SETTING]) * 3600
    if "max_classes" not in options and os.environ.get(MAX_CLASSES_SETTING, "").strip():
        options["max_classes"] = _max_classes(os.environ[MAX_CLASSES_SETTING])
    if "passphrase" not in options and os.environ.get(PASSPHRASE_SETTING, "").strip():
        options["passphrase"] = os.environ[PASSPHRASE_SETTING].strip()
    setting = setting.strip()
    if setting == "memory":
        from classroom.memory import MemoryClassStore
        return MemoryClassStore(**options)
    if setting.startswith(("redis://", "rediss://", "unix://")):
        from classroom.redis_store import RedisClassStore
        return RedisClassStore(setting, **options)
    raise ValueError(
        f"{STORE_SETTING}={setting!r} is not a store: use 'memory' or a Redis URL such as "
        "'redis://127.0.0.1:6379/0'")


def _hours(text: str) -> float:
    try:
        hours = float(text)
    except ValueError:
        hours = -1.0
    if not 0 < hours <= 48:
        raise ValueError(f"{HOURS_SETTING}={text!r} must be a number of hours between 0 and 48, e.g. 3")
    return hours


def _max_classes(text: str) -> int:
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 100_000:
        raise ValueError(f"{MAX_CLASSES_SETTING}={text!r} must be a whole number of classes from 1 to 100000, e.g. 200")
    return int(text)
