"""The command line, run as users run it: `python -m bpe_core ...` in a subprocess from
the repository root.

train prints a readable trace or a JSON list of merges and can save the tokenizer;
encode prints ids for a saved tokenizer or an OpenAI one. Errors are one line on stderr
starting with 'error:', a non-zero exit code and no traceback.
"""
from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_core import TrainerSettings, WordTable, train

REPO = Path(__file__).resolve().parent.parent
SENNRICH = "corpora/sennrich_algorithm1.txt"


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "TOKENIZERS_PARALLELISM": "false"}
    return subprocess.run([sys.executable, "-m", "bpe_core", *args], cwd=REPO, capture_output=True,
                          text=True, encoding="utf-8", env=env, timeout=120)


def ok(*args: str) -> str:
    proc = run_cli(*args)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return proc.stdout


def fails(*args: str) -> str:
    """Run a command that must fail cleanly; return its one error line."""
    proc = run_cli(*args)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ")
    assert proc.stdout == ""
    return lines[0]


@functools.lru_cache(maxsize=None)
def sennrich_json() -> list:
    return json.loads(ok("train", "--words", SENNRICH, "--end-of-word", "separate", "--json"))


def test_train_json_is_a_list_of_merges():
    """One object per merge with step, pair, token, count and ties (as text): the
    paper's ten merges (see test_engine_toy.py for the derivation)."""
    out = sennrich_json()
    assert isinstance(out, list) and len(out) == 10
    assert [m["step"] for m in out] == list(range(1, 11))
    assert [tuple(m["pair"]) for m in out] == [
        ("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w"),
        ("n", "e"), ("ne", "w"), ("new", "est</w>"), ("low", "</w>"), ("w", "i"),
    ]
    assert [m["token"] for m in out][:3] == ["es", "est", "est</w>"]
    assert [m["count"] for m in out] == [9, 9, 9, 7, 7, 6, 6, 6, 5, 3]


def test_train_json_ties():
    """Step 1: e s, s t, t </w> all occur 9 times; the winner is listed first."""
    first, second, third = sennrich_json()[:3]
    assert first["ties"] == [["e", "s"], ["s", "t"], ["t", "</w>"]] and first["tie_count"] == 3
    assert second["ties"] == [["es", "t"], ["t", "</w>"]] and second["tie_count"] == 2
    assert third["ties"] == [["est", "</w>"]] and third["tie_count"] == 1
    assert (first["vocab_size"], first["corpus_length"]) == (12, 86)  # 95 tokens, 9 merged


def test_train_readable_trace():
    """One line per merge naming the pair, the new token, the count and any ties with
    the rule that chose; then why training stopped."""
    lines = ok("train", "--words", SENNRICH, "--end-of-word", "separate").splitlines()
    assert len(lines) == 11
    assert lines[0] == "step    1: e + s -> es  (count 9; tied with s + t, t + </w>; first-seen rule)"
    assert lines[2] == "step    3: est + </w> -> est</w>  (count 9)"
    assert lines[9] == "step   10: w + i -> wi  (count 3; tied with i + d, d + est</w>; first-seen rule)"
    # nobody asked for 10 merges: the default, and how to get more
    assert lines[-1] == "Training stopped after 10 merges, the default number. --merges N trains more."
    asked = ok("train", "--words", SENNRICH, "--end-of-word", "separate", "--merges", "10").splitlines()
    assert asked[:-1] == lines[:-1] and asked[-1] == "Training stopped after 10 merges, the number asked for."


def test_train_options_reach_the_trainer():
    """--tie-break lexicographic and --merges 2: subword-nmt's first two merges."""
    out = json.loads(ok("train", "--words", SENNRICH, "--end-of-word", "separate", "--tie-break",
                        "lexicographic", "--merges", "2", "--json"))
    assert [m["pair"] for m in out] == [["t", "</w>"], ["s", "t</w>"]]


def test_byte_tokens_are_in_gpt2_form():
    """Byte-level tokens are printed as GPT-2's byte-to-unicode text (Ġ for a space),
    never raw bytes or spaces; the English sample's most frequent pair is ' t'."""
    out = json.loads(ok("train", "--text", "corpora/english_sample.txt", "--units", "byte",
                        "--pretokenizer", "gpt2", "--merges", "20", "--json"))
    assert out[0]["pair"] == ["Ġ", "t"] and out[0]["token"] == "Ġt"
    assert any(m["token"].startswith("Ġ") for m in out)
    assert not any(" " in m["token"] or " " in "".join(m["pair"]) for m in out)


@pytest.mark.parametrize(
    "train_args, text",
    [
        (["--words", SENNRICH, "--end-of-word", "separate"], "lowest newer widest low"),
        (["--text", "corpora/english_sample.txt", "--units", "byte", "--pretokenizer", "gpt2", "--merges", "50"],
         "The tokenizer reads: héllo 👋 world!\n"),
    ],
)
def test_save_then_encode(tmp_path, train_args, text):
    """A saved tokenizer encodes like the same training run done in process."""
    path = tmp_path / "tok.json"
    ok("train", *train_args, "--save", str(path))
    ids = json.loads(ok("encode", "--tokenizer", str(path), "--text", text, "--json"))
    args = dict(zip(train_args[::2], train_args[1::2]))
    if "--words" in args:
        table = WordTable.from_word_counts((REPO / args["--words"]).read_text(encoding="utf-8"))
    else:
        table = WordTable.from_text((REPO / args["--text"]).read_text(encoding="utf-8"), args["--pretokenizer"])
    run = train(table, TrainerSettings(units=args.get("--units", "char"), end_of_word=args.get("--end-of-word", "none"),
                                       merges=int(args.get("--merges", 10))))
    assert ids == run.tokenizer().encode(text)
    assert run.tokenizer().decode(ids).split() == text.split()
    plain = ok("encode", "--tokenizer", str(path), "--text", text)
    assert plain.split() == [str(i) for i in ids]


@pytest.mark.parametrize(
    "name, ids",
    [("gpt2", [15496, 995]), ("cl100k_base", [9906, 1917]), ("o200k_base", [13225, 2375])],
)
def test_encode_with_openai_tokenizers(name, ids):
    """"Hello world" is two tokens in each: 'Hello' and ' world'."""
    assert json.loads(ok("encode", "--tokenizer", name, "--text", "Hello world", "--json")) == ids


def test_encode_special_tokens_only_when_allowed(tmp_path):
    """<|endoftext|> is text unless --allow-special; GPT-2's id for it is 50256. --file
    reads the text from a file."""
    path = tmp_path / "in.txt"
    path.write_text("<|endoftext|>", encoding="utf-8")
    plain = json.loads(ok("encode", "--tokenizer", "gpt2", "--file", str(path), "--json"))
    assert len(plain) > 1 and 50256 not in plain
    assert json.loads(ok("encode", "--tokenizer", "gpt2", "--file", str(path), "--allow-special", "--json")) == [50256]


# ---- errors ------------------------------------------------------------------------

def test_error_bad_word_list_line(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("low 5\nlower x\n", encoding="utf-8")
    line = fails("train", "--words", str(path))
    assert line.startswith("error: Line 2: 'lower x' is not a 'word count' line")


def test_error_missing_file(tmp_path):
    missing = tmp_path / "nope.txt"
    line = fails("train", "--text", str(missing))
    assert line.startswith(f"error: Cannot read {str(missing)!r}: No such file or directory")


@pytest.mark.parametrize("name", ["gpt5", "no/such/tokenizer.json"])
def test_error_unknown_tokenizer(name):
    """A name that is neither an OpenAI tokenizer nor a file."""
    assert fails("encode", "--tokenizer", name, "--text", "hi").startswith(f"error: Cannot read {name!r}")


@pytest.mark.parametrize("content, words", [('{"format": "x"}', "This is not a bpe-teaching-tokenizer file"),
                                            ("not json", "not valid JSON")])
def test_error_file_that_is_not_a_tokenizer(tmp_path, content, words):
    path = tmp_path / "tok.json"
    path.write_text(content, encoding="utf-8")
    assert words in fails("encode", "--tokenizer", str(path), "--text", "hi")


@pytest.mark.parametrize("option", ["--text", "--words"])
def test_error_file_not_utf8(tmp_path, option):
    path = tmp_path / "latin1.txt"
    path.write_bytes("café 3\n".encode("latin-1"))
    line = fails("train", option, str(path))
    assert "is not valid UTF-8 text (byte 0xe9 at position 3)" in line
    assert "latin1.txt" in line


def test_error_nothing_to_merge(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("a 1\nb 2\n", encoding="utf-8")
    assert "Nothing to merge" in fails("train", "--words", str(path))


def test_error_character_unknown_to_a_character_tokenizer(tmp_path):
    """A character-level tokenizer cannot encode a character it never saw."""
    path = tmp_path / "tok.json"
    ok("train", "--words", SENNRICH, "--save", str(path))
    assert "is not in this character-level vocabulary" in fails("encode", "--tokenizer", str(path), "--text", "zebra")


def test_error_character_known_only_inside_words(tmp_path):
    """Sennrich's words end in w, r and t only; with the marker attached, "lo" needs o</w>,
    which the vocabulary lacks (it has o). That must be a clean one-line error."""
    path = tmp_path / "tok.json"
    ok("train", "--words", SENNRICH, "--end-of-word", "attached", "--save", str(path))
    assert "o</w>" in fails("encode", "--tokenizer", str(path), "--text", "lo")


def test_save_to_a_folder_that_does_not_exist_is_one_line(tmp_path):
    assert "Cannot write" in fails("train", "--words", SENNRICH, "--save", str(tmp_path / "no" / "x.json"))


def test_vocab_size_alone_is_not_capped_at_ten_merges():
    out = ok("train", "--words", SENNRICH, "--end-of-word", "separate", "--vocab-size", "25")
    assert "reached the target vocabulary size of 25" in out
