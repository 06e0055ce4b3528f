"""The best segmentation: `viterbi` over the pieces that match at each position of a
normalised text, with `PieceTable`, the scores and every prefix of every piece."""
from __future__ import annotations

import math
from array import array
from itertools import repeat
from collections.abc import Iterable, Iterator, Mapping

__all__ = ["PieceTable", "as_table", "viterbi", "viterbi_from", "merge_unknown"]


class PieceTable(Mapping):
    """A read-only mapping piece -> score that also knows every prefix of every piece,
    so a lattice can stop looking for longer matches as soon as none can exist.

    >>> t = PieceTable({"▁a": -1.0, "b": -2.0})
    >>> len(t), t["b"], t.max_length
    (2, -2.0, 2)
    """

    __slots__ = ("_scores", "_prefix_set", "max_length")

    def __init__(self, scores: Mapping[str, float], *, share: bool = False):
        """`share=True`: a dict of str -> float is kept as it is, not copied (the caller
        must not change it afterwards)."""
        if not isinstance(scores, Mapping):
            raise TypeError(f"scores must be a mapping piece -> score, not {type(scores).__name__}")
        pieces = list(scores)
        try:  # the common case in C-level passes (a model has tens of thousands of pieces)
            values = list(map(float, scores.values()))
            ok = set(map(type, pieces)) <= {str} and "" not in scores and all(map(math.isfinite, values))
        except (TypeError, ValueError):
            ok = False
        if ok and share and type(scores) is dict and set(map(type, scores.values())) <= {float}:
            clean = scores
        elif ok:
            clean = dict(zip(pieces, values))
        else:  # find the piece to name
            clean = {}
            for piece, score in scores.items():
                if not isinstance(piece, str) or not piece:
                    raise ValueError(f"Piece {piece!r} is not a non-empty str; remove it from the scores.")
                value = float(score)
                if not math.isfinite(value):
                    raise ValueError(f"Piece {piece!r} has score {score!r}; scores must be finite numbers.")
                clean[piece] = value
        self._scores = clean
        self.max_length = max(map(len, clean), default=0)
        self._prefix_set: set[str] | None = None  # built on first use: a model's load need not wait

    @property
    def _prefixes(self) -> set[str]:
        """Every prefix of every piece (a set; built once, on first use).

        >>> sorted(PieceTable({"▁ab": -1.0, "c": -2.0})._prefixes)
        ['c', '▁', '▁a', '▁ab']
        """
        prefixes = self._prefix_set
        if prefixes is None:
            # the pieces at least k long give their first k characters, for each k (C-level
            # maps; what {p[:k] for p for k} gives)
            by_length = sorted(self._scores, key=len, reverse=True)
            prefixes = set()
            count = len(by_length)
            for k in range(1, self.max_length + 1):
                while count and len(by_length[count - 1]) < k:
                    count -= 1
                prefixes.update(map(str.__getitem__, by_length[:count], repeat(slice(0, k))))
            self._prefix_set = prefixes
        return prefixes

    def __getitem__(self, piece: str) -> float:
        return self._scores[piece]

    def __iter__(self) -> Iterator[str]:
        return iter(self._scores)

    def __len__(self) -> int:
        return len(self._scores)


def as_table(scores: Mapping[str, float]) -> PieceTable:
    """The scores as a `PieceTable` (itself when it is one)."""
    return scores if isinstance(scores, PieceTable) else PieceTable(scores)


#: How far a float32 path score may grow before it is re-based (`viterbi`).
_REBASE = 1e5


def viterbi(
    normalized: str,
    scores: Mapping[str, float],
    unk_score: float,
    *,
    float32: bool = False,
) -> list[tuple[int, int, bool]]:
    """The best segmentation of an already normalised string, as (start, end, known) spans.

    `scores` maps each piece that may match to its score (log-probability); pass a
    `PieceTable` to reuse its prefix index across calls. A position where no
    one-character piece exists gets an unknown node of `unk_score` (one per character;
    `known` is False). Ties: for each end position the first candidate found wins, and
    candidates are found in order of their start, so the piece that starts earliest
    (the longest last piece) wins -- sentencepiece's optimised encoder does the same.
    With `float32=True` path scores are rounded to single precision after every
    addition, exactly as sentencepiece adds them, and re-based (the score where a piece
    starts subtracted from every score ahead) once past ±1e5, as sentencepiece 0.2.3
    does, so near-ties fall the same way.

    ▁a + b and ▁ + ab tie at -2.5; ab starts earlier than b, so ▁ + ab is kept:

    >>> viterbi("▁ab", {"▁": -1.0, "a": -1.0, "b": -1.0, "▁a": -1.5, "ab": -1.5}, -20.0)
    [(0, 1, True), (1, 3, True)]
    >>> viterbi("▁x", {"▁": -1.0}, -20.0)
    [(0, 1, True), (1, 2, False)]
    """
    return viterbi_from(normalized, scores, unk_score, float32=float32)[0]


def viterbi_from(
    normalized: str,
    scores: Mapping[str, float],
    unk_score: float,
    *,
    float32: bool = False,
    base: float = 0.0,
) -> tuple[list[tuple[int, int, bool]], float]:
    """`viterbi` on a stretch of text whose start already has the path score `base`
    (0 for a whole text): its spans and the path score at its end. A text cut where no
    piece can cross gives, stretch by stretch, what `viterbi` gives on the whole.

    >>> viterbi_from("ab", {"a": -1.0, "b": -1.0, "ab": -1.5}, -20.0, base=-3.0)
    ([(0, 2, True)], -4.5)
    """
    table = as_table(scores)
    n = len(normalized)
    best = [base] + [-math.inf] * n    # -inf: nothing ends here yet, so the first candidate wins
    start_at = [0] * (n + 1)
    known_at = [True] * (n + 1)
    get, prefixes, longest = table._scores.get, table._prefixes, table.max_length
    box = array("f", [0.0]) if float32 else None
    for i in range(n):
        base = best[i]
        if box is not None and (base > _REBASE or base < -_REBASE):
            # sentencepiece 0.2.3 re-bases path scores past ±1e5 (float32 would lose the
            # digits that decide near-ties): every score from here on, minus this one
            for k in range(i, min(n, i + longest) + 1):
                if best[k] != -math.inf:
                    box[0] = best[k] - base
                    best[k] = box[0]
            base = best[i]
        # the one-character candidate, or an unknown node in its place
        score = get(normalized[i])
        cand = base + (unk_score if score is None else score)
        if box is not None:
            box[0] = cand
            cand = box[0]
        if cand > best[i + 1]:
            best[i + 1], start_at[i + 1], known_at[i + 1] = cand, i, score is not None
        if normalized[i] not in prefixes:
            continue
        for j in range(i + 2, min(n, i + longest) + 1):
            piece = normalized[i:j]
            if piece not in prefixes:
                break
            score = get(piece)
            if score is None:
                continue
            cand = base + score
            if box is not None:
                box[0] = cand
                cand = box[0]
            if cand > best[j]:
                best[j], start_at[j], known_at[j] = cand, i, True
    spans: list[tuple[int, int, bool]] = []
    end = n
    while end > 0:
        spans.append((start_at[end], end, known_at[end]))
        end = start_at[end]
    spans.reverse()
    return spans, best[n]


def merge_unknown(spans: Iterable[tuple[int, int, bool]]) -> list[tuple[int, int, bool]]:
    """Join each run of adjacent unknown spans into one (sentencepiece emits one <unk>).

    >>> merge_unknown([(0, 1, True), (1, 2, False), (2, 3, False), (3, 4, True)])
    [(0, 1, True), (1, 3, False), (3, 4, True)]
    """
    out: list[tuple[int, int, bool]] = []
    for start, end, known in spans:
        if not known and out and not out[-1][2] and out[-1][1] == start:
            out[-1] = (out[-1][0], end, False)
        else:
            out.append((start, end, known))
    return out
