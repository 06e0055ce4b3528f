"""A naive reference BPE trainer: the algorithm as written, with nothing clever in it.

Every step recounts every adjacent pair of every word from scratch, sorts the whole
table, and merges the winner in every word, left to right. It shares no code with
bpe_core (not even the GPT-2 byte map), so the property tests can compare the
incremental trainer against an independent reading of the same rules:

- base symbols: the word's characters (char units) or UTF-8 bytes (byte units, plus all
  256 byte values in the vocabulary); end of word "separate" appends a marker symbol,
  "attached" marks the last symbol (subword-nmt's `t</w>`); a token is (body, eow);
- base ids in code-point order of the displayed form (GPT-2's byte-to-unicode form for
  bytes, the marker appended for end-of-word tokens), a non-end-of-word token first when
  two display the same; merged tokens numbered in creation order; a merge that makes a
  token that already exists reuses its id;
- tie rules among the pairs with the top count:
  first-seen: the pair whose first occurrence comes first, reading the words in order,
  each left to right; lexicographic: the largest (left display, right display) tuple,
  ids deciding only between pairs that display the same; smallest-id: the smallest
  (left id, right id);
- stop: the merge budget, the target vocabulary size, no pairs left, or the best count
  below the minimum count (checked in that order before each merge).

What it leaves out: speed (it is quadratic and worse), pre-tokenization and encoding.

>>> steps = NaiveBPE(["low", "lower"], [5, 2], units="char", end_of_word="none").train()
>>> [s.pair_text for s in steps]
[('l', 'o'), ('lo', 'w'), ('low', 'e'), ('lowe', 'r')]
"""
from __future__ import annotations

from dataclasses import dataclass

Pair = tuple[int, int]


def gpt2_byte_map() -> dict[int, str]:
    """GPT-2's byte -> printable character map (openai/gpt-2 encoder.py, bytes_to_unicode).

    >>> m = gpt2_byte_map()
    >>> m[0x20], m[0x0A], m[ord("a")], m[0xAD]
    ('Ġ', 'Ċ', 'a', 'Ń')
    """
    keep = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    chars = keep[:]
    n = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(keep, chars)}


_BYTE_MAP = gpt2_byte_map()


@dataclass(frozen=True)
class NaiveStep:
    """One merge of the naive trainer, with the full pair table it chose from."""

    step: int
    pair: Pair
    pair_text: tuple[str, str]
    token_id: int
    token: str
    is_new_token: bool
    count: int
    ties: tuple[Pair, ...]                  # all pairs at `count`, tie-rule order, winner first
    table: tuple[tuple[Pair, int], ...]     # the whole pair table before the merge, best first
    segmentations: tuple[tuple[int, ...], ...]  # every word after the merge
    changed: tuple[int, ...]                # indices of the words the merge changed
    merged_occurrences: int
    vocab_size: int
    corpus_length: int
    tokens_in_use: int


class NaiveBPE:
    """The naive trainer over a list of unique words and their counts."""

    def __init__(
        self,
        words: list[str],
        counts: list[int],
        *,
        units: str,
        end_of_word: str,
        marker: str = "</w>",
        tie_break: str = "first-seen",
    ):
        self.words, self.counts = list(words), list(counts)
        self.units, self.end_of_word, self.marker, self.tie_break = units, end_of_word, marker, tie_break
        symbol_lists = [self._symbols(w) for w in self.words]
        base = {sym for syms in symbol_lists for sym in syms}
        if units == "byte":
            base |= {(bytes([b]), False) for b in range(256)}
            if end_of_word == "attached":  # any byte may end a word
                base |= {(bytes([b]), True) for b in range(256)}
        self.tokens: list[tuple[str | bytes, bool]] = sorted(base, key=lambda t: (self.display(t), t[1]))
        self._displays = [self.display(t) for t in self.tokens]
        self.base_size = len(self.tokens)
        ids = {tok: i for i, tok in enumerate(self.tokens)}
        self.segmentations = [[ids[s] for s in syms] for syms in symbol_lists]

    def _symbols(self, word: str) -> list[tuple[str | bytes, bool]]:
        if self.units == "byte":
            syms: list = [(bytes([b]), False) for b in word.encode("utf-8")]
        else:
            syms = [(ch, False) for ch in word]
        if self.end_of_word == "separate":
            syms.append((b"" if self.units == "byte" else "", True))
        elif self.end_of_word == "attached":
            syms[-1] = (syms[-1][0], True)
        return syms

    def display(self, token: tuple[str | bytes, bool]) -> str:
        body, eow = token
        text = "".join(_BYTE_MAP[b] for b in body) if isinstance(body, bytes) else body
        return text + self.marker if eow else text

    def displays(self) -> list[str]:
        return list(self._displays)

    # ---- counting, from scratch -----------------------------------------------------
    def pair_table(self) -> tuple[dict[Pair, int], dict[Pair, tuple[int, int]]]:
        """Every adjacent pair's count (weighted by word count) and its first occurrence."""
        counts: dict[Pair, int] = {}
        first: dict[Pair, tuple[int, int]] = {}
        for w, (seg, c) in enumerate(zip(self.segmentations, self.counts)):
            for i in range(len(seg) - 1):
                p = (seg[i], seg[i + 1])
                counts[p] = counts.get(p, 0) + c
                first.setdefault(p, (w, i))
        return counts, first

    def sorted_table(self) -> list[tuple[Pair, int]]:
        """The pair table, best first: count descending, then the tie rule (its key kind
        and direction, as `bpe_core.tie_rules` declares them; the ordering is our own)."""
        from bpe_core.tie_rules import tie_rule

        counts, first = self.pair_table()
        disp = self._displays
        pairs = list(counts)
        rule = tie_rule(self.tie_break)
        keys = {
            "first-seen": lambda p: first[p],
            "ids": lambda p: p,
            "texts": lambda p: (disp[p[0]], disp[p[1]], p[0], p[1]),
        }
        pairs.sort(key=keys[rule.key], reverse=rule.largest_first)
        pairs.sort(key=lambda p: -counts[p])  # stable: the tie order survives
        return [(p, counts[p]) for p in pairs]

    def corpus_length(self) -> int:
        return sum(len(seg) * c for seg, c in zip(self.segmentations, self.counts))

    def tokens_in_use(self) -> int:
        return len({t for seg in self.segmentations for t in seg})

    # ---- merging ----------------------------------------------------------------------
    @staticmethod
    def merge_word(seg: list[int], a: int, b: int, new: int) -> list[int]:
        """Replace non-overlapping (a, b) left to right.

        >>> NaiveBPE.merge_word([1, 1, 1, 2, 1, 1], 1, 1, 9)
        [9, 1, 2, 9]
        """
        out, i = [], 0
        while i < len(seg):
            if i + 1 < len(seg) and seg[i] == a and seg[i + 1] == b:
                out.append(new)
                i += 2
            else:
                out.append(seg[i])
                i += 1
        return out

    def train(
        self,
        merges: int | None = None,
        *,
        vocab_size: int | None = None,
        min_count: int = 1,
    ) -> list[NaiveStep]:
        steps: list[NaiveStep] = []
        while True:
            if merges is not None and len(steps) >= merges:
                break
            if vocab_size is not None and len(self.tokens) >= vocab_size:
                break
            table = self.sorted_table()
            if not table or table[0][1] < min_count:
                break
            (a, b), best = table[0]
            ties = tuple(p for p, c in table if c == best)
            new_token = (self.tokens[a][0] + self.tokens[b][0], self.tokens[b][1])
            is_new = new_token not in self.tokens
            if is_new:
                self.tokens.append(new_token)
                self._displays.append(self.display(new_token))
            new = self.tokens.index(new_token)
            before = [list(seg) for seg in self.segmentations]
            self.segmentations = [self.merge_word(seg, a, b, new) for seg in self.segmentations]
            changed = tuple(w for w, (x, y) in enumerate(zip(before, self.segmentations)) if x != y)
            merged = sum((len(before[w]) - len(self.segmentations[w])) * self.counts[w] for w in changed)
            disp = self._displays
            steps.append(
                NaiveStep(
                    step=len(steps) + 1,
                    pair=(a, b),
                    pair_text=(disp[a], disp[b]),
                    token_id=new,
                    token=disp[new],
                    is_new_token=is_new,
                    count=best,
                    ties=ties,
                    table=tuple(table),
                    segmentations=tuple(tuple(seg) for seg in self.segmentations),
                    changed=changed,
                    merged_occurrences=merged,
                    vocab_size=len(self.tokens),
                    corpus_length=self.corpus_length(),
                    tokens_in_use=self.tokens_in_use(),
                )
            )
        return steps
