"""The Unigram trainer, step by step.

The steps follow sentencepiece's unigram trainer (Kudo 2018, section 3.2):
1. seed: every character, plus the substrings seen at least twice (not across a
   word start), scored by frequency x length, as log-probabilities;
2. EM: expected piece counts by forward-backward over each distinct word, then a
   Bayesian M-step (digamma), which drops pieces expected less than 0.5 times;
3. prune: keep the pieces whose removal would cost the most likelihood, a fraction
   `shrinking_factor` of them per round; never a single character;
4. repeat 2-3 until at most 1.1 x the target remain; keep every character and the
   best-scored pieces up to the target.
"""
from __future__ import annotations

import math
import unicodedata
from array import array
from collections.abc import Iterator, Mapping

from .events import UnigramEvent
from .lattice import backward, forward
from .model import UNK_PENALTY
from .settings import UnigramSettings
from .text import SPACE

__all__ = ["digamma", "seed_pieces"]


def digamma(x: float) -> float:
    """The digamma function (derivative of log Gamma), for x > 0.

    >>> round(digamma(1.0), 9), round(digamma(0.5), 9), round(digamma(100.0), 9)
    (-0.577215665, -1.963510026, 4.600161853)
    """
    shift = 0.0
    while x < 6.0:  # psi(x) = psi(x + 1) - 1/x, until the series below is accurate
        shift -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    return shift + math.log(x) - 0.5 / x - series


def _script(ch: str) -> str:
    """A character's script, roughly: letters by the first word of their Unicode name,
    CJK ideographs and kana together as Han, marks inherit, all else (digits,
    punctuation, symbols) is Common.

    >>> [_script(c) for c in "aя.7\\u0301中カ"]
    ['LATIN', 'CYRILLIC', 'Common', 'Common', 'Inherited', 'Han', 'Han']
    """
    category = unicodedata.category(ch)
    if category[0] == "M":
        return "Inherited"
    if category[0] != "L" and ch != "\u30fc":
        return "Common"
    first = unicodedata.name(ch, "?").split(" ", 1)[0]
    if first in ("CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "IDEOGRAPHIC"):
        return "Han"
    return first


class _ScriptCheck:
    """Which substrings a piece may be: `▁` only in front, at most `max_length`
    characters, and (optionally) one script, as sentencepiece's IsValidSentencePiece."""

    def __init__(self, settings: UnigramSettings):
        self.max_length = settings.max_piece_length
        self.by_script = settings.split_by_script
        self._cache: dict[str, str] = {}

    def longest_valid(self, word: str, start: int) -> int:
        """The end of the longest valid piece of `word` starting at `start`; every
        shorter piece starting there is valid too."""
        prev = None
        stop = min(len(word), start + self.max_length)
        for j in range(start, stop):
            ch = word[j]
            if ch == SPACE:
                if j > start:
                    return j
                continue
            if ch in "\r\n" and j > start:
                return j
            script = self._cache.get(ch)
            if script is None:
                script = self._cache[ch] = _script(ch)
            if script == "Inherited":
                script = prev
            if self.by_script and script is not None and prev is not None and script != prev:
                return j
            prev = script
        return stop


def seed_pieces(words: Mapping[str, int], settings: UnigramSettings) -> list[tuple[str, float]]:
    """The seed vocabulary with log-probabilities: every character (scored by its count)
    and the best `seed_size` substrings of 2+ characters (scored by count x length)
    that occur at least twice and are not always followed by the same character (the
    substrings a suffix tree has a node for: sentencepiece takes its seeds from one).

    ▁a is always followed by b here, so it is not a seed; ▁ab and ab are (3 x 3, 3 x 2):

    >>> [(p, round(s, 3)) for p, s in seed_pieces({"▁ab": 2, "▁abc": 1}, UnigramSettings())]
    [('a', -2.12), ('b', -2.12), ('▁', -2.12), ('c', -3.219), ('▁ab', -1.022), ('ab', -1.427)]
    """
    check = _ScriptCheck(settings)
    chars: dict[str, int] = {}
    freq: dict[str, int] = {}
    follow: dict[str, str] = {}  # the one next character, or "" once there are several
    for word, count in words.items():
        for ch in word:
            chars[ch] = chars.get(ch, 0) + count
        n = len(word)
        for i in range(n - 1):
            for j in range(i + 2, check.longest_valid(word, i) + 1):
                piece = word[i:j]
                freq[piece] = freq.get(piece, 0) + count
                nxt = word[j] if j < n else ""  # a word end counts as several characters
                seen = follow.get(piece)
                if seen is None:
                    follow[piece] = nxt
                elif seen != nxt:
                    follow[piece] = ""
    scored = [(p, f * len(p)) for p, f in freq.items() if f >= 2 and follow[p] == ""]
    scored.sort(key=lambda ps: (-ps[1], ps[0]))
    seeds = sorted(chars.items(), key=lambda cs: (-cs[1], cs[0])) + scored[: settings.seed_size]
    log_total = math.log(sum(s for _, s in seeds))
    return [(p, math.log(s) - log_total) for p, s in seeds]


class _Trainer:
    """The state of one training run. Pieces are named by their index in the seed list
    (`g`); `alive` lists the live ones. Each distinct word keeps its lattice as one flat
    list of edges (start, end, g), sorted by end, then start."""

    def __init__(self, words: Mapping[str, int], settings: UnigramSettings):
        _check_words(words)
        self.settings = settings
        self.words = list(words)
        self.counts = [words[w] for w in self.words]
        seeds = seed_pieces(words, settings)
        self.seed_list = tuple(p for p, _ in seeds)
        self.char_counts = {p: 0 for p in self.seed_list if len(p) == 1}
        for word, count in words.items():
            for ch in word:
                self.char_counts[ch] += count
        self.alive = list(range(len(seeds)))
        self.scores = [s for _, s in seeds]      # by g; a dead piece keeps its last score
        self.lost = [False] * len(seeds)         # a character the M-step found under 0.5
        self.lattices = self._build_lattices()

    def piece(self, g: int) -> str:
        return self.seed_list[g]

    def is_char(self, g: int) -> bool:
        return len(self.seed_list[g]) == 1

    def _build_lattices(self) -> list[list[tuple[int, int, int]]]:
        ids = {p: g for g, p in enumerate(self.seed_list)}
        prefixes = {p[:m] for p in ids for m in range(1, len(p) + 1)}
        longest = max(map(len, ids))
        out = []
        for word in self.words:
            n = len(word)
            edges = []
            for i in range(n):
                for j in range(i + 1, min(n, i + longest) + 1):
                    sub = word[i:j]
                    if sub not in prefixes:
                        break
                    g = ids.get(sub)
                    if g is not None:
                        edges.append((i, j, g))
            edges.sort(key=lambda e: (e[1], e[0]))
            out.append(edges)
        return out

    def keep(self, keep: list[int]) -> None:
        """Keep only the pieces `keep` (seed indexes)."""
        if len(keep) == len(self.alive):
            return
        live = bytearray(len(self.seed_list))
        for g in keep:
            live[g] = 1
        self.alive = sorted(keep)
        self.lattices = [[e for e in edges if live[e[2]]] for edges in self.lattices]

    # ---- E step

    def e_step(self, *, expectations: bool, viterbi_counts: list[float] | None = None) -> tuple[list[float], float, int]:
        """Expected count of each piece (if asked), log-likelihood, Viterbi tokens; adds
        each piece's uses on the best paths to `viterbi_counts` when given."""
        scores = self.scores
        probs = [math.exp(s) for s in scores]
        expected = [0.0] * len(scores)
        log_likelihood, tokens = 0.0, 0
        for edges, count in zip(self.lattices, self.counts):
            n = edges[-1][1]
            a, best, back = [1.0] + [0.0] * n, [0.0] + [-math.inf] * n, [0] * (n + 1)
            for i, j, g in edges:  # by end: a[i] and best[i] are final when read
                a[j] += a[i] * probs[g]
                v = best[i] + scores[g]
                if v > best[j]:
                    best[j], back[j] = v, i
            j = n
            while j > 0:
                tokens += count
                j = back[j]
            if viterbi_counts is not None:
                self._count_path(edges, back, count, viterbi_counts)
            z = a[n]
            if not z > 1e-250:  # a long or improbable word: redo it in log space
                log_likelihood += count * _word_expectations_log(edges, scores, count, expected if expectations else None)
                continue
            log_likelihood += count * math.log(z)
            if expectations:
                b = [0.0] * n + [1.0]
                scale = count / z
                for i, j, g in reversed(edges):  # by end, descending: b[j] is final when read
                    w = probs[g] * b[j]
                    b[i] += w
                    expected[g] += a[i] * w * scale
        return expected, log_likelihood, tokens

    @staticmethod
    def _count_path(edges, back, count, counts) -> None:
        on_path = set()
        j = len(back) - 1
        while j > 0:
            on_path.add((back[j], j))
            j = back[j]
        for i, j, g in edges:
            if (i, j) in on_path:
                counts[g] += count

    # ---- M step

    def m_step(self, expected: list[float]) -> list[tuple[str, float]]:
        """Digamma re-estimation; drop pieces expected under 0.5 times (a character
        stays, scored like sentencepiece's unknown: 10 below the lowest score)."""
        keep = [g for g in self.alive if expected[g] >= 0.5 or self.is_char(g)]
        log_total = digamma(math.fsum(expected[g] for g in keep if expected[g] >= 0.5))
        for g in keep:
            self.lost[g] = expected[g] < 0.5
            if not self.lost[g]:
                self.scores[g] = digamma(expected[g]) - log_total
        floor = min(self.scores[g] for g in keep if not self.lost[g]) - UNK_PENALTY
        for g in keep:
            if self.lost[g]:
                self.scores[g] = floor
        kept = set(keep)
        dropped = [(self.piece(g), expected[g]) for g in self.alive if g not in kept]
        self.keep(keep)
        return dropped

    # ---- pruning

    def alternative(self, g: int, ids: dict[str, int], prefixes: set[str]) -> list[int] | None:
        """The best segmentation of piece g into two or more pieces, or None when its
        best segmentation is not the piece itself (it is then never on a best path)."""
        piece, scores = self.piece(g), self.scores
        n = len(piece)
        best, back, via = [0.0] + [-math.inf] * n, [0] * (n + 1), [0] * (n + 1)
        for i in range(n):
            for j in range(i + 1, n + 1):
                sub = piece[i:j]
                if sub not in prefixes:
                    break
                m = ids.get(sub)
                if m is None or (i == 0 and j == n):
                    continue
                v = best[i] + scores[m]
                if v > best[j]:
                    best[j], back[j], via[j] = v, i, m
        if best[n] > scores[g]:
            return None
        out, j = [], n
        while j > 0:
            out.append(via[j])
            j = back[j]
        return out

    def prune(self, desired: int, freq: list[float]) -> list[tuple[str, float]]:
        """Keep every character and the pieces with the largest loss, down to
        max(desired, shrinking_factor x size). Returns (piece, loss) of those removed.

        The loss of removing piece x is approximated as in sentencepiece: every best-path
        use of x is replaced by x's own best split, whose pieces gain x's count.
        `freq` is each piece's count on the best paths (from `e_step`)."""
        total = math.fsum(freq)
        log_total = math.log(total)
        all_words = sum(self.counts)
        ids = {self.piece(g): g for g in self.alive}
        prefixes = {p[:m] for p in ids for m in range(1, len(p) + 1)}
        chars, candidates, removed = [], [], []
        for g in self.alive:
            if self.is_char(g):
                chars.append(g)
                continue
            alt = self.alternative(g, ids, prefixes) if freq[g] > 0 else None
            if alt is None:
                removed.append((self.piece(g), 0.0))
                continue
            f = freq[g]
            log_total_alt = math.log(total + f * (len(alt) - 1))
            log_p_alt = math.fsum(math.log(freq[m] + f) - log_total_alt for m in alt)
            loss = f / all_words * (math.log(f) - log_total - log_p_alt)
            candidates.append((loss, g))
        candidates.sort(key=lambda lg: (-lg[0], self.piece(lg[1])))
        size = max(desired, int(self.settings.shrinking_factor * len(self.alive)))
        room = max(size - len(chars), 0)
        removed += [(self.piece(g), loss) for loss, g in candidates[room:]]
        self.keep(chars + [g for _, g in candidates[:room]])
        return removed

    # ---- the end

    def finalize(self, vocab_size: int) -> list[tuple[str, float]]:
        """Every character (one the M-step lost gets the lowest score plus a small step,
        commoner characters first) and the best-scored pieces up to vocab_size - 1."""
        floor = min(self.scores[g] for g in self.alive if not self.lost[g])
        seed_index = {p: g for g, p in enumerate(self.seed_list)}
        chars = [seed_index[c] for c in sorted(self.char_counts, key=lambda c: (-self.char_counts[c], c))]
        step = 0.0
        for g in chars:
            if self.lost[g]:
                self.scores[g], self.lost[g] = floor + step, False
                step += 0.0001
        char_set = set(chars)
        others = sorted((g for g in self.alive if g not in char_set), key=lambda g: (-self.scores[g], self.piece(g)))
        room = vocab_size - 1 - len(chars)
        removed = [(self.piece(g), self.scores[g]) for g in others[room:]]
        self.keep(chars + others[:room])
        return removed

    def snapshot(self) -> tuple[array, array]:
        return array("i", self.alive), array("d", [self.scores[g] for g in self.alive])


def _word_expectations_log(edges, scores, count, expected) -> float:
    """Forward-backward in log space for one word; adds count x marginals to
    `expected` (when given) and returns the word's log-likelihood."""
    by_end: list[list[tuple[int, float, int]]] = [[] for _ in range(edges[-1][1] + 1)]
    for i, j, g in edges:
        by_end[j].append((i, scores[g], g))
    fwd = forward(by_end)
    if expected is not None:
        bwd = backward(by_end)
        for j in range(1, len(by_end)):
            for i, s, g in by_end[j]:
                expected[g] += count * math.exp(fwd[i] + s + bwd[j] - fwd[-1])
    return fwd[-1]


def _check_words(words: Mapping[str, int]) -> None:
    if not isinstance(words, Mapping):
        raise TypeError(f"words must be a mapping word -> count, not {type(words).__name__}; "
                        "use words_from_text or words_from_word_counts.")
    if not words:
        raise ValueError("The training corpus is empty; give some text.")
    for word, count in words.items():
        if not isinstance(word, str) or not word:
            raise ValueError(f"Word {word!r} is not a non-empty str.")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ValueError(f"Word {word!r} has count {count!r}; counts must be whole numbers of 1 or more.")


def _steps(trainer: _Trainer) -> Iterator[tuple[UnigramEvent, tuple[array, array]]]:
    settings = trainer.settings
    need = len(trainer.char_counts) + 1
    if settings.vocab_size < need:
        raise ValueError(f"vocab_size {settings.vocab_size} is below the {need - 1} characters of the corpus "
                         f"plus <unk>; give a vocab_size of at least {need}.")
    expected, ll, tokens = trainer.e_step(expectations=True)
    yield (UnigramEvent("seed", 0, 0, len(trainer.alive) + 1, ll, tokens), trainer.snapshot())
    desired = int(settings.vocab_size * 1.1)
    rnd = 1
    while True:
        for it in range(1, settings.em_iterations + 1):
            dropped = _by_value(trainer.m_step(expected))
            last = it == settings.em_iterations
            freq: list[float] | None = [0.0] * len(trainer.scores) if last else None
            expected, ll, tokens = trainer.e_step(expectations=not last, viterbi_counts=freq)
            yield (UnigramEvent("em", rnd, it, len(trainer.alive) + 1, ll, tokens, *dropped), trainer.snapshot())
        if len(trainer.alive) <= desired:
            break
        assert freq is not None  # the last EM iteration counted the Viterbi pieces
        removed = _by_value(trainer.prune(desired, freq))
        expected, ll, tokens = trainer.e_step(expectations=True)  # for the event and the next M step
        yield (UnigramEvent("prune", rnd, 0, len(trainer.alive) + 1, ll, tokens, *removed), trainer.snapshot())
        if not removed[0]:
            break  # nothing left that may go (only characters, or only pieces in use)
        rnd += 1
    removed = _by_value(trainer.finalize(settings.vocab_size))
    _, ll, tokens = trainer.e_step(expectations=False)
    yield (UnigramEvent("final", rnd, 0, len(trainer.alive) + 1, ll, tokens, *removed), trainer.snapshot())


def _by_value(pairs: list[tuple[str, float]]) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """(pieces, values) sorted by value, then piece.

    >>> _by_value([("b", 1.0), ("a", 1.0), ("c", 0.5)])
    (('c', 'a', 'b'), (0.5, 1.0, 1.0))
    """
    pairs = sorted(pairs, key=lambda pv: (pv[1], pv[0]))
    return tuple(p for p, _ in pairs), tuple(v for _, v in pairs)
