"""A finished Unigram run (`UnigramRun`: the model after any event) and `train_unigram`,
which trains one."""
from __future__ import annotations

from array import array
from collections.abc import Mapping
from dataclasses import dataclass

from .events import UnigramEvent
from .model import UnigramModel
from .settings import UnigramSettings
from .trainer import _steps, _Trainer

__all__ = ["UnigramRun", "train_unigram"]


@dataclass(frozen=True)
class UnigramRun:
    """A finished training run: its events, and the model after any of them."""

    settings: UnigramSettings
    events: tuple[UnigramEvent, ...]
    seed_list: tuple[str, ...]
    snapshots: tuple[tuple[array, array], ...]

    def model_at(self, index: int) -> UnigramModel:
        """The model after event `index` (0 is the seed vocabulary, -1 the final)."""
        alive, scores = self.snapshots[index]
        return UnigramModel.from_scores({self.seed_list[g]: s for g, s in zip(alive, scores)})

    def model(self) -> UnigramModel:
        return self.model_at(-1)


def train_unigram(words: Mapping[str, int], settings: UnigramSettings | None = None) -> UnigramRun:
    """Train a Unigram model on words with counts (`words_from_text`, `words_from_word_counts`).

    Deterministic: the same words (in the same order) and settings give the same run.
    A corpus too small for the target can end below it, because the M-step drops every
    piece expected under 0.5 times and nothing brings it back.

    >>> from bpe_core.algorithms.unigram import words_from_text
    >>> run = train_unigram(words_from_text("hug pug pun bun hugs " * 3), UnigramSettings(vocab_size=12))
    >>> [ev.kind for ev in run.events][:3], run.events[-1].vocab_size
    (['seed', 'em', 'em'], 12)
    """
    settings = settings or UnigramSettings()
    trainer = _Trainer(words, settings)
    events, snapshots = [], []
    for event, snap in _steps(trainer):
        events.append(event)
        snapshots.append(snap)
    return UnigramRun(settings, tuple(events), trainer.seed_list, tuple(snapshots))
