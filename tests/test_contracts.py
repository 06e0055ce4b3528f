"""What every tokenizer answers (bpe_core.contracts), asked of one tokenizer of each of the
five classes: the pages ask these instead of testing the class."""
from __future__ import annotations

import pytest

from bpe_core import TrainerSettings, WordTable, train
from bpe_core.algorithms.unigram import UnigramModel
from bpe_core.algorithms.wordpiece import WordPieceTokenizer
from bpe_core.contracts import ShowsModelWork, TextTokenizer
from bpe_core.formats import load_hf_json
from bpe_core.pretrained import load_pretrained

WORDS = "hug 10\npug 5\npun 12\nbun 4\nhugs 5"
TEXT = "hugs  pun, ab\nHello  wörld ü"


def byte_level_bpe():
    return load_hf_json({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "Ġ": 3}, "merges": ["a b"]},
                         "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False}})


def tokenizers() -> dict[str, TextTokenizer]:
    """One tokenizer of each class, by the name a page gives its kind."""
    return {
        "BPE": train(WordTable.from_word_counts(WORDS), TrainerSettings(merges=4, end_of_word="attached")).tokenizer(4),
        "WordPiece": WordPieceTokenizer(["[UNK]", "hug", "##s", "p", "##un"]),
        "Unigram": UnigramModel.from_scores({"▁": -2.0, "h": -2.0, "u": -2.0, "▁hug": -1.0}),
        "SentencePiece": load_pretrained("mistral-7b-v1"),
        "tokenizer.json, BPE": byte_level_bpe(),
    }


@pytest.mark.parametrize("kind", list(tokenizers()))
def test_every_tokenizer_says_its_kind_and_its_files_notes(kind):
    tok = tokenizers()[kind]
    assert isinstance(tok, TextTokenizer)
    assert tok.kind_label == kind
    assert tok.notes == () and tok.warnings == ()


def test_a_files_notes_and_warnings_are_its_own():
    tok = load_hf_json({"model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 1, "b": 5}},
                        "truncation": {"max_length": 8}})
    assert tok.kind_label == "tokenizer.json, WordPiece"
    assert "truncation" in tok.notes[0] and "sparse" in tok.warnings[0]  # ids 2-4 belong to no token


def test_the_end_of_word_marker_is_the_tokens_own():
    tok = tokenizers()["BPE"]
    ids = tok.encode("hugs pun")
    assert tok.marker == "</w>"
    assert [tok.marker_of(i) for i in ids] == ["</w>" if tok.token_text(i).endswith("</w>") else "" for i in ids]
    assert "</w>" in [tok.marker_of(i) for i in ids] and "" in [tok.marker_of(i) for i in ids]
    for other in ("WordPiece", "Unigram", "SentencePiece", "tokenizer.json, BPE"):
        t = tokenizers()[other]
        ids = t.encode("ab" if other.startswith("tokenizer.json") else "hugs")
        assert ids and t.marker == "" and {t.marker_of(i) for i in ids} == {""}


@pytest.mark.parametrize("kind", ["SentencePiece", "tokenizer.json, BPE"])
def test_each_token_comes_from_the_word_that_holds_it(kind):
    tok = tokenizers()[kind]
    assert isinstance(tok, ShowsModelWork)
    words = [w for w in tok.model_words(TEXT) if not w.added]
    for span in tok.token_spans(TEXT):
        word = tok.word_of(TEXT, span)
        assert word in words
        if span.end > span.start:
            assert word.start <= span.start and span.end <= word.end


def test_byte_level_and_merges_by_score_are_the_models_own():
    spm, hf = tokenizers()["SentencePiece"], tokenizers()["tokenizer.json, BPE"]
    assert not spm.byte_level and hf.byte_level
    assert spm.work.algorithm == "BPE" and spm.work.by_score
    assert hf.work.algorithm == "BPE" and not hf.work.by_score
    assert not isinstance(tokenizers()["BPE"], ShowsModelWork)  # our BPE replays itself
