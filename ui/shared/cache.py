"""Caches shared by every session of the server, each bounded in bytes.

A class shares one server, so what one session computes (a training run, the analysis
of a pasted text, a chart) is kept for the next session that asks for the same thing;
but every cache has a byte budget and drops its least recently used entries beyond it,
so memory stays bounded however many different texts the class pastes. Entries are
weighed when they are stored (`weigh`), by what they really hold.

Keys are built from content (a hash of the corpus and settings, the text itself), never
from anything that names a session (a file name, a label): a session only ever gets an
entry for exactly the content it asked for, so nothing one session typed or named can
reach another.

What it leaves out: the real tokenizers (GPT-2, cl100k, o200k, Mistral's): pages call
`bpe_core.pretrained.load_pretrained(name)` directly, which loads each once per process
and shares it read-only (a fixed set, bounded by the registry).
"""
from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import wraps
from typing import Any, TypeVar

__all__ = ["ByteLRU", "byte_cached", "approx_size", "BUDGETS", "all_caches"]

T = TypeVar("T")
MB = 1024 * 1024

#: The byte budget of each shared cache (what docs/performance.md's memory figures add up).
BUDGETS: dict[str, int] = {
    "train.runs": 256 * MB,        # Train page runs (RunViews): the biggest is about 30 MB
    "vocab.runs": 96 * MB,         # Vocabulary size page: runs on the built-in corpora
    "vocab.tables": 32 * MB,       # its curves and held-out tables
    "vocab.real_sizes": 1 * MB,    # ...and o200k cut to 2^8..2^17 ranks on the ten texts (a few kB)
    "charts": 32 * MB,             # Vega-Lite specs
    "train.steps": 32 * MB,        # Train page: each step's drawn HTML and figures, per run (step_cache.py)
    "tokenize.analyses": 128 * MB,  # Tokenize page: analyses of pasted text
    "tokenize.html": 64 * MB,      # ...and their drawn HTML
    "algorithms.runs": 64 * MB,    # Algorithms page: BPE, WordPiece, Unigram runs (50 kB texts at most)
    "quirks.encodings": 32 * MB,   # Quirks page: typed texts under the five real tokenizers
    "explorer.index": 160 * MB,    # Vocabulary explorer: each built-in vocabulary's index (o200k's is ~55 MB)
    "explorer.views": 32 * MB,     # ...its overviews and comparisons of two built-ins
    "explorer.odd": 8 * MB,        # ...and the odd tokens found (ids only)
    # Tokenize page: every session's uploaded tokenizer and its files, open sessions and closed
    # ones Streamlit still keeps (ui/tokenize/upload.py; each weighed at 16 MB + 8x its files' bytes)
    "tokenize.uploads": 1024 * MB,
}

_REGISTRY: dict[str, "ByteLRU"] = {}


class ByteLRU:
    """A thread-safe least-recently-used map with a budget in bytes.

    An entry bigger than the whole budget is returned to its caller but not kept.

    >>> c = ByteLRU("demo", 10)
    >>> c.put("a", "x", 6); c.put("b", "y", 6)
    >>> c.get("a") is None, c.get("b"), c.nbytes
    (True, 'y', 6)
    """

    def __init__(self, name: str, budget: int):
        self.name = name
        self.budget = budget
        self.nbytes = 0
        self._items: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Any:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
            return item[0]

    def put(self, key: Hashable, value: Any, size: int) -> None:
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.nbytes -= old[1]
            if size > self.budget:
                return
            self._items[key] = (value, size)
            self.nbytes += size
            while self.nbytes > self.budget:
                _, (_, dropped) = self._items.popitem(last=False)
                self.nbytes -= dropped

    def pop(self, key: Hashable) -> None:
        """Drop one entry now (if it is there)."""
        with self._lock:
            item = self._items.pop(key, None)
            if item is not None:
                self.nbytes -= item[1]

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.nbytes = 0


def cache_named(name: str) -> ByteLRU:
    """The process-wide cache of that name (made on first use, with its BUDGETS entry)."""
    cache = _REGISTRY.get(name)
    if cache is None:
        cache = _REGISTRY.setdefault(name, ByteLRU(name, BUDGETS[name]))
    return cache


def all_caches() -> dict[str, ByteLRU]:
    return dict(_REGISTRY)


def byte_cached(name: str, *, key: Callable[..., Hashable] | None = None,
                weigh: Callable[[Any], int] | None = None) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Decorate a pure function so its results go through the byte-bounded cache `name`.

    `key(*args, **kwargs)` makes the cache key (default: the arguments whose names do not
    start with "_", as st.cache_resource does); `weigh(result)` its size (default:
    `approx_size`).
    """
    def decorate(fn: Callable[..., T]) -> Callable[..., T]:
        names = fn.__code__.co_varnames[: fn.__code__.co_argcount]

        def default_key(*args: Any, **kwargs: Any) -> Hashable:
            bound = dict(zip(names, args), **kwargs)
            return tuple((k, v) for k, v in bound.items() if not k.startswith("_"))

        make_key = key or default_key
        size_of = weigh or approx_size

        @wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> T:
            cache = cache_named(name)
            k = (fn.__qualname__, make_key(*args, **kwargs))
            hit = cache.get(k)
            if hit is not None:
                return hit
            value = fn(*args, **kwargs)
            cache.put(k, value, size_of(value) + approx_size(k))  # keys hold texts too
            return value

        return wrapper

    return decorate


def approx_size(value: Any, _seen: set[int] | None = None) -> int:
    """Bytes a value holds, counting what it contains (each object once).

    Objects may say it themselves with an `nbytes()` method or attribute (training runs
    and run views do); pandas frames are measured with memory_usage(deep=True).

    >>> approx_size("x" * 1000) > 1000, approx_size(("a" * 100, "a" * 100)) > 200
    (True, True)
    """
    seen = set() if _seen is None else _seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    measure = getattr(value, "nbytes", None)
    if measure is not None and not isinstance(value, type):
        return int(measure() if callable(measure) else measure)
    usage = getattr(value, "memory_usage", None)
    if usage is not None and hasattr(value, "columns"):
        return int(usage(deep=True).sum())
    size = sys.getsizeof(value)
    if isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return size
    if isinstance(value, dict):
        return size + sum(approx_size(k, seen) + approx_size(v, seen) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return size + sum(approx_size(v, seen) for v in value)
    slots = getattr(type(value), "__slots__", None)
    fields = getattr(value, "__dict__", None)
    if fields is not None:
        return size + approx_size(fields, seen)
    if slots:
        return size + sum(approx_size(getattr(value, s, None), seen) for s in slots)
    return size
