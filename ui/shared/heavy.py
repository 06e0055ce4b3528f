"""Heavy work (training a large corpus) takes turns, so uploads cannot starve a class.

A server process runs every session's script in its own thread under one GIL: three
sessions training a 2 MB upload at once each get a third of the interpreter, and so does
every student clicking Step. `heavy_slot()` lets at most `HEAVY_JOBS` heavy jobs run at
once in the process (default 1: one process uses one core for Python, so a second
training at the same time would only slow the first and everyone else); the others wait
their turn in line (their page shows its progress bar meanwhile). Steps, which are
cheap, never wait for it. Several processes behind the proxy (deploy/) each have their
own slot: one heavy job per process, one process per core.

`bounded_train` is `bpe_core.train` taking a slot (ui/train/state.py trains through it),
and trains once for sessions that ask for the same run at the same time (a class opening
one link): the later ones wait for the first one's run (runs are immutable and shared
anyway) instead of each training it again in turn. `BPE_HEAVY_JOBS` (environment) sets
the number of slots.

>>> with heavy_slot():
...     busy()
True
>>> busy()
False
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any, Hashable, Iterator

from bpe_core import train as _train

__all__ = ["HEAVY_JOBS", "heavy_slot", "bounded_train", "busy"]

#: Heavy jobs at once in this process.
HEAVY_JOBS = max(1, int(os.environ.get("BPE_HEAVY_JOBS", "1") or 1))
_slots = threading.BoundedSemaphore(HEAVY_JOBS)
_running = 0
_lock = threading.Lock()
_in_flight: dict[Hashable, Future] = {}


@contextmanager
def heavy_slot() -> Iterator[None]:
    """Wait for a free slot, hold it for the block."""
    global _running
    _slots.acquire()
    with _lock:
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
        _slots.release()


def busy() -> bool:
    """Whether a heavy job is running now."""
    return _running > 0


def _flight_key(words: Any, settings: Any) -> Hashable | None:
    try:
        key = (getattr(words, "words", None), getattr(words, "counts", None),
               getattr(words, "pretokenizer", None), settings)
        hash(key)
    except TypeError:
        return None
    return key if key[0] is not None else None


def bounded_train(words: Any, settings: Any = None, **kwargs: Any):
    """`bpe_core.train`, one heavy job at a time, once for equal requests made at once
    (see the module's note)."""
    key = _flight_key(words, settings)
    if key is None:
        with heavy_slot():
            return _train(words, settings, **kwargs)
    with _lock:
        flight = _in_flight.get(key)
        owner = flight is None
        if owner:
            flight = _in_flight[key] = Future()
    if not owner:
        try:
            return flight.result()
        except (ValueError, TypeError):
            raise  # the engine's message for this corpus: the same for every session
        except BaseException:  # the first browser session stopped (closed tab, rerun): train here
            return bounded_train(words, settings, **kwargs)
    try:
        with heavy_slot():
            run = _train(words, settings, **kwargs)
    except BaseException as exc:
        with _lock:
            _in_flight.pop(key, None)  # first, so a session that retries trains afresh
        flight.set_exception(exc)
        raise
    with _lock:
        _in_flight.pop(key, None)
    flight.set_result(run)
    return run
