"""Shared helpers for the benchmarks: the corpus, timing, and plain-text tables.

Each bench script puts the repository root on sys.path itself, then imports this
module (it sits next to them, so `python bench/<script>.py` finds it).
"""
from __future__ import annotations

import datetime
import gc
import math
import os
import platform
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def corpus() -> str:
    """Python's language reference as text (~0.47 MB): a real corpus on every machine."""
    import pydoc_data.topics

    return "".join(pydoc_data.topics.topics.values())


def corpus_of_size(n_bytes: int) -> str:
    """The corpus repeated until it is `n_bytes` of UTF-8 (cut at a character boundary)."""
    text = corpus()
    reps = n_bytes // len(text.encode("utf-8")) + 1
    big = (text * reps).encode("utf-8")[:n_bytes]
    return big.decode("utf-8", errors="ignore")


def best_of(fn: Callable[[], object], repeat: int = 3, setup: Callable[[], object] | None = None):
    """Run fn `repeat` times; return (best seconds, all seconds, the last result).

    `setup()`, if given, runs untimed before each repetition and its result is passed
    to fn. The garbage collector stays on during the timed call (as in real use); a
    full collection runs before each repetition so one run's garbage is not charged
    to the next.
    """
    times: list[float] = []
    result = None
    for _ in range(repeat):
        arg = setup() if setup is not None else None
        gc.collect()
        t0 = time.perf_counter()
        result = fn(arg) if setup is not None else fn()
        times.append(time.perf_counter() - t0)
    return min(times), times, result


def header(title: str) -> None:
    print(f"# {title}")
    print(
        f"# {datetime.date.today().isoformat()}  Python {platform.python_version()}  "
        f"{platform.machine()}  {os.cpu_count()} CPU(s)  {platform.platform(terse=True)}"
    )
    print()


def table(headers: list[str], rows: list[list[object]]) -> str:
    """A Markdown table (aligned, so it also reads well in a terminal)."""
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for k, r in enumerate(cells):
        lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
        if k == 0:
            lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def _fmt(c: object) -> str:
    if isinstance(c, float):
        if c >= 100:
            return f"{c:.0f}"
        if c >= 10:
            return f"{c:.1f}"
        return f"{c:.3g}" if c < 1 else f"{c:.2f}"
    return str(c)


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of an already sorted list."""
    if not sorted_values:
        return float("nan")
    k = max(0, min(len(sorted_values) - 1, math.ceil(q / 100 * len(sorted_values)) - 1))
    return sorted_values[k]
