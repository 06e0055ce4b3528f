"""The library's BPE model, and the packed merge table with its two merge loops."""
from __future__ import annotations

import heapq
from itertools import chain, repeat
from operator import lshift, or_

from ....encode.tokenizer import Replay, ReplayStep
from ...checks import Field
from ...pipeline import ModelWork
from ..common import flag
from .shared import WordModel, token_ids, cached, optional_str, id_to_token


def _bpe_merges(field: Field) -> list[tuple[str, str]] | list[list[str]]:
    """Merges as pairs of strings: ["a", "b"] items, or "a b" lines (older files)."""
    raw = field.as_list()
    kinds = set(map(type, raw))
    if kinds == {list}:  # the common cases checked in C-level passes
        if set(map(len, raw)) == {2} and set(map(type, chain.from_iterable(raw))) == {str}:
            return raw
    elif kinds == {str}:
        pairs = list(map(str.split, raw, repeat(" ")))
        if set(map(len, pairs)) == {2}:
            return pairs
    merges = []
    for item in field.items():
        if isinstance(item.value, str):
            parts = item.value.split(" ")
            if len(parts) != 2:
                raise item.fail("is not two tokens separated by one space")
            merges.append((parts[0], parts[1]))
        elif isinstance(item.value, list) and len(item.value) == 2:
            merges.append((item.index(0).as_str(), item.index(1).as_str()))
        else:
            raise item.fail('is not a pair of tokens (["a", "b"] or "a b")')
    return merges


def bpe_model(field: Field) -> tuple[WordModel, dict[int, str]]:
    """The library's BPE model: characters (with the prefix and suffix options) looked
    up in the vocabulary, unknown ones as bytes (byte_fallback) or the unk token, then
    merges applied lowest rank first, leftmost on a tie."""
    dropout = field.key("dropout", None)
    if dropout.value not in (None, 0, 0.0):
        raise dropout.fail("is set: BPE dropout picks merges at random, so ids would change from run to run. "
                           "Set it to null")
    vocab = token_ids(field.key("vocab"))
    prefix = optional_str(field, "continuing_subword_prefix")
    suffix = optional_str(field, "end_of_word_suffix")
    unk = optional_str(field, "unk_token")
    if unk is not None and unk not in vocab:
        raise field.key("unk_token").fail(f"is {unk!r}, which is not in the vocabulary")
    fuse_unk = flag(field, "fuse_unk", False)
    byte_fallback = flag(field, "byte_fallback", False)
    ignore_merges = flag(field, "ignore_merges", False)
    merges_field = field.key("merges")
    pairs = _bpe_merges(merges_field)
    merges: Merges = {} if prefix else _pack_plain(pairs, vocab)
    cut = len(prefix.encode("utf-8")) if prefix else 0
    for rank, (a, b) in enumerate(pairs if not merges else ()):
        joined_bytes = a.encode("utf-8") + b.encode("utf-8")[cut:]
        try:
            joined = joined_bytes.decode("utf-8")
        except UnicodeDecodeError:
            joined = None
        for token in (a, b, joined):
            if token is None or token not in vocab:
                raise merges_field.index(rank).fail(
                    f"makes or uses {token!r}, which is not in the vocabulary" if token else "cannot be joined into text"
                )
        merges[vocab[a] << 32 | vocab[b]] = rank << 32 | vocab[joined]  # type: ignore[index]  # a later duplicate wins, as in the library
    reverse = id_to_token(vocab)
    unk_id = vocab[unk] if unk is not None else None

    def symbols(word: str) -> tuple[list[int], list[tuple[int, int]]]:
        """The word's first symbols and the characters (start, end) each covers."""
        out: list[int] = []
        spans: list[tuple[int, int]] = []
        pending: tuple[int, int] | None = None  # an unknown stretch waiting to be written as unk
        last = len(word) - 1
        for i, ch in enumerate(word):
            sym = (prefix if prefix and i else "") + ch + (suffix if suffix and i == last else "")
            found = vocab.get(sym)
            if found is None and byte_fallback:
                codes = [vocab.get(f"<0x{b:02X}>") for b in sym.encode("utf-8")]
                if all(c is not None for c in codes):
                    found = codes  # type: ignore[assignment]
            if found is not None:
                if pending is not None:
                    out.append(unk_id)  # type: ignore[arg-type]
                    spans.append(pending)
                    pending = None
                codes = found if isinstance(found, list) else [found]
                out.extend(codes)  # type: ignore[arg-type]  # none is None (checked above)
                spans.extend([(i, i + 1)] * len(codes))
                continue
            if unk_id is not None:
                if pending is not None and not fuse_unk:
                    out.append(unk_id)
                    spans.append(pending)
                    pending = None
                pending = (pending[0], i + 1) if pending is not None else (i, i + 1)
        if pending is not None:
            out.append(unk_id)  # type: ignore[arg-type]
            spans.append(pending)
        return out, spans

    def encode_word(word: str) -> list[tuple[int, str, int, int]]:
        if ignore_merges and word in vocab:
            return [(vocab[word], word, 0, len(word))]
        ids, spans = symbols(word)
        kept = merge_symbol_positions(ids, merges)
        ends = [p for p, _ in kept[1:]] + [len(ids)]
        return [(i, reverse[i], spans[p][0], spans[end - 1][1]) for (p, i), end in zip(kept, ends)]

    def replay(word: str) -> Replay:
        if ignore_merges and word in vocab:
            return Replay(word, (vocab[word],), ())
        return replay_merges(word, symbols(word)[0], merges)

    note = ("ignore_merges is set: a word that is itself in the vocabulary is one token at once, "
            "with no merges." if ignore_merges else "")
    return WordModel(cached(encode_word), ModelWork("BPE", replay=replay, note=note)), reverse


def _pack_plain(pairs, vocab: dict[str, int]) -> Merges:
    """The packed merge table of merges with no subword prefix (the joined token is the
    two strings joined), built with C-level maps; {} when a token is missing from the
    vocabulary (the caller's loop then names the merge)."""
    if not pairs:
        return {}
    left, right = zip(*pairs)
    get = vocab.get
    a, b, new = list(map(get, left)), list(map(get, right)), list(map(get, map(str.__add__, left, right)))
    if None in a or None in b or None in new:
        return {}
    # (a << 32 | b) -> (rank << 32 | new); a later duplicate wins, as in the library
    return dict(zip(map(or_, map(lshift, a, repeat(32)), b),
                    map(or_, map(lshift, range(len(new)), repeat(32)), new)))


#: A BPE model's merge table, packed into ints to hold a large file's merges in a third
#: of the memory tuples take: (left << 32 | right) -> (rank << 32 | new token). See `pack`.
Merges = dict[int, int]
_LOW = (1 << 32) - 1


def pack(merges: dict[tuple[int, int], tuple[int, int]]) -> Merges:
    """A merge table {(left, right): (rank, new)} in the packed form the BPE model uses.

    >>> pack({(1, 2): (0, 3)}) == {1 << 32 | 2: 0 << 32 | 3}
    True
    """
    return {a << 32 | b: rank << 32 | new for (a, b), (rank, new) in merges.items()}


def replay_merges(piece: str, ids: list[int], merges: Merges) -> Replay:
    """Every merge that builds a word's tokens from its first symbols `ids`, in the order
    applied: the pair with the lowest rank, the leftmost on a tie (the reference loop;
    `merge_symbols` is the fast one and ends the same). Ranks count from 0, the first
    line of the file's merges.

    >>> r = replay_merges("aaa", [1, 1, 1], pack({(1, 1): (0, 2)}))
    >>> r.base, [(s.rank, s.position, s.symbols) for s in r.steps], r.ids
    ((1, 1, 1), [(0, 0, (2, 1))], (2, 1))
    """
    symbols = list(ids)
    steps: list[ReplayStep] = []
    while len(symbols) > 1:
        found = [(merges[a << 32 | b] >> 32, i) for i, (a, b) in enumerate(zip(symbols, symbols[1:]))
                 if a << 32 | b in merges]
        if not found:
            break
        rank, i = min(found)
        left, right = symbols[i], symbols[i + 1]
        symbols[i : i + 2] = [merges[left << 32 | right] & _LOW]
        steps.append(ReplayStep(rank, left, right, symbols[i], i, tuple(symbols)))
    return Replay(piece, tuple(ids), tuple(steps))


def merge_symbols(ids: list[int], merges: Merges) -> list[int]:
    """Apply merges to a word's symbols: the lowest rank first, the leftmost on a tie.

    A heap of (rank, position) with a linked list of symbols; an entry whose pair has
    changed since it was pushed is skipped when popped.

    >>> merge_symbols([1, 1, 1], pack({(1, 1): (0, 2)}))
    [2, 1]
    >>> merge_symbols([1, 2, 3], pack({(2, 3): (0, 4), (1, 4): (1, 5), (1, 2): (2, 6)}))
    [5]
    """
    return [token for _, token in merge_symbol_positions(ids, merges)]


def merge_symbol_positions(ids: list[int], merges: Merges) -> list[tuple[int, int]]:
    """`merge_symbols`, each result with the position of its first symbol in `ids`.

    >>> merge_symbol_positions([1, 1, 1], pack({(1, 1): (0, 2)}))
    [(0, 2), (2, 1)]
    """
    n = len(ids)
    if n < 2:
        return list(enumerate(ids))
    sym = list(ids)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    alive = [True] * n
    get = merges.get
    heap = [(found >> 32, i) for i in range(n - 1) if (found := get(sym[i] << 32 | sym[i + 1])) is not None]
    heapq.heapify(heap)
    while heap:
        rank, i = heapq.heappop(heap)
        j = nxt[i]
        if not alive[i] or j >= n:
            continue
        found = get(sym[i] << 32 | sym[j])
        if found is None or found >> 32 != rank:
            continue
        sym[i] = found & _LOW
        alive[j] = False
        nxt[i] = nxt[j]
        if nxt[i] < n:
            prv[nxt[i]] = i
            right = get(sym[i] << 32 | sym[nxt[i]])
            if right is not None:
                heapq.heappush(heap, (right >> 32, i))
        if prv[i] >= 0:
            left = get(sym[prv[i]] << 32 | sym[i])
            if left is not None:
                heapq.heappush(heap, (left >> 32, prv[i]))
    return [(i, sym[i]) for i in range(n) if alive[i]]
