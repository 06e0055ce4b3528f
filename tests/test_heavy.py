"""ui/shared/heavy.py: trainings take turns, and equal requests made at once train once."""
from __future__ import annotations

import threading
import time

from bpe_core import TrainerSettings, WordTable
from ui.shared import heavy


def test_at_most_one_training_at_a_time_and_equal_requests_train_once(monkeypatch):
    running, most, calls = [0], [0], []
    lock = threading.Lock()

    everyone_asked = threading.Event()

    def slow_train(words, settings=None, **kwargs):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
            calls.append(words.words)
        everyone_asked.wait(60)  # the first training lasts until every session has asked
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return ("run", words.words)

    waiting = [0]  # sessions waiting for another session's run of the same corpus

    class CountedFuture(heavy.Future):
        def result(self, timeout=None):
            with lock:
                waiting[0] += 1
            return super().result(timeout)

    monkeypatch.setattr(heavy, "_train", slow_train)
    monkeypatch.setattr(heavy, "Future", CountedFuture)
    same = WordTable.from_word_counts("low 5\nlower 2")
    tables = [same] * 4 + [WordTable.from_word_counts(f"w{i} 3\nx{i} 2") for i in range(3)]
    results: list = [None] * len(tables)

    def go(i):
        results[i] = heavy.bounded_train(tables[i], TrainerSettings(merges=3))

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(tables))]
    for t in threads:
        t.start()
    # Every session has asked (the first training waits for this): four runs in flight
    # (the shared one and three others), the three later equal requests waiting for the
    # first. A condition, not a fixed pause: on a loaded machine threads start late.
    deadline = time.monotonic() + 60
    while not (len(heavy._in_flight) == 4 and waiting[0] == 3) and time.monotonic() < deadline:
        time.sleep(0.01)
    everyone_asked.set()
    for t in threads:
        t.join(60)
    assert most[0] == 1  # never two trainings at once
    assert calls.count(same.words) == 1  # four sessions asked for the same run: trained once
    assert len(calls) == 4 and all(r is not None for r in results)
    assert results[0] is results[1] is results[2] is results[3]


def test_an_engine_error_reaches_every_session_that_asked(monkeypatch):
    def bad(words, settings=None, **kwargs):
        time.sleep(0.05)
        raise ValueError("no pairs")

    monkeypatch.setattr(heavy, "_train", bad)
    words = WordTable.from_word_counts("a 1")
    errors: list = []

    def go():
        try:
            heavy.bounded_train(words, TrainerSettings(merges=1))
        except ValueError as exc:
            errors.append(str(exc))

    threads = [threading.Thread(target=go) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert errors == ["no pairs"] * 3
    assert not heavy._in_flight and not heavy.busy()


def test_bounded_train_trains_for_real():
    run = heavy.bounded_train(WordTable.from_word_counts("low 5\nlower 2\nnewest 6"), TrainerSettings(merges=2))
    assert run.steps == 2
