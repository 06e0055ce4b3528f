"""A finished (or partial) training run: the events, and everything derived from them.

`train()` drives the trainer to its stop and keeps the events. A `TrainingRun` answers
what a page needs at any step k without retraining: the merges so far, a word's
segmentation (the first k merges replayed on it), the vocabulary, the figures, and a
`Tokenizer` that encodes new text with the first k merges.
"""
from __future__ import annotations

import gc
import sys
import weakref
from dataclasses import dataclass
from typing import Callable

from ..corpus import WordTable
from ..encode.tokenizer import Tokenizer
from .events import MergeEvent, Pair
from .steps import MergeSteps
from .trainer import BPETrainer, TrainerSettings
from ..vocab import Body, base_symbols

__all__ = ["TrainingRun", "train", "DEFAULT_SPECIAL"]

DEFAULT_SPECIAL = "<|endoftext|>"


@dataclass(frozen=True, eq=False)
class TrainingRun(MergeSteps):
    """Immutable result of training: settings, corpus, base vocabulary, events.

    `tokens` is the full vocabulary in id order as (body, eow); the first `base_size`
    are base symbols. Steps are 1-based; step 0 is the corpus before any merge.
    """

    words: WordTable
    settings: TrainerSettings
    tokens: tuple[tuple[Body, bool], ...]
    displays: tuple[str, ...]
    base_size: int
    base_tokens_in_use: int
    initial_corpus_length: int
    events: tuple[MergeEvent, ...]
    stop_reason: str

    # ---- sizes (steps, vocab_size and corpus_length: MergeSteps) -----------------------
    def tokens_in_use(self, k: int) -> int:
        k = self._check_step(k)
        return self.events[k - 1].tokens_in_use if k else self.base_tokens_in_use

    def retired_tokens(self, k: int) -> set[int]:
        """Tokens the corpus no longer uses after step k (they stay in the vocabulary)."""
        k = self._check_step(k)
        retired: set[int] = set()
        for ev in self.events[:k]:
            retired.discard(ev.token_id)
            retired.update(ev.tokens_retired)
        return retired

    # ---- merges and segmentation -------------------------------------------------------
    def merges(self, k: int | None = None) -> list[Pair]:
        """The first k merges (all if None), in rank order."""
        k = len(self.events) if k is None else self._check_step(k)
        return [ev.pair for ev in self.events[:k]]

    def base_segmentation(self, word_index: int) -> tuple[int, ...]:
        s = self.settings
        ids = {tok: i for i, tok in enumerate(self.tokens[: self.base_size])}
        return tuple(ids[sym] for sym in base_symbols(self.words.words[word_index], s.units, s.end_of_word))

    def segmentations(self, k: int, word_indices=None) -> dict[int, tuple[int, ...]]:
        """Each word's tokens after step k, by replaying the first k merges.

        Replaying applies the lowest-ranked pair first, which reaches the same
        segmentation training did; no retraining.
        """
        tok = self.tokenizer(k, special_tokens={})
        indices = range(len(self.words)) if word_indices is None else word_indices
        # A trained vocabulary holds every symbol of its own words: no id is None.
        return {w: tok._encode_piece(self.words.words[w]) for w in indices}  # type: ignore[misc]

    def words_changed(self, k: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """(word index, its tokens after merge k) for every word merge k changed.

        >>> run = train(WordTable.from_word_counts("low 5\\nlower 2\\nnewest 6"),
        ...             TrainerSettings(merges=2))
        >>> [(w, [run.displays[t] for t in toks]) for w, toks in run.words_changed(2)]
        [(0, ['lo', 'w']), (1, ['lo', 'we', 'r'])]
        """
        k = self._check_step(k)
        if not k:
            return ()
        changed = self.events[k - 1].changed_words
        segs = self.segmentations(k, changed)
        return tuple((w, segs[w]) for w in changed)

    def nbytes(self) -> int:
        """About how many bytes of memory the run holds (events, vocabulary, words).

        Counted with sys.getsizeof over every container the run owns, small integers
        (shared by the whole process) left out; within a few percent of what tracemalloc
        measures (tests/test_engine_memory.py checks that).
        """
        return _deep_size(self)

    def tokenizer(self, k: int | None = None, *, special_tokens: dict[str, int] | None = None) -> Tokenizer:
        """A tokenizer that knows the first k merges (all if None).

        Unless told otherwise it has one special token, `<|endoftext|>`, whose id comes
        right after the vocabulary at step k.
        """
        k = len(self.events) if k is None else self._check_step(k)
        size = self.vocab_size(k)
        if special_tokens is None:
            special_tokens = {DEFAULT_SPECIAL: size}
        return _cached_tokenizer(self, k, size, tuple(special_tokens.items()))

    def stop_message(self, *, asked: bool = True) -> str:
        """Why training stopped, said once. `asked`: whether someone chose the number of
        merges; when nobody did (the command line without --merges), it was the default.

        >>> train(WordTable.from_word_counts("low 5\\nlower 2"), TrainerSettings(merges=2)).stop_message()
        'Training stopped after 2 merges, the number asked for.'
        >>> train(WordTable.from_word_counts("low 5\\nlower 2"), TrainerSettings(merges=2)).stop_message(asked=False)
        'Training stopped after 2 merges, the default number.'
        >>> train(WordTable.from_word_counts("ab 1"), TrainerSettings(merges=5)).stop_message()
        'Training stopped after 1 merge: no pairs are left: every word is a single token.'
        """
        done = f"Training stopped after {self.steps} merge{'s' if self.steps != 1 else ''}"
        if self.stop_reason == f"reached {self.steps} merges":
            return f"{done}, the number asked for." if asked else f"{done}, the default number."
        return f"{done}: {self.stop_reason}."


# Tokenizers built from a run, per run (identity) and step: replaying many words at one
# step builds the merge table once. Weak keys: a run that is dropped frees its tokenizers.
_TOKENIZERS: "weakref.WeakKeyDictionary[TrainingRun, dict]" = weakref.WeakKeyDictionary()


def _cached_tokenizer(run: TrainingRun, k: int, size: int, specials: tuple) -> Tokenizer:
    per_run = _TOKENIZERS.setdefault(run, {})
    tok = per_run.get((k, specials))
    if tok is None:
        s = run.settings
        tok = Tokenizer.from_merges(
            tokens=run.tokens[:size],
            merges=[ev.pair for ev in run.events[:k]],
            units=s.units,
            end_of_word=s.end_of_word,
            marker=s.marker,
            # A word-count list was split on whitespace, so new text is too.
            pretokenizer=run.words.pretokenizer or "whitespace",
            special_tokens=dict(specials),
            name=f"trained (step {k})",
            base_size=run.base_size,
        )
        if len(per_run) > 4:  # each holds a merge table and a piece cache
            per_run.clear()
        per_run[(k, specials)] = tok
    return tok


def _deep_size(run: TrainingRun) -> int:
    seen: set[int] = set()
    size = sys.getsizeof
    total = size(run) + _size_of(run.words.words, seen) + _size_of(run.words.counts, seen)
    total += _size_of(run.tokens, seen) + _size_of(run.displays, seen) + _size_of(run.events, seen)
    for ev in run.events:
        total += size(ev) + size(ev.__dict__)
        for value in ev.__dict__.values():
            total += _size_of(value, seen)
    return total


def _size_of(value: object, seen: set[int]) -> int:
    """getsizeof of a value and what it holds (tuples, strings, bytes, ints), each object
    counted once; small ints (-5 to 256) and bools are shared by the whole process."""
    if id(value) in seen or isinstance(value, bool):
        return 0
    if isinstance(value, int):
        if -5 <= value <= 256:
            return 0
        seen.add(id(value))
        return sys.getsizeof(value)
    if isinstance(value, tuple):
        seen.add(id(value))
        return sys.getsizeof(value) + sum(_size_of(v, seen) for v in value)
    if isinstance(value, (str, bytes)):
        seen.add(id(value))
        return sys.getsizeof(value)
    return 0


def train(
    words: WordTable,
    settings: TrainerSettings | None = None,
    *,
    progress: Callable[[int, MergeEvent], None] | None = None,
    pause_gc: bool = False,
) -> TrainingRun:
    """Train to the stop condition and return the whole run.

    `progress(step, event)` is called after each merge (for a progress bar).

    By default training touches no process-wide state. `pause_gc=True` (the command line
    and the benchmarks use it) pauses the cyclic garbage collector while training (the
    loop allocates many small objects and no cycles, and the collector's passes over
    them cost 15-30% of the time) and moves the finished run to the collector's oldest
    generation (see `_to_oldest_generation`). Both are process-wide: in a server whose
    other threads allocate meanwhile (the app), the collector would be off for them too,
    and every object of the process would be moved; so the app leaves it off.
    bench/bench_train.py times both.
    """
    was_enabled = gc.isenabled()
    if pause_gc:
        gc.disable()
    try:
        trainer = BPETrainer(words, settings)
        base_size = len(trainer.vocab)
        initial_length = trainer.corpus_length
        events = []
        for ev in trainer.iter_merges():
            events.append(ev)
            if progress is not None:
                progress(ev.step, ev)
        vocab = trainer.vocab
        run = TrainingRun(
            words=words,
            settings=trainer.settings,
            tokens=vocab.snapshot(),
            displays=tuple(vocab.displays),
            base_size=base_size,
            base_tokens_in_use=trainer.base_tokens_in_use,
            initial_corpus_length=initial_length,
            events=tuple(events),
            stop_reason=trainer.stop_reason or "",
        )
        # Free the trainer's tables (pair counts, the pair -> words index, the buckets)
        # now, by reference counting, so the collector never has to walk them.
        del trainer, vocab, events
        if pause_gc:
            _to_oldest_generation()
    finally:
        if pause_gc and was_enabled:
            gc.enable()
    return run


def _to_oldest_generation() -> None:
    """Move every object the collector tracks into its oldest generation.

    A run is long-lived data of some 100,000 small objects (tuples, events). Left in
    the young generation, the collector would walk all of them in its next young
    collection and again in the middle one before they reach the oldest generation,
    where long-lived data is walked only by the rare full collections. `gc.freeze()`
    followed by `gc.unfreeze()` moves everything there at once (both are O(1) list
    splices). It moves every object the process holds, not only the run: cyclic garbage
    made before the call (other sessions' in the app) is then freed by the next full
    collection rather than the next young one. Skipped if something else froze objects,
    so they stay frozen.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
