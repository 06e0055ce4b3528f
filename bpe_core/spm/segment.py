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

Unigram's speed: the text is cut where no piece can cross (before each `▁` when no piece
holds a `▁` past its first character; before each run of `▁` when the only such pieces
are runs of `▁`), and each stretch's best path is worked out once, in exact arithmetic,
with the smallest margin by which a best candidate beat the next anywhere in it. The
float32 sums can only change a decision where a margin is within their rounding, which
at the stretch's score is at most half a float32 step per addition; so a stretch whose
margin is wider than twice that bound (and whose scores stay clear of the ±1e5
re-basing) takes its cached path, and only its float32 end score is summed; any other
stretch runs the float32 Viterbi itself from the score where it starts. The ids are
the same as over the whole text at once (`tests/test_sentencepiece.py`).

Both return the pieces as strings; ids are looked up by the caller. Left out: sampling
(subword regularization) and n-best.
"""
from __future__ import annotations

import heapq
import math
import re
from array import array
from bisect import bisect_left
from itertools import chain, repeat
from operator import itemgetter, sub
from typing import Callable, Mapping, Sequence

from ..algorithms.unigram import SPACE, PieceTable, viterbi_from

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


#: A Unigram model keeps this many stretches' paths (then starts over).
_STRETCH_CACHE = 100_000
#: ... and the candidates of this many stretches the float32 Viterbi ran on.
_CANDIDATES_CACHE = 5_000
_REBASE = 1e5  # sentencepiece 0.2.3 re-bases float32 path scores past this (algorithms.unigram)
#: Candidates of length up to this are looked up at every position; a longer one only
#: where a piece at least that long starts with the position's first characters.
_SHORT = 3


class UnigramLattice:
    """The pieces and scores a Unigram model's Viterbi needs, prepared once per model.

    `normal` are (piece, score) of normal pieces, `user_defined` the user-defined
    pieces; unused pieces never match. `to_ids`, if given, turns one stretch's pieces
    into ids (for `ids`): a tokenizer's lookup, unknown pieces included. With
    `own=True`, `normal` (a dict) becomes the lattice's own table, not a copy.
    """

    def __init__(self, normal: Mapping[str, float], user_defined: tuple[str, ...],
                 to_ids: Callable[[Sequence[str]], tuple[int, ...]] | None = None, *, own: bool = False):
        scores = list(normal.values())
        self.min_score = min(scores, default=FLT_MAX)
        self.max_score = max([FLT_MIN, *scores])
        self.unk_score = _f32(self.min_score - _UNK_PENALTY)
        # `own`: `normal` is a dict the caller gives up, kept rather than copied
        self.score_of: dict[str, float] = normal if own and type(normal) is dict else dict(normal)
        for piece in user_defined:  # sentencepiece 0.2.3's bonus: 0.1 per UTF-8 byte past the first
            self.score_of[piece] = _f32(0.1 * (len(piece.encode("utf-8")) - 1))
        self.table = PieceTable(self.score_of, share=True)
        self.to_ids = to_ids
        # where no piece can cross: before each ▁, or before each run of ▁ (see the module)
        inner = [p for p in self.score_of if SPACE in p[1:]]
        if not inner:
            self._stretch: re.Pattern | None = re.compile(f"[^{SPACE}]+|{SPACE}[^{SPACE}]*")
        elif all(set(p) == {SPACE} for p in inner):
            self._stretch = re.compile(f"[^{SPACE}]+|{SPACE}+[^{SPACE}]*")
        else:
            self._stretch = None
        #: the largest score magnitude one character can add
        self._step = max([abs(self.unk_score), *map(abs, self.score_of.values())])
        self._cache: dict[str, tuple[float, tuple[float, ...], tuple[str, ...], tuple[int, ...] | None, str]] = {}
        self._binade_cache: dict[tuple[str, int, int, bool], tuple[tuple[str, ...], tuple[int, ...] | None, float]] = {}
        #: the candidates of stretches the float32 Viterbi ran on (`_viterbi32`)
        self._candidates_of: dict[str, list[tuple[int, int, float]]] = {}
        #: built on first use (`_reaches`)
        self._reach1: dict[str, int] = {}
        self._reach: dict[str, int] = {}

    def best_path(self, text: str) -> list[tuple[str, bool]]:
        """The best segmentation of `text`: (piece, is_unknown) from left to right.

        >>> lat = UnigramLattice({"a": -1.0, "b": -1.0, "ab": -1.5}, ())
        >>> lat.best_path("abc")
        [('ab', False), ('c', True)]
        """
        get = self.score_of.get
        return [(p, len(p) == 1 and get(p) is None) for p in self.pieces(text)]

    def pieces(self, text: str) -> list[str]:
        """The pieces of the best segmentation of `text` (an unknown character as itself).

        >>> UnigramLattice({"▁a": -1.0, "▁": -2.0, "b": -1.0, "▁ab": -1.5}, ()).pieces("▁ab▁b")
        ['▁ab', '▁', 'b']
        """
        if self._stretch is None:
            spans, _ = viterbi_from(text, self.table, self.unk_score, float32=True)
            return [text[start:end] for start, end, _ in spans]
        return list(chain.from_iterable(map(itemgetter(2), self._entries(text))))

    def ids(self, text: str) -> list[int]:
        """The ids of the best segmentation of `text`, by `to_ids` stretch by stretch.

        >>> lat = UnigramLattice({"▁a": -1.0, "▁": -2.0, "b": -1.0, "▁ab": -1.5}, (),
        ...                      lambda pieces: tuple(len(p) for p in pieces))
        >>> lat.ids("▁ab▁b")
        [3, 1, 1]
        """
        if self.to_ids is None:
            raise ValueError("This lattice was made without to_ids; use pieces().")
        if self._stretch is None:
            return list(self.to_ids(self.pieces(text)))
        return list(chain.from_iterable(map(itemgetter(3), self._entries(text))))

    def _entries(self, text: str) -> list[tuple]:
        """Each stretch's entry (bound, scores, pieces, ids, stretch), or in its place
        (None, None, pieces, ids) by the float32 Viterbi where the cached path may not hold."""
        if self._stretch is None:  # ids() takes the stretch path only when there is one
            raise ValueError("This lattice has no stretch pattern: use pieces() and to_ids().")
        stretches = self._stretch.findall(text)
        cache = self._cache
        new = [s for s in dict.fromkeys(stretches) if s not in cache]
        if new:
            if len(cache) + len(new) > _STRETCH_CACHE:
                cache.clear()
                new = list(dict.fromkeys(stretches))
            cache.update(zip(new, self._exact(new)))
        entries: list[tuple] = list(map(cache.__getitem__, stretches))
        base = 0.0
        box = array("f", [0.0])
        for k, entry in enumerate(entries):
            bound = entry[0]
            if -bound < base < bound:
                for score in entry[1]:  # the float32 sums along the path, as the library adds them
                    box[0] = base + score
                    base = box[0]
            else:
                pieces, ids, base = self._float32(entry[4], base)
                entries[k] = (None, None, pieces, ids)
        return entries

    def _float32(self, stretch: str, base: float) -> tuple[Sequence[str], tuple[int, ...] | None, float]:
        """A stretch's pieces (and ids) by the float32 Viterbi from the path score `base`,
        and the score at its end. While every sum stays in the binade of `base` (the
        magnitudes between the same two powers of two), each float32 sum is `base` plus a
        multiple of the binade's step that depends only on the step and, through ties to
        even, on the parity of `base` in steps: so the result is kept under those and
        reused."""
        mantissa, exponent = math.frexp(abs(base))
        step = math.ldexp(1.0, exponent - 24)  # the float32 step of this binade
        reach = len(stretch) * (self._step + step)
        low, high = math.ldexp(0.5, exponent), math.ldexp(1.0, exponent)
        if base == 0.0 or abs(base) - reach < low or abs(base) + reach > high - step or abs(base) + reach > _REBASE:
            pieces, end = self._viterbi32(stretch, base)
            return pieces, self.to_ids(pieces) if self.to_ids else None, end
        key = (stretch, exponent, int(abs(base) / step) & 1, base < 0)
        hit = self._binade_cache.get(key)
        if hit is None:
            if len(self._binade_cache) >= _STRETCH_CACHE:
                self._binade_cache.clear()
            pieces, end = self._viterbi32(stretch, base)
            hit = self._binade_cache[key] = (pieces, self.to_ids(pieces) if self.to_ids else None, end - base)
        return hit[0], hit[1], base + hit[2]  # exact: both are multiples of the step below 2**exponent

    def _viterbi32(self, stretch: str, base: float) -> tuple[tuple[str, ...], float]:
        """`viterbi_from(stretch, self.table, self.unk_score, float32=True, base=base)`:
        its pieces and end score, over the stretch's candidates (`_candidates`)."""
        n = len(stretch)
        best = [base] + [-math.inf] * n
        start_at = [0] * (n + 1)
        box = array("f", [0.0])
        at = -1
        longest = self.table.max_length
        candidates = self._candidates_of.get(stretch)
        if candidates is None:
            if len(self._candidates_of) >= _CANDIDATES_CACHE:
                self._candidates_of.clear()
            candidates = self._candidates_of[stretch] = self._candidates(stretch)
        for i, k, score in candidates:
            if i != at:
                at, base = i, best[i]
                if base > _REBASE or base < -_REBASE:
                    # re-based as sentencepiece 0.2.3 does (`viterbi_from`)
                    for j in range(i, min(n, i + longest) + 1):
                        if best[j] != -math.inf:
                            box[0] = best[j] - base
                            best[j] = box[0]
                    base = best[i]
            box[0] = base + score
            cand = box[0]
            if cand > best[k]:
                best[k] = cand
                start_at[k] = i
        return _path(stretch, 0, n, start_at), best[n]

    def _reaches(self) -> tuple[dict[str, int], dict[str, int]]:
        """For each first character of a piece, and each first `_SHORT` characters of a
        longer one, the length of the longest piece that starts so (built on first use):
        how far a lattice must look from a position."""
        if not self._reach1:
            by_length = sorted(self.score_of, key=len)  # ascending: the longest stays for each key
            lengths = list(map(len, by_length))
            self._reach1 = dict(zip(map(itemgetter(0), by_length), lengths))
            first = bisect_left(lengths, _SHORT + 1)
            self._reach = dict(zip(map(str.__getitem__, by_length[first:], repeat(slice(0, _SHORT))),
                                   lengths[first:]))
        return self._reach1, self._reach

    def _candidates(self, stretch: str) -> list[tuple[int, int, float]]:
        """Every candidate in a stretch as (start, end, score), by start then end (the
        order `viterbi_from` tries them): each piece that matches, and an unknown node
        where no one-character piece does."""
        get = self.score_of.get
        reach1, reach = self._reaches()
        n = len(stretch)
        unk = self.unk_score
        out = []
        for i in range(n):
            char = stretch[i]
            score = get(char)
            out.append((i, i + 1, unk if score is None else score))
            far = reach1.get(char, 0)
            if far > _SHORT:
                far = max(_SHORT, reach.get(stretch[i : i + _SHORT], 0))
            for k in range(i + 2, (n if n < i + far else i + far) + 1):
                score = get(stretch[i:k])
                if score is not None:
                    out.append((i, k, score))
        return out

    def _exact(self, stretches: list[str]) -> list[tuple[float, tuple[float, ...], tuple[str, ...], tuple[int, ...] | None, str]]:
        """Each stretch's entry: the bound on the magnitude of the starting score below
        which float32 sums make every decision in the stretch as exact sums do, and its
        best path in exact arithmetic (its pieces' scores, the pieces, their ids).

        Each float32 addition moves a sum by at most half a float32 step at the largest
        magnitude reached (h); a candidate ending at k is at most (d + 1) additions from
        the start, d the most pieces on a best path ending anywhere in the stretch. So
        where the best candidate beats every other by more than 2 (d + 1) h, float32
        picks it too.
        """
        get = self.score_of.get
        reach1, reach = self._reaches()
        unk, step, to_ids = self.unk_score, self._step, self.to_ids
        none = -math.inf
        out = []
        for stretch in stretches:
            n = len(stretch)
            best = [0.0] + [none] * n
            second = [none] * (n + 1)
            start_at = [0] * (n + 1)
            score_at = [0.0] * (n + 1)
            depth = [0] * (n + 1)
            for i in range(n):
                base = best[i]
                deeper = depth[i] + 1
                char = stretch[i]
                score = get(char)
                if score is None:
                    score = unk
                k = i + 1
                cand = base + score
                if cand > best[k]:
                    second[k], best[k], start_at[k], score_at[k], depth[k] = best[k], cand, i, score, deeper
                elif cand > second[k]:
                    second[k] = cand
                far = reach1.get(char, 0)
                if far > _SHORT:
                    far = max(_SHORT, reach.get(stretch[i : i + _SHORT], 0))
                for k in range(i + 2, (n if n < i + far else i + far) + 1):
                    score = get(stretch[i:k])
                    if score is None:
                        continue
                    cand = base + score
                    if cand > best[k]:
                        second[k], best[k], start_at[k], score_at[k], depth[k] = best[k], cand, i, score, deeper
                    elif cand > second[k]:
                        second[k] = cand
            gap = min(map(sub, best, second))
            allowed = gap / (2 * max(depth) + 2)
            if allowed == math.inf:
                bound = _REBASE
            elif allowed <= 0:
                bound = 0.0
            else:
                # half a float32 step at a magnitude below 2**E is at most 2**(E - 25)
                bound = min(_REBASE, math.ldexp(1.0, math.frexp(allowed)[1] + 23))
            pieces = _path(stretch, 0, n, start_at)
            steps = []
            k = n
            while k > 0:
                steps.append(score_at[k])
                k = start_at[k]
            steps.reverse()
            out.append((bound * 0.999 - n * step, tuple(steps), pieces,
                        to_ids(pieces) if to_ids else None, stretch))
        return out


def _path(text: str, start: int, end: int, start_at: list[int]) -> tuple[str, ...]:
    """The pieces of the best path from `start` to `end` that `start_at` (each
    position's best start) gives."""
    pieces = []
    while end > start:
        begin = start_at[end]
        pieces.append(text[begin:end])
        end = begin
    pieces.reverse()
    return tuple(pieces)
