"""tokenizer.json normalizers, one builder per `type` in `NORMALIZERS`.

Each builder takes the component's field and returns a `Normalizer`: a function of
the text, or an `AlignedNormalizer` where the offsets need more than character by
character (see `pipeline.normalize_piece`)."""
from __future__ import annotations

import unicodedata
from typing import Callable, Literal

from ...pretokenize import Guarded
from .. import unicode_align
from ..checks import Field
from ..pipeline import AlignedNormalizer, CharTable, Normalizer, Piece, is_white_space, normalize_piece
from .common import flag, pattern_of, empty_at, builder_of
from .precompiled import precompiled


def normalizer_of(field: Field) -> Normalizer:
    return builder_of(field, NORMALIZERS, "normalizer")(field)


def _unicode_form(form: Literal["NFC", "NFD", "NFKC", "NFKD"]) -> Callable[[Field], Normalizer]:
    """NFC, NFD, NFKC or NFKD, with the library's offsets (`unicode_align`)."""

    def build(field: Field) -> Normalizer:
        def normalize(text: str) -> str:
            return unicodedata.normalize(form, text)

        def aligned(text: str, origin):
            return unicode_align.aligned(form, text, origin)

        return AlignedNormalizer(normalize, aligned)

    return build


def lowercase(text: str) -> str:
    """Lowercase character by character, as Rust's `char::to_lowercase` does: a final
    capital sigma becomes σ, not the ς that Python's `str.lower` picks at a word's end.

    >>> lowercase("ΟΔΟΣ"), "ΟΔΟΣ".lower()
    ('οδοσ', 'οδος')
    """
    if "Σ" not in text:
        return text.lower()
    return "".join(ch.lower() for ch in text)


def _strip_marks(text: str, categories: tuple[str, ...]) -> str:
    return "".join(ch for ch in text if unicodedata.category(ch) not in categories)


_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
        (0x2B740, 0x2B81F), (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def _is_cjk(ch: str) -> bool:
    code = ord(ch)
    return any(a <= code <= b for a, b in _CJK)


# The library's "other" characters: Cc, Cf, Co, Cs. Unassigned code points (Cn) are kept:
# its Unicode tables have no list of them.
_OTHER = ("Cc", "Cf", "Co", "Cs")


def _bert_normalizer(field: Field) -> Normalizer:
    clean = flag(field, "clean_text", True)
    chinese = flag(field, "handle_chinese_chars", True)
    lower = flag(field, "lowercase", True)
    accents_field = field.key("strip_accents", None)
    strip_accents = lower if accents_field.value is None else accents_field.as_bool()

    def each_character(ch: str) -> str:
        if clean:  # drop NUL, U+FFFD and control/format/private/surrogate characters; whitespace -> space
            if ch in "\t\n\r":
                return " "
            if ch in "\x00\ufffd" or unicodedata.category(ch) in _OTHER:
                return ""
            if is_white_space(ch):
                return " "
        return f" {ch} " if chinese and _is_cjk(ch) else ch

    # one translate table for both per-character steps; another drops the marks after NFD
    table = CharTable(each_character)
    marks = CharTable(lambda ch: "" if unicodedata.category(ch) == "Mn" else ch)

    def normalize(text: str) -> str:
        if clean or chinese:
            text = text.translate(table)
        if strip_accents and not text.isascii():
            text = unicodedata.normalize("NFD", text).translate(marks)
        if lower:
            text = lowercase(text)
        return text

    return normalize


def replace_normalizer(field: Field) -> Normalizer:
    compiled = Guarded(pattern_of(field.key("pattern")))  # runs with a time limit
    content = field.key("content").as_str()

    def replace(text: str) -> str:
        return compiled.sub(lambda m: content, text)

    def aligned(text: str, origin):
        # as the library's transform: a replacement's characters are new characters, so each
        # takes the range of the character before them, the match's last (or, for an empty
        # match, the one before it; at the very start an empty range)
        out, out_origin, done = [], [], 0
        for m in compiled.finditer(text):
            out.append(text[done : m.start()])
            out_origin.extend(origin[done : m.start()])
            span = origin[m.end() - 1] if m.end() >= 1 else empty_at(origin, 0)
            out.append(content)
            out_origin.extend([span] * len(content))
            done = m.end()
        out.append(text[done:])
        out_origin.extend(origin[done:])
        return "".join(out), tuple(out_origin)

    return AlignedNormalizer(replace, aligned)


def _prepend(field: Field) -> Normalizer:
    prefix = field.key("prepend").as_str()

    def prepend(text: str) -> str:
        return prefix + text if text else text

    def aligned(text: str, origin):  # as the library's transform: the prefix covers the first character
        return (prefix + text, (origin[0],) * len(prefix) + tuple(origin)) if text else (text, origin)

    return AlignedNormalizer(prepend, aligned)


def _strip(field: Field) -> Normalizer:
    left, right = flag(field, "strip_left", True), flag(field, "strip_right", True)

    def bounds(text: str) -> tuple[int, int]:
        start, end = 0, len(text)
        while left and start < end and is_white_space(text[start]):
            start += 1
        while right and end > start and is_white_space(text[end - 1]):
            end -= 1
        return start, end

    def strip(text: str) -> str:
        start, end = bounds(text)
        return text[start:end]

    def aligned(text: str, origin):
        start, end = bounds(text)
        return text[start:end], tuple(origin[start:end])

    return AlignedNormalizer(strip, aligned)


def _normalizer_sequence(field: Field) -> Normalizer:
    stages = [normalizer_of(item) for item in field.key("normalizers").items()]

    def run(text: str) -> str:
        for stage in stages:
            text = stage(text)
        return text

    def aligned(text: str, origin):
        piece = Piece(text, False, tuple(origin))
        for stage in stages:
            piece = normalize_piece(stage, piece)
        return piece.text, piece.origin

    return AlignedNormalizer(run, aligned)


NORMALIZERS: dict[str, Callable[[Field], Normalizer]] = {
    "NFC": _unicode_form("NFC"),
    "NFD": _unicode_form("NFD"),
    "NFKC": _unicode_form("NFKC"),
    "NFKD": _unicode_form("NFKD"),
    "Lowercase": lambda field: lowercase,
    "StripAccents": lambda field: lambda text: _strip_marks(text, ("Mn", "Mc", "Me")),
    "BertNormalizer": _bert_normalizer,
    "Replace": replace_normalizer,
    "Prepend": _prepend,
    "Strip": _strip,
    "Sequence": _normalizer_sequence,
    "Precompiled": precompiled,
}
