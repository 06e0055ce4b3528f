"""The Train page's step cache: what a step draws, drawn once per (run, step, layout) for
every session of the server.

A class is 30 sessions showing the same run at the same step: without this each of them
replays the first k merges (a tokenizer built per session and step), draws the corpus,
the tables and the vocabulary as HTML, and checks which export formats can hold the run,
once per browser session. With it the first visitor's browser session draws and the
others get the same strings.

How: each drawing helper that a step draws (in ui/train/ sentence, pair_table, merges,
corpus_view, vocab_view and chart) is decorated `@step_cached`, and
`downloads.format_problems` `@format_problems_cached`: their calls go through the
byte-bounded shared cache "train.steps" (ui/shared/cache.py BUDGETS). The
helpers' bodies are not touched, a renamed helper keeps its decorator, and a call whose
arguments cannot be hashed is passed straight through. `cached_helpers()` lists them.

What is shared, and why that is safe: an entry's key is the run's content key
(`RunView.key`: a hash of the corpus and the settings, never a file name or a label),
the helper's name and its other arguments (step, layout, rows; all plain values), and
its value is what the helper returns for that run: HTML drawn from the run's own tokens
and figures. The helpers are given no session state: no label, no file name, no answers
(predict mode's grades and a class's answers are drawn outside them). A session only
ever gets an entry for exactly the run it shows, so nothing one session typed or named
reaches another (tests/test_session_isolation.py checks an uploaded file's name and
predict-mode answers). Views without a key (tests build `RunView(run)`) are not cached.
"""
from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Hashable
from typing import Any

from ui.shared.cache import approx_size, cache_named

__all__ = ["step_cached", "format_problems_cached", "cached_helpers", "CACHE_NAME", "stats"]

#: The shared cache (its byte budget is in ui/shared/cache.py BUDGETS).
CACHE_NAME = "train.steps"

#: The names of the helpers decorated so far (`cached_helpers`).
_CACHED: list[str] = []
_hits = {"hit": 0, "miss": 0}


def stats() -> dict[str, int]:
    """Hits and misses since the process started (bench/profile_step.py prints them)."""
    return dict(_hits)


def _key(name: str, view: Any, args: tuple, kwargs: dict) -> Hashable | None:
    run_key = getattr(view, "key", "")
    if not run_key:
        return None
    key = (name, run_key, args, tuple(sorted(kwargs.items())))
    try:
        hash(key)
    except TypeError:  # a list (e.g. a row order): not cached
        return None
    return key


def _get_or_draw(key: Hashable, draw: Callable[[], Any], weigh: Callable[[Any], int]) -> Any:
    """The cached value for `key`, or `draw()` stored with the size `weigh` gives it."""
    cache = cache_named(CACHE_NAME)
    hit = cache.get(key)
    if hit is not None:
        _hits["hit"] += 1
        return hit
    _hits["miss"] += 1
    value = draw()
    cache.put(key, value, weigh(value))
    return value


def cached_helpers() -> tuple[str, ...]:
    """The names of the helpers that go through the cache."""
    return tuple(_CACHED)


def step_cached(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a drawing helper whose first argument is the RunView and whose result
    depends only on the run and the other (plain) arguments: its result is drawn once per
    run key and arguments for every session. (Not for a helper given session state, nor
    one given lists: `pair_table_html` takes predict mode's row order.)"""
    name = fn.__name__
    _CACHED.append(name)

    @functools.wraps(fn)
    def cached(view, *args, **kwargs):
        key = _key(name, view, args, kwargs)
        if key is None:
            return fn(view, *args, **kwargs)
        return _get_or_draw(key, lambda: fn(view, *args, **kwargs), lambda v: approx_size(v) + approx_size(key))

    return cached


def format_problems_cached(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`downloads.format_problems(run, n)`: which export formats can hold the first n merges
    (it builds the step's tokenizer and replays tiktoken's ranks: ~20 ms a step). Keyed by
    the run object (runs are shared by every session with the same corpus and settings),
    checked through a weak reference so a freed run's id is never mistaken for another."""
    @functools.wraps(fn)
    def cached(run, n):
        cache = cache_named(CACHE_NAME)
        key = ("format_problems", id(run), n)
        hit = cache.get(key)
        if hit is not None and hit[0]() is run:
            _hits["hit"] += 1
            return hit[1]
        _hits["miss"] += 1
        problems = fn(run, n)
        try:
            ref = weakref.ref(run)
        except TypeError:
            return problems
        cache.put(key, (ref, problems), approx_size(problems) + 100)
        return problems

    _CACHED.append(fn.__name__)
    return cached
