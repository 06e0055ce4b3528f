"""Damaged and hostile tokenizer files: each is one ValueError naming the field and the fix.

The three defects of issue 15 item 7 come first: a file nested 100,000 levels deep
crashed with a RecursionError traceback, a special-token id "x" was accepted (and
printed as an id), and base_size -5 or NaN was read as a number and failed later with
"character 'l' is not in this vocabulary". The rest walk every field of our saved
format with a wrong type or value.
"""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_core import TrainerSettings, WordTable, train
from bpe_core.formats import run_to_json, tokenizer_from_json
from bpe_core.formats.checks import Field, Source, parse_json

REPO = Path(__file__).resolve().parent.parent
LOW = "low 5\nlower 2\nnewest 6\nwidest 3"


@pytest.fixture(scope="module")
def saved() -> dict:
    run = train(WordTable.from_word_counts(LOW), TrainerSettings(end_of_word="separate", merges=3))
    return run_to_json(run)


def _mutated(saved: dict, path: tuple, value) -> dict:
    data = copy.deepcopy(saved)
    target = data
    for step in path[:-1]:
        target = target[step]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


_DELETE = object()


# ---- issue 15 item 7 ------------------------------------------------------------------

@pytest.mark.parametrize("depth", [100_000, 5_000], ids=["100k", "5k"])
def test_deep_nesting_is_a_value_error(depth):
    with pytest.raises(ValueError, match=r"nested too deeply to read.*Save the tokenizer again"):
        tokenizer_from_json("[" * depth)


def test_deep_nesting_is_one_line_on_the_command_line(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "bpe_core", "encode", "--tokenizer", str(path), "--text", "hi"],
        capture_output=True, text=True, cwd=REPO,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "RecursionError" not in proc.stderr
    assert proc.stderr.startswith("error: ") and "nested too deeply" in proc.stderr


@pytest.mark.parametrize("value", ["x", 1.5, True, None, [3], -1, 0, 5])
def test_special_token_id_must_be_a_whole_number_after_the_vocabulary(saved, value):
    """"x" was accepted and encode printed it as an id; ids inside the vocabulary (0, 5)
    would make one id mean two tokens."""
    data = _mutated(saved, ("special_tokens", "<|endoftext|>"), value)
    with pytest.raises(ValueError, match=r"`special_tokens\['<\|endoftext\|>'\]` is .*Save the tokenizer again"):
        tokenizer_from_json(data)


@pytest.mark.parametrize("value, words", [
    (-5, r"`base_size` is -5; it must be between 0 and \d+"),
    (float("nan"), r"`base_size` is NaN \(a number\), not a whole number"),
    ("5", r"`base_size` is '5' \(a string\), not a whole number"),
    (10**6, r"`base_size` is 1000000; it must be between 0 and"),
])
def test_base_size_is_checked(saved, value, words):
    with pytest.raises(ValueError, match=words):
        tokenizer_from_json(data=_mutated(saved, ("base_size",), value))


def test_nan_in_the_file_text(saved):
    """Python's json reads NaN; the check must still refuse it as a base size."""
    text = json.dumps(saved).replace('"base_size": ', '"base_size": NaN, "x": ')
    with pytest.raises(ValueError, match=r"`base_size` is NaN"):
        tokenizer_from_json(text)


# ---- every field of the saved format ---------------------------------------------------

@pytest.mark.parametrize("path, value, words", [
    (("version",), 2, r"`version` is 2; it must be between 1 and 1"),
    (("units",), "word", r"`units` is 'word'; choose one of: char, byte"),
    (("end_of_word",), 1, r"`end_of_word` is 1 \(a number\), not a string"),
    (("marker",), None, r"`marker` is null, not a string"),
    (("marker",), "", r"`marker` is empty, but end_of_word is 'separate'"),
    (("pretokenizer",), "bert", r"`pretokenizer` is 'bert'; choose one of"),
    (("vocab",), {}, r"`vocab` is an object with 0 keys, not a list"),
    (("vocab", 3, "id"), "x", r"`vocab\[3\].id` is 'x' \(a string\), not a whole number"),
    (("vocab", 3, "id"), 4, r"`vocab\[3\].id` is 4; it must be between 3 and 3"),
    (("vocab", 2, "body"), 7, r"`vocab\[2\].body` is 7 \(a number\), not a string"),
    (("vocab", 2, "end_of_word"), "yes", r"`vocab\[2\].end_of_word` is 'yes' \(a string\), not true or false"),
    (("vocab", 2), _DELETE, r"`vocab\[2\].id` is 3; it must be between 2 and 2"),
    (("merges", 0, "pair"), [0, "x"], r"`merges\[0\].pair\[1\]` is 'x'"),
    (("merges", 0, "pair"), [0, 99], r"`merges\[0\].pair\[1\]` is 99; it must be between 0 and"),
    (("merges", 0, "pair"), [1, 1], r"Merge 1 \(1, 1\) makes a token that is not in the vocabulary"),
    (("merges",), None, r"`merges` is null, not a list"),
    (("special_tokens",), [], r"`special_tokens` is a list of 0 items, not an object"),
])
def test_each_field_is_checked(saved, path, value, words):
    with pytest.raises(ValueError, match=words):
        tokenizer_from_json(_mutated(saved, path, value))


def test_a_repeated_token_is_named(saved):
    data = copy.deepcopy(saved)
    data["vocab"][4]["body"] = data["vocab"][3]["body"]
    data["vocab"][4]["end_of_word"] = data["vocab"][3]["end_of_word"]
    with pytest.raises(ValueError, match=r"`vocab\[4\]` repeats the token of `vocab\[3\]`"):
        tokenizer_from_json(data)


def test_byte_body_not_in_gpt2_form():
    run = train(WordTable.from_text("ab ab", "gpt2"), TrainerSettings(units="byte", merges=1))
    data = run_to_json(run)
    data["vocab"][0]["body"] = "a b"
    with pytest.raises(ValueError, match=r"`vocab\[0\].body` is 'a b', which is not in GPT-2's byte-to-unicode form"):
        tokenizer_from_json(data)


def test_two_special_tokens_with_one_id(saved):
    data = copy.deepcopy(saved)
    size = len(data["vocab"])
    data["special_tokens"] = {"<a>": size, "<b>": size}
    with pytest.raises(ValueError, match=r"`special_tokens\['<b>'\]` is \d+, the id of '<a>' too"):
        tokenizer_from_json(data)


def test_a_good_file_still_loads(saved):
    tok = tokenizer_from_json(json.dumps(saved))
    assert tok.encode("lowest") == tokenizer_from_json(saved).encode("lowest")


# ---- the shared readers ----------------------------------------------------------------

SRC = Source("the test file", "Make a new one.")


@pytest.mark.parametrize("text, words", [
    ('{"a": [1, 2', r"not valid JSON: .* \(it ends too early: the file may be cut off\)"),
    ("", r"not valid JSON"),
    (b"\xff\xfe{}", r"not UTF-8 text \(byte 0xff at position 0\)"),
    ('{"a": ' * 50_000, r"nested too deeply"),
], ids=["truncated", "empty", "not-utf8", "deep-objects"])
def test_parse_json_errors(text, words):
    with pytest.raises(ValueError, match=rf"^The test file: .*{words}.*Make a new one\.$"):
        parse_json(text, SRC)


def test_size_limit():
    with pytest.raises(ValueError, match=r"the file is 0.0 MB, more than the 0 MB"):
        parse_json("[1, 2, 3]", SRC, limit=4)


def test_a_utf8_bom_is_fine():
    assert parse_json("\ufeff[1]".encode("utf-8"), SRC).index(0).as_int() == 1


def test_missing_key_names_the_parent():
    with pytest.raises(ValueError, match=r"`model` has no 'vocab' field"):
        Field({"model": {}}, SRC).key("model").key("vocab")
