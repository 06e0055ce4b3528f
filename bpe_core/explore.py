"""Look inside a vocabulary: one token, search and filters, overviews, odd tokens, compare two.

Works on every tokenizer the app knows, by the calls they share (`token_text`,
`token_bytes`, `encode`, `special_tokens`): our BPE `Tokenizer` (a merge list or a
tiktoken-style rank table: GPT-2, cl100k, o200k, Tekken, a trained run, GPT-2 files),
SentencePiece models, Hugging Face tokenizer.json files (BPE, WordPiece, Unigram) and
our own WordPiece and Unigram tokenizers.

- `VocabIndex.build(tok)` reads every token once into flat columns (its text, bytes;
  its lengths, script and flags made on their first use), so a search or filter over
  o200k's 200,000 tokens is a few list scans (bench/bench_explorer.py has the figures).
  Build one per tokenizer and share it: it is immutable (what it makes later, it makes
  once, under its lock).
- `token_record(index, tok, id)` says everything about one token: its forms, bytes,
  whether it is whole UTF-8 (and which character a fragment belongs to), special or
  not, its rank or score, a WordPiece continuation, and for BPE the merge tree that
  builds it down to bytes or characters. A rank table has no merge list: the two parts
  that merged into a token are found as tiktoken's educational code does, by running
  the merge loop on the token's own bytes with only the ranks below its own.
- `search(index, Query(...))` filters and sorts; a pattern runs with a time limit.
- `overview(index)` counts lengths, scripts, digit groups and whitespace tokens.
- `unreachable(index, tok)` and `never_produced(index, tok, texts)` compute the odd
  tokens (candidates for glitch tokens such as " SolidGoldMagikarp"); both can be slow
  on a big vocabulary and take a `progress` callback.
- `compare(a, b)` compares two vocabularies by token bytes.

What it leaves out: drawing (the page's HTML and charts), and any cache (callers keep
one index per tokenizer).

>>> from bpe_core import Tokenizer
>>> ranks = {bytes([b]): b for b in range(256)}
>>> ranks.update({b"ab": 256, b"a b": 257})  # the pattern cuts "a b" in three
>>> tok = Tokenizer.from_ranks(name="toy", mergeable_ranks=ranks, pattern=r"\\S+|\\s+", special_tokens={})
>>> index = VocabIndex.build(tok)
>>> search(index, Query(text="ab")).ids
(256,)
>>> unreachable(index, tok)
(257,)
"""
from __future__ import annotations

import heapq
import operator
import sys
import threading
import time
from array import array
from bisect import bisect_right
from collections import Counter
from itertools import accumulate, compress, count, repeat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import regex

from .display import bytes_label, visible_text
from .encode.merge_loop import NO_MERGE, merge_lowest
from .encode.tokenizer import Tokenizer
from .pretokenize import compile_untrusted
from .vocab import base_symbols

__all__ = [
    "VocabIndex", "TokenRecord", "MergeTree", "Query", "SearchResult", "Overview", "Comparison",
    "token_record", "search", "overview", "unreachable", "never_produced", "compare", "fragment_note",
    "token_script", "corpus_texts", "SCRIPTS", "SCRIPT_NAMES", "MODES", "SORTS", "PATTERN_SECONDS", "COMMON", "MIXED", "FRAGMENT",
]

#: Unicode scripts named by the filter and the overview (any other is "Other").
SCRIPTS: tuple[str, ...] = (
    "Latin", "Greek", "Cyrillic", "Armenian", "Hebrew", "Arabic", "Devanagari", "Bengali", "Gurmukhi",
    "Gujarati", "Tamil", "Telugu", "Kannada", "Malayalam", "Sinhala", "Thai", "Lao", "Tibetan", "Myanmar",
    "Georgian", "Hangul", "Ethiopic", "Khmer", "Han", "Hiragana", "Katakana",
)
COMMON = "Common"          # no letters of any script: digits, punctuation, symbols, spaces
MIXED = "Mixed"            # letters of two or more scripts
FRAGMENT = "Byte fragment"  # not whole UTF-8 on its own
OTHER = "Other"
#: Every value of a token's script (what `Query.script` takes).
SCRIPT_NAMES: tuple[str, ...] = SCRIPTS + (OTHER, COMMON, MIXED, FRAGMENT)
_SCRIPT_NAMES = SCRIPT_NAMES
_SCRIPT_RE = regex.compile("|".join(f"(?P<{s}>\\p{{Script={s}}})" for s in SCRIPTS)
                           + r"|(?P<Neutral>[\p{Script=Common}\p{Script=Inherited}])")

#: How `Query.text` matches a token's text.
MODES: tuple[str, ...] = ("substring", "prefix", "suffix", "pattern")
#: How results are ordered.
SORTS: tuple[str, ...] = ("id", "length", "bytes")
#: A pattern search stops after this many seconds (a ValueError says so).
PATTERN_SECONDS = 1.0

# Flag bits, one byte per token.
_SPECIAL, _FRAGMENT, _SPACE, _DIGIT, _DIGITS_ONLY, _WHITESPACE, _CONTINUES = 1, 2, 4, 8, 16, 32, 64
_HAS_DIGIT = regex.compile(r"\d").search
_BYTES_HEAD = sys.getsizeof(b"")  # a bytes object's size is this plus its length
_ASCII_LETTER = regex.compile(r"[A-Za-z]").search  # in ASCII, the letters of Script=Latin; the rest is Common


def token_script(text: str, _cache: dict[str, str] | None = None) -> str:
    """The script of a token's letters: one of SCRIPTS, "Other", "Common" (no letters:
    digits, punctuation, spaces) or "Mixed" (two scripts).

    >>> token_script(" hello"), token_script("日本"), token_script(" 42!"), token_script("aж")
    ('Latin', 'Han', 'Common', 'Mixed')
    """
    cache = {} if _cache is None else _cache
    found = None
    for ch in text:
        script = cache.get(ch)
        if script is None:
            m = _SCRIPT_RE.match(ch)
            script = cache[ch] = OTHER if m is None or m.lastgroup is None else m.lastgroup
        if script == "Neutral":
            continue
        if found is None:
            found = script
        elif found != script:
            return MIXED
    return COMMON if found is None else found


def fragment_note(data: bytes) -> str | None:
    """For bytes that are not UTF-8 on their own, which character they belong to; None
    for whole UTF-8.

    >>> fragment_note("é".encode())
    >>> fragment_note("日".encode()[:2])
    'the first 2 of 3 bytes of one character from U+65C0 to U+65FF (旀 … 旿)'
    >>> fragment_note(b"\\xa9")
    'a continuation byte (0xA9): the middle or end of a character of 2 to 4 bytes'
    """
    try:
        data.decode("utf-8")
        return None
    except UnicodeDecodeError:
        pass
    # The last lead byte and what follows it: the start of a character cut short.
    tail_start = len(data)
    for i in range(len(data) - 1, max(len(data) - 4, -1), -1):
        b = data[i]
        if b >= 0xC0:
            tail_start = i
            break
        if b < 0x80:
            break
    tail = data[tail_start:]
    head = data[:tail_start]
    if tail:
        need = 2 if tail[0] < 0xE0 else 3 if tail[0] < 0xF0 else 4
        lo, hi = tail + b"\x80" * (need - len(tail)), tail + b"\xbf" * (need - len(tail))
        try:
            first, last = lo.decode("utf-8"), hi.decode("utf-8")
            head.decode("utf-8")
        except UnicodeDecodeError:
            first = last = ""
        if first and last and len(tail) < need:
            prefix = f"{bytes_label(head)} then " if head else ""
            return (f"{prefix}the first {len(tail)} of {need} bytes of one character from U+{ord(first):04X} "
                    f"to U+{ord(last):04X} ({first} … {last})")
    if data and 0x80 <= data[0] < 0xC0:
        return (f"a continuation byte (0x{data[0]:02X}): the middle or end of a character of 2 to 4 bytes"
                if len(data) == 1 else
                f"continuation bytes ({' '.join(f'{b:02X}' for b in data)}): the end of a character, maybe more")
    return "bytes that are not UTF-8 (" + " ".join(f"{b:02X}" for b in data) + ")"


def _token_ids(tok: Any) -> list[int]:
    """Every id of a tokenizer, ascending."""
    if isinstance(tok, Tokenizer):
        ids = sorted(tok.tokens)  # in rank order already: one linear pass
        extra = [t for t in set(tok.special_tokens.values()) if t not in tok.tokens]
        return sorted(ids + extra) if extra else ids
    pieces = getattr(tok, "pieces", None)
    if isinstance(pieces, (tuple, list)):
        return list(range(len(pieces)))
    vocab = getattr(tok, "vocab", None)
    if isinstance(vocab, dict) and vocab:
        first = next(iter(vocab))
        return sorted(vocab) if isinstance(first, int) else sorted(vocab.values())
    return list(range(tok.vocab_size))


def _leading_run(ids: Sequence[int]) -> int:
    """How many of the sorted, distinct `ids` follow the first one without a gap
    (ids[i] - i never decreases, so a binary search finds it).

    >>> _leading_run([0, 1, 2, 5, 9]), _leading_run([]), _leading_run([3, 4])
    (3, 0, 2)
    """
    if not ids:
        return 0
    lo, hi, first = 1, len(ids), ids[0]
    while lo < hi:  # the first i with ids[i] - i > first
        mid = (lo + hi) // 2
        if ids[mid] - mid > first:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _token_data(tok: Any, ids: list[int], specials: set[int]) -> list[bytes]:
    """Every id's bytes, in order (a rank table's in one C-level call)."""
    if isinstance(tok, Tokenizer):
        found: list[bytes | None] = list(map(tok._bytes.get, ids))
        for row in compress(count(), map(operator.not_, found)):  # special tokens (and an empty token)
            found[row] = tok.token_bytes(ids[row])
        return found  # type: ignore[return-value]  # every None replaced
    if type(tok).__name__ != "PipelineTokenizer" or getattr(tok, "byte_level", False):
        return [tok.token_bytes(t) for t in ids]
    datas = []
    for tid in ids:
        form = tok.token_text(tid)
        if "▁" in form and tid not in specials:  # a file's '▁' stands for a space, whatever its decoder does alone
            datas.append(form.replace("▁", " ").encode("utf-8"))
        else:
            datas.append(tok.token_bytes(tid))
    return datas


def _special_ids(tok: Any) -> set[int]:
    ids = set(getattr(tok, "special_tokens", {}).values())
    unk = getattr(tok, "unk_id", None)
    if isinstance(unk, int):
        ids.add(unk)
    return ids


def _kind(tok: Any) -> str:
    if isinstance(tok, Tokenizer):
        if tok.ranks is not None:
            return "BPE (rank table)"
        return f"BPE (merge list, {'bytes' if tok.units == 'byte' else 'characters'})"
    name = type(tok).__name__
    if name == "SentencePieceTokenizer":
        return f"SentencePiece {tok.model_type.upper() if tok.model_type == 'bpe' else 'Unigram'}"
    if name == "PipelineTokenizer":
        return f"tokenizer.json {tok.model_type}"
    return {"WordPieceTokenizer": "WordPiece", "UnigramModel": "Unigram"}.get(name, name)


@dataclass(frozen=True, eq=False)
class VocabIndex:
    """A vocabulary as flat columns, one row per token in id order (see the module
    docstring). `text[i]` is what token `ids[i]` stands for (its bytes as UTF-8, or
    `<E4>` labels for a fragment); `data[i]` its bytes.

    `build` reads only what a page's first view needs: the ids, texts and bytes (a text
    search, a page of results, one token's card), and which rows are special tokens,
    byte fragments and word continuations. The columns the filters, sorts and overviews
    scan (`chars`, `nbytes_of`, `script`, `flags`) are derived from those alone, in one
    pass on first use (`complete()`), once per index, under its lock; until then the
    per-row calls (`n_chars`, `n_bytes`, `script_name`, `is_special`...) answer for one
    row. `nbytes()` counts every column, made or not."""

    name: str
    kind: str
    ids: tuple[int, ...]
    text: tuple[str, ...]
    data: tuple[bytes, ...]
    special_rows: frozenset[int]
    fragment_rows: frozenset[int]
    continues_rows: frozenset[int] = frozenset()  # WordPiece: the '##' continuations
    made_by: dict[int, tuple[int, int, int]] = field(default_factory=dict)  # id -> (rank, left, right): merge lists
    prefix: str = ""         # WordPiece's continuation prefix
    _run: int = 0            # ids[:_run] are consecutive: their row is id - ids[0]
    _tail: dict[int, int] = field(default_factory=dict, repr=False)  # id -> row for the ids after the first gap
    _orders: dict = field(default_factory=dict, repr=False)  # columns, sorted rows, the haystack: made on first use
    _lock: Any = field(default_factory=threading.RLock, repr=False)

    @classmethod
    def build(cls, tok: Any, *, name: str | None = None, ids: Iterable[int] | None = None) -> "VocabIndex":
        """Read every token once (o200k's 200,000 in under a tenth of a second: whole-column
        calls, one Python step per special token or fragment only). `ids`: only these
        tokens (a page shows one token's record at once from a one-token index)."""
        ids = _token_ids(tok) if ids is None else sorted(set(ids))
        specials = _special_ids(tok)
        prefix = getattr(tok, "prefix", None) if type(tok).__name__ == "WordPieceTokenizer" else None
        if prefix is None and getattr(tok, "model_type", None) == "WordPiece":
            prefix = "##"
        run = _leading_run(ids)
        tail = {t: i for i, t in enumerate(ids[run:], start=run)}  # the ids after the first gap, if any
        special_rows = sorted(r for r in (t - ids[0] if 0 <= t - ids[0] < run else tail.get(t) for t in specials)
                              if r is not None)
        datas = _token_data(tok, ids, specials)
        texts = list(map(bytes.decode, datas, repeat("utf-8"), repeat("replace")))
        fragments = []
        for row in compress(count(), map(operator.contains, texts, repeat("\ufffd"))):
            try:  # a replacement character: a fragment, or U+FFFD itself
                datas[row].decode("utf-8")
            except UnicodeDecodeError:
                fragments.append(row)
                texts[row] = bytes_label(datas[row])
        for row in special_rows:
            texts[row] = tok.token_text(ids[row])
        continues: list[int] = []
        if prefix:
            form = tok.token_text
            continues = [r for r, t in enumerate(ids) if (f := form(t)).startswith(prefix) and len(f) > len(prefix)]
        made_by: dict[int, tuple[int, int, int]] = {}
        if isinstance(tok, Tokenizer) and tok.merges is not None:
            for (a, b), (rank, new) in tok.merges.items():
                if new not in made_by or rank < made_by[new][0]:
                    made_by[new] = (rank, a, b)
        return cls(name=name or getattr(tok, "name", "tokenizer"), kind=_kind(tok), ids=tuple(ids),  # type: ignore[arg-type]
                   text=tuple(texts), data=tuple(datas), special_rows=frozenset(special_rows),
                   fragment_rows=frozenset(fragments), continues_rows=frozenset(continues), made_by=made_by,
                   prefix=prefix or "", _run=run, _tail=tail)

    def __len__(self) -> int:
        return len(self.ids)

    def nbytes(self) -> int:
        """Bytes the index holds (for the byte-bounded caches), with the columns, orders and
        haystack made on first use counted as if made."""
        n = len(self.ids)
        per_str = sum(map(sys.getsizeof, self.text)) + _BYTES_HEAD * n + sum(map(len, self.data))
        columns = (4 + 4 + 1 + 1) * n  # chars, nbytes_of, script, flags
        tuples = 3 * (56 + 8 * n) + 28 * n
        rows = sum(sys.getsizeof(s) for s in (self.special_rows, self.fragment_rows, self.continues_rows))
        mapping = sys.getsizeof(self._tail) + 28 * len(self._tail)
        return (per_str + columns + tuples + rows + mapping + 100 * len(self.made_by)
                + 4 * len(SORTS) * 2 * n + 2 * per_str // 3)

    def _lazy(self, key: str, make: Callable[[], Any]) -> Any:
        """What `make()` returns, made once per index (the first caller makes it; the others wait)."""
        done = self._orders.get(key)
        if done is None:
            with self._lock:
                done = self._orders.get(key)
                if done is None:
                    done = self._orders[key] = make()
        return done

    def row(self, token_id: int) -> int:
        """The row of an id (ValueError naming the range if it is not one)."""
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise TypeError(f"token ids must be integers, not {token_id!r}")
        row = self._row(token_id)
        if row is None:
            raise ValueError(f"Token id {token_id} is not in the {self.name} vocabulary (ids {self.ids[0]} to "
                             f"{self.ids[-1]}). Give one of its ids.")
        return row

    def _row(self, token_id: int) -> int | None:
        row = token_id - self.ids[0] if self.ids else -1
        return row if 0 <= row < self._run else self._tail.get(token_id)

    def __contains__(self, token_id: object) -> bool:
        return isinstance(token_id, int) and not isinstance(token_id, bool) and self._row(token_id) is not None

    # ---- the columns the filters, sorts and overviews scan, made on first use
    def complete(self) -> "VocabIndex":
        """Make every column now (the filters, sorts and overviews make them on first use)."""
        self._lazy("classes", self._classes)
        self.chars
        self.nbytes_of
        return self

    def is_complete(self) -> bool:
        """Whether the columns are made (a first view's text search and card do not make them)."""
        return all(key in self._orders for key in ("classes", "chars", "nbytes_of"))

    @property
    def nbytes_of(self) -> array:
        """Each token's length in bytes."""
        return self._lazy("nbytes_of", lambda: array("i", map(len, self.data)))

    @property
    def chars(self) -> array:
        """Each token's length in characters (a fragment: in bytes)."""
        def make() -> array:
            column = array("i", map(len, self.text))
            for r in self.fragment_rows:
                column[r] = len(self.data[r])
            return column

        return self._lazy("chars", make)

    @property
    def script(self) -> array:
        """Each token's script, an index into SCRIPT_NAMES."""
        return self._lazy("classes", self._classes)[1]

    @property
    def flags(self) -> bytearray:
        """Each token's flag bits (special, fragment, leading space, digits, whitespace, continues)."""
        return self._lazy("classes", self._classes)[0]

    def _classes(self) -> tuple[bytearray, array]:
        """The flags and scripts of every row, in one pass (about 0.3 s for o200k)."""
        n = len(self.ids)
        flags, scripts = bytearray(n), array("B", bytes(n))
        cache: dict[str, str] = {}
        script_no = {s: i for i, s in enumerate(_SCRIPT_NAMES)}
        latin, common = script_no["Latin"], script_no[COMMON]
        ascii_letter, has_digit, script_of = _ASCII_LETTER, _HAS_DIGIT, token_script
        fragments, specials = self.fragment_rows, self.special_rows
        for row, text in enumerate(self.text):
            if row in fragments:
                flags[row] = _FRAGMENT | (_SPECIAL if row in specials else 0)
                scripts[row] = script_no[FRAGMENT]
                continue
            f = _SPACE if text[:1] == " " else 0
            if text.isascii():
                scripts[row] = latin if ascii_letter(text) else common
                if has_digit(text):
                    f |= _DIGIT | (_DIGITS_ONLY if text.strip(" ").isdecimal() else 0)
            else:
                scripts[row] = script_no[script_of(text, cache)]
                if has_digit(text):
                    f |= _DIGIT | (_DIGITS_ONLY if text.strip(" ").isdecimal() else 0)
            if text.isspace():
                f |= _WHITESPACE
            flags[row] = f
        for row in specials:
            flags[row] |= _SPECIAL
        for row in self.continues_rows:
            flags[row] |= _CONTINUES
        return flags, scripts

    # ---- one row (without making the columns)
    def n_chars(self, row: int) -> int:
        return len(self.data[row]) if row in self.fragment_rows else len(self.text[row])

    def n_bytes(self, row: int) -> int:
        return len(self.data[row])

    def script_name(self, row: int) -> str:
        done = self._orders.get("classes")
        if done is not None:
            return _SCRIPT_NAMES[done[1][row]]
        return FRAGMENT if row in self.fragment_rows else token_script(self.text[row])

    def is_special(self, row: int) -> bool:
        return row in self.special_rows

    def is_fragment(self, row: int) -> bool:
        return row in self.fragment_rows

    def continues(self, row: int) -> bool:
        """A WordPiece continuation ('##s')."""
        return row in self.continues_rows

    def order(self, sort: str, descending: bool) -> array:
        """Every row sorted by length in characters ("length") or bytes ("bytes"); equal
        lengths in id order. Made once per index (the frozen index keeps it)."""
        def make() -> array:
            column = self.chars if sort == "length" else self.nbytes_of
            return array("i", sorted(range(len(self.ids)), key=column.__getitem__, reverse=descending))

        return self._lazy(f"order.{sort}.{descending}", make)

    def haystack(self) -> tuple[str, array, array, tuple[int, ...]]:
        """For pattern search: the texts without a newline joined by newlines, each one's
        start offset and row, and the rows of texts holding a newline. Made on first use."""
        def make() -> tuple[str, array, array, tuple[int, ...]]:
            text = self.text
            lonely = tuple(compress(count(), map(operator.contains, text, repeat("\n"))))
            if lonely:
                skip = set(lonely)
                rows = array("i", (r for r in range(len(text)) if r not in skip))
                joined = list(map(text.__getitem__, rows))
            else:
                rows, joined = array("i", range(len(text))), list(text)
            starts = array("i", accumulate(map(len, joined), lambda at, n: at + n + 1, initial=0))
            starts.pop()
            return "\n".join(joined), starts, rows, lonely

        return self._lazy("haystack", make)

    def visible(self, row: int) -> str:
        """The token's text as the chips draw it (whitespace marked, invisibles named)."""
        return self.text[row] if self.is_fragment(row) else visible_text(self.text[row])


# ------------------------------------------------------------------------- one token


@dataclass(frozen=True)
class MergeTree:
    """How a token is built: `parts` are the tokens that merged into it (two for an
    ordinary merge; empty for a base byte or character). `id` is None for a part that is
    not itself in the vocabulary."""

    id: int | None
    text: str
    rank: int | None
    parts: tuple["MergeTree", ...] = ()

    def depth(self) -> int:
        return 1 + max((p.depth() for p in self.parts), default=0)

    def leaves(self) -> list["MergeTree"]:
        return [self] if not self.parts else [leaf for p in self.parts for leaf in p.leaves()]


@dataclass(frozen=True)
class TokenRecord:
    """Everything the explorer says about one token."""

    id: int
    form: str            # as the tokenizer writes it: 'ĠSolid', '▁the', '##s', 'est</w>'
    text: str            # what it stands for (bytes as UTF-8, or <E4> labels)
    visible: str         # `text` as the chips draw it
    hex: str             # its bytes in hex
    n_bytes: int
    n_chars: int
    utf8: bool           # whole UTF-8 on its own
    fragment_of: str | None
    special: bool
    script: str
    kind: str
    rank: int | None = None          # BPE: the merge rank (rank tables: the id)
    score: float | None = None       # SentencePiece / Unigram: the piece's score
    continues: bool | None = None    # WordPiece: a '##' continuation
    tree: MergeTree | None = None
    tree_note: str = ""


def _derive_parts(units: list, rank_of: Callable[[Any], Any], limit: Any) -> list:
    """Run the merge loop on `units` with only the merges ranked below `limit`."""
    def pair_rank(x, y):
        r = rank_of(x + y)
        return NO_MERGE if r is None or not r < limit else r

    if len(units) < 2:
        return units
    return merge_lowest(list(units), pair_rank, lambda x, y: x + y)


def _rank_tree(tok: Tokenizer, data: bytes, depth: int = 0) -> MergeTree:
    """A rank-table token's tree: its two parts by the merge loop under its own rank."""
    ranks = tok.ranks
    assert ranks is not None  # a rank-table tokenizer
    rank = ranks.get(data)
    label = bytes_label(data)
    if len(data) == 1 or rank is None or depth > 64:
        return MergeTree(rank, visible_text(label), rank)
    parts = _derive_parts([data[i:i + 1] for i in range(len(data))], ranks.get, rank)
    if len(parts) < 2:
        return MergeTree(rank, visible_text(label), rank)
    return MergeTree(rank, visible_text(label), rank, tuple(_rank_tree(tok, p, depth + 1) for p in parts))


def _merge_tree(tok: Tokenizer, index: VocabIndex, tid: int, depth: int = 0) -> MergeTree:
    made = index.made_by.get(tid)
    label = visible_text(tok.token_text(tid))
    if made is None or depth > 256:
        return MergeTree(tid, label, None)
    rank, a, b = made
    return MergeTree(tid, label, rank, (_merge_tree(tok, index, a, depth + 1), _merge_tree(tok, index, b, depth + 1)))


def _score_tree(tok: Any, piece: str, depth: int = 0) -> MergeTree:
    """A SentencePiece BPE piece's tree: its characters merged by score, higher first,
    with only the pieces scored above it (how spm's BPE builds pieces)."""
    ids = tok._ids
    tid = ids.get(piece)

    def rank_of(s: str):
        i = ids.get(s)
        return None if i is None or tok.types[i] != "normal" else (-tok.scores[i], i)

    limit = rank_of(piece) if tid is not None else None
    label = visible_text(piece)
    if len(piece) < 2 or limit is None or depth > 64:
        return MergeTree(tid, label, None)
    parts = _derive_parts(list(piece), rank_of, limit)
    if len(parts) < 2:
        return MergeTree(tid, label, None)
    return MergeTree(tid, label, None, tuple(_score_tree(tok, p, depth + 1) for p in parts))


def _replay_tree(tok: Any, index: VocabIndex, tid: int, depth: int = 0) -> MergeTree:
    """A file's BPE token (tokenizer.json): its model's replay of the token's own form;
    the last merge names its two parts, and theirs in turn."""
    label = index.visible(index.row(tid)) if tid in index else str(tid)
    replay = tok.work.replay(tok.token_text(tid)) if depth < 256 else None
    if replay is None or not replay.steps or tuple(replay.ids) != (tid,):
        return MergeTree(tid, label, None)
    last = replay.steps[-1]
    parts = tuple(_replay_tree(tok, index, p, depth + 1) if isinstance(p, int) else MergeTree(None, str(p), None)
                  for p in (last.left, last.right))
    return MergeTree(tid, label, int(last.rank), parts)


def _tree(index: VocabIndex, tok: Any, tid: int) -> tuple[MergeTree | None, str]:
    if isinstance(tok, Tokenizer) and tid not in tok.special_tokens.values():
        if tok.ranks is not None:
            return _rank_tree(tok, tok.token_bytes(tid)), (
                "A rank table has no merge list: each token's two parts are found by running the merge loop "
                "on its bytes with only the ranks below its own.")
        return _merge_tree(tok, index, tid), "From the merge list: each token, the two tokens that merged into it."
    if type(tok).__name__ == "SentencePieceTokenizer" and tok.model_type == "bpe" and tok.types[tid] == "normal":
        return _score_tree(tok, tok.pieces[tid]), (
            "SentencePiece BPE keeps scores, not merges: the parts are found by merging the piece's characters, "
            "highest score first, with only the pieces scored above it.")
    work = getattr(tok, "work", None)
    if (type(tok).__name__ == "PipelineTokenizer" and work is not None and work.algorithm == "BPE"
            and work.replay is not None and tid not in getattr(tok, "_added_ids", ())):
        return _replay_tree(tok, index, tid), (
            "From the file's merge list: the model's own replay of the token's text; its last merge names the "
            "two tokens that made it.")
    return None, ""


def token_record(index: VocabIndex, tok: Any, token_id: int) -> TokenRecord:
    """Everything about one token (ValueError if the id is not in the vocabulary)."""
    row = index.row(token_id)
    data = index.data[row]
    fragment = index.is_fragment(row)
    rank = score = continues = None
    if isinstance(tok, Tokenizer) and not index.is_special(row):
        rank = tok.ranks.get(data) if tok.ranks is not None else (index.made_by.get(token_id) or (None,))[0]
    scores = getattr(tok, "scores", None)
    if isinstance(scores, (tuple, list)) and token_id < len(scores):
        score = float(scores[token_id])
    if index.prefix:
        continues = index.continues(row)
    tree, note = _tree(index, tok, token_id)
    return TokenRecord(
        id=token_id, form=tok.token_text(token_id), text=index.text[row], visible=index.visible(row),
        hex=data.hex(" ").upper(), n_bytes=len(data), n_chars=index.n_chars(row), utf8=not fragment,
        fragment_of=fragment_note(data) if fragment else None, special=index.is_special(row),
        script=index.script_name(row), kind=index.kind, rank=rank, score=score, continues=continues,
        tree=tree, tree_note=note,
    )


# ------------------------------------------------------------------------- search


@dataclass(frozen=True)
class Query:
    """A search: `text` matched as `mode` (MODES), then the filters; None means any.

    `digits`: "some" (has a digit), "only" (digits, maybe after spaces), "none".
    """

    text: str = ""
    mode: str = "substring"
    script: str | None = None
    min_chars: int | None = None
    max_chars: int | None = None
    min_bytes: int | None = None
    max_bytes: int | None = None
    leading_space: bool | None = None
    digits: str | None = None
    whitespace: bool | None = None
    fragment: bool | None = None
    special: bool | None = None
    continues: bool | None = None
    sort: str = "id"
    descending: bool = False


@dataclass(frozen=True)
class SearchResult:
    """The ids matching a query, in its order, and the page asked for."""

    ids: tuple[int, ...]
    total: int
    page: int
    pages: int
    seconds: float


def _flag_test(rows: Iterable[int], flags: bytearray, bit: int, want: bool | None) -> Iterable[int]:
    if want is None:
        return rows
    if want:
        return [r for r in rows if flags[r] & bit]
    return [r for r in rows if not flags[r] & bit]


def _text_rows(index: VocabIndex, q: Query, deadline_s: float) -> Iterable[int]:
    texts, needle = index.text, q.text
    if not needle:
        return range(len(texts))
    if q.mode in ("substring", "prefix", "suffix") and "\n" not in needle:
        return _find_rows(index, needle, q.mode)
    if q.mode == "substring":
        return [r for r, t in enumerate(texts) if needle in t]
    if q.mode == "prefix":
        return [r for r, t in enumerate(texts) if t.startswith(needle)]
    if q.mode == "suffix":
        return [r for r, t in enumerate(texts) if t.endswith(needle)]
    if q.mode != "pattern":
        raise ValueError(f"Unknown search mode {q.mode!r}. Choose one of: {', '.join(MODES)}.")
    try:
        pattern = compile_untrusted(needle)  # refuses overlong patterns and huge counted repeats
    except regex.error as exc:
        raise ValueError(f"The pattern {needle!r} is not a valid regular expression ({exc}). "
                         "Fix it, or search for plain text (substring).") from None
    try:
        return _pattern_rows(index, pattern, deadline_s)
    except TimeoutError:
        raise ValueError(f"The pattern {needle!r} took longer than {deadline_s:g} s over the vocabulary, so it "
                         "was stopped. Use a simpler pattern (fewer nested repeats, not one that matches "
                         "every token), or plain text.") from None


def _find_rows(index: VocabIndex, needle: str, mode: str) -> list[int]:
    """Rows whose text contains, starts or ends with `needle` (no newline in it): C-speed
    `str.find` over the texts joined by newlines, one Python step per matching token."""
    hay, starts, rows, lonely = index.haystack()
    framed = "\n" + hay + "\n"  # framed[p + 1] is hay[p]; each token sits between two newlines
    pattern = "\n" + needle if mode == "prefix" else needle + "\n" if mode == "suffix" else needle
    shift = 0 if mode == "prefix" else 1  # from where the match starts to the hay offset inside its token
    found, n, pos = [], len(rows), 0
    find = framed.find
    while True:
        at = find(pattern, pos)
        if at < 0:
            break
        i = bisect_right(starts, at - shift) - 1
        found.append(rows[i])
        if i + 1 >= n:
            break
        pos = starts[i + 1]
    test = {"prefix": str.startswith, "suffix": str.endswith}.get(mode, lambda t, x: x in t)
    found += [r for r in lonely if test(index.text[r], needle)]
    found.sort()
    return found


def _pattern_rows(index: VocabIndex, pattern: Any, deadline_s: float) -> list[int]:
    """Rows whose text the pattern matches, within `deadline_s` in all (TimeoutError).

    One search call per matching token, not per token: the tokens without a newline are
    joined by newlines and searched with ^ and $ at each token's ends (MULTILINE); a
    match that runs across a joint is checked on its token alone, and the next search
    starts at the next token. Tokens holding a newline are searched one by one."""
    hay, starts, rows, lonely = index.haystack()
    end = time.perf_counter() + deadline_s
    found = []
    multi = regex.compile(pattern.pattern, pattern.flags | regex.MULTILINE)

    def left() -> float:
        remaining = end - time.perf_counter()
        if remaining <= 0:
            raise TimeoutError
        return remaining

    pos, n = 0, len(rows)
    while pos < len(hay):
        m = multi.search(hay, pos, timeout=left())
        if m is None:
            break
        i = bisect_right(starts, m.start()) - 1
        token_end = starts[i + 1] - 1 if i + 1 < n else len(hay)
        if m.end() <= token_end or pattern.search(index.text[rows[i]], timeout=left()):
            found.append(rows[i])
        if i + 1 >= n:
            break
        pos = starts[i + 1]
    for r in lonely:
        if pattern.search(index.text[r], timeout=left()):
            found.append(r)
    found.sort()
    return found


def search(index: VocabIndex, q: Query, *, page: int = 1, per_page: int = 50,
           pattern_seconds: float = PATTERN_SECONDS) -> SearchResult:
    """The tokens matching `q`, sorted, cut to one page (1-based; clamped to the last).

    >>> from bpe_core.pretrained import load_pretrained
    >>> gpt2 = load_pretrained("gpt2")
    >>> search(VocabIndex.build(gpt2), Query(text="SolidGoldMagikarp")).ids
    (43453,)
    """
    start = time.perf_counter()
    if q.sort not in SORTS:
        raise ValueError(f"Unknown sort {q.sort!r}. Choose one of: {', '.join(SORTS)}.")
    if q.script is not None and q.script not in _SCRIPT_NAMES:
        raise ValueError(f"Unknown script {q.script!r}. Choose one of: {', '.join(_SCRIPT_NAMES)}.")
    if q.digits not in (None, "some", "only", "none"):
        raise ValueError(f"digits must be 'some', 'only' or 'none', not {q.digits!r}.")
    if page < 1 or per_page < 1:
        raise ValueError(f"page and per_page start at 1 (got {page}, {per_page}).")
    rows = _text_rows(index, q, pattern_seconds)
    if q.script is not None:
        code, scripts = _SCRIPT_NAMES.index(q.script), index.script
        rows = [r for r in rows if scripts[r] == code]
    for lo, hi, column in ((q.min_chars, q.max_chars, index.chars), (q.min_bytes, q.max_bytes, index.nbytes_of)):
        if lo is not None or hi is not None:
            lo_, hi_ = lo if lo is not None else 0, hi if hi is not None else 1 << 30
            rows = [r for r in rows if lo_ <= column[r] <= hi_]
    tests = [(bit, want) for bit, want in ((_SPACE, q.leading_space), (_WHITESPACE, q.whitespace),
                                           (_FRAGMENT, q.fragment), (_SPECIAL, q.special),
                                           (_CONTINUES, q.continues)) if want is not None]
    if q.digits is not None:
        tests.append((_DIGITS_ONLY if q.digits == "only" else _DIGIT, q.digits != "none"))
    if tests:  # the flags column is made on a filter's first use
        flags = index.flags
        for bit, want in tests:
            rows = _flag_test(rows, flags, bit, want)
    rows = list(rows)
    if q.sort == "id":
        if q.descending:
            rows.reverse()
    else:
        order = index.order(q.sort, q.descending)
        if len(rows) < len(index):
            keep = bytearray(len(index))
            for r in rows:
                keep[r] = 1
            rows = [r for r in order if keep[r]]
        else:
            rows = list(order)
    pages = max(1, -(-len(rows) // per_page))
    page = min(page, pages)
    chosen = rows[(page - 1) * per_page: page * per_page]
    return SearchResult(tuple(index.ids[r] for r in chosen), len(rows), page, pages, time.perf_counter() - start)


# ------------------------------------------------------------------------- overviews


@dataclass(frozen=True)
class Overview:
    """A vocabulary at a glance (ordinary tokens; special tokens counted apart)."""

    size: int
    specials: int
    fragments: int
    by_chars: tuple[tuple[int, int], ...]     # (length in characters, tokens)
    by_bytes: tuple[tuple[int, int], ...]     # (length in bytes, tokens)
    by_script: tuple[tuple[str, int], ...]    # (script, tokens), most first
    longest: tuple[int, ...]                  # ids, longest (bytes) first
    digit_groups: tuple[tuple[int, int, int], ...]  # (digits, tokens present, possible 10**n)
    whitespace: tuple[int, ...]               # ids of whitespace-only tokens, longest first
    leading_space: int


def overview(index: VocabIndex, *, longest: int = 20) -> Overview:
    """Counts for the charts (see Overview).

    >>> from bpe_core.pretrained import load_pretrained
    >>> o = overview(VocabIndex.build(load_pretrained("cl100k_base")))
    >>> [(n, have == possible) for n, have, possible in o.digit_groups]
    [(1, True), (2, True), (3, True)]
    """
    flags, chars, nbytes, scripts = index.flags, index.chars, index.nbytes_of, index.script
    specials = [r for r, f in enumerate(flags) if f & _SPECIAL]
    by_chars, by_bytes, script_counts = Counter(chars), Counter(nbytes), Counter(scripts)
    for r in specials:  # counted apart
        by_chars[chars[r]] -= 1
        by_bytes[nbytes[r]] -= 1
        script_counts[scripts[r]] -= 1
    by_script = {_SCRIPT_NAMES[k]: v for k, v in script_counts.items() if v}
    digit_texts = {index.text[r] for r, f in enumerate(flags) if f & _DIGITS_ONLY and not f & (_SPACE | _SPECIAL)}
    digits = Counter(len(t) for t in digit_texts if t.isascii())
    special = set(specials)
    long_rows = heapq.nsmallest(longest, (r for r in range(len(index)) if r not in special),
                                key=lambda r: (-nbytes[r], r))
    white = sorted((r for r, f in enumerate(flags) if f & _WHITESPACE and not f & _SPECIAL),
                   key=lambda r: (-nbytes[r], r))
    return Overview(
        size=len(index), specials=len(specials), fragments=sum(1 for f in flags if f & _FRAGMENT and not f & _SPECIAL),
        by_chars=tuple(sorted((k, v) for k, v in by_chars.items() if v)),
        by_bytes=tuple(sorted((k, v) for k, v in by_bytes.items() if v)),
        by_script=tuple(sorted(by_script.items(), key=lambda kv: (-kv[1], kv[0]))),
        longest=tuple(index.ids[r] for r in long_rows),
        digit_groups=tuple((n, digits[n], 10 ** n) for n in sorted(digits)),
        whitespace=tuple(index.ids[r] for r in white),
        leading_space=sum(1 for f in flags if f & _SPACE and not f & _SPECIAL),
    )


# ------------------------------------------------------------------------- odd tokens


def _metaspace(tok: Any, index: VocabIndex) -> bool:
    """Whether the vocabulary writes a word's leading space as '▁' (SentencePiece style)."""
    name = type(tok).__name__
    if name in ("SentencePieceTokenizer", "UnigramModel"):
        return True
    if name != "PipelineTokenizer" or getattr(tok, "byte_level", False):
        return False
    sample = [tok.token_text(t) for t in index.ids[:5000]]
    return sum(1 for s in sample if s.startswith("▁")) * 20 > len(sample)


def _own_texts(index: VocabIndex, tok: Any, row: int, metaspace: bool,
               prefixes: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The texts to encode to see whether a token is reachable. A piece that can only
    occur inside a word (a '##' continuation, a SentencePiece piece without '▁') is put
    after each of `prefixes` (whole words of the vocabulary: `_word_prefixes`), so that it
    is word-internal there; () when there is nothing to check."""
    f = index.flags[row]
    if f & (_SPECIAL | _FRAGMENT):
        return ()
    text = index.text[row]
    if not text:
        return ()
    if f & _CONTINUES:
        body = text[len(index.prefix):] if text.startswith(index.prefix) else text  # a file's text keeps '##'
        return tuple(p + body for p in prefixes)
    if metaspace and not tok.token_text(index.ids[row]).startswith("▁"):
        return tuple(p + text for p in prefixes)
    if metaspace:
        return (text[1:], text) if text[1:] else (text,)  # the dummy prefix puts the space back
    return (text,)


def _word_prefixes(index: VocabIndex, tok: Any, metaspace: bool, *, count: int = 3) -> tuple[str, ...]:
    """Words to put before a word-internal piece: the `count` longest word-starting tokens
    made only of letters (ASCII ones first), longest first, written
    without their leading space. After the longest word-start L, greedy WordPiece takes L
    and then the whole rest as one '##' piece if it is one, so a continuation that never
    follows L is cut by the normalizer or the pre-tokenizer; a SentencePiece model may
    join the two differently, so three words are tried.

    >>> from bpe_core.algorithms.wordpiece import WordPieceTokenizer
    >>> tok = WordPieceTokenizer(["[UNK]", "hug", "##s", "a", "p"])
    >>> _word_prefixes(VocabIndex.build(tok), tok, False)
    ('hug', 'a', 'p')
    """
    flags, texts = index.flags, index.text
    words = []
    for row, tid in enumerate(index.ids):
        if flags[row] & (_SPECIAL | _FRAGMENT | _CONTINUES):
            continue
        text = texts[row]
        if metaspace:
            if not tok.token_text(tid).startswith("▁"):
                continue
            text = text[1:]
        if text.isalpha():
            words.append((not text.isascii(), -len(text), row, text))
    return tuple(w[3] for w in heapq.nsmallest(count, words))


def _merge_list_reachable(tok: Tokenizer, tid: int) -> bool | None:
    """A merge list's token on its own: the merge loop on its base symbols (as one word,
    its end-of-word flag kept) ends in it; None for a base symbol."""
    body, eow = tok.tokens[tid]
    if tid in tok._base_ids.values():
        return None
    word = body.decode("utf-8", "surrogateescape") if isinstance(body, bytes) else body
    if tok.units == "byte":
        syms = [(body[i:i + 1], False) for i in range(len(body))]
    else:
        syms = base_symbols(word, tok.units, "none")
    if eow:
        if tok.end_of_word == "separate":
            syms.append((b"" if tok.units == "byte" else "", True))
        elif syms:
            syms[-1] = (syms[-1][0], True)
    ids = [tok._base_ids.get(s) for s in syms]
    if any(i is None for i in ids):
        return False
    merges = tok.merges
    assert merges is not None  # a merge-list tokenizer
    parts = merge_lowest(ids, lambda x, y: merges.get((x, y), (NO_MERGE,))[0], lambda x, y: merges[(x, y)][1])
    return parts == [tid]


def unreachable(index: VocabIndex, tok: Any, *,
                progress: Callable[[int, int], None] | None = None) -> tuple[int, ...]:
    """Tokens that encoding their own text does not produce.

    A merge list's token is checked with the merge loop on its own symbols (one word);
    any other token by encoding its text (a '▁' piece without its space too, since the
    dummy prefix adds it back). A piece that only occurs inside a word ('##s', a
    SentencePiece piece without '▁') is encoded after a few whole words of the vocabulary
    (`_word_prefixes`): unreachable when none of them is followed by it. Special tokens
    and byte fragments are not checked. `progress(done, total)` is called every 2,000 tokens.
    """
    out = []
    total = len(index)
    metaspace = _metaspace(tok, index)
    merge_list = isinstance(tok, Tokenizer) and tok.merges is not None
    encode = tok.encode
    prefixes = () if merge_list else _word_prefixes(index, tok, metaspace)
    for row, tid in enumerate(index.ids):
        if progress is not None and row % 2000 == 0:
            progress(row, total)
        if merge_list:
            if index.flags[row] & _SPECIAL:
                continue
            if _merge_list_reachable(tok, tid) is False:
                out.append(tid)
            continue
        texts = _own_texts(index, tok, row, metaspace, prefixes)
        if texts and not any(tid in encode(t) for t in texts):
            out.append(tid)
    if progress is not None:
        progress(total, total)
    return tuple(out)


def never_produced(index: VocabIndex, tok: Any, texts: Sequence[str], *,
                   progress: Callable[[int, int], None] | None = None) -> tuple[int, ...]:
    """Ordinary tokens (not special) that encoding every text in `texts` never produces."""
    seen: set[int] = set()
    for i, text in enumerate(texts):
        if progress is not None:
            progress(i, len(texts))
        seen.update(tok.encode(text))
    if progress is not None:
        progress(len(texts), len(texts))
    flags = index.flags
    return tuple(t for r, t in enumerate(index.ids) if t not in seen and not flags[r] & _SPECIAL)


def corpus_texts(folder: str | Path) -> dict[str, str]:
    """The built-in corpora: every .txt in `folder` and in its `languages/` (the same
    paragraph in ten languages), name -> text."""
    root = Path(folder)
    files = sorted(root.glob("*.txt")) + sorted((root / "languages").glob("*.txt"))
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in files}


# ------------------------------------------------------------------------- compare


@dataclass(frozen=True)
class Comparison:
    """Two vocabularies compared by the bytes of their ordinary tokens."""

    size_a: int
    size_b: int
    shared: int
    only_a: tuple[int, ...]    # ids in a, longest first
    only_b: tuple[int, ...]    # ids in b, longest first
    by_script: tuple[tuple[str, int, int, int], ...]   # (script, in a, in b, shared)
    by_bytes: tuple[tuple[int, int, int, int], ...]    # (length in bytes, in a, in b, shared)


def compare(a: VocabIndex, b: VocabIndex) -> Comparison:
    """What two vocabularies share, by token bytes (special tokens left out).

    >>> from bpe_core.pretrained import load_pretrained
    >>> c = compare(VocabIndex.build(load_pretrained("cl100k_base")), VocabIndex.build(load_pretrained("o200k_base")))
    >>> c.shared > 60_000
    True
    """
    def table(ix: VocabIndex) -> dict[bytes, int]:
        out: dict[bytes, int] = {}
        for r, d in enumerate(ix.data):
            if not ix.flags[r] & _SPECIAL:
                out.setdefault(d, r)
        return out

    ta, tb = table(a), table(b)
    shared = ta.keys() & tb.keys()
    scripts: dict[str, list[int]] = {}
    lengths: dict[int, list[int]] = {}
    for ix, t, col in ((a, ta, 0), (b, tb, 1)):
        for d, r in t.items():
            s = _SCRIPT_NAMES[ix.script[r]]
            for counts in (scripts.setdefault(s, [0, 0, 0]), lengths.setdefault(len(d), [0, 0, 0])):
                counts[col] += 1
                if col == 0 and d in shared:
                    counts[2] += 1

    def only(ix: VocabIndex, t: dict[bytes, int], other: dict[bytes, int]) -> tuple[int, ...]:
        rows = [r for d, r in t.items() if d not in other]
        rows.sort(key=lambda r: (-ix.nbytes_of[r], r))
        return tuple(ix.ids[r] for r in rows)

    return Comparison(
        size_a=len(ta), size_b=len(tb), shared=len(shared), only_a=only(a, ta, tb), only_b=only(b, tb, ta),
        by_script=tuple((s, c[0], c[1], c[2]) for s, c in sorted(scripts.items(), key=lambda kv: (-(kv[1][0] + kv[1][1]), kv[0]))),
        by_bytes=tuple((n, c[0], c[1], c[2]) for n, c in sorted(lengths.items())),
    )
