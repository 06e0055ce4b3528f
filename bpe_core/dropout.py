"""BPE-dropout (Provilkov et al., 2020): a BPE tokenizer that sometimes skips a merge.

Encoding a piece normally repeats "merge the adjacent pair with the lowest rank". With
dropout, at every step each adjacent pair is dropped with probability p before the
lowest-ranked pair is chosen, so the same word comes out in different segmentations
from draw to draw, and a model trained on such draws sees a word's smaller parts too.
The step follows subword-nmt's `apply_bpe --dropout` exactly (the tests check it draw
for draw with the same seed): one `random()` per adjacent pair, left to right, a pair
kept when the draw is above p; the lowest-ranked kept pair (leftmost on equal rank) is
merged at every kept position where it occurs, without overlaps; the piece is finished
when no pair is kept. So p = 0 is ordinary encoding and p = 1 leaves the base symbols.

Works with any `Tokenizer`: a trained merge list (a pair's rank is its place in the
list) or an OpenAI rank table (a pair's rank is that of the token its bytes join into;
tiktoken's shortcut, a piece that is itself a token is that token, is not used here, so
dropout can reach inside every piece). Left out: special tokens (text is ordinary text)
and SentencePiece models (sentencepiece has its own sampling).
"""
from __future__ import annotations

import random
from typing import Callable

from .encode.tokenizer import Tokenizer

__all__ = ["dropout_piece", "dropout_encode", "sample_segmentations"]


def _check_p(p: float) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"p must be a number from 0 to 1, not {p!r}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p = {p!r} is not a probability; give a number from 0 (no dropout) to 1 (no merges).")
    return float(p)


def _rules(tok: Tokenizer, piece: str) -> tuple[list, Callable, Callable]:
    """The piece's base symbols, how to rank a pair (None if it is no merge), how to
    turn a symbol into its id."""
    if tok.ranks is not None:
        ranks = tok.ranks
        data = piece.encode("utf-8")
        return [data[i : i + 1] for i in range(len(data))], lambda x, y: ranks.get(x + y), ranks.__getitem__
    merges = tok.merges
    assert merges is not None  # a tokenizer has a rank table or a merge list

    def rank_of(x, y):
        m = merges.get((x, y))
        return None if m is None else m[0]

    return list(tok.replay(piece).base), rank_of, lambda x: x


def _join(tok: Tokenizer, x, y):
    if tok.ranks is not None:
        return x + y
    assert tok.merges is not None
    return tok.merges[(x, y)][1]


def dropout_piece(tok: Tokenizer, piece: str, *, p: float, rng: random.Random) -> list[int | None]:
    """One pre-tokenized piece encoded with dropout p, drawing from `rng`.

    None stands for a character a character-level vocabulary has never seen.
    """
    p = _check_p(p)
    parts, rank_of, to_id = _rules(tok, piece)
    while len(parts) > 1:
        kept = []  # (rank, position) of each kept pair that is a merge
        for i in range(len(parts) - 1):
            if p and not rng.random() > p:
                continue  # dropped (the draw comes first, for every pair, as in subword-nmt)
            if parts[i] is not None and parts[i + 1] is not None:
                rank = rank_of(parts[i], parts[i + 1])
                if rank is not None:
                    kept.append((rank, i))
        if not kept:
            break
        _, first = min(kept)
        pair = (parts[first], parts[first + 1])
        merged, out, i = _join(tok, *pair), [], 0
        for _, j in kept:
            if j >= i and (parts[j], parts[j + 1]) == pair:
                out.extend(parts[i:j])
                out.append(merged)
                i = j + 2
        parts = out + parts[i:]
    return [None if x is None else to_id(x) for x in parts]


def dropout_encode(tok: Tokenizer, text: str, *, p: float, seed: int | None = 0) -> list[int]:
    """Text to ids with BPE-dropout: pre-tokenize as `tok.encode` does, then encode
    each piece with `dropout_piece`. The same seed gives the same ids.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> tok = train(WordTable.from_word_counts("low 5\\nlower 2\\nnewest 6\\nwidest 3"),
    ...             TrainerSettings(merges=10, end_of_word="attached")).tokenizer(10)
    >>> dropout_encode(tok, "lowest", p=0.0) == tok.encode("lowest")
    True
    """
    p = _check_p(p)
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        tok.encode(text)  # raises encode's ValueError naming the unpaired surrogate
    rng = random.Random(seed)
    out: list[int] = []
    for piece, _ in tok.pieces(text):
        ids = dropout_piece(tok, piece, p=p, rng=rng)
        if None in ids:
            tok.encode(piece)  # raises the ValueError that names the unknown character
        out.extend(ids)  # type: ignore[arg-type]  # no id is None (checked above)
    return out


def sample_segmentations(
    tok: Tokenizer, word: str, *, p: float, samples: int = 5, seed: int | None = 0
) -> list[tuple[str, ...]]:
    """`samples` draws of one word's segmentation with dropout p, as token texts.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> tok = train(WordTable.from_word_counts("low 5\\nlower 2\\nnewest 6\\nwidest 3"),
    ...             TrainerSettings(merges=10, end_of_word="attached")).tokenizer(10)
    >>> sample_segmentations(tok, "newest", p=0.0, samples=1)
    [('newest</w>',)]
    >>> sample_segmentations(tok, "newest", p=1.0, samples=1)
    [('n', 'e', 'w', 'e', 's', 't</w>')]
    """
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 0:
        raise ValueError(f"samples = {samples!r}: give a whole number of draws, 0 or more.")
    if not isinstance(word, str):
        raise TypeError(f"word must be a str, not {type(word).__name__}")
    rng = random.Random(seed)
    draws = []
    for _ in range(samples):
        ids = dropout_piece(tok, word, p=p, rng=rng)
        draws.append(tuple("?" if i is None else tok.token_text(i) for i in ids))
    return draws
