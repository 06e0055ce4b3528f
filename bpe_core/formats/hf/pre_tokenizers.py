"""tokenizer.json pre-tokenizers, one builder per `type` in `PRE_TOKENIZERS`.

Each builder takes the component's field and returns a `PreTokenizer`: a function
from a list of `Piece`s to the list they split into."""
from __future__ import annotations

import unicodedata
from typing import Callable

import regex

from ...display import byte_to_unicode
from ..checks import Field
from ..pipeline import (
    BEHAVIORS,
    Piece,
    PreTokenizer,
    find_chars,
    find_regex,
    inverted,
    is_white_space,
    split_piece,
)
from .common import flag, pattern_of, empty_at, builder_of


#: The regex of the ByteLevel pre-tokenizer (GPT-2's, as the library writes it).
BYTE_LEVEL_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
_BYTE_CHARS = byte_to_unicode()


def pre_tokenizer_of(field: Field) -> PreTokenizer:
    return builder_of(field, PRE_TOKENIZERS, "pre-tokenizer")(field)


def _each(split: Callable[[Piece], list[Piece]]) -> PreTokenizer:
    return lambda pieces: [out for piece in pieces for out in split(piece)]


def _to_byte_chars(text: str) -> str:
    return "".join(_BYTE_CHARS[b] for b in text.encode("utf-8"))


def _byte_piece(piece: Piece) -> Piece:
    """A piece in GPT-2's byte form; each byte character comes from its character."""
    origin = None
    if piece.origin is not None:
        origin = tuple(
            span for ch, span in zip(piece.text, piece.origin) for _ in range(len(ch.encode("utf-8")))
        )
    return Piece(_to_byte_chars(piece.text), piece.at_start, origin)


def _prefixed(piece: Piece, prefix: str) -> Piece:
    """`prefix` + the piece; the prefix covers the piece's first character, as the
    library's `NormalizedString::prepend` aligns it (an empty piece gets an empty range)."""
    origin = None
    if piece.origin is not None:
        first = piece.origin[0] if piece.origin else empty_at(piece.origin, 0)
        origin = (first,) * len(prefix) + piece.origin
    return Piece(prefix + piece.text, piece.at_start, origin)


def _byte_level(field: Field) -> PreTokenizer:
    prefix = flag(field, "add_prefix_space", True)
    use_regex = flag(field, "use_regex", True)
    find = find_regex(BYTE_LEVEL_PATTERN)

    def split(piece: Piece) -> list[Piece]:
        if prefix and not piece.text.startswith(" "):
            piece = _prefixed(piece, " ")
        parts = split_piece(piece, find, "isolated") if use_regex else [piece]
        return [_byte_piece(p) for p in parts]

    return _each(split)


# Rust's regex classes, written for the `regex` module (its \w and \s are the same sets).
_WHITESPACE_FIND = inverted(find_regex(r"\w+|[^\w\s]+"))


def _is_punctuation(ch: str) -> bool:
    """ASCII punctuation or a Unicode P* character (the library's `is_punc`)."""
    return (ch.isascii() and not ch.isalnum() and ch.isprintable() and ch != " ") or unicodedata.category(ch).startswith("P")


def _is_numeric(ch: str) -> bool:
    return unicodedata.category(ch) in ("Nd", "Nl", "No")


def _behavior(field: Field, default: str) -> str:
    value = field.key("behavior", default)
    text = value.as_str() if value.value is not None else default
    # The file writes behaviours in CamelCase (MergedWithPrevious); the table is snake_case.
    snake = regex.sub(r"(?<!^)([A-Z])", r"_\1", text).lower()
    if snake not in BEHAVIORS:
        raise value.fail(f"is {text!r}; choose one of: Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous")
    return snake


def _metaspace(field: Field) -> PreTokenizer:
    replacement = field.key("replacement").as_str()
    if len(replacement) != 1:
        raise field.key("replacement").fail("must be exactly one character")
    scheme_field = field.key("prepend_scheme", None)
    scheme = "always" if scheme_field.value is None else scheme_field.one_of(("always", "first", "never"))
    legacy = field.key("add_prefix_space", None)
    if legacy.value is not None and not legacy.as_bool():
        scheme = "never"
    split = flag(field, "split", True)
    find = find_chars(lambda ch: ch == replacement)

    def run(piece: Piece) -> list[Piece]:
        piece = Piece(piece.text.replace(" ", replacement), piece.at_start, piece.origin)
        if not piece.text.startswith(replacement) and (scheme == "always" or (scheme == "first" and piece.at_start)):
            piece = _prefixed(piece, replacement)
        return split_piece(piece, find, "merged_with_next") if split else [piece]

    return _each(run)


def _split(field: Field) -> PreTokenizer:
    find = find_regex(pattern_of(field.key("pattern")), untrusted=True)
    if field.key("invert").as_bool():
        find = inverted(find)
    behavior = _behavior(field, "removed")
    return _each(lambda piece: split_piece(piece, find, behavior))


def _punctuation(field: Field) -> PreTokenizer:
    behavior = _behavior(field, "isolated")
    find = find_chars(_is_punctuation)
    return _each(lambda piece: split_piece(piece, find, behavior))


def _digits(field: Field) -> PreTokenizer:
    behavior = "isolated" if flag(field, "individual_digits", False) else "contiguous"
    find = find_chars(_is_numeric)
    return _each(lambda piece: split_piece(piece, find, behavior))


def _bert_pre_tokenizer(field: Field) -> PreTokenizer:
    spaces, punctuation = find_chars(is_white_space), find_chars(_is_punctuation)
    return _each(
        lambda piece: [
            out
            for word in split_piece(piece, spaces, "removed")
            for out in split_piece(word, punctuation, "isolated")
        ]
    )


def _pre_tokenizer_sequence(field: Field) -> PreTokenizer:
    stages = [pre_tokenizer_of(item) for item in field.key("pretokenizers").items()]

    def run(pieces: list[Piece]) -> list[Piece]:
        for stage in stages:
            pieces = stage(pieces)
        return pieces

    return run


PRE_TOKENIZERS: dict[str, Callable[[Field], PreTokenizer]] = {
    "ByteLevel": _byte_level,
    "Whitespace": lambda field: _each(lambda piece: split_piece(piece, _WHITESPACE_FIND, "removed")),
    "WhitespaceSplit": lambda field: _each(lambda piece: split_piece(piece, find_chars(is_white_space), "removed")),
    "BertPreTokenizer": _bert_pre_tokenizer,
    "Metaspace": _metaspace,
    "Split": _split,
    "Punctuation": _punctuation,
    "Digits": _digits,
    "Sequence": _pre_tokenizer_sequence,
}
