"""Pre-tokenizers: split text into pieces (with offsets) before BPE sees it.

BPE never merges across a piece boundary, so the pre-tokenizer decides what a "word" is.
Each pre-tokenizer is a name and a regular expression (the `regex` module, for \\p{L});
`pretokenize` returns the pieces with their (start, end) character offsets, which
always tile the input exactly for the regex ones (every character lands in one piece),
except `whitespace`, which drops the whitespace between words as subword-nmt does.
`none` makes the whole text one piece.

The GPT-2, cl100k and o200k patterns are OpenAI's, as published in tiktoken
(tiktoken_ext/openai_public.py); `MODEL_PATTERNS` are Llama 3's, Qwen's and Mistral
Tekken's. For speed they are also written for the standard
library's `re` (see `Splitter`), which gives the same pieces about twice as fast on text
without characters above U+FFFF; `pretokenize`, training and encoding all split through
it. Normalisation (NFC, lowercasing) is not done here: the pieces are exactly the
input's characters.

A pattern that comes from a user or a file (a typed .tiktoken pattern, a Tekken file's
other than tekken_240911's, a tokenizer.json's Split or Replace regex, `encode --pattern`)
that is not one of these is untrusted: a pattern
such as `(?:a|a)+b` takes time that doubles with every character, and one such as
`((a{1000}){1000}){10}` takes seconds and gigabytes only to compile. `compile_untrusted`
refuses overlong patterns and huge counted repeats before compiling, and `Guarded` runs
the compiled pattern with a time limit (`PATTERN_TIMEOUT`, shared by all the calls inside
one `pattern_deadline`, the time spent matching), raising `PatternTimeout` (a ValueError) when it is spent. A
`Splitter` for such a pattern also keeps every character: capture groups do not change
the pieces (the whole match is the piece), a pattern that matches the empty string is
refused, and text between two matches becomes a piece of its own, so the pieces tile the
text as the built-in pre-tokenizers' do (`whitespace` aside, which drops the spaces).
"""
from __future__ import annotations

import re
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Iterator

import regex

__all__ = ["PRETOKENIZERS", "PATTERNS", "Piece", "pretokenize", "compile_pattern", "Splitter", "compile_splitter",
           "PATTERN_TIMEOUT", "MAX_PATTERN_CHARS", "MAX_REPEAT", "PatternTimeout", "pattern_deadline",
           "compile_untrusted", "Guarded"]

GPT2_PATTERN = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
)
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
# The simple regex names letters, 1-3 digits, punctuation and whitespace. Word characters
# that are none of these (`_`, the zero-width joiner inside emoji, other connector
# punctuation) would fall between pieces and be lost, so a last alternative `\S` keeps
# each of them as a piece of its own.
SIMPLE_PATTERN = r""" ?[^\W\d_]+| ?\d{1,3}| ?[^\s\w]+|\s+|\S"""
WHITESPACE_PATTERN = r"""\S+"""

#: name -> regex. `none` has no pattern: the whole text is one piece.
PATTERNS: dict[str, str | None] = {
    "whitespace": WHITESPACE_PATTERN,
    "gpt2": GPT2_PATTERN,
    "cl100k": CL100K_PATTERN,
    "o200k": O200K_PATTERN,
    "simple": SIMPLE_PATTERN,
    "none": None,
}
PRETOKENIZERS: tuple[str, ...] = tuple(PATTERNS)

DESCRIPTIONS: dict[str, str] = {
    "whitespace": "words between spaces (subword-nmt, the Sennrich paper)",
    "gpt2": "GPT-2's regex: letters, digits, punctuation; a space sticks to the next word",
    "cl100k": "GPT-4's regex: digits in groups of up to 3, case-insensitive contractions",
    "o200k": "GPT-4o's regex: camelCase-aware words, digits in groups of up to 3",
    "simple": "a simple regex: ` ?letters`, ` ?1-3 digits`, ` ?punctuation`, whitespace "
    "(anything else, such as `_`, is a piece of its own)",
    "none": "no pre-tokenization: merges may cross spaces",
}


@dataclass(frozen=True, slots=True)
class Piece:
    """One pre-tokenized piece: its text and its [start, end) character offsets."""

    text: str
    start: int
    end: int


@lru_cache(maxsize=32)
def compile_pattern(pattern: str) -> regex.Pattern:
    """Compile (once) a pre-tokenizer regex."""
    return regex.compile(pattern)


# ---- patterns from users and files: bounded compile, time limit ------------------------------
#: Seconds an untrusted pattern may spend matching one text (all its pieces: `pattern_deadline`).
#: The published patterns split a 2 MB text (the Tokenize page's largest) in about 0.3 s.
PATTERN_TIMEOUT = 2.0
#: The longest untrusted pattern compiled (characters). Real ones are under 1,000; our own
#: exports write \w and \d out in full (about 4,200 characters for `simple`).
MAX_PATTERN_CHARS = 10_000
#: The largest product of nested counted repeats (`{n}`, `{n,m}`) in an untrusted pattern:
#: `regex` unrolls them when compiling, and (?:a{1000}){1000} takes a second to compile.
MAX_REPEAT = 10_000

#: The open models' own patterns (Llama 3's, Qwen's), as their tokenizer code writes them:
#: the built-in rank-file tokenizers split with them (`pretrained.open_models`). Not
#: offered for training (they are not in `PATTERNS`), but trusted like those.
MODEL_PATTERNS: dict[str, str] = {
    "llama3": (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
               r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""),
    "qwen": (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
             r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""),
    "qwen3.5": (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}"""
                r"""| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""),
    # Mistral's Tekken files (tekken_240911.json's config.pattern): o200k's without the
    # contractions, digits one by one.
    "tekken": (r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
               r"""|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"""
               r"""|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"""),
}
_TRUSTED = frozenset([*(p for p in PATTERNS.values() if p is not None), *MODEL_PATTERNS.values()])
#: What one call may take without counting against the budget (seconds): a call on one word
#: costs about 20 µs (most of it the `regex` module's timeout itself), so a text of many
#: words is not stopped for its number of words, only for a pattern that backtracks.
_FREE_CALL = 50e-6
_BUDGET: ContextVar[list[float] | None] = ContextVar("bpe_core_pattern_budget", default=None)


class PatternTimeout(ValueError):
    """An untrusted pattern ran out of time."""


@contextmanager
def pattern_deadline(seconds: float = PATTERN_TIMEOUT) -> Iterator[None]:
    """Every untrusted pattern run inside shares one budget of `seconds` of matching (an
    enclosing budget, if any, is kept). Without one, each call gets `PATTERN_TIMEOUT`.

    A tokenizer splits one text in many calls (each stretch between added tokens, each
    word an earlier pre-tokenizer made), so a per-call limit alone would let a text of
    many short words, each just under the limit, run for minutes. Only the time spent
    matching counts (this thread's CPU time, beyond 50 µs per call): the model's work
    between the calls, other threads' work and the machine's load do not.
    """
    if _BUDGET.get() is not None:
        yield
        return
    token = _BUDGET.set([seconds])
    try:
        yield
    finally:
        _BUDGET.reset(token)


def _run_timed(pattern: str, call: Callable, *args):
    """`call(*args, timeout=...)` within the budget; PatternTimeout once it is spent."""
    budget = _BUDGET.get()
    left = PATTERN_TIMEOUT if budget is None else budget[0]
    if left <= 0:
        raise _timed_out(pattern)
    start = time.thread_time()  # this thread's CPU: other sessions' work and the machine's load do not count
    try:
        return call(*args, timeout=left)
    except TimeoutError:
        raise _timed_out(pattern) from None
    finally:
        if budget is not None:
            budget[0] -= max(time.thread_time() - start - _FREE_CALL, 0.0)


def _shown(pattern: str) -> str:
    return repr(pattern if len(pattern) <= 60 else pattern[:57] + "...")


def _timed_out(pattern: str) -> PatternTimeout:
    return PatternTimeout(
        f"The pattern {_shown(pattern)} took more than {PATTERN_TIMEOUT:g} s on this text and was stopped. "
        "It backtracks: nested or overlapping repeats such as (a|a)+ or (a+)+ try every way to split a run "
        "of characters, which doubles the time with each character. Simplify the pattern (one way to "
        "match each character; possessive ++ or atomic (?>...) groups)."
    )


def repeat_weight(pattern: str) -> int:
    """The largest product of nested counted repeats in a pattern (1 if it has none).

    >>> repeat_weight(r"\\p{N}{1,3}| ?\\p{L}+"), repeat_weight(r"(?:a{100}){20,}"), repeat_weight(r"[{]{5}")
    (3, 2000, 5)
    """
    stack = [1]      # the heaviest atom so far at each group level
    last = 1         # the weight of the atom just read (what a quantifier multiplies)
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            if pattern[i + 1 : i + 2] in ("p", "P", "N", "x", "u", "U", "g") and pattern[i + 2 : i + 3] == "{":
                close = pattern.find("}", i)
                i = close + 1 if close > 0 else n
            else:
                i += 2
            last = 1
        elif ch == "[":
            j = i + 1 + (pattern[i + 1 : i + 2] == "^")
            j += pattern[j : j + 1] == "]"
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i, last = j + 1, 1
        elif ch == "(":
            stack.append(1)
            i, last = i + 1, 1
        elif ch == ")":
            last = stack.pop() if len(stack) > 1 else 1
            stack[-1] = max(stack[-1], last)
            i += 1
        elif ch == "{" and (m := _COUNT.match(pattern, i)):
            last *= max(int(m.group(2) or m.group(1)), 1)
            stack[-1] = max(stack[-1], last)
            i = m.end()
        else:
            i, last = i + 1, 1
    return max(stack)


_COUNT = re.compile(r"\{(\d+)(?:,(\d*))?\}")


def compile_untrusted(pattern: str) -> regex.Pattern:
    """Compile a pattern from a user or a file, refusing first what would take long to compile.

    Raises ValueError for an overlong pattern or huge counted repeats; a pattern that is not
    a regular expression raises `regex.error` (each caller words that for its source).

    >>> compile_untrusted(r"((a{1000}){1000}){10}")
    Traceback (most recent call last):
    ...
    ValueError: The pattern '((a{1000}){1000}){10}' repeats up to 10,000,000 times through nested counted repeats such as {1000}; the limit here is 10,000 (compiling it would take long and much memory). Use smaller counts, or + and *.
    """
    if not isinstance(pattern, str):
        raise TypeError(f"a pattern must be a str, not {type(pattern).__name__}")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(
            f"The pattern is {len(pattern):,} characters long; patterns may have up to {MAX_PATTERN_CHARS:,} "
            "here (real pre-tokenizer patterns have a few hundred). Shorten it."
        )
    weight = repeat_weight(pattern)
    if weight > MAX_REPEAT:
        raise ValueError(
            f"The pattern {_shown(pattern)} repeats up to {weight:,} times through nested counted repeats "
            f"such as {{1000}}; the limit here is {MAX_REPEAT:,} (compiling it would take long and much "
            "memory). Use smaller counts, or + and *."
        )
    return compile_pattern(pattern)


class Guarded:
    """An untrusted compiled pattern whose every run has a time limit (see `pattern_deadline`).

    >>> g = Guarded(r"\\d+")
    >>> [m.span() for m in g.finditer("a12b3")], g.sub("#", "a12b3")
    ([(1, 3), (4, 5)], 'a#b#')
    """

    __slots__ = ("pattern", "compiled")

    def __init__(self, pattern: str, compiled: regex.Pattern | None = None):
        self.pattern = pattern
        self.compiled = compiled if compiled is not None else compile_untrusted(pattern)

    def finditer(self, text: str) -> list:
        """Every match (a list: the time limit covers the whole search)."""
        return _run_timed(self.pattern, lambda t, timeout: list(self.compiled.finditer(t, timeout=timeout)), text)

    def findall(self, text: str) -> list:
        return _run_timed(self.pattern, self.compiled.findall, text)

    def sub(self, repl: str | Callable, text: str) -> str:
        return _run_timed(self.pattern, self.compiled.sub, repl, text)


@dataclass(frozen=True, slots=True)
class Cut:
    """A piece an untrusted pattern's splitter gives: `group()`, `start()`, `end()` as a match's."""

    text: str
    first: int
    last: int

    def group(self) -> str:
        return self.text

    def start(self) -> int:
        return self.first

    def end(self) -> int:
        return self.last


def tiling_cuts(matches, text: str) -> list[Cut]:
    """The whole matches (capture groups aside), without empty ones, and the text between
    them as pieces of their own: pieces that tile `text`.

    >>> [c.text for c in tiling_cuts(regex.finditer(r"(a)|(?=c)", "xabcd"), "xabcd")]
    ['x', 'a', 'bcd']
    """
    cuts: list[Cut] = []
    done = 0
    for m in matches:
        a, b = m.span()
        if a == b:
            continue
        if a > done:
            cuts.append(Cut(text[done:a], done, a))
        cuts.append(Cut(text[a:b], a, b))
        done = b
    if done < len(text):
        cuts.append(Cut(text[done:], done, len(text)))
    return cuts


# ---- a faster splitter for the OpenAI and open models' patterns ------------------------------
# The standard library's `re` runs these patterns about twice as fast as `regex`, but it
# has no \p{..} classes and its \s is not Unicode's White_Space. So each published
# pattern is also written for `re` with explicit character classes, which are read off the
# `regex` module itself (every code point up to U+FFFF tested against \p{L}, \s, ...), so
# they are the same classes whatever Unicode version `regex` ships. The classes stop at
# U+FFFF: a `re` class with code points above it is checked range by range, which is slow.
# So the `re` form is only used on text without such characters (emoji, rare CJK, ...);
# other text goes to `regex` with the published pattern. Either way the pieces are the
# same (tests/test_tokenizer_fastpath.py checks every BMP character in several contexts).
_CONTRACTIONS_I = r"""(?:'[{s}]|'[{t}]|'[{r}][{e}]|'[{v}][{e}]|'[{m}]|'[{l}][{l}]|'[{d}])"""
_RE_TEMPLATES: dict[str, str] = {
    GPT2_PATTERN: (
        r"""'(?:[sdmt]|ll|ve|re)| ?[{L}]++| ?[{N}]++| ?[^{S}{L}{N}]++|[{S}]++$|[{S}]+(?![^{S}])|[{S}]"""
    ),
    CL100K_PATTERN: (
        r"""'(?:[{s}{d}{m}{t}]|[{l}][{l}]|[{v}][{e}]|[{r}][{e}])|[^\r\n{L}{N}]?+[{L}]++|[{N}]{{1,3}}+"""
        r"""| ?[^{S}{L}{N}]++[\r\n]*+|[{S}]++$|[{S}]*[\r\n]|[{S}]+(?![^{S}])|[{S}]"""
    ),
    O200K_PATTERN: "|".join(
        [
            r"""[^\r\n{L}{N}]?[{U}]*[{W}]+""" + _CONTRACTIONS_I + "?",
            r"""[^\r\n{L}{N}]?[{U}]+[{W}]*""" + _CONTRACTIONS_I + "?",
            r"""[{N}]{{1,3}}""",
            r""" ?[^{S}{L}{N}]+[\r\n/]*""",
            r"""[{S}]*[\r\n]+""",
            r"""[{S}]+(?![^{S}])""",
            r"""[{S}]+""",
        ]
    ),
    MODEL_PATTERNS["llama3"]: (
        _CONTRACTIONS_I + r"""|[^\r\n{L}{N}]?[{L}]+|[{N}]{{1,3}}| ?[^{S}{L}{N}]+[\r\n]*|[{S}]*[\r\n]+"""
        r"""|[{S}]+(?![^{S}])|[{S}]+"""
    ),
    MODEL_PATTERNS["qwen"]: (
        _CONTRACTIONS_I + r"""|[^\r\n{L}{N}]?[{L}]+|[{N}]| ?[^{S}{L}{N}]+[\r\n]*|[{S}]*[\r\n]+"""
        r"""|[{S}]+(?![^{S}])|[{S}]+"""
    ),
    MODEL_PATTERNS["qwen3.5"]: (
        _CONTRACTIONS_I + r"""|[^\r\n{L}{N}]?[{L}{M}]+|[{N}]| ?[^{S}{L}{M}{N}]+[\r\n]*|[{S}]*[\r\n]+"""
        r"""|[{S}]+(?![^{S}])|[{S}]+"""
    ),
    MODEL_PATTERNS["tekken"]: "|".join(
        [
            r"""[^\r\n{L}{N}]?[{U}]*[{W}]+""",
            r"""[^\r\n{L}{N}]?[{U}]+[{W}]*""",
            r"""[{N}]""",
            r""" ?[^{S}{L}{N}]+[\r\n/]*""",
            r"""[{S}]*[\r\n]+""",
            r"""[{S}]+(?![^{S}])""",
            r"""[{S}]+""",
        ]
    ),
}
# The `regex` classes the templates name: {L}, {N}, {S}, {M} (marks), {U} (o200k's upper-case
# word start), {W} (o200k's lower-case part), and one class per letter of the case-insensitive
# contractions ({s} is s, S and the long s U+017F).
_CLASSES = {
    "L": r"\p{L}",
    "N": r"\p{N}",
    "S": r"\s",
    "M": r"\p{M}",
    "U": r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]",
    "W": r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]",
    **{c: f"(?i:{c})" for c in "sdmtlver"},
}


@lru_cache(maxsize=1)
def _bmp_classes() -> dict[str, str]:
    """Each of `_CLASSES` as the contents of a `re` class: ranges up to U+FFFF, each end
    written as itself (`re` parses a class in Python, one character at a time: a \\uXXXX
    escape costs it six and an escape call), except ASCII punctuation, spaces and
    controls, which are escaped."""
    bmp = "".join(map(chr, range(0x10000)))
    out = {}
    for name, cls in _CLASSES.items():
        parts = []
        for m in regex.finditer(f"(?:{cls})+", bmp):
            a, b = m.start(), m.end() - 1
            parts.append(_class_char(a) if a == b else f"{_class_char(a)}-{_class_char(b)}")
        out[name] = "".join(parts)
    return out


def _class_char(code: int) -> str:
    """A code point as written inside a `re` class.

    >>> _class_char(0x61), _class_char(0x5D), _class_char(0xE9)
    ('a', '\\\\u005d', 'é')
    """
    return chr(code) if code >= 0x80 or chr(code).isalnum() else f"\\u{code:04x}"


def _bmp_translation(pattern: str) -> "re.Pattern[str] | None":
    """The `re` form of a published pattern (valid for text without astral characters),
    or None for other patterns (or a Python whose `re` lacks possessive quantifiers)."""
    template = _RE_TEMPLATES.get(pattern)
    if template is None:
        return None
    try:
        return re.compile(template.format(**_bmp_classes()))
    except re.error:  # Python < 3.11: no possessive quantifiers
        return None


_UNMADE = object()


class Splitter:
    """`findall` and `finditer` that give exactly the pieces of `regex.compile(pattern)`,
    using the faster `re` form of the pattern when there is one and the text allows it.

    A pattern that is not one of `PATTERNS` is untrusted (see the module docstring): it
    runs with a time limit and its pieces tile the text.

    >>> s = Splitter(r"(\\w+)|\\s+")
    >>> s.findall("ab  c"), [(m.group(), m.start()) for m in s.finditer("ab!")]
    (['ab', '  ', 'c'], [('ab', 0), ('!', 2)])
    >>> Splitter("x*")
    Traceback (most recent call last):
    ...
    ValueError: The pattern 'x*' matches the empty string, so it would cut the text nowhere (or drop it). Make each alternative match at least one character (x+ rather than x*).
    """

    __slots__ = ("pattern", "regex", "_bmp", "guarded")

    def __init__(self, pattern: str):
        self.pattern = pattern
        self.guarded: Guarded | None = None
        if pattern in _TRUSTED:
            self.regex = compile_pattern(pattern)
        else:
            try:
                self.regex = compile_untrusted(pattern)
            except regex.error as exc:
                raise ValueError(f"The pattern {_shown(pattern)} is not a regular expression ({exc}). "
                                 "Fix the pattern.") from None
            self.guarded = Guarded(pattern, self.regex)
            if self.regex.fullmatch("", timeout=PATTERN_TIMEOUT) is not None:
                raise ValueError(
                    f"The pattern {_shown(pattern)} matches the empty string, so it would cut the text nowhere "
                    "(or drop it). Make each alternative match at least one character (x+ rather than x*)."
                )
        self._bmp: Any = _UNMADE  # made on the first text: it takes 20 ms to compile

    @property
    def bmp(self) -> "re.Pattern[str] | None":
        """The `re` form of the pattern (`_bmp_translation`), made on first use."""
        bmp = self._bmp
        if bmp is _UNMADE:
            bmp = self._bmp = _bmp_translation(self.pattern)
        return bmp

    def _engine(self, text: str):
        bmp = self.bmp
        # Every character is at most U+FFFF exactly when UTF-16 needs 2 bytes per character
        # (a quick copy for such strings). Lone surrogates pass, as they are below U+FFFF.
        if bmp is not None and (
            text.isascii() or len(text.encode("utf-16-le", "surrogatepass")) == 2 * len(text)
        ):
            return bmp
        return self.regex

    def findall(self, text: str) -> list[str]:
        guarded = self.guarded
        if guarded is None:
            return self._engine(text).findall(text)
        if not self.regex.groups:
            pieces = guarded.findall(text)
            if sum(map(len, pieces)) == len(text) and "" not in pieces:
                return pieces  # the matches tile the text (no gap between them)
        return [c.text for c in tiling_cuts(guarded.finditer(text), text)]

    def finditer(self, text: str):
        if self.guarded is not None:
            return tiling_cuts(self.guarded.finditer(text), text)
        return self._engine(text).finditer(text)


@lru_cache(maxsize=32)
def compile_splitter(pattern: str) -> Splitter:
    """The (cached) :class:`Splitter` for a pre-tokenizer regex."""
    return Splitter(pattern)


def check_pretokenizer(name: str) -> str:
    """Return `name` if it is a known pre-tokenizer, else raise ValueError."""
    if not isinstance(name, str) or name not in PATTERNS:
        raise ValueError(
            f"Unknown pre-tokenizer {name!r}. Choose one of: {', '.join(PRETOKENIZERS)}."
        )
    return name


def pretokenize(text: str, name: str = "gpt2") -> tuple[Piece, ...]:
    """Split `text` into pieces with the pre-tokenizer `name`.

    >>> [p.text for p in pretokenize("Hello world's 12345!", "gpt2")]
    ['Hello', ' world', "'s", ' 12345', '!']
    >>> [(p.text, p.start) for p in pretokenize("low  lower", "whitespace")]
    [('low', 0), ('lower', 5)]
    >>> [p.text for p in pretokenize("ab cd", "none")]
    ['ab cd']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    pattern = PATTERNS[check_pretokenizer(name)]
    if pattern is None:
        return (Piece(text, 0, len(text)),) if text else ()
    return tuple(
        Piece(m.group(), m.start(), m.end()) for m in compile_splitter(pattern).finditer(text)
    )


def piece_texts(text: str, name: str) -> list[str]:
    """Only the pieces' texts (faster than :func:`pretokenize` for counting)."""
    pattern = PATTERNS[check_pretokenizer(name)]
    if pattern is None:
        return [text] if text else []
    return compile_splitter(pattern).findall(text)
