"""What the models read alike: a {token: id} vocabulary, id -> token, a word cache."""
from __future__ import annotations

from typing import NamedTuple

from ...checks import Field
from ...pipeline import Model, ModelWork


def token_ids(field: Field) -> dict[str, int]:
    raw = field.as_dict()
    ids = raw.values()
    # the common case checked in C-level passes: every id an int (not a bool) in range
    if raw and set(map(type, ids)) == {int} and min(ids) >= 0 and max(ids) <= (1 << 32) - 1:
        return dict(raw)
    vocab: dict[str, int] = {}
    for token, value in field.members():
        vocab[token] = value.as_int(low=0, high=(1 << 32) - 1)  # ids are packed in 32 bits (`Merges`)
    return vocab


def optional_str(field: Field, name: str) -> str | None:
    value = field.key(name, None)
    return None if value.value is None else value.as_str()


def id_to_token(vocab: dict[str, int]) -> dict[int, str]:
    """id -> token; where two tokens share an id, the first in file order wins.

    >>> id_to_token({"a": 0, "b": 1})
    {0: 'a', 1: 'b'}
    """
    reverse = dict(zip(vocab.values(), vocab))
    if len(reverse) == len(vocab):  # no id shared: the table turned round
        return reverse
    return {i: t for t, i in sorted(vocab.items(), key=lambda item: item[1], reverse=True)}


class WordModel(NamedTuple):
    """A model: `encode` a word to its (id, token, start, end) tuples, and the `work` it
    shows the pages (a replay, trace or lattice of one word)."""

    encode: Model
    work: ModelWork


def cached(encode_word: Model) -> Model:
    """A model that remembers the last 100,000 words it encoded."""
    cache: dict[str, list[tuple[int, str, int, int]]] = {}

    def encode(word: str) -> list[tuple[int, str, int, int]]:
        if not word:
            return []
        hit = cache.get(word)
        if hit is None:
            hit = encode_word(word)
            if len(cache) > 100_000:
                cache.clear()
            cache[word] = hit
        return hit

    return encode
