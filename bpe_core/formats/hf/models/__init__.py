"""tokenizer.json models, one builder per `type` in `MODELS`: BPE, WordPiece and
Unigram (the library's `models` crate). Each builder takes the model's field and
returns a `WordModel` (a function from a word to its (id, token, start, end) tuples,
and its `work` for the pages) and the vocabulary id -> token."""
from __future__ import annotations

from typing import Callable

from ...checks import Field
from .bpe import bpe_model
from .shared import WordModel
from .unigram import unigram_model
from .wordpiece import wordpiece_model

__all__ = ["MODELS", "model_type_of"]


def model_type_of(field: Field) -> str:
    if not field.has("type"):  # files from before the field existed: BPE has merges
        if field.has("merges"):
            return "BPE"
        raise field.fail("has no 'type' field and no merges, so its model type is unknown")
    kind = field.key("type").as_str()
    if kind not in MODELS:
        raise field.key("type").fail(
            f"is {kind!r}: this app reads {', '.join(MODELS)} models only. "
            f"Choose a tokenizer.json with one of those"
        )
    return kind


MODELS: dict[str, Callable[[Field], tuple[WordModel, dict[int, str]]]] = {
    "BPE": bpe_model,
    "WordPiece": wordpiece_model,
    "Unigram": unigram_model,
}
