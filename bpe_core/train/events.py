"""What one merge did: the event the trainer yields, with everything a view draws.

`MergeEvent` is a frozen dataclass of tuples (immutable, picklable, cacheable); its
pair table and count changes are stored by column and read as rows through properties.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

__all__ = ["Pair", "CountChange", "MergeEvent"]

Pair = tuple[int, int]


class CountChange(NamedTuple):
    """A pair whose count a merge changed: before and after (0 means absent).

    A named tuple: a merge early in training changes hundreds of counts, and a tuple is
    the cheapest record Python makes.
    """

    pair: Pair
    before: int
    after: int

    @property
    def kind(self) -> str:
        """'appeared', 'vanished', 'up' or 'down'."""
        if self.before == 0:
            return "appeared"
        if self.after == 0:
            return "vanished"
        return "up" if self.after > self.before else "down"


@dataclass(frozen=True)
class MergeEvent:
    """One merge, with everything a view needs to draw that step.

    `step` is 1-based and is the merge's rank: encoding applies lower steps first.
    Pairs are token ids; `pair_text`, `token` and the vocabulary give their text.

    The pair table and the count changes are stored by column (`table_pairs` and
    `table_counts`, ...) and read as rows through `top_pairs` and `count_changes`: a run
    keeps thousands of events, and columns are a few tuples per event where rows would be
    dozens of small objects for the garbage collector to walk.

    The words a merge changed are kept as indices only (`changed_words`), not with their
    tokens: a word's tokens at any step come from replaying the merges
    (`TrainingRun.words_changed(k)`, `TrainingRun.segmentations`). Keeping every changed
    word's tokens made a run's memory grow with the square of a long word's length (a
    10,000-character text with no pre-tokenizer held about 92 MB after 5,000 merges).
    """

    step: int
    pair: Pair
    pair_text: tuple[str, str]
    token_id: int
    token: str                      # displayed form (GPT-2 bytes form, marker appended)
    is_new_token: bool              # False if another pair already made this token
    count: int                      # the pair's count when it was chosen
    ties: tuple[Pair, ...]          # every pair tied at `count`, in tie-rule order, winner first (capped)
    tie_count: int                  # how many pairs were tied (including the winner)
    tie_break: str
    table_pairs: tuple[Pair, ...]   # the pair table before the merge, best first (top N)...
    table_counts: tuple[int, ...]   # ...and each row's count
    changed_pairs: tuple[Pair, ...]  # the pairs whose count the merge changed...
    counts_before: tuple[int, ...]  # ...their counts before it (0: absent)...
    counts_after: tuple[int, ...]   # ...and after it (0: gone)
    changed_words: tuple[int, ...]  # the words the merge changed, ascending
    merged_occurrences: int         # positions merged, weighted by word count
    vocab_size: int                 # after the merge
    corpus_length: int              # tokens in the whole corpus after the merge
    tokens_in_use: int              # distinct tokens the corpus uses after the merge
    tokens_retired: tuple[int, ...] = field(default=())  # tokens used no more after this merge

    @property
    def rank(self) -> int:
        return self.step

    @property
    def top_pairs(self) -> tuple[tuple[Pair, int], ...]:
        """The pair table before the merge as (pair, count) rows, best first."""
        return tuple(zip(self.table_pairs, self.table_counts))

    @property
    def count_changes(self) -> tuple[CountChange, ...]:
        """Every pair whose count the merge changed, with its counts before and after."""
        return tuple(
            map(CountChange._make, zip(self.changed_pairs, self.counts_before, self.counts_after))
        )
