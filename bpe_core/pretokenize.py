"""Pre-tokenizers: split text into pieces (with offsets) before BPE sees it.

BPE never merges across a piece boundary, so the pre-tokenizer decides what a "word" is.
Each pre-tokenizer is a name and a regular expression (the `regex` module, for \\p{L});
`pretokenize` returns the pieces with their (start, end) character offsets, which
always tile the input exactly for the regex ones (every character lands in one piece),
except `whitespace`, which drops the whitespace between words as subword-nmt does.
`none` makes the whole text one piece.

The GPT-2, cl100k and o200k patterns are OpenAI's, as published in tiktoken
(tiktoken_ext/openai_public.py). For speed they are also written for the standard
library's `re` (see `Splitter`), which gives the same pieces about twice as fast on text
without characters above U+FFFF; `pretokenize`, training and encoding all split through
it. Normalisation (NFC, lowercasing) is not done here: the pieces are exactly the
input's characters.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import regex

__all__ = ["PRETOKENIZERS", "PATTERNS", "Piece", "pretokenize", "compile_pattern", "Splitter", "compile_splitter"]

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


# ---- a faster splitter for the OpenAI patterns -------------------------------------------
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
}
# The `regex` classes the templates name: {L}, {N}, {S}, {U} (o200k's upper-case word
# start), {W} (o200k's lower-case part), and one class per letter of the case-insensitive
# contractions ({s} is s, S and the long s U+017F).
_CLASSES = {
    "L": r"\p{L}",
    "N": r"\p{N}",
    "S": r"\s",
    "U": r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]",
    "W": r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]",
    **{c: f"(?i:{c})" for c in "sdmtlver"},
}


@lru_cache(maxsize=1)
def _bmp_classes() -> dict[str, str]:
    """Each of `_CLASSES` as the contents of a `re` class: \\uXXXX ranges up to U+FFFF."""
    bmp = "".join(map(chr, range(0x10000)))
    out = {}
    for name, cls in _CLASSES.items():
        parts = []
        for m in regex.finditer(f"(?:{cls})+", bmp):
            a, b = m.start(), m.end() - 1
            parts.append(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}")
        out[name] = "".join(parts)
    return out


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


class Splitter:
    """`findall` and `finditer` that give exactly the pieces of `regex.compile(pattern)`,
    using the faster `re` form of the pattern when there is one and the text allows it."""

    __slots__ = ("pattern", "regex", "bmp")

    def __init__(self, pattern: str):
        self.pattern = pattern
        self.regex = compile_pattern(pattern)
        self.bmp = _bmp_translation(pattern)

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
        return self._engine(text).findall(text)

    def finditer(self, text: str):
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
