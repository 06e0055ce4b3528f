"""Classes kept in the server process: the default, nothing to install.

One lock guards everything (each operation is a few dict look-ups; Streamlit serves each
session from its own thread). Bounded: at most ``max_classes`` classes (expired ones are
swept when a class is created, so expiry is lazy) and ``max_answers`` answers per
question; only the current question's answers are kept.

Announcements (`ClassStore.watch`) go straight to the listeners, in the thread that made
the change.

Left out: sharing between processes (use `classroom.redis_store`), surviving a restart.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

from classroom.store import ClassFull, ClassRecord, ClassStore, class_limit_message


@dataclass
class _Entry:
    record: ClassRecord
    touched: float
    answers: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # session -> (option, nickname)


class MemoryClassStore(ClassStore):
    """`ClassStore` over dicts in this process. See `ClassStore` for the options."""

    def __init__(self, **options):
        super().__init__(**options)
        self._classes: dict[str, _Entry] = {}
        self._codes_by_token: dict[str, str] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._classes)

    def _insert(self, record: ClassRecord, now: float) -> bool:
        with self._lock:
            if record.code in self._classes or record.join_token in self._codes_by_token:
                return False
            if len(self._classes) >= self.max_classes:
                self._sweep(now)
            if len(self._classes) >= self.max_classes:
                raise ClassFull(class_limit_message(self.max_classes))
            self._classes[record.code] = _Entry(record, now)
            self._codes_by_token[record.join_token] = record.code
            return True

    def _sweep(self, now: float) -> None:
        for code, entry in list(self._classes.items()):
            if now - entry.touched > self.ttl_seconds:
                self._forget(code)

    def _forget(self, code: str) -> None:
        entry = self._classes.pop(code, None)
        if entry is not None:
            self._codes_by_token.pop(entry.record.join_token, None)

    def _load(self, code: str):
        with self._lock:
            entry = self._classes.get(code)
            return None if entry is None else (entry.record, entry.touched)

    def _code_for_token(self, join_token: str) -> str | None:
        with self._lock:
            return self._codes_by_token.get(join_token)

    def _replace(self, record: ClassRecord, now: float, *, expected_version: int) -> str:
        with self._lock:
            entry = self._classes.get(record.code)
            if entry is None:
                return "gone"
            if entry.record.version != expected_version:
                return "stale"
            old_q, new_q = entry.record.question, record.question
            if new_q is None or old_q is None or new_q.number != old_q.number:
                entry.answers = {}
            entry.record, entry.touched = record, now
            return "ok"

    def _touch(self, record: ClassRecord, now: float) -> None:
        with self._lock:
            entry = self._classes.get(record.code)
            if entry is not None:
                entry.touched = max(entry.touched, now)

    def _add_answer(self, record, session, option, nickname, now) -> str:
        with self._lock:
            entry = self._classes.get(record.code)
            if entry is None:
                return "gone"
            if entry.record.version != record.version:
                return "stale"
            if session in entry.answers:
                return "already"
            if len(entry.answers) >= self.max_answers:
                return "full"
            entry.answers[session] = (option, nickname)
            entry.touched = max(entry.touched, now)
            return "ok"

    def _current_answers(self, code: str, number: int) -> dict:
        entry = self._classes.get(code)
        if entry is None or entry.record.question is None or entry.record.question.number != number:
            return {}
        return entry.answers

    def _answers(self, code, number):
        with self._lock:
            answers = list(self._current_answers(code, number).values())
        counts: dict[str, int] = {}
        for option, _ in answers:
            counts[option] = counts.get(option, 0) + 1
        return counts, [(nick, option) for option, nick in answers if nick]

    def _answer_of(self, code, number, session):
        with self._lock:
            found = self._current_answers(code, number).get(session)
        return None if found is None else found[0]

    def _delete(self, record: ClassRecord) -> None:
        with self._lock:
            self._forget(record.code)

    def _announce(self, code: str, version: int | None) -> None:
        self._deliver(code, version)
