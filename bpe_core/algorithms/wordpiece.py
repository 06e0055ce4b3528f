"""WordPiece: training by likelihood score, and greedy longest-match-first encoding.

Training follows the Hugging Face course (chapter 6, "WordPiece tokenization"):

  1. split every word into its first character and `##`-prefixed continuations
     ("hugs" -> h ##u ##g ##s); the vocabulary starts as the special tokens plus these
     symbols, sorted;
  2. score every adjacent pair (a, b) as count(ab) / (count(a) x count(b)), where the
     counts are occurrences in the current segmentation, weighted by word count;
  3. merge the best-scoring pair everywhere (left to right in each word); the new token
     drops the second part's `##` (h + ##u -> hu, ##g + ##s -> ##gs);
  4. repeat until N merges, a target vocabulary size, or no pair is left.

A pair of rare parts beats a pair of frequent ones: (##g, ##s) with count 5 scores
5 / (20 x 5) = 1/20, above (##u, ##g) with count 20 and score 20 / (36 x 20) = 1/36.
Scores are compared exactly (as fractions), so a tie is a real tie; it is broken by a
named rule from `TIE_RULES`, read as `BPETrainer` reads it (its key kind and direction,
`bpe_core.tie_rules`): `first-seen` (the default, as the course's loop over its pair
dictionary: the pair whose first occurrence comes first, reading the words in order of
first appearance, each left to right), `lexicographic` (the largest pair as a tuple of
strings) or `smallest-id`. A rule whose key kind WordPiece cannot order is refused.

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

Encoding (`WordPieceTokenizer`) is BERT's, and Hugging Face's `models.WordPiece`: in
each pre-tokenized word, take the longest vocabulary entry that starts at the current
position (with `##` after the first position), move past it, repeat; if no entry
matches at some position the whole word becomes `[UNK]`, and so does a word longer
than `max_input_chars_per_word` (100) characters. `trace()` records every substring
tried, for display. Encoding does not replay merges: a word is cut by the vocabulary
alone, which can differ from the segmentation training reached.

What this module leaves out: normalization (BERT's lowercasing, accent stripping,
spacing around CJK characters, control-character removal are Hugging Face's
`BertNormalizer`, not done here); special-token templates ([CLS] ... [SEP]); and
Hugging Face's `WordPieceTrainer`, which is not this algorithm: it trains BPE (merges by
raw pair count) and only writes the result with `##` prefixes. The `bert` pre-tokenizer
offered here is Hugging Face's `BertPreTokenizer` (split on whitespace, every
punctuation character a piece of its own); its punctuation is Unicode's P categories as
the `regex` module knows them, plus ASCII punctuation, so characters made punctuation
by recent Unicode versions (such as U+2E43) are split off here but not by Hugging Face,
whose table is older.
"""
from __future__ import annotations

import json
from collections import Counter
from bisect import bisect_right
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from heapq import heapify, heappop, heappush
from itertools import count as count_from
from typing import Any, Callable, Collection, Iterable, Iterator, Literal, Mapping, NamedTuple, Sequence

import regex

from bpe_core import PRETOKENIZERS, Piece, TokenSpan, WordTable, pretokenize
from bpe_core.tie_rules import tie_rule
from bpe_core.train.steps import MergeSteps
from bpe_core.encode.special import allowed_specials, split_specials

__all__ = [
    "BERT_SPECIAL_TOKENS",
    "WORDPIECE_PRETOKENIZERS",
    "WordPieceSettings",
    "ScoreRow",
    "WordPieceEvent",
    "WordPieceTrainer",
    "WordPieceRun",
    "train_wordpiece",
    "initial_split",
    "merged_token",
    "wordpiece_pieces",
    "wordpiece_word_table",
    "MatchAttempt",
    "WordTrace",
    "WordPieceTokenizer",
    "FORMAT",
]

Pair = tuple[int, int]

#: BERT's special tokens, in the order BERT's vocabulary (and the course) lists them.
BERT_SPECIAL_TOKENS: tuple[str, ...] = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")

#: Pre-tokenizers a WordPiece tokenizer accepts: bpe_core's, plus `bert`.
WORDPIECE_PRETOKENIZERS: tuple[str, ...] = (*PRETOKENIZERS, "bert")

#: Events keep at most this many tied pairs (`tie_count` is always the full number).
MAX_TIES_KEPT = 64

#: The saved-tokenizer format's name (the JSON's "format" key).
FORMAT = "bpe-teaching-wordpiece"

_FIRST_SEEN_BITS = 40  # first-seen keys pack (word, offset) as word << 40 | offset
#: The kinds of tie-rule key (`TieRule.key`) `WordPieceTrainer._tie_key` can order.
TIE_KEY_KINDS: tuple[str, ...] = ("ids", "texts", "first-seen")


# ---- settings and events -------------------------------------------------------------
@dataclass(frozen=True)
class WordPieceSettings:
    """What to train and when to stop.

    - tie_break: the name of a rule in `TIE_RULES` (see the module doc);
    - merges: how many merges at most (None: no limit); vocab_size: stop once the
      vocabulary (special tokens included) has this many tokens (None: no target);
    - special_tokens: the first ids of the vocabulary; unk_token is added in front of
      them if they do not name it (the encoder needs it);
    - prefix: the continuation prefix ("##");
    - top_n: how many rows of the score table each event keeps.
    """

    tie_break: str = "first-seen"
    merges: int | None = 10
    vocab_size: int | None = None
    special_tokens: tuple[str, ...] = BERT_SPECIAL_TOKENS
    unk_token: str = "[UNK]"
    prefix: str = "##"
    top_n: int = 20

    def __post_init__(self) -> None:
        rule = tie_rule(self.tie_break)
        if rule.key not in TIE_KEY_KINDS:
            raise ValueError(
                f"WordPiece cannot break ties by tie rule {rule.name!r}: it orders pairs by "
                f"{', '.join(TIE_KEY_KINDS)} keys, not {rule.key!r}. Choose another tie rule, "
                "or teach `WordPieceTrainer._tie_key` that kind of key."
            )
        for what, value, minimum in (("merges", self.merges, 0), ("vocabulary size", self.vocab_size, 1)):
            if value is not None:
                _check_whole(what, value, minimum)
        _check_whole("top N", self.top_n, 0)
        if isinstance(self.special_tokens, str) or not all(isinstance(t, str) and t for t in self.special_tokens):
            raise TypeError("special_tokens must be a tuple of non-empty strings, e.g. ('[PAD]', '[UNK]').")
        if len(set(self.special_tokens)) != len(self.special_tokens):
            raise ValueError(f"special_tokens lists a token twice: {self.special_tokens!r}. List each once.")
        if not isinstance(self.unk_token, str) or not self.unk_token:
            raise ValueError("The unknown token is empty. Use '[UNK]' (BERT's) or another non-empty string.")
        if not isinstance(self.prefix, str) or not self.prefix:
            raise ValueError("The continuation prefix is empty. Use '##' (BERT's) or another non-empty string.")

    @property
    def vocab_specials(self) -> tuple[str, ...]:
        """The special tokens the vocabulary starts with (the unknown token included)."""
        if self.unk_token in self.special_tokens:
            return tuple(self.special_tokens)
        return (self.unk_token, *self.special_tokens)


def _check_whole(what: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"The {what} must be a whole number, not {value!r}. Enter a number like 10.")
    if value < minimum:
        raise ValueError(f"The {what} must be at least {minimum}, not {value}.")


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


# ---- small pure helpers --------------------------------------------------------------
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


# ---- a finished run ------------------------------------------------------------------
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


# ---- pre-tokenization ----------------------------------------------------------------
# Hugging Face's BertPreTokenizer: whitespace (Unicode White_Space) separates pieces and
# is dropped; each punctuation character (Unicode P*, or ASCII punctuation, which
# includes symbols such as $ + < = > ^ ` | ~) is a piece of its own.
_BERT_PUNCT = r"\p{P}!-/:-@\[-`{-~"
_BERT_PATTERN = rf"[^\p{{White_Space}}{_BERT_PUNCT}]+|[{_BERT_PUNCT}]"


@lru_cache(maxsize=1)
def _bert_regex() -> regex.Pattern:
    return regex.compile(_BERT_PATTERN)


def wordpiece_pieces(text: str, pretokenizer: str = "whitespace") -> tuple[Piece, ...]:
    """Pre-tokenize with a bpe_core pre-tokenizer or `bert`.

    >>> [p.text for p in wordpiece_pieces("Hello, world!  x+y", "bert")]
    ['Hello', ',', 'world', '!', 'x', '+', 'y']
    """
    if pretokenizer != "bert":
        if pretokenizer not in PRETOKENIZERS:
            raise ValueError(
                f"Unknown pre-tokenizer {pretokenizer!r}. Choose one of: {', '.join(WORDPIECE_PRETOKENIZERS)}."
            )
        return pretokenize(text, pretokenizer)
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    return tuple(Piece(m.group(), m.start(), m.end()) for m in _bert_regex().finditer(text))


def _piece_texts(text: str, pretokenizer: str) -> list[str]:
    """Only the pieces' texts (quicker than `wordpiece_pieces` when offsets are not needed)."""
    if pretokenizer == "bert":
        return _bert_regex().findall(text)
    return [p.text for p in pretokenize(text, pretokenizer)]


def wordpiece_word_table(text: str, pretokenizer: str = "whitespace") -> WordTable:
    """A word table from text, with any of `WORDPIECE_PRETOKENIZERS` (bert included).

    >>> wordpiece_word_table("Hi, hi!", "bert").words
    ('Hi', ',', 'hi', '!')
    """
    if pretokenizer != "bert":
        return WordTable.from_text(text, pretokenizer)
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    counts = Counter(_bert_regex().findall(text))  # keeps first-seen order
    if not counts:
        raise ValueError("The corpus is empty: the text has no words. Paste or upload some text, or pick a preset.")
    return WordTable(tuple(counts), tuple(counts.values()), "bert")


# ---- encoding ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class MatchAttempt:
    """One lookup of the longest-match loop: word[start:end], as `candidate` (with the
    prefix after the first position), and whether the vocabulary has it."""

    start: int
    end: int
    candidate: str
    found: bool


@dataclass(frozen=True)
class WordTrace:
    """Every lookup made while encoding one word, and the result.

    `unknown` is True when the word became the unknown token; `reason` says why
    ("" otherwise).
    """

    word: str
    attempts: tuple[MatchAttempt, ...]
    tokens: tuple[str, ...]
    ids: tuple[int, ...]
    unknown: bool
    reason: str


class WordPieceTokenizer:
    """Greedy longest-match-first WordPiece encoding (BERT's, Hugging Face's
    `models.WordPiece`) over a fixed vocabulary.

    `vocab` is a list of token strings (ids are positions) or a mapping token -> id.
    It must contain `unk_token`. Text is split by `pretokenizer` (any of
    `WORDPIECE_PRETOKENIZERS`; "whitespace" by default), then each piece is encoded.

    >>> tok = WordPieceTokenizer(["[UNK]", "h", "hug", "##s", "p", "##u", "##g"])
    >>> tok.tokenize("hugs pug hat")
    ['hug', '##s', 'p', '##u', '##g', '[UNK]']
    >>> tok.decode(tok.encode("hugs pug"))
    'hugs pug'
    """

    _CACHE_LIMIT = 100_000

    def __init__(
        self,
        vocab: Sequence[str] | Mapping[str, int],
        *,
        unk_token: str = "[UNK]",
        prefix: str = "##",
        max_input_chars_per_word: int = 100,
        pretokenizer: str = "whitespace",
        special_tokens: Collection[str] | None = None,
        name: str = "WordPiece",
    ):
        self._ids = _vocab_ids(vocab)
        self._tokens = {i: t for t, i in self._ids.items()}
        if unk_token not in self._ids:
            raise ValueError(
                f"The unknown token {unk_token!r} is not in the vocabulary. Add it (BERT lists "
                "'[UNK]' among its first tokens), or name the vocabulary's own with unk_token=."
            )
        if not isinstance(prefix, str) or not prefix:
            raise ValueError("The continuation prefix is empty. Use '##' (BERT's).")
        _check_whole("maximum word length", max_input_chars_per_word, 0)
        if pretokenizer not in WORDPIECE_PRETOKENIZERS:
            raise ValueError(
                f"Unknown pre-tokenizer {pretokenizer!r}. Choose one of: {', '.join(WORDPIECE_PRETOKENIZERS)}."
            )
        self.unk_token = unk_token
        self.unk_id = self._ids[unk_token]
        self.prefix = prefix
        self.max_input_chars_per_word = max_input_chars_per_word
        self.pretokenizer = pretokenizer
        self.name = name
        if special_tokens is None:
            special_tokens = [t for t in (unk_token, *BERT_SPECIAL_TOKENS) if t in self._ids]
        missing = [t for t in special_tokens if t not in self._ids]
        if missing:
            raise ValueError(f"Special token {missing[0]!r} is not in the vocabulary. Add it or leave it out.")
        self.special_tokens: dict[str, int] = {t: self._ids[t] for t in special_tokens}
        # No entry is longer than this, so longer substrings need not be looked up.
        self._longest = max(map(len, self._ids))
        self._cache: dict[str, tuple[int, ...]] = {}

    # ---- sizes and names --------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        return len(self._ids)

    @property
    def vocab(self) -> dict[str, int]:
        """token -> id (a copy)."""
        return dict(self._ids)

    def token_text(self, token_id: int) -> str:
        """The vocabulary entry, prefix included ('##s')."""
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise TypeError(f"token ids must be integers, not {token_id!r}")
        text = self._tokens.get(token_id)
        if text is None:
            raise ValueError(
                f"Token id {token_id} is not in the {self.name} vocabulary ({self.vocab_size} tokens). "
                "Check the ids, or pick the tokenizer that produced them."
            )
        return text

    #: SentencePiece's name for the same lookup, so either name works on every kind.
    id_to_piece = token_text

    def token_bytes(self, token_id: int) -> bytes:
        """The token's text as UTF-8, without the continuation prefix."""
        text = self.token_text(token_id)
        return (text[len(self.prefix):] if text.startswith(self.prefix) else text).encode("utf-8")

    def id_of(self, token: str) -> int | None:
        return self._ids.get(token)

    # ---- encoding ---------------------------------------------------------------------
    def pieces(self, text: str) -> list[tuple[str, int]]:
        """Pre-tokenize: (piece, start offset) pairs."""
        return [(p.text, p.start) for p in wordpiece_pieces(text, self.pretokenizer)]

    def encode_word(self, word: str) -> tuple[int, ...]:
        """One pre-tokenized word's ids: longest match first, or the unknown token."""
        ids = self._cache.get(word)
        if ids is None:
            ids = self._longest_match(word)
            if len(self._cache) >= self._CACHE_LIMIT:
                self._cache = {}
            self._cache[word] = ids
        return ids

    def _longest_match(self, word: str) -> tuple[int, ...]:
        if len(word) > self.max_input_chars_per_word:
            return (self.unk_id,)
        vocab, prefix, longest = self._ids, self.prefix, self._longest
        out: list[int] = []
        start, n = 0, len(word)
        while start < n:
            # Substrings longer than the longest entry cannot match: start below it.
            end = min(n, start + longest)
            while end > start:
                found = vocab.get(word[start:end] if start == 0 else prefix + word[start:end])
                if found is not None:
                    break
                end -= 1
            else:
                return (self.unk_id,)
            out.append(found)
            start = end
        return tuple(out)

    def trace(self, word: str) -> WordTrace:
        """Every lookup the longest-match loop makes on `word`, as the textbook loop
        makes them: at each position from the whole rest of the word down to one
        character. (`encode` skips substrings longer than the longest entry; the result
        is the same.)"""
        if not isinstance(word, str):
            raise TypeError(f"word must be a str, not {type(word).__name__}")
        unk = (self.unk_token,), (self.unk_id,)
        if len(word) > self.max_input_chars_per_word:
            reason = f"the word has {len(word)} characters, more than the limit of {self.max_input_chars_per_word}"
            return WordTrace(word, (), *unk, True, reason)
        attempts: list[MatchAttempt] = []
        tokens: list[str] = []
        start = 0
        while start < len(word):
            for end in range(len(word), start, -1):
                cand = word[start:end] if start == 0 else self.prefix + word[start:end]
                found = cand in self._ids
                attempts.append(MatchAttempt(start, end, cand, found))
                if found:
                    tokens.append(cand)
                    start = end
                    break
            else:
                reason = f"nothing in the vocabulary matches at character {start} ({word[start]!r})"
                return WordTrace(word, tuple(attempts), *unk, True, reason)
        return WordTrace(word, tuple(attempts), tuple(tokens), tuple(self._ids[t] for t in tokens), False, "")

    def _chunks(self, text: str, allowed_special: Collection[str] | Literal["all"]) -> list[tuple[str, int, bool]]:
        """Cut text into (chunk, start, is_special) around the allowed special tokens."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        allowed = allowed_specials(allowed_special, self.special_tokens, name=self.name)
        if not allowed:
            return [(text, 0, False)]
        return [(text[start:end], start, special) for start, end, special in split_specials(text, allowed)]

    def encode(self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()) -> list[int]:
        """Encode text to token ids.

        Special tokens such as "[CLS]" are recognised in the text only when named in
        `allowed_special` (or "all"); otherwise their characters are ordinary text (which
        the vocabulary may still match whole, as Hugging Face's WordPiece model does).
        """
        out: list[int] = []
        for chunk, _, special in self._chunks(text, allowed_special):
            if special:
                out.append(self.special_tokens[chunk])
                continue
            for piece in _piece_texts(chunk, self.pretokenizer):
                out.extend(self.encode_word(piece))
        return out

    def tokenize(self, text: str) -> list[str]:
        """The token strings of `encode(text)`."""
        return [self._tokens[i] for i in self.encode(text)]

    def token_spans(self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()) -> list[TokenSpan]:
        """Tokens with character offsets, for colouring. An unknown word is one span."""
        spans: list[TokenSpan] = []
        piece_index = 0
        for chunk, offset, special in self._chunks(text, allowed_special):
            if special:
                spans.append(TokenSpan(self.special_tokens[chunk], chunk.encode(), chunk, offset,
                                       offset + len(chunk), piece_index, True))
                piece_index += 1
                continue
            for piece in wordpiece_pieces(chunk, self.pretokenizer):
                pos = offset + piece.start
                ids = self.encode_word(piece.text)
                for i, tid in enumerate(ids):
                    if tid == self.unk_id and len(ids) == 1:
                        width = len(piece.text)  # the whole word became the unknown token
                    else:
                        width = len(self._tokens[tid]) - (len(self.prefix) if i else 0)
                    covered = text[pos : pos + width]
                    spans.append(TokenSpan(tid, covered.encode("utf-8"), covered, pos, pos + width, piece_index))
                    pos += width
                piece_index += 1
        return spans

    # ---- decoding ---------------------------------------------------------------------
    def decode(self, ids: Iterable[int]) -> str:
        """Join tokens: a continuation ('##s') joins the token before it, any other token
        starts a new word after a space (Hugging Face's WordPiece decoder without
        clean-up). Whitespace runs and punctuation spacing of the original are not kept.
        """
        parts: list[str] = []
        for i, tid in enumerate(ids):
            text = self.token_text(tid)
            if i and text.startswith(self.prefix):
                parts.append(text[len(self.prefix):])
            else:
                parts.append(" " + text if i else text)
        return "".join(parts)

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """`decode` as UTF-8 (every token is whole characters)."""
        return self.decode(ids).encode("utf-8")

    # ---- saving -----------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (`from_json` reads it back)."""
        return {
            "format": FORMAT,
            "algorithm": "wordpiece",
            "version": 1,
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.prefix,
            "max_input_chars_per_word": self.max_input_chars_per_word,
            "pretokenizer": self.pretokenizer,
            "special_tokens": list(self.special_tokens),
            "vocab": dict(sorted(self._ids.items(), key=lambda kv: kv[1])),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str, *, name: str = "saved") -> "WordPieceTokenizer":
        """Rebuild a tokenizer from `to_json` output (a dict or a JSON string)."""
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as exc:
                raise ValueError(f"The tokenizer file is not valid JSON ({exc}). Save it again with 'train --save'.") from None
        if not isinstance(data, Mapping) or data.get("algorithm") != "wordpiece":
            raise ValueError(
                "This is not a saved WordPiece tokenizer (its 'algorithm' is not 'wordpiece'). "
                "Create one with `python -m bpe_core train --algorithm wordpiece ... --save PATH`."
            )
        try:
            return cls(
                data["vocab"],
                unk_token=data["unk_token"],
                prefix=data["continuing_subword_prefix"],
                max_input_chars_per_word=data["max_input_chars_per_word"],
                pretokenizer=data["pretokenizer"],
                special_tokens=data.get("special_tokens"),
                name=name,
            )
        except KeyError as exc:
            raise ValueError(f"The tokenizer file has no {exc.args[0]!r} entry; it is damaged. Save it again.") from None


def _vocab_ids(vocab: Sequence[str] | Mapping[str, int]) -> dict[str, int]:
    """token -> id from a list (ids are positions) or a mapping, checked."""
    if isinstance(vocab, str):
        raise TypeError("vocab must be a list of token strings or a mapping token -> id, not one string.")
    if isinstance(vocab, Mapping):
        ids = dict(vocab)
        for t, i in ids.items():
            if not isinstance(t, str) or not t or isinstance(i, bool) or not isinstance(i, int) or i < 0:
                raise ValueError(f"Vocabulary entry {t!r}: {i!r} is not a non-empty token and an id of 0 or more.")
        if len(set(ids.values())) != len(ids):
            raise ValueError("Two vocabulary entries share an id. Give each token its own id.")
    else:
        ids = {}
        for i, t in enumerate(vocab):
            if not isinstance(t, str) or not t:
                raise ValueError(f"Vocabulary entry {i} is {t!r}, not a non-empty string.")
            if t in ids:
                raise ValueError(f"The vocabulary lists {t!r} twice (ids {ids[t]} and {i}). List each token once.")
            ids[t] = i
    if not ids:
        raise ValueError("The vocabulary is empty. Give at least the unknown token.")
    return ids
