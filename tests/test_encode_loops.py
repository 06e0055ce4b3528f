"""Every fast path of the merge loop gives what the reference loop gives.

The reference is `merge_lowest` (bpe_core/encode/merge_loop.py): merge the adjacent pair
with the lowest rank, leftmost on equal rank. Replay runs it; the encoders run faster
loops specialised for their tables (bpe_core/encode/fast.py). tests/test_tokenizer_fastpath.py
covers the byte-level shortcuts against a naive encoder; here each loop meets the reference.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.encode.fast import _bpe_heap, _bpe_merges, _bpe_ranks
from bpe_core.encode.merge_loop import NO_MERGE, merge_lowest
from bpe_core.pretrained import openai_tokenizer
from tests.stress_strings import stress_strings


def _random_merges(rng: random.Random, alphabet: int, n: int) -> tuple[dict, dict]:
    """A random merge list on ids: pair -> rank and pair -> new id (ids above the alphabet)."""
    pair_rank, pair_new = {}, {}
    symbols = list(range(alphabet))
    for rank in range(1, n + 1):
        pair = (rng.choice(symbols), rng.choice(symbols))
        if pair in pair_rank:
            continue
        new = alphabet + rank
        pair_rank[pair], pair_new[pair] = rank, new
        symbols.append(new)
    return pair_rank, pair_new


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), length=st.integers(0, 300), alphabet=st.integers(1, 5))
def test_merge_list_loops_equal_the_reference(seed, length, alphabet):
    rng = random.Random(seed)
    pair_rank, pair_new = _random_merges(rng, alphabet, 40)
    parts = [rng.randrange(alphabet) for _ in range(length)]
    expected = merge_lowest(list(parts), lambda x, y: pair_rank.get((x, y), NO_MERGE),
                            lambda x, y: pair_new[(x, y)])
    assert list(_bpe_merges(list(parts), pair_rank, pair_new)) == expected
    heap = _bpe_heap(list(parts), lambda x, y: pair_rank.get((x, y)), lambda x, y: pair_new[(x, y)])
    assert heap == expected


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_rank_table_loop_equals_the_reference(name):
    tok = openai_tokenizer(name)
    ranks = tok.ranks
    texts = stress_strings()[:400] + ["7" * 600, " " * 700, "ab" * 400]
    for text in texts:
        for piece, _ in tok.pieces(text):
            data = piece.encode("utf-8")
            parts = merge_lowest([data[i : i + 1] for i in range(len(data))],
                                 lambda x, y: ranks.get(x + y, NO_MERGE), bytes.__add__)
            assert _bpe_ranks(data, ranks) == tuple(ranks[p] for p in parts), piece
