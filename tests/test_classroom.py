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
    AlreadyAnswered, ClassError, ClassFull, ClassNotFound, Limit, NotInstructor,
    QuestionNotOpen, RateLimited, StoreUnavailable, open_store,
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
    assert len(found) == 4  # the class, its link token, the answers and the counts
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
