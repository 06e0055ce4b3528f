"""Tokens and their ids: base symbols, the end-of-word convention, merged tokens.

A token is identified by its body (a `str` for character units, `bytes` for byte
units) and whether it ends a word (`eow`). Keeping the marker out of the body means a
marker such as `</w>` can never be confused with the four characters `<`, `/`, `w`, `>`
that a word may contain. Each distinct token has one id: a merge that produces a token
that already exists reuses its id (as Hugging Face tokenizers does), so the vocabulary
does not grow on that step.

Base ids are given in code-point order of the tokens' displayed form (what the
smallest-id tie rule relies on); merged tokens are numbered in creation order.
"""
from __future__ import annotations

from typing import Iterable

from .display import bytes_to_gpt2

__all__ = ["UNITS", "END_OF_WORD", "Vocab", "base_symbols"]

UNITS: tuple[str, ...] = ("char", "byte")
END_OF_WORD: tuple[str, ...] = ("none", "separate", "attached")

Body = str | bytes


class Vocab:
    """An append-only table of tokens: id -> (body, eow, display text).

    `units` is "char" or "byte"; `marker` is the end-of-word marker's text, used only
    for display (and as the separate marker symbol's text). `body_size` is the length of
    all bodies added up (characters or bytes): what the token texts cost in memory.
    """

    __slots__ = ("units", "marker", "bodies", "eows", "displays", "_texts", "_ids", "base_size", "body_size")

    def __init__(self, units: str, marker: str, base: Iterable[tuple[Body, bool]]):
        self.units = units
        self.marker = marker
        self.bodies: list[Body] = []
        self.eows: list[bool] = []
        self.displays: list[str] = []
        self._texts: list[str] = []  # displays without the marker
        self._ids: dict[tuple[Body, bool], int] = {}
        self.body_size = 0
        # Base symbols in code-point order of their displayed form; eow breaks a display tie.
        for body, eow in sorted(set(base), key=lambda t: (self.display_of(*t), t[1])):
            self.add(body, eow)
        self.base_size = len(self.bodies)

    def display_of(self, body: Body, eow: bool) -> str:
        """How a token is written on screen (GPT-2 form for bytes, marker appended)."""
        text = bytes_to_gpt2(body) if isinstance(body, bytes) else body
        return text + self.marker if eow else text

    def add(self, body: Body, eow: bool) -> tuple[int, bool]:
        """Return (id, is_new): the token's id, minting one if it is new."""
        found = self._ids.get((body, eow))
        if found is not None:
            return found, False
        return self._mint(body, eow, bytes_to_gpt2(body) if isinstance(body, bytes) else body), True

    def add_merged(self, a: int, b: int) -> tuple[int, bool]:
        """Return (id, is_new) for the token that merging tokens a and b makes.

        The same as `add(body_a + body_b, eow_b)`, but the display is joined from the
        two parts' displays instead of being converted again (training calls this once
        per merge).
        """
        body = self.bodies[a] + self.bodies[b]  # type: ignore[operator]  # all str or all bytes
        eow = self.eows[b]
        found = self._ids.get((body, eow))
        if found is not None:
            return found, False
        return self._mint(body, eow, self._texts[a] + self._texts[b]), True

    def _mint(self, body: Body, eow: bool, text: str) -> int:
        """Append a new token whose display, without the marker, is `text`."""
        new_id = len(self.bodies)
        self.body_size += len(body)
        self._ids[(body, eow)] = new_id
        self.bodies.append(body)
        self.eows.append(eow)
        self._texts.append(text)
        self.displays.append(text + self.marker if eow else text)
        return new_id

    def get(self, body: Body, eow: bool) -> int | None:
        return self._ids.get((body, eow))

    def __len__(self) -> int:
        return len(self.bodies)

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes a token decodes to (no marker)."""
        body = self.bodies[token_id]
        return body if isinstance(body, bytes) else body.encode("utf-8")

    def snapshot(self, size: int | None = None) -> tuple[tuple[Body, bool], ...]:
        """The first `size` tokens as (body, eow) tuples: immutable, picklable."""
        n = len(self.bodies) if size is None else size
        return tuple(zip(self.bodies[:n], self.eows[:n]))


def base_symbols(word: str, units: str, end_of_word: str) -> list[tuple[Body, bool]]:
    """Split a word into base symbols (body, eow) under the units and end-of-word rules.

    >>> base_symbols("low", "char", "separate")
    [('l', False), ('o', False), ('w', False), ('', True)]
    >>> base_symbols("low", "char", "attached")
    [('l', False), ('o', False), ('w', True)]
    >>> base_symbols("é", "byte", "none")
    [(b'\\xc3', False), (b'\\xa9', False)]
    """
    if units == "byte":
        syms: list[tuple[Body, bool]] = [(bytes((b,)), False) for b in word.encode("utf-8")]
    else:
        syms = [(c, False) for c in word]
    if end_of_word == "separate":
        syms.append((b"" if units == "byte" else "", True))
    elif end_of_word == "attached" and syms:
        syms[-1] = (syms[-1][0], True)
    return syms
