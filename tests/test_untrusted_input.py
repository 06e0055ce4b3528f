"""Untrusted input and shared caches (issue 15): each test here failed on the code before
the fix. The full walk of every page and parameter with hostile values is in
tests/test_security_pages.py and tests/browser/test_security_browser.py."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from bpe_core import MergeEvent, TrainerSettings, WordTable, train
from bpe_core.corpus import MAX_COUNT
from ui.shared.markdown import md_escape
from ui.train.config import LINK_TEXT_LIMIT, from_params
from ui.tokenize.logic import analyse

APP = "../app.py"
ROOT = Path(__file__).resolve().parent.parent
IMAGE = "![p](http://127.0.0.1:9/x.png)"
LINK = "[Log in](http://127.0.0.1:9/login)"


def _open(page: str, params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def _markdown_bodies(at: AppTest) -> list[str]:
    """Every element body Streamlit renders as markdown, sidebar included."""
    kinds = ("markdown", "caption", "error", "warning", "info", "success", "title", "header", "subheader")
    out: list[str] = []
    for kind in kinds:
        out += [e.value for e in at.get(kind)]
    out += [e.value for e in at.sidebar.get("caption")]
    for radio in at.radio:
        out += [str(o) for o in radio.options]
    return out


# ---- 1. markdown injection ----------------------------------------------------------------
@pytest.mark.parametrize("payload", [IMAGE, LINK])
def test_md_escape_leaves_no_link_or_image(payload):
    escaped = md_escape(payload)
    assert "](" not in escaped.replace("\\]", "") and "\\[" in escaped


SHOWN_AS_TYPED = [
    "1. first", "2) second", "10. ten", "- dash", "+ plus", "= equals", "# heading", "> quote",
    "a *b* _c_ ~d~ `e` $f$ <b>g</b> &amp; h|i", "back\\slash \\[x]", "[x](http://h/y) ![p](http://h/p.png)",
    ":red[x] :smile: www.evil.com a@b.c", "Line 1: 'low' (e.g. low 5) - fine in bpe_core",
    "1986. A great year", "***", "___", "x\n===", "y\n---",
]


@pytest.mark.parametrize("text", SHOWN_AS_TYPED)
def test_md_escape_renders_as_the_characters_typed(text):
    """A CommonMark renderer (markdown-it, with GFM's tables and strikethrough, as Streamlit's
    markdown has) shows the escaped text as exactly the characters typed: no element, no
    stray backslash (a backslash before a digit, say, is shown, not an escape)."""
    import html
    import re

    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(md_escape(text))
    inner = re.sub(r"^<p>|</p>\n$", "", rendered)
    assert "<" not in inner.replace("&lt;", ""), rendered  # one paragraph of text, no element in it
    assert html.unescape(inner).replace("\u2060", "") == text


@pytest.mark.parametrize("page, params", [
    ("views/train.py", {"eow": "separate", "marker": IMAGE[:12]}),
    ("views/train.py", {"words": f"low 5\n{IMAGE} x"}),
    ("views/tokenize.py", {"tokenizer": LINK}),
    ("views/tokenize.py", {"view": "decode", "ids": f"1 {IMAGE} 2"}),
    ("views/vocab_size.py", {}),
])
def test_link_parameters_reach_no_markdown_unescaped(page, params):
    at = _open(page, params)
    for body in _markdown_bodies(at):
        assert not re.search(r"(?<!\\)\]\(http", body) and "![" not in body, body


def test_the_decode_error_names_the_bad_id_instead_of_drawing_it():
    at = _open("views/tokenize.py", {"view": "decode", "ids": f"1 {IMAGE} 2"})
    shown = " ".join(e.value for e in at.error)
    assert "is not a token id" in shown and "127.0.0.1" in shown  # the value is named, as text


# ---- 2. nothing of one session reaches another ----------------------------------------------
def test_an_upload_name_stays_in_its_session():
    text = "alpha beta gamma alpha beta alpha " * 20
    sessions = []
    for name in ("alice_private_notes.txt", "bob.txt"):
        at = AppTest.from_file(APP, default_timeout=60)
        at.run()
        at.switch_page("views/train.py").run()
        at.session_state["train.source"] = "upload"
        at.session_state["train.upload_text"] = text
        at.session_state["train.upload_name"] = name
        at.session_state["train.reset_step"] = True
        at.run()
        assert not at.exception
        sessions.append(at)
    alice, bob = sessions
    assert "alice_private_notes" in " ".join(c.value for c in alice.sidebar.get("caption"))
    bob_text = " ".join(_markdown_bodies(bob))
    assert "alice" not in bob_text and "bob.txt" in bob_text


# ---- 5. counts too large -------------------------------------------------------------------
def test_a_huge_count_is_a_clear_message_and_the_page_keeps_working():
    at = _open("views/train.py", {"words": "abcdefghijklmnopqrstuvwxyz 1" + "0" * 30, "merges": "30", "step": "20"})
    shown = " ".join(e.value for e in at.error)
    assert f"{MAX_COUNT:,}" in shown and "Line 1" in shown
    at.button(key="train_w_btn_back").click().run()
    assert not at.exception and f"{MAX_COUNT:,}" in " ".join(e.value for e in at.error)


def test_the_largest_count_trains_and_draws_every_table():
    at = _open("views/train.py", {"words": f"abcdefghijklmnopqrstuvwxyz {MAX_COUNT}", "merges": "30", "step": "20"})
    assert not at.error
    at.toggle(key="train_w_all_merges").set_value(True).run()
    assert not at.exception
    at.switch_page("views/vocab_size.py").run()
    assert not at.exception


def test_a_4301_digit_count_names_its_line():
    with pytest.raises(ValueError, match="Line 2: the count .*4,301 digits"):
        WordTable.from_word_counts("low 5\nlower " + "9" * 4301)


# ---- 3 and 4. memory -----------------------------------------------------------------------
def test_events_hold_word_indices_not_token_tuples():
    assert "changed_tokens" not in MergeEvent.__dataclass_fields__
    text = (ROOT / "corpora" / "english_sample.txt").read_text(encoding="utf-8")[:2000]
    run = train(WordTable.from_text(text, "none"), TrainerSettings(merges=50))
    assert all(ev.changed_words == (0,) for ev in run.events)
    assert run.words_changed(50) == ((0, run.segmentations(50)[0]),)


def test_the_command_line_bounds_token_text(tmp_path, capsys):
    from bpe_core.__main__ import main

    f = tmp_path / "t.txt"
    rng = random.Random(0)
    f.write_text("".join(rng.choice("abcdefghij ") for _ in range(3000)))
    assert main(["train", "--text", str(f), "--pretokenizer", "none", "--merges", "3000",
                 "--max-token-text", "20000"]) == 0
    assert "limit of 20,000" in capsys.readouterr().out


# ---- 8. smaller ----------------------------------------------------------------------------
def test_a_long_word_list_in_a_link_is_cut_at_a_line_and_said():
    lines = "".join(f"w{i} 12\n" for i in range(400))
    r = from_params({"words": lines})
    assert len(r.corpus.text) <= LINK_TEXT_LIMIT and r.corpus.text.endswith(" 12\n")
    assert any("whole lines are used" in p for p in r.problems)


def test_a_link_marker_longer_than_the_box_allows_is_refused():
    r = from_params({"eow": "separate", "marker": "x" * 30_000})
    assert r.settings.marker == "</w>" and any("1 to 12 characters" in p for p in r.problems)
    assert all(len(p) < 300 for p in r.problems)


def test_a_marker_that_is_also_a_character_is_warned_about():
    at = _open("views/train.py", {"words": "low 5\nnewest 6", "eow": "separate", "marker": "e"})
    assert any("also occurs in the corpus" in w.value for w in at.warning)


def test_a_negative_step_in_a_link_is_not_called_a_fraction():
    r = from_params({"preset": "sennrich", "step": "-1"})
    assert r.step is None and "is not a step number" in r.problems[0]


def test_one_piece_longer_than_the_preview_still_shows_its_first_tokens():
    from bpe_core.pretrained import openai_tokenizer

    a = analyse(openai_tokenizer("cl100k_base"), "x" * 200_000)
    assert not a.complete and len(a.spans) > 100
    assert [s.id for s in a.spans] == list(a.ids[: len(a.spans)])
