"""Step latency: how long one merge event takes (what a student waits for on "next").

    python bench/bench_steps.py            # from the repository root

Each case builds a `BPETrainer` and times every `next()` on `iter_merges()`:

1. the language reference (pydoc_data.topics, ~0.47 MB), byte units, GPT-2
   pre-tokenizer, first-seen ties (the default), default top_n=20, 5000 merges;
2. no pre-tokenizer ('none': the whole text is one word, merges cross spaces) on the
   first 20 kB of that text, character units, 500 merges;
3. a 1 MB corpus, byte units, GPT-2 pre-tokenizer, 5000 merges, twice: the text
   repeated to 1 MB (the same words, counts doubled), and the text extended to 1 MB
   with the standard library's own .py sources (many more distinct words). For these,
   first-step latency = pre-tokenize (word table) + trainer construction + first event.

The cyclic garbage collector stays on, as in the app; its pauses are measured with
`gc.callbacks` and reported separately (a step's time includes any pause inside it).
"""
from __future__ import annotations

import gc
import statistics
import sys
import sysconfig
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import corpus, corpus_of_size, header, percentile, table  # noqa: E402

from bpe_core import BPETrainer, TrainerSettings, WordTable, visible_whitespace  # noqa: E402

TARGET_P99_MS = 5.0


class GCTimer:
    """Total time spent in the garbage collector, per generation, via gc.callbacks."""

    def __init__(self) -> None:
        self.total = 0.0
        self.count = [0, 0, 0]
        self._t0 = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._t0 = time.perf_counter()
        else:
            self.total += time.perf_counter() - self._t0
            self.count[info["generation"]] += 1

    def __enter__(self) -> "GCTimer":
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc) -> None:
        gc.callbacks.remove(self)


def time_steps(trainer: BPETrainer, n: int):
    """Wall seconds per next(), GC seconds inside each, CPU seconds of each, the events."""
    it = trainer.iter_merges()
    steps, gcs, cpus, events = [], [], [], []
    clock, cpu_clock = time.perf_counter, time.process_time
    with GCTimer() as g:
        for _ in range(n):
            before = g.total
            c0 = cpu_clock()
            t0 = clock()
            try:
                ev = next(it)
            except StopIteration:
                break
            steps.append(clock() - t0)
            cpus.append(cpu_clock() - c0)
            gcs.append(g.total - before)
            events.append(ev)
    return steps, gcs, cpus, events


def summary(name: str, steps: list[float], gcs: list[float], cpus: list[float]) -> list[object]:
    ms = sorted(s * 1000 for s in steps)
    no_gc = sorted((s - g) * 1000 for s, g in zip(steps, gcs))
    cpu = sorted(c * 1000 for c in cpus)
    return [
        name,
        len(ms),
        statistics.median(ms),
        percentile(ms, 90),
        percentile(ms, 99),
        ms[-1],
        sum(ms) / 1000,
        sum(gcs),
        percentile(no_gc, 99),
        percentile(cpu, 99),
        sum(1 for x in ms if x > TARGET_P99_MS),
    ]


def slowest(steps: list[float], gcs: list[float], events: list, k: int = 5) -> list[list[object]]:
    order = sorted(range(len(steps)), key=lambda i: steps[i], reverse=True)[:k]
    return [
        [events[i].step, " + ".join(visible_whitespace(t) for t in events[i].pair_text), events[i].count,
         len(events[i].words_changed), len(events[i].count_changes), steps[i] * 1000, gcs[i] * 1000]
        for i in order
    ]


def stdlib_extended(text: str, n_bytes: int) -> str:
    """`text` followed by the standard library's .py sources (sorted by path) up to n_bytes."""
    parts = [text]
    size = len(text.encode("utf-8"))
    lib = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(lib.glob("*.py")):
        try:
            src = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        parts.append(src)
        size += len(src.encode("utf-8"))
        if size >= n_bytes:
            break
    return "".join(parts).encode("utf-8")[:n_bytes].decode("utf-8", errors="ignore")


def first_step(text: str, settings: TrainerSettings, n: int):
    gc.collect()
    t0 = time.perf_counter()
    words = WordTable.from_text(text, "gpt2")
    t1 = time.perf_counter()
    trainer = BPETrainer(words, settings)
    t2 = time.perf_counter()
    it = trainer.iter_merges()
    next(it)
    t3 = time.perf_counter()
    # The remaining steps, timed one by one like the others (the first event is left
    # out of their distribution: it is reported as part of the first-step latency).
    steps, gcs, cpus, _events = time_steps(trainer, n - 1)
    return (t1 - t0, t2 - t1, t3 - t2), steps, gcs, cpus, words


def main() -> None:
    header("Step latency (bench/bench_steps.py)")
    text = corpus()
    rows, detail = [], []

    # 1. the language reference, byte, gpt2, first-seen, top_n=20, 5000 merges
    words = WordTable.from_text(text, "gpt2")
    gc.collect()
    t0 = time.perf_counter()
    trainer = BPETrainer(words, TrainerSettings(units="byte", merges=5000))
    construct = time.perf_counter() - t0
    steps, gcs, cpus, events = time_steps(trainer, 5000)
    name1 = "0.47 MB, byte, gpt2, 5000 merges"
    rows.append(summary(name1, steps, gcs, cpus))
    detail.append((name1, slowest(steps, gcs, events)))
    print(f"case 1: {len(words):,} distinct words; trainer construction {construct * 1000:.0f} ms")

    # 2. 'none' pre-tokenizer, characters, first 20 kB, 500 merges
    small = text.encode("utf-8")[:20_000].decode("utf-8", errors="ignore")
    words2 = WordTable.from_text(small, "none")
    gc.collect()
    t0 = time.perf_counter()
    trainer2 = BPETrainer(words2, TrainerSettings(units="char", merges=500))
    construct2 = time.perf_counter() - t0
    steps2, gcs2, cpus2, events2 = time_steps(trainer2, 500)
    name2 = "20 kB, char, none (one word), 500 merges"
    rows.append(summary(name2, steps2, gcs2, cpus2))
    detail.append((name2, slowest(steps2, gcs2, events2)))
    print(f"case 2: one word of {len(small):,} characters; trainer construction {construct2 * 1000:.0f} ms")
    del trainer2, events2

    # 3. 1 MB corpora, byte, gpt2, 5000 merges
    first_rows = []
    for label, big in (
        ("1 MB (text repeated)", corpus_of_size(1_000_000)),
        ("1 MB (text + stdlib .py sources)", stdlib_extended(text, 1_000_000)),
    ):
        (t_words, t_build, t_first), steps3, gcs3, cpus3, words3 = first_step(
            big, TrainerSettings(units="byte", merges=5000), 5000
        )
        name3 = f"{label}, byte, gpt2, steps 2-5000"
        rows.append(summary(name3, steps3, gcs3, cpus3))
        first_rows.append([label, f"{len(big.encode('utf-8')):,}", f"{len(words3):,}",
                           t_words * 1000, t_build * 1000, t_first * 1000,
                           (t_words + t_build + t_first) * 1000])
        print(f"case 3: {label} done", flush=True)
    del trainer, events

    print()
    print("Per-step wall time of next(iter_merges()), milliseconds. GC on; 'p99 w/o GC' subtracts"
          " the collector's pauses")
    print("inside each step; 'p99 CPU' is this process's CPU time per step (leaves out time lost"
          " to other programs).\n")
    print(table(["case", "steps", "median", "p90", "p99", "max", "sum s", "GC s",
                 "p99 w/o GC", "p99 CPU", f"steps > {TARGET_P99_MS:g} ms"], rows))
    print()
    print("First-step latency on 1 MB, milliseconds:\n")
    print(table(["corpus", "bytes", "distinct words", "pre-tokenize", "trainer()", "first event",
                 "total"], first_rows))
    print()
    for name, rws in detail:
        print(f"Slowest steps, {name}:\n")
        print(table(["step", "pair", "count", "words changed", "count changes", "ms", "GC ms"], rws))
        print()
    worst = max(r[4] for r in rows)
    print(f"target: p99 of one step under {TARGET_P99_MS:g} ms: worst p99 = {worst:.2f} ms -> "
          f"{'MET' if worst < TARGET_P99_MS else 'NOT MET'} "
          f"({', '.join(f'{r[0]}: {r[4]:.2f}' for r in rows)})")


if __name__ == "__main__":
    main()
