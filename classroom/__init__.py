"""Live classes: an instructor steps, students follow and answer (pure Python, no Streamlit).

Choose where classes are kept with one setting, the environment variable
``BPE_CLASS_STORE``:

- unset or ``memory``: in the server process (nothing to install; one process only);
- ``redis://host:port/db`` (or ``rediss://`` or ``unix://``): in Redis, shared by every
  process that points at it.

``BPE_CLASS_HOURS`` sets how long a class lives after its last action (default 3).

    store = open_store()                    # once per process (st.cache_resource)
    keys = store.create_class({"corpus": "sennrich", "merges": 10}, session=sid)
    state = store.join(keys.code, session=other_sid)
    store.set_step(keys.code, 1, instructor_token=keys.instructor_token)
    store.poll(keys.code, session=other_sid, since=state.version)   # the new state

Left out: drawing (the page), grading (the page, as the Train page grades ties).
"""
from __future__ import annotations

import os

from classroom.codes import CODE_BITS, CODE_LENGTH, canonical_code, format_code, guess_odds
from classroom.limits import DEFAULT_LIMITS, Limit, RateLimited, RateLimiter
from classroom.store import (
    DEFAULT_TTL_SECONDS, NICKNAME_MAX, AlreadyAnswered, ClassError, ClassFull, ClassKeys,
    ClassNotFound, ClassState, ClassStore, NotInstructor, Question, QuestionNotOpen,
    StoreUnavailable, Tally,
)

STORE_SETTING = "BPE_CLASS_STORE"
HOURS_SETTING = "BPE_CLASS_HOURS"

__all__ = [
    "open_store", "STORE_SETTING", "HOURS_SETTING",
    "ClassStore", "ClassKeys", "ClassState", "Question", "Tally",
    "ClassError", "ClassNotFound", "NotInstructor", "QuestionNotOpen", "AlreadyAnswered",
    "ClassFull", "StoreUnavailable", "RateLimited",
    "Limit", "RateLimiter", "DEFAULT_LIMITS", "DEFAULT_TTL_SECONDS", "NICKNAME_MAX",
    "CODE_BITS", "CODE_LENGTH", "canonical_code", "format_code", "guess_odds",
]


def open_store(setting: str | None = None, **options) -> ClassStore:
    """The store named by ``setting`` (default: the BPE_CLASS_STORE variable, else memory).

    ``options`` go to the store (``ttl_seconds``, ``limits``, ``clock``, ``max_answers``;
    ``max_classes`` for memory, ``prefix`` for Redis).
    """
    if setting is None:
        setting = os.environ.get(STORE_SETTING, "") or "memory"
    if "ttl_seconds" not in options and os.environ.get(HOURS_SETTING):
        options["ttl_seconds"] = _hours(os.environ[HOURS_SETTING]) * 3600
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
