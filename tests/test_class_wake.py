"""Waking a class's students when the instructor changes the class (ui/classmode/wake.py).

The registry is tested with a fake runtime (which sessions exist, which are still running,
which fragment each rerun asked for), so the order and pace of the wakes are exact; then
through the class store's announcements, and in AppTest: an instructor's step wakes the
session of a student of that class, and nobody else's. A real server doing it end to end
is tests/test_load_smoke.py (students over websockets see every step with no poll).
"""
from __future__ import annotations

import pytest

from classroom import Limit, open_store
from ui.classmode import session, wake
from ui.classmode.wake import HOLD_LIMIT_SECONDS, RUN_LIMIT_SECONDS, Registry

GENEROUS = {a: Limit(burst=10_000, per_second=1000.0) for a in ("create", "join", "answer", "poll")}


class FakeRuntime:
    """Sessions that exist, run when woken, and finish when the test says so."""

    def __init__(self, sessions=()):
        self.sessions = set(sessions)
        self.running: set[str] = set()
        self.reruns: list[tuple[str, str]] = []
        self.scheduled: list = []

    def call_soon(self, fn, delay=0.0):
        self.scheduled.append(fn)
        return True

    def busy(self, sid):
        return None if sid not in self.sessions else sid in self.running

    def rerun(self, sid, fragment_id):
        if sid not in self.sessions:
            return False
        self.reruns.append((sid, fragment_id))
        self.running.add(sid)
        return True

    def run_loop(self):
        """What the event loop would do: run what was scheduled, until nothing is."""
        for _ in range(100):
            if not self.scheduled:
                return
            todo, self.scheduled = self.scheduled, []
            for fn in todo:
                fn()


class Clock:
    now = 100.0

    def __call__(self):
        return self.now


def registry(sessions, **options) -> tuple[Registry, FakeRuntime, Clock]:
    rt, clock = FakeRuntime(sessions), Clock()
    return Registry(rt, clock=clock, **options), rt, clock


def test_an_announcement_wakes_the_students_of_that_class_only_each_once():
    reg, rt, _ = registry({"a1", "a2", "b1"})
    reg.follow("a1", "AAAA", "poll-a1", 3)
    reg.follow("a2", "AAAA", "poll-a2", 3)
    reg.follow("b1", "BBBB", "poll-b1", 3)
    reg.announce("AAAA", 4)
    reg.announce("AAAA", 4)  # the same news twice (Redis and a co-instructor): one wake each
    rt.run_loop()
    assert sorted(rt.reruns) == [("a1", "poll-a1"), ("a2", "poll-a2")]
    assert reg.woken == 2


def test_a_student_who_already_read_the_version_is_not_woken_but_the_end_wakes_everyone():
    reg, rt, _ = registry({"a1", "a2"})
    reg.follow("a1", "AAAA", "p1", 5)  # polled on its own and read version 5 already
    reg.follow("a2", "AAAA", "p2", 4)
    reg.announce("AAAA", 5)
    rt.run_loop()
    assert rt.reruns == [("a2", "p2")]
    rt.running.clear()
    reg.announce("AAAA", None)  # the class ended: everyone learns it
    rt.run_loop()
    assert sorted(rt.reruns[1:]) == [("a1", "p1"), ("a2", "p2")]


def test_after_a_break_every_student_here_is_woken():
    reg, rt, _ = registry({"a1", "b1"})
    reg.follow("a1", "AAAA", "p1", 9)
    reg.follow("b1", "BBBB", "p2", 9)
    reg.announce(None, None)  # the store lost announcements (Redis was away)
    rt.run_loop()
    assert sorted(s for s, _ in rt.reruns) == ["a1", "b1"]


def test_woken_sessions_run_a_few_at_a_time_in_order():
    names = [f"s{i}" for i in range(7)]
    reg, rt, _ = registry(set(names), concurrent=3)
    for n in names:
        reg.follow(n, "AAAA", f"p-{n}", 1)
    reg.announce("AAAA", 2)
    reg.pump()
    assert [s for s, _ in rt.reruns] == ["s0", "s1", "s2"]  # three run; four wait their turn
    reg.pump()
    assert len(rt.reruns) == 3  # nobody finished: nobody else starts
    rt.running.discard("s1")
    reg.pump()
    assert [s for s, _ in rt.reruns] == ["s0", "s1", "s2", "s3"]
    rt.running.clear()
    reg.pump()
    rt.running.clear()
    rt.scheduled.clear()
    reg.pump()
    assert [s for s, _ in rt.reruns] == names
    assert not rt.scheduled  # nobody waits: the pump stops looking


def test_nobody_is_woken_before_the_instructors_own_run_ends():
    reg, rt, clock = registry({"teacher", "s1"})
    reg.follow("s1", "AAAA", "p1", 1)
    rt.running.add("teacher")  # the instructor's Step is still drawing
    reg.hold("teacher")
    reg.announce("AAAA", 2)
    reg.pump()
    assert rt.reruns == []
    rt.running.discard("teacher")
    reg.pump()
    assert rt.reruns == [("s1", "p1")]
    # a run that never ends holds the class back HOLD_LIMIT_SECONDS at most
    rt.running.add("teacher")
    reg.hold("teacher")
    reg.announce("AAAA", 3)
    rt.running.discard("s1")
    reg.pump()
    assert len(rt.reruns) == 1
    clock.now += HOLD_LIMIT_SECONDS + 0.1
    reg.pump()
    assert len(rt.reruns) == 2


def test_a_stuck_run_frees_its_place_after_the_run_limit():
    reg, rt, clock = registry({"s1", "s2"}, concurrent=1)
    reg.follow("s1", "AAAA", "p1", 1)
    reg.follow("s2", "AAAA", "p2", 1)
    reg.announce("AAAA", 2)
    reg.pump()
    reg.pump()
    assert [s for s, _ in rt.reruns] == ["s1"]
    clock.now += RUN_LIMIT_SECONDS + 0.1
    reg.pump()
    assert [s for s, _ in rt.reruns] == ["s1", "s2"]


def test_a_closed_session_is_forgotten_and_a_student_moves_class():
    reg, rt, _ = registry({"s1"})
    reg.follow("gone", "AAAA", "p0", 1)
    reg.follow("s1", "AAAA", "p1", 1)
    reg.follow("s1", "BBBB", "p1", 1)  # the student joined another class
    reg.announce("AAAA", 2)
    rt.run_loop()
    assert rt.reruns == [] and len(reg) == 1 and reg.dropped == 1
    reg.announce("BBBB", 2)
    rt.run_loop()
    assert rt.reruns == [("s1", "p1")]
    reg.forget("s1")
    reg.announce("BBBB", 3)
    rt.run_loop()
    assert len(rt.reruns) == 1 and len(reg) == 0


def test_the_registry_is_bounded():
    reg, _, _ = registry(set(), max_followers=2)
    assert reg.follow("a", "AAAA", "p", 1) and reg.follow("b", "AAAA", "p", 1)
    assert not reg.follow("c", "AAAA", "p", 1)  # this one polls every second instead
    assert reg.follow("a", "AAAA", "p", 2)  # a known session refreshes
    assert len(reg) == 2


def test_the_store_announcement_reaches_the_registry():
    reg, rt, _ = registry({"s1"})
    store = open_store("memory", limits=GENEROUS)
    store.watch(reg.announce)
    keys = store.create_class({"preset": "sennrich"}, session="t")
    state = store.join(keys.code, session="s1")
    reg.follow("s1", keys.code, "poll", state.version)
    store.set_step(keys.code, 2, instructor_token=keys.instructor_token)
    rt.run_loop()
    assert rt.reruns == [("s1", "poll")]


def test_without_a_runtime_to_wake_it_a_student_polls_every_second(monkeypatch):
    monkeypatch.setattr(wake, "available", lambda: False)
    assert session.poll_seconds() == session.POLL_SECONDS == 1.0
    monkeypatch.setattr(wake, "available", lambda: True)
    assert session.poll_seconds() == wake.SAFETY_SECONDS >= 10


def test_the_streamlit_adapter_reruns_the_first_fragment_the_session_still_has(monkeypatch):
    class App:
        def __init__(self, fragments):
            self.fragments, self.asked = fragments, []
            from streamlit.proto.ClientState_pb2 import ClientState
            self._client_state = ClientState()

        def has_fragment(self, fid):
            return fid in self.fragments

        def request_rerun(self, state):
            self.asked.append(state.fragment_id)

    rt = wake.StreamlitRuntime()
    app = App({"poll"})
    monkeypatch.setattr(rt, "session", lambda sid: app)
    assert rt.rerun("s", ("step", "poll")) is True and app.asked == ["poll"]  # the step area is gone
    app.fragments.add("step")
    assert rt.rerun("s", ("step", "poll")) is True and app.asked == ["poll", "step"]
    assert rt.rerun("s", "poll") is True and app.asked[-1] == "poll"
    assert rt.rerun("s", ("gone", "also gone")) is False


def test_the_streamlit_adapter_fails_soft_outside_a_server():
    rt = wake.StreamlitRuntime()
    assert rt.session("no such session") is None
    assert rt.supports("no such session") is False
    assert rt.busy("no such session") is None
    assert rt.rerun("no such session", "fragment") is False
    assert rt.call_soon(lambda: None) is False  # no event loop known


# ---- in AppTest: the instructor's step wakes the student's session --------------------------
class AnySessions:
    def __contains__(self, sid):
        return True


@pytest.fixture
def fake_server(monkeypatch):
    """The process's registry over a fake runtime that knows every session (each AppTest
    session named by its class-mode id, since AppTest gives them all one id)."""
    import streamlit as st

    rt = FakeRuntime()
    rt.sessions = AnySessions()
    rt.supports = lambda sid: True
    reg = Registry(rt)
    monkeypatch.setattr(wake, "_runtime", rt)
    monkeypatch.setattr(wake, "_registry", reg)
    monkeypatch.setattr(wake, "_watching", None)
    monkeypatch.setattr(wake, "_session_id", lambda: st.session_state.get(session.SID))
    return reg, rt


def test_an_instructors_step_wakes_the_poll_fragment_of_each_student_of_the_class(fake_server):
    from test_class_mode import FakeClock, FlakyStore, class_state, instructor_with_class, student

    reg, rt = fake_server
    store = FlakyStore(clock=FakeClock(), limits=GENEROUS)
    session.use_store(store)
    try:
        ins = instructor_with_class()
        stu = student({"class": class_state(ins).join_token})
        other_ins = instructor_with_class()  # another class, with a student of its own
        other = student({"class": class_state(other_ins).join_token})
        rt.run_loop()
        me, stranger = stu.session_state[session.SID], other.session_state[session.SID]
        assert len(reg) == 2 and rt.reruns == []  # registered from inside their poll fragments
        targets = reg._followers[me].fragment_id
        poll_fragment = stu.session_state[session.POLL_FRAGMENT]
        # a following student is woken straight into its step area (which reads the class
        # first: one run per step), its poll fragment the fallback if the step area is gone
        assert targets == (stu.session_state[session.STEP_FRAGMENT], poll_fragment)
        assert poll_fragment not in (stu.session_state[session.STEP_FRAGMENT],
                                     stu.session_state[session.PANEL_FRAGMENT])
        poll_fragment = targets
        ins.button(key="train_w_btn_step").click().run()
        assert not ins.exception, ins.exception
        rt.run_loop()
        assert rt.reruns == [(me, poll_fragment)]  # this class's student only, its poll fragment
        stu.run()  # the woken run (AppTest reruns the page; a server reruns the fragment alone)
        assert not stu.exception and stu.session_state["train.step"] == 1
        assert reg._followers[me].version == class_state(ins).version  # read: not woken again
        rt.running.clear()
        ins.button(key="class_btn_end").click().run()
        rt.run_loop()
        assert rt.reruns[-1] == (me, poll_fragment) and stranger not in [s for s, _ in rt.reruns]
        stu.run()
        assert session.ROLE not in stu.session_state and stu.session_state[session.ENDED]
        assert me not in reg._followers  # a student who left is not woken again
    finally:
        session.use_store(None)


def test_a_step_the_step_area_never_drew_is_drawn_at_the_next_poll(monkeypatch):
    """On a busy server the step-area rerun a poll asks for can be lost (merged with
    another request): the page then holds the class's step, the poll finds the class
    unchanged, and the old step stayed on screen for good (seen at 300 students). The
    step area notes the step it drew; a poll that finds it behind reruns it."""
    import streamlit as st

    from test_class_mode import FakeClock, FlakyStore, class_state, instructor_with_class, student
    from ui.classmode import panels as class_panels

    store = FlakyStore(clock=FakeClock(), limits=GENEROUS)
    session.use_store(store)
    try:
        ins = instructor_with_class()
        stu = student({"class": class_state(ins).join_token})
        reruns = []
        monkeypatch.setattr(session, "rerun_fragments", lambda keys: reruns.append(list(keys)))
        tick = class_panels._student_fragment

        def timer_tick_alone():  # the poll as its timer runs it, with no full run around it
            st.session_state[class_panels.FULL_RUN] = False
            tick()

        monkeypatch.setattr(class_panels, "train_banner", lambda view: timer_tick_alone())
        ins.button(key="train_w_btn_step").click().run()
        stu.run()
        assert not stu.exception and stu.session_state["train.step"] == 1
        def step_reruns():
            return sum(session.STEP_FRAGMENT in r for r in reruns)

        assert step_reruns() == 1 and stu.session_state[session.DRAWN] == 1
        stu.session_state[session.DRAWN] = 0  # that rerun was lost: step 1 never reached the screen
        stu.run()
        assert step_reruns() == 2  # the next poll asks again
        stu.run()  # drawn now (AppTest's full run drew the step area): nothing more to do
        assert step_reruns() == 2
    finally:
        session.use_store(None)


def test_a_session_still_in_its_own_run_is_woken_once_that_run_ends():
    """A wake never cuts into a session's own run (a join still drawing its page): it waits
    in the queue, and the sessions behind it are not held up."""
    reg, rt, _ = registry({"joining", "s1"})
    reg.follow("joining", "AAAA", "p0", 1)
    reg.follow("s1", "AAAA", "p1", 1)
    rt.running.add("joining")  # its join's run is still going
    reg.announce("AAAA", 2)
    reg.pump()
    assert rt.reruns == [("s1", "p1")]
    assert rt.scheduled  # the pump looks again
    reg.pump()
    assert rt.reruns == [("s1", "p1")]  # still running: still waiting
    rt.running.discard("joining")
    reg.pump()
    assert rt.reruns == [("s1", "p1"), ("joining", "p0")]
    assert reg.woken == 2
