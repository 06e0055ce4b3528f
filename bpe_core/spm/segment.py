"""Split normalized text into pieces, as SentencePiece's BPE and Unigram models do.

- BPE (`bpe_segment`): start from characters (a user-defined symbol is one frozen
  symbol); repeatedly join the adjacent pair whose concatenation is a piece with the
  highest score, the leftmost on equal scores; no merge list is needed, the scores
  order the merges. A result that is an *unused* piece is split back into the two
  symbols that made it.
- Unigram (`UnigramLattice`): Viterbi (bpe_core.algorithms.unigram.viterbi) over every
  piece that matches at every position,
  maximising the sum of scores; where no one-character piece starts, the character is
  an unknown node scored (lowest normal score - 10). User-defined pieces score
  0.1 x (length in UTF-8 bytes - 1), in float32, as sentencepiece 0.2.3 (the version the
  tests pin) scores them, so they win over normal pieces. Scores are
  summed and stored in 32-bit floats as the sentencepiece library's optimized encoder
  does (a path replaces the best one ending at a position only when strictly better,
  starts are tried left to right and pieces shortest first), so ties and near-ties
  resolve the same way: "___" is "_" + "__" when the two orders score the same in
  exact arithmetic, because float32 rounding is what decides it there.

Both return the pieces as strings; ids are looked up by the caller. Left out: sampling
(subword regularization) and n-best.
"""
from __future__ import annotations

import heapq
from array import array
from typing import Callable, Mapping

from ..algorithms.unigram import PieceTable, viterbi

__all__ = ["bpe_segment", "UnigramLattice", "FLT_MIN", "FLT_MAX"]

FLT_MIN = 1.1754943508222875e-38   # C's FLT_MIN: the smallest positive normal float
FLT_MAX = 3.4028234663852886e38
_UNK_PENALTY = 10.0


def _f32(x: float) -> float:
    """Round to the nearest 32-bit float.

    >>> _f32(0.1)
    0.10000000149011612
    """
    return array("f", (x,))[0]


def bpe_segment(
    symbols: list[str],
    frozen: list[bool],
    score_of: Mapping[str, float],
    unused: Callable[[str], bool],
    on_merge: Callable[[list[str], int], None] | None = None,
) -> list[str]:
    """SentencePiece BPE on one run of symbols. `on_merge(symbols, position)`, if given,
    is called after each merge with the symbols as they are then and the position of
    the new one (the replay on the Tokenize page).

    >>> bpe_segment(list("abc"), [False] * 3, {"ab": -2.0, "bc": -1.0}, lambda p: False)
    ['a', 'bc']
    >>> seen = []
    >>> bpe_segment(list("abcd"), [False] * 4, {"ab": -2.0, "cd": -1.0, "abcd": -3.0}, lambda p: False,
    ...             lambda symbols, at: seen.append((symbols, at)))
    ['abcd']
    >>> seen
    [(['a', 'b', 'cd'], 2), (['ab', 'cd'], 0), (['abcd'], 0)]
    """
    n = len(symbols)
    parts = list(symbols)
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    prv = list(range(-1, n - 1))
    heap: list[tuple[float, int, int, int]] = []
    undo: dict[str, tuple[str, str]] = {}

    def push(left: int, right: int) -> None:
        if left < 0 or right < 0 or frozen[left] or frozen[right]:
            return
        piece = parts[left] + parts[right]
        score = score_of.get(piece)
        if score is None:
            return
        heapq.heappush(heap, (-score, left, right, len(piece)))
        if unused(piece):
            undo[piece] = (parts[left], parts[right])

    for i in range(1, n):
        push(i - 1, i)
    while heap:
        _, left, right, size = heapq.heappop(heap)
        a, b = parts[left], parts[right]
        if not a or not b or len(a) + len(b) != size:
            continue  # stale: one side was merged away or grew since this was pushed
        parts[left] = a + b
        parts[right] = ""
        nxt[left] = nxt[right]
        if nxt[right] >= 0:
            prv[nxt[right]] = left
        push(prv[left], left)
        push(left, nxt[left])
        if on_merge is not None:
            live: list = []
            at, i = 0, 0
            while i != -1:
                if i == left:
                    at = len(live)
                live.append(parts[i])
                i = nxt[i]
            on_merge(live, at)
    out: list[str] = []
    i = 0
    while i != -1:
        _split_unused(parts[i], undo, unused, out)
        i = nxt[i]
    return out


def _split_unused(piece: str, undo: dict, unused: Callable[[str], bool], out: list[str]) -> None:
    stack = [piece]
    while stack:
        p = stack.pop()
        pair = undo.get(p) if unused(p) else None
        if pair is None:
            out.append(p)
        else:
            stack.append(pair[1])
            stack.append(pair[0])


class UnigramLattice:
    """The pieces and scores a Unigram model's Viterbi needs, prepared once per model.

    `normal` are (piece, score) of normal pieces, `user_defined` the user-defined
    pieces; unused pieces never match.
    """

    def __init__(self, normal: Mapping[str, float], user_defined: tuple[str, ...]):
        scores = list(normal.values())
        self.min_score = min(scores, default=FLT_MAX)
        self.max_score = max([FLT_MIN, *scores])
        self.unk_score = _f32(self.min_score - _UNK_PENALTY)
        self.score_of: dict[str, float] = dict(normal)
        for piece in user_defined:  # sentencepiece 0.2.3's bonus: 0.1 per UTF-8 byte past the first
            self.score_of[piece] = _f32(0.1 * (len(piece.encode("utf-8")) - 1))
        self.table = PieceTable(self.score_of)

    def best_path(self, text: str) -> list[tuple[str, bool]]:
        """The best segmentation of `text`: (piece, is_unknown) from left to right.

        >>> lat = UnigramLattice({"a": -1.0, "b": -1.0, "ab": -1.5}, ())
        >>> lat.best_path("abc")
        [('ab', False), ('c', True)]
        """
        spans = viterbi(text, self.table, self.unk_score, float32=True)
        return [(text[start:end], not known) for start, end, known in spans]
