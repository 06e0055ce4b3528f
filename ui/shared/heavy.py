"""Heavy work (training a large corpus) takes turns, so uploads cannot starve a class.

A server process runs every session's script in its own thread under one GIL: three
sessions training a 2 MB upload at once each get a third of the interpreter, and so does
every student clicking Step. `heavy_slot()` lets at most `HEAVY_JOBS` heavy jobs run at
once in the process (default 1: one process uses one core for Python, so a second
training at the same time would only slow the first and everyone else); the others wait
their turn in line (their page shows its progress bar meanwhile). Steps, which are
cheap, never wait for it, and the training gives way to them after every merge. Several processes behind the proxy (deploy/) each have their
own slot: one heavy job per process, one process per core.

`BPE_HEAVY_JOBS` (environment) sets the number; `bounded_train` is `bpe_core.train`
taking a slot (ui/train/state.py trains through it).

>>> with heavy_slot():
...     busy()
True
>>> busy()
False
"""
from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

from bpe_core import train as _train

__all__ = ["HEAVY_JOBS", "heavy_slot", "bounded_train", "busy"]

#: Heavy jobs at once in this process.
HEAVY_JOBS = max(1, int(os.environ.get("BPE_HEAVY_JOBS", "1") or 1))
_slots = threading.BoundedSemaphore(HEAVY_JOBS)
_running = 0
_count_lock = threading.Lock()


@contextmanager
def heavy_slot() -> Iterator[None]:
    """Wait for a free slot, hold it for the block."""
    global _running
    _slots.acquire()
    with _count_lock:
        _running += 1
    try:
        yield
    finally:
        with _count_lock:
            _running -= 1
        _slots.release()


def busy() -> bool:
    """Whether a heavy job is running now."""
    return _running > 0


def bounded_train(*args: Any, **kwargs: Any):
    """`bpe_core.train`, one heavy job at a time (see the module's note), giving way after
    each merge: `time.sleep(0)` lets go of the GIL, so a step waiting for it runs now
    instead of after the interpreter's 5 ms switch interval."""
    progress = kwargs.pop("progress", None)

    def give_way(step: int, event: Any) -> None:
        if progress is not None:
            progress(step, event)
        time.sleep(0)

    with heavy_slot():
        return _train(*args, progress=give_way, **kwargs)
