"""The class store: one behaviour suite, run through both backends.

The Redis runs use a real redis-server started here on a free loopback port (see
redis_server.py); each test gets its own key prefix. Time is a fake clock the test moves,
so expiry and rate limits are tested without waiting.
"""
from __future__ import annotations

import subprocess
import sys
import threading
import time
import uuid

import pytest

from classroom import (
    DEFAULT_LIMITS, WRONG_INSTRUCTOR_LINK, WRONG_PASSPHRASE, AlreadyAnswered, ClassError, ClassFull,
    ClassNotFound, Limit, NotInstructor, QuestionNotOpen, RateLimited, StoreUnavailable, client_key,
    guess_odds, open_store, proxy_hops,
)
from classroom.codes import ALPHABET, CODE_LENGTH, canonical_code
from classroom.memory import MemoryClassStore
from classroom.store import NICKNAME_MAX
from redis_server import RedisServer, require_redis_server

SNAPSHOT = {"corpus": "sennrich_algorithm1", "text_sha256": "ab" * 32,
            "settings": {"units": "char", "end_of_word": "separate", "merges": 10}}
GENEROUS = {a: Limit(burst=10_000, per_second=1000.0) for a in ("create", "join", "answer", "poll")}


class FakeClock:
    def __init__(self, start: float = 1_000_000.0):
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    require_redis_server()
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture(params=["memory", "redis"])
def make_store(request, clock):
    """A factory: make_store(**options) -> a store of this run's backend, on the fake clock."""
    made = []

    def make(**options):
        options.setdefault("clock", clock)
        options.setdefault("limits", GENEROUS)
        if request.param == "memory":
            store = open_store("memory", **options)
        else:
            server = request.getfixturevalue("redis_server")
            store = open_store(server.url, prefix=f"test:{uuid.uuid4().hex}:", **options)
        made.append(store)
        return store
    yield make
    for store in made:
        if hasattr(store, "close"):
            store.close()


@pytest.fixture
def store(make_store):
    return make_store()


def new_class(store, session="teacher"):
    return store.create_class(SNAPSHOT, session=session)


# ---- codes and joining ----------------------------------------------------------------------

def test_create_gives_a_typeable_code_and_two_different_long_tokens(store):
    keys = new_class(store)
    assert len(keys.code) == CODE_LENGTH and set(keys.code) <= set(ALPHABET)
    assert keys.display_code == keys.code[:4] + "-" + keys.code[4:]
    assert len(keys.instructor_token) >= 32 and len(keys.join_token) >= 22
    assert keys.instructor_token != keys.join_token
    assert keys.instructor_token not in (keys.code, keys.display_code)


def test_two_classes_get_different_codes(store):
    a, b = new_class(store), new_class(store)
    assert a.code != b.code and a.join_token != b.join_token and a.instructor_token != b.instructor_token


def test_join_by_code_as_typed_or_by_link_token(store):
    keys = new_class(store)
    typed = f" {keys.code[:4].lower()}-{keys.code[4:]} "
    by_code = store.join(typed, session="s1")
    by_link = store.join(keys.join_token, session="s2")
    assert by_code == by_link
    assert by_code.snapshot == SNAPSHOT and by_code.step == 0 and by_code.question is None


@pytest.mark.parametrize("bad", ["", "ABC", "7K3Q-X9M", "7K3Q-X9M2-7", "UUUU-UUUU", "x" * 22, "x" * 500])
def test_malformed_or_unknown_codes_raise_class_not_found(store, bad):
    new_class(store)
    with pytest.raises(ClassNotFound) as err:
        store.join(bad, session="s1")
    assert isinstance(err.value, ValueError)
    assert "code" in str(err.value) or "link" in str(err.value)


def test_unknown_well_formed_code_says_check_the_code(store):
    keys = new_class(store)
    other = "0000-0000" if keys.code != "00000000" else "1111-1111"
    with pytest.raises(ClassNotFound, match="check the code"):
        store.join(other, session="s1")


# ---- the instructor --------------------------------------------------------------------------

def test_only_the_instructor_token_changes_the_class(store):
    keys = new_class(store)
    before = store.join(keys.code, session="student")
    near = keys.instructor_token[:-1] + ("y" if keys.instructor_token.endswith("x") else "x")  # one character off
    for wrong in (None, "", keys.join_token, keys.code, near):
        for change in (lambda t: store.set_step(keys.code, 3, instructor_token=t),
                       lambda t: store.open_question(keys.code, ["a + b", "b + c"], instructor_token=t),
                       lambda t: store.end_class(keys.code, instructor_token=t)):
            with pytest.raises(NotInstructor):
                change(wrong)
    assert store.poll(keys.code, session="student", since=before.version) is None
    assert not store.is_instructor(keys.code, keys.join_token)
    assert store.is_instructor(keys.code, keys.instructor_token)


def test_a_step_change_moves_the_version_and_a_poll_sees_it(store):
    keys = new_class(store)
    seen = store.join(keys.code, session="student")
    assert store.poll(keys.code, session="student", since=seen.version) is None
    store.set_step(keys.code, 4, instructor_token=keys.instructor_token)
    now = store.poll(keys.code, session="student", since=seen.version)
    assert now.step == 4 and now.version == seen.version + 1
    assert store.poll(keys.code, session="student", since=now.version) is None


class Heard:
    """A listener for `ClassStore.watch` that keeps what it heard, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str | None, int | None]] = []
        self.arrived = threading.Condition()

    def __call__(self, code, version) -> None:
        with self.arrived:
            self.calls.append((code, version))
            self.arrived.notify_all()

    def wait_for(self, n: int, seconds: float = 10.0) -> list:
        """The first n calls (the Redis subscriber thread delivers them a moment later)."""
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.calls) >= n, timeout=seconds)
            return list(self.calls)

    def until_listening(self, store, keys, seconds: float = 10.0) -> None:
        """Step the class through ``store`` until this listener hears a step (the Redis
        subscriber is up once it hears one)."""
        deadline = time.monotonic() + seconds
        while not self.calls and time.monotonic() < deadline:
            store.set_step(keys.code, 1, instructor_token=keys.instructor_token)
            self.wait_for(1, seconds=0.2)

    def until_heard(self, call: tuple[str | None, int | None], seconds: float = 10.0) -> None:
        """Wait until this listener has heard ``call``."""
        deadline = time.monotonic() + seconds
        while call not in self.calls and time.monotonic() < deadline:
            self.wait_for(len(self.calls) + 1, seconds=0.2)


def _until_subscribed(store, seconds: float = 10.0) -> None:
    """Redis: wait until the watcher thread has subscribed (it subscribes on its own thread,
    so an announcement made sooner reaches nobody, as Redis publish/subscribe does)."""
    channel = getattr(store, "_channel", None)
    if channel is None:
        return
    deadline = time.monotonic() + seconds
    while dict(store._client.pubsub_numsub(channel)).get(channel, 0) < 1:
        assert time.monotonic() < deadline, "the watcher never subscribed"
        time.sleep(0.02)


def test_every_change_the_students_see_is_announced_and_so_is_the_end(store):
    heard = Heard()
    store.watch(heard)
    _until_subscribed(store)
    keys = new_class(store)
    store.join(keys.code, session="s1")  # a join changes nothing the class sees
    t = keys.instructor_token
    v1 = store.set_step(keys.code, 3, instructor_token=t).version
    v2 = store.open_question(keys.code, OPTIONS, instructor_token=t).version
    store.answer(keys.code, OPTIONS[0], session="s1")  # an answer is not announced (only the tally moves)
    v3 = store.close_question(keys.code, instructor_token=t).version
    store.end_class(keys.code, instructor_token=t)
    expected = [(keys.code, v1), (keys.code, v2), (keys.code, v3), (keys.code, None)]
    assert heard.wait_for(4) == expected
    assert len(set([v1, v2, v3])) == 3


def test_a_listener_that_fails_never_undoes_the_step_and_stop_ends_the_calls(store):
    def broken(code, version):
        raise RuntimeError("a bug in a listener")

    heard = Heard()
    stop_broken = store.watch(broken)
    stop = store.watch(heard)
    keys = new_class(store)
    assert store.set_step(keys.code, 1, instructor_token=keys.instructor_token).step == 1
    assert heard.wait_for(1) == [(keys.code, 2)]
    assert store.listener_errors == 1
    stop()
    stop_broken()
    store.set_step(keys.code, 2, instructor_token=keys.instructor_token)
    marker = Heard()
    store.watch(marker)
    store.set_step(keys.code, 3, instructor_token=keys.instructor_token)
    marker.wait_for(1)  # (Redis) the step-2 announcement went out before this one
    assert heard.calls == [(keys.code, 2)] and store.listener_errors == 1
    with pytest.raises(TypeError, match="listener"):
        store.watch("not a function")


def test_refused_changes_are_not_announced(store):
    heard = Heard()
    store.watch(heard)
    keys = new_class(store)
    with pytest.raises(NotInstructor):
        store.set_step(keys.code, 1, instructor_token=keys.join_token)
    marker = store.set_step(keys.code, 2, instructor_token=keys.instructor_token).version
    assert heard.wait_for(1) == [(keys.code, marker)]


@pytest.mark.parametrize("step", [-1, 1.5, "3", True])
def test_a_bad_step_is_refused(store, step):
    keys = new_class(store)
    with pytest.raises(ClassError, match="step"):
        store.set_step(keys.code, step, instructor_token=keys.instructor_token)


def test_end_class_makes_the_code_unknown(store):
    keys = new_class(store)
    store.end_class(keys.code, instructor_token=keys.instructor_token)
    with pytest.raises(ClassNotFound):
        store.join(keys.code, session="s")
    with pytest.raises(ClassNotFound):
        store.join(keys.join_token, session="s")


# ---- questions and answers -------------------------------------------------------------------

OPTIONS = ["e + s", "s + t", "t + </w>", "l + o"]


def test_question_answer_tally_reveal(store):
    keys = new_class(store)
    t = keys.instructor_token
    state = store.open_question(keys.code, OPTIONS, instructor_token=t)
    q = state.question
    assert (q.number, q.status, q.options, q.correct) == (1, "open", tuple(OPTIONS), ())
    store.answer(keys.code, "e + s", session="s1", nickname="Ada")
    store.answer(keys.code, "e + s", session="s2")
    store.answer(keys.code, "s + t", session="s3", nickname="   ")
    assert store.my_answer(keys.code, session="s1") == "e + s"
    assert store.my_answer(keys.code, session="s9") is None
    tally = store.tally(keys.code, instructor_token=t)
    assert tally.counts == (("e + s", 2), ("s + t", 1), ("t + </w>", 0), ("l + o", 0))
    assert tally.total == 3 and tally.nicknames == (("Ada", "e + s"),)
    with pytest.raises(NotInstructor):
        store.tally(keys.code, instructor_token=keys.join_token)  # students wait for the reveal
    shown = store.reveal(keys.code, ["e + s", "s + t"], instructor_token=t)
    assert shown.question.status == "revealed" and shown.question.correct == ("e + s", "s + t")
    assert store.tally(keys.code) == tally  # now everyone may see it
    with pytest.raises(QuestionNotOpen):
        store.answer(keys.code, "e + s", session="s4")


def test_each_session_answers_once(store):
    keys = new_class(store)
    store.open_question(keys.code, OPTIONS, instructor_token=keys.instructor_token)
    store.answer(keys.code, "s + t", session="s1")
    with pytest.raises(AlreadyAnswered):
        store.answer(keys.code, "e + s", session="s1")
    assert store.tally(keys.code, instructor_token=keys.instructor_token).counts[1] == ("s + t", 1)


def test_answers_refused_without_an_open_question_or_for_a_stale_one(store):
    keys = new_class(store)
    t = keys.instructor_token
    with pytest.raises(QuestionNotOpen):
        store.answer(keys.code, "e + s", session="s1")
    store.open_question(keys.code, OPTIONS, instructor_token=t)
    store.close_question(keys.code, instructor_token=t)
    with pytest.raises(QuestionNotOpen):
        store.answer(keys.code, "e + s", session="s1")
    second = store.open_question(keys.code, ["x + y", "y + z"], instructor_token=t).question
    assert second.number == 2
    with pytest.raises(QuestionNotOpen):  # the student still had question 1 on screen
        store.answer(keys.code, "x + y", session="s1", question=1)
    store.answer(keys.code, "x + y", session="s1", question=2)


def test_a_new_question_starts_with_no_answers(store):
    keys = new_class(store)
    t = keys.instructor_token
    store.open_question(keys.code, OPTIONS, instructor_token=t)
    store.answer(keys.code, "e + s", session="s1")
    store.open_question(keys.code, OPTIONS, instructor_token=t)
    assert store.tally(keys.code, instructor_token=t).total == 0
    store.answer(keys.code, "l + o", session="s1")  # may answer the new one


def test_an_answer_must_be_one_of_the_options(store):
    keys = new_class(store)
    store.open_question(keys.code, OPTIONS, instructor_token=keys.instructor_token)
    with pytest.raises(ClassError, match="not one of the choices"):
        store.answer(keys.code, "q + z", session="s1")


def test_nickname_is_capped_and_stored_as_given(store):
    keys = new_class(store)
    store.open_question(keys.code, OPTIONS, instructor_token=keys.instructor_token)
    raw = "<b>" + "x" * 100
    store.answer(keys.code, "e + s", session="s1", nickname=raw)
    (nick, _), = store.tally(keys.code, instructor_token=keys.instructor_token).nicknames
    assert nick == raw[:NICKNAME_MAX] and nick.startswith("<b>")  # escaping is the page's job


@pytest.mark.parametrize("options", [["only one"], ["a", "a"], ["a", ""], ["x" * 81, "b"], "ab"])
def test_bad_options_are_refused(store, options):
    keys = new_class(store)
    with pytest.raises((ClassError, TypeError)):
        store.open_question(keys.code, options, instructor_token=keys.instructor_token)


def test_reveal_must_name_options(store):
    keys = new_class(store)
    t = keys.instructor_token
    store.open_question(keys.code, OPTIONS, instructor_token=t)
    for bad in ([], ["nope"]):
        with pytest.raises(ClassError, match="correct"):
            store.reveal(keys.code, bad, instructor_token=t)


# ---- concurrency -----------------------------------------------------------------------------

def _run_at_once(n, work):
    """Run work(i) in n threads released together; return the exceptions raised (or None)."""
    barrier = threading.Barrier(n)
    results = [None] * n

    def run(i):
        barrier.wait()
        try:
            work(i)
        except Exception as e:  # noqa: BLE001 - gathered for the assertions
            results[i] = e
    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=60)
    return results


def test_answers_from_many_threads_count_exactly_once_each(store):
    keys = new_class(store)
    store.open_question(keys.code, OPTIONS, instructor_token=keys.instructor_token)
    errors = _run_at_once(40, lambda i: store.answer(keys.code, OPTIONS[i % 4], session=f"s{i}"))
    assert errors == [None] * 40
    tally = store.tally(keys.code, instructor_token=keys.instructor_token)
    assert tally.counts == tuple((o, 10) for o in OPTIONS)


def test_one_session_answering_from_many_threads_counts_once(store):
    keys = new_class(store)
    store.open_question(keys.code, OPTIONS, instructor_token=keys.instructor_token)
    errors = _run_at_once(16, lambda i: store.answer(keys.code, OPTIONS[i % 4], session="same"))
    assert sum(e is None for e in errors) == 1
    assert all(isinstance(e, AlreadyAnswered) for e in errors if e is not None)
    assert store.tally(keys.code, instructor_token=keys.instructor_token).total == 1


def test_concurrent_instructor_changes_each_bump_the_version_once(store):
    keys = new_class(store)
    start = store.join(keys.code, session="s").version
    errors = _run_at_once(12, lambda i: store.set_step(keys.code, i + 1, instructor_token=keys.instructor_token))
    assert errors == [None] * 12
    assert store.poll(keys.code, session="s").version == start + 12


def test_answers_racing_a_close_are_counted_only_if_taken_before_it(store):
    keys = new_class(store)
    t = keys.instructor_token
    store.open_question(keys.code, OPTIONS, instructor_token=t)

    def work(i):
        if i == 0:
            store.close_question(keys.code, instructor_token=t)
        else:
            store.answer(keys.code, OPTIONS[0], session=f"s{i}")
    errors = _run_at_once(20, work)
    accepted = sum(e is None for e in errors[1:])
    assert all(isinstance(e, QuestionNotOpen) for e in errors[1:] if e is not None)
    assert store.tally(keys.code, instructor_token=t).total == accepted


# ---- expiry ----------------------------------------------------------------------------------

def test_a_class_expires_after_its_last_action(make_store, clock):
    store = make_store(ttl_seconds=3 * 3600)
    keys = new_class(store)
    clock.advance(2 * 3600)
    store.set_step(keys.code, 1, instructor_token=keys.instructor_token)  # an action: 3 h from here
    clock.advance(2 * 3600)
    state = store.poll(keys.code, session="s")
    assert state.step == 1
    clock.advance(1 * 3600 + 1)  # polling is not an action
    with pytest.raises(ClassNotFound, match="3 hours after its last action"):
        store.poll(keys.code, session="s")
    with pytest.raises(ClassNotFound):
        store.join(keys.join_token, session="s")


def test_answers_and_joins_keep_a_class_alive(make_store, clock):
    store = make_store(ttl_seconds=600)
    keys = new_class(store)
    store.open_question(keys.code, OPTIONS, instructor_token=keys.instructor_token)
    clock.advance(500)
    store.answer(keys.code, OPTIONS[0], session="s1")
    clock.advance(500)
    store.join(keys.code, session="s2")
    clock.advance(500)
    assert store.tally(keys.code, instructor_token=keys.instructor_token).total == 1


def test_the_lifetime_is_configurable(monkeypatch):
    monkeypatch.setenv("BPE_CLASS_HOURS", "0.5")
    assert open_store("memory").ttl_seconds == 1800
    monkeypatch.setenv("BPE_CLASS_HOURS", "forever")
    with pytest.raises(ValueError, match="BPE_CLASS_HOURS"):
        open_store("memory")


# ---- rate limits -----------------------------------------------------------------------------

def test_joining_is_rate_limited_per_session(make_store, clock):
    store = make_store(limits={**GENEROUS, "join": Limit(burst=5, per_second=1 / 12)})
    keys = new_class(store)
    for _ in range(5):
        with pytest.raises(ClassNotFound):
            store.join("0000-000Z" if keys.code != "0000000Z" else "1111-1111", session="guesser")
    with pytest.raises(RateLimited, match="wait 12 s") as err:
        store.join(keys.code, session="guesser")  # even the right code waits
    assert isinstance(err.value, ValueError) and err.value.action == "join"
    store.join(keys.code, session="someone else")
    clock.advance(12)
    store.join(keys.code, session="guesser")


def test_polling_and_answering_are_rate_limited(make_store, clock):
    store = make_store(limits={**GENEROUS, "poll": Limit(burst=3, per_second=1.0),
                               "answer": Limit(burst=1, per_second=0.5)})
    keys = new_class(store)
    store.open_question(keys.code, OPTIONS, instructor_token=keys.instructor_token)
    for _ in range(3):
        store.poll(keys.code, session="s")
    with pytest.raises(RateLimited):
        store.poll(keys.code, session="s")
    clock.advance(1)
    store.poll(keys.code, session="s")
    store.answer(keys.code, OPTIONS[0], session="s")
    with pytest.raises(RateLimited):
        store.answer(keys.code, OPTIONS[0], session="s")


def test_default_limits_let_a_follower_poll_every_second(make_store, clock):
    store = make_store(limits=open_store("memory").limiter.limits)
    keys = new_class(store)
    for _ in range(600):  # ten minutes of one poll a second
        store.poll(keys.code, session="follower")
        clock.advance(1)


# ---- bounds and input ------------------------------------------------------------------------

def test_memory_store_caps_classes_and_sweeps_expired_ones(clock):
    store = MemoryClassStore(max_classes=3, ttl_seconds=60, clock=clock, limits=GENEROUS)
    for _ in range(3):
        new_class(store)
    with pytest.raises(ClassFull, match="limit of 3 classes"):
        new_class(store)
    clock.advance(61)
    new_class(store)
    assert len(store) == 1


def test_answers_per_question_are_capped(make_store):
    store = make_store(max_answers=3)
    keys = new_class(store)
    store.open_question(keys.code, OPTIONS, instructor_token=keys.instructor_token)
    for i in range(3):
        store.answer(keys.code, OPTIONS[0], session=f"s{i}")
    with pytest.raises(ClassFull):
        store.answer(keys.code, OPTIONS[0], session="s3")


@pytest.mark.parametrize("snapshot, error", [
    ("not a dict", TypeError), ({"f": object()}, TypeError), ({"x": float("nan")}, TypeError),
    ({"text": "x" * 10_000}, ClassError),
])
def test_bad_snapshots_are_refused(store, snapshot, error):
    with pytest.raises(error):
        store.create_class(snapshot, session="t")


def test_the_snapshot_comes_back_as_a_copy(store):
    snap = {"settings": {"merges": 10}}
    keys = store.create_class(snap, session="t")
    snap["settings"]["merges"] = 99
    state = store.join(keys.code, session="s")
    state.snapshot["settings"]["merges"] = 7
    assert store.poll(keys.code, session="s").snapshot == {"settings": {"merges": 10}}


@pytest.mark.parametrize("setting", ["mongo://x", "redis:/x", "Memory"])
def test_an_unknown_store_setting_says_what_to_use(setting):
    with pytest.raises(ValueError, match="memory"):
        open_store(setting)


def test_the_setting_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("BPE_CLASS_STORE", "memory")
    assert isinstance(open_store(), MemoryClassStore)
    monkeypatch.delenv("BPE_CLASS_STORE")
    assert isinstance(open_store(), MemoryClassStore)


def test_the_package_never_imports_streamlit():
    code = ("import sys, classroom, classroom.memory, classroom.redis_store; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('streamlit', 'pandas', 'altair')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_canonical_code_round_trips_every_symbol():
    for i in range(0, len(ALPHABET), CODE_LENGTH):
        code = (ALPHABET[i:i + CODE_LENGTH] * 2)[:CODE_LENGTH]
        assert canonical_code(code.lower()) == code


# ---- Redis only ------------------------------------------------------------------------------

def test_redis_keys_carry_a_ttl(redis_server, clock):
    store = open_store(redis_server.url, prefix=f"test:{uuid.uuid4().hex}:", clock=clock, limits=GENEROUS,
                       ttl_seconds=3600)
    keys = new_class(store)
    store.open_question(keys.code, OPTIONS, instructor_token=keys.instructor_token)
    store.answer(keys.code, OPTIONS[0], session="s1")
    client = store._client
    found = list(client.scan_iter(match=store.prefix + "*"))
    assert len(found) == 5  # the class, its link token, the answers, the counts, the live set
    assert all(0 < client.pttl(k) <= 3600 * 1000 + 60_000 for k in found)
    store.end_class(keys.code, instructor_token=keys.instructor_token)
    assert list(client.scan_iter(match=store.prefix + "*")) == []
    store.close()


def test_two_stores_on_one_redis_share_a_class(redis_server, clock):
    prefix = f"test:{uuid.uuid4().hex}:"
    a = open_store(redis_server.url, prefix=prefix, clock=clock, limits=GENEROUS)
    b = open_store(redis_server.url, prefix=prefix, clock=clock, limits=GENEROUS)
    keys = new_class(a)
    b.open_question(keys.code, OPTIONS, instructor_token=keys.instructor_token)
    a.answer(keys.code, OPTIONS[1], session="s1")
    b.answer(keys.code, OPTIONS[1], session="s2")
    assert a.tally(keys.code, instructor_token=keys.instructor_token).counts[1] == (OPTIONS[1], 2)
    a.close()
    b.close()


def test_a_change_on_one_process_is_announced_on_the_others(redis_server, clock):
    """Two stores on one Redis stand for two app processes: a step set through one reaches
    the listeners of the other (Redis publish/subscribe), and only for its own prefix."""
    prefix = f"test:{uuid.uuid4().hex}:"
    a = open_store(redis_server.url, prefix=prefix, clock=clock, limits=GENEROUS)
    b = open_store(redis_server.url, prefix=prefix, clock=clock, limits=GENEROUS)
    other = open_store(redis_server.url, prefix=f"test:{uuid.uuid4().hex}:", clock=clock, limits=GENEROUS)
    heard_b, heard_other = Heard(), Heard()
    b.watch(heard_b)
    other.watch(heard_other)
    try:
        keys = new_class(a)
        heard_b.until_listening(a, keys)
        version = a.set_step(keys.code, 5, instructor_token=keys.instructor_token).version
        heard_b.until_heard((keys.code, version))
        assert (keys.code, version) in heard_b.calls
        assert heard_other.calls == []
        b._heard("junk")  # a stranger's message on the channel is dropped, not delivered
        b._heard("A B C")
        b._heard("X" * 100 + " 1")
        assert heard_b.calls[-1] == (keys.code, version)
    finally:
        for s in (a, b, other):
            s.close()


def test_after_a_redis_outage_the_listeners_hear_that_anything_may_have_changed(tmp_path, clock):
    require_redis_server()
    server = RedisServer(tmp_path)
    server.start()
    store = open_store(server.url, clock=clock, limits=GENEROUS)
    heard = Heard()
    store.watch(heard)
    try:
        keys = new_class(store)
        deadline = time.monotonic() + 10
        while not heard.calls and time.monotonic() < deadline:
            store.set_step(keys.code, 1, instructor_token=keys.instructor_token)
            heard.wait_for(1, seconds=0.2)
        assert heard.calls
        server.kill()
        time.sleep(1.5)  # the subscriber notices the broken connection
        server.start()
        deadline = time.monotonic() + 20
        while (None, None) not in heard.calls and time.monotonic() < deadline:
            heard.wait_for(len(heard.calls) + 1, seconds=0.5)
        assert (None, None) in heard.calls  # "you may have missed something": followers poll
        n = len(heard.calls)
        version = store.set_step(keys.code, 2, instructor_token=keys.instructor_token).version
        assert (keys.code, version) in heard.wait_for(n + 1)
    finally:
        store.close()
        server.stop()


def test_redis_outage_gives_a_clear_error_and_the_class_resumes(tmp_path, clock):
    require_redis_server()
    server = RedisServer(tmp_path)
    server.start()
    store = open_store(server.url, clock=clock, limits=GENEROUS)
    try:
        keys = new_class(store)
        t = keys.instructor_token
        store.set_step(keys.code, 2, instructor_token=t)
        store.open_question(keys.code, OPTIONS, instructor_token=t)
        store.answer(keys.code, OPTIONS[0], session="s1")

        server.kill()  # as a crash would
        for call in (lambda: store.poll(keys.code, session="s1"),
                     lambda: store.answer(keys.code, OPTIONS[1], session="s2"),
                     lambda: store.set_step(keys.code, 3, instructor_token=t)):
            started = time.monotonic()
            with pytest.raises(StoreUnavailable, match="carries on by itself") as err:
                call()
            assert isinstance(err.value, ClassError) and isinstance(err.value, ValueError)
            assert time.monotonic() - started < 10  # a message, not a hang

        server.start()  # same port and folder: the append-only file brings the class back
        state = store.poll(keys.code, session="s1")
        assert state.step == 2 and state.question.status == "open"
        store.answer(keys.code, OPTIONS[1], session="s2")  # scripts are reloaded as needed
        with pytest.raises(AlreadyAnswered):
            store.answer(keys.code, OPTIONS[1], session="s1")
        assert store.set_step(keys.code, 3, instructor_token=t).step == 3
        tally = store.tally(keys.code, instructor_token=t)
        assert tally.counts[:2] == ((OPTIONS[0], 1), (OPTIONS[1], 1))
    finally:
        store.close()
        server.stop()


# ---- issue 26: limits by client address, caps, passphrase, guessing, what is kept ------------

def test_class_creation_is_limited_per_client_address_not_per_session(make_store, clock):
    """205 fresh sessions used to make 197 classes: the creation limit was per session."""
    store = make_store(limits={**GENEROUS, "create": DEFAULT_LIMITS["create"]})
    burst = DEFAULT_LIMITS["create"].burst
    for i in range(burst):
        store.create_class(SNAPSHOT, session=f"fresh-{i}", client="203.0.113.7")
    with pytest.raises(RateLimited, match="classes started from your network address"):
        store.create_class(SNAPSHOT, session="yet-another-fresh-session", client="203.0.113.7")
    store.create_class(SNAPSHOT, session="elsewhere", client="198.51.100.2")  # another address
    clock.advance(1 / DEFAULT_LIMITS["create"].per_second)
    store.create_class(SNAPSHOT, session="later", client="203.0.113.7")


def test_both_stores_cap_the_number_of_classes(make_store, clock):
    """The Redis store had no cap at all (300 classes in 14 s)."""
    store = make_store(max_classes=3, ttl_seconds=60)
    for i in range(3):
        store.create_class(SNAPSHOT, session="t", client=f"10.0.0.{i}")
    with pytest.raises(ClassFull, match="limit of 3 classes"):
        store.create_class(SNAPSHOT, session="t", client="10.0.0.9")
    ended = store.create_class  # an ended class frees its place at once
    clock.advance(61)  # the three expire: their places are free again
    keys = ended(SNAPSHOT, session="t", client="10.0.0.9")
    for i in range(2):
        store.create_class(SNAPSHOT, session="t", client=f"10.0.1.{i}")
    with pytest.raises(ClassFull):
        store.create_class(SNAPSHOT, session="t", client="10.0.0.10")
    store.end_class(keys.code, instructor_token=keys.instructor_token)
    store.create_class(SNAPSHOT, session="t", client="10.0.0.10")


def test_the_class_cap_comes_from_a_setting(monkeypatch):
    monkeypatch.setenv("BPE_MAX_CLASSES", "7")
    assert open_store("memory").max_classes == 7
    monkeypatch.setenv("BPE_MAX_CLASSES", "lots")
    with pytest.raises(ValueError, match="BPE_MAX_CLASSES"):
        open_store("memory")


def test_a_deployment_can_require_an_instructor_passphrase(make_store, monkeypatch):
    store = make_store(passphrase="correct horse")
    assert store.needs_passphrase and not make_store().needs_passphrase
    for wrong in (None, "", "Correct horse", "correct horse "):
        with pytest.raises(NotInstructor) as err:
            store.create_class(SNAPSHOT, session="t", client="203.0.113.7", passphrase=wrong)
        assert str(err.value) == WRONG_PASSPHRASE
    store.create_class(SNAPSHOT, session="t", client="203.0.113.7", passphrase="correct horse")
    monkeypatch.setenv("BPE_CLASS_PASSPHRASE", "from the environment")
    assert open_store("memory").needs_passphrase


def test_passphrase_guesses_are_limited_per_address(make_store):
    store = make_store(passphrase="correct horse")
    for _ in range(DEFAULT_LIMITS["guess"].burst):
        with pytest.raises(NotInstructor):
            store.create_class(SNAPSHOT, session="t", client="203.0.113.7", passphrase="guess")
    with pytest.raises(RateLimited, match="wrong class codes or links from your network address"):
        store.create_class(SNAPSHOT, session="t", client="203.0.113.7", passphrase="correct horse")
    store.create_class(SNAPSHOT, session="t", client="198.51.100.2", passphrase="correct horse")


def test_wrong_codes_are_limited_per_address_and_right_ones_are_free(make_store, clock):
    """Fresh sessions gave 152 join guesses a second: the join limit was per session. Wrong
    codes now spend the address's guesses; once they are spent every try from it is
    refused, right or wrong (no oracle); right codes spend none, so a lecture hall behind
    one school address can join together."""
    store = make_store()
    keys = new_class(store)
    for i in range(300):  # a lecture hall behind one address, each student a new session
        store.join(keys.join_token if i % 2 else keys.code, session=f"student-{i}", client="192.0.2.1")
    other = "0000-0000" if keys.code != "00000000" else "1111-1111"
    for i in range(DEFAULT_LIMITS["guess"].burst):
        with pytest.raises(ClassNotFound):
            store.join(other if i % 2 else "x" * 22, session=f"guesser-{i}", client="203.0.113.7")
    with pytest.raises(RateLimited, match="wrong class codes"):
        store.join(keys.code, session="guesser-fresh", client="203.0.113.7")
    store.join(keys.code, session="student-elsewhere", client="198.51.100.2")
    clock.advance(1 / DEFAULT_LIMITS["guess"].per_second)
    store.join(keys.code, session="guesser-later", client="203.0.113.7")


def test_every_wrong_instructor_link_looks_the_same(make_store):
    """The teach= path said whether a code existed (an unlimited oracle): an unknown code
    and a wrong token for a real code now give the same error, and tries are limited."""
    store = make_store()
    keys = new_class(store)
    ended = new_class(store)
    store.end_class(ended.code, instructor_token=ended.instructor_token)
    other = "0000-0000" if keys.code != "00000000" else "1111-1111"
    messages = set()
    for i, (code, token) in enumerate([(keys.code, keys.join_token), (keys.code, "x" * 32), (other, "x" * 32),
                                       ("not a code", "x"), (ended.code, ended.instructor_token),
                                       (keys.code, "")]):
        with pytest.raises(NotInstructor) as err:
            store.claim(code, token, session=f"s{i}", client=f"10.0.0.{i}")
        messages.add(str(err.value))
    assert messages == {WRONG_INSTRUCTOR_LINK}
    state = store.claim(keys.code, keys.instructor_token, session="laptop", client="10.0.1.1")
    assert state.code == keys.code


def test_instructor_links_are_limited_per_address(make_store):
    store = make_store(limits={**GENEROUS, "teach": DEFAULT_LIMITS["teach"]})
    keys = new_class(store)
    for i in range(DEFAULT_LIMITS["teach"].burst):
        with pytest.raises(NotInstructor):
            store.claim(keys.code, "x" * 32, session=f"s{i}", client="203.0.113.7")
    with pytest.raises(RateLimited, match="instructor links"):
        store.claim(keys.code, keys.instructor_token, session="fresh", client="203.0.113.7")
    assert store.claim(keys.code, keys.instructor_token, session="laptop", client="198.51.100.2").code == keys.code


@pytest.mark.parametrize("seconds, life", [(60, "1 minute after"), (120, "2 minutes after"),
                                           (3600, "1 hour after"), (5400, "1.5 hours after")])
def test_the_expiry_message_counts_in_proper_english(make_store, clock, seconds, life):
    store = make_store(ttl_seconds=seconds)
    keys = new_class(store)
    clock.advance(seconds + 1)
    with pytest.raises(ClassNotFound) as err:
        store.join(keys.code, session="late")
    assert life in str(err.value)


@pytest.mark.parametrize("peer, forwarded, hops, key", [
    ("203.0.113.7", None, 0, "203.0.113.7"),
    ("203.0.113.7", "1.2.3.4", 0, "203.0.113.7"),            # not behind a proxy: the header is a visitor's
    ("127.0.0.1", "6.6.6.6, 203.0.113.7", 1, "203.0.113.7"),  # the visitor's own entry comes first
    ("127.0.0.1", "203.0.113.7", 1, "203.0.113.7"),
    ("127.0.0.1", "nonsense", 1, "local"),
    (None, None, 1, "local"),
    ("::ffff:203.0.113.7", None, 0, "203.0.113.7"),
    ("2001:db8:1:2:3:4:5:6", None, 0, "2001:db8:1:2::/64"),
    ("2001:db8:1:2:ffff::9", None, 0, "2001:db8:1:2::/64"),   # one /64, one key
    ("127.0.0.1", "[2001:db8::1]:443", 1, "2001:db8::/64"),
])
def test_client_key(peer, forwarded, hops, key):
    assert client_key(peer, forwarded, hops) == key


def test_the_proxy_setting(monkeypatch):
    assert proxy_hops({}) == 0 and proxy_hops({"BPE_BEHIND_PROXY": "2"}) == 2
    with pytest.raises(ValueError, match="BPE_BEHIND_PROXY"):
        proxy_hops({"BPE_BEHIND_PROXY": "nginx"})


def test_the_guessing_odds_in_the_docs_are_the_real_ones(repo_root):
    """docs/class_mode.md states the guess rate and odds computed from the real limits."""
    guess = DEFAULT_LIMITS["guess"]
    per_day = guess.burst + round(86_400 * guess.per_second)
    doc = (repo_root / "docs" / "class_mode.md").read_text()
    assert f"{per_day:,} wrong guesses a day" in doc
    one_address = guess_odds(200, per_day)
    assert f"{one_address:.0e}".replace("e-0", "e-") in doc
    thousand = round(1 / guess_odds(200, 1000 * per_day))
    assert f"1 in {thousand:,}" in doc


def test_redis_keeps_only_the_current_questions_answers(redis_server, clock):
    """Earlier questions' answers and nicknames stayed in Redis until the class ended."""
    store = open_store(redis_server.url, prefix=f"test:{uuid.uuid4().hex}:", clock=clock, limits=GENEROUS)
    keys = new_class(store)
    t = keys.instructor_token
    client = store._client
    for n in (1, 2, 3):
        store.open_question(keys.code, OPTIONS, instructor_token=t)
        store.answer(keys.code, OPTIONS[0], session="s1", nickname=f"nick-{n}")
        store.reveal(keys.code, [OPTIONS[0]], instructor_token=t)
        answers = sorted(k for k in client.scan_iter(match=store.prefix + "[an]:*"))
        assert answers == sorted([store._a(keys.code, n), store._n(keys.code, n)])
    assert store.tally(keys.code, instructor_token=t).nicknames == (("nick-3", OPTIONS[0]),)
    store.close()


def test_redis_end_class_leaves_nothing_on_disk(tmp_path, clock):
    """With append-only persistence, an ended class's answers and nicknames stayed in the
    append-only file (a DEL only appends): ending a class has Redis rewrite the file."""
    require_redis_server()
    server = RedisServer(tmp_path)
    server.start()
    store = open_store(server.url, clock=clock, limits=GENEROUS)
    try:
        keys = new_class(store)
        t = keys.instructor_token
        store.open_question(keys.code, OPTIONS, instructor_token=t)
        store.answer(keys.code, OPTIONS[0], session="s1", nickname="Zanzibar4711")
        marker = b"Zanzibar4711"

        def on_disk() -> bytes:
            return b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())

        assert marker in on_disk()  # the test can see what is on disk
        store.end_class(keys.code, instructor_token=t)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            info = store._client.info("persistence")
            if not (info["aof_rewrite_in_progress"] or info["aof_rewrite_scheduled"]) and marker not in on_disk():
                break
            time.sleep(0.1)
        assert marker not in on_disk()
        assert keys.code.encode() not in on_disk()
    finally:
        store.close()
        server.stop()


def test_more_calls_at_once_than_the_redis_pool_holds_wait_for_a_connection(redis_server, clock):
    """150 students joining one process in two seconds make that many store calls at once.
    Redis is paused (CLIENT PAUSE) so every call holds its connection: redis-py's default
    pool refused the 101st outright (MaxConnectionsError, shown as "the class server cannot
    be reached"); the store's blocking pool makes the extra calls wait their turn."""
    import threading

    import redis as redis_py

    from classroom.redis_store import MAX_CONNECTIONS
    store = open_store(redis_server.url, prefix=f"test:{uuid.uuid4().hex}:", clock=clock, limits=GENEROUS)
    try:
        keys = new_class(store)
        callers = MAX_CONNECTIONS * 2 + 40  # past the default pool's 100 too
        start = threading.Barrier(callers + 1)
        failures: list[BaseException] = []

        def call(n: int) -> None:
            start.wait()
            try:
                store.join(keys.code, session=f"s{n}")
            except BaseException as exc:  # noqa: BLE001 - collected and asserted on below
                failures.append(exc)

        admin = redis_py.Redis.from_url(redis_server.url)
        admin.execute_command("CLIENT", "PAUSE", 600, "ALL")
        threads = [threading.Thread(target=call, args=(n,)) for n in range(callers)]
        for t in threads:
            t.start()
        start.wait()
        for t in threads:
            t.join(timeout=30)
        admin.close()
        assert failures == []
        assert store._client.connection_pool.max_connections == MAX_CONNECTIONS
    finally:
        store.close()


def test_a_woken_class_reads_redis_once_and_an_announcement_drops_the_copy(redis_server, clock):
    """Polls in one process share one read of the class for READ_COPY_SECONDS while the
    store hears announcements; a change made by another process is announced, and the
    announcement drops the copy before any listener (the wake) runs, so the woken
    students read the new step."""
    prefix = f"test:{uuid.uuid4().hex}:"
    a = open_store(redis_server.url, prefix=prefix, clock=clock, limits=GENEROUS)
    b = open_store(redis_server.url, prefix=prefix, clock=clock, limits=GENEROUS)
    seen_in_wake: list[int] = []

    def wake(code, version):  # what a woken student does: poll
        if code == keys.code and version is not None:
            seen_in_wake.append(b.poll(keys.code, session="woken").version)

    heard = Heard()
    b.watch(wake)
    b.watch(heard)  # after the wake: once heard, the wake's poll has run
    try:
        keys = new_class(a)
        heard.until_listening(a, keys)
        assert b._subscribed
        for step in range(2, 8):
            version = a.set_step(keys.code, step, instructor_token=keys.instructor_token).version
            heard.until_heard((keys.code, version))
            used = b.copies_used
            states = [b.poll(keys.code, session=f"s{n}") for n in range(20)]
            assert {(s.step, s.version) for s in states} == {(step, version)}
            assert b.copies_used - used >= 19  # one read from Redis; or two if 0.5 s went by
            assert seen_in_wake[-1] == version  # the woken poll never read an older copy
    finally:
        a.close()
        b.close()


def test_a_read_that_an_announcement_overtook_is_not_kept(redis_server, clock):
    store = open_store(redis_server.url, prefix=f"test:{uuid.uuid4().hex}:", clock=clock, limits=GENEROUS)
    try:
        keys = new_class(store)
        record, touched = store._load(keys.code)
        before = store._forgotten
        store._forget_copies(keys.code)  # an announcement heard while the read was on its way
        store._keep_copy(keys.code, record, touched, 100, time.monotonic(), before)
        assert keys.code not in store._copies
        store._keep_copy(keys.code, record, touched, 100, time.monotonic(), store._forgotten)
        assert keys.code in store._copies
        store._keep_copy("OTHER", record, touched, 10**9, time.monotonic(), store._forgotten)  # too big to keep
        assert "OTHER" not in store._copies and store._copies_size == 100
    finally:
        store.close()
