"""Display forms for tokens: GPT-2's byte-to-unicode alphabet and visible whitespace.

Byte-level BPE works on the 256 byte values, but a byte such as 0x20 (space) or 0x0A
(newline) is invisible on screen. GPT-2 therefore maps every byte to a printable
character (`Ġ` for space, `Ċ` for newline); Hugging Face merges files are written in that
form. This module holds that mapping and a second, plainer form for teaching
(`·` for space, `↵` for newline), and nothing else.
"""
from __future__ import annotations

from functools import lru_cache

__all__ = [
    "byte_to_unicode",
    "unicode_to_byte",
    "bytes_to_gpt2",
    "gpt2_to_bytes",
    "visible_whitespace",
    "bytes_label",
]


@lru_cache(maxsize=1)
def byte_to_unicode() -> dict[int, str]:
    """GPT-2's reversible map from the 256 byte values to printable characters.

    Printable Latin-1 bytes map to themselves; the rest are shifted to 256 and up, in
    byte order.

    >>> m = byte_to_unicode()
    >>> m[ord("a")], m[0x20], m[0x0A], len(set(m.values()))
    ('a', 'Ġ', 'Ċ', 256)
    """
    printable = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    mapping = {b: chr(b) for b in printable}
    shift = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + shift)
            shift += 1
    return mapping


@lru_cache(maxsize=1)
def unicode_to_byte() -> dict[str, int]:
    """The inverse of :func:`byte_to_unicode`."""
    return {c: b for b, c in byte_to_unicode().items()}


def bytes_to_gpt2(data: bytes) -> str:
    """Write bytes in GPT-2's printable form.

    >>> bytes_to_gpt2(" hello\\n".encode())
    'ĠhelloĊ'
    """
    table = byte_to_unicode()
    return "".join(table[b] for b in data)


def gpt2_to_bytes(text: str) -> bytes:
    """Read GPT-2's printable form back into bytes; unknown characters are a ValueError.

    >>> gpt2_to_bytes("Ġworld")
    b' world'
    """
    table = unicode_to_byte()
    try:
        return bytes(table[c] for c in text)
    except KeyError as exc:
        raise ValueError(
            f"{text!r} is not in GPT-2's byte-to-unicode form: {exc.args[0]!r} is not one of "
            "its 256 characters. Write byte-level tokens as Hugging Face merges files do "
            "(Ġ for space, Ċ for newline)."
        ) from None


_VISIBLE = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍", "\u00a0": "⍽"}


def visible_whitespace(text: str) -> str:
    """Make whitespace visible for teaching: `·` space, `↵` newline, `→` tab.

    >>> visible_whitespace("a b\\n")
    'a·b↵'
    """
    return "".join(_VISIBLE.get(c, c) for c in text)


def bytes_label(data: bytes) -> str:
    """Text for a token's bytes: the text when they are valid UTF-8 on their own,
    otherwise each byte as ``<E4>``, so a partial character is shown, never dropped.

    >>> bytes_label("é".encode()), bytes_label("é".encode()[:1])
    ('é', '<C3>')
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return "".join(f"<{b:02X}>" for b in data)
