"""Every session-state key the app's source uses is declared (ui.shared.state.Key or
KeyFamily), each page declares its keys in one module, and only ui/shared/state.py touches
st.session_state (pages go through `KEY.get()`, `.set()`, `.widget()`...).

The source of ui/, views/ and app.py is read (tests/state_key_scan.py), not run: a key
written as a string, a constant, a concatenation or an f-string whose name is not declared
fails here, so a typo'd key is found before a reader meets an empty value. Keys held in
variables (a helper's parameter) are checked where the helper is called with them.
"""
from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest
import streamlit as st

import ui
from state_key_scan import Resolved, Scanner
from ui.shared.state import STEP_KEY, Key, KeyFamily, declared_families, declared_keys, is_declared

ROOT = Path(__file__).resolve().parent.parent


def _sources() -> list[Path]:
    return sorted((ROOT / "ui").rglob("*.py")) + sorted((ROOT / "views").rglob("*.py")) + [ROOT / "app.py"]


@pytest.fixture(scope="module")
def uses():
    for module in pkgutil.walk_packages(ui.__path__, "ui."):  # every declaration registers itself on import
        importlib.import_module(module.name)
    return Scanner(ROOT, _sources()).uses()


def _covered(key: Resolved) -> bool:
    if key.exact:
        return is_declared(key.text)
    return any(key.text.startswith(prefix) for prefix in declared_families())


#: The one module that reads and writes st.session_state itself: every other module goes
#: through its `Key`s, so a key's type, default and declaration are never bypassed. (Widget
#: keys that Streamlit writes are no exception: a page reads one as `WIDGETS.key(name).get()`.)
STATE_MODULE = "ui/shared/state.py"


def test_only_the_state_module_touches_session_state():
    raw = Scanner(ROOT, _sources()).raw_uses()
    assert any(u.path == STATE_MODULE for u in raw), "the scan no longer sees st.session_state in ui/shared/state.py"
    outside = [f"{u.path}:{u.line}: {u.source}" for u in raw if u.path != STATE_MODULE]
    assert not outside, ("st.session_state used outside ui/shared/state.py: read and write through the page's "
                         "declared Key (KEY.get(), .set(), .pop(), .init(), .widget(...)):\n" + "\n".join(outside))


def test_the_scan_finds_a_raw_use(tmp_path):
    (tmp_path / "page.py").write_text(
        "import streamlit as st\n"
        "ss = st.session_state\n"
        "def f(k):\n"
        "    st.session_state.clear()\n"
        "    return k in ss\n"
    )
    raw = Scanner(tmp_path, [tmp_path / "page.py"]).raw_uses()
    assert [u.line for u in raw] == [2, 4]


def test_every_key_the_source_names_is_declared(uses):
    resolved = [u for u in uses if u.key is not None]
    # the widget keys of `KEY.widget(...)` and `folded(...)`, and what raw uses remain
    assert len(resolved) > 40, "the scan found too few keys: is it still reading widget keys and st.session_state?"
    undeclared = [f"{u.path}:{u.line}: {u.source} -> {u.key.text!r}" for u in resolved if not _covered(u.key)]
    assert not undeclared, "undeclared session-state keys (declare them in the page's keys module):\n" + "\n".join(undeclared)


def test_the_scan_finds_an_undeclared_key(tmp_path):
    (tmp_path / "page.py").write_text(
        "import streamlit as st\n"
        "from ui.shared.state import Key\n"
        'GOOD = Key("shared.step")\n'
        'PREFIX = "shared."\n'
        'FAMILY = KeyFamily("tokenize_w_")\n'
        "ss = st.session_state\n"
        "def f(name):\n"
        '    wk = PREFIX + "stpe"\n'
        '    st.radio("y", **GOOD.widget("tokenize_w_ok")), st.radio("z", **GOOD.widget("tokenzie_w_typo"))\n'
        '    st.radio("w", **GOOD.widget(FAMILY.key(name)))\n'
        '    return st.session_state[GOOD], ss.get(wk), "shared.lable" in ss, ss[f"shared.{name}"], ss[name]\n'
    )
    found = Scanner(tmp_path, [tmp_path / "page.py"]).uses()
    by_text = {u.key.text: u.key for u in found if u.key is not None}
    assert set(by_text) == {"shared.step", "shared.stpe", "shared.lable", "shared.", "tokenize_w_ok",
                            "tokenzie_w_typo", "tokenize_w_"}
    assert {t for t, k in by_text.items() if not _covered(k)} == {
        "shared.stpe", "shared.lable", "shared.", "tokenzie_w_typo"}
    assert sum(u.key is None for u in found) == 1  # `ss[name]`: a parameter, checked where it is passed
    assert sum(u.raw for u in found) == 5


def _namespace(name: str) -> str:
    return name.split("_w_")[0] if "_w_" in name else name.split(".")[0]


def test_each_page_declares_its_keys_in_one_module(uses):
    owners: dict[str, set[str]] = {}
    for table in (declared_keys(), declared_families()):
        for name, module in table.items():
            owners.setdefault(_namespace(name), set()).add(module)
    spread = {ns: sorted(mods) for ns, mods in owners.items() if len(mods) > 1}
    assert not spread, f"a page's keys are declared in more than one module: {spread}"


def test_a_key_is_a_string_declared_once():
    assert STEP_KEY == "shared.step" and {STEP_KEY: 1}["shared.step"] == 1 and isinstance(STEP_KEY, Key)
    assert isinstance(KeyFamily("tests.family."), str)
    with pytest.raises(ValueError, match="declared twice"):
        _declare_elsewhere()


def _declare_elsewhere():
    namespace: dict = {"__name__": "tests.some_other_module", "Key": Key}
    exec('Key("shared.step")', namespace)


def test_a_kept_widget_takes_its_value_from_the_store_and_gives_it_back(monkeypatch):
    """`Key.widget`: the store's value goes into the widget key, the widget's on_change brings
    a new one back (then the page's own on_change), and a widget Streamlit dropped (another
    page) gets the stored value again; a stored value `valid` refuses gives way to the default."""
    session: dict = {}
    monkeypatch.setattr(st, "session_state", session)
    store, called = KeyFamily("tests.family.").key("kept", 3), []
    kw = store.widget("tests_w_kept", on_change=called.append, args=("changed",))
    assert kw["key"] == "tests_w_kept" and session == {store: 3, "tests_w_kept": 3}
    session["tests_w_kept"] = 5  # the reader moves the widget
    kw["on_change"](*kw["args"])
    assert session[store] == 5 and called == ["changed"]
    del session["tests_w_kept"]  # a page that does not draw it ran
    store.widget("tests_w_kept")
    assert session["tests_w_kept"] == 5
    store.widget("tests_w_kept", valid=lambda v: v < 5)
    assert session[store] == session["tests_w_kept"] == 3
