"""Two sessions of the same server share trained runs (st.cache_resource), never what a
user named or typed (issue 15, defect 2).

Two AppTest instances in one process share `st.cache_resource`, which is how the server
shares runs between browser tabs. Session A uploads a text as `alice_private_notes.txt`;
session B uploads the same text as `bob.txt`. Nothing of A's file name may show anywhere
in B's pages (every string of every element, the sidebar, data frames, the URL), and
the other way round. A second test has A type a corpus with a secret word and checks that
B, on every page, never shows it. The upload goes through the page's own file uploader
(AppTest drives `st.file_uploader` and its on_change callback). Each test uses a text no
other test trains, so the shared cache starts without it.
"""
from __future__ import annotations

import uuid

import pytest
from streamlit.testing.v1 import AppTest

from tests.train_settings import open_settings

APP = "../app.py"
HOME, TRAIN, TOKENIZE, VOCAB = "views/home.py", "views/train.py", "views/tokenize.py", "views/vocab_size.py"


def _nodes(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _nodes(child)


def _strings(msg):
    from google.protobuf.message import Message

    for fd, val in msg.ListFields():
        for v in val if fd.is_repeated else [val]:
            if isinstance(v, Message):
                yield from _strings(v)
            elif isinstance(v, str):
                yield f"{type(msg).__name__}.{fd.name}", v


def shown(at: AppTest) -> list[tuple[str, str]]:
    """(where, text) for everything the session can see: every string of every element
    (main and sidebar), the contents of every data frame, and the URL's parameters."""
    out: list[tuple[str, str]] = []
    for node in _nodes(at._tree):
        proto = getattr(node, "proto", None)
        if proto is not None:
            out += [(f"{getattr(node, 'type', 'block')} {field}", text) for field, text in _strings(proto)]
    for i, frame in enumerate(at.dataframe):
        out.append((f"dataframe {i}", frame.value.to_csv()))
    out += [(f"query parameter {k}", v) for k, v in at.query_params.items()]
    return out


def pages_of(at: AppTest) -> list[tuple[str, str]]:
    """What the session sees on every page that names its run: Train, Tokenize with its
    own tokenizer (the ids view, Decode and Compare), Vocabulary size, home."""
    seen = [(f"Train: {w}", t) for w, t in shown(at)]
    for view in ("ids", "decode", "compare"):
        at.query_params.clear()
        at.query_params.update({"tokenizer": "yours", "view": view, "ids": "1 2", "compare": "yours,gpt2"})
        at.switch_page(TOKENIZE).run()
        assert not at.exception, at.exception
        seen += [(f"Tokenize ({view}): {w}", t) for w, t in shown(at)]
    for name, page in (("Vocabulary size", VOCAB), ("Home", HOME), ("Train", TRAIN)):
        at.query_params.clear()
        at.switch_page(page).run()
        assert not at.exception, at.exception
        seen += [(f"{name}: {w}", t) for w, t in shown(at)]
    return seen


def session() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page(TRAIN).run()
    assert not at.exception, at.exception
    return open_settings(at)


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.radio(key="train_w_source").set_value("upload").run()
    at.file_uploader(key="train_w_upload").set_value((name, data, "text/plain")).run()
    assert not at.exception, at.exception
    assert any(name in c.value for c in at.caption), f"the upload of {name} was not taken"
    return at


def where(seen: list[tuple[str, str]], needle: str) -> list[str]:
    return [f"{w}: {t[:160]!r}" for w, t in seen if needle.lower() in t.lower()]


@pytest.mark.parametrize("first, second", [("alice", "bob"), ("bob", "alice")])
def test_a_file_name_never_reaches_another_session(first, second):
    names = {"alice": "alice_private_notes.txt", "bob": "bob.txt"}
    data = f"the lowest newest widest words {uuid.uuid4().hex}\n".encode()
    a = upload(session(), names[first], data)
    b = upload(session(), names[second], data)
    leaked = where(pages_of(b), first)
    assert not leaked, f"{names[first]}, the first session's file, shows in the second's:\n" + "\n".join(leaked)
    a.switch_page(TRAIN).run()
    leaked = where(pages_of(a), second)
    assert not leaked, f"{names[second]}, the second session's file, shows in the first's:\n" + "\n".join(leaked)


def test_typed_text_never_reaches_another_session():
    secret = f"zebrasecret{uuid.uuid4().hex[:8]}"
    a = session()
    a.radio(key="train_w_source").set_value("text").run()
    a.text_area(key="train_w_text").set_value(f"the {secret} lowest newest widest {secret}").run()
    assert not a.exception, a.exception
    assert where(shown(a), secret), "session A's own text should be on its page"
    b = session()
    leaked = where(pages_of(b), secret)
    assert not leaked, "session A's typed text shows in session B:\n" + "\n".join(leaked)


# ---- the step cache (ui/train/step_cache.py) -----------------------------------------------
def _cached_strings() -> list[str]:
    """Every string held by the shared step cache, keys and values."""
    from ui.shared.cache import cache_named

    cache = cache_named("train.steps")
    out: list[str] = []

    def walk(v, depth=0):
        if depth > 6:
            return
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(k, depth + 1)
                walk(x, depth + 1)
        elif isinstance(v, (list, tuple, set, frozenset)):
            for x in v:
                walk(x, depth + 1)
        elif hasattr(v, "__dataclass_fields__"):
            for name in v.__dataclass_fields__:
                walk(getattr(v, name), depth + 1)

    for key, (value, _size) in list(cache._items.items()):
        walk(key)
        walk(value)
    return out


def test_the_step_cache_carries_no_file_name_and_no_answers_to_another_session():
    """Alice uploads a text as alice_private_notes.txt, steps through it (filling the shared
    step cache) and answers in predict mode; Bob uploads the same text as bob.txt and steps
    the same steps, served from Alice's cache entries. Nothing of Alice's name or answers is
    in the cache or on Bob's page."""
    from ui.train import step_cache

    data = f"the lowest newest widest words {uuid.uuid4().hex}\n".encode()
    alice = upload(session(), "alice_private_notes.txt", data)
    for _ in range(3):
        alice.button(key="train_w_btn_step").click().run()
    alice.toggle(key="train_w_predict").set_value(True).run()
    pick = alice.selectbox(key="train_w_pick")
    pick.select_index(0)
    alice.button(key="train_w_btn_check").click().run()
    assert not alice.exception, alice.exception
    feedback = 'class="tp-fb'  # the markup of predict mode's feedback (the CSS names it too)
    assert feedback in " ".join(h.proto.body for h in alice.get("html"))  # Alice sees her feedback
    held = _cached_strings()
    assert held, "the step cache should hold Alice's steps"
    assert not [s for s in held if "alice" in s.lower()], "a file name is in the shared step cache"
    assert not [s for s in held if feedback in s], "predict-mode feedback is in the shared step cache"

    hits = step_cache.stats()["hit"]
    bob = upload(session(), "bob.txt", data)
    for _ in range(3):
        bob.button(key="train_w_btn_step").click().run()
    assert not bob.exception, bob.exception
    assert step_cache.stats()["hit"] > hits, "Bob's steps should come from the shared step cache"
    leaked = where(shown(bob), "alice")
    assert not leaked, "Alice's file name shows in Bob's session:\n" + "\n".join(leaked)
    assert not where(shown(bob), feedback) and not where(shown(bob), "Counts as right"), \
        "Alice's predict-mode answer shows in Bob's session"
