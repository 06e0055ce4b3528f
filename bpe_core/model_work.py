"""What a tokenizer's model can show of its work on one word, for any kind of tokenizer
read from a file: the merge-by-merge replay of a BPE model, the longest-match trace of
a WordPiece model, the lattice of a Unigram model.

A tokenizer that can show it has `work` (a `ModelWork`) and `model_words(text)`: the
words of a text as its model receives them (normalized and pre-tokenized), each with the
range of the original text it came from. Our own `Tokenizer` has `replay` instead, and
trained WordPiece and Unigram tokenizers have `trace` and `lattice` themselves.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

__all__ = ["ModelWork", "ModelWord"]


@dataclass(frozen=True)
class ModelWork:
    """What a model can show of its work on one word (as the model sees it: normalized
    and pre-tokenized). `algorithm` is "BPE", "WordPiece" or "Unigram"; one of `replay`
    (word -> `Replay`), `trace` (word -> `WordTrace`) and `lattice` (word -> `Lattice`)
    is set, by algorithm; `note` says what the model does beside it (ignore_merges)."""

    algorithm: str
    replay: Callable | None = None
    trace: Callable | None = None
    lattice: Callable | None = None
    note: str = ""


@dataclass(frozen=True, slots=True)
class ModelWord:
    """A word as the model receives it (`text`), the range of the original text it came
    from, and whether it is an added token (which the model never sees)."""

    text: str
    start: int
    end: int
    added: bool = False
