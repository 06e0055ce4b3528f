"""The library's Unigram model, run by our `viterbi`."""
from __future__ import annotations

import math

from ...checks import Field
from ...pipeline import ModelWork
from ..common import flag
from .shared import WordModel, cached


def unigram_model(field: Field) -> tuple[WordModel, dict[int, str]]:
    """The library's Unigram model, run by our `viterbi`: every piece (the unknown
    token too) may match; a character with no one-character piece gets an unknown node
    scored the lowest score minus 10; a run of unknown nodes is one token (its text), which
    is written as bytes (`<0x41>`) with byte_fallback when they all exist, else the unk id."""
    from ....algorithms.unigram import PieceTable, build_lattice, merge_unknown, viterbi

    vocab_field = field.key("vocab")
    scores: dict[str, float] = {}
    ids: dict[str, int] = {}
    raw = vocab_field.as_list()
    pieces = values = ()
    # the common case checked in C-level passes: [piece, score] pairs, each piece a
    # non-empty string once, each score a finite int or float
    if raw and set(map(type, raw)) == {list} and set(map(len, raw)) == {2}:
        pieces, values = zip(*raw)
        if (set(map(type, pieces)) == {str} and "" not in pieces and set(map(type, values)) <= {float, int}
                and len(set(pieces)) == len(pieces) and all(map(math.isfinite, values))):
            scores = dict(zip(pieces, map(float, values)))
            ids = dict(zip(pieces, range(len(pieces))))
    for i, item in enumerate(vocab_field.items() if not scores else ()):
        if not isinstance(item.value, list) or len(item.value) != 2:
            raise item.fail('is not a [piece, score] pair (["▁the", -3.2])')
        piece = item.index(0).as_str(nonempty=True)
        scores.setdefault(piece, item.index(1).as_number())
        ids.setdefault(piece, i)
    if not scores:
        raise vocab_field.fail("is empty; a Unigram model needs pieces")
    unk_field = field.key("unk_id", None)
    unk_id = None if unk_field.value is None else unk_field.as_int(low=0, high=len(vocab_field.value) - 1)
    byte_fallback = flag(field, "byte_fallback", False)
    table = PieceTable(scores)
    unk_score = min(scores.values()) - 10.0
    reverse = (dict(enumerate(pieces)) if scores and pieces
               else {i: vocab_field.value[i][0] for i in range(len(vocab_field.value))})

    def encode_word(word: str) -> list[tuple[int, str, int, int]]:
        out = []
        for start, end, known in merge_unknown(viterbi(word, table, unk_score)):
            text = word[start:end]
            found = ids.get(text)
            if found is not None:
                out.append((found, text, start, end))
                continue
            if byte_fallback:
                codes = [(ids.get(f"<0x{b:02X}>"), f"<0x{b:02X}>") for b in text.encode("utf-8")]
                if all(c is not None for c, _ in codes):
                    out.extend((c, name, start, end) for c, name in codes)  # type: ignore[misc]  # none is None
                    continue
            if unk_id is None:
                raise ValueError(
                    f"The Unigram model has no unk_id, so it cannot encode {text!r}. "
                    "Use a tokenizer.json whose model names an unknown token."
                )
            out.append((unk_id, text, start, end))
        return out

    def lattice(word: str):
        def id_of(i: int, j: int, known: bool) -> int:
            found = ids.get(word[i:j]) if known else None
            return found if found is not None else (unk_id if unk_id is not None else -1)

        return build_lattice(word, word, table, unk_score, id_of)

    return WordModel(cached(encode_word), ModelWork("Unigram", lattice=lattice)), reverse
