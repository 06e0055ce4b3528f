"""A finished WordPiece run (`WordPieceRun`: the vocabulary, segmentations and a tokenizer
at any step) and `train_wordpiece`, which trains one."""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Iterable

from bpe_core import WordTable
from bpe_core.train.steps import MergeSteps

from .events import WordPieceEvent
from .settings import WordPieceSettings
from .tokenizer import WordPieceTokenizer
from .trainer import WordPieceTrainer, initial_split

__all__ = ["WordPieceRun", "train_wordpiece"]


@dataclass(frozen=True, eq=False)
class WordPieceRun(MergeSteps):
    """Immutable result of WordPiece training: settings, corpus, tokens, events.

    `tokens` is the whole vocabulary in id order; the first `base_size` are the special
    tokens and the initial symbols. Steps are 1-based; step 0 is before any merge.
    """

    words: WordTable
    settings: WordPieceSettings
    tokens: tuple[str, ...]
    base_size: int
    initial_corpus_length: int
    events: tuple[WordPieceEvent, ...]
    stop_reason: str

    def vocab(self, k: int | None = None) -> tuple[str, ...]:
        """The vocabulary after step k (all steps if None), in id order."""
        return self.tokens[: self.vocab_size(self.steps if k is None else k)]

    def merges(self, k: int | None = None) -> list[tuple[str, str]]:
        """The first k merges (all if None) as pairs of strings."""
        k = self.steps if k is None else self._check_step(k)
        return [ev.pair_text for ev in self.events[:k]]

    def initial_segmentation(self, word_index: int) -> tuple[int, ...]:
        ids = {t: i for i, t in enumerate(self.tokens[: self.base_size])}
        return tuple(ids[t] for t in initial_split(self.words.words[word_index], self.settings.prefix))

    @cached_property
    def _history(self) -> list[tuple[list[int], list[tuple[int, ...]]]]:
        """Per word: the steps that changed it and its tokens after each."""
        out: list[tuple[list[int], list[tuple[int, ...]]]] = [([], []) for _ in self.words.words]
        for ev in self.events:
            for w, toks in zip(ev.changed_words, ev.changed_tokens):
                out[w][0].append(ev.step)
                out[w][1].append(toks)
        return out

    def segmentations(self, k: int, word_indices: Iterable[int] | None = None) -> dict[int, tuple[int, ...]]:
        """Each word's tokens after step k, read from the events (no retraining)."""
        k = self._check_step(k)
        indices = range(len(self.words)) if word_indices is None else word_indices
        out: dict[int, tuple[int, ...]] = {}
        for w in indices:
            steps, toks = self._history[w]
            i = bisect_right(steps, k)
            out[w] = toks[i - 1] if i else self.initial_segmentation(w)
        return out

    def segmentation_text(self, k: int, word_index: int) -> tuple[str, ...]:
        """One word's tokens after step k, as strings."""
        return tuple(self.tokens[t] for t in self.segmentations(k, [word_index])[word_index])

    def tokenizer(self, k: int | None = None, *, max_input_chars_per_word: int = 100) -> "WordPieceTokenizer":
        """A longest-match tokenizer with the vocabulary after step k (all if None)."""
        k = self.steps if k is None else self._check_step(k)
        return WordPieceTokenizer(
            self.vocab(k),
            unk_token=self.settings.unk_token,
            prefix=self.settings.prefix,
            max_input_chars_per_word=max_input_chars_per_word,
            pretokenizer=self.words.pretokenizer or "whitespace",
            name=f"WordPiece (step {k})",
        )

    def stop_message(self) -> str:
        return f"Training stopped after {self.steps} merges: {self.stop_reason}."


def train_wordpiece(
    words: WordTable,
    settings: WordPieceSettings | None = None,
    *,
    progress: Callable[[int, WordPieceEvent], None] | None = None,
) -> WordPieceRun:
    """Train WordPiece to the stop condition and return the whole run.

    >>> words = WordTable.from_word_counts("hug 10\\npug 5\\npun 12\\nbun 4\\nhugs 5")
    >>> run = train_wordpiece(words, WordPieceSettings(merges=3))
    >>> [(ev.token, str(ev.score_fraction)) for ev in run.events]
    [('##gs', '1/20'), ('hu', '1/36'), ('hugs', '1/15')]
    """
    trainer = WordPieceTrainer(words, settings)
    events = []
    for ev in trainer.iter_merges():
        events.append(ev)
        if progress is not None:
            progress(ev.step, ev)
    return WordPieceRun(
        words=words,
        settings=trainer.settings,
        tokens=tuple(trainer.tokens),
        base_size=trainer.base_size,
        initial_corpus_length=trainer.initial_corpus_length,
        events=tuple(events),
        stop_reason=trainer.stop_reason or "",
    )
