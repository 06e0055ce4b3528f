"""What one visitor can cost the server: hostile tokenizer files and patterns (issue 26, items
1-3 and 10's engine side). Every hostile file is built here, at a size that proves the bound
quickly; bench/bench_hostile.py measures the full-size ones.

- A zip that unpacks beyond the page's own limit is refused while unpacking (it was read up
  to 128 MB, then decoded: 3.3 GB for a 122 kB zip of `{},{},...`).
- A JSON file with far more lists and objects than a tokenizer file of its size is refused
  before `json.loads` builds them (`[],[],...` costs about 25 bytes of memory per byte).
- A pattern from a user or a file runs with a time limit (`(?:a|a)+b` on 40 `a`s ran until
  the server was killed) and compiles only within bounds; the limit is one budget for the
  whole text, however many pieces an earlier pre-tokenizer cut it into.
- A typed pattern's pieces tile the text: capture groups (`(a)(b)|\\S` raised a
  traceback, `(\\w+)|\\s+` dropped the spaces) do not change the pieces, and `x*` (which
  gave no tokens at all) is refused with the reason.
"""
from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
import time
import tracemalloc
import zipfile
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from bpe_core.formats import load_tokenizer_bytes, token_strings
from bpe_core.formats.checks import BYTES_PER_CONTAINER
from bpe_core.pretokenize import PATTERN_TIMEOUT, PatternTimeout
from ui.tokenize import upload as up

REPO = Path(__file__).resolve().parent.parent
EVIL = r"(?:a|a)+b|\S"          # exponential backtracking on a run of a's with no b
RANKS = b"\n".join(base64.b64encode(bytes([i])) + b" " + str(i).encode() for i in range(256))


def _zip(name: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, data)
    return buffer.getvalue()


def _hf_json(pre_tokenizer: dict | None = None, normalizer: dict | None = None) -> bytes:
    """A tiny byte-level-free BPE tokenizer.json (characters a, b and space)."""
    return json.dumps({
        "version": "1.0", "added_tokens": [], "normalizer": normalizer, "pre_tokenizer": pre_tokenizer,
        "post_processor": None, "decoder": None,
        "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, " ": 2, "aa": 3}, "merges": [["a", "a"]],
                  "unk_token": None},
    }).encode()


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bpe_core", *args], capture_output=True, text=True, cwd=REPO,
                          timeout=timeout)


# ---- item 1: memory bomb through JSON ----------------------------------------------------------

def test_a_zip_that_unpacks_beyond_the_pages_limit_is_refused():
    """The page's limit holds for what a zip unpacks to (it was the engine's 128 MB)."""
    bomb = _zip("tokenizer.json", b" " * (up.LIMIT_BYTES + 1) + b"{}")
    assert len(bomb) < 200_000
    with pytest.raises(ValueError, match=r"unpacks to more than 40\.0 MB"):
        up.read_upload([("tok.zip", bomb)], None)


def test_the_engine_takes_the_callers_limit_for_a_zip_and_for_plain_files():
    with pytest.raises(ValueError, match=r"unpacks to more than 0\.1 MB"):
        load_tokenizer_bytes("tok.zip", _zip("tokenizer.json", b"[" + b"0," * 60_000 + b"0]"), limit=100_000)
    with pytest.raises(ValueError, match=r"'tokenizer.json' is 0\.1 MB, more than the 0\.1 MB"):
        load_tokenizer_bytes("tokenizer.json", b" " * 100_001, limit=100_000)


@pytest.mark.parametrize("unit", [b"{},", b"[],", b"[[]],", b'{"a":0},'], ids=["objects", "lists", "nested", "members"])
def test_dense_json_is_refused_before_it_is_decoded(unit):
    """2 MB of `[],` decoded to ~50 MB of Python objects before any check; now the raw bytes
    are counted first, and nothing near the file's size is allocated."""
    data = b'{"model": {"type": "BPE", "vocab": {}, "merges": [' + unit * (2_000_000 // len(unit)) + b"0]}}"
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"lists and objects in 2\.0 MB .*a tokenizer file has at most one"):
            load_tokenizer_bytes("tokenizer.json", data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < len(data) // 2, f"{peak / 1e6:.1f} MB allocated for a {len(data) / 1e6:.1f} MB file"


def test_the_densest_real_layout_passes():
    """Merges written as pairs without spaces, `["ab","c"],`, beside their vocabulary are
    the densest real files get (about one list per 20 bytes here, 30 in real ones): such a
    file, with many more lists than the check lets any file have for free, loads."""
    letters = [chr(c) for c in range(0x61, 0x7B)]
    vocab = {ch: i for i, ch in enumerate(letters)}
    merges = []
    for left in [a + b for a in letters for b in letters] + [a + b + c for a in "abc" for b in letters for c in letters]:
        for right, token in ((left[:-1], left[-1]),):
            if right not in vocab:
                continue
            vocab[left] = len(vocab)
            merges.append([right, token])
    data = json.dumps({"model": {"type": "BPE", "vocab": vocab, "merges": merges}}, separators=(",", ":")).encode()
    lists = data.count(b"[")
    assert lists > 2_000 and lists * BYTES_PER_CONTAINER < len(data) < lists * 25
    tok = load_tokenizer_bytes("tokenizer.json", data)
    assert token_strings(tok, "abc") == ["abc"]


def test_dense_json_on_the_command_line_is_one_line(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_bytes(b"[" + b"{}," * 400_000 + b"{}]")
    proc = _cli("encode", "--tokenizer", str(path), "--text", "hi")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error: ") and "lists and objects" in proc.stderr
    assert "Traceback" not in proc.stderr


# ---- item 2: ReDoS ----------------------------------------------------------------------------

@pytest.mark.timeout(60)
def test_a_typed_tiktoken_pattern_runs_with_a_time_limit():
    tok = load_tokenizer_bytes("r.tiktoken", RANKS, pattern=EVIL)
    start = time.process_time()
    with pytest.raises(PatternTimeout, match=r"took more than 2 s on this text and was stopped.*backtracks"):
        tok.encode("a" * 40)
    with pytest.raises(ValueError, match="took more than"):
        tok.token_spans("a" * 40)
    assert time.process_time() - start < 4 * PATTERN_TIMEOUT + 2


@pytest.mark.timeout(60)
def test_the_limit_is_one_budget_for_all_the_pieces_of_a_text():
    """A Split regex after WhitespaceSplit runs once per word: 40 words each well under the
    limit add up to far more than it, and the text stops at the limit, not 40 times it."""
    data = _hf_json({"type": "Sequence", "pretokenizers": [
        {"type": "WhitespaceSplit"},
        {"type": "Split", "pattern": {"Regex": EVIL}, "behavior": "Isolated", "invert": False}]})
    tok = load_tokenizer_bytes("tokenizer.json", data)
    assert tok.encode("ab a") == [0, 1, 0]
    start = time.process_time()
    with pytest.raises(PatternTimeout):
        tok.encode(" ".join(["a" * 22] * 40))
    assert time.process_time() - start < 3 * PATTERN_TIMEOUT + 2


@pytest.mark.timeout(60)
def test_a_replace_normalizer_regex_runs_with_a_time_limit():
    data = _hf_json(None, {"type": "Replace", "pattern": {"Regex": "(?:a|a)+b"}, "content": "b"})
    tok = load_tokenizer_bytes("tokenizer.json", data)
    with pytest.raises(PatternTimeout):
        tok.encode("a" * 40)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("pattern", [r"((a{1000}){1000}){10}", "a" * 20_000])
def test_a_pattern_that_would_take_long_to_compile_is_refused(pattern):
    """((a{1000}){1000}){10} took 22 s and 3 GB to compile."""
    with pytest.raises(ValueError, match=r"nested counted repeats|characters long"):
        load_tokenizer_bytes("r.tiktoken", RANKS, pattern=pattern)
    data = _hf_json({"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False})
    with pytest.raises(ValueError, match=r"nested counted repeats|characters long"):
        load_tokenizer_bytes("tokenizer.json", data)


@pytest.mark.timeout(90)
def test_a_pattern_on_the_command_line_stops_with_exit_2(tmp_path):
    ranks = tmp_path / "r.tiktoken"
    ranks.write_bytes(RANKS)
    proc = _cli("encode", "--tokenizer", str(ranks), "--pattern", EVIL, "--text", "a" * 40, timeout=80)
    assert proc.returncode == 2 and not proc.stdout
    assert proc.stderr.startswith("error: The pattern") and "took more than" in proc.stderr
    assert "Traceback" not in proc.stderr


# ---- item 3: capture groups and empty matches ------------------------------------------------

@pytest.mark.parametrize("pattern, text, pieces", [
    (r"(a)(b)|\S", "abc ab", ["ab", "c", " ", "ab"]),
    (r"(\w+)|\s+", "hi there  you", ["hi", " ", "there", "  ", "you"]),
    (r"\w+", "hi, you!", ["hi", ", ", "you", "!"]),          # text between matches is a piece
    (r"a|(?=b)", "abab", ["a", "b", "a", "b"]),            # empty matches cut nothing
])
def test_a_typed_patterns_pieces_tile_the_text(pattern, text, pieces):
    tok = load_tokenizer_bytes("r.tiktoken", RANKS, pattern=pattern)
    assert [p for p, _ in tok.pieces(text)] == pieces
    assert tok.decode(tok.encode(text)) == text
    spans = tok.token_spans(text)
    assert [(s.start, s.end) for s in spans] == [(i, i + 1) for i in range(len(text))]  # one byte each


@pytest.mark.parametrize("pattern", ["x*", r"\s*|a", "(a)?"])
def test_a_pattern_that_matches_the_empty_string_is_refused(pattern):
    with pytest.raises(ValueError, match="matches the empty string"):
        load_tokenizer_bytes("r.tiktoken", RANKS, pattern=pattern)


def test_capture_groups_and_empty_patterns_on_the_command_line(tmp_path):
    ranks = tmp_path / "r.tiktoken"
    ranks.write_bytes(RANKS)
    proc = _cli("encode", "--tokenizer", str(ranks), "--pattern", r"(a)(b)|\S", "--text", "abc ab")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [str(b) for b in b"abc ab"]
    proc = _cli("encode", "--tokenizer", str(ranks), "--pattern", "x*", "--text", "xx")
    assert proc.returncode == 2 and "matches the empty string" in proc.stderr and "Traceback" not in proc.stderr


# ---- the page ---------------------------------------------------------------------------------

def _page_with_typed_pattern(pattern: str, text: str) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=120)
    at.run()
    at.switch_page("views/tokenize.py").run()
    at.session_state[up.OPEN] = True
    at.run()
    at.selectbox(key="tokenize_w_upload_pattern").set_value(up.TYPED_PATTERN).run()
    at.text_input(key="tokenize_w_upload_typed").set_value(pattern).run()
    at.get("file_uploader")[0].upload("r.tiktoken", RANKS, "application/octet-stream")
    at.run()
    at.text_area(key=[t.key for t in at.text_area if "text" in t.key][0]).set_value(text).run()
    assert not at.exception, at.exception
    return at


@pytest.mark.timeout(200)
def test_the_page_stops_a_backtracking_pattern_with_a_message():
    at = _page_with_typed_pattern(EVIL, "a" * 40)
    messages = " ".join(e.value for e in at.error)
    assert "took more than 2 s on this text and was stopped" in messages
    assert "a\\|a" in messages  # the pattern is shown, its markdown escaped


@pytest.mark.timeout(200)
def test_the_page_keeps_every_character_of_a_pattern_with_groups():
    at = _page_with_typed_pattern(r"(\w+)|\s+", "hi there  you")
    assert not at.error, [e.value for e in at.error]
    assert at.session_state["tokenize.tokenizer"] == up.UPLOADED
    tok = at.session_state["tokenize.upload"]["tok"]
    assert tok.decode(tok.encode("hi there  you")) == "hi there  you"


# ---- item 8: a corpus's control characters on the terminal ------------------------------------

@pytest.mark.parametrize("algorithm", ["bpe", "wordpiece", "unigram"])
def test_train_shows_a_corpus_s_control_characters_visibly(tmp_path, algorithm):
    """ESC and BEL from a shared corpus reached the terminal raw in the merge trace (an
    OSC sequence retitles it, a CSI one recolours it)."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\x1b]0;pwned\x07 \x1b[31mred\x9b1m " * 30 + "plain words here " * 30, encoding="utf-8")
    extra = ["--vocab-size", "40"] if algorithm == "unigram" else ["--merges", "30"]
    proc = _cli("train", "--algorithm", algorithm, "--text", str(corpus), *extra)
    assert proc.returncode == 0, proc.stderr
    for raw in ("\x1b", "\x07", "\x9b"):
        assert raw not in proc.stdout and raw not in proc.stderr
    assert algorithm == "unigram" or "⟨ESC⟩" in proc.stdout  # unigram names only a few pieces
    as_json = _cli("train", "--algorithm", algorithm, "--text", str(corpus), "--json", *extra)
    assert "\x1b" not in as_json.stdout and "\x9b" not in as_json.stdout
    json.loads(as_json.stdout)


def test_encode_tokens_escape_c1_controls(tmp_path):
    """JSON escapes ESC itself; U+009B (CSI to some terminals) was printed raw."""
    corpus, saved = tmp_path / "corpus.txt", tmp_path / "tok.json"
    corpus.write_text("a\x9b31mb\x1b " * 20, encoding="utf-8")
    assert _cli("train", "--text", str(corpus), "--merges", "3", "--save", str(saved)).returncode == 0
    proc = _cli("encode", "--tokenizer", str(saved), "--tokens", "--text", "a\x9b31mb\x1b")
    assert proc.returncode == 0, proc.stderr
    assert "\x9b" not in proc.stdout and "\x1b" not in proc.stdout and "\\u009b" in proc.stdout
    assert "".join(json.loads(proc.stdout)) == "a\x9b31mb\x1b"


# ---- item 9: tracebacks on the page -----------------------------------------------------------

@pytest.mark.app_exception_expected
def test_an_uncaught_error_shows_no_server_paths_and_tests_still_see_it():
    """With Streamlit's default ("full") a visitor saw the message and the traceback with
    the server's file paths; the app's config shows the type only (the log has the rest)."""
    at = AppTest.from_string("import streamlit as st\nst.write('x')\nraise ValueError('/srv/app/secret.py failed')\n")
    at.run()
    assert len(at.exception) == 1  # tests still detect it
    shown = str(at.exception[0].proto)
    assert "/srv/app" not in shown and not at.exception[0].stack_trace
    assert "ValueError" in shown and "recorded in the logs" in shown


# ---- item 10: shared ids, sparse ids, repeated merges -----------------------------------------
# Hugging Face tokenizers 0.23 loads all three without a word (an id shared by two tokens
# decodes to either of them, varying from run to run), so they load here too, with a warning
# on the page and on the command line. (GPT-2's vocab.json + merges.txt and tiktoken rank
# files refuse shared ids, as tiktoken itself does.)

def _model_json(vocab: dict, merges: list) -> bytes:
    return json.dumps({"model": {"type": "BPE", "vocab": vocab, "merges": merges}}).encode()


SHARED = _model_json({"a": 0, "b": 0, "ab": 1}, [["a", "b"]])
SPARSE = _model_json({"a": 0, "b": 5, "ab": 9}, [["a", "b"]])
REPEATED = _model_json({"a": 0, "b": 1, "ab": 2}, [["a", "b"], ["a", "b"]])


@pytest.mark.parametrize("data, words", [
    (SHARED, "reuses the id of an earlier token (first: 'b' has id 0, as 'a' does)"),
    (SPARSE, "7 ids below the largest (9) belong to no token (first: 1)"),
    (REPEATED, "1 merge is listed twice (first: 'a' + 'b', ranks 0 and 1); the later rank counts"),
])
def test_what_the_library_accepts_loads_with_a_warning(data, words):
    from tokenizers import Tokenizer as HFTokenizer

    full = json.loads(data)
    full.update({"version": "1.0", "added_tokens": [], "normalizer": None, "pre_tokenizer": None,
                 "post_processor": None, "decoder": None})
    theirs = HFTokenizer.from_str(json.dumps(full))  # the library accepts it
    tok = load_tokenizer_bytes("tokenizer.json", data)
    assert tok.encode("ab") == theirs.encode("ab").ids
    assert len(tok.warnings) == 1 and words in tok.warnings[0]
    assert not load_tokenizer_bytes("tokenizer.json", _model_json({"a": 0, "b": 1, "ab": 2}, [["a", "b"]])).warnings


def test_the_command_line_prints_the_warnings(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_bytes(SPARSE)
    proc = _cli("encode", "--tokenizer", str(path), "--text", "ab")
    assert proc.returncode == 0 and proc.stdout.split() == ["9"]
    assert proc.stderr.startswith("warning: 7 ids below the largest")


@pytest.mark.timeout(200)
def test_the_page_shows_the_warnings():
    at = AppTest.from_file("../app.py", default_timeout=120)
    at.run()
    at.switch_page("views/tokenize.py").run()
    at.session_state[up.OPEN] = True
    at.run()
    at.get("file_uploader")[0].upload("tokenizer.json", SHARED, "application/octet-stream")
    at.run()
    assert not at.exception and not at.error
    assert any("reuses the id of an earlier token" in w.value for w in at.warning)


# ---- memory after a session closes ------------------------------------------------------------
# A session's uploaded tokenizer lived in its session state, so a closed session held it
# until Streamlit dropped the session (2 minutes, and only once another session
# connected), and 20 closed uploaders held 20 tokenizers. Now the tokenizers of every
# session live in one byte-bounded registry, and an entry Streamlit frees drops its
# tokenizer at once.

def _uploaded(files: list[tuple[str, bytes]]) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=120)
    at.run()
    at.switch_page("views/tokenize.py").run()
    at.session_state[up.OPEN] = True
    at.run()
    uploader = at.get("file_uploader")[0]
    for name, data in files:
        uploader.upload(name, data, "application/octet-stream")
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def _saved_json(size: int) -> bytes:
    """A small tokenizer.json padded to about `size` bytes (an unknown field the reader skips)."""
    return json.dumps({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]},
                       "pad": "x" * size}).encode()


@pytest.mark.timeout(300)
def test_uploads_of_all_sessions_share_one_byte_budget(monkeypatch):
    import gc

    from ui.shared.cache import cache_named

    held = cache_named("tokenize.uploads")
    held.clear()  # earlier tests' uploads (their sessions are done) would be dropped first
    monkeypatch.setattr(held, "budget", 3 * (up.HELD_FIXED + up.HELD_PER_BYTE * 20_100))  # room for three
    first = _uploaded([("first.json", _saved_json(20_000))])
    assert first.session_state["tokenize.upload"]["tok"] is not None
    others = [_uploaded([(f"other{i}.json", _saved_json(20_000))]) for i in range(3)]
    assert held.nbytes <= held.budget
    # the first session's file was the least recently used: dropped, and the page says so
    first.run()
    assert not first.exception
    assert any("first.json" in i.value and "dropped from the server's memory" in i.value for i in first.info)
    assert first.session_state.get("tokenize.upload") is None
    # a session that is freed drops its tokenizer from the registry at once
    before = len(held)
    del others[-1]
    gc.collect()
    assert len(held) == before - 1


@pytest.mark.timeout(60)
def test_large_files_are_read_one_at_a_time_in_the_server():
    """Reading costs up to 22 times a file's size while it lasts: three tabs reading 40 MB
    files at once took 3.6 GB. A second large read waits (its status box says so) until the
    first is done; small files go at once."""
    import threading

    waits, entered = [], threading.Event()

    def second_reader():
        with up.one_large_read(up.LARGE_READ_BYTES, lambda: waits.append(1)):
            entered.set()

    with up.one_large_read(40_000_000, lambda: None):
        with up.one_large_read(up.LARGE_READ_BYTES - 1, lambda: None):
            pass  # a small file is not held up
        thread = threading.Thread(target=second_reader)
        thread.start()
        time.sleep(2.5)
        assert not entered.is_set() and len(waits) >= 2
    thread.join(10)
    assert entered.is_set()
