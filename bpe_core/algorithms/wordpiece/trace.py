"""How WordPiece shows its work on one word: every lookup of the longest-match loop
(`MatchAttempt`), and the result (`WordTrace`), as `WordPieceTokenizer.trace` gives them.

>>> t = trace_longest_match("hugs", {"[UNK]": 0, "hug": 1, "##s": 2}, unk_token="[UNK]")
>>> [a.candidate for a in t.attempts if a.found], t.tokens, t.ids
(['hug', '##s'], ('hug', '##s'), (1, 2))
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

__all__ = ["MatchAttempt", "WordTrace", "trace_longest_match"]


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


def trace_longest_match(
    word: str,
    vocab: Mapping[str, int],
    *,
    unk_token: str,
    prefix: str = "##",
    max_input_chars_per_word: int = 100,
) -> WordTrace:
    """Every lookup the longest-match loop makes on `word` with this vocabulary (token ->
    id), as the textbook loop makes them: at each position from the whole rest of the
    word down to one character."""
    if not isinstance(word, str):
        raise TypeError(f"word must be a str, not {type(word).__name__}")
    unk = (unk_token,), (vocab[unk_token],)
    if len(word) > max_input_chars_per_word:
        reason = f"the word has {len(word)} characters, more than the limit of {max_input_chars_per_word}"
        return WordTrace(word, (), *unk, True, reason)
    attempts: list[MatchAttempt] = []
    tokens: list[str] = []
    start = 0
    while start < len(word):
        for end in range(len(word), start, -1):
            cand = word[start:end] if start == 0 else prefix + word[start:end]
            found = cand in vocab
            attempts.append(MatchAttempt(start, end, cand, found))
            if found:
                tokens.append(cand)
                start = end
                break
        else:
            reason = f"nothing in the vocabulary matches at character {start} ({word[start]!r})"
            return WordTrace(word, tuple(attempts), *unk, True, reason)
    return WordTrace(word, tuple(attempts), tuple(tokens), tuple(vocab[t] for t in tokens), False, "")
