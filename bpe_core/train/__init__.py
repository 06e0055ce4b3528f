"""BPE training: settings and the incremental trainer (trainer.py), the events it yields
(events.py), and the finished run with replay at any step (run.py).

>>> from bpe_core.train import TrainerSettings, train
>>> from bpe_core import WordTable
>>> [ev.token for ev in train(WordTable.from_word_counts("low 5\\nlower 2"), TrainerSettings(merges=2)).events]
['lo', 'low']
"""
from .events import CountChange, MergeEvent, Pair
from .run import DEFAULT_SPECIAL, TrainingRun, train
from .counts import TokenCounts, token_counts
from .trainer import MAX_MARKER_LENGTH, MAX_TIES_KEPT, BPETrainer, TrainerSettings, marker_clash

__all__ = ["CountChange", "MergeEvent", "Pair", "DEFAULT_SPECIAL", "TrainingRun", "train",
           "TokenCounts", "token_counts",
           "MAX_MARKER_LENGTH", "MAX_TIES_KEPT", "BPETrainer", "TrainerSettings", "marker_clash"]
