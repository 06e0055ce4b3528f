"""BPE-dropout (bpe_core.dropout) against subword-nmt's own `apply_bpe` with dropout.

subword-nmt draws from Python's global `random`; seeding it and our `random.Random`
with the same seed gives the same draws, so every sampled segmentation must be the same,
draw for draw. Also: p = 0 is ordinary encoding (trained merge lists and OpenAI rank
tables), p = 1 leaves the base symbols, the same seed repeats, different seeds differ.
"""
from __future__ import annotations

import io
import random
from functools import lru_cache

import pydoc_data.topics
import pytest
from subword_nmt.apply_bpe import BPE

from bpe_core import TrainerSettings, WordTable, train
from bpe_core.dropout import dropout_encode, dropout_piece, sample_segmentations
from bpe_core.pretrained import openai_tokenizer

from stress_strings import stress_strings

TEXT = pydoc_data.topics.topics["if"] + pydoc_data.topics.topics["for"] + pydoc_data.topics.topics["while"]


@lru_cache(maxsize=None)
def trained(units: str, end_of_word: str, pretokenizer: str, merges: int = 400):
    settings = TrainerSettings(units=units, end_of_word=end_of_word, merges=merges)
    return train(WordTable.from_text(TEXT, pretokenizer), settings).tokenizer(merges)


def subword_nmt_codes(tok) -> str:
    """Our merge list in subword-nmt's codes format (version 0.2, attached </w>)."""
    pairs = sorted(tok.merges.items(), key=lambda item: item[1][0])
    lines = [f"{tok.token_text(a)} {tok.token_text(b)}" for (a, b), _ in pairs]
    return "#version: 0.2\n" + "\n".join(lines) + "\n"


def as_subword_nmt(tok, ids) -> list[str]:
    """Token texts as subword-nmt prints them: '@@' on all but the last, no '</w>'."""
    texts = [tok.token_text(i) for i in ids]
    texts[-1] = texts[-1].removesuffix("</w>")
    return [t + "@@" for t in texts[:-1]] + [texts[-1]]


@pytest.mark.parametrize("p", [0.0, 0.1, 0.3, 0.5, 0.9, 1.0])
def test_same_draws_as_subword_nmt(p):
    tok = trained("char", "attached", "whitespace")
    bpe = BPE(io.StringIO(subword_nmt_codes(tok)))
    words = sorted(set(TEXT.split()))[:300] + ["lowest", "unbelievably", "aaaaaaaa", "x"]
    for seed in range(3):
        for word in words:
            random.seed(seed)
            theirs = bpe.segment_tokens([word], dropout=p)
            ours = dropout_piece(tok, word, p=p, rng=random.Random(seed))
            assert as_subword_nmt(tok, ours) == theirs, (p, seed, word)


def test_subword_nmt_codes_encode_like_us_without_dropout():
    """The codes file is a faithful copy of our merge list (else the test above means nothing)."""
    tok = trained("char", "attached", "whitespace")
    bpe = BPE(io.StringIO(subword_nmt_codes(tok)))
    for word in sorted(set(TEXT.split())):
        assert as_subword_nmt(tok, tok.encode(word)) == bpe.segment_tokens([word])


CONFIGS = [("char", "attached", "whitespace"), ("char", "separate", "whitespace"), ("byte", "none", "gpt2"),
           ("char", "none", "simple"), ("byte", "attached", "gpt2")]


@pytest.mark.parametrize("config", CONFIGS)
def test_p0_is_ordinary_encoding(config):
    tok = trained(*config)
    for text in [TEXT[:3000], "lowest newer wider", "if x:\n    pass  # done"]:
        assert dropout_encode(tok, text, p=0.0, seed=1) == tok.encode(text)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_p0_is_ordinary_encoding_for_rank_tables(name):
    tok = openai_tokenizer(name)
    for text in stress_strings()[::7]:
        assert dropout_encode(tok, text, p=0.0) == tok.encode(text), text


@pytest.mark.parametrize("config", CONFIGS)
def test_p1_leaves_base_symbols(config):
    tok = trained(*config)
    for piece, _ in tok.pieces(TEXT[:2000]):
        ids = dropout_piece(tok, piece, p=1.0, rng=random.Random(0))
        assert tuple(ids) == tok.replay(piece).base


def test_p1_rank_table_gives_single_bytes():
    tok = openai_tokenizer("cl100k_base")
    text = "héllo wörld 😀"
    ids = dropout_encode(tok, text, p=1.0)
    assert [tok.token_bytes(i) for i in ids] == [bytes([b]) for b in text.encode("utf-8")]


def test_dropout_decodes_to_the_text():
    for tok in (trained("byte", "none", "gpt2"), openai_tokenizer("gpt2")):
        for seed in range(5):
            ids = dropout_encode(tok, TEXT[:2000], p=0.3, seed=seed)
            assert tok.decode(ids) == TEXT[:2000]
            assert len(ids) >= len(tok.encode(TEXT[:2000]))


def test_seeds_repeat_and_differ():
    tok = trained("char", "attached", "whitespace")
    a = sample_segmentations(tok, "statement", p=0.3, samples=20, seed=4)
    assert a == sample_segmentations(tok, "statement", p=0.3, samples=20, seed=4)
    assert len(set(a)) > 1  # several different segmentations among the draws
    assert a != sample_segmentations(tok, "statement", p=0.3, samples=20, seed=5)
    assert all("".join(s).removesuffix("</w>") == "statement" for s in a)


def test_bad_arguments():
    tok = trained("char", "attached", "whitespace")
    for p in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="probability"):
            dropout_encode(tok, "if", p=p)
    with pytest.raises(TypeError):
        dropout_encode(tok, "if", p="0.1")
    with pytest.raises(TypeError):
        dropout_encode(tok, b"if", p=0.1)
    with pytest.raises(ValueError, match="samples"):
        sample_segmentations(tok, "if", p=0.1, samples=-1)
    with pytest.raises(ValueError, match="not in this"):
        dropout_encode(tok, "if \u2603", p=0.1)  # a snowman the character vocabulary never saw
    with pytest.raises(ValueError, match="surrogate"):
        dropout_encode(openai_tokenizer("gpt2"), "a\ud800", p=0.1)
