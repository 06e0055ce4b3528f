"""The merge loop every BPE encoder here runs: the one that replay teaches.

Given a word's symbols and a rank for each adjacent pair that is a merge, merge the
adjacent pair with the lowest rank (the leftmost one when two ranks are equal), and
repeat until no adjacent pair is a merge. A trained tokenizer ranks a pair by its place
in the merge list; a tiktoken-style rank table ranks a pair by the rank of the token its
bytes join into. Replaying the first k merges of a training run this way reaches the
segmentation training did (tests/test_engine_properties.py).

`merge_lowest` is the reference, written to be read (and traced: `on_merge` sees every
step). The encoders' fast paths (encode/fast.py) compute the same result faster, each
checked against it in tests (tests/test_tokenizer_fastpath.py, test_encode_loops.py).

>>> ranks = {("l", "o"): 1, ("lo", "w"): 2, ("e", "r"): 3}
>>> merge_lowest(list("lower"), lambda x, y: ranks.get((x, y), NO_MERGE), lambda x, y: x + y)
['low', 'er']
"""
from __future__ import annotations

from typing import Any, Callable

__all__ = ["NO_MERGE", "merge_lowest"]

#: The rank of a pair that is not a merge (above every real rank).
NO_MERGE = float("inf")


def merge_lowest(
    parts: list[Any],
    rank_of: Callable[[Any, Any], float],
    join: Callable[[Any, Any], Any],
    *,
    on_merge: Callable[[float, int, Any, Any, Any, list[Any]], None] | None = None,
) -> list[Any]:
    """Merge `parts` in place, lowest-ranked adjacent pair first (leftmost on equal
    rank), until no adjacent pair has a rank below NO_MERGE; return `parts`.

    `rank_of(left, right)` gives a pair's rank (NO_MERGE if it is not a merge),
    `join(left, right)` the merged symbol. `on_merge(rank, position, left, right,
    merged, parts)` is called after each merge, with `parts` as it is then.
    """
    pair_ranks = [rank_of(x, y) for x, y in zip(parts, parts[1:])]
    while pair_ranks:
        best = min(pair_ranks)
        if best == NO_MERGE:
            break
        i = pair_ranks.index(best)
        left, right = parts[i], parts[i + 1]
        merged = join(left, right)
        parts[i : i + 2] = [merged]
        del pair_ranks[i]
        if i > 0:
            pair_ranks[i - 1] = rank_of(parts[i - 1], merged)
        if i < len(pair_ranks):
            pair_ranks[i] = rank_of(merged, parts[i + 1])
        if on_merge is not None:
            on_merge(best, i, left, right, merged, parts)
    return parts
