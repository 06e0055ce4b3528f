"""The class model and the store interface: what a live class is and who may change it.

An instructor creates a class from a **snapshot** (a small JSON-able dict the page chooses:
a corpus reference or text hash, the trainer settings, the step count) and gets
`ClassKeys`: a short join code, a join link token and a secret instructor token. Only the
instructor token can move the step, open, close or reveal a question, or end the class.
Students join with the code (or the link token) and read a `ClassState` whose ``version``
goes up on every change the students see, so a poller asks `ClassStore.poll` with the
version it has and gets None while nothing changed. While a question is open each session
answers once (an optional nickname, capped at `NICKNAME_MAX` characters and stored as
given: escaping it is the page's job); the instructor reads a `Tally` (answer counts for a
bar chart) and reveals the correct options (several when pairs tie; the page grades).

Every change the students see is also **announced**: `ClassStore.watch` registers a
listener that the store calls with ``(code, version)`` after each change by the
instructor and ``(code, None)`` when a class ends, in every process that shares the store
(the memory store calls it in the changing thread; Redis publishes the change and one
subscriber thread per watching store calls it). The page wakes its followers with it
instead of having each poll every second; a listener must return quickly.

A class lives ``ttl_seconds`` (3 hours by default) after its last action (creating, a
change by the instructor, a join, an answer; polling does not count), then is gone. An
unknown, malformed, ended or expired code raises `ClassNotFound`. Every error here is a
`ClassError`, a ValueError whose message a student can read as it is.

`ClassStore` holds the rules once; a backend supplies a handful of storage primitives,
each atomic: `classroom.memory.MemoryClassStore` (in the server process) and
`classroom.redis_store.RedisClassStore` (shared by several processes).

Left out: drawing anything, grading (the page grades ties as the Train page does), and
Streamlit (this package never imports it).
"""
from __future__ import annotations

import json
import math
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

from classroom import codes
from classroom.limits import DEFAULT_LIMITS, Limit, RateLimited, RateLimiter

DEFAULT_TTL_SECONDS = 3 * 3600
NICKNAME_MAX = 24
OPTION_MAX = 80
OPTIONS_MAX = 12
PROMPT_MAX = 200
SNAPSHOT_MAX_BYTES = 8192
DEFAULT_MAX_ANSWERS = 500
DEFAULT_MAX_CLASSES = 200

WRONG_INSTRUCTOR_LINK = ("This instructor link does not control a class: use the link from the class's own "
                         "page (a class ends when its instructor ends it or after it has been idle a while).")
WRONG_PASSPHRASE = "That is not this server's instructor passphrase: ask whoever runs the server for it."

__all__ = [
    "ClassError", "ClassNotFound", "NotInstructor", "QuestionNotOpen", "AlreadyAnswered",
    "ClassFull", "StoreUnavailable", "RateLimited",
    "ClassKeys", "Question", "ClassState", "Tally", "ClassRecord", "ClassStore",
    "DEFAULT_TTL_SECONDS", "DEFAULT_MAX_CLASSES", "NICKNAME_MAX",
    "WRONG_INSTRUCTOR_LINK", "WRONG_PASSPHRASE",
]


# ---- errors ---------------------------------------------------------------------------------

class ClassError(ValueError):
    """Base of every class error; the message is meant for the person at the screen."""


class ClassNotFound(ClassError):
    """The code is malformed, unknown, or its class ended or expired."""


class NotInstructor(ClassError):
    """A change that needs the instructor link was tried without it."""


class QuestionNotOpen(ClassError):
    """An answer came when no question was open (or the question changed)."""


class AlreadyAnswered(ClassError):
    """This session already answered the open question."""


class ClassFull(ClassError):
    """A bound was reached: too many classes on this server, or answers to one question."""


def class_limit_message(max_classes: int) -> str:
    return f"This server is running its limit of {max_classes} classes; try again when one ends."


class StoreUnavailable(ClassError):
    """The shared store (Redis) cannot be reached; the class resumes when it is back."""


# ---- the model ------------------------------------------------------------------------------

@dataclass(frozen=True)
class ClassKeys:
    """What the instructor gets on creating a class. Keep ``instructor_token`` private."""

    code: str
    join_token: str
    instructor_token: str

    @property
    def display_code(self) -> str:
        return codes.format_code(self.code)


@dataclass(frozen=True)
class Question:
    """A question put to the class. ``correct`` is empty until revealed."""

    number: int
    prompt: str
    options: tuple[str, ...]
    step: int
    status: str  # "open" | "closed" | "revealed"
    correct: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"number": self.number, "prompt": self.prompt, "options": list(self.options),
                "step": self.step, "status": self.status, "correct": list(self.correct)}

    @classmethod
    def from_json(cls, d: Mapping) -> "Question":
        return cls(number=d["number"], prompt=d["prompt"], options=tuple(d["options"]),
                   step=d["step"], status=d["status"], correct=tuple(d["correct"]))


@dataclass(frozen=True)
class ClassRecord:
    """Everything stored about a class except the answers (kept apart, per question)."""

    code: str
    join_token: str
    instructor_digest: str
    snapshot_json: str
    step: int
    version: int
    question: Question | None
    questions_asked: int
    created: float

    def to_json(self) -> str:
        return json.dumps({
            "code": self.code, "join_token": self.join_token,
            "instructor_digest": self.instructor_digest, "snapshot": self.snapshot_json,
            "step": self.step, "version": self.version,
            "question": self.question.to_json() if self.question else None,
            "questions_asked": self.questions_asked, "created": self.created,
        }, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> "ClassRecord":
        d = json.loads(text)
        q = d["question"]
        return cls(code=d["code"], join_token=d["join_token"],
                   instructor_digest=d["instructor_digest"], snapshot_json=d["snapshot"],
                   step=d["step"], version=d["version"],
                   question=Question.from_json(q) if q else None,
                   questions_asked=d["questions_asked"], created=d["created"])


@dataclass(frozen=True)
class ClassState:
    """What every member of the class may see. ``version`` changes when any of it does."""

    code: str
    join_token: str
    snapshot: dict
    step: int
    version: int
    question: Question | None
    expires_at: float

    @property
    def display_code(self) -> str:
        return codes.format_code(self.code)


@dataclass(frozen=True)
class Tally:
    """Answers to one question: ``counts`` in option order (zeros included)."""

    number: int
    counts: tuple[tuple[str, int], ...]
    nicknames: tuple[tuple[str, str], ...]  # (nickname, option) for answers that gave one

    @property
    def total(self) -> int:
        return sum(n for _, n in self.counts)


# ---- the store ------------------------------------------------------------------------------

class ClassStore(ABC):
    """The rules of a class, over atomic storage primitives that a backend supplies.

    ``clock`` gives the time in seconds (injected by tests); it decides expiry and drives
    the rate limits. Every method is safe to call from several threads at once.
    """

    def __init__(self, *, ttl_seconds: float = DEFAULT_TTL_SECONDS,
                 limits: Mapping[str, Limit] = DEFAULT_LIMITS,
                 clock: Callable[[], float] = time.time,
                 max_answers: int = DEFAULT_MAX_ANSWERS,
                 max_classes: int = DEFAULT_MAX_CLASSES,
                 passphrase: str | None = None):
        if not (isinstance(ttl_seconds, (int, float)) and ttl_seconds > 0):
            raise ValueError(f"ttl_seconds must be a positive number of seconds, got {ttl_seconds!r}")
        if not (isinstance(max_classes, int) and max_classes > 0):
            raise ValueError(f"max_classes must be a whole number > 0, got {max_classes!r}")
        self.ttl_seconds = float(ttl_seconds)
        self.max_answers = max_answers
        self.max_classes = max_classes
        self._passphrase_digest = codes.token_digest(passphrase) if passphrase else None
        self._clock = clock
        self.limiter = RateLimiter({**DEFAULT_LIMITS, **limits}, clock=clock)
        self._listeners: tuple[Callable[[str | None, int | None], None], ...] = ()
        self._listeners_lock = threading.Lock()
        #: listener calls that raised (a listener's error never reaches the instructor)
        self.listener_errors = 0

    @property
    def needs_passphrase(self) -> bool:
        """Whether starting a class asks for the deployment's instructor passphrase."""
        return self._passphrase_digest is not None

    # ---- students ----

    def create_class(self, snapshot: Mapping[str, Any], *, session: str, client: str | None = None,
                     passphrase: str | None = None) -> ClassKeys:
        """Start a class at step 0 from ``snapshot``; returns the codes.

        Rate-limited per ``client`` (the client address key, `classroom.clients`; the
        session when None). When the store has a passphrase, ``passphrase`` must match it;
        a wrong one counts as a wrong guess from that address.
        """
        snapshot_json = _snapshot_json(snapshot)
        who = _who(session, client)
        if self._passphrase_digest is not None:
            self.limiter.check(who, "guess")
            if not codes.token_matches(passphrase, self._passphrase_digest):
                self.limiter.spend(who, "guess")
                raise NotInstructor(WRONG_PASSPHRASE)
        self.limiter.take(who, "create")
        token = codes.new_instructor_token()
        now = self._clock()
        for _ in range(8):  # a clash among 2**40 codes is rare; a few tries end it
            record = ClassRecord(
                code=codes.new_join_code(), join_token=codes.new_join_token(),
                instructor_digest=codes.token_digest(token), snapshot_json=snapshot_json,
                step=0, version=1, question=None, questions_asked=0, created=now)
            if self._insert(record, now):
                return ClassKeys(record.code, record.join_token, token)
        raise ClassFull("Could not find a free class code; try again.")

    def join(self, code_or_token: str, *, session: str, client: str | None = None) -> ClassState:
        """Join with a typed code or a link token; counts as an action. Rate-limited per
        session, and a wrong code spends a ``guess`` of ``client`` (see `classroom.limits`)."""
        self.limiter.take(_session(session), "join")
        who = _who(session, client)
        self.limiter.check(who, "guess")
        try:
            code = self._resolve(code_or_token)
            record, touched = self._live(code)
        except ClassNotFound:
            self.limiter.spend(who, "guess")
            raise
        now = self._clock()
        self._touch(record, now)
        return self._state(record, max(now, touched))

    def poll(self, code: str, *, session: str, since: int | None = None) -> ClassState | None:
        """The class state, or None when its version is still ``since`` (rate-limited)."""
        self.limiter.take(_session(session), "poll")
        record, touched = self._live(self._resolve(code), polled=True)
        if since is not None and record.version == since:
            return None
        return self._state(record, touched)

    def answer(self, code: str, option: str, *, session: str, nickname: str | None = None,
               question: int | None = None) -> None:
        """Answer the open question once per session. ``question`` (its number) guards
        against answering a newer question than the one the student saw."""
        session = _session(session)
        self.limiter.take(session, "answer")
        nickname = _nickname(nickname)
        code = self._resolve(code)
        for _ in range(20):  # retried only when the class changed between read and write
            record, _touched = self._live(code)
            q = record.question
            if q is None or q.status != "open" or (question is not None and q.number != question):
                raise QuestionNotOpen("That question is closed: answer the one on the screen now.")
            if option not in q.options:
                raise ClassError(f"{option!r} is not one of the choices: pick one of {list(q.options)}.")
            outcome = self._add_answer(record, session, option, nickname, self._clock())
            if outcome == "ok":
                return
            if outcome == "already":
                raise AlreadyAnswered("You have already answered this question.")
            if outcome == "full":
                raise ClassFull(f"This question has taken its {self.max_answers} answers.")
            if outcome == "gone":
                raise self._not_found(code)
        raise ClassError("The class is changing quickly; try answering again.")

    def my_answer(self, code: str, *, session: str) -> str | None:
        """The option this session chose for the current question, if any."""
        record, _ = self._live(self._resolve(code))
        if record.question is None:
            return None
        return self._answer_of(record.code, record.question.number, _session(session))

    def tally(self, code: str, *, instructor_token: str | None = None) -> Tally | None:
        """Answer counts for the current question: the instructor's at any time, everyone's
        once revealed. None when there is no question."""
        record, _ = self._live(self._resolve(code))
        q = record.question
        if q is None:
            return None
        if q.status != "revealed" and not codes.token_matches(instructor_token, record.instructor_digest):
            raise NotInstructor("The answers are shown to everyone once the instructor reveals them.")
        counts, nicknames = self._answers(record.code, q.number)
        return Tally(q.number, tuple((o, counts.get(o, 0)) for o in q.options), tuple(nicknames))

    # ---- the instructor ----

    def is_instructor(self, code: str, instructor_token: str) -> bool:
        record, _ = self._live(self._resolve(code))
        return codes.token_matches(instructor_token, record.instructor_digest)

    def claim(self, code: str, instructor_token: str, *, session: str, client: str | None = None) -> ClassState:
        """Open an instructor link: the class's state if ``instructor_token`` is its own.

        Every wrong link (a malformed or unknown code, an ended or expired class, a wrong
        token) raises the same `NotInstructor` message, so the link is no oracle for
        which codes exist; each spends a ``guess`` of ``client``, and every try spends a
        ``teach`` (see `classroom.limits`).
        """
        who = _who(session, client)
        self.limiter.check(who, "guess")
        self.limiter.take(who, "teach")
        try:
            record, touched = self._live(self._resolve(code))
        except ClassNotFound:
            record = None
        if record is None or not codes.token_matches(instructor_token, record.instructor_digest):
            self.limiter.spend(who, "guess")
            raise NotInstructor(WRONG_INSTRUCTOR_LINK)
        return self._state(record, touched)

    def set_step(self, code: str, step: int, *, instructor_token: str) -> ClassState:
        if not isinstance(step, int) or isinstance(step, bool) or step < 0:
            raise ClassError(f"step must be a whole number >= 0, got {step!r}")
        return self._change(code, instructor_token, lambda r: replace(r, step=step))

    def open_question(self, code: str, options: Sequence[str], *, instructor_token: str,
                      prompt: str = "Which pair merges next?") -> ClassState:
        """Put a new question (replacing any earlier one and its answers)."""
        options = _options(options)
        prompt = _text(prompt, "prompt", PROMPT_MAX)

        def ask(r: ClassRecord) -> ClassRecord:
            n = r.questions_asked + 1
            return replace(r, questions_asked=n,
                           question=Question(n, prompt, options, r.step, "open"))
        return self._change(code, instructor_token, ask)

    def close_question(self, code: str, *, instructor_token: str) -> ClassState:
        """Stop taking answers (the counts stay)."""
        def close(r: ClassRecord) -> ClassRecord:
            q = _current(r)
            return r if q.status != "open" else replace(r, question=replace(q, status="closed"))
        return self._change(code, instructor_token, close)

    def reveal(self, code: str, correct: Sequence[str], *, instructor_token: str) -> ClassState:
        """Close the question and show ``correct`` (every tied winner the page accepts)."""
        correct = tuple(correct) if not isinstance(correct, str) else (correct,)

        def show(r: ClassRecord) -> ClassRecord:
            q = _current(r)
            wrong = [c for c in correct if c not in q.options]
            if not correct or wrong:
                raise ClassError(f"the correct answers must be among the options {list(q.options)}, got {list(correct)}")
            return replace(r, question=replace(q, status="revealed", correct=correct))
        return self._change(code, instructor_token, show)

    def end_class(self, code: str, *, instructor_token: str) -> None:
        record, _ = self._live(self._resolve(code))
        self._check_instructor(record, instructor_token)
        self._delete(record)
        self._announce(record.code, None)

    # ---- change announcements ----

    def watch(self, listener: Callable[[str | None, int | None], None]) -> Callable[[], None]:
        """Call ``listener(code, version)`` after every change the students see, made in
        any process sharing this store (``version`` None: the class ended; ``code`` None:
        announcements may have been lost, e.g. Redis was away, so anything may have
        changed). Returns a function that stops the calls.

        The listener runs in the thread that made the change (memory store) or in the
        store's one subscriber thread (Redis), so it must only note or schedule work.
        An exception it raises is counted in ``listener_errors`` and goes no further.
        """
        if not callable(listener):
            raise TypeError(f"listener must be a function of (code, version), got {listener!r}")
        with self._listeners_lock:
            self._listeners += (listener,)
        self._start_watching()

        def stop() -> None:
            with self._listeners_lock:
                self._listeners = tuple(f for f in self._listeners if f is not listener)
        return stop

    def _deliver(self, code: str | None, version: int | None) -> None:
        """Call every listener of this store object (in this process)."""
        for listener in self._listeners:
            try:
                listener(code, version)
            except Exception:  # a listener's bug must not undo the instructor's step
                self.listener_errors += 1

    # ---- the rules, shared by the backends ----

    def _change(self, code: str, instructor_token: str, edit) -> ClassState:
        code = self._resolve(code)
        for _ in range(20):  # compare-and-set on the version; retried if another change won
            record, _ = self._live(code)
            self._check_instructor(record, instructor_token)
            new = edit(record)
            if new is record:
                return self._state(record, self._clock())
            new = replace(new, version=record.version + 1)
            now = self._clock()
            outcome = self._replace(new, now, expected_version=record.version)
            if outcome == "ok":
                self._announce(new.code, new.version)
                return self._state(new, now)
            if outcome == "gone":
                raise self._not_found(code)
        raise ClassError("The class is changing quickly; try again.")

    def _check_instructor(self, record: ClassRecord, token: str) -> None:
        if not codes.token_matches(token, record.instructor_digest):
            raise NotInstructor("Only the instructor's link can change the class.")

    def _resolve(self, code_or_token: str) -> str:
        code = codes.canonical_code(code_or_token)
        if code is not None:
            return code
        if isinstance(code_or_token, str) and 16 <= len(code_or_token) <= 64:
            code = self._code_for_token(code_or_token)
            if code is not None:
                return code
            raise self._not_found(None)
        raise ClassNotFound(
            f"{str(code_or_token)[:40]!r} is not a class code: a code has {codes.CODE_LENGTH} "
            "letters and digits, like 7K3Q-X9M2.")

    def _live(self, code: str, *, polled: bool = False) -> tuple[ClassRecord, float]:
        found = self._load_polled(code) if polled else self._load(code)
        if found is None:
            raise self._not_found(code)
        record, touched = found
        if self._clock() - touched > self.ttl_seconds:
            self._delete(record)
            raise self._not_found(code)
        return record, touched

    def _not_found(self, code: str | None) -> ClassNotFound:
        what = f"class {codes.format_code(code)}" if code else "class in this link"
        hours = self.ttl_seconds / 3600
        life = _count(hours, "hour") if hours >= 1 else _count(math.ceil(self.ttl_seconds / 60), "minute")
        return ClassNotFound(
            f"There is no {what}: check the code on the screen. A class ends when the "
            f"instructor ends it, or {life} after its last action.")

    def _state(self, record: ClassRecord, touched: float) -> ClassState:
        return ClassState(code=record.code, join_token=record.join_token,
                          snapshot=json.loads(record.snapshot_json), step=record.step,
                          version=record.version, question=record.question,
                          expires_at=touched + self.ttl_seconds)

    # ---- storage primitives: each one atomic ----

    @abstractmethod
    def _insert(self, record: ClassRecord, now: float) -> bool:
        """Store a new class; False if its code or link token is taken."""

    def _load_polled(self, code: str) -> tuple[ClassRecord, float] | None:
        """`_load` for a poll, which only reads: a backend may answer from a copy it knows
        to be current (`RedisClassStore`); every other call reads the store itself."""
        return self._load(code)

    @abstractmethod
    def _load(self, code: str) -> tuple[ClassRecord, float] | None:
        """The record and the time of its last action, or None."""

    @abstractmethod
    def _code_for_token(self, join_token: str) -> str | None:
        """The code a join link token opens, or None."""

    @abstractmethod
    def _replace(self, record: ClassRecord, now: float, *, expected_version: int) -> str:
        """Store ``record`` if the stored version is ``expected_version``: 'ok', 'stale'
        or 'gone'. Answers to questions other than ``record.question`` may be dropped."""

    @abstractmethod
    def _touch(self, record: ClassRecord, now: float) -> None:
        """Note an action at ``now`` (if the class still exists)."""

    @abstractmethod
    def _add_answer(self, record: ClassRecord, session: str, option: str,
                    nickname: str | None, now: float) -> str:
        """Record an answer to ``record.question`` if the stored version is still
        ``record.version``: 'ok', 'already', 'full', 'stale' or 'gone'."""

    @abstractmethod
    def _answers(self, code: str, number: int) -> tuple[dict[str, int], list[tuple[str, str]]]:
        """Counts per option and (nickname, option) pairs for question ``number``."""

    @abstractmethod
    def _answer_of(self, code: str, number: int, session: str) -> str | None:
        """The option ``session`` chose for question ``number``."""

    @abstractmethod
    def _delete(self, record: ClassRecord) -> None:
        """Remove the class, its link token and its answers."""

    @abstractmethod
    def _announce(self, code: str, version: int | None) -> None:
        """Make every process's listeners hear of a change (`watch`); never raises."""

    def _start_watching(self) -> None:
        """Start whatever carries other processes' announcements here (once; idempotent)."""


# ---- input checks ---------------------------------------------------------------------------

def _count(n: float, unit: str) -> str:
    """A number and its unit, singular for exactly one.

    >>> _count(1, "minute"), _count(2, "minute"), _count(1.5, "hour"), _count(1.0, "hour")
    ('1 minute', '2 minutes', '1.5 hours', '1 hour')
    """
    return f"{n:g} {unit}" + ("" if n == 1 else "s")


def _who(session: str, client: str | None) -> str:
    """The key of the per-address limits: the client address, else the session."""
    session = _session(session)
    if client is None:
        return session
    if not isinstance(client, str) or not client or len(client) > 64:
        raise TypeError(f"client must be a non-empty address key (at most 64 characters), got {client!r}")
    return "addr:" + client


def _current(record: ClassRecord) -> Question:
    if record.question is None:
        raise QuestionNotOpen("There is no question to close or reveal: open one first.")
    return record.question


def _session(session: object) -> str:
    if not isinstance(session, str) or not session or len(session) > 128:
        raise TypeError(f"session must be a non-empty string id (at most 128 characters), got {session!r}")
    return session


def _snapshot_json(snapshot: object) -> str:
    if not isinstance(snapshot, Mapping):
        raise TypeError(f"snapshot must be a dict of settings, got {type(snapshot).__name__}")
    try:
        text = json.dumps(dict(snapshot), sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as e:
        raise TypeError(f"snapshot must hold only JSON values (str, number, bool, None, list, dict): {e}") from None
    if len(text.encode("utf-8")) > SNAPSHOT_MAX_BYTES:
        raise ClassError(
            f"snapshot is {len(text)} characters, over {SNAPSHOT_MAX_BYTES}: store a corpus "
            "reference or a hash of the text, not the text itself")
    return text


def _nickname(nickname: object) -> str | None:
    """Stripped and capped at NICKNAME_MAX characters; empty means none. Not escaped."""
    if nickname is None:
        return None
    if not isinstance(nickname, str):
        raise TypeError(f"nickname must be a string or None, got {type(nickname).__name__}")
    nickname = nickname.strip()[:NICKNAME_MAX]
    return nickname or None


def _text(value: object, name: str, limit: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ClassError(f"{name} must be a non-empty string, got {value!r}")
    if len(value) > limit:
        raise ClassError(f"{name} is {len(value)} characters, over {limit}: shorten it")
    return value


def _options(options: object) -> tuple[str, ...]:
    if isinstance(options, str) or not isinstance(options, Sequence):
        raise TypeError(f"options must be a list of strings, got {options!r}")
    options = tuple(_text(o, "an option", OPTION_MAX) for o in options)
    if not 2 <= len(options) <= OPTIONS_MAX:
        raise ClassError(f"a question needs 2 to {OPTIONS_MAX} options, got {len(options)}")
    if len(set(options)) != len(options):
        raise ClassError(f"the options must differ from one another, got {list(options)}")
    return options
