"""BPE training as an iterator of merge events, one per merge.

The loop, as in Sennrich et al. (2016), Algorithm 1:
  1. count every adjacent pair of symbols, weighted by word count;
  2. find the most frequent pair (ties broken by a named rule);
  3. mint a token for it and replace the pair everywhere;
  4. repeat until the merge budget, the target vocabulary size or the minimum count stops it.

Counts are kept incrementally: a pair -> words index finds the words a merge touches,
and only the pairs around each merged position change. A bucket queue (count -> the set
of pairs with that count) gives the maximum; the buckets that are read (for the winner,
its ties and the top rows of the table) are also kept sorted in tie-rule order. Because
a merge never raises any count above the count being merged, the maximum never goes up,
so the queue is exact, not lazy.

Each `MergeEvent` carries everything a view needs about its step, so a page never
recomputes BPE: the pair table before the merge (top N), the ties and the rule that
chose, the count changes, the words it changed, and the figures after it.

What this module does not do: pre-tokenization (see pretokenize.py), reading files
(corpus.py), or encoding new text (encode/). The tie rules are objects of their own
(tie_rules.py); the trainer reads three things off the chosen one: what its key is made
of, whether the largest key wins, and whether a merge can move a key.
"""
from __future__ import annotations

from bisect import bisect_left, insort
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, Callable, Iterator

from ..corpus import WordTable
from ..tie_rules import tie_rule
from ..vocab import END_OF_WORD, UNITS, Body, Vocab
from .events import MergeEvent, Pair

__all__ = ["marker_clash", "TrainerSettings", "BPETrainer", "MAX_TIES_KEPT", "MAX_MARKER_LENGTH"]


#: Words longer than this (in symbols) get a cached table of symbol offsets.
_LONG_WORD = 48

#: First-seen tie keys pack (word index, offset) into one int: word << 40 | offset.
_OFFSET_BITS = 40

#: The longest end-of-word marker accepted.
MAX_MARKER_LENGTH = 12
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
    - top_n: how many rows of the pair table each event keeps;
    - max_token_text: stop once the tokens' bodies add up to this many characters (or
      bytes) in all (None: no limit). Each merged token keeps its whole text, so a corpus
      of long words (or one text with no pre-tokenizer) that goes on merging pairs seen
      once builds tokens as long as the words, and memory grows with merges times word
      length; this bounds it. The app and the command line set it.
    """

    units: str = "char"
    end_of_word: str = "none"
    marker: str = "</w>"
    tie_break: str = "first-seen"
    merges: int | None = 10
    vocab_size: int | None = None
    min_count: int = 1
    top_n: int = 20
    max_token_text: int | None = None

    def __post_init__(self) -> None:
        _check_choice("units", self.units, UNITS)
        _check_choice("end of word", self.end_of_word, END_OF_WORD)
        tie_rule(self.tie_break)
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
        _check_count("token text limit", self.max_token_text, minimum=1, optional=True)
        if self.end_of_word != "none" and len(self.marker) > MAX_MARKER_LENGTH:
            raise ValueError(
                f"The end-of-word marker is {len(self.marker):,} characters long; markers may be "
                f"at most {MAX_MARKER_LENGTH} (such as '</w>' or '_')."
            )


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


def marker_clash(settings: TrainerSettings, words: WordTable) -> str | None:
    """A warning when the end-of-word marker is also text of the corpus, else None.

    The trainer keeps them apart (a token is its body plus an end-of-word flag), but
    written out they look the same: with marker "e", the pair (w, e) and the pair
    (w, end of word) are both "w e" in the merge list and the downloads.

    >>> marker_clash(TrainerSettings(end_of_word="separate", marker="e"), WordTable(("we",), (1,)))[:46]
    "The end-of-word marker 'e' also occurs in the "
    """
    if settings.end_of_word == "none":
        return None
    word = next((w for w in words.words if settings.marker in w), None)
    if word is None:
        return None
    return (
        f"The end-of-word marker {settings.marker!r} also occurs in the corpus (in the word "
        f"{word[:40]!r}). Training keeps the two apart, but written out they look the same, so "
        "the merge list, the vocabulary and the downloads show some tokens and pairs twice. "
        "Choose a marker the text does not use, such as '</w>'."
    )


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
        self.vocab, self.segmentations = _base_segmentations(words.words, s)
        if s.vocab_size is not None and s.vocab_size < self.vocab.base_size:
            raise ValueError(
                f"A target vocabulary of {s.vocab_size} is smaller than the "
                f"{self.vocab.base_size} base symbols this corpus needs. Choose a target of "
                f"at least {self.vocab.base_size}."
            )
        segs = self.segmentations
        self.counts: list[int] = list(words.counts)
        counts = self.counts
        self.corpus_length = sum(len(seg) * c for seg, c in zip(segs, counts))
        # Token usage (weighted occurrences) tells which tokens the corpus still uses.
        used = [0] * len(self.vocab)  # base ids are 0..base_size-1: a list is faster
        for seg, c in zip(segs, counts):
            for t in seg:
                used[t] += c
        self.usage: dict[int, int] = {t: n for t, n in enumerate(used) if n}
        usage = self.usage
        self.base_tokens_in_use = len(usage)
        # Count every adjacent pair, weighted by word count, and index pair -> words.
        # The first-seen rule also files each pair under its first occurrence: before any
        # merge every symbol but a separate marker (always last) is one character or
        # byte long, so the pair at position i starts at offset i.
        pair_count: dict[Pair, int] = {}
        pair_words: dict[Pair, set[int]] = {}
        first: dict[Pair, int] = {}
        self.rule = rule = tie_rule(s.tie_break)
        first_seen = rule.key == "first-seen"
        get_words = pair_words.get
        for w, seg in enumerate(segs):
            c = counts[w]
            if first_seen:
                for i, p in enumerate(zip(seg, seg[1:])):
                    ws = get_words(p)
                    if ws is None:
                        pair_words[p] = {w}
                        pair_count[p] = c
                        first[p] = w << _OFFSET_BITS | i
                    else:
                        ws.add(w)
                        pair_count[p] += c
            else:
                for p in zip(seg, seg[1:]):
                    ws = get_words(p)
                    if ws is None:
                        pair_words[p] = {w}
                        pair_count[p] = c
                    else:
                        ws.add(w)
                        pair_count[p] += c
        if not pair_count:
            raise ValueError(
                "Nothing to merge: every word is a single symbol, so there are no adjacent "
                "pairs. Use longer words, or add an end-of-word marker."
            )
        self.pair_count = pair_count
        self.pair_words = pair_words
        # The bucket queue: count -> the set of pairs with that count (`_members`), and
        # for the buckets that have been read (the top ones) a list sorted in tie-rule
        # order (`_rows`), kept sorted from then on, so the winner and the top rows of
        # the table are read off the ends without sorting each step. The many buckets
        # at low counts that are never read cost a set operation per change. Under
        # smallest-id a pair is its own sort key; the other rules sort (key, pair) and
        # keep each pair's key in `_filed` while it is known to be current.
        self._plain = rule.key == "ids"  # a pair is its own sort key
        self._first_seen = first_seen
        self._best_last = rule.largest_first  # the largest key wins
        self._offsets: dict[int, list[int]] = {}  # long words' symbol offsets (first-seen)
        self._lengths: list[int] = []  # token id -> length of its body
        self._filed: dict[Pair, Any] = first  # empty unless first-seen
        members: dict[int, set[Pair]] = {}
        for p, c in pair_count.items():
            ps = members.get(c)
            if ps is None:
                members[c] = {p}
            else:
                ps.add(p)
        self._members = members
        self._rows: dict[int, list] = {}
        self._sorted_counts: list[int] = sorted(members)
        self.step = 0
        self.stop_reason: str | None = None

    # ---- tie rules --------------------------------------------------------------------
    def _first_key(self, p: Pair) -> int:
        """Where the pair first occurs, reading the words in order of first appearance,
        each left to right, packed into one int (word << _OFFSET_BITS | offset in
        characters or bytes), which sorts like (word, offset) and compares faster."""
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
                    return w << _OFFSET_BITS | self._starts(w)[positions[0]]
                bodies = self.vocab.bodies
                return w << _OFFSET_BITS | sum(len(bodies[t]) for t in seg[: positions[0]])
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

    def _lex_key(self, p: Pair) -> tuple[str, str]:
        disp = self.vocab.displays
        return (disp[p[0]], disp[p[1]])

    def _view(self, count: int) -> list:
        """The bucket of `count` sorted in tie-rule order (built on first use, then kept
        sorted as pairs come and go)."""
        row = self._rows.get(count)
        if row is None:
            pairs = self._members[count]
            if self._plain:
                row = sorted(pairs)
            else:
                filed = self._filed
                key_of = self._first_key if self._first_seen else self._lex_key
                row = []
                for p in pairs:
                    key = filed.get(p)
                    if key is None:
                        key = filed[p] = key_of(p)
                    row.append((key, p))
                row.sort()
            self._rows[count] = row
        return row

    def _table(self, n: int) -> tuple[tuple[Pair, ...], tuple[int, ...]]:
        """The best `n` rows of the pair table as two columns: pairs, counts."""
        pairs: list[Pair] = []
        counts: list[int] = []
        for c in reversed(self._sorted_counts):
            need = n - len(pairs)
            if need <= 0:
                break
            row = self._view(c)
            part = row[: -need - 1 : -1] if self._best_last else row[:need]
            pairs += part if self._plain else [p for _, p in part]
            counts += [c] * len(part)
        return tuple(pairs), tuple(counts)

    # ---- the loop ---------------------------------------------------------------------
    def _should_stop(self) -> str | None:
        s = self.settings
        if s.merges is not None and self.step >= s.merges:
            return f"reached {s.merges} merges"
        if s.vocab_size is not None and len(self.vocab) >= s.vocab_size:
            return f"reached the target vocabulary size of {s.vocab_size}"
        if s.max_token_text is not None and self.vocab.body_size >= s.max_token_text:
            return (
                f"the tokens' text reached {self.vocab.body_size:,} characters in all, the limit of "
                f"{s.max_token_text:,} that keeps a run's memory bounded (long words merged pair by "
                "pair build long tokens; a pre-tokenizer that splits the text avoids it)"
            )
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
        s = self.settings
        # The stop conditions of `_should_stop`, tested inline on each step.
        merges = s.merges if s.merges is not None else -1
        size = s.vocab_size if s.vocab_size is not None else -1
        min_count = s.min_count
        vocab = self.vocab
        bodies = vocab.bodies
        text_limit = s.max_token_text if s.max_token_text is not None else float("inf")
        sorted_counts = self._sorted_counts  # updated in place by each merge
        while (
            self.step != merges
            and len(bodies) != size
            and vocab.body_size < text_limit
            and sorted_counts
            and sorted_counts[-1] >= min_count
        ):
            yield self._merge_once()
        self.stop_reason = self._should_stop()

    def _merge_once(self) -> MergeEvent:
        """One merge, in the four steps of the algorithm's loop."""
        best, ties, tie_count, table = self._pick()
        pair = ties[0]
        a, b = pair
        # Mint a token for it (or reuse one that another pair already made).
        new, is_new = self.vocab.add_merged(a, b)
        self.step += 1
        delta, changed, merged = self._merge_everywhere(pair, new)
        changes = self._apply_counts(delta, changed)
        retired = self._track_usage(a, b, new, merged)
        self.corpus_length -= merged
        return self._emit(pair, new, is_new, best, ties, tie_count, table, changes, changed, merged, retired)

    def _pick(self) -> tuple[int, tuple[Pair, ...], int, tuple[tuple[Pair, ...], tuple[int, ...]]]:
        """The top count, the pairs tied at it in tie-rule order (winner first; the first
        MAX_TIES_KEPT), how many tie, and the pair table's top rows as two columns."""
        best = self._sorted_counts[-1]
        row = self._rows.get(best)
        if row is None:
            row = self._view(best)
        tie_count = len(row)
        head = row[: -MAX_TIES_KEPT - 1 : -1] if self._best_last else row[:MAX_TIES_KEPT]
        ties = tuple(head) if self._plain else tuple([p for _, p in head])
        top_n = self.settings.top_n
        if top_n <= tie_count and top_n <= MAX_TIES_KEPT:
            table = ties[:top_n], (best,) * top_n
        else:
            table = self._table(top_n)
        return best, ties, tie_count, table

    def _merge_everywhere(self, pair: Pair, new: int) -> tuple[dict[Pair, int], list[int], int]:
        """Replace the pair by `new` in every word that has it. Returns the count change
        of every pair around a merged position, the words changed (ascending) and the
        occurrences merged (weighted by word count).

        This is the hot loop of training, written for speed: locals instead of
        attributes, one path for the common case of a word where the pair's left token
        occurs once (so the pair occurs at most once). `pair_words` may list words that
        lost a pair since (it is a superset, pruned lazily), so a word with no
        occurrence is skipped.
        """
        a, b = pair
        delta: dict[Pair, int] = {}
        get = delta.get
        changed: list[int] = []  # the words changed
        merged_total = 0
        pair_words = self.pair_words
        words_of = pair_words.get
        segmentations, counts = self.segmentations, self.counts
        # In the common case the counts are gathered per neighbour, keyed by the
        # neighbour's id (cheaper than a pair), and turned into pairs after the loop:
        # a left neighbour x turns (x, a) into (x, new), a right one y turns (b, y) into
        # (new, y).
        left_words: dict[int, list[int]] = {}
        right_words: dict[int, list[int]] = {}
        for w in sorted(pair_words.pop(pair)):
            old = segmentations[w]
            k = old.count(a)
            if k == 1:
                # The common case: `a` occurs once, so the pair at most once.
                j = old.index(a)
                n = len(old)
                if j + 1 == n or old[j + 1] != b:
                    continue  # a stale entry
                c = counts[w]
                merged_total += c
                if j:
                    ws = left_words.get(old[j - 1])
                    if ws is None:
                        left_words[old[j - 1]] = [w]
                    else:
                        ws.append(w)
                if j + 2 < n:
                    ws = right_words.get(old[j + 2])
                    if ws is None:
                        right_words[old[j + 2]] = [w]
                    else:
                        ws.append(w)
                old[j : j + 2] = (new,)
                changed.append(w)
                continue
            if not k:
                continue  # a stale entry
            positions = _find_pair(old, a, b)
            if not positions:
                continue
            c = counts[w]
            merged_total += len(positions) * c
            seg: list[int] = []
            start = 0
            n = len(old)
            last = len(positions) - 1
            for idx, j in enumerate(positions):
                seg.extend(old[start:j])
                seg.append(new)
                start = j + 2
                if j > 0:
                    if idx and positions[idx - 1] + 2 == j:  # right after the previous merge
                        _shift(delta, pair_words, (b, a), (new, new), c, w)
                    else:
                        _shift(delta, pair_words, (old[j - 1], a), (old[j - 1], new), c, w)
                if j + 2 < n and not (idx < last and positions[idx + 1] == j + 2):
                    _shift(delta, pair_words, (b, old[j + 2]), (new, old[j + 2]), c, w)
            seg.extend(old[start:])
            segmentations[w] = seg
            changed.append(w)
        count_of_word = counts.__getitem__
        for x, ws_x in left_words.items():
            c = counts[ws_x[0]] if len(ws_x) == 1 else sum(map(count_of_word, ws_x))
            lost, won = (x, a), (x, new)
            delta[lost] = get(lost, 0) - c
            # `a` occurred once in each of these words and is gone: so is (x, a).
            found = words_of(lost)
            if found is not None:
                found.difference_update(ws_x)
            delta[won] = get(won, 0) + c
            found = words_of(won)
            if found is None:
                pair_words[won] = set(ws_x)
            else:
                found.update(ws_x)
        for y, ws_y in right_words.items():
            c = counts[ws_y[0]] if len(ws_y) == 1 else sum(map(count_of_word, ws_y))
            lost, won = (b, y), (new, y)
            delta[lost] = get(lost, 0) - c
            delta[won] = get(won, 0) + c
            found = words_of(won)
            if found is None:
                pair_words[won] = set(ws_y)
            else:
                found.update(ws_y)
        delta[pair] = get(pair, 0) - merged_total
        return delta, changed, merged_total

    def _apply_counts(self, delta: dict[Pair, int], changed: list[int]) -> tuple[list[Pair], list[int], list[int]]:
        """Apply the count changes to the pair table and the bucket queue (and, under a
        first-seen rule, re-key the pairs whose first occurrence may have moved).
        Returns the pairs whose count changed with their counts before and after."""
        sorted_counts = self._sorted_counts
        plain = self._plain
        pair_words = self.pair_words
        first_seen = self._first_seen
        if first_seen:
            for w in changed:
                self._offsets.pop(w, None)
            # Only a word at or before a pair's first word can move its first occurrence;
            # the first changed word bounds them all.
            first_changed = changed[0] << _OFFSET_BITS if changed else 0
        dirty: list[Pair] = []  # first-seen: pairs whose first occurrence may have moved
        changed_pairs: list[Pair] = []
        counts_before: list[int] = []
        counts_after: list[int] = []
        pair_count = self.pair_count
        count_of = pair_count.get
        filed = self._filed
        # (Not kept on self: a bound method there would make a reference cycle, and the
        # trainer's large tables would then wait for the cyclic collector.)
        key_of = self._first_key if first_seen else self._lex_key
        members, rows = self._members, self._rows
        for p, d in delta.items():
            if not d:
                if first_seen:
                    f = filed.get(p)
                    if f is not None and f >= first_changed:
                        dirty.append(p)
                continue
            before = count_of(p, 0)
            after = before + d
            if before:
                ps = members[before]
                if len(ps) == 1:
                    del members[before]
                    rows.pop(before, None)
                    del sorted_counts[bisect_left(sorted_counts, before)]
                else:
                    ps.discard(p)
                    row = rows.get(before)
                    if row is not None:
                        del row[bisect_left(row, p if plain else (filed[p], p))]
            if after:
                pair_count[p] = after
                bucket = members.get(after)
                if bucket is None:
                    members[after] = {p}
                    insort(sorted_counts, after)
                    row = None
                else:
                    bucket.add(p)
                    row = rows.get(after)
                if row is None:
                    if not plain:
                        filed.pop(p, None)  # its key is worked out if its bucket is read
                elif plain:
                    insort(row, p)
                else:
                    key = filed[p] = key_of(p)
                    insort(row, (key, p))
            else:
                del pair_count[p]
                pair_words.pop(p, None)
                if not plain:
                    filed.pop(p, None)
            changed_pairs.append(p)
            counts_before.append(before)
            counts_after.append(after)
        for p in dirty:
            row = rows.get(pair_count[p])
            if row is None:
                del filed[p]  # its bucket is not sorted: the key is worked out when it is
                continue
            key = key_of(p)
            if key != filed[p]:
                del row[bisect_left(row, (filed[p], p))]
                filed[p] = key
                insort(row, (key, p))
        return changed_pairs, counts_before, counts_after

    def _track_usage(self, a: int, b: int, new: int, merged: int) -> list[int]:
        """Update which tokens the corpus still uses; return the ones it stopped using."""
        usage = self.usage
        retired: list[int] = []
        usage[new] = usage.get(new, 0) + merged
        for t in (a, b) if a != b else (a,):
            left = usage[t] - (merged if a != b else 2 * merged)
            if left:
                usage[t] = left
            else:
                del usage[t]
                retired.append(t)
        return retired

    def _emit(self, pair, new, is_new, best, ties, tie_count, table, changes, changed, merged, retired) -> MergeEvent:
        """The event of this merge.

        Built without the dataclass's __init__: a frozen dataclass's __init__ sets the
        fields one object.__setattr__ at a time, which costs more than a late step's own
        work. Every field is given here (tests compare events with MergeEvent(...)).
        """
        a, b = pair
        vocab = self.vocab
        disp = vocab.displays
        changed_pairs, counts_before, counts_after = changes
        event = _new_object(MergeEvent)
        _set_attribute(
            event,
            "__dict__",
            {
                "step": self.step,
                "pair": pair,
                "pair_text": (disp[a], disp[b]),
                "token_id": new,
                "token": disp[new],
                "is_new_token": is_new,
                "count": best,
                "ties": ties,
                "tie_count": tie_count,
                "tie_break": self.settings.tie_break,
                "table_pairs": table[0],
                "table_counts": table[1],
                "changed_pairs": tuple(changed_pairs),
                "counts_before": tuple(counts_before),
                "counts_after": tuple(counts_after),
                "changed_words": tuple(changed),
                "merged_occurrences": merged,
                "vocab_size": len(vocab.bodies),
                "corpus_length": self.corpus_length,
                "tokens_in_use": len(self.usage),
                "tokens_retired": tuple(retired),
            },
        )
        return event


_new_object = object.__new__
_set_attribute = object.__setattr__


def _base_segmentations(words: tuple[str, ...], s: TrainerSettings) -> tuple[Vocab, list[list[int]]]:
    """The base vocabulary and every word as base-symbol ids.

    The same as `base_symbols` word by word, but each distinct character or byte is
    looked up once instead of once per occurrence.
    """
    eow_rule = s.end_of_word
    if s.units == "byte":
        seqs: list = [w.encode("utf-8") for w in words]
        # Byte units cover any text: every byte, and every byte ending a word when the
        # marker is attached to the last symbol.
        plain: set = set(range(256))
        ends: set = plain if eow_rule == "attached" else set()
        body: Callable[[Any], Body] = _byte_body
        empty: Body = b""
    else:
        seqs = list(words)
        if eow_rule == "attached":
            plain = set().union(*(w[:-1] for w in words))
            ends = {w[-1] for w in words if w}
        else:
            plain = set().union(*words)
            ends = set()
        body = str
        empty = ""
    base = {(body(e), False) for e in plain} | {(body(e), True) for e in ends}
    if eow_rule == "separate":
        base.add((empty, True))
    vocab = Vocab(s.units, s.marker, base)
    get = vocab.get
    plain_ids = {e: get(body(e), False) for e in plain}
    plain_id: Callable[[Any], int | None]
    if s.units == "byte":  # bytes iterate as ints 0-255: a list lookup is faster
        plain_id = [plain_ids[e] for e in range(256)].__getitem__
    else:
        plain_id = plain_ids.__getitem__
    if eow_rule == "attached":
        end_id = {e: get(body(e), True) for e in ends}
        segs = [
            [*map(plain_id, seq[:-1]), end_id[seq[-1]]] if seq else [] for seq in seqs
        ]
    else:
        segs = [list(map(plain_id, seq)) for seq in seqs]
        if eow_rule == "separate":
            marker_id = get(empty, True)
            for seg in segs:
                seg.append(marker_id)
    return vocab, segs  # type: ignore[return-value]  # every base symbol has an id


def _byte_body(value: int) -> bytes:
    return bytes((value,))


def _shift(delta: dict, pair_words: dict, lost: Pair, won: Pair, c: int, w: int) -> None:
    """Move word w's count c from pair `lost` to pair `won` (a word where the merged
    pair occurs more than once)."""
    delta[lost] = delta.get(lost, 0) - c
    delta[won] = delta.get(won, 0) + c
    ws = pair_words.get(won)
    if ws is None:
        pair_words[won] = {w}
    else:
        ws.add(w)


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
