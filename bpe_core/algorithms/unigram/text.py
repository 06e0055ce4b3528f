"""SentencePiece's normalisation as Unigram uses it (every space a `▁`, one `▁` in front:
the dummy prefix), its inverse, and a corpus as the words Unigram trains on."""
from __future__ import annotations

import re

from bpe_core import parse_word_counts

__all__ = ["SPACE", "normalize", "denormalize", "words_from_text", "words_from_word_counts"]

SPACE = "\u2581"


def normalize(text: str) -> str:
    """Spaces as `▁` and a `▁` in front (SentencePiece's identity rule, no collapsing).

    >>> normalize("Hello  world")
    '▁Hello▁▁world'
    >>> normalize("")
    ''
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    return SPACE + text.replace(" ", SPACE) if text else ""


def denormalize(pieces_text: str) -> str:
    """The inverse of `normalize`: `▁` back to spaces, the dummy prefix dropped.

    >>> denormalize("▁Hello▁▁world")
    'Hello  world'
    """
    out = pieces_text.replace(SPACE, " ")
    return out[1:] if out.startswith(" ") else out


_WORD = re.compile(f"[\r\n]|{SPACE}[^{SPACE}\r\n]*|[^{SPACE}\r\n]+")


def words_from_text(text: str) -> dict[str, int]:
    """The distinct words of a normalised text with their counts, in order of first
    appearance. A word starts at each `▁`; a line break is a word of its own, and the
    text after it starts a new word (no `▁` in front, as encoding will see it).

    >>> words_from_text("to be or\\nnot to be")
    {'▁to': 2, '▁be': 2, '▁or': 1, '\\n': 1, 'not': 1}
    """
    counts: dict[str, int] = {}
    for word in _WORD.findall(normalize(text)):
        counts[word] = counts.get(word, 0) + 1
    return counts


def words_from_word_counts(text: str) -> dict[str, int]:
    """Words from `word count` lines, each as it appears after a space (`▁` in front).

    >>> words_from_word_counts("hug 10\\npug 5\\nhug 2")
    {'▁hug': 12, '▁pug': 5}
    """
    counts: dict[str, int] = {}
    for word, count in parse_word_counts(text):
        key = SPACE + word
        counts[key] = counts.get(key, 0) + count
    return counts
