"""What a tokenizer's model can show of its work on one word, for any kind of tokenizer
read from a file: the merge-by-merge replay of a BPE model, the longest-match trace of
a WordPiece model, the lattice of a Unigram model.

A tokenizer that can show it has `work` (a `ModelWork`) and `model_words(text)`: the
words of a text as its model receives them (normalized and pre-tokenized), each with the
range of the original text it came from, and `word_of(text, span)`: the word a token came
from (`contracts.ShowsModelWork`). Our own `Tokenizer` has `replay` instead, and
trained WordPiece and Unigram tokenizers have `trace` and `lattice` themselves.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

__all__ = ["ModelWork", "ModelWord", "word_holding"]


@dataclass(frozen=True)
class ModelWork:
    """What a model can show of its work on one word (as the model sees it: normalized
    and pre-tokenized). `algorithm` is "BPE", "WordPiece" or "Unigram"; one of `replay`
    (word -> `Replay`), `trace` (word -> `WordTrace`) and `lattice` (word -> `Lattice`)
    is set, by algorithm; `note` says what the model does beside it (ignore_merges).
    `by_score`: a BPE model that merges by piece score, with no merge list (SentencePiece
    BPE), so a replay step's rank is the new piece's id, not a place in a merges list."""

    algorithm: str
    replay: Callable | None = None
    trace: Callable | None = None
    lattice: Callable | None = None
    note: str = ""
    by_score: bool = False


@dataclass(frozen=True, slots=True)
class ModelWord:
    """A word as the model receives it (`text`), the range of the original text it came
    from, and whether it is an added token (which the model never sees)."""

    text: str
    start: int
    end: int
    added: bool = False


def word_holding(words: Sequence[ModelWord], start: int) -> ModelWord | None:
    """The word (added tokens left out) whose range of the text holds a token starting at
    `start`; an empty token, such as a dummy prefix, belongs to the next word.

    >>> words = [ModelWord("▁a", 0, 1), ModelWord("▁bc", 1, 4)]
    >>> word_holding(words, 2).text, word_holding(words, 1).text, word_holding(words, 4)
    ('▁bc', '▁bc', None)
    """
    words = [w for w in words if not w.added]
    inside = next((w for w in words if w.start <= start < w.end), None)
    return inside or next((w for w in words if w.start >= start), None)
