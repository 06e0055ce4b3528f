"""What every merge-based run shares: its steps and the figures after each.

`TrainingRun` (BPE) and `WordPieceRun` both hold their events in order, one per merge,
each with the vocabulary size and corpus length after it. Step 0 is before the first
merge, step k after merge k; the figures at step 0 are the run's starting ones.
"""
from __future__ import annotations

from typing import Any

__all__ = ["MergeSteps"]


class MergeSteps:
    """The step methods of a run; a subclass (a frozen dataclass) has these fields."""

    events: tuple[Any, ...]        # one per merge; each has vocab_size and corpus_length
    base_size: int                 # the vocabulary before the first merge
    initial_corpus_length: int     # the corpus's tokens before the first merge

    @property
    def steps(self) -> int:
        return len(self.events)

    def _check_step(self, k: int) -> int:
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= len(self.events):
            raise ValueError(f"Step {k!r} is out of range: choose 0 to {len(self.events)}.")
        return k

    def vocab_size(self, k: int) -> int:
        """The vocabulary's size after step k."""
        k = self._check_step(k)
        return self.events[k - 1].vocab_size if k else self.base_size

    def corpus_length(self, k: int) -> int:
        """The corpus's length in tokens after step k."""
        k = self._check_step(k)
        return self.events[k - 1].corpus_length if k else self.initial_corpus_length
