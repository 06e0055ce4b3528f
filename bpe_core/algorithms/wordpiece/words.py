"""How text becomes WordPiece's words: bpe_core's pre-tokenizers plus `bert`.

Hugging Face's BertPreTokenizer: whitespace (Unicode White_Space) separates pieces and
is dropped; each punctuation character (Unicode P*, or ASCII punctuation, which
includes symbols such as $ + < = > ^ ` | ~) is a piece of its own. Its punctuation is Unicode's P categories as the `regex` module
knows them, plus ASCII punctuation, so characters made punctuation by recent Unicode
versions (such as U+2E43) are split off here but not by Hugging Face, whose table is
older.
"""
from __future__ import annotations

from collections import Counter
from functools import lru_cache

import regex

from bpe_core import PRETOKENIZERS, Piece, WordTable, pretokenize

__all__ = ["WORDPIECE_PRETOKENIZERS", "wordpiece_pieces", "wordpiece_word_table"]

#: Pre-tokenizers a WordPiece tokenizer accepts: bpe_core's, plus `bert`.
WORDPIECE_PRETOKENIZERS: tuple[str, ...] = (*PRETOKENIZERS, "bert")

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


def piece_texts(text: str, pretokenizer: str) -> list[str]:
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
