"""Unicode normalization (NFC, NFD, NFKC, NFKD) with the offsets Hugging Face tokenizers gives.

The library normalizes with the `unicode-normalization-alignments` crate, which yields each
new character with a *change*: 0 when it takes the place of the next old character, +1
when it is new (the second and later characters of a decomposition), -n when it takes the
place of the next old character and n more are gone (a composition). `NormalizedString.
transform` then gives each new character the range of the original text of the old
character it takes the place of, or, for a new one, the range of the old character
before it. So after NFC, "e" + U+0301 is "é" covering only the "e" (the accent's
character is left uncovered), and after NFD "é" is "e" and U+0301 both covering "é".

This module redoes that exactly: `changes` is the crate's decomposition (canonical
reordering carries each character's change with it) and recomposition, with the
character data of Python's `unicodedata`; `aligned` applies the changes to a piece's
per-character ranges as `transform` does. Tests compare the offsets with the library's
`Encoding.offsets` on stress strings (tests/test_formats_offsets.py).
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

__all__ = ["changes", "aligned", "FORMS"]

FORMS = ("NFC", "NFD", "NFKC", "NFKD")
Origin = tuple[tuple[int, int], ...]


@lru_cache(maxsize=65_536)
def _decomposition(ch: str, compat: bool) -> str:
    return unicodedata.normalize("NFKD" if compat else "NFD", ch)


@lru_cache(maxsize=65_536)
def _composed(a: str, b: str) -> str | None:
    """The primary composite of a and b, if there is one."""
    out = unicodedata.normalize("NFC", a + b)
    return out if len(out) == 1 else None


def _decompose(text: str, compat: bool) -> list[tuple[str, int]]:
    """(character, change) of the decomposition: the first character of each character's
    decomposition 0, the others +1; each run from a starter up to the next is then sorted
    by combining class (stably), the changes moving with their characters.

    >>> _decompose("\u00e9a", False)
    [('e', 0), ('\u0301', 1), ('a', 0)]
    >>> _decompose("x\u0301\u0323", False)  # reordered: dot below (220) before acute (230)
    [('x', 0), ('\u0323', 0), ('\u0301', 0)]
    """
    out: list[tuple[int, str, int]] = []
    ready = 0
    for ch in text:
        for i, d in enumerate(_decomposition(ch, compat)):
            ccc = unicodedata.combining(d)
            if ccc == 0:
                out[ready:] = sorted(out[ready:], key=lambda item: item[0])
                ready = len(out)
            out.append((ccc, d, 0 if i == 0 else 1))
    out[ready:] = sorted(out[ready:], key=lambda item: item[0])
    return [(d, change) for _, d, change in out]


def _recompose(items: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The crate's canonical composition of decomposed (character, change) pairs: a
    composite takes its parts' changes summed, minus one for the part it swallowed.

    >>> _recompose([("e", 0), ("\u0301", 0)])
    [('é', -1)]
    """
    out: list[tuple[str, int]] = []
    composee: tuple[str, int] | None = None
    last_ccc: int | None = None
    held: list[tuple[str, int]] = []   # marks that did not compose, after the composee
    for ch, change in items:
        ccc = unicodedata.combining(ch)
        if composee is None:
            if ccc != 0:
                out.append((ch, change))
            else:
                composee = (ch, change)
            continue
        if last_ccc is not None and last_ccc >= ccc:   # blocked from the composee
            if ccc == 0:
                out.append(composee)
                out.extend(held)
                held, composee, last_ccc = [], (ch, change), None
            else:
                held.append((ch, change))
                last_ccc = ccc
            continue
        composite = _composed(composee[0], ch)
        if composite is not None:
            composee = (composite, composee[1] + change - 1)
        elif last_ccc is None and ccc == 0:
            out.append(composee)
            composee = (ch, change)
        else:
            held.append((ch, change))
            last_ccc = ccc
    if composee is not None:
        out.append(composee)
    out.extend(held)
    return out


def changes(form: str, text: str) -> list[tuple[str, int]]:
    """(character, change) of `text` normalized to `form`, as the library's crate yields them.

    >>> changes("NFC", "e\u0301x")
    [('é', -1), ('x', 0)]
    >>> changes("NFKD", "\ufb01")
    [('f', 0), ('i', 1)]
    """
    items = _decompose(text, form in ("NFKC", "NFKD"))
    return _recompose(items) if form in ("NFC", "NFKC") else items


def aligned(form: str, text: str, origin: Origin) -> tuple[str, Origin]:
    """`text` normalized to `form`, with the range of the original text each character
    came from (`origin` gives them for `text`), as the library's `transform` assigns them.

    >>> aligned("NFC", "e\u0301x", ((0, 1), (1, 2), (2, 3)))
    ('éx', ((0, 1), (2, 3)))
    >>> text, origin = aligned("NFD", "\u00e9", ((0, 1),))
    >>> [hex(ord(c)) for c in text], origin
    (['0x65', '0x301'], ((0, 1), (0, 1)))
    """
    out: list[str] = []
    new_origin: list[tuple[int, int]] = []
    idx = 0
    start = origin[0][0] if origin else 0
    for ch, change in changes(form, text):
        if change > 0:
            align = origin[idx - 1] if idx >= 1 else (start, start)
        else:
            align = origin[idx] if idx < len(origin) else (origin[-1][1],) * 2 if origin else (start, start)
            idx += 1 - change
        out.append(ch)
        new_origin.append(align)
    return "".join(out), tuple(new_origin)
