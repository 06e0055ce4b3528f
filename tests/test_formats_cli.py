"""The command line with tokenizer files: `encode --tokenizer PATH` and `export`.

`encode --json` prints exactly the library's ids; `--tokens` prints the token strings
as a JSON list (GPT-2's byte form, `est</w>` for an attached marker, an unseen character
as itself). `export` writes files the real libraries read, or one error line naming
the setting a format cannot hold.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tokenizers import Tokenizer as HFTokenizer, models, pre_tokenizers, trainers

REPO = Path(__file__).resolve().parent.parent
SENNRICH = "corpora/sennrich_algorithm1.txt"
TEXT = "The lowest newest café 👋 costs $3.50,\n\tdon't it? 你好"


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bpe_core", *args], capture_output=True, text=True, cwd=REPO)


def ok(*args: str) -> str:
    proc = run_cli(*args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def fails(*args: str) -> str:
    proc = run_cli(*args)
    assert proc.returncode == 2 and proc.stdout == "", (proc.stdout, proc.stderr)
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
    return proc.stderr


@pytest.fixture(scope="module")
def hf_path(tmp_path_factory) -> Path:
    tok = HFTokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    text = (REPO / "corpora" / "english_sample.txt").read_text(encoding="utf-8")
    tok.train_from_iterator([text], trainers.BpeTrainer(vocab_size=600, show_progress=False,
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                                        special_tokens=["<|endoftext|>"]))
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    tok.save(str(path))
    return path


def test_encode_tokenizer_json_prints_the_library_ids(hf_path, tmp_path):
    text_file = tmp_path / "in.txt"
    text_file.write_text(TEXT + "<|endoftext|>", encoding="utf-8")
    expected = HFTokenizer.from_file(str(hf_path)).encode(text_file.read_text(encoding="utf-8"), add_special_tokens=False)
    assert json.loads(ok("encode", "--tokenizer", str(hf_path), "--file", str(text_file), "--json")) == expected.ids
    assert json.loads(ok("encode", "--tokenizer", str(hf_path), "--file", str(text_file), "--tokens")) == expected.tokens


def test_encode_tokens_of_a_saved_byte_tokenizer(tmp_path):
    saved = tmp_path / "tok.json"
    ok("train", "--text", "corpora/english_sample.txt", "--units", "byte", "--pretokenizer", "gpt2",
       "--merges", "50", "--save", str(saved))
    tokens = json.loads(ok("encode", "--tokenizer", str(saved), "--text", "the cat\n", "--tokens"))
    assert "".join(tokens) == "theĠcatĊ" and any(t.startswith("Ġ") for t in tokens)


def test_encode_tokens_with_an_attached_marker_and_an_unseen_character(tmp_path):
    saved = tmp_path / "tok.json"
    ok("train", "--words", SENNRICH, "--end-of-word", "attached", "--save", str(saved))
    from bpe_core import TrainerSettings, WordTable, train

    run = train(WordTable.from_word_counts((REPO / SENNRICH).read_text(encoding="utf-8")),
                TrainerSettings(end_of_word="attached", merges=10))
    tok = run.tokenizer()
    tokens = json.loads(ok("encode", "--tokenizer", str(saved), "--text", "lowest", "--tokens"))
    assert tokens == [tok.token_text(i) for i in tok.encode("lowest")] and tokens[-1] == "est</w>"
    # z was never seen: it has no id, so --json fails and --tokens shows it as itself.
    assert "is not in this character-level vocabulary" in fails("encode", "--tokenizer", str(saved), "--text", "zest", "--json")
    assert json.loads(ok("encode", "--tokenizer", str(saved), "--text", "zest", "--tokens"))[0] == "z"


def test_encode_tiktoken_file_with_a_pattern(tmp_path):
    import tiktoken

    from bpe_core.pretrained.openai_files import load_openai_encoding

    files = load_openai_encoding("cl100k_base")
    path = tmp_path / "ranks.tiktoken"
    import base64

    path.write_bytes(b"".join(base64.b64encode(t) + b" %d\n" % r for t, r in files.mergeable_ranks.items()))
    enc = tiktoken.Encoding("x", pat_str=files.pattern, mergeable_ranks=files.mergeable_ranks, special_tokens={})
    assert json.loads(ok("encode", "--tokenizer", str(path), "--pattern", "cl100k_base", "--text", TEXT, "--json")) == enc.encode_ordinary(TEXT)
    assert "holds no pre-tokenizer pattern" in fails("encode", "--tokenizer", str(path), "--text", TEXT)


@pytest.mark.parametrize("fmt, train_args", [
    ("hf", ["--units", "byte", "--pretokenizer", "cl100k"]),
    ("hf", ["--end-of-word", "attached"]),
    ("tiktoken", ["--units", "byte", "--pretokenizer", "gpt2"]),
    ("gpt2", ["--units", "byte", "--pretokenizer", "gpt2"]),
    ("subword-nmt", ["--end-of-word", "attached", "--pretokenizer", "whitespace"]),
])
def test_export_then_encode_by_path(tmp_path, fmt, train_args):
    """What export writes, encode reads back by path, with the ids of the saved tokenizer."""
    saved = tmp_path / "tok.json"
    ok("train", "--text", "corpora/english_sample.txt", "--merges", "80", *train_args, "--save", str(saved))
    out = tmp_path / {"hf": "tokenizer.json", "tiktoken": "ours.tiktoken", "gpt2": "gpt2", "subword-nmt": "codes.txt"}[fmt]
    written = ok("export", "--tokenizer", str(saved), "--format", fmt, "--out", str(out)).split()
    assert all(Path(p).is_file() for p in written)
    text = "the reader reads these words"
    extra = ["--pattern", "gpt2"] if fmt == "tiktoken" else []
    # A codes file has no ids (reading it numbers the symbols anew): compare the tokens.
    show = "--tokens" if fmt == "subword-nmt" else "--json"
    want = json.loads(ok("encode", "--tokenizer", str(saved), "--text", text, show))
    assert json.loads(ok("encode", "--tokenizer", str(out), *extra, "--text", text, show)) == want


def test_export_gpt2_to_two_paths(tmp_path):
    saved = tmp_path / "tok.json"
    ok("train", "--text", "corpora/english_sample.txt", "--units", "byte", "--pretokenizer", "gpt2", "--merges", "20", "--save", str(saved))
    out = ok("export", "--tokenizer", str(saved), "--format", "gpt2", "--out", str(tmp_path / "v.json"), str(tmp_path / "m.txt"))
    assert out.split() == [str(tmp_path / "v.json"), str(tmp_path / "m.txt")]


@pytest.mark.parametrize("fmt, train_args, words", [
    ("tiktoken", ["--words", SENNRICH, "--end-of-word", "separate"], "A tiktoken rank file cannot hold this tokenizer: it works on characters"),
    ("hf", ["--words", SENNRICH, "--end-of-word", "separate"], "its end-of-word marker '</w>' is a symbol of its own"),
    ("subword-nmt", ["--words", SENNRICH], "no end-of-word marker"),
    ("gpt2", ["--words", SENNRICH], "GPT-2's vocab.json + merges.txt cannot hold this tokenizer"),
])
def test_export_refuses_in_one_line(tmp_path, fmt, train_args, words):
    saved = tmp_path / "tok.json"
    ok("train", *train_args, "--save", str(saved))
    out = tmp_path / "out"
    assert words in fails("export", "--tokenizer", str(saved), "--format", fmt, "--out", str(out))
    assert not out.exists()


def test_export_of_a_file_that_is_not_ours(hf_path, tmp_path):
    assert "This is not a bpe-teaching-tokenizer file" in fails(
        "export", "--tokenizer", str(hf_path), "--format", "hf", "--out", str(tmp_path / "x.json"))
