"""The Train page's index of one training run: `RunView`, each word's tokens at any step.

`RunView` wraps an immutable `TrainingRun` with the lookups a view needs and keeps them
cheap at any step of a large run: an index built once per run (word -> the steps that
changed it, from the events' `changed_words`) says whether a word is still its base
symbols at step k; otherwise its tokens are the first k merges replayed on it (no
retraining). It is the type the page caches per run (ui/train/state.py) and draws from
(ui/train/drawing.py and the modules it names); it draws nothing itself.
"""
from __future__ import annotations

import sys
from bisect import bisect_right
from collections import defaultdict
from functools import cached_property
from typing import Iterable, Sequence

from bpe_core import TrainingRun
from bpe_core.display import bytes_label, visible_text
from bpe_core.vocab import base_symbols
from ui.shared.chips import PALETTE, TokenChip, chip_for

__all__ = ["RunView", "symbol_label", "RECENT_SHOWN"]

#: Words `recent_words` returns by default.
RECENT_SHOWN = 20


def symbol_label(body: str | bytes, eow: bool, marker: str) -> str:
    """A symbol (body, ends a word) as plain text: bytes as text or `<E4>`, whitespace
    and invisible characters drawn, the marker appended.

    >>> symbol_label(" a\\u200d", True, "</w>"), symbol_label(b"\\xe4", False, "")
    ('·a⟨ZWJ⟩</w>', '<E4>')
    """
    text = bytes_label(body) if isinstance(body, bytes) else body
    return visible_text(text) + (marker if eow else "")


#: Runs up to this many words and merges colour each token the same everywhere (RunView.colours).
COLOUR_WORDS = 2_000
COLOUR_STEPS = 500
PALETTE_SIZE = len(PALETTE)


class RunView:
    """A training run plus per-run lookups: each word's tokens at any step, the
    frequency order of the words, the corpus size in characters and bytes.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> run = train(WordTable.from_word_counts("low 5\\nlower 2\\nnewest 6\\nwidest 3"),
    ...             TrainerSettings(end_of_word="separate", merges=4))
    >>> v = RunView(run)
    >>> [v.label(t) for t in v.tokens_at(2, 3)]
    ['n', 'e', 'w', 'est</w>']
    """

    def __init__(self, run: TrainingRun, *, key: str = "", notes: Sequence[str] = ()):
        self.run = run
        self.key = key
        self.notes = tuple(notes)
        self.marker = run.settings.marker
        steps: dict[int, list[int]] = defaultdict(list)
        for ev in run.events:
            for w in ev.changed_words:
                steps[w].append(ev.step)
        self._steps = dict(steps)  # word -> the steps that changed it (ints only: compact)
        self._base_ids = {tok: i for i, tok in enumerate(run.tokens[: run.base_size])}

    # ---- sizes -----------------------------------------------------------------------------
    @property
    def steps(self) -> int:
        return self.run.steps

    def nbytes(self) -> int:
        """About how many bytes the view holds: the run plus its word -> steps index."""
        index = sum(sys.getsizeof(s) for s in self._steps.values()) + sys.getsizeof(self._steps)
        return self.run.nbytes() + index + 100 * len(self._steps)

    @cached_property
    def total_chars(self) -> int:
        return sum(len(w) * c for w, c in zip(self.run.words.words, self.run.words.counts))

    @cached_property
    def total_bytes(self) -> int:
        return sum(len(w.encode("utf-8")) * c for w, c in zip(self.run.words.words, self.run.words.counts))

    @cached_property
    def by_count(self) -> list[int]:
        """Word indices, most frequent first (first appearance breaks ties)."""
        counts = self.run.words.counts
        return sorted(range(len(counts)), key=lambda w: (-counts[w], w))

    @cached_property
    def base_in_corpus(self) -> frozenset[int]:
        """The base symbols the corpus uses at step 0 (byte vocabularies hold all 256)."""
        used: set[int] = set()
        for w in range(len(self.run.words)):
            used.update(self.base_segmentation(w))
        return frozenset(used)

    # ---- tokens ----------------------------------------------------------------------------
    def base_segmentation(self, w: int) -> tuple[int, ...]:
        s = self.run.settings
        return tuple(self._base_ids[sym] for sym in base_symbols(self.run.words.words[w], s.units, s.end_of_word))

    def tokens_at(self, w: int, k: int) -> tuple[int, ...]:
        """Word w's tokens after k merges: its base symbols if no merge up to k changed
        it, else the first k merges replayed on it."""
        st = self._steps.get(w)
        if st and bisect_right(st, k):
            return self.run.segmentations(k, (w,))[w]
        return self.base_segmentation(w)

    def segmentations(self, k: int, words: Iterable[int]) -> dict[int, tuple[int, ...]]:
        return {w: self.tokens_at(w, k) for w in words}

    def changed_words(self, k: int) -> list[int]:
        """The words merge k changed (none at step 0)."""
        return list(self.run.events[k - 1].changed_words) if k else []

    def recent_words(self, k: int, limit: int = RECENT_SHOWN) -> list[int]:
        """Up to `limit` words changed most recently: by merge k, then k-1, ..."""
        out: dict[int, None] = {}
        for j in range(k, max(0, k - 200), -1):
            for w in self.run.events[j - 1].changed_words:
                out.setdefault(w, None)
                if len(out) >= limit:
                    return list(out)
        return list(out)

    def chip(self, token_id: int, classes: tuple[str, ...] = ()) -> TokenChip:
        body, eow = self.run.tokens[token_id]
        title = f"token {token_id}" + (" (ends a word)" if eow else "")
        colours = self.colours
        if colours is not None and token_id in colours:
            classes = classes + (f"bpe-c{colours[token_id]}",)
        return chip_for(body, eow, self.marker, title=title, classes=classes)

    @cached_property
    def colours(self) -> dict[int, int] | None:
        """A colour (0 to 6) for each token of the run, the same wherever the token is drawn
        (corpus, base symbols, tables), chosen so that tokens that are ever neighbours in a
        word, at any step, differ: a greedy colouring of that graph in id order (a token
        with neighbours in all seven colours takes its id's). None for runs over
        COLOUR_WORDS words or COLOUR_STEPS merges: their chips are coloured by position.

        >>> from bpe_core import WordTable, TrainerSettings, train
        >>> v = RunView(train(WordTable.from_word_counts("low 5\\nlower 2\\nnewest 6\\nwidest 3"),
        ...                   TrainerSettings(end_of_word="separate", merges=10)))
        >>> words = [v.tokens_at(w, k) for w in range(4) for k in range(11)]
        >>> any(v.colours[a] == v.colours[b] for t in words for a, b in zip(t, t[1:]))
        False
        """
        run = self.run
        if len(run.words) > COLOUR_WORDS or run.steps > COLOUR_STEPS:
            return None
        near: dict[int, set[int]] = defaultdict(set)

        def add(tokens: Sequence[int]) -> None:
            for a, b in zip(tokens, tokens[1:]):
                if a != b:
                    near[a].add(b)
                    near[b].add(a)

        for w in range(len(run.words)):
            add(self.base_segmentation(w))
        for ev in run.events:
            for tokens in run.segmentations(ev.step, ev.changed_words).values():
                add(tokens)
        out: dict[int, int] = {}
        for t in range(run.vocab_size(run.steps)):
            taken = {out[n] for n in near.get(t, ()) if n in out}
            out[t] = next((c for c in range(PALETTE_SIZE) if c not in taken), t % PALETTE_SIZE)
        return out

    def label(self, token_id: int) -> str:
        """A token as plain text: whitespace drawn (`·`), invisible characters named
        (`⟨ZWJ⟩`), the marker appended.

        For byte units: the bytes as text, or `<E4>` when they are not UTF-8 alone.
        """
        body, eow = self.run.tokens[token_id]
        return symbol_label(body, eow, self.marker)

    def first_seen_word(self, k: int) -> int | None:
        """The word where merge k's pair first occurs before the merge (words read in
        order of first appearance): the first word the merge changed, as the trainer
        recorded it (every word holding the pair is changed by the merge)."""
        words = self.run.events[k - 1].changed_words
        return words[0] if words else None
