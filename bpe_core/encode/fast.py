"""Fast paths of the merge loop: the same result as `merge_lowest` (merge_loop.py), faster.

Each is the reference loop specialised for one kind of tokenizer, or a shortcut that is
provably equal to it, and each is checked against the reference in tests
(tests/test_tokenizer_fastpath.py, tests/test_encode_loops.py):

- `_bpe_heap`: the loop in O(n log n) for long pieces (a linked list and a heap);
- `_bpe_ranks`: tiktoken-style rank tables on bytes (a whole piece that is a token is
  one token, as tiktoken does: equal because such a token's own bytes merge into it);
- `_bpe_merges`: a merge list on token ids, with its tables bound;
- `_bpe_bytes` (with `_byte_tables`, `_whole_edges`, `_merged_across`): a byte-level merge
  list run on bytes, returning None whenever the shortcut could differ.

`_bpe_ranks` and `_bpe_bytes` share one loop on bytes, `_merge_bytes`.
"""
from __future__ import annotations

import heapq
from itertools import repeat
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from .tokenizer import Tokenizer

_NO_RANK = float("inf")

#: Pieces longer than this (in symbols) use the heap-based loop: the simple loop rescans
#: every pair after each merge, which is quadratic (a 20 kB text with no pre-tokenizer).
_LONG_PIECE = 256


def _bpe_heap(parts: list, rank_of: Callable, join: Callable) -> list:
    """The same merges as the simple loop (lowest rank first, leftmost on equal rank) in
    O(n log n): a linked list of symbols and a heap of (rank, position) with stale
    entries skipped when popped."""
    n = len(parts)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    alive = [True] * n
    heap = []
    for i in range(n - 1):
        r = rank_of(parts[i], parts[i + 1])
        if r is not None:
            heap.append((r, i, i + 1))
    heapq.heapify(heap)
    while heap:
        r, i, j = heapq.heappop(heap)
        if not alive[i] or nxt[i] != j or j >= n or rank_of(parts[i], parts[j]) != r:
            continue  # stale: one side was merged away or changed since this was pushed
        parts[i] = join(parts[i], parts[j])
        alive[j] = False
        k = nxt[i] = nxt[j]
        if k < n:
            prv[k] = i
            rk = rank_of(parts[i], parts[k])
            if rk is not None:
                heapq.heappush(heap, (rk, i, k))
        p = prv[i]
        if p >= 0:
            rp = rank_of(parts[p], parts[i])
            if rp is not None:
                heapq.heappush(heap, (rp, p, i))
    return [parts[i] for i in range(n) if alive[i]]


def _bpe_ranks(data: bytes, ranks: dict[bytes, int]) -> tuple[int, ...]:
    """tiktoken's rule, without replay bookkeeping: a whole piece that is a token is one
    token; otherwise merge the adjacent pair whose joined bytes have the lowest rank."""
    whole = ranks.get(data)
    if whole is not None:
        return (whole,)
    if len(data) > _LONG_PIECE:
        parts = [data[i : i + 1] for i in range(len(data))]
        joined = _bpe_heap(parts, lambda x, y: ranks.get(x + y), bytes.__add__)
        return tuple(ranks[p] for p in joined)
    pieces = _merge_bytes(data, ranks.get, split_checked=False)
    assert pieces is not None  # only a split check returns None
    return tuple(map(ranks.__getitem__, pieces))


def _byte_tables(tok: Tokenizer) -> tuple[dict[bytes, int], dict[bytes, int], dict | None] | None:
    """For a byte-level merge list, (key, id, origin), or None.

    For the bytes T of a merged token, key[T] = rank << 32 | split: rank is the rank of
    the first merge that makes T, split the length of that merge's left token. id maps
    every token's bytes to its id. With these, merge-list BPE can run on bytes like
    tiktoken (`_bpe_bytes`): a pair of adjacent symbols whose joined bytes are T is ranked
    by key[T] (the same order as by rank). That is the merge list's rank exactly when the
    pair is T's first merge, which `_bpe_bytes` checks (by the split) for every pair it
    merges. Needs byte units without end-of-word symbols, every byte among the base
    symbols, and no two tokens with the same bytes.

    origin maps each merged token's id to (left id, right id, rank) of the merge that
    makes it, for `_whole_edges`; it is None unless every token is made by one merge
    only, and every merge comes after the merges that make its two tokens (true of a
    trained merge list).
    """
    if tok.units != "byte" or tok.end_of_word != "none" or tok.merges is None:
        return None
    ids: dict[bytes, int] = {}
    for i, (body, eow) in tok.tokens.items():
        if eow or not isinstance(body, bytes) or body in ids:
            return None
        ids[body] = i
    base = tok._base_ids
    if any(base.get((bytes((b,)), False)) != ids.get(bytes((b,))) or bytes((b,)) not in ids for b in range(256)):
        return None
    bodies = tok._bytes
    if len({r for r, _ in tok.merges.values()}) != len(tok.merges):
        return None  # two pairs share a rank (not from `from_merges`)
    key: dict[bytes, int] = {}
    origin: dict[int, tuple[int, int, int]] | None = {}
    made = {ids[bytes((b,))]: 0 for b in range(256)}  # token id -> rank of the merge making it
    for (a, b), (r, new) in sorted(tok.merges.items(), key=lambda item: item[1][0]):
        left = bodies[a]
        joined = left + bodies[b]
        if bodies[new] != joined or len(left) >= _SPLIT_MASK or not 0 < r < _NO_PAIR >> 32:
            return None  # a merge whose token is not its pair's bytes joined (or huge)
        if joined not in key:
            key[joined] = r << 32 | len(left)
        if origin is not None:
            if new in made or made.get(a, r) >= r or made.get(b, r) >= r:
                origin = None  # a token made twice, or a merge before its tokens exist
            else:
                made[new] = r
                origin[new] = (a, b, r)
    return key, ids, origin


def _whole_edges(t: int, origin: dict, pair_rank: dict, memo: dict) -> tuple | None:
    """Whether merge-list BPE on token t's own bytes ends in t itself; if so, the edges of
    that run, else None. Memoised in `memo`; needs `origin` from `_byte_tables`.

    The edges are two tuples of (token id, rank from which it is there): the run's last
    symbol over time (its right edge) and its first symbol (left edge). A base byte is its
    own run, at rank 0. For t made by merging a and b at rank r: with merges ordered after
    the merges that make their tokens, merges happen in increasing rank, and the run on
    t's bytes is the runs on a's and on b's side by side, until a merge joins a symbol of
    a's side and one of b's: the pair across the gap. While a's right edge s (there from
    rank s0 until rank s1, or r for a itself) and b's left edge u (u0 to u1) face each
    other, the pair (s, u) has a rank q above both starts; it is merged if q comes before
    s1 (when s is merged into something else) and not after u1 (on a tie with u's merge
    the pair across, being further left, goes first). If no facing pair is merged, both
    sides finish as a and b (the runs on their own bytes end in them), and the merge at
    rank r makes t. The right edge of t's run is then b's followed by t, the left edge
    a's followed by t.
    """
    a, b, r = origin.get(t, (None, None, None))
    if a is None:
        memo[t] = None  # a token that no merge makes (a base byte is in memo already)
        return None
    ea = memo[a] if a in memo else _whole_edges(a, origin, pair_rank, memo)
    eb = memo[b] if b in memo else _whole_edges(b, origin, pair_rank, memo)
    if ea is None or eb is None:
        memo[t] = None
        return None
    if _merged_across(ea[0], eb[1], r, pair_rank):
        memo[t] = None  # a pair across the gap is merged first: t is not made
        return None
    out = memo[t] = (eb[0] + ((t, r),), ea[1] + ((t, r),))
    return out


def _merged_across(right: tuple, left: tuple, until: int, pair_rank: dict) -> bool:
    """Whether, in the runs of two tokens side by side, a pair across the gap is merged
    before rank `until`: `right` is the left token's right edges, `left` the right
    token's left edges (see `_whole_edges`); both last edges stay until `until`."""
    i = j = 0
    last_i, last_j = len(right) - 1, len(left) - 1
    get = pair_rank.get
    while True:
        s1 = right[i + 1][1] if i < last_i else until
        u1 = left[j + 1][1] if j < last_j else until
        q = get((right[i][0], left[j][0]))
        if q is not None and q < s1 and q <= u1:
            return True
        if i == last_i and j == last_j:
            return False
        if s1 <= u1 and i < last_i:
            i += 1
        if u1 <= s1 and j < last_j:
            j += 1


#: Pieces up to this many bytes that are not a token try two tokens side by side first.
_SPLIT_PIECE = 32
_SPLIT_MASK = (1 << 32) - 1
#: "no such pair" in the byte loops: above every rank (an int, so `min` compares ints only).
_NO_PAIR = 1 << 62
_BYTE = tuple(bytes((i,)) for i in range(256))


def _bpe_bytes(data: bytes, key: dict[bytes, int], ids: dict[bytes, int]) -> tuple[int, ...] | None:
    """Merge-list BPE for a byte-level vocabulary, run on bytes (see `_byte_tables`).

    Returns None when it meets a pair whose bytes join into a token but that is not that
    token's first merge (a merge list can make the same bytes from two pairs, or list a
    token whose bytes two other tokens also join into): the caller then uses the id-pair
    loop. Otherwise the result is exactly `_bpe_merges`': every merged pair is its
    token's first merge, so it has the merge list's rank, and every other pair's
    rank here is at most its merge-list rank, so the lowest (leftmost) pair is the same.
    """
    n = len(data)
    if n < 2:
        return (ids[data],) if n else ()
    if n > _LONG_PIECE:
        return None
    parts = _merge_bytes(data, key.get, split_checked=True)
    return None if parts is None else tuple(map(ids.__getitem__, parts))


def _merge_bytes(data: bytes, get: Callable, *, split_checked: bool) -> list[bytes] | None:
    """The byte loop of `_bpe_ranks` and `_bpe_bytes`: from single bytes, merge the
    adjacent pair whose joined bytes have the lowest key (`get(joined, _NO_PAIR)`),
    leftmost on equal keys, until no pair has one; returns the pieces' bytes.

    `split_checked`: the keys are `_byte_tables`' (rank << 32 | length of the left
    token), and a merge whose left side is not that long is not the token's first merge:
    return None (the caller falls back to the id-pair loop). Otherwise never None.

    b"aab" with keys {b"aa": 1, b"ab": 0} -> [b"a", b"ab"].
    """
    parts = list(map(_BYTE.__getitem__, data))
    inf = _NO_PAIR
    pair_ranks = list(map(get, map(bytes.__add__, parts, parts[1:]), repeat(inf)))
    while pair_ranks:  # empty for a piece of fewer than two bytes
        best = min(pair_ranks)
        if best == inf:
            break
        i = pair_ranks.index(best)
        left = parts[i]
        if split_checked and len(left) != best & _SPLIT_MASK:
            return None
        merged = left + parts[i + 1]
        parts[i : i + 2] = (merged,)
        del pair_ranks[i]  # now empty only if i == 0: neither update below runs
        if i:
            pair_ranks[i - 1] = get(parts[i - 1] + merged, inf)
        if i < len(pair_ranks):
            pair_ranks[i] = get(merged + parts[i + 1], inf)
    return parts


def _bpe_merges(parts: list, pair_rank: dict, pair_new: dict, applied: list[int] | None = None) -> tuple:
    """Merge-list BPE on token ids (None for an unknown symbol): merge the adjacent
    pair with the lowest rank, leftmost first, until no adjacent pair is a merge.
    `applied`: a list to which the rank of each merge applied is added, in order
    (bpe_core.train.counts reads a text's count at every step off them)."""
    if len(parts) > _LONG_PIECE:
        if applied is None:
            join = lambda x, y: pair_new[(x, y)]  # noqa: E731
        else:
            def join(x, y):
                applied.append(pair_rank[(x, y)])
                return pair_new[(x, y)]
        return tuple(_bpe_heap(parts, lambda x, y: pair_rank.get((x, y)), join))
    get = pair_rank.get
    inf = _NO_RANK
    pair_ranks = [get((x, y), inf) for x, y in zip(parts, parts[1:])]
    while pair_ranks:
        best = min(pair_ranks)
        if best == inf:
            break
        if applied is not None:
            applied.append(best)
        i = pair_ranks.index(best)
        merged = pair_new[(parts[i], parts[i + 1])]
        parts[i : i + 2] = [merged]
        del pair_ranks[i]
        if i > 0:
            pair_ranks[i - 1] = get((parts[i - 1], merged), inf)
        if i < len(pair_ranks):
            pair_ranks[i] = get((merged, parts[i + 1]), inf)
    return tuple(parts)


