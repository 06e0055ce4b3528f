"""Issue 26 items 4 and 5 on the page: limits by client address, the instructor passphrase,
and wrong instructor links that all read the same.

AppTest has no connection (every session would be a loopback visitor, counted per
session), so `session.client_address` is set to one public address for every session
here, as for tabs on one machine elsewhere or students behind one school address.
"""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from classroom import DEFAULT_LIMITS, WRONG_INSTRUCTOR_LINK, WRONG_PASSPHRASE, Limit
from classroom.memory import MemoryClassStore
from ui.classmode import session
from ui.classmode.panels import OPEN

APP = "../app.py"
TRAIN = "views/train.py"
JOIN = "views/join_class.py"
TEACH = "views/teach_class.py"
GENEROUS = {a: Limit(burst=10_000, per_second=1000.0) for a in ("create", "join", "answer", "poll", "teach", "guess")}


def _use(store):
    session.use_store(store)
    return store


@pytest.fixture(autouse=True)
def _default_store_after():
    yield
    session.use_store(None)


@pytest.fixture
def one_address(monkeypatch):
    monkeypatch.setattr(session, "client_address", lambda: "203.0.113.7")


def _train_with_class_box() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    at.switch_page(TRAIN).run()
    at.session_state[OPEN] = True
    return at.run()


def _role(at: AppTest):
    return at.session_state["class.role"] if "class.role" in at.session_state else None


def test_new_sessions_from_one_address_share_one_creation_limit(one_address):
    """Each fresh session used to get its own allowance (205 sessions made 197 classes)."""
    _use(MemoryClassStore(limits={**GENEROUS, "create": DEFAULT_LIMITS["create"]}))
    for _ in range(DEFAULT_LIMITS["create"].burst):
        at = _train_with_class_box()
        at.button(key="class_btn_start").click().run()
        assert _role(at) == "instructor"
    late = _train_with_class_box()
    late.button(key="class_btn_start").click().run()
    assert _role(late) is None
    assert any("Too many classes started from your network address" in e.value for e in late.error)


def test_a_deployment_passphrase_is_asked_for_and_checked(one_address):
    store = _use(MemoryClassStore(limits=GENEROUS, passphrase="open sesame"))
    at = _train_with_class_box()
    box = at.text_input(key=session.PASSPHRASE)
    assert box.proto.type == box.proto.PASSWORD  # typed out of sight
    box.input("open says me").run()
    at.button(key="class_btn_start").click().run()
    assert _role(at) is None and len(store) == 0
    assert any(WRONG_PASSPHRASE in e.value for e in at.error)
    at.text_input(key=session.PASSPHRASE).input("open sesame").run()
    at.button(key="class_btn_start").click().run()
    assert _role(at) == "instructor" and len(store) == 1
    assert at.session_state[session.PASSPHRASE] == ""  # not kept once used


def test_no_passphrase_box_without_the_setting():
    _use(MemoryClassStore(limits=GENEROUS))
    at = _train_with_class_box()
    assert not [t for t in at.text_input if t.key == session.PASSPHRASE]


def test_every_wrong_instructor_link_reads_the_same_on_the_page(one_address):
    """The teach= link said "There is no class …" for an unknown code and "does not
    control" for a wrong token: an oracle for which codes exist."""
    store = _use(MemoryClassStore(limits=GENEROUS))
    keys = store.create_class({"params": {"preset": "sennrich"}}, session="teacher")
    other = "0000-0000" if keys.code != "00000000" else "1111-1111"
    shown = []
    for code, token in ((keys.code, "x" * 32), (other, "x" * 32), (keys.code, keys.join_token), ("nonsense", "y")):
        at = AppTest.from_file(APP, default_timeout=90)
        at.run()
        at.query_params.update({"code": code, "teach": token})
        at.switch_page(JOIN).run()
        assert _role(at) is None and "teach" not in at.query_params
        shown.append([e.value for e in at.error])
    assert all(errors == shown[0] for errors in shown), shown
    assert len(shown[0]) == 1 and "does not control a class" in shown[0][0]
    assert WRONG_INSTRUCTOR_LINK.split(":")[0] in shown[0][0]


def test_a_visitor_on_the_servers_own_machine_is_counted_per_session():
    """Loopback visitors (a teacher's laptop, a test suite's browsers) keep per-session
    limits: one machine is not one stranger."""
    _use(MemoryClassStore(limits={**GENEROUS, "create": DEFAULT_LIMITS["create"]}))
    for _ in range(DEFAULT_LIMITS["create"].burst + 1):
        at = _train_with_class_box()
        at.button(key="class_btn_start").click().run()
        assert _role(at) == "instructor"
        assert at.session_state[session.CLIENT] == "local"


def test_the_teach_page_asks_for_the_passphrase_too(one_address):
    store = _use(MemoryClassStore(limits=GENEROUS, passphrase="open sesame"))
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    at.switch_page(TEACH).run()
    at.button(key="class_btn_teach").click().run()
    assert _role(at) is None and len(store) == 0
    assert any(WRONG_PASSPHRASE in e.value for e in at.error)
    at.text_input(key=session.PASSPHRASE).input("open sesame").run()
    at.button(key="class_btn_teach").click().run()
    assert _role(at) == "instructor" and len(store) == 1
