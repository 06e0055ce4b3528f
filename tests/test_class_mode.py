"""Class mode on the Train page, in AppTest: an instructor and students as separate sessions.

Each AppTest is its own Streamlit session in this process, so two of them share the
process's class store, as two browser tabs on one server do. The store is a memory store
on a fake clock (put in with `ui.classmode.session.use_store`), so expiry is tested
without waiting. Timers never fire in AppTest: a student's "next poll" is its next run.
"""
from __future__ import annotations

import json
import time

import pytest
from streamlit.testing.v1 import AppTest

from classroom import AlreadyAnswered, ClassNotFound, Limit, NotInstructor, StoreUnavailable, open_store
from classroom.memory import MemoryClassStore
from ui.classmode import logic, session
from ui.classmode import panels
from ui.classmode.panels import QR_WIDTH
from ui.shared.markdown import md_error
from ui.train import predict
from ui.train.config import preset_corpus
from ui.train.run_view import RunView

APP = "../app.py"
TRAIN = "views/train.py"
JOIN = "views/join_class.py"
GENEROUS = {a: Limit(burst=10_000, per_second=1000.0) for a in ("create", "join", "answer", "poll")}


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


class FlakyStore(MemoryClassStore):
    """A memory store that can be 'unplugged': every read then fails as Redis's would."""

    down = False

    def _load(self, code):
        if self.down:
            raise StoreUnavailable("The class server cannot be reached: the class is paused and "
                                   "carries on by itself when the server is back.")
        return super()._load(code)


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def store(clock):
    s = FlakyStore(clock=clock, limits=GENEROUS)
    session.use_store(s)
    yield s
    session.use_store(None)


def _app() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    return at


def open_class_box(at: AppTest) -> AppTest:
    """Open the folded "Class mode" expander, as a click does (a rerun draws it)."""
    at.session_state[panels.OPEN] = True
    return at.run()


def instructor_with_class() -> AppTest:
    at = _app()
    at.switch_page(TRAIN).run()
    open_class_box(at)
    at.button(key="class_btn_start").click().run()
    assert not at.exception, at.exception
    assert role_of(at) == "instructor"
    return at


def student(params: dict[str, str]) -> AppTest:
    """A new session opening the join page with these query parameters, then on the Train page."""
    at = _app()
    for k, v in params.items():
        at.query_params[k] = v
    at.switch_page(JOIN).run()
    assert not at.exception, at.exception
    at.switch_page(TRAIN).run()  # AppTest stays on the page it asked for; a browser follows switch_page
    assert not at.exception, at.exception
    return at


def role_of(at: AppTest) -> str | None:
    return at.session_state["class.role"] if "class.role" in at.session_state else None


def texts(at: AppTest, kind: str) -> list[str]:
    return [e.value for e in getattr(at, kind)]


def class_state(at: AppTest):
    return at.session_state["class.state"]


def banner(at: AppTest) -> str:
    return next(m for m in texts(at, "markdown") if "**Class " in m)


# ---- the instructor's panel -----------------------------------------------------------------
def test_instructor_gets_code_link_qr_and_a_private_instructor_link(store):
    ins = instructor_with_class()
    state = class_state(ins)
    assert state.step == 0 and logic.snapshot_params(state.snapshot) == {"preset": "sennrich"}
    html = " ".join(h.value for h in ins.get("html"))
    assert state.display_code in html
    codes = texts(ins, "code")
    assert any(c.endswith(f"join?class={state.join_token}") for c in codes)
    token = ins.session_state["class.token"]
    assert any(f"teach={token}" in c for c in codes)  # inside the "keep it private" expander
    assert ins.get("image"), "the QR code is drawn"
    assert store.is_instructor(state.code, token)


def test_uploaded_corpus_cannot_start_a_class(store):
    at = _app()
    at.switch_page(TRAIN).run()
    at.session_state["train.source"] = "upload"
    at.session_state["train.upload_text"] = "some uploaded words " * 5
    at.session_state["train.upload_name"] = "notes.txt"
    at.run()
    assert not any(b.key == "class_btn_start" for b in at.button)  # folded: drawn only once opened
    open_class_box(at)
    assert at.button(key="class_btn_start").disabled
    assert any("A class can only carry a built-in preset" in w for w in texts(at, "warning"))


# ---- following ------------------------------------------------------------------------------
def test_student_joins_by_code_and_follows_the_instructors_step(store):
    ins = instructor_with_class()
    code = class_state(ins).display_code
    stu = _app()
    stu.switch_page(JOIN).run()
    stu.text_input(key="class_w_code").input(code.lower().replace("-", " "))
    stu.text_input(key="class_w_join_nick").input("Ann")
    stu.button(key="class_btn_join").click().run()
    assert not stu.exception and role_of(stu) == "student"
    stu.switch_page(TRAIN).run()
    assert stu.session_state["train.step"] == 0 and "you follow the instructor" in banner(stu)
    for expected in (1, 2, 3):
        ins.button(key="train_w_btn_step").click().run()
        assert store.poll(class_state(ins).code, session="observer").step == expected
        stu.run()  # the student's next poll
        assert stu.session_state["train.step"] == expected
        assert f"Step {expected} of" in stu.slider(key="train_w_step").label
    ins.button(key="train_w_btn_back").click().run()
    stu.run()
    assert stu.session_state["train.step"] == 2


def test_a_new_class_step_reruns_the_students_step_area_not_the_page(store, monkeypatch):
    """The student's poll, run as a timer's fragment run (not inside a full run), puts the
    class's step on the page and asks for a rerun of the step fragment alone; it never
    calls st.rerun(scope="app"), which reran each student's whole page once per step."""
    import streamlit as st

    from ui.classmode import panels as class_panels

    ins = instructor_with_class()
    stu = student({"class": class_state(ins).join_token})
    assert stu.session_state[session.STEP_FRAGMENT]  # noted from inside the step fragment
    app_reruns, step_reruns = [], []
    real_rerun = st.rerun

    def rerun(scope="app"):
        if scope == "app":
            app_reruns.append(scope)
            return None  # recorded, not done (AppTest would rerun the page)
        return real_rerun(scope)

    monkeypatch.setattr(st, "rerun", rerun)
    monkeypatch.setattr(session, "rerun_fragments", lambda keys: step_reruns.append(list(keys)))
    poll = class_panels._student_fragment

    def timer_tick():  # the poll as a timer runs it: a fragment run, not inside a full run
        st.session_state[class_panels.FULL_RUN] = False
        poll()

    monkeypatch.setattr(class_panels, "_student_fragment", timer_tick)
    assert stu.session_state[session.PANEL_FRAGMENT]  # noted from inside the class panel
    for expected in (1, 2):
        ins.button(key="train_w_btn_step").click().run()
        stu.run()
        assert not stu.exception, stu.exception
        assert stu.session_state["train.step"] == expected
    # each new step: the step area alone (while following, the banner does not name the
    # step, so the whole class does not redraw it at every step)
    assert app_reruns == [] and step_reruns == [[session.STEP_FRAGMENT]] * 2
    # a student exploring alone sees the class's step in the banner: it is redrawn too
    stu.session_state[session.FOLLOW] = False
    ins.button(key="train_w_btn_step").click().run()
    stu.run()
    assert step_reruns[-1] == [session.PANEL_FRAGMENT] and stu.session_state["train.step"] == 2


def test_a_poll_that_finds_nothing_new_redraws_nothing(store, monkeypatch):
    """A student's timer tick that finds the class as it was draws no element and asks
    for no rerun: a class of 30 polls 30 times a second, and each tick used to redraw the
    banner. What the panel shows changing (a question opens) reruns the panel alone."""
    import streamlit as st

    from ui.classmode import panels as class_panels

    ins = instructor_with_class()
    stu = student({"class": class_state(ins).join_token})
    reruns = []
    monkeypatch.setattr(session, "rerun_fragments", lambda keys: reruns.append(list(keys)))
    drawn = []
    real_banner = class_panels._student_banner
    monkeypatch.setattr(class_panels, "_student_banner", lambda state: (drawn.append(state.step), real_banner(state)))

    def timer_tick_alone():  # the timer's run: the poll fragment only, no full run around it
        st.session_state[class_panels.FULL_RUN] = False
        class_panels._student_fragment()
        st.session_state["test.tick_ran"] = True

    tick = class_panels._student_fragment
    real_train_banner = class_panels.train_banner

    def students_tick(view):  # (the instructor's session draws its real page)
        if session.role() == "student":
            timer_tick_alone()
        else:
            real_train_banner(view)

    monkeypatch.setattr(class_panels, "train_banner", students_tick)
    monkeypatch.setattr(class_panels, "_student_fragment", tick)
    stu.run()
    assert stu.session_state["test.tick_ran"] and not stu.exception, stu.exception
    assert reruns == [] and drawn == []  # nothing new: nothing drawn, nothing rerun
    ins.button(key="class_btn_ask").click().run()  # a question opens (the step stays)
    stu.run()
    # the panel shows the question and the step area hides the counts: both rerun, not the
    # page (the stand-in for the rerun redraws neither, so a later tick asks again)
    assert reruns and drawn == []
    assert all(r == [session.PANEL_FRAGMENT, session.STEP_FRAGMENT] for r in reruns), reruns


@pytest.mark.app_exception_expected
def test_a_panel_run_cut_short_is_drawn_again_at_the_next_tick(store, monkeypatch):
    """What the class panel shows is recorded only once it is drawn in full. A panel run
    cut short (a rerun request arriving mid-draw ends it early, and the browser then clears
    none of its stale elements) keeps the old record, so the next tick reruns the panel; it
    used to record first, and a sent answer's form could stay on screen."""
    from ui.classmode import panels as class_panels

    ins = instructor_with_class()
    stu = student({"class": class_state(ins).join_token})
    shown = stu.session_state[class_panels.PANEL_SHOWN]
    ins.button(key="class_btn_ask").click().run()  # a question opens: the panel must change

    def cut_short(view, state):
        raise RuntimeError("the run was cut short here")

    monkeypatch.setattr(class_panels, "_student_question", cut_short)
    stu.run()
    assert stu.exception  # the stand-in for the interruption
    assert stu.session_state[class_panels.PANEL_SHOWN] == shown


def test_rerun_step_area_asks_for_the_step_fragment_alone(store):
    """In a real script run, `rerun_step_area` queues a fragment-scoped rerun naming the
    step fragment (the request st.rerun would queue, aimed at another fragment)."""
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        from ui.classmode import session

        @st.fragment
        def step_area():
            session.note_step_fragment()
            st.write("step area")

        step_area()
        ctx = get_script_run_ctx()
        seen = {}
        real = ctx.script_requests.request_rerun
        ctx.script_requests.request_rerun = lambda data: seen.setdefault("data", data) and False
        if st.session_state.get("asked") is None:
            st.session_state["asked"] = True
            try:
                session.rerun_step_area()
            except Exception as exc:  # st.rerun's exception when the request is refused
                st.session_state["raised"] = type(exc).__name__
            ctx.script_requests.request_rerun = real
            data = seen["data"]
            st.session_state["queue"] = list(data.fragment_id_queue)
            st.session_state["scoped"] = data.is_fragment_scoped_rerun
            st.session_state["fragment"] = st.session_state["class.step_fragment"]

    at = AppTest.from_function(script, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert at.session_state["queue"] == [at.session_state["fragment"]]
    assert at.session_state["scoped"] is True


def test_rerun_fragments_asks_for_the_panel_and_the_step_area_together(store):
    """A new class step reruns two fragments (the class panel and the step area) in one
    fragment-scoped request; an unknown fragment falls back to rerunning the page."""
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        from ui.classmode import session

        @st.fragment
        def panel():
            session.note_fragment(session.PANEL_FRAGMENT)
            st.write("panel")

        @st.fragment
        def step_area():
            session.note_step_fragment()
            st.write("step area")

        panel()
        step_area()
        ctx = get_script_run_ctx()
        seen = []
        real = ctx.script_requests.request_rerun
        ctx.script_requests.request_rerun = lambda data: seen.append(data) and False
        if st.session_state.get("asked") is None:
            st.session_state["asked"] = True
            scoped = []
            for keys in ([session.PANEL_FRAGMENT, session.STEP_FRAGMENT], [session.PANEL_FRAGMENT, session.WIDGETS.key("nowhere")]):
                seen.clear()
                try:
                    session.rerun_fragments(keys)
                except Exception:  # st.rerun's exception when the request is refused
                    pass
                scoped.append(seen[0].is_fragment_scoped_rerun)
                if len(scoped) == 1:
                    st.session_state["queue"] = list(seen[0].fragment_id_queue)
            ctx.script_requests.request_rerun = real
            st.session_state["scoped"] = scoped
            st.session_state["ids"] = [st.session_state[session.PANEL_FRAGMENT], st.session_state[session.STEP_FRAGMENT]]

    at = AppTest.from_function(script, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert at.session_state["queue"] == at.session_state["ids"] and len(set(at.session_state["ids"])) == 2
    # the second call names a fragment that does not exist: the whole page reruns instead
    assert at.session_state["scoped"] == [True, False]


def test_student_by_link_loads_the_class_corpus_and_settings(store):
    ins = _app()
    ins.switch_page(TRAIN).run()
    ins.session_state["train.source"] = "words"
    ins.session_state["train.words"] = "hug 10\npug 5\npun 12\nbun 4\nhugs 5\n"
    ins.session_state["train.s.tie_break"] = "smallest-id"
    ins.run()
    ins.button(key="train_w_btn_step").click().run()
    open_class_box(ins)
    ins.button(key="class_btn_start").click().run()
    state = class_state(ins)
    assert state.step == 1
    stu = student({"class": state.join_token})
    assert stu.session_state["train.source"] == "words"
    assert stu.session_state["train.words"].startswith("hug 10")
    assert stu.session_state["train.s.tie_break"] == "smallest-id"
    assert stu.session_state["train.step"] == 1
    assert stu.session_state["train.active"][0] == logic.snapshot_run(state.snapshot)


def test_a_student_cannot_step_the_class_and_can_explore_then_rejoin(store):
    ins = instructor_with_class()
    state = class_state(ins)
    stu = student({"class": state.join_token})
    assert stu.session_state["class.token"] is None
    with pytest.raises(NotInstructor):
        store.set_step(state.code, 5, instructor_token=state.join_token)
    stu.button(key="train_w_btn_step").click().run()
    stu.button(key="train_w_btn_step").click().run()
    assert stu.session_state["train.step"] == 2
    assert store.poll(state.code, session="observer").step == 0  # the class did not move
    stu.run()
    assert "exploring on your own" in banner(stu)  # clicking Step detached them
    ins.button(key="train_w_btn_step").click().run()
    stu.run()
    assert stu.session_state["train.step"] == 2  # detached: the class's step is not forced
    assert "at step **1**" in banner(stu)
    stu.button(key="class_btn_rejoin").click().run()
    assert stu.session_state["train.step"] == 1 and "you follow the instructor" in banner(stu)


def test_a_wrong_instructor_link_gives_no_control_and_the_right_one_does(store):
    ins = instructor_with_class()
    state = class_state(ins)
    intruder = _app()
    intruder.query_params["code"] = state.code
    intruder.query_params["teach"] = state.join_token  # the join link's token is not the instructor's
    intruder.switch_page(JOIN).run()
    assert role_of(intruder) is None
    assert any("does not control" in e for e in texts(intruder, "error"))
    laptop = _app()
    laptop.query_params["code"] = state.code
    laptop.query_params["teach"] = ins.session_state["class.token"]
    laptop.switch_page(JOIN).run()
    assert role_of(laptop) == "instructor"
    laptop.switch_page(TRAIN).run()
    laptop.button(key="train_w_btn_step").click().run()
    assert store.poll(state.code, session="observer").step == 1


def test_an_instructor_link_answered_by_the_proxy_takes_control_from_the_cookie(store, monkeypatch):
    """deploy/'s nginx answers /join?code=…&teach=… with a 303 to /join?resume=1 and the
    instructor cookie (so the token never becomes a history entry): the join page takes
    control from the cookie; a wrong one reads as every wrong link does and is deleted;
    no cookie at all says what to do."""
    ins = instructor_with_class()
    state = class_state(ins)
    token = ins.session_state["class.token"]
    monkeypatch.setattr(session, "saved_control", lambda: (state.code, token))
    laptop = _app()
    laptop.query_params["resume"] = "1"
    laptop.switch_page(JOIN).run()
    assert not laptop.exception
    assert role_of(laptop) == "instructor"
    assert "resume" not in laptop.query_params

    monkeypatch.setattr(session, "saved_control", lambda: (state.code, state.join_token))
    intruder = _app()
    intruder.query_params["resume"] = "1"
    intruder.switch_page(JOIN).run()
    assert not intruder.exception
    assert role_of(intruder) is None
    assert any("does not control" in e for e in texts(intruder, "error"))
    assert any("bpe_class_teach=; path=/; max-age=0" in h for h in texts(intruder, "html"))

    monkeypatch.setattr(session, "saved_control", lambda: None)
    bare = _app()
    bare.query_params["resume"] = "1"
    bare.switch_page(JOIN).run()
    assert not bare.exception
    assert role_of(bare) is None
    assert any("allow cookies" in e for e in texts(bare, "error"))


# ---- predict together -----------------------------------------------------------------------
def test_question_answer_once_live_chart_and_reveal_grades_ties(store):
    ins = instructor_with_class()  # Sennrich at step 0: e + s, s + t and t + </w> tie at 9
    state = class_state(ins)
    stu = student({"class": state.join_token})
    other = student({"class": state.join_token})
    ins.button(key="class_btn_ask").click().run()
    q = class_state(ins).question
    assert q.status == "open" and "s + t" in q.options and len(q.options) >= 4
    view = RunView(ins.session_state["train.view_obj"].run)
    pair = logic.pair_of(logic.question_options(view, q.step, state.code), "s + t")
    assert predict.grade_pair(view, q.step, pair) == "tied"  # graded as the Train page grades it

    stu.run()
    pick = next(r for r in stu.radio if r.key == f"class_w_pick_{q.number}")
    stu.session_state[pick.key] = "s + t"
    stu.session_state["class_w_nick"] = "<img src=x>Ann"
    stu.button(key="class_btn_answer").click().run()
    assert any("You answered **s + t**" in i for i in texts(stu, "info"))
    with pytest.raises(AlreadyAnswered):  # once per session, whatever the page shows
        store.answer(state.code, "e + s", session=stu.session_state["class.sid"])
    other.run()
    wrong = next(o for o in q.options if o not in ("e + s", "s + t", "t + </w>"))
    other.session_state[f"class_w_pick_{q.number}"] = wrong
    other.button(key="class_btn_answer").click().run()

    ins.run()  # the instructor's chart fragment polls
    chart = ins.get("vega_lite_chart")[-1]
    spec = json.loads(chart.proto.spec)
    assert "layer" in spec
    assert "Ann" not in " ".join(texts(ins, "markdown") + texts(ins, "caption"))  # not projected unasked
    ins.toggle(key="class_w_show_names").set_value(True).run()
    named = " ".join(texts(ins, "markdown"))
    assert "\\<img src=x\\>Ann: s + t" in named  # the nickname, escaped
    assert any("2 answers" in m for m in texts(ins, "markdown"))

    ins.button(key="class_btn_reveal").click().run()
    revealed = class_state(ins).question
    assert sorted(revealed.correct) == ["e + s", "s + t", "t + </w>"]
    tally = store.tally(state.code, instructor_token=ins.session_state["class.token"])
    frame = logic.tally_frame(tally.counts, revealed.correct).set_index("pair")
    assert frame.loc["t + </w>", "answers"] == 0 and frame.loc["t + </w>", "text"] == "0  ✓ right"  # nobody chose it
    stu.run()
    other.run()
    assert any("s + t**: right" in s for s in texts(stu, "success"))
    assert any("not this time" in w for w in texts(other, "warning"))


# ---- errors ---------------------------------------------------------------------------------
@pytest.mark.parametrize("typed, message", [
    ("ZZZZ-ZZZZ", "There is no class ZZZZ-ZZZZ"),
    ("![x](http://example.invalid/x.png)", "is not a class code"),
])
def test_bad_codes_get_a_clear_message(store, typed, message):
    stu = _app()
    stu.switch_page(JOIN).run()
    stu.text_input(key="class_w_code").input(typed[:12])
    stu.button(key="class_btn_join").click().run()
    assert not stu.exception
    errors = texts(stu, "error")
    assert any(message.split(" ZZZZ")[0] in e for e in errors), errors
    with pytest.raises(ClassNotFound) as raised:
        store.join(typed[:12], session="observer")
    assert md_error(raised.value) in errors  # shown through md_error: no image, no link
    if "[" in typed:
        assert any("!\\[x\\]" in e for e in errors), errors
    assert role_of(stu) is None


def test_an_expired_class_says_so_and_the_page_keeps_working(store, clock):
    ins = instructor_with_class()
    stu = student({"class": class_state(ins).join_token})
    clock.now += 4 * 3600
    stu.run()
    assert not stu.exception
    assert not texts(stu, "error")
    assert any("is over" in i and "3 hours after its last action" in i for i in texts(stu, "info"))
    assert not any("Your instructor ended" in i for i in texts(stu, "info"))  # it expired
    assert role_of(stu) is None
    stu.button(key="train_w_btn_step").click().run()  # the page still steps
    assert stu.session_state["train.step"] == 1


def test_a_store_outage_shows_a_message_and_the_class_resumes(store):
    ins = instructor_with_class()
    stu = student({"class": class_state(ins).join_token})
    store.down = True
    stu.run()
    assert not stu.exception
    assert any("cannot be reached" in e for e in texts(stu, "error"))
    assert role_of(stu) == "student"
    store.down = False
    stu.session_state["class.paused_until"] = 0.0  # skip the pause between tries
    ins.button(key="train_w_btn_step").click().run()
    assert store.poll(class_state(ins).code, session="observer").step == 1
    stu.run()
    assert stu.session_state["train.step"] == 1 and not texts(stu, "error")


def test_joining_is_rate_limited_per_session(clock):
    session.use_store(open_store("memory", clock=clock))
    try:
        stu = _app()
        stu.switch_page(JOIN).run()
        for _ in range(6):
            stu.text_input(key="class_w_code").input("ZZZZ-ZZZZ")
            stu.button(key="class_btn_join").click().run()
        assert any("Too many join requests" in e for e in texts(stu, "error"))
        assert not stu.exception
    finally:
        session.use_store(None)


# ---- pure parts -----------------------------------------------------------------------------
def test_tally_chart_spec_marks_the_right_answers():
    spec = logic.tally_chart([("e + s", 3), ("s + t", 1), ("l + o", 0)], ["e + s", "s + t"]).to_dict()
    data = next(iter(spec["datasets"].values()))
    assert [(r["pair"], r["answers"], r["result"]) for r in data] == [
        ("e + s", 3, "right"), ("s + t", 1, "right"), ("l + o", 0, "not this one")]
    assert spec["layer"][0]["mark"]["type"] == "bar"


def test_qr_png_is_sized_for_a_projector_and_decodes_to_the_join_link():
    import io
    import struct
    zxingcpp = pytest.importorskip("zxingcpp")  # requirements-dev.txt
    from PIL import Image
    link = logic.join_url("http://192.168.1.20:8501/", "Zk3_-q" * 4)
    png = logic.qr_png(link)
    width, height = struct.unpack(">II", png[16:24])
    assert width == height and 330 <= width <= QR_WIDTH + 80
    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))
    assert [r.text for r in found] == [link]


def test_snapshot_fits_the_store_for_the_longest_shareable_text():
    from classroom.store import SNAPSHOT_MAX_BYTES
    from ui.train.config import SHARE_TEXT_LIMIT, Corpus, Settings
    text = "🧩" * SHARE_TEXT_LIMIT
    snap = logic.class_snapshot(Corpus("text", "text", text), Settings(), "k")
    assert len(json.dumps(snap).encode()) <= SNAPSHOT_MAX_BYTES
    assert logic.snapshot_params(snap)["text"] == text
    assert logic.class_snapshot(preset_corpus("sennrich"), Settings(), "k")["params"] == {"preset": "sennrich"}


# ---- through Redis, with a real redis-server killed mid-class ----------------------------
def test_a_class_through_redis_survives_a_redis_restart(tmp_path):
    import uuid

    from redis_server import RedisServer, require_redis_server
    require_redis_server()
    server = RedisServer(tmp_path)
    server.start()
    store = open_store(server.url, limits=GENEROUS, prefix=f"test:{uuid.uuid4().hex}:")
    session.use_store(store)
    try:
        ins = instructor_with_class()
        stu = student({"class": class_state(ins).join_token})
        ins.button(key="train_w_btn_step").click().run()
        stu.run()
        assert stu.session_state["train.step"] == 1
        server.kill()
        # polls share one read of the class while announcements are heard (a copy that
        # cannot be out of date: nothing changes while Redis is down); the store stops
        # using copies once its subscriber notices the break
        deadline = time.monotonic() + 10
        while store._subscribed and time.monotonic() < deadline:
            time.sleep(0.02)
        stu.run()
        assert not stu.exception
        assert any("cannot be reached" in e or "paused" in e for e in texts(stu, "error")), texts(stu, "error")
        assert role_of(stu) == "student"
        ins.button(key="train_w_btn_step").click().run()  # the instructor's page keeps working too
        assert not ins.exception and ins.session_state["train.step"] == 2
        server.start()
        for at in (ins, stu):
            at.session_state["class.paused_until"] = 0.0  # skip the pause between tries
        ins.button(key="train_w_btn_step").click().run()  # step 3 reaches the class now
        stu.run()
        assert stu.session_state["train.step"] == 3 and not texts(stu, "error")
    finally:
        session.use_store(None)
        if hasattr(store, "close"):
            store.close()
        server.stop()


# ---- a question must not give its answer away ------------------------------------------
BADGE = 'class="tp-badge win">merges next<'


def page_html(at: AppTest) -> str:
    return " ".join(h.value for h in at.get("html"))


def test_an_open_question_hides_counts_and_the_next_pair_on_every_page(store):
    ins = instructor_with_class()  # Sennrich at step 0: e + s, s + t and t + </w> tie at 9
    state = class_state(ins)
    stu = student({"class": state.join_token})
    assert BADGE in page_html(stu) and BADGE in page_html(ins)  # before: the usual table
    ins.button(key="class_btn_ask").click().run()
    assert not ins.exception
    stu.run()  # the student's next poll
    assert not stu.exception
    for at in (ins, stu):
        html = page_html(at)
        assert BADGE not in html and 'class="tp-bar"' not in html, "the answer shows"
        assert "Counts hidden while the class answers" in html
        assert 'class="tp-badge tie"' not in html
    # a student who explores alone at that step sees no more than that
    stu.button(key="class_btn_detach").click().run()
    assert BADGE not in page_html(stu)
    # a student who switches on predict mode and "Show the counts" still sees none
    stu.session_state["train.mode"] = "predict"
    stu.session_state["train.hide_counts"] = False
    stu.run()
    assert not stu.exception
    assert 'class="tp-bar"' not in page_html(stu) and BADGE not in page_html(stu)
    ins.button(key="class_btn_reveal").click().run()
    assert BADGE in page_html(ins)  # revealed: the table is whole again
    stu.session_state["train.mode"] = "explore"
    stu.run()
    assert BADGE in page_html(stu)


def test_question_options_are_shuffled_as_a_whole_the_same_way_for_everyone(store):
    at = _app()
    at.switch_page(TRAIN).run()
    view = RunView(at.session_state["train.view_obj"].run)
    by_count = [pair for pair, _ in view.run.events[0].top_pairs]
    right_first = 0
    for n in range(40):
        code = f"CODE{n:04d}"
        options = logic.question_options(view, 0, code)
        assert options == logic.question_options(view, 0, code)  # the same for every caller
        labels = [label for label, _ in options]
        correct = set(logic.correct_options(view, 0, options))
        assert correct == {"e + s", "s + t", "t + </w>"}
        if set(labels[:3]) == correct:
            right_first += 1
        assert {pair for _, pair in options} == set(by_count[:len(options)])  # the most frequent pairs
    # by count, the three tied right answers came first every time (40 of 40); shuffled as a
    # whole, three given slots of eight hold them 1 time in 56
    assert right_first <= 6, right_first


def test_when_the_class_moves_on_the_question_box_says_the_question_is_over(store):
    ins = instructor_with_class()
    state = class_state(ins)
    stu = student({"class": state.join_token})
    ins.button(key="class_btn_ask").click().run()
    stu.run()
    stu.session_state[f"class_w_pick_{class_state(ins).question.number}"] = "s + t"
    stu.button(key="class_btn_answer").click().run()
    ins.button(key="class_btn_reveal").click().run()
    stu.run()
    assert any("s + t**: right" in s for s in texts(stu, "success"))
    ins.button(key="train_w_btn_step").click().run()
    ins.button(key="train_w_btn_step").click().run()
    stu.run()
    assert not stu.exception and stu.session_state["train.step"] == 2
    assert not any("You answered" in s for s in texts(stu, "success") + texts(stu, "warning") + texts(stu, "info"))
    assert any("The question about merge 1 is over" in i for i in texts(stu, "info"))


# ---- a class that ends, a store that goes away ------------------------------------------
def test_ending_a_class_tells_students_plainly_and_they_keep_their_page(store):
    ins = instructor_with_class()
    stu = student({"class": class_state(ins).join_token})
    for _ in range(2):
        ins.button(key="train_w_btn_step").click().run()
    stu.run()
    assert stu.session_state["train.step"] == 2
    ins.button(key="class_btn_end").click().run()
    assert not ins.exception and role_of(ins) is None
    assert any("You ended the class" in i for i in texts(ins, "info"))
    stu.run()  # the student's next poll
    assert not stu.exception
    assert not texts(stu, "error"), texts(stu, "error")  # not a red error: nothing went wrong
    assert any(i.startswith("Your instructor ended the class") for i in texts(stu, "info")), texts(stu, "info")
    assert role_of(stu) is None and stu.session_state["train.step"] == 2  # the page stays
    stu.button(key="train_w_btn_step").click().run()  # and keeps working on its own
    assert stu.session_state["train.step"] == 3
    assert any("Your instructor ended" in i for i in texts(stu, "info"))  # until dismissed
    stu.button(key="class_btn_dismiss").click().run()
    assert not any("Your instructor ended" in i for i in texts(stu, "info"))


def test_the_instructor_is_told_when_the_class_was_ended_elsewhere(store):
    ins = instructor_with_class()
    state = class_state(ins)
    store.end_class(state.code, instructor_token=ins.session_state["class.token"])  # another device
    ins.button(key="train_w_btn_step").click().run()
    assert not ins.exception and not texts(ins, "error")
    assert role_of(ins) is None
    assert any("was ended on another device" in i for i in texts(ins, "info")), texts(ins, "info")
    assert not any(state.display_code in h for h in texts(ins, "html") if "class-code" in h)  # no join code left
    assert ins.session_state[session.DEVICE] is None  # the kept cookie was forgotten (script drawn)


def test_the_instructor_is_told_of_an_outage_and_the_step_is_sent_when_the_store_is_back(store, monkeypatch):
    import streamlit as st

    from ui.classmode import panels as class_panels

    timers = []
    real_fragment = st.fragment

    def fragment(func=None, *, run_every=None):
        def wrap(f):
            if f.__name__ == "_instructor_fragment":
                timers.append(run_every)
            return real_fragment(f, run_every=run_every)
        return wrap if func is None else wrap(func)

    monkeypatch.setattr(class_panels.st, "fragment", fragment)
    ins = instructor_with_class()
    code = class_state(ins).code
    assert timers[-1] is None  # no timer while nothing is pending
    store.down = True
    ins.button(key="train_w_btn_step").click().run()
    assert not ins.exception and ins.session_state["train.step"] == 1
    assert session.OUTAGE in texts(ins, "error")  # said in the class panel
    assert timers[-1] == session.PAUSE_SECONDS  # the panel retries on a timer
    ins.button(key="train_w_btn_step").click().run()  # stepping on during the outage
    assert session.OUTAGE in texts(ins, "error")
    store.down = False
    assert store.poll(code, session="observer").step == 0  # the steps never reached the class

    real_train_banner = class_panels.train_banner
    ticks = []

    def tick(view):  # the timer's run of the panel fragment, as the browser sends it, once;
        if ticks:    # a rerun it asks for is a full run of the page
            return real_train_banner(view)
        ticks.append(view)
        st.session_state[class_panels.FULL_RUN] = False
        class_panels._instructor_fragment()

    with monkeypatch.context() as patch:
        patch.setattr(class_panels, "train_banner", tick)
        ins.run()
        assert not ins.exception
        assert store.poll(code, session="observer").step == 2  # re-sent once the store is back
        # (the tick then reran the page, the panel says so once and its timer stops)
        assert any("The class store is back: your students see step 2" in m for m in texts(ins, "success"))
    ins.run()
    assert session.OUTAGE not in texts(ins, "error") and timers[-1] is None


# ---- a reload keeps the class ---------------------------------------------------------------
def test_a_reload_of_the_instructors_browser_takes_control_again_and_no_one_else_can(store, monkeypatch):
    """The instructor's page writes a cookie (code.token) with its own script; the next
    session of that browser (F5, a restarted browser) sends it with its first request and
    takes control again. AppTest has no browser, so the cookie's reading is stood in for
    (the Chromium test reloads for real)."""
    ins = instructor_with_class()
    for _ in range(3):
        ins.button(key="train_w_btn_step").click().run()
    state = class_state(ins)
    token = ins.session_state["class.token"]
    scripts = [h for h in texts(ins, "html") if session.COOKIE in h]
    assert scripts and f"{session.COOKIE}={state.code}.{token}; path=/;" in scripts[0]
    assert "samesite=strict" in scripts[0] and "max-age=10800" in scripts[0]
    assert not any(f"teach={token}" in h for h in texts(ins, "html"))  # never in a link the page writes

    monkeypatch.setattr(session, "saved_control", lambda: (state.code, token))
    again = _app()  # F5: a new session of the same browser
    again.switch_page(TRAIN).run()
    assert role_of(again) == "instructor" and again.session_state["train.step"] == 3
    assert any(state.display_code in h and "Join at" in h for h in texts(again, "html")), "the class panel is back"
    assert not again.get("image")  # a class under way: its QR code folded to one line
    again.button(key="train_w_btn_step").click().run()
    assert store.poll(state.code, session="observer").step == 4  # and steps the class

    for forged in (state.join_token, token[:-2] + "xx", "x" * 32):
        monkeypatch.setattr(session, "saved_control", lambda forged=forged: (state.code, forged))
        other = _app()
        other.switch_page(TRAIN).run()
        assert role_of(other) is None and not texts(other, "error")
        assert other.session_state[session.DEVICE] is None  # its cookie was forgotten
    assert store.poll(state.code, session="observer").step == 4


def test_saved_control_reads_only_a_well_formed_cookie(monkeypatch):
    import streamlit as st

    class Context:
        cookies = {}

    monkeypatch.setattr(st, "context", Context)
    for value, expected in [("7K3QX9M2.abc_-9", ("7K3QX9M2", "abc_-9")), ("a.b.c", None), ("nodot", None),
                            (".x", None), ("x" * 200 + ".y", None)]:
        Context.cookies = {session.COOKIE: value}
        assert session.saved_control() == expected, value


# ---- finding and running a class ------------------------------------------------------------
TEACH = "views/teach_class.py"


def test_teach_a_class_starts_one_in_the_presentation_view(store):
    at = _app()
    at.switch_page(TEACH).run()
    assert at.title[0].value == "Teach a class"
    assert any("Sennrich" in m for m in texts(at, "markdown"))  # the corpus it starts on
    at.button(key="class_btn_teach").click().run()
    assert role_of(at) == "instructor"
    assert at.session_state["train.layout"] == "present"
    at.switch_page(TRAIN).run()  # (a browser follows the page's switch_page by itself)
    assert at.get("image"), "the QR code is on the projected page"
    at.switch_page(TEACH).run()
    assert any("You are running class" in m for m in texts(at, "success"))


def test_class_mode_is_offered_in_the_presentation_view(store):
    at = _app()
    at.switch_page(TRAIN).run()
    at.session_state["train.layout"] = "present"
    at.run()
    open_class_box(at)
    assert at.button(key="class_btn_start")
    at.button(key="class_btn_start").click().run()
    assert role_of(at) == "instructor" and at.get("image")


def test_the_projected_class_panel_sits_beside_the_step_while_the_qr_code_is_open_or_a_question_is_asked(store):
    """Presentation view: the QR code and the answers' chart are too tall to sit above the
    step on a projector, so the page draws the step in a column and the class panel in
    another (the Chromium test measures the heights); folded, the panel is above again."""
    def step_beside(at: AppTest) -> bool:
        return any(any(b.key == "train_w_btn_step" for b in col.get("button")) for col in at.columns)

    at = _app()
    at.switch_page(TRAIN).run()
    at.session_state["train.layout"] = "present"
    at.run()
    open_class_box(at)
    assert not step_beside(at)
    at.button(key="class_btn_start").click().run()
    assert at.get("image") and step_beside(at)  # the QR code open
    assert "class_btn_end_below" not in [b.key for b in at.button]  # the box below the step left out
    at.button(key="train_w_btn_step").click().run()
    at.run()
    assert not at.get("image") and not step_beside(at)  # folded to one line, above the step
    at.button(key="class_btn_ask").click().run()
    assert step_beside(at) and at.get("vega_lite_chart")  # the answers' chart beside the step
    at.session_state["train.layout"] = "normal"
    at.run()
    assert not step_beside(at)  # the usual page: the panel above, as before


def test_the_qr_code_folds_to_one_line_once_the_class_is_under_way_and_reopens(store):
    ins = instructor_with_class()
    assert len(ins.get("image")) == 1
    ins.button(key="train_w_btn_step").click().run()
    ins.run()  # the panel is drawn by full runs
    code = class_state(ins).display_code
    assert not ins.get("image")
    line = next(h for h in texts(ins, "html") if "class-line" in h)
    assert "Join at" in line and code in line
    ins.button(key="class_btn_qr_show").click().run()
    assert len(ins.get("image")) == 1
    ins.button(key="class_btn_qr_fold").click().run()
    assert not ins.get("image")


def test_the_qr_code_asks_for_one_full_run_to_fold_even_when_the_panel_is_not_drawn(store, monkeypatch):
    """The step area (rerun alone by a step) asks for one full run to fold the QR code at
    the top. Asked once: a full run that does not draw the panel (cut short, say) must not
    ask again, or every run asks for the next one and the page never settles."""
    from ui.classmode import panels as class_panels

    ins = instructor_with_class()
    assert ins.session_state[session.QR_DRAWN] is False  # drawn open
    with monkeypatch.context() as patch:
        patch.setattr(class_panels, "_instructor_panel", lambda view: None)
        ins.button(key="train_w_btn_step").click().run()  # used to rerun the page forever
        assert ins.session_state["train.step"] == 1 and class_state(ins).step == 1
        assert ins.session_state[session.QR_DRAWN] is None  # asked, not yet drawn
    ins.run()
    assert not ins.get("image") and ins.session_state[session.QR_DRAWN] is True


def test_a_page_opened_at_localhost_warns_and_takes_the_address_students_open(store, monkeypatch):
    monkeypatch.delenv(logic.PUBLIC_SETTING, raising=False)
    at = _app()
    at.context = {"url": "http://127.0.0.1:8501/train-bpe"}
    at.switch_page(TRAIN).run()
    open_class_box(at)
    at.button(key="class_btn_start").click().run()
    assert any("only this computer can open" in w for w in texts(at, "warning"))
    token = class_state(at).join_token
    at.text_input(key="class_w_public").input("http://192.168.1.20:8501").run()
    assert f"http://192.168.1.20:8501/join?class={token}" in texts(at, "code")
    assert not any("only this computer can open" in w for w in texts(at, "warning"))
    at.text_input(key="class_w_public").input("javascript:alert(1)").run()
    assert any(c.startswith("http://127.0.0.1:8501/join?class=") for c in texts(at, "code"))
    assert any("That is not an address" in e for e in texts(at, "error"))

    monkeypatch.setenv(logic.PUBLIC_SETTING, "http://bpe.school.example/")
    other = _app()
    other.context = {"url": "http://localhost:8501/train-bpe"}
    other.switch_page(TRAIN).run()
    open_class_box(other)
    other.button(key="class_btn_start").click().run()
    assert any(c.startswith("http://bpe.school.example/join?class=") for c in texts(other, "code"))
    assert not any("only this computer" in w for w in texts(other, "warning"))


def test_a_following_students_merge_list_is_a_table_and_exploring_brings_back_the_buttons(store):
    """While following, the step area draws the merge's effect, the pair table and the merge
    list as one shared block of HTML (no merge buttons: fewer elements for the server to send
    each student at each step); exploring alone brings the clickable merge list back."""
    from ui.train import panels as train_panels

    ins = instructor_with_class()
    stu = student({"class": class_state(ins).join_token})
    for _ in range(3):
        ins.button(key="train_w_btn_step").click().run()
    stu.run()
    assert not stu.exception and not ins.exception
    assert stu.session_state["train.step"] == 3
    keys = {b.key for b in stu.button}
    assert not any(k and k.startswith("train_w_goto_") for k in keys)
    page = "".join(h.value for h in stu.html)
    assert train_panels.FOLLOW_NOTE in page and 'class="tp-grid"' in page and "tp-merges" in page
    assert "train_w_goto_3" in {b.key for b in ins.button}  # the instructor's list still navigates
    stu.button(key="class_btn_detach").click().run()
    assert not stu.exception
    assert {"train_w_goto_1", "train_w_goto_3"} <= {b.key for b in stu.button}
    assert train_panels.FOLLOW_NOTE not in "".join(h.value for h in stu.html)


def _sidebar_lines(at: AppTest) -> list[str]:
    return [c.value for c in at.sidebar.caption if "Your tokenizer" in c.value]


def test_a_following_students_sidebar_line_names_no_step_and_comes_back_when_they_explore(store):
    """While following, the sidebar's line is drawn by the page's full run without a step
    (the class's steps rerun only the step area, and a line written from there costs each
    student two elements at every step); once the student steps on their own, one line
    names their step again, never two."""
    ins = instructor_with_class()
    stu = student({"class": class_state(ins).join_token})
    assert len(_sidebar_lines(stu)) == 1 and "at the step your class is on" in _sidebar_lines(stu)[0]
    ins.button(key="train_w_btn_step").click().run()
    stu.run()
    assert stu.session_state["train.step"] == 1
    assert len(_sidebar_lines(stu)) == 1 and "at the step your class is on" in _sidebar_lines(stu)[0]
    stu.button(key="train_w_btn_step").click().run()  # exploring on their own from here
    assert not stu.exception, stu.exception
    assert stu.session_state["train.step"] == 2
    lines = _sidebar_lines(stu)
    assert len(lines) == 1 and "step 2 of" in lines[0], lines
    assert not ins.exception
