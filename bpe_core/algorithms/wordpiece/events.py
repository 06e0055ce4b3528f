"""What one WordPiece merge records: `WordPieceEvent`, and `ScoreRow`, a row of the score
table it was chosen from."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

__all__ = ["Pair", "ScoreRow", "WordPieceEvent"]

Pair = tuple[int, int]


class ScoreRow(NamedTuple):
    """One row of the score table: a pair, its count and its parts' counts.

    >>> row = ScoreRow((0, 1), 10, 15, 15)
    >>> row.fraction, round(row.score, 4)
    (Fraction(2, 45), 0.0444)
    """

    pair: Pair
    count: int  # type: ignore[assignment]  # the field hides tuple.count, which rows never use
    left_count: int
    right_count: int

    @property
    def score(self) -> float:
        return self.count / (self.left_count * self.right_count)

    @property
    def fraction(self) -> Fraction:
        return Fraction(self.count, self.left_count * self.right_count)


@dataclass(frozen=True)
class WordPieceEvent:
    """One merge, with everything a view needs to draw that step.

    `step` is 1-based. Pairs are token ids (the run's `tokens` give their text);
    `pair_text` and `token` are the strings, with the prefix where it belongs. The score
    is `count / (left_count x right_count)`: `score` is the float, `score_numerator` and
    `score_denominator` the exact parts (not reduced, so 10/225 reads as
    10 / (15 x 15)). `table` is the score table before the merge (best `top_n` rows, in
    the order that chose the winner; stored by column); `bpe_pair` is what a count-based BPE would have
    merged at this moment (the highest raw pair count, same tie rule), with its count
    and score. Counts after the merge: `vocab_size`, `corpus_length` (tokens).
    """

    step: int
    pair: Pair
    pair_text: tuple[str, str]
    token: str
    token_id: int
    is_new_token: bool              # False if an earlier merge already made this string
    score: float
    score_numerator: int            # the pair count
    score_denominator: int          # left_count * right_count
    count: int
    left_count: int
    right_count: int
    ties: tuple[Pair, ...]          # every pair at the same exact score, tie-rule order, winner first (capped)
    tie_count: int
    tie_break: str
    table_pairs: tuple[Pair, ...]   # the score table before the merge, best first (top N)...
    table_counts: tuple[int, ...]   # ...each row's pair count...
    table_left_counts: tuple[int, ...]   # ...its left part's count...
    table_right_counts: tuple[int, ...]  # ...and its right part's count
    bpe_pair: Pair
    bpe_pair_text: tuple[str, str]
    bpe_count: int
    bpe_score: float
    changed_words: tuple[int, ...]  # the words the merge changed, ascending...
    changed_tokens: tuple[tuple[int, ...], ...]  # ...and their tokens after it
    merged_occurrences: int         # positions merged, weighted by word count
    rescored_pairs: int             # pairs whose score was recomputed after the merge...
    count_changed_pairs: int        # ...of which this many because their own count changed
    vocab_size: int
    corpus_length: int

    @property
    def table(self) -> tuple[ScoreRow, ...]:
        """The score table before the merge as rows, best first (stored by column: a run
        keeps thousands of events, and a few tuples each are cheaper for the garbage
        collector to walk than dozens of row objects)."""
        return tuple(map(ScoreRow._make, zip(self.table_pairs, self.table_counts,
                                              self.table_left_counts, self.table_right_counts)))

    @property
    def score_fraction(self) -> Fraction:
        return Fraction(self.score_numerator, self.score_denominator)

    @property
    def words_changed(self) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """(word index, tokens after the merge) for every word the merge changed."""
        return tuple(zip(self.changed_words, self.changed_tokens))

    @property
    def bpe_agrees(self) -> bool:
        """True if a count-based BPE would have merged the same pair."""
        return self.bpe_pair == self.pair
