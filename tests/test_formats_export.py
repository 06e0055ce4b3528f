"""Exports read by the real libraries, and read back by us: ours == theirs, token by token.

Tokenizers are trained here with several settings (char and byte units, end of word
none / separate / attached, several pre-tokenizers) on English prose plus a slice of the
stress strings, then written in each format. The written files go to the reference
library (Hugging Face tokenizers, tiktoken, subword-nmt), and to our own readers;
both must give the ids and tokens our tokenizer gives, on the stress strings
(multilingual text, code, emoji, whitespace runs). A setting a format cannot hold is
refused with a message that names it.
"""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from bpe_core import Tokenizer, TrainerSettings, WordTable, pretokenize, train
from bpe_core.formats import (
    export_bytes,
    export_files,
    export_problem,
    load_gpt2_files,
    load_hf_json,
    load_subword_nmt_codes,
    load_tiktoken_ranks,
    token_strings,
    write_export,
)
from stress_strings import stress_strings

REPO = Path(__file__).resolve().parent.parent
STRESS = stress_strings()
SAMPLE = STRESS[::9]  # about 400 strings of every family
CORPUS = (REPO / "corpora" / "english_sample.txt").read_text(encoding="utf-8") + "\n".join(STRESS[::5])


def _trained(units: str, end_of_word: str, pretokenizer: str, merges: int = 300, text: str = CORPUS):
    run = train(WordTable.from_text(text, pretokenizer), TrainerSettings(units=units, end_of_word=end_of_word, merges=merges))
    return run.tokenizer()


def _encodable(tok, texts):
    """The texts a char-level tokenizer can encode (every character seen in training)."""
    out = []
    for text in texts:
        try:
            tok.encode(text)
        except ValueError:
            continue
        out.append(text)
    return out


# ---- Hugging Face tokenizer.json ----------------------------------------------------------

HF_SETTINGS = [
    ("byte", "none", "gpt2"),
    ("byte", "none", "cl100k"),
    ("byte", "none", "o200k"),
    ("byte", "none", "whitespace"),
    ("byte", "none", "none"),
    ("byte", "attached", "gpt2"),
    ("char", "none", "simple"),
    ("char", "attached", "whitespace"),
    ("char", "attached", "gpt2"),
]


@pytest.mark.parametrize("units, end_of_word, pretokenizer", HF_SETTINGS)
def test_hf_export_encodes_like_ours(tmp_path, units, end_of_word, pretokenizer):
    from tokenizers import Tokenizer as HFTokenizer

    merges = 60 if pretokenizer == "none" else 300
    text = CORPUS[:20_000] if pretokenizer == "none" else CORPUS
    ours = _trained(units, end_of_word, pretokenizer, merges, text)
    path = tmp_path / "tokenizer.json"
    path.write_bytes(export_files(ours, "hf")["tokenizer.json"])
    theirs = HFTokenizer.from_file(str(path))
    mine_again = load_hf_json(path.read_bytes())
    texts = _encodable(ours, SAMPLE + ["lowest newest <|endoftext|> low"])
    assert len(texts) > 50
    for text in texts:
        expected = ours.encode(text, allowed_special="all")
        got = theirs.encode(text, add_special_tokens=False)
        assert got.ids == expected, text
        assert got.tokens == token_strings(ours, text, allowed_special="all"), text
        assert mine_again.encode(text, allowed_special="all") == expected, text


def test_hf_export_refuses_a_separate_marker():
    tok = _trained("char", "separate", "whitespace", 30)
    problem = export_problem(tok, "hf")
    assert "is a symbol of its own" in problem and "attached" in problem
    with pytest.raises(ValueError, match=r"Hugging Face tokenizer.json cannot hold this tokenizer: its end-of-word marker"):
        export_files(tok, "hf")


def test_hf_export_refuses_a_marker_that_is_also_text():
    """With no pre-tokenizer, a token's own text can end in `</w>`; written with the
    marker attached, two tokens would have one string."""
    tok = _trained("char", "attached", "none", 40, "a</w> a</w> a</w> b a b a")
    assert tok.token_text  # trained
    problem = export_problem(tok, "hf")
    assert problem is None or "are both written" in problem


# ---- tiktoken ---------------------------------------------------------------------------

@pytest.mark.parametrize("pretokenizer", ["gpt2", "cl100k", "o200k", "simple"])
def test_tiktoken_export_encodes_like_ours(tmp_path, pretokenizer):
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    ours = _trained("byte", "none", pretokenizer, 400)
    problem = export_problem(ours, "tiktoken")
    if problem:  # the check must say why, naming a merge
        assert "merge" in problem
        pytest.skip(f"not representable: {problem}")
    path = tmp_path / "ours.tiktoken"
    path.write_bytes(export_files(ours, "tiktoken")["tokenizer.tiktoken"])
    ranks = load_tiktoken_bpe(str(path))
    enc = tiktoken.Encoding("ours", pat_str=ours.pattern, mergeable_ranks=ranks, special_tokens={})
    mine_again = load_tiktoken_ranks(path.read_bytes(), pattern=pretokenizer)
    for text in SAMPLE:
        expected = ours.encode(text)
        assert enc.encode_ordinary(text) == expected, text
        assert mine_again.encode(text) == expected, text


@pytest.mark.parametrize("units, end_of_word, words", [
    ("char", "none", r"it works on characters"),
    ("byte", "separate", r"end-of-word marker \(separate, '</w>'\) is a symbol with no bytes"),
    ("byte", "attached", r"end-of-word marker \(attached, '</w>'\)"),
])
def test_tiktoken_export_refuses(units, end_of_word, words):
    tok = _trained(units, end_of_word, "gpt2", 30)
    with pytest.raises(ValueError, match=rf"tiktoken rank file cannot hold this tokenizer: .*{words}"):
        export_files(tok, "tiktoken")


def test_tiktoken_export_refuses_a_merge_the_ranks_cannot_rebuild():
    """Merges b+c, then a+b, then ab+c: tiktoken, seeing only ranks, builds abc from
    a + bc (bc has the lower rank), so a rank file would encode 'abc' differently."""
    base = [(bytes((i,)), False) for i in range(256)]
    tokens = base + [(b"bc", False), (b"ab", False), (b"abc", False)]
    a, b, c = ord("a"), ord("b"), ord("c")
    tok = Tokenizer.from_merges(tokens=tokens, merges=[(b, c), (a, b), (257, c)], units="byte",
                                end_of_word="none", pretokenizer="gpt2", base_size=256)
    problem = export_problem(tok, "tiktoken")
    assert problem == ("merge 3 joins b'ab' + b'c', but from the ranks alone tiktoken would build that "
                       "token from b'a' + b'bc', so it would encode differently")


def test_tiktoken_export_refuses_two_merges_making_one_token():
    base = [(bytes((i,)), False) for i in range(256)]
    tokens = base + [(b"ab", False), (b"bc", False), (b"abc", False)]
    a, b, c = ord("a"), ord("b"), ord("c")
    tok = Tokenizer.from_merges(tokens=tokens, merges=[(a, b), (b, c), (256, c), (a, 257)], units="byte",
                                end_of_word="none", pretokenizer="gpt2", base_size=256)
    assert "merges 3 and 4 both make 'abc'" in export_problem(tok, "tiktoken")


# ---- subword-nmt ------------------------------------------------------------------------

@pytest.mark.parametrize("end_of_word", ["attached", "separate"])
def test_subword_nmt_export_segments_like_ours(tmp_path, end_of_word):
    from subword_nmt.apply_bpe import BPE

    ours = _trained("char", end_of_word, "whitespace", 400)
    codes = export_files(ours, "subword-nmt")["codes.txt"]
    assert codes.startswith(b"#version: 0.2\n" if end_of_word == "attached" else b"#version: 0.1\n")
    path = tmp_path / "codes.txt"
    path.write_bytes(codes)
    with open(path, encoding="utf-8") as handle:
        bpe = BPE(handle, separator="@@")
    mine_again = load_subword_nmt_codes(codes)
    words = sorted({p.text for text in _encodable(ours, SAMPLE) for p in pretokenize(text, "whitespace")})
    assert len(words) > 200
    for word in words:
        ids = ours.encode(word)
        # subword-nmt writes "lo@@ west": no marker, @@ on every piece but the last.
        pieces = [ours.token_text(i).replace("</w>", "") for i in ids]
        pieces = [p for p in pieces if p]
        expected = [p + "@@" for p in pieces[:-1]] + pieces[-1:]
        assert bpe.segment_tokens([word]) == expected, word
        # Read back, a character no merge names has no id; its string is the character.
        assert [t.replace("</w>", "") for t in token_strings(mine_again, word)] == [
            t.replace("</w>", "") for t in token_strings(ours, word)], word


@pytest.mark.parametrize("units, end_of_word, pretokenizer, marker, words", [
    ("byte", "attached", "whitespace", "</w>", "it works on bytes"),
    ("char", "attached", "gpt2", "</w>", "subword-nmt segments whitespace-separated words"),
    ("char", "none", "whitespace", "</w>", "always marks the end of a word"),
    ("char", "attached", "whitespace", "_", "its end-of-word marker is '_'"),
])
def test_subword_nmt_export_refuses(units, end_of_word, pretokenizer, marker, words):
    run = train(WordTable.from_text("low lower newest widest", pretokenizer),
                TrainerSettings(units=units, end_of_word=end_of_word, marker=marker, merges=5))
    with pytest.raises(ValueError, match=rf"subword-nmt codes file cannot hold this tokenizer: .*{words}"):
        export_files(run.tokenizer(), "subword-nmt")


# ---- GPT-2 vocab.json + merges.txt -------------------------------------------------------

def test_gpt2_export_encodes_like_ours(tmp_path):
    from tokenizers import Tokenizer as HFTokenizer, models, pre_tokenizers

    ours = _trained("byte", "none", "gpt2", 400)
    written = write_export(ours, "gpt2", [str(tmp_path / "out")])
    assert [p.name for p in written] == ["vocab.json", "merges.txt"]
    vocab, merges = written
    assert merges.read_text(encoding="utf-8").startswith("#version: 0.2\n")
    theirs = HFTokenizer(models.BPE.from_file(str(vocab), str(merges)))
    theirs.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    mine_again = load_gpt2_files(vocab.read_bytes(), merges.read_bytes())
    for text in SAMPLE:
        expected = ours.encode(text)
        got = theirs.encode(text, add_special_tokens=False)
        assert got.ids == expected, text
        assert got.tokens == token_strings(ours, text), text
        assert mine_again.encode(text) == expected, text


def test_gpt2_export_as_two_paths_and_as_a_zip(tmp_path):
    ours = _trained("byte", "none", "gpt2", 50)
    paths = write_export(ours, "gpt2", [str(tmp_path / "v.json"), str(tmp_path / "m.txt")])
    files = export_files(ours, "gpt2")
    assert [p.read_bytes() for p in paths] == [files["vocab.json"], files["merges.txt"]]
    name, data = export_bytes(ours, "gpt2")
    assert name.endswith(".zip")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert {n: archive.read(n) for n in archive.namelist()} == files
    assert export_bytes(ours, "gpt2") == (name, data)  # the same bytes every time
    assert json.loads(files["vocab.json"])["<|endoftext|>"] == ours.special_tokens["<|endoftext|>"]


@pytest.mark.parametrize("units, end_of_word, pretokenizer, words", [
    ("char", "none", "gpt2", "it works on characters"),
    ("byte", "attached", "gpt2", "end-of-word marker"),
    ("byte", "none", "cl100k", "trained with the 'cl100k' pre-tokenizer, but the files carry no pattern"),
])
def test_gpt2_export_refuses(units, end_of_word, pretokenizer, words):
    tok = _trained(units, end_of_word, pretokenizer, 20, "low lower newest widest")
    with pytest.raises(ValueError, match=rf"GPT-2's vocab.json \+ merges.txt cannot hold this tokenizer: .*{words}"):
        export_files(tok, "gpt2")


def test_unknown_export_format():
    with pytest.raises(ValueError, match=r"Unknown export format 'spm'. Choose one of: hf, tiktoken, subword-nmt, gpt2"):
        export_files(_trained("byte", "none", "gpt2", 5, "ab ab"), "spm")
