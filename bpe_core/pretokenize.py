"""Pre-tokenizers: split text into pieces (with offsets) before BPE sees it.

BPE never merges across a piece boundary, so the pre-tokenizer decides what a "word" is.
Each pre-tokenizer is a name and a regular expression (the `regex` module, for \\p{L});
`pretokenize` returns the pieces with their (start, end) character offsets, which
always tile the input exactly for the regex ones (every character lands in one piece),
except `whitespace`, which drops the whitespace between words as subword-nmt does.
`none` makes the whole text one piece.

The GPT-2, cl100k and o200k patterns are OpenAI's, as published in tiktoken
(tiktoken_ext/openai_public.py). Normalisation (NFC, lowercasing) is not done here:
the pieces are exactly the input's characters.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import regex

__all__ = ["PRETOKENIZERS", "PATTERNS", "Piece", "pretokenize", "compile_pattern"]

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
        Piece(m.group(), m.start(), m.end()) for m in compile_pattern(pattern).finditer(text)
    )


def iter_piece_texts(text: str, name: str) -> list[str]:
    """Only the pieces' texts (faster than :func:`pretokenize` for counting)."""
    pattern = PATTERNS[check_pretokenizer(name)]
    if pattern is None:
        return [text] if text else []
    return compile_pattern(pattern).findall(text)
