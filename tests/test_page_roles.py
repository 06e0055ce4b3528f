"""Every page path, opened in every class role, with every query parameter the page reads.

The pages are read from app.py's st.Page list (a new page is covered without editing this
file). The roles are what a visitor can be in a class: in none, a student following one,
the instructor (opened with the right instructor link), and someone who opened an
instructor link with a wrong token. For each role one session opens every page with each
of that page's parameter sets (its own share links, hostile values, and the class links);
the conftest fixture fails any run that ends with an exception on the page, and after
every run the instructor token is not in the address bar.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from classroom import Limit
from classroom.memory import MemoryClassStore
from train_settings import open_settings
from ui.classmode import session
from ui.train.config import _PARAM_OF

APP = "../app.py"
ROOT = Path(__file__).resolve().parent.parent
JOIN = "views/join_class.py"
TRAIN = "views/train.py"
GENEROUS = {a: Limit(burst=10_000, per_second=1000.0) for a in ("create", "join", "answer", "poll", "teach")}


def pages() -> dict[str, str]:
    """url_path ("" for the default page) -> page file, from app.py's st.Page calls."""
    tree = ast.parse((ROOT / "app.py").read_text())
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "Page":
            kw = {k.arg: k.value for k in node.keywords}
            default = "default" in kw and kw["default"].value is True
            path = "" if default or "url_path" not in kw else kw["url_path"].value
            found[path] = node.args[0].value
    return found


def test_the_page_list_is_read_from_app_py():
    found = pages()
    assert found[""] == "views/home.py" and found["join"] == JOIN and found["train-bpe"] == TRAIN
    assert len(found) >= 7


#: The query parameters each page reads, as links write them and as an attacker might.
#: A page missing here is opened without parameters and with the Train page's link
#: (every page's first run sets up the Train page's state from the address).
TRAIN_LINKS = [
    {"preset": "sennrich", "step": "3", "view": "present", "mode": "predict"},
    # every setting the link format knows (ui/train/config.py), with a value it refuses
    {"preset": "sennrich", **{key: "<b>nope</b>" for key in _PARAM_OF.values()}},
    {"words": "a 1", "units": "byte", "eow": "none", "marker": "", "pre": "whitespace", "stop": "vocab",
     "vocab": "0", "min": "99999999999", "merges": "-3"},
    {"words": "low 5\nlower 2\nnewest 6", "step": "999999999", "tie": "smallest-id"},
    {"text": "<img src=x onerror=alert(1)> aaa bbb", "step": "-1", "view": "nope", "mode": "nope", "tie": "x"},
    {"preset": "no-such-preset", "step": "²"},
]
TOKENIZE_LINKS = [
    {"tokenizer": "gpt2", "text": "hello world", "view": "replay", "token": "2"},
    {"tokenizer": "cl100k_base", "text": "hi", "view": "compare", "compare": "gpt2,o200k_base,nope"},
    {"tokenizer": "gpt2", "view": "decode", "ids": "15496,11,x,-1,99999999999"},
    {"tokenizer": "bert", "special": "1", "token": "0", "view": "<b>"},
]


def class_links(code: str, join_token: str, teach: str) -> list[dict[str, str]]:
    return [
        {"class": join_token},
        {"code": code},
        {"code": code.lower()[:4] + "-" + code[4:].lower()},
        {"code": code, "teach": teach},
        {"code": code, "teach": "not-the-token"},
        {"code": "ZZZZZZZZ", "teach": teach},
        {"teach": teach},
        {"resume": "1"},  # deploy/'s nginx answered an instructor link (AppTest sends no cookie)
        {"class": "no-such-class"},
        {"code": "<script>"},
    ]


def links_for(page: str, code: str, join_token: str, teach: str) -> list[dict[str, str]]:
    if page == JOIN:
        return [{}] + class_links(code, join_token, teach)
    if page == TRAIN:
        return [{}] + TRAIN_LINKS
    if page == "views/tokenize.py":
        return [{}] + TOKENIZE_LINKS
    return [{}, TRAIN_LINKS[0]]


@pytest.fixture
def store():
    s = MemoryClassStore(limits=GENEROUS)
    session.use_store(s)
    yield s
    session.use_store(None)


def _open(at: AppTest, page: str, params: dict[str, str]) -> AppTest:
    at.query_params.clear()
    at.query_params.update(params)
    at.switch_page(page).run()
    assert "teach" not in at.query_params, f"{page} {params}: the instructor token stayed in the address"
    assert at.title, f"{page} {params}: the page drew no title (did it run?)"
    return at


def _role(at: AppTest):
    return at.session_state["class.role"] if "class.role" in at.session_state else None


def _instructor() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    at.switch_page(TRAIN).run()
    at.session_state["class_w_open"] = True  # the folded "Class mode" box, opened
    at.run()
    at.button(key="class_btn_start").click().run()
    assert _role(at) == "instructor"
    return at


ROLES = ["none", "student", "instructor", "wrong-token"]


@pytest.mark.parametrize("role", ROLES)
def test_every_page_opens_in_every_role_with_every_parameter(store, role):
    teacher = _instructor()
    state = teacher.session_state["class.state"]
    code, join_token, teach = state.code, state.join_token, teacher.session_state["class.token"]

    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    if role == "student":
        _open(at, JOIN, {"class": join_token})
    elif role == "instructor":
        _open(at, JOIN, {"code": code, "teach": teach})
    elif role == "wrong-token":
        _open(at, JOIN, {"code": code, "teach": "wrong-token"})
    expected = {"none": None, "student": "student", "instructor": "instructor", "wrong-token": None}[role]
    assert _role(at) == expected

    # the join page last: opening its links is meant to change the role
    for path, page in sorted(pages().items(), key=lambda item: (item[1] == JOIN, item[0])):
        for params in links_for(page, code, join_token, teach):
            _open(at, page, params)
            if page != JOIN:  # the join page may change the role (that is its job)
                assert _role(at) == expected, (path, params)
    # after all that, the class still answers the instructor, and nobody else took control
    assert store.is_instructor(code, teach)


def test_back_to_the_class_run_restores_its_corpus_and_step(store):
    """The other caller of the missing name (issue 27, defect 1): "Back to the class's
    corpus and settings" after the instructor moved to another preset."""
    teacher = _instructor()
    teacher.button(key="train_w_btn_step").click().run()
    teacher.button(key="train_w_btn_step").click().run()
    state = teacher.session_state["class.state"]
    assert state.step == 2
    open_settings(teacher)  # the folded "Corpus and settings" box
    teacher.selectbox(key="train_w_preset").set_value("classroom").run()
    assert teacher.session_state["train.preset"] == "classroom"
    teacher.button(key="class_btn_back_to_class").click().run()
    teacher.run()  # the Train page applies the requested step once the run is ready
    assert teacher.session_state["train.preset"] == "sennrich"
    assert teacher.session_state["train.step"] == 2
    assert not [w for w in teacher.warning if "another corpus" in w.value]
