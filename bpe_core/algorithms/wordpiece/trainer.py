"""The WordPiece trainer: score every pair, merge the best, repeat (see the package doc).

**What a merge costs (incremental training).** Nothing is recounted from scratch. A
pair -> words index finds the words that hold the pair; only those are rewritten, and
their pair counts are corrected by difference (old pairs of the word out, new pairs in).
But the score of a pair depends on its parts' counts too, and a merge changes three
token counts: a and b lose the merged occurrences, ab gains them. So every pair that
contains a, b or ab is re-scored, even in words the merge never touched; a token ->
pairs index lists them. The cost of one merge is therefore
O(letters of the words changed + pairs containing a, b or ab), each re-scored pair
being one push onto a max-heap of scores (O(log H)); stale heap entries are skipped
when they surface, and dropped in one pass when they outnumber the live ones. A frequent
continuation such as `##e` sits in hundreds of pairs, so a merge that uses it re-scores
them all: this, not the rewriting of words, is what a WordPiece step pays beyond a BPE
step (bench/bench_wordpiece.py measures both: pairs re-scored per merge and ms per step).
Each event records `rescored_pairs`.
"""
from __future__ import annotations

from heapq import heapify, heappop, heappush
from itertools import count as count_from
from typing import Iterator

from bpe_core import WordTable
from bpe_core.tie_rules import tie_rule

from .events import Pair, ScoreRow, WordPieceEvent
from .settings import WordPieceSettings

__all__ = ["MAX_TIES_KEPT", "WordPieceTrainer", "initial_split", "merged_token"]

#: Events keep at most this many tied pairs (`tie_count` is always the full number).
MAX_TIES_KEPT = 64

_FIRST_SEEN_BITS = 40  # first-seen keys pack (word, offset) as word << 40 | offset


def initial_split(word: str, prefix: str = "##") -> list[str]:
    """A word's first character, then each other character with the prefix.

    >>> initial_split("hugs")
    ['h', '##u', '##g', '##s']
    """
    return [ch if i == 0 else prefix + ch for i, ch in enumerate(word)]


def merged_token(left: str, right: str, prefix: str = "##") -> str:
    """The token a merge makes: the right part loses its prefix.

    >>> merged_token("h", "##u"), merged_token("##g", "##s")
    ('hu', '##gs')
    """
    return left + right[len(prefix):] if right.startswith(prefix) else left + right


def _merge_word(seg: list[int], a: int, b: int, new: int) -> tuple[list[int], int]:
    """Replace each (a, b) by `new`, left to right; return the tokens and the count.

    >>> _merge_word([1, 1, 1], 1, 1, 9)
    ([9, 1], 1)
    """
    out: list[int] = []
    i, n, merged = 0, len(seg), 0
    while i < n:
        if seg[i] == a and i + 1 < n and seg[i + 1] == b:
            out.append(new)
            i += 2
            merged += 1
        else:
            out.append(seg[i])
            i += 1
    return out, merged


def _pairs_of(seg: list[int]) -> dict[Pair, int]:
    """Adjacent pairs of one word with their counts (overlaps counted).

    >>> _pairs_of([1, 1, 1, 2])
    {(1, 1): 2, (1, 2): 1}
    """
    out: dict[Pair, int] = {}
    for p in zip(seg, seg[1:]):
        out[p] = out.get(p, 0) + 1
    return out


# ---- the trainer ---------------------------------------------------------------------
class WordPieceTrainer:
    """Incremental WordPiece over a word table. Iterate `iter_merges()` for events.

    `tokens` (id -> string), `segmentations` (each word's token ids) and `corpus_length`
    advance as events are produced.
    """

    def __init__(self, words: WordTable, settings: WordPieceSettings | None = None):
        if not isinstance(words, WordTable):
            raise TypeError(f"words must be a WordTable, not {type(words).__name__}")
        s = self.settings = settings or WordPieceSettings()
        if not isinstance(s, WordPieceSettings):
            raise TypeError(f"settings must be WordPieceSettings, not {type(s).__name__}")
        if not words.words:
            raise ValueError("The corpus is empty. Add some words or text.")
        if not all(words.words):
            raise ValueError("The word table holds an empty word. Remove it.")
        self.words = words
        prefix = s.prefix
        specials = s.vocab_specials
        alphabet = {sym for w in words.words for sym in initial_split(w, prefix)}
        self.tokens: list[str] = list(specials) + sorted(alphabet - set(specials))
        self._ids = {t: i for i, t in enumerate(self.tokens)}
        self.base_size = len(self.tokens)
        if s.vocab_size is not None and s.vocab_size < self.base_size:
            raise ValueError(
                f"A target vocabulary of {s.vocab_size} is smaller than the {self.base_size} "
                f"tokens this corpus starts with ({len(specials)} special tokens and "
                f"{self.base_size - len(specials)} symbols). Choose a target of at least {self.base_size}."
            )
        ids = self._ids
        self.segmentations = [[ids[t] for t in initial_split(w, prefix)] for w in words.words]
        self.counts = list(words.counts)
        self._count_corpus()
        if not self.pair_count:
            raise ValueError(
                "Nothing to merge: every word is a single character, so there are no "
                "adjacent pairs. Use longer words."
            )
        self.corpus_length = sum(len(seg) * c for seg, c in zip(self.segmentations, self.counts))
        self.initial_corpus_length = self.corpus_length
        self._start_heaps()
        self.step = 0
        self.stop_reason: str | None = None

    def _count_corpus(self) -> None:
        """Token counts (occurrences weighted by word count), pair counts, and the
        indexes a merge needs: pair -> words holding it, token -> pairs containing it."""
        self.token_count = [0] * len(self.tokens)
        self.pair_count: dict[Pair, int] = {}
        self.pair_words: dict[Pair, set[int]] = {}
        self.token_pairs: dict[int, set[Pair]] = {}
        for w, (seg, c) in enumerate(zip(self.segmentations, self.counts)):
            for t in seg:
                self.token_count[t] += c
            for p, n in _pairs_of(seg).items():
                if p in self.pair_count:
                    self.pair_count[p] += n * c
                    self.pair_words[p].add(w)
                else:
                    self.pair_count[p] = n * c
                    self.pair_words[p] = {w}
                    self._index_pair(p)

    def _start_heaps(self) -> None:
        # Two lazy max-heaps (min-heaps of negated keys): one by score, one by raw count
        # (what BPE would pick). An entry is (key, tie key, sequence number, pair), so
        # the heap's order is the score table's order, ties in tie-rule order. An entry
        # is live while its sequence number is the pair's current one; others are stale
        # and skipped. The score key is the fraction times 2**shift, floored: an exact
        # stand-in for the fraction. Equal fractions give equal keys; two different
        # ones, with denominators count(a) x count(b) of at most L**2 (L: tokens in the
        # corpus, which merges only lower), differ by at least 1 / L**4 >= 2**-shift,
        # so their keys differ as well.
        self._shift = 4 * self.corpus_length.bit_length()
        rule = tie_rule(self.settings.tie_break)
        self._tie_kind, self._tie_largest = rule.key, rule.largest_first
        self._seq = count_from()
        self._first: dict[Pair, int] = {}  # first-seen keys, dropped when a pair's words change
        self._reversed: dict[int, tuple[int, ...]] = {}  # lexicographic: a token's descending key
        self._score_live: dict[Pair, int] = {}
        self._count_live: dict[Pair, int] = {}
        self._score_heap: list = []
        self._count_heap: list = []
        for p in self.pair_count:
            self._push(p, score=True, count=True, sift=False)
        heapify(self._score_heap)
        heapify(self._count_heap)

    def _index_pair(self, p: Pair) -> None:
        for t in p:
            ps = self.token_pairs.get(t)
            if ps is None:
                self.token_pairs[t] = {p}
            else:
                ps.add(p)

    def _unindex_pair(self, p: Pair) -> None:
        for t in p:
            ps = self.token_pairs.get(t)
            if ps is not None:
                ps.discard(p)

    def _push(self, p: Pair, *, score: bool, count: bool, sift: bool = True) -> None:
        """File the pair's current score and/or count in the heaps (a new live entry)."""
        tie = self._tie_key(p)
        n = self.pair_count[p]
        add = heappush if sift else list.append  # at the start, one heapify follows
        if score:
            k = self._score_live[p] = next(self._seq)
            tc = self.token_count
            add(self._score_heap, (-((n << self._shift) // (tc[p[0]] * tc[p[1]])), tie, k, p))
        if count:
            k = self._count_live[p] = next(self._seq)
            add(self._count_heap, (-n, tie, k, p))

    # ---- scores and tie rules ---------------------------------------------------------
    def row(self, p: Pair) -> ScoreRow:
        """The pair's current score-table row."""
        return ScoreRow(p, self.pair_count[p], self.token_count[p[0]], self.token_count[p[1]])

    def _first_key(self, p: Pair) -> int:
        key = self._first.get(p)
        if key is None:
            w = min(self.pair_words[p])
            seg = self.segmentations[w]
            i = next(i for i in range(len(seg) - 1) if seg[i] == p[0] and seg[i + 1] == p[1])
            # Offsets in characters, not token positions: they do not move when a merge
            # earlier in the word shortens it, so a cached key stays right until the
            # pair itself gains or loses an occurrence.
            strip = len(self.settings.prefix)
            offset = (len(self.tokens[seg[0]]) + sum(len(self.tokens[t]) - strip for t in seg[1:i])) if i else 0
            key = self._first[p] = w << _FIRST_SEEN_BITS | offset
        return key

    def _tie_key(self, p: Pair):
        """A key that sorts the pair ahead of the pairs it wins a tie against: the tie
        rule's key (`TieRule.key`), turned round when its largest key wins."""
        kind, largest = self._tie_kind, self._tie_largest
        if kind == "first-seen":
            key = self._first_key(p)
            return -key if largest else key
        if kind == "ids":
            return (-p[0], -p[1]) if largest else p
        # texts (the settings refuse any other kind)
        if not largest:
            return self.tokens[p[0]], self.tokens[p[1]]
        # The largest (left, right) strings win, so each token's key is its code points
        # negated; the 1 at the end puts a string after its extensions.
        keys = self._reversed
        for t in p:
            if t not in keys:
                keys[t] = (*(-ord(ch) for ch in self.tokens[t]), 1)
        return keys[p[0]], keys[p[1]]

    def _best_entries(self, heap: list, live: dict[Pair, int], need: int, *, ties: bool = True) -> list:
        """The first `need` live entries of a heap, and (with `ties`) every further entry
        tied with the first. They stay in the heap; stale entries met on the way go."""
        out: list = []
        while heap:
            entry = heap[0]
            if live.get(entry[3]) != entry[2]:
                heappop(heap)  # stale
                continue
            if len(out) >= need and (not ties or entry[0] != out[0][0]):
                break
            out.append(heappop(heap))
        for entry in out:
            heappush(heap, entry)
        return out

    def ranked_pairs(self, n: int) -> list[tuple[Pair, bool]]:
        """The best `n` pairs, best first (exact score, then the tie rule), and beyond
        them every pair tied with the best; each with True if it is tied with the best."""
        entries = self._best_entries(self._score_heap, self._score_live, max(n, 1))
        top = entries[0][0]
        return [(e[3], e[0] == top) for e in entries]

    def bpe_choice(self) -> Pair:
        """The pair a count-based BPE would merge now: the highest count, same tie rule."""
        return self._best_entries(self._count_heap, self._count_live, 1, ties=False)[0][3]

    # ---- the loop ---------------------------------------------------------------------
    def _should_stop(self) -> str | None:
        s = self.settings
        if s.merges is not None and self.step >= s.merges:
            return f"reached {s.merges} merges"
        if s.vocab_size is not None and len(self.tokens) >= s.vocab_size:
            return f"reached the target vocabulary size of {s.vocab_size}"
        if not self.pair_count:
            return "no pairs are left: every word is a single token"
        return None

    def iter_merges(self) -> Iterator[WordPieceEvent]:
        """Yield one WordPieceEvent per merge until a stop condition holds.

        `stop_reason` says, in words, why it stopped.
        """
        while self._should_stop() is None:
            yield self._merge_once()
        self.stop_reason = self._should_stop()

    def _merge_once(self) -> WordPieceEvent:
        s = self.settings
        # Score every pair (the heap has them) and take the best; equal scores are ties.
        ranked = self.ranked_pairs(s.top_n)
        best = self.row(ranked[0][0])
        ties = [p for p, tied in ranked if tied]
        rows = [self.row(p) for p, _ in ranked[: s.top_n]]
        table = tuple(zip(*rows)) if rows else ((), (), (), ())
        bpe = self.row(self.bpe_choice())
        a, b = best.pair
        # Mint the token (or reuse the id of an equal string an earlier merge made).
        text = merged_token(self.tokens[a], self.tokens[b], s.prefix)
        new = self._ids.get(text)
        is_new = new is None
        if new is None:
            new = self._ids[text] = len(self.tokens)
            self.tokens.append(text)
            self.token_count.append(0)
        self.step += 1
        changed, changed_tokens, merged, delta = self._rewrite_words(best.pair, new)
        # Three token counts change: a and b lose the merged occurrences, ab gains them.
        self.token_count[a] -= merged
        self.token_count[b] -= merged
        self.token_count[new] += merged
        self.corpus_length -= merged
        rescored, count_changed = self._apply_counts(delta, (a, b, new))
        return WordPieceEvent(
            step=self.step,
            pair=best.pair,
            pair_text=(self.tokens[a], self.tokens[b]),
            token=text,
            token_id=new,
            is_new_token=is_new,
            score=best.score,
            score_numerator=best.count,
            score_denominator=best.left_count * best.right_count,
            count=best.count,
            left_count=best.left_count,
            right_count=best.right_count,
            ties=tuple(ties[:MAX_TIES_KEPT]),
            tie_count=len(ties),
            tie_break=s.tie_break,
            table_pairs=table[0],
            table_counts=table[1],
            table_left_counts=table[2],
            table_right_counts=table[3],
            bpe_pair=bpe.pair,
            bpe_pair_text=(self.tokens[bpe.pair[0]], self.tokens[bpe.pair[1]]),
            bpe_count=bpe.count,
            bpe_score=bpe.score,
            changed_words=tuple(changed),
            changed_tokens=tuple(changed_tokens),
            merged_occurrences=merged,
            rescored_pairs=rescored,
            count_changed_pairs=count_changed,
            vocab_size=len(self.tokens),
            corpus_length=self.corpus_length,
        )

    def _rewrite_words(self, pair: Pair, new: int):
        """Merge `pair` in every word that holds it; return the words changed, their new
        tokens, the weighted number of merged positions and each pair's count change."""
        a, b = pair
        delta: dict[Pair, int] = {}
        changed: list[int] = []
        changed_tokens: list[tuple[int, ...]] = []
        merged = 0
        pair_words = self.pair_words
        for w in sorted(pair_words[pair]):
            old = self.segmentations[w]
            seg, m = _merge_word(old, a, b, new)
            c = self.counts[w]
            merged += m * c
            self.segmentations[w] = seg
            changed.append(w)
            changed_tokens.append(tuple(seg))
            # The word's pair counts, corrected by difference: old pairs out, new in.
            after = _pairs_of(seg)
            for p, n_old in _pairs_of(old).items():
                n_new = after.pop(p, 0)
                if n_new != n_old:
                    delta[p] = delta.get(p, 0) + (n_new - n_old) * c
                    if not n_new:
                        pair_words[p].discard(w)
            for p, n_new in after.items():
                delta[p] = delta.get(p, 0) + n_new * c
                ws = pair_words.get(p)
                if ws is None:
                    pair_words[p] = {w}
                else:
                    ws.add(w)
        return changed, changed_tokens, merged, delta

    def _apply_counts(self, delta: dict[Pair, int], parts: tuple[int, int, int]) -> tuple[int, int]:
        """Apply pair-count changes, then re-score every pair whose count changed or that
        contains a token whose count changed. Returns how many pairs were re-scored, and
        how many of them had their own count changed (all a count-based BPE revisits)."""
        pair_count, first = self.pair_count, self._first
        count_changed = 0
        for p, d in delta.items():
            first.pop(p, None)
            n = pair_count.get(p, 0) + d
            if n:
                count_changed += d != 0
                if p not in pair_count:
                    self._index_pair(p)
                pair_count[p] = n
            else:
                del pair_count[p]
                del self.pair_words[p]
                self._unindex_pair(p)
                self._count_live.pop(p, None)
                self._score_live.pop(p, None)
        # A pair whose words changed has a new count or a new first occurrence: file
        # both again. Any other pair that contains a, b or ab has a new score only.
        rescore = set(delta)
        for t in parts:
            rescore.update(self.token_pairs.get(t, ()))
        done = 0
        tc, shift, seq, heap, live = self.token_count, self._shift, self._seq, self._score_heap, self._score_live
        tie_key = self._tie_key
        for p in rescore:
            count = pair_count.get(p)
            if count is None:
                continue
            if p in delta:
                self._push(p, score=True, count=True)
            else:  # the common case, inlined: only the parts' counts changed
                k = live[p] = next(seq)
                heappush(heap, (-((count << shift) // (tc[p[0]] * tc[p[1]])), tie_key(p), k, p))
            done += 1
        # Drop stale entries once they outnumber the live ones (often, so each pass is short).
        limit = 2 * len(pair_count) + 2048
        for heap, live in ((self._score_heap, self._score_live), (self._count_heap, self._count_live)):
            if len(heap) > limit:
                heap[:] = [e for e in heap if live.get(e[3]) == e[2]]
                heapify(heap)
        return done, count_changed
