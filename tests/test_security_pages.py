"""Every page under AppTest with a hostile value in every URL parameter and every text
input: nothing of it may reach the screen as a link, an image or HTML (issue 15).

The hostile value (tests/hostile.py) carries a markdown image, a markdown link, raw HTML,
a script and Streamlit's markdown directives at once, each URL naming the parameter it
was put into; it also goes in with 100,000 characters (into one parameter at a time:
Streamlit ignores a query string over 524,288 characters). After each run the test walks
every element of the page and the sidebar: every string Streamlit renders as markdown
(markdown, captions, alerts, headings, widget labels and help, radio options as shown by
their format_func, expander labels, metrics) must not show a URL at the hostile address
outside a code span (tests/hostile.py says why escaping is not enough), and every
`st.html` body must not link, load or script it. The page must raise no exception and
still draw its main widgets.

The parameters are the ones the pages read: the Train page's (ui/train/config.py:
preset, words, text, the settings in `_PARAM_OF`, step, view, mode), the Tokenize page's
(ui/tokenize/logic.py `read_url`: tokenizer, text, special, view, token, compare, ids);
the home, Vocabulary size, Algorithms and Quirks pages read none (the first two show the
session's run). The text inputs: the Train page's corpus text, word list, marker and
upload (its file name), the Tokenize page's text, Decode ids and replayed word, and every
text box of the Algorithms and Quirks pages (found on the page, so new ones are covered).
"""
from __future__ import annotations

import uuid

import pytest
from streamlit.testing.v1 import AppTest

from hostile import hostile, html_leaks, long_hostile, markdown_leaks
from tests.train_settings import open_settings
from ui.shared.guard import GUARD_HTML
from ui.quirks.logic import QUIRKS as QUIRK_LIST
from ui.shared.a11y import A11Y_CSS, A11Y_SCRIPT
from ui.quirks.widgets import TAB_KEY, TRY_LABEL, open_key

APP = "../app.py"
HOME, TRAIN, TOKENIZE, VOCAB = "views/home.py", "views/train.py", "views/tokenize.py", "views/vocab_size.py"
ALGORITHMS, QUIRKS = "views/algorithms.py", "views/quirks.py"
EXPLORER = "views/explorer.py"
#: The address every hostile URL points at (the discard port: nothing answers there).
ADDRESS = "127.0.0.1:9"
BASE = f"http://{ADDRESS}"

#: Train-page settings parameters and the other ones it reads (ui/train_config.py).
TRAIN_SETTINGS = ("units", "eow", "marker", "pre", "tie", "stop", "merges", "vocab", "min")
TRAIN_OTHERS = ("step", "view", "mode")
TOKENIZE_PARAMS = ("tokenizer", "text", "special", "view", "token", "compare", "ids")

#: Fields of Streamlit's element protos whose text the browser renders as markdown (seen
#: in Chromium: labels, help, expander and tab labels, metric values and deltas, radio and
#: select-slider options link a bare URL; selectbox and multiselect options do not).
MARKDOWN_FIELDS = frozenset({"label", "help", "delta", "content"})
MARKDOWN_OPTIONS = frozenset({"Radio", "Slider"})
#: Element protos whose `body` is markdown.
MARKDOWN_BODIES = frozenset({"Markdown", "Heading", "Alert", "Metric", "Toast"})
LINK_FIELDS = frozenset({"url", "href", "src", "image"})

LONG = 100_000


def short(tag: str) -> str:
    return hostile(BASE, tag)


def long(tag: str) -> str:
    return long_hostile(BASE, tag, LONG)


# ---- walking the page ------------------------------------------------------------------
def _nodes(node, area: str = "main"):
    yield area, node
    for i, child in getattr(node, "children", {}).items():
        yield from _nodes(child, ("main", "sidebar", "event", "bottom")[i] if node is node.root else area)


def _strings(msg):
    """(proto type, field name, text) of every string in a proto message, recursively."""
    from google.protobuf.message import Message

    for fd, val in msg.ListFields():
        for v in val if fd.is_repeated else [val]:
            if isinstance(v, Message):
                yield from _strings(v)
            elif isinstance(v, str):
                yield type(msg).__name__, fd.name, v


def _where(area: str, node) -> str:
    label = getattr(node, "label", None) or getattr(node, "value", "")
    key = getattr(node, "key", None)
    return f"{area} {getattr(node, 'type', 'block')}" + (f" key={key!r}" if key else "") + f" ({str(label)[:60]!r})"


def leaks(at: AppTest) -> list[str]:
    """Every place on the page (and sidebar) that shows the hostile address live."""
    found: list[str] = []
    for area, node in _nodes(at._tree):
        proto = getattr(node, "proto", None)
        if proto is None:
            continue
        for kind, name, text in _strings(proto):
            if kind == "Html" and name == "body" and text in (GUARD_HTML, A11Y_HTML):
                continue  # the app's own constant scripts: the surrogate guard, the live region
            if kind == "Html" and name == "body":
                bad = html_leaks(text, ADDRESS)
            elif (name in MARKDOWN_FIELDS or (name == "body" and kind in MARKDOWN_BODIES)
                  or (name in ("options", "raw_value", "raw_values") and kind in MARKDOWN_OPTIONS)):
                bad = markdown_leaks(text, ADDRESS)
            elif name in LINK_FIELDS:
                bad = [text] if ADDRESS in text else []
            else:
                continue  # plain text (code, inputs' own values, data): shown literally
            if bad:
                shown = ", ".join(b[:80] for b in dict.fromkeys(bad))
                found.append(f"{_where(area, node)} {kind}.{name}: {shown[:400]}")
    return found


#: the live region and scroll-box script app.py installs on every page (ui/shared/a11y.py)
A11Y_HTML = A11Y_CSS + A11Y_SCRIPT

MAIN = {
    HOME: lambda at: any(t.value == "Byte-pair encoding, step by step" for t in at.title),
    TRAIN: lambda at: _has(at, "train_w_btn_step"),
    TOKENIZE: lambda at: _has(at, "tokenize_w_text") and _has(at, "tokenize_w_tokenizer"),
    VOCAB: lambda at: len(at.tabs) == 3 and _has(at, "vocab_w_source"),
    ALGORITHMS: lambda at: any(t.value == "Three ways to learn a vocabulary" for t in at.title) and _has(at, "algo_w_corpus"),
    EXPLORER: lambda at: any(t.value == "Vocabulary explorer" for t in at.title) and _has(at, "explorer_w_tokenizer"),
    QUIRKS: lambda at: any(t.value == "Tokenizer quirks" for t in at.title)
    and len(at.tabs) == len(QUIRK_LIST) + 1 and sum(e.label == TRY_LABEL for e in at.expander) <= 1,
}


def _has(at: AppTest, key: str) -> bool:
    try:
        at.get_by_key(key)
    except (KeyError, ValueError):
        return False
    return True


def examine(at: AppTest, page: str, what: str) -> list[str]:
    """What is wrong with the page: an exception, a live hostile address, a missing widget."""
    problems = [f"{what}: exception {e.value}" for e in at.exception]
    problems += [f"{what}: {leak}" for leak in leaks(at)]
    if not MAIN[page](at):
        problems.append(f"{what}: {page} no longer draws its main widgets")
    return problems


def assert_clean(problems: list[str]) -> None:
    assert not problems, "the hostile value got through:\n" + "\n".join(problems)


# ---- opening pages ---------------------------------------------------------------------
def open_page(page: str, query: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(query)
    at.run()
    if page != HOME:
        at.switch_page(page).run()
    return at


def visit_all_after(at: AppTest, what: str, v) -> list[str]:
    """The session's run is named after hostile input: check this page, then Tokenize
    (your tokenizer, Decode with hostile ids), Vocabulary size and home."""
    problems = examine(at, TRAIN, f"Train with {what}")
    go(at, TOKENIZE, {"tokenizer": "yours", "view": "decode", "ids": "1 " + v("ids") + " 2"})
    problems += examine(at, TOKENIZE, f"Tokenize (yours, Decode) after {what}")
    go(at, VOCAB)
    problems += examine(at, VOCAB, f"Vocabulary size after {what}")
    go(at, HOME)
    problems += examine(at, HOME, f"Home after {what}")
    return problems


def go(at: AppTest, page: str, query: dict[str, str] | None = None) -> AppTest:
    """Switch pages in the same session; `query` replaces the URL's parameters."""
    if query is not None:
        at.query_params.clear()
        at.query_params.update(query)
    at.switch_page(page).run()
    return at


# ---- URL parameters --------------------------------------------------------------------
# Streamlit ignores a query string over 524,288 characters, so the long value goes into
# one parameter at a time (test_long_parameter); the short one into all of them at once.
def train_words_link(v) -> dict[str, str]:
    """A word list with a bad line, and every setting, step, view and mode hostile."""
    query = {k: v(k) for k in TRAIN_SETTINGS + TRAIN_OTHERS}
    query["words"] = "low 5\n" + v("words")
    return query


def marker_link(v) -> dict[str, str]:
    """A good word list whose end-of-word marker is hostile: the run's name carries it."""
    return {"words": "low 5\nlower 2\nnewest 6\n", "eow": "separate", "marker": v("marker"), "step": "2"}


def tokenize_link(v, view: str) -> dict[str, str]:
    query = {k: v(k) for k in TOKENIZE_PARAMS}
    if view != "hostile":
        query["view"] = view
    return query


def test_train_link_with_bad_words_and_settings():
    at = open_page(TRAIN, train_words_link(short))
    assert_clean(examine(at, TRAIN, "/train-bpe with every parameter hostile"))


def test_train_link_with_unknown_preset():
    at = open_page(TRAIN, {"preset": short("preset")})
    assert_clean(examine(at, TRAIN, "/train-bpe?preset=…"))


def test_train_link_with_hostile_text():
    at = open_page(TRAIN, {"text": short("text"), "pre": "none"})
    assert_clean(examine(at, TRAIN, "/train-bpe?text=…"))


def test_marker_travels_to_every_page():
    """The run's name (with the marker) is shown on every page: sidebar, Tokenize (title,
    Decode), Vocabulary size (radio, caption), home."""
    assert_clean(visit_all_after(open_page(TRAIN, marker_link(short)), "the hostile marker", short))


@pytest.mark.parametrize("view", ["decode", "replay", "compare", "hostile"])
def test_tokenize_link(view):
    at = open_page(TOKENIZE, tokenize_link(short, view))
    assert_clean(examine(at, TOKENIZE, f"/tokenize-text with every parameter hostile, view={view}"))


@pytest.mark.parametrize("page", [HOME, VOCAB, ALGORITHMS, QUIRKS])
def test_pages_that_read_no_parameters(page):
    query = {k: short(k) for k in ("preset", "words", "text", "tokenizer", "ids", "view", "x")}
    assert_clean(examine(open_page(page, query), page, f"{page} with hostile parameters"))


LONG_LINKS = {
    **{f"train {k}": (TRAIN, k) for k in ("preset", "words", "text") + TRAIN_SETTINGS + TRAIN_OTHERS},
    **{f"tokenize {k}": (TOKENIZE, k) for k in TOKENIZE_PARAMS},
    **{f"explorer {k}": (EXPLORER, k) for k in ("tokenizer", "id", "q")},
}


@pytest.mark.parametrize("name", LONG_LINKS)
def test_long_parameter(name):
    """One parameter at a time holds a 100,000-character hostile value."""
    page, param = LONG_LINKS[name]
    def v(tag):
        return long("long-" + tag) if tag == param else short(tag)
    if page == TOKENIZE:
        query = {param: v(param), "view": "decode" if param != "view" else v("view")}
    elif param == "marker":
        query = marker_link(v)
    elif param == "words":
        query = {"words": "low 5\n" + v("words")}
    else:
        query = {param: v(param), **({"eow": "separate"} if param != "eow" else {})}
    at = open_page(page, query)
    problems = examine(at, page, f"{page} with a long {param}=")
    if param == "marker":
        problems += visit_all_after(at, "the long hostile marker", v)
    assert_clean(problems)


# ---- text inputs -------------------------------------------------------------------------
LENGTHS = {"short": short, "long": long}


def choose_source(at: AppTest, source: str) -> None:
    open_settings(at).radio(key="train_w_source").set_value(source).run()


@pytest.mark.parametrize("length", LENGTHS)
def test_train_inputs(length):
    """Typed into the corpus text, the word list and the marker (the browser caps the
    marker at 12 characters; the server takes whatever the page's socket sends), then the
    run named after the marker on every page."""
    v = LENGTHS[length]
    at = open_page(TRAIN, {})
    choose_source(at, "text")
    at.text_area(key="train_w_text").set_value(v("typed-text")).run()
    problems = examine(at, TRAIN, f"Train, typed corpus text ({length})")
    choose_source(at, "words")
    at.text_area(key="train_w_words").set_value("low 5\n" + v("typed-words")).run()
    problems += examine(at, TRAIN, f"Train, typed word list ({length})")
    at.text_area(key="train_w_words").set_value("low 5\nlower 2\n").run()
    at.selectbox(key="train_w_end_of_word").set_value("separate").run()
    at.text_input(key="train_w_marker").set_value(v("typed-marker")).run()
    problems += visit_all_after(at, f"a typed marker ({length})", v)
    assert_clean(problems)


def test_upload_with_hostile_file_name():
    """The file name is the browser's to choose: it is shown in the "Using …" caption, the
    sidebar, the Tokenize title and the Vocabulary size page."""
    at = open_page(TRAIN, {})
    choose_source(at, "upload")
    name = short("filename") + ".txt"
    data = f"low lower {uuid.uuid4().hex}".encode()  # a new run, not one cached by another test
    at.file_uploader(key="train_w_upload").set_value((name, data, "text/plain")).run()
    assert_clean(visit_all_after(at, "an upload with a hostile file name", short))


@pytest.mark.parametrize("length", LENGTHS)
def test_tokenize_inputs(length):
    """Typed into the text, the Decode ids and the replayed word (capped at 1,000
    characters by the page)."""
    v = LENGTHS[length]
    at = open_page(TOKENIZE, {})
    at.text_area(key="tokenize_w_text").set_value(v("typed-text")).run()
    problems = examine(at, TOKENIZE, f"Tokenize, typed text ({length})")
    at.segmented_control(key="tokenize_w_view").set_value("decode").run()
    at.text_area(key="tokenize_w_ids").set_value("1 " + v("typed-ids")).run()
    problems += examine(at, TOKENIZE, f"Tokenize, typed Decode ids ({length})")
    at.segmented_control(key="tokenize_w_view").set_value("replay").run()
    at.segmented_control(key="tokenize_w_replay_source").set_value("typed").run()
    at.text_input(key="tokenize_w_typed").set_value(v("typed-word")[:1000]).run()
    problems += examine(at, TOKENIZE, f"Tokenize, typed replay word ({length})")
    assert_clean(problems)


def every_text_box(at: AppTest, v, what: str) -> None:
    """Put a hostile value (cut to the box's own limit, as the browser does) into every
    text box on the page, then run once."""
    for box in [*at.text_input, *at.text_area]:
        limit = box.proto.max_chars or None
        box.set_value(v(f"{what}-{box.key}")[:limit])
    at.run()


@pytest.mark.parametrize("length", LENGTHS)
def test_algorithms_inputs(length):
    """Your own corpus text and every word box of the three algorithms' tabs."""
    v = LENGTHS[length]
    at = open_page(ALGORITHMS, {})
    at.selectbox(key="algo_w_corpus").set_value("own").run()
    problems = []
    for tab in ("BPE", "WordPiece", "Unigram"):  # only the open tab is drawn
        at.session_state["algo.tab"] = tab
        at.run()
        if tab == "WordPiece":
            at.radio(key="algo_w_trace_pick").set_value("another word").run()
        every_text_box(at, v, "algorithms")
        problems += examine(at, ALGORITHMS, f"Algorithms, {tab} tab, hostile text in every box ({length})")
    assert_clean(problems)


def test_explorer_link():
    query = {k: short(k) for k in ("tokenizer", "id", "q")}
    assert_clean(examine(open_page(EXPLORER, query), EXPLORER, "/vocabulary-explorer with every parameter hostile"))


@pytest.mark.parametrize("length", LENGTHS)
def test_explorer_inputs(length):
    """The search box, as text and as a pattern (the engine's error quotes it)."""
    v = LENGTHS[length]
    at = open_page(EXPLORER, {"tokenizer": "gpt2"})
    problems = []
    for mode in ("substring", "pattern"):
        at.selectbox(key="explorer_w_mode").set_value(mode).run()
        every_text_box(at, v, "explorer")
        problems += examine(at, EXPLORER, f"Explorer, hostile search as {mode} ({length})")
    assert_clean(problems)


@pytest.mark.parametrize("length", LENGTHS)
def test_quirks_inputs(length):
    v = LENGTHS[length]
    problems = []
    for quirk in QUIRK_LIST:  # one tab per section, drawn when open; its try box is folded
        at = open_page(QUIRKS, {TAB_KEY: quirk.tab})
        at.session_state[open_key(quirk.id)] = True
        at.run()
        assert len(at.text_input) + len(at.text_area) >= 1, quirk.tab
        every_text_box(at, v, "quirks")
        problems += examine(at, QUIRKS, f"Quirks, {quirk.tab} tab, hostile text in every box ({length})")
    assert_clean(problems)
