"""BPE training as an iterator of merge events, one per merge.

The loop, as in Sennrich et al. (2016), Algorithm 1:
  1. count every adjacent pair of symbols, weighted by word count;
  2. find the most frequent pair (ties broken by a named rule);
  3. mint a token for it and replace the pair everywhere;
  4. repeat until the merge budget, the target vocabulary size or the minimum count stops it.

Counts are kept incrementally: a pair -> words index finds the words a merge touches,
and only those words are recounted. A bucket queue (count -> pairs) gives the maximum
and every pair tied at it in O(1); because a merge never raises any count above the
count being merged, the maximum never goes up, so the queue is exact, not lazy.

Each `MergeEvent` carries everything a view needs about its step, so a page never
recomputes BPE: the pair table before the merge (top N), the ties and the rule that
chose, the count changes, the words it changed, and the figures after it.

What this module does not do: pre-tokenization (see pretokenize.py), reading files
(corpus.py), or encoding new text (tokenizer.py).
"""
from __future__ import annotations

from bisect import bisect_left, insort
from itertools import accumulate
from dataclasses import dataclass, field
from typing import Iterator

from .corpus import WordTable
from .vocab import END_OF_WORD, UNITS, Vocab, base_symbols

__all__ = [
    "TIE_RULES",
    "TrainerSettings",
    "CountChange",
    "MergeEvent",
    "BPETrainer",
    "Pair",
]

Pair = tuple[int, int]

TIE_RULES: tuple[str, ...] = ("first-seen", "lexicographic", "smallest-id")

TIE_RULE_EXPLANATIONS: dict[str, str] = {
    "first-seen": "the pair that occurs first when the words are read in order of first "
    "appearance, each left to right (Sennrich's Algorithm 1, minbpe, the HF course)",
    "lexicographic": "the largest pair as a tuple of strings (subword-nmt)",
    "smallest-id": "the pair with the smallest ids, base symbols numbered in code-point "
    "order (Hugging Face tokenizers' BpeTrainer)",
}

#: Words longer than this (in symbols) get a cached table of symbol offsets.
_LONG_WORD = 48

#: Events keep at most this many tied pairs (`tie_count` is always the full number).
MAX_TIES_KEPT = 64


@dataclass(frozen=True)
class TrainerSettings:
    """What to train and when to stop. Options are named values, not booleans.

    - units: "char" or "byte" (UTF-8 bytes, shown in GPT-2's byte-to-unicode form);
    - end_of_word: "none", "separate" (a marker symbol after each word) or "attached"
      (the marker glued to the last symbol, subword-nmt's `t</w>`); marker: its text;
    - tie_break: "first-seen", "lexicographic" or "smallest-id";
    - merges: how many merges at most (None: no limit); vocab_size: stop once the
      vocabulary has this many tokens (None: no target); min_count: stop when the best
      pair occurs fewer times than this (0 and 1 both mean: merge while any pair occurs);
    - top_n: how many rows of the pair table each event keeps.
    """

    units: str = "char"
    end_of_word: str = "none"
    marker: str = "</w>"
    tie_break: str = "first-seen"
    merges: int | None = 10
    vocab_size: int | None = None
    min_count: int = 1
    top_n: int = 20

    def __post_init__(self) -> None:
        _check_choice("units", self.units, UNITS)
        _check_choice("end of word", self.end_of_word, END_OF_WORD)
        _check_choice("tie rule", self.tie_break, TIE_RULES)
        if not isinstance(self.marker, str):
            raise TypeError(f"marker must be a str, not {type(self.marker).__name__}")
        if self.end_of_word != "none" and not self.marker:
            raise ValueError(
                "The end-of-word marker is empty. Type a marker such as '</w>' or '_', "
                "or set end of word to 'none'."
            )
        _check_count("merges", self.merges, minimum=0, optional=True)
        _check_count("vocabulary size", self.vocab_size, minimum=1, optional=True)
        _check_count("minimum count", self.min_count, minimum=0)
        _check_count("top N", self.top_n, minimum=0)


def _check_choice(what: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"Unknown {what} {value!r}. Choose one of: {', '.join(choices)}.")


def _check_count(what: str, value: object, *, minimum: int, optional: bool = False) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(
            f"The {what} must be a whole number, not {value!r}. Enter a number like 10."
        )
    if value < minimum:
        raise ValueError(f"The {what} must be at least {minimum}, not {value}.")


@dataclass(frozen=True, slots=True)
class CountChange:
    """A pair whose count a merge changed: before and after (0 means absent)."""

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
    top_pairs: tuple[tuple[Pair, int], ...]   # the pair table before the merge, best first
    count_changes: tuple[CountChange, ...]
    words_changed: tuple[tuple[int, tuple[int, ...]], ...]  # (word index, tokens after)
    merged_occurrences: int         # positions merged, weighted by word count
    vocab_size: int                 # after the merge
    corpus_length: int              # tokens in the whole corpus after the merge
    tokens_in_use: int              # distinct tokens the corpus uses after the merge
    tokens_retired: tuple[int, ...] = field(default=())  # tokens used no more after this merge

    @property
    def rank(self) -> int:
        return self.step


class BPETrainer:
    """Incremental BPE over a word table. Iterate `iter_merges()` for events.

    After construction, `vocab` holds the base symbols, `segmentations` each word's
    current tokens, and `corpus_length` the current number of tokens; all three advance
    as events are produced.
    """

    def __init__(self, words: WordTable, settings: TrainerSettings | None = None):
        if not isinstance(words, WordTable):
            raise TypeError(f"words must be a WordTable, not {type(words).__name__}")
        self.settings = s = settings or TrainerSettings()
        self.words = words
        if not words.words:
            raise ValueError("The corpus is empty. Add some words or text.")
        marker_body = b"" if s.units == "byte" else ""
        symbol_lists = [base_symbols(w, s.units, s.end_of_word) for w in words.words]
        base: set = {sym for syms in symbol_lists for sym in syms}
        if s.units == "byte":
            # Byte units cover any text: every byte, and every byte ending a word when
            # the marker is attached to the last symbol.
            base |= {(bytes((b,)), False) for b in range(256)}
            if s.end_of_word == "attached":
                base |= {(bytes((b,)), True) for b in range(256)}
        if s.end_of_word == "separate":
            base.add((marker_body, True))
        self.vocab = Vocab(s.units, s.marker, base)
        if s.vocab_size is not None and s.vocab_size < self.vocab.base_size:
            raise ValueError(
                f"A target vocabulary of {s.vocab_size} is smaller than the "
                f"{self.vocab.base_size} base symbols this corpus needs. Choose a target of "
                f"at least {self.vocab.base_size}."
            )
        get = self.vocab.get
        self.segmentations: list[list[int]] = [
            [get(body, eow) for body, eow in syms] for syms in symbol_lists
        ]
        self.counts: list[int] = list(words.counts)
        self.corpus_length = sum(len(seg) * c for seg, c in zip(self.segmentations, self.counts))
        # Token usage (weighted occurrences) tells which tokens the corpus still uses.
        self.usage: dict[int, int] = {}
        for seg, c in zip(self.segmentations, self.counts):
            for t in seg:
                self.usage[t] = self.usage.get(t, 0) + c
        self.base_tokens_in_use = len(self.usage)
        # Count every adjacent pair, weighted by word count, and index pair -> words.
        self.pair_count: dict[Pair, int] = {}
        self.pair_words: dict[Pair, set[int]] = {}
        for w, (seg, c) in enumerate(zip(self.segmentations, self.counts)):
            for p in zip(seg, seg[1:]):
                self.pair_count[p] = self.pair_count.get(p, 0) + c
                ws = self.pair_words.get(p)
                if ws is None:
                    self.pair_words[p] = {w}
                else:
                    ws.add(w)
        if not self.pair_count:
            raise ValueError(
                "Nothing to merge: every word is a single symbol, so there are no adjacent "
                "pairs. Use longer words, or add an end-of-word marker."
            )
        # The bucket queue: count -> [(tie key, pair)] kept sorted, so the winner and the
        # top rows of the table are read off the ends without sorting each step.
        self._buckets: dict[int, list] = {}
        self._sorted_counts: list[int] = []
        self._filed: dict[Pair, tuple] = {}   # pair -> the tie key it is filed under
        self._offsets: dict[int, list[int]] = {}  # long words' symbol offsets
        self._lengths: list[int] = []  # token id -> length of its body
        self._key = {
            "first-seen": self.first_seen_key,
            "smallest-id": lambda p: p,
            "lexicographic": self._lex_key,
        }[s.tie_break]
        self._best_last = s.tie_break == "lexicographic"  # the largest key wins
        for p, c in self.pair_count.items():
            self._bucket_add(p, c)
        self.step = 0
        self.stop_reason: str | None = None

    # ---- the bucket queue -------------------------------------------------------------
    def _bucket_add(self, p: Pair, c: int) -> None:
        key = self._filed[p] = self._key(p)
        b = self._buckets.get(c)
        if b is None:
            self._buckets[c] = [(key, p)]
            insort(self._sorted_counts, c)
        else:
            insort(b, (key, p))

    def _bucket_remove(self, p: Pair, c: int) -> None:
        b = self._buckets[c]
        del b[bisect_left(b, (self._filed.pop(p), p))]
        if not b:
            del self._buckets[c]
            del self._sorted_counts[bisect_left(self._sorted_counts, c)]

    # ---- tie rules --------------------------------------------------------------------
    def first_seen_key(self, p: Pair) -> tuple[int, int]:
        """(word index, offset) of the pair's first occurrence, reading the words in
        order of first appearance, each left to right."""
        words = self.pair_words[p]
        a, b = p
        while True:
            w = min(words)
            seg = self.segmentations[w]
            positions = _find_pair(seg, a, b, first_only=True)
            if positions:
                # The offset (in characters or bytes) rather than the symbol index: it
                # does not shift when a merge earlier in the word shortens the list, so
                # only pairs next to a merged position can change their key.
                if len(seg) > _LONG_WORD:
                    return (w, self._starts(w)[positions[0]])
                bodies = self.vocab.bodies
                return (w, sum(len(bodies[t]) for t in seg[: positions[0]]))
            words.discard(w)  # a stale entry: the word lost this pair earlier

    def _starts(self, w: int) -> list[int]:
        """Offset of each symbol of word w (cached until the word changes): a long word,
        e.g. a text with no pre-tokenizer, would otherwise be re-summed for every pair."""
        starts = self._offsets.get(w)
        if starts is None:
            lengths = self._lengths
            bodies = self.vocab.bodies
            lengths.extend(len(bodies[t]) for t in range(len(lengths), len(bodies)))
            starts = self._offsets[w] = list(
                accumulate(map(lengths.__getitem__, self.segmentations[w]), initial=0)
            )
        return starts

    def _lex_key(self, p: Pair) -> tuple[str, str, int, int]:
        disp = self.vocab.displays
        return (disp[p[0]], disp[p[1]], p[0], p[1])

    def bucket(self, count: int, limit: int | None = None) -> list[Pair]:
        """The pairs with this count in tie-rule order (the would-be winner first)."""
        b = self._buckets.get(count, [])
        if self._best_last:
            rows = b[::-1] if limit is None else b[: -limit - 1 : -1]
        else:
            rows = b if limit is None else b[:limit]
        return [p for _, p in rows]

    def top_pairs(self, n: int) -> list[tuple[Pair, int]]:
        """The current pair table's best `n` rows: count descending, then tie-rule order."""
        rows: list[tuple[Pair, int]] = []
        for c in reversed(self._sorted_counts):
            if len(rows) >= n:
                break
            rows.extend((p, c) for p in self.bucket(c, n - len(rows)))
        return rows

    # ---- the loop ---------------------------------------------------------------------
    def _should_stop(self) -> str | None:
        s = self.settings
        if s.merges is not None and self.step >= s.merges:
            return f"reached {s.merges} merges"
        if s.vocab_size is not None and len(self.vocab) >= s.vocab_size:
            return f"reached the target vocabulary size of {s.vocab_size}"
        if not self._sorted_counts:
            return "no pairs are left: every word is a single token"
        if self._sorted_counts[-1] < s.min_count:
            return (
                f"the most frequent pair occurs {self._sorted_counts[-1]} times, "
                f"below the minimum count of {s.min_count}"
            )
        return None

    def iter_merges(self) -> Iterator[MergeEvent]:
        """Yield one MergeEvent per merge until a stop condition holds.

        `stop_reason` says, in words, why it stopped.
        """
        while True:
            reason = self._should_stop()
            if reason is not None:
                self.stop_reason = reason
                return
            yield self._merge_once()

    def _merge_once(self) -> MergeEvent:
        s = self.settings
        # Find the most frequent pair; every pair at that count is a tie.
        best = self._sorted_counts[-1]
        ties = self.bucket(best, MAX_TIES_KEPT)
        tie_count = len(self._buckets[best])
        top = tuple(self.top_pairs(s.top_n)) if s.top_n else ()
        pair = ties[0]
        a, b = pair
        # Mint a token for it (or reuse one that another pair already made).
        vocab = self.vocab
        body = vocab.bodies[a] + vocab.bodies[b]
        new, is_new = vocab.add(body, vocab.eows[b])
        self.step += 1
        # Replace the pair in every word that has it. Only the pairs around each merged
        # position change; `pair_words` may list words that lost a pair since (it is a
        # superset, pruned lazily), so a word with no occurrence is skipped.
        delta: dict[Pair, int] = {}
        changed: list[tuple[int, tuple[int, ...]]] = []
        merged_total = 0
        pair_words = self.pair_words
        filed = self._filed
        first_seen = s.tie_break == "first-seen"
        dirty: set[Pair] = set()  # pairs whose first occurrence may have moved
        usage = self.usage
        segmentations, counts = self.segmentations, self.counts
        get = delta.get
        for w in sorted(pair_words.pop(pair)):
            old = segmentations[w]
            positions = _find_pair(old, a, b)
            if not positions:
                continue
            c = counts[w]
            merged_total += len(positions) * c
            seg: list[int] = []
            touched: list[Pair] = [pair]
            gained: list[Pair] = []
            start = 0
            n = len(old)
            last = len(positions) - 1
            for idx, j in enumerate(positions):
                seg.extend(old[start:j])
                seg.append(new)
                start = j + 2
                if j > 0:
                    if idx and positions[idx - 1] + 2 == j:  # right after the previous merge
                        lost, won = (b, a), (new, new)
                    else:
                        x = old[j - 1]
                        lost, won = (x, a), (x, new)
                    delta[lost] = get(lost, 0) - c
                    delta[won] = get(won, 0) + c
                    touched.append(lost)
                    gained.append(won)
                if j + 2 < n and not (idx < last and positions[idx + 1] == j + 2):
                    y = old[j + 2]
                    lost, won = (b, y), (new, y)
                    delta[lost] = get(lost, 0) - c
                    delta[won] = get(won, 0) + c
                    touched.append(lost)
                    gained.append(won)
            seg.extend(old[start:])
            delta[pair] = get(pair, 0) - len(positions) * c
            segmentations[w] = seg
            self._offsets.pop(w, None)
            changed.append((w, tuple(seg)))
            for p in gained:
                ws = pair_words.get(p)
                if ws is None:
                    pair_words[p] = {w}
                else:
                    ws.add(w)
            if first_seen:
                # Only a word at or before a pair's first word can move its first occurrence.
                for p in touched + gained:
                    f = filed.get(p)
                    if f is None or f[0] >= w:
                        dirty.add(p)
        # Apply the count changes to the table and the bucket queue.
        changes: list[CountChange] = []
        pair_count = self.pair_count
        for p, d in delta.items():
            if d == 0:
                continue
            before = pair_count.get(p, 0)
            after = before + d
            if before:
                self._bucket_remove(p, before)
            if after:
                pair_count[p] = after
                self._bucket_add(p, after)
            else:
                del pair_count[p]
                pair_words.pop(p, None)
            changes.append(CountChange(p, before, after))
            dirty.discard(p)  # refiled above under a fresh key
        for p in dirty:
            c = pair_count.get(p)
            if c is not None and self._key(p) != filed[p]:
                self._bucket_remove(p, c)
                self._bucket_add(p, c)
        # Track which tokens the corpus still uses.
        retired: list[int] = []
        usage[new] = usage.get(new, 0) + merged_total
        for t in (a, b) if a != b else (a,):
            usage[t] -= merged_total * (2 if a == b else 1)
            if usage[t] == 0:
                del usage[t]
                retired.append(t)
        self.corpus_length -= merged_total
        disp = vocab.displays
        return MergeEvent(
            step=self.step,
            pair=pair,
            pair_text=(disp[a], disp[b]),
            token_id=new,
            token=disp[new],
            is_new_token=is_new,
            count=best,
            ties=tuple(ties),
            tie_count=tie_count,
            tie_break=s.tie_break,
            top_pairs=top,
            count_changes=tuple(changes),
            words_changed=tuple(changed),
            merged_occurrences=merged_total,
            vocab_size=len(vocab),
            corpus_length=self.corpus_length,
            tokens_in_use=len(usage),
            tokens_retired=tuple(retired),
        )


def _find_pair(seg: list[int], a: int, b: int, first_only: bool = False) -> list[int]:
    """Start positions of the non-overlapping (a, b) in `seg`, left to right.

    >>> _find_pair([1, 1, 1, 2, 1, 1], 1, 1)
    [0, 4]
    """
    found: list[int] = []
    i = 0
    n = len(seg) - 1
    index = seg.index
    try:
        while i < n:
            j = index(a, i, n)
            if seg[j + 1] == b:
                found.append(j)
                if first_only:
                    break
                i = j + 2
            else:
                i = j + 1
    except ValueError:
        pass
    return found
