"""Patterns read the way Oniguruma (the library's regex engine) reads them, and ours
written so that Oniguruma reads them our way."""
from __future__ import annotations

from functools import lru_cache

import regex


def _atom_start(pattern: str, end: int) -> int:
    """Where the regex atom that ends just before `end` starts: a group, a class, an
    escape (with a {...} argument, as in \\p{N}) or one character."""
    if pattern[end - 1] == ")":
        depth, i = 0, end - 1
        while i >= 0:
            if pattern[i] == ")" and (i == 0 or pattern[i - 1] != "\\"):
                depth += 1
            elif pattern[i] == "(" and (i == 0 or pattern[i - 1] != "\\"):
                depth -= 1
                if depth == 0:
                    return i
            i -= 1
        return 0
    if pattern[end - 1] == "]":
        i = pattern.rfind("[", 0, end - 1)
        while i > 0 and pattern[i - 1] == "[":
            i -= 1
        return max(i, 0)
    if pattern[end - 1] == "}":
        m = regex.search(r"\\[pP]\{[^{}]*\}$", pattern[:end])
        if m:
            return m.start()
    if end >= 2 and pattern[end - 2] == "\\":
        return end - 2
    return end - 1


_BOUNDED_PLUS = regex.compile(r"(?<!\\)\{\d+(?:,\d*)?\}\+")


def rewrite_bounded_plus(pattern: str, *, to: str) -> str:
    """Oniguruma (the library's regex engine) reads `X{1,3}+` as `(?:X{1,3})+`, a
    repetition; Python's `regex` and tiktoken read it as possessive. Rewrite it for the
    other engine: to="python" keeps Oniguruma's meaning, to="onig" keeps ours.

    >>> print(rewrite_bounded_plus(r"\\p{N}{1,3}+|a", to="python"))
    (?:\\p{N}{1,3})+|a
    >>> print(rewrite_bounded_plus(r"\\p{N}{1,3}+|a", to="onig"))
    (?>\\p{N}{1,3})|a
    """
    out, done = [], 0
    for m in _BOUNDED_PLUS.finditer(pattern):
        start = _atom_start(pattern, m.start())
        if start < done:
            continue
        atom, quant = pattern[start : m.start()], m.group()[:-1]
        out.append(pattern[done:start])
        out.append(f"(?:{atom}{quant})+" if to == "python" else f"(?>{atom}{quant})")
        done = m.end()
    out.append(pattern[done:])
    return "".join(out)


@lru_cache(maxsize=1)
def _every_character() -> str:
    return "".join(map(chr, range(0xD800))) + "".join(map(chr, range(0xE000, 0x110000)))


@lru_cache(maxsize=64)
def _explicit(cls: str) -> str:
    """A class as its members listed (literal characters and ranges), read off `regex`."""
    parts = []
    for m in regex.finditer(f"(?:{cls})+", _every_character()):
        a, b = m.group()[0], m.group()[-1]
        esc = lambda ch: "\\" + ch if ch in "\\]^-[&" else ch  # noqa: E731
        parts.append(esc(a) if a == b else f"{esc(a)}-{esc(b)}")
    return "[" + "".join(parts) + "]"


def explicit_classes(pattern: str) -> str:
    """Our pattern with every class that uses \\w, \\W, \\d or \\D written out in full.

    The engines disagree on those shorthands (Oniguruma's \\w leaves out the zero-width
    joiner, which `regex` counts as a word character), so an exported pattern lists the
    characters our engine means.

    >>> explicit_classes(r"a|\\d") == "a|" + _explicit(r"\\d")
    True
    """
    out, i, n = [], 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            token = pattern[i : i + 2]
            out.append(_explicit(token) if token[1] in "wWdD" else token)
            i += 2
        elif ch == "[":
            j = i + 1 + (pattern[i + 1 : i + 2] == "^")
            j += pattern[j : j + 1] == "]"
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            token = pattern[i : j + 1]
            out.append(_explicit(token) if regex.search(r"\\[wWdD]", token) else token)
            i = j + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)
