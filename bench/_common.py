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
import subprocess
import sys
import time
from dataclasses import dataclass, field
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


def best_of(fn: Callable[[], object], repeat: int = 3):
    """Run fn `repeat` times; return (best seconds, all seconds, the best run's result).

    The garbage collector stays on during the timed call (as in real use); a full
    collection runs before each repetition so one run's garbage is not charged to the
    next.
    """
    times: list[float] = []
    best_result = None
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
        if times[-1] == min(times):
            best_result = result
        del result
    return min(times), times, best_result


@dataclass
class Timing:
    """One contender's runs: the best wall-clock seconds, every run's, the best run's
    result, and the best CPU seconds of this process (time.process_time: robust when
    other programs share the cores, since time spent waiting for a core is not counted)."""

    best: float = float("inf")
    times: list[float] = field(default_factory=list)
    result: object = None
    cpu: float = float("inf")


def interleaved(contenders: dict[str, Callable[[], object]], repeat: int = 3,
                only: dict[str, int] | None = None) -> dict[str, Timing]:
    """Time several contenders round-robin (A B C, A B C, ...), so a burst of load from
    elsewhere on the machine hits them alike. `only` caps the runs of some contenders.

    Each timing includes a young-generation garbage collection right after the call,
    so work the collector would do later on the result is counted too."""
    out: dict[str, Timing] = {name: Timing() for name in contenders}
    for r in range(repeat):
        for name, fn in contenders.items():
            if only and r >= only.get(name, repeat):
                continue
            gc.collect()
            c0 = time.process_time()
            t0 = time.perf_counter()
            result = fn()
            # Charge each contender the collector's first pass over what it left behind
            # (a young-generation collection, while the result is still alive): a
            # Python result of thousands of objects costs that pass sooner or later.
            gc.collect(0)
            dt = time.perf_counter() - t0
            dc = time.process_time() - c0
            t = out[name]
            t.times.append(dt)
            t.cpu = min(t.cpu, dc)
            if dt < t.best:
                t.best, t.result = dt, result
            del result
    return out


def header(title: str) -> None:
    """Title, date, machine, the commit measured, and the load on the machine."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, timeout=10,
        ).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    try:
        load = "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "load average unknown"
    print(f"# {title}")
    print(
        f"# {datetime.date.today().isoformat()}  commit {commit}  Python {platform.python_version()}  "
        f"{platform.machine()}  {os.cpu_count()} CPU(s)  {load}"
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
