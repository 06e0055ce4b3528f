"""A text's token count at every number of merges k, from one pass over the text.

`run.tokenizer(k).encode(text)` costs a tokenizer build and an encoding for each k. This
module reads the count at every k = 0..run.steps off one run of the merge loop per
distinct piece, with all the merges, keeping the rank of each merge it applies.

Why that is enough. Fix a piece and its base symbols. Let F be the merge loop with all
the merges, applying ranks r_1, r_2, ..., r_n, and T_k the loop with the first k merges
only (the merge list of `run.tokenizer(k)`). A pair has a rank in T_k exactly when its
rank in F is at most k, and then the same rank and the same merged token (`from_merges`
keeps a pair's first rank; token ids do not depend on k). Base symbols do not depend on
k either (the first `base_size` ids; a symbol with no id, None, is in no pair).

Claim: T_k applies exactly the first j_k merges of F, where j_k is the number of steps
before F first applies a rank above k (n if it never does). By induction on the step:
while both runs hold the same symbols, if F's next rank r is at most k, every adjacent
pair has a rank of at least r in F, so the pairs T_k sees with rank r are the same ones
and no pair has a lower rank in T_k: T_k merges the same (leftmost) pair into the same
token. If r > k, every pair's rank in F is at least r > k, so no pair has a rank in
T_k, and T_k stops; if F stops, no pair has a rank in F, so none has one in T_k.

So the piece's length after T_k is (base symbols) - j_k, and j_k counts the steps whose
prefix maximum max(r_1..r_j) is at most k. When the ranks never fall (the usual case)
that is just the steps with rank <= k. They can fall when a merge re-creates a token
that an earlier merge had already made (a "reused" merge): the re-created token can
then join a pair of lower rank, and the prefix maximum stops T_k where F went back down.
No piece needs encoding again at each k.

Unknown symbols (a character a character-level vocabulary never saw, id None) are in no
pair, so they are never merged and their number is the same at every k: each counts as
one token, as `Tokenizer.token_spans` gives them.

>>> from bpe_core import WordTable, TrainerSettings, train
>>> run = train(WordTable.from_text("low lower lowest", "gpt2"),
...             TrainerSettings(units="byte", merges=4))
>>> counts = token_counts(run, "lower blow lowz")
>>> [counts.tokens_at(k) for k in range(run.steps + 1)]
[15, 12, 9, 8, 8]
>>> [len(run.tokenizer(k).encode("lower blow lowz")) for k in range(run.steps + 1)]
[15, 12, 9, 8, 8]
>>> chars = train(WordTable.from_text("low lower", "whitespace"), TrainerSettings(merges=2))
>>> counts = token_counts(chars, ["lowé", "ow"])  # é: never seen, one unknown token
>>> [counts.tokens_at(k) for k in range(3)], counts.unknown_at(2)
([6, 5, 4], 1)
"""
from __future__ import annotations

import sys
from array import array
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from ..encode.fast import _bpe_merges
from ..encode.tokenizer import _check_encodable
from .run import TrainingRun

__all__ = ["TokenCounts", "token_counts"]


@dataclass(frozen=True, eq=False)
class TokenCounts:
    """A text's token count under the first k merges of a run, for every k.

    `tokens[k]` is the count at step k (0 to `steps`; read it, do not change it: `tokens_at`
    is one array read); `unknown` the symbols that have no
    id (characters a character-level vocabulary never saw), each counted as one token and
    the same at every k. `falling_pieces` is how many distinct pieces had a merge rank
    below an earlier one in the run with all merges (counted for information: they need
    no special handling, see the module docstring).
    """

    tokens: array
    unknown: int
    pieces: int
    falling_pieces: int

    @property
    def steps(self) -> int:
        return len(self.tokens) - 1

    def _check(self, k: int) -> int:
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(self.tokens):
            raise ValueError(f"Step {k!r} is out of range: choose 0 to {self.steps}.")
        return k

    def tokens_at(self, k: int) -> int:
        """Tokens after encoding with the first k merges (unknown symbols included)."""
        return self.tokens[self._check(k)]

    def unknown_at(self, k: int) -> int:
        """Symbols with no id at step k: the same at every k."""
        self._check(k)
        return self.unknown

    def nbytes(self) -> int:
        """Bytes of memory held: the object, its attributes' dict and the array (4 bytes a step)."""
        return sys.getsizeof(self) + sys.getsizeof(self.__dict__) + sys.getsizeof(self.tokens)


def token_counts(run: TrainingRun, text: str | Iterable[str]) -> TokenCounts:
    """Count `text`'s tokens under the first k merges of `run`, for every k at once.

    `text` is pre-tokenized as `run.tokenizer(k).encode` does, special tokens as plain
    text; a list of strings is encoded one string at a time (pieces never cross two
    strings) and the counts are added up. `tokens_at(k)` then equals
    `len(run.tokenizer(k).encode(text))` when every symbol has an id, and the number of
    `token_spans` otherwise. A text with an unpaired surrogate raises ValueError, as
    encoding does.
    """
    chunks = [text] if isinstance(text, str) else list(text)
    for chunk in chunks:
        if not isinstance(chunk, str):
            raise TypeError(f"text must be a str or a list of str, not {type(chunk).__name__}")
        _check_encodable(chunk)
    tok = run.tokenizer(run.steps, special_tokens={})
    splitter = tok._regex
    pieces: Counter[str] = Counter()
    for chunk in chunks:
        pieces.update(splitter.findall(chunk) if splitter is not None else [chunk])
    pair_rank, pair_new = tok._pair_rank, tok._pair_new
    steps = run.steps
    # merged[r]: merges (times the piece's count) whose prefix maximum rank is r.
    merged = [0] * (steps + 1)
    base_total = unknown = falling = 0
    for piece, times in pieces.items():
        base = tok._base(piece)
        base_total += len(base) * times
        unknown += base.count(None) * times
        top = 0  # the prefix maximum of the ranks applied so far
        fell = False
        for r in _applied_ranks(base, pair_rank, pair_new):
            if r < top:
                fell = True
            else:
                top = r
            merged[top] += times
        falling += fell
    # 4 bytes a step unless a count could exceed 2**32 - 1
    counts = array("I" if base_total < 1 << 32 else "q", [0]) * (steps + 1)
    total = base_total
    for k in range(steps + 1):
        total -= merged[k]
        counts[k] = total
    return TokenCounts(counts, unknown, len(pieces), falling)


def _applied_ranks(parts: list, pair_rank: dict, pair_new: dict) -> list[int]:
    """The ranks of the merges the merge loop applies to `parts`, in order.

    `_bpe_merges` (the encoder's own loop), keeping each rank it applies; long pieces go
    through `_bpe_heap` there, which applies the same merges in the same order (lowest
    rank, then leftmost).

    >>> _applied_ranks(["a", "b", "c"], {("b", "c"): 1, ("a", "bc"): 2}, {("b", "c"): "bc", ("a", "bc"): "abc"})
    [1, 2]
    """
    ranks: list[int] = []
    _bpe_merges(parts, pair_rank, pair_new, ranks)
    return ranks
