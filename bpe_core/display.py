"""Display forms for tokens: GPT-2's byte-to-unicode alphabet and visible whitespace.

Byte-level BPE works on the 256 byte values, but a byte such as 0x20 (space) or 0x0A
(newline) is invisible on screen. GPT-2 therefore maps every byte to a printable
character (`Ġ` for space, `Ċ` for newline); Hugging Face merges files are written in that
form. This module holds that mapping and a second, plainer form for teaching
(`·` for space, `↵` for newline), names for characters that draw nothing (`⟨ZWJ⟩`), and
`<E4>` labels for bytes that are not UTF-8 on their own: the one table of display marks
that every page and the command line use. Nothing else (no HTML: the pages escape).
"""
from __future__ import annotations

from functools import lru_cache

__all__ = [
    "byte_to_unicode",
    "unicode_to_byte",
    "bytes_to_gpt2",
    "gpt2_to_bytes",
    "visible_whitespace",
    "name_invisible",
    "visible_text",
    "bytes_label",
    "WHITESPACE_MARKS",
    "INVISIBLE_NAMES",
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


#: Whitespace drawn as a visible mark, one character each (so a label keeps its length).
WHITESPACE_MARKS: dict[str, str] = {
    " ": "·", "\n": "↵", "\t": "→", "\r": "␍", "\u00a0": "⍽", "\u3000": "□",
}
_WHITESPACE = str.maketrans(WHITESPACE_MARKS)

#: Names for characters that draw nothing or look like a plain space; any other character
#: that is not printable is named by its code point (`⟨U+0001⟩`).
INVISIBLE_NAMES: dict[int, str] = {
    0x00: "NUL", 0x0B: "VT", 0x0C: "FF", 0x1B: "ESC", 0x7F: "DEL", 0x85: "NEL", 0xAD: "SHY",
    0x034F: "CGJ", 0x180E: "MVS", 0x2002: "ENSP", 0x2003: "EMSP", 0x2009: "THSP", 0x200A: "HSP",
    0x200B: "ZWSP", 0x200C: "ZWNJ", 0x200D: "ZWJ", 0x200E: "LRM", 0x200F: "RLM", 0x2028: "LS",
    0x2029: "PS", 0x202A: "LRE", 0x202B: "RLE", 0x202C: "PDF", 0x202D: "LRO", 0x202E: "RLO",
    0x202F: "NNBSP", 0x205F: "MMSP", 0x2060: "WJ", 0x2066: "LRI", 0x2067: "RLI", 0x2068: "FSI",
    0x2069: "PDI", 0xFE0E: "VS15", 0xFE0F: "VS16", 0xFEFF: "BOM",
}


def _is_variation_selector(cp: int) -> bool:
    return 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF


def visible_whitespace(text: str) -> str:
    """Make whitespace visible for teaching: `·` space, `↵` newline, `→` tab, `␍`
    carriage return, `⍽` no-break space, `□` ideographic space.

    >>> visible_whitespace("a b\\n"), visible_whitespace("\\u3000x")
    ('a·b↵', '□x')
    """
    return text.translate(_WHITESPACE)


def name_invisible(text: str) -> str:
    """Name the characters that would otherwise draw nothing: ⟨ZWJ⟩ for a zero-width
    joiner, ⟨VS16⟩ for the emoji variation selector, ⟨U+0001⟩ for other controls.
    Whitespace with a mark in WHITESPACE_MARKS is left for `visible_whitespace`.

    >>> name_invisible("a\\u200db"), name_invisible("❤\\ufe0f"), name_invisible("plain"), name_invisible("\\x01")
    ('a⟨ZWJ⟩b', '❤⟨VS16⟩', 'plain', '⟨U+0001⟩')
    """
    if text.isprintable() and not any(_is_variation_selector(ord(c)) for c in text):
        return text
    out = []
    for ch in text:
        cp = ord(ch)
        if ch in WHITESPACE_MARKS or (ch.isprintable() and not _is_variation_selector(cp)):
            out.append(ch)
        else:
            out.append(f"⟨{INVISIBLE_NAMES.get(cp, f'U+{cp:04X}')}⟩")
    return "".join(out)


def visible_text(text: str) -> str:
    """A token or word as the pages draw it: whitespace marked, invisible characters named.

    >>> visible_text(" 👩\\u200d💻\\n")
    '·👩⟨ZWJ⟩💻↵'
    """
    return visible_whitespace(name_invisible(text))


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
