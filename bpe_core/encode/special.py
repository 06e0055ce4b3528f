"""Special tokens in text: which ones a call allows, and where they cut the text.

Every tokenizer here (BPE, WordPiece, SentencePiece) treats special tokens the same way:
typed special-token text is ordinary text unless the caller allows it, by name or "all"
(tiktoken's `allowed_special`). These two functions are that rule, shared.

>>> sorted(allowed_specials("all", {"<s>": 1, "</s>": 2}, name="t"))
['</s>', '<s>']
>>> split_specials("a<s>b</s>", {"<s>", "</s>"})
[(0, 1, False), (1, 4, True), (4, 5, False), (5, 9, True)]
"""
from __future__ import annotations

from typing import Collection, Literal, Mapping

import regex

__all__ = ["allowed_specials", "split_specials"]


def allowed_specials(
    allowed_special: Collection[str] | Literal["all"] | str,
    specials: Mapping[str, int] | Collection[str],
    *,
    name: str,
    kind: str = "special token",
    kinds: str = "special tokens",
) -> set[str]:
    """The special tokens a call allows; a ValueError names one the tokenizer lacks.

    A single name is one token (not its characters); "all" is every one.
    """
    if isinstance(allowed_special, str) and allowed_special != "all":
        allowed_special = {allowed_special}
    allowed = set(specials) if allowed_special == "all" else set(allowed_special)
    unknown = allowed - set(specials)
    if unknown:
        raise ValueError(
            f"{sorted(unknown)[0]!r} is not a {kind} of {name}. "
            f"Its {kinds} are: {', '.join(specials) or 'none'}."
        )
    return allowed


def split_specials(text: str, allowed: Collection[str]) -> list[tuple[int, int, bool]]:
    """(start, end, is_special) of each non-empty chunk of `text`, cut around the allowed
    special tokens (the longest first where two overlap)."""
    if not allowed:
        return [(0, len(text), False)] if text else []
    splitter = regex.compile("|".join(regex.escape(s) for s in sorted(allowed, key=len, reverse=True)))
    out: list[tuple[int, int, bool]] = []
    pos = 0
    for m in splitter.finditer(text):
        if m.start() > pos:
            out.append((pos, m.start(), False))
        out.append((m.start(), m.end(), True))
        pos = m.end()
    if pos < len(text):
        out.append((pos, len(text), False))
    return out
