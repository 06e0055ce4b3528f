"""Hugging Face `tokenizer.json`: read one into a `PipelineTokenizer`, or write one.

The file describes a pipeline (normalizer, pre-tokenizer, model, post-processor,
decoder) plus added tokens. Each component type is one function here, registered in a
table by its `type` name; a type outside the tables is a ValueError that names it and
its place in the file (`pre_tokenizer.pretokenizers[1]`), never a silent difference.

Supported, with the library's own rules (read from its source):
- normalizers: NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, BertNormalizer, Replace,
  Prepend, Strip, Sequence;
- pre-tokenizers: ByteLevel, Whitespace, WhitespaceSplit, BertPreTokenizer, Metaspace,
  Split (string or regex), Punctuation, Digits, Sequence;
- models (one function each in `MODELS`): BPE with unk_token, fuse_unk,
  continuing_subword_prefix, end_of_word_suffix, byte_fallback and ignore_merges;
  WordPiece with unk_token, continuing_subword_prefix and max_input_chars_per_word,
  encoded by our `WordPieceTokenizer` (greedy longest match); Unigram with its
  [piece, score] vocabulary, unk_id and byte_fallback, encoded by our `viterbi`
  (WordLevel is refused);
- decoders (for `decode`): ByteLevel, Metaspace, WordPiece, BPEDecoder, ByteFallback,
  Fuse, Strip, Replace, Sequence; another type is an error when decoding, not loading;
- added tokens with special, normalized, lstrip, rstrip and single_word.

Writing (`hf_json_file`) turns a tokenizer trained here into a tokenizer.json the library
encodes the same way: our pattern as a Split (rewritten where Oniguruma, the library's
regex engine, reads it differently), ByteLevel for byte units, an attached marker as
the end_of_word_suffix; `hf_problem` says why a tokenizer cannot be written.

What it leaves out: the post-processor (encoding here never adds special tokens, as
`encode(text, add_special_tokens=False)`), BPE dropout (random), truncation and padding
(refused: they would change the ids).
"""
from __future__ import annotations

import heapq
import json
import unicodedata
from functools import lru_cache
from typing import Any, Callable

import regex

from ..display import byte_to_unicode
from ..encode.tokenizer import Replay, ReplayStep
from . import unicode_align
from .checks import Field, Source, parse_json, serde_float
from .pipeline import (
    BEHAVIORS,
    AddedToken,
    Decoder,
    Model,
    ModelWork,
    Normalizer,
    Piece,
    PipelineTokenizer,
    PreTokenizer,
    byte_chars_to_bytes,
    find_chars,
    find_regex,
    inverted,
    is_white_space,
    normalize_piece,
    origin_span,
    split_piece,
)

__all__ = ["load_hf_json", "looks_like_hf_json", "hf_json_file", "hf_problem", "NORMALIZERS", "PRE_TOKENIZERS",
           "MODELS", "DECODERS"]

_FIX = "Use a tokenizer.json saved by Hugging Face tokenizers (`Tokenizer.save`)"


def looks_like_hf_json(data: Any) -> bool:
    """Whether parsed JSON has the shape of a tokenizer.json (a `model` object)."""
    return isinstance(data, dict) and isinstance(data.get("model"), dict)


def load_hf_json(data: str | bytes | dict, *, name: str = "tokenizer.json") -> PipelineTokenizer:
    """Read a tokenizer.json (its text, bytes, or the parsed dict)."""
    source = Source(f"the tokenizer file {name!r}", _FIX)
    # floats as the library reads them (`serde_float`): Unigram scores decide near-ties
    root = (parse_json(data, source, parse_float=serde_float) if isinstance(data, (str, bytes))
            else Field(data, source))
    if not looks_like_hf_json(root.value):
        raise source.error(
            "it is not a Hugging Face tokenizer.json (it has no 'model' object). "
            "Other formats read here: our own saved JSON, .tiktoken rank files, GPT-2's "
            "vocab.json + merges.txt, Mistral's Tekken JSON"
        )
    for setting in ("truncation", "padding"):
        value = root.key(setting, None).optional()
        if value is not None:
            raise value.fail(
                "is set; it would cut or pad every encoding, which this app does not do. "
                f"Set it to null in the file (tokenizer.no_{setting}() before saving)"
            )
    normalizer_field = root.key("normalizer", None).optional()
    normalizer = _normalizer(normalizer_field) if normalizer_field else None
    pre_field = root.key("pre_tokenizer", None).optional()
    pre_tokenizer = _pre_tokenizer(pre_field) if pre_field else None
    model_field = root.key("model")
    model_type = _model_type(model_field)
    model, vocab = MODELS[model_type](model_field)
    added = _added_tokens(root.key("added_tokens", []), vocab)
    decoder_field = root.key("decoder", None).optional()
    return PipelineTokenizer(
        name=name,
        kind="tokenizer.json",
        normalizer=normalizer,
        pre_tokenizer=pre_tokenizer,
        model=model,
        added_tokens=added,
        vocab=vocab,
        model_type=model_type,
        decoder=_decoder_or_error(decoder_field) if decoder_field else None,
        byte_level=_uses_byte_level(pre_field.value if pre_field else None),
        work=getattr(model, "work", None),
    )


def _uses_byte_level(pre_tokenizer: Any) -> bool:
    """Whether a pre-tokenizer (or one inside a Sequence) is ByteLevel."""
    if not isinstance(pre_tokenizer, dict):
        return False
    if pre_tokenizer.get("type") == "ByteLevel":
        return True
    inner = pre_tokenizer.get("pretokenizers")
    return isinstance(inner, list) and any(_uses_byte_level(p) for p in inner)


def _type(field: Field, table: dict, what: str) -> Callable:
    kind = field.key("type").as_str()
    builder = table.get(kind)
    if builder is None:
        raise field.fail(
            f"is a {what} of type {kind!r}, which this app cannot run yet (it reads: "
            f"{', '.join(table)}). Choose a tokenizer without it"
        )
    return builder


def _flag(field: Field, name: str, default: bool) -> bool:
    value = field.key(name, default)
    return default if value.value is None else value.as_bool()


# ---- normalizers ----------------------------------------------------------------------------

def _normalizer(field: Field) -> Normalizer:
    return _type(field, NORMALIZERS, "normalizer")(field)


def _unicode_form(form: str) -> Callable[[Field], Normalizer]:
    """NFC, NFD, NFKC or NFKD, with the library's offsets (`unicode_align`)."""

    def build(field: Field) -> Normalizer:
        def normalize(text: str) -> str:
            return unicodedata.normalize(form, text)

        normalize.aligned = lambda text, origin: unicode_align.aligned(form, text, origin)
        return normalize

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
    clean = _flag(field, "clean_text", True)
    chinese = _flag(field, "handle_chinese_chars", True)
    lower = _flag(field, "lowercase", True)
    accents_field = field.key("strip_accents", None)
    strip_accents = lower if accents_field.value is None else accents_field.as_bool()

    def normalize(text: str) -> str:
        if clean:  # drop NUL, U+FFFD and control/format/private/surrogate characters; whitespace -> space
            text = "".join(
                " " if ch in "\t\n\r" or is_white_space(ch) else ch
                for ch in text
                if ch in "\t\n\r" or not (ch in "\x00\ufffd" or unicodedata.category(ch) in _OTHER)
            )
        if chinese:
            text = "".join(f" {ch} " if _is_cjk(ch) else ch for ch in text)
        if strip_accents:
            text = _strip_marks(unicodedata.normalize("NFD", text), ("Mn",))
        if lower:
            text = lowercase(text)
        return text

    return normalize


def _pattern(field: Field) -> str:
    """A Split / Replace pattern: {"String": s} (literal) or {"Regex": r}."""
    obj = field.as_dict()
    if len(obj) != 1 or next(iter(obj)) not in ("String", "Regex"):
        raise field.fail('is not {"String": ...} or {"Regex": ...}')
    kind, value = next(iter(obj.items()))
    text = field.key(kind).as_str()
    if kind == "String":
        return regex.escape(text)
    text = rewrite_bounded_plus(text, to="python")
    try:
        regex.compile(text)
    except regex.error as exc:
        raise field.key(kind).fail(f"is not a regular expression this app can read ({exc})") from None
    return text


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


def _point(origin, i: int) -> tuple[int, int]:
    """An empty range of the original text just before character i (or at the end)."""
    at = origin[i][0] if i < len(origin) else origin[-1][1] if origin else 0
    return (at, at)


def _replace(field: Field) -> Normalizer:
    compiled = regex.compile(_pattern(field.key("pattern")))
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
            span = origin[m.end() - 1] if m.end() >= 1 else _point(origin, 0)
            out.append(content)
            out_origin.extend([span] * len(content))
            done = m.end()
        out.append(text[done:])
        out_origin.extend(origin[done:])
        return "".join(out), tuple(out_origin)

    replace.aligned = aligned
    return replace


def _prepend(field: Field) -> Normalizer:
    prefix = field.key("prepend").as_str()

    def prepend(text: str) -> str:
        return prefix + text if text else text

    def aligned(text: str, origin):  # as the library's transform: the prefix covers the first character
        return (prefix + text, (origin[0],) * len(prefix) + tuple(origin)) if text else (text, origin)

    prepend.aligned = aligned
    return prepend


def _strip(field: Field) -> Normalizer:
    left, right = _flag(field, "strip_left", True), _flag(field, "strip_right", True)

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

    strip.aligned = aligned
    return strip


def _normalizer_sequence(field: Field) -> Normalizer:
    stages = [_normalizer(item) for item in field.key("normalizers").items()]

    def run(text: str) -> str:
        for stage in stages:
            text = stage(text)
        return text

    def aligned(text: str, origin):
        piece = Piece(text, False, tuple(origin))
        for stage in stages:
            piece = normalize_piece(stage, piece)
        return piece.text, piece.origin

    run.aligned = aligned
    return run


NORMALIZERS: dict[str, Callable[[Field], Normalizer]] = {
    "NFC": _unicode_form("NFC"),
    "NFD": _unicode_form("NFD"),
    "NFKC": _unicode_form("NFKC"),
    "NFKD": _unicode_form("NFKD"),
    "Lowercase": lambda field: lowercase,
    "StripAccents": lambda field: lambda text: _strip_marks(text, ("Mn", "Mc", "Me")),
    "BertNormalizer": _bert_normalizer,
    "Replace": _replace,
    "Prepend": _prepend,
    "Strip": _strip,
    "Sequence": _normalizer_sequence,
}


# ---- pre-tokenizers -------------------------------------------------------------------------

#: The regex of the ByteLevel pre-tokenizer (GPT-2's, as the library writes it).
BYTE_LEVEL_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
_BYTE_CHARS = byte_to_unicode()


def _pre_tokenizer(field: Field) -> PreTokenizer:
    return _type(field, PRE_TOKENIZERS, "pre-tokenizer")(field)


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
    """`prefix` + the piece; the prefix covers no character of the text."""
    origin = None if piece.origin is None else (_point(piece.origin, 0),) * len(prefix) + piece.origin
    return Piece(prefix + piece.text, piece.at_start, origin)


def _byte_level(field: Field) -> PreTokenizer:
    prefix = _flag(field, "add_prefix_space", True)
    use_regex = _flag(field, "use_regex", True)
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
    split = _flag(field, "split", True)
    find = find_chars(lambda ch: ch == replacement)

    def run(piece: Piece) -> list[Piece]:
        piece = Piece(piece.text.replace(" ", replacement), piece.at_start, piece.origin)
        if not piece.text.startswith(replacement) and (scheme == "always" or (scheme == "first" and piece.at_start)):
            piece = _prefixed(piece, replacement)
        return split_piece(piece, find, "merged_with_next") if split else [piece]

    return _each(run)


def _split(field: Field) -> PreTokenizer:
    find = find_regex(_pattern(field.key("pattern")))
    if field.key("invert").as_bool():
        find = inverted(find)
    behavior = _behavior(field, "removed")
    return _each(lambda piece: split_piece(piece, find, behavior))


def _punctuation(field: Field) -> PreTokenizer:
    behavior = _behavior(field, "isolated")
    find = find_chars(_is_punctuation)
    return _each(lambda piece: split_piece(piece, find, behavior))


def _digits(field: Field) -> PreTokenizer:
    behavior = "isolated" if _flag(field, "individual_digits", False) else "contiguous"
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
    stages = [_pre_tokenizer(item) for item in field.key("pretokenizers").items()]

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


# ---- models ---------------------------------------------------------------------------------

def _model_type(field: Field) -> str:
    if not field.has("type"):  # files from before the field existed: BPE has merges
        if field.has("merges"):
            return "BPE"
        raise field.fail("has no 'type' field and no merges, so its model type is unknown")
    kind = field.key("type").as_str()
    if kind not in MODELS:
        raise field.key("type").fail(
            f"is {kind!r}: this app reads {', '.join(MODELS)} models only. "
            f"Choose a tokenizer.json with one of those"
        )
    return kind


def _bpe_vocab(field: Field) -> dict[str, int]:
    vocab: dict[str, int] = {}
    for token, value in field.members():
        vocab[token] = value.as_int(low=0, high=(1 << 32) - 1)  # ids are packed in 32 bits (`Merges`)
    return vocab


def _bpe_merges(field: Field) -> list[tuple[str, str]]:
    """Merges as pairs of strings: ["a", "b"] items, or "a b" lines (older files)."""
    merges = []
    for item in field.items():
        if isinstance(item.value, str):
            parts = item.value.split(" ")
            if len(parts) != 2:
                raise item.fail("is not two tokens separated by one space")
            merges.append((parts[0], parts[1]))
        elif isinstance(item.value, list) and len(item.value) == 2:
            merges.append((item.index(0).as_str(), item.index(1).as_str()))
        else:
            raise item.fail('is not a pair of tokens (["a", "b"] or "a b")')
    return merges


def _optional_str(field: Field, name: str) -> str | None:
    value = field.key(name, None)
    return None if value.value is None else value.as_str()


def _bpe_model(field: Field) -> tuple[Model, dict[int, str]]:
    """The library's BPE model: characters (with the prefix and suffix options) looked
    up in the vocabulary, unknown ones as bytes (byte_fallback) or the unk token, then
    merges applied lowest rank first, leftmost on a tie."""
    dropout = field.key("dropout", None)
    if dropout.value not in (None, 0, 0.0):
        raise dropout.fail("is set: BPE dropout picks merges at random, so ids would change from run to run. "
                           "Set it to null")
    vocab = _bpe_vocab(field.key("vocab"))
    prefix = _optional_str(field, "continuing_subword_prefix")
    suffix = _optional_str(field, "end_of_word_suffix")
    unk = _optional_str(field, "unk_token")
    if unk is not None and unk not in vocab:
        raise field.key("unk_token").fail(f"is {unk!r}, which is not in the vocabulary")
    fuse_unk = _flag(field, "fuse_unk", False)
    byte_fallback = _flag(field, "byte_fallback", False)
    ignore_merges = _flag(field, "ignore_merges", False)
    merges_field = field.key("merges")
    merges: Merges = {}
    cut = len(prefix.encode("utf-8")) if prefix else 0
    for rank, (a, b) in enumerate(_bpe_merges(merges_field)):
        joined_bytes = a.encode("utf-8") + b.encode("utf-8")[cut:]
        try:
            joined = joined_bytes.decode("utf-8")
        except UnicodeDecodeError:
            joined = None
        for token in (a, b, joined):
            if token is None or token not in vocab:
                raise merges_field.index(rank).fail(
                    f"makes or uses {token!r}, which is not in the vocabulary" if token else "cannot be joined into text"
                )
        merges[vocab[a] << 32 | vocab[b]] = rank << 32 | vocab[joined]  # a later duplicate wins, as in the library
    reverse = _reverse(vocab)
    unk_id = vocab[unk] if unk is not None else None

    def symbols(word: str) -> tuple[list[int], list[tuple[int, int]]]:
        """The word's first symbols and the characters (start, end) each covers."""
        out: list[int] = []
        spans: list[tuple[int, int]] = []
        pending: tuple[int, int] | None = None  # an unknown stretch waiting to be written as unk
        last = len(word) - 1
        for i, ch in enumerate(word):
            sym = (prefix if prefix and i else "") + ch + (suffix if suffix and i == last else "")
            found = vocab.get(sym)
            if found is None and byte_fallback:
                codes = [vocab.get(f"<0x{b:02X}>") for b in sym.encode("utf-8")]
                if all(c is not None for c in codes):
                    found = codes  # type: ignore[assignment]
            if found is not None:
                if pending is not None:
                    out.append(unk_id)  # type: ignore[arg-type]
                    spans.append(pending)
                    pending = None
                codes = found if isinstance(found, list) else [found]
                out.extend(codes)
                spans.extend([(i, i + 1)] * len(codes))
                continue
            if unk_id is not None:
                if pending is not None and not fuse_unk:
                    out.append(unk_id)
                    spans.append(pending)
                    pending = None
                pending = (pending[0], i + 1) if pending is not None else (i, i + 1)
        if pending is not None:
            out.append(unk_id)  # type: ignore[arg-type]
            spans.append(pending)
        return out, spans

    def encode_word(word: str) -> list[tuple[int, str, int, int]]:
        if ignore_merges and word in vocab:
            return [(vocab[word], word, 0, len(word))]
        ids, spans = symbols(word)
        kept = merge_symbol_positions(ids, merges)
        ends = [p for p, _ in kept[1:]] + [len(ids)]
        return [(i, reverse[i], spans[p][0], spans[end - 1][1]) for (p, i), end in zip(kept, ends)]

    def replay(word: str) -> Replay:
        if ignore_merges and word in vocab:
            return Replay(word, (vocab[word],), ())
        return replay_merges(word, symbols(word)[0], merges)

    note = ("ignore_merges is set: a word that is itself in the vocabulary is one token at once, "
            "with no merges." if ignore_merges else "")
    model = _cached(encode_word)
    model.work = ModelWork("BPE", replay=replay, note=note)
    return model, reverse


#: A BPE model's merge table, packed into ints to hold a large file's merges in a third
#: of the memory tuples take: (left << 32 | right) -> (rank << 32 | new token). See `pack`.
Merges = dict[int, int]
_LOW = (1 << 32) - 1


def pack(merges: dict[tuple[int, int], tuple[int, int]]) -> Merges:
    """A merge table {(left, right): (rank, new)} in the packed form the BPE model uses.

    >>> pack({(1, 2): (0, 3)}) == {1 << 32 | 2: 0 << 32 | 3}
    True
    """
    return {a << 32 | b: rank << 32 | new for (a, b), (rank, new) in merges.items()}


def replay_merges(piece: str, ids: list[int], merges: Merges) -> Replay:
    """Every merge that builds a word's tokens from its first symbols `ids`, in the order
    applied: the pair with the lowest rank, the leftmost on a tie (the reference loop;
    `merge_symbols` is the fast one and ends the same). Ranks count from 0, the first
    line of the file's merges.

    >>> r = replay_merges("aaa", [1, 1, 1], pack({(1, 1): (0, 2)}))
    >>> r.base, [(s.rank, s.position, s.symbols) for s in r.steps], r.ids
    ((1, 1, 1), [(0, 0, (2, 1))], (2, 1))
    """
    symbols = list(ids)
    steps: list[ReplayStep] = []
    while len(symbols) > 1:
        found = [(merges[a << 32 | b] >> 32, i) for i, (a, b) in enumerate(zip(symbols, symbols[1:]))
                 if a << 32 | b in merges]
        if not found:
            break
        rank, i = min(found)
        left, right = symbols[i], symbols[i + 1]
        symbols[i : i + 2] = [merges[left << 32 | right] & _LOW]
        steps.append(ReplayStep(rank, left, right, symbols[i], i, tuple(symbols)))
    return Replay(piece, tuple(ids), tuple(steps))


def _reverse(vocab: dict[str, int]) -> dict[int, str]:
    """id -> token; where two tokens share an id, the first in file order wins."""
    return {i: t for t, i in sorted(vocab.items(), key=lambda item: item[1], reverse=True)}


def _cached(encode_word: Model) -> Model:
    """A model that remembers the last 100,000 words it encoded."""
    cache: dict[str, list[tuple[int, str, int, int]]] = {}

    def encode(word: str) -> list[tuple[int, str, int, int]]:
        if not word:
            return []
        hit = cache.get(word)
        if hit is None:
            hit = encode_word(word)
            if len(cache) > 100_000:
                cache.clear()
            cache[word] = hit
        return hit

    return encode


def merge_symbols(ids: list[int], merges: Merges) -> list[int]:
    """Apply merges to a word's symbols: the lowest rank first, the leftmost on a tie.

    A heap of (rank, position) with a linked list of symbols; an entry whose pair has
    changed since it was pushed is skipped when popped.

    >>> merge_symbols([1, 1, 1], pack({(1, 1): (0, 2)}))
    [2, 1]
    >>> merge_symbols([1, 2, 3], pack({(2, 3): (0, 4), (1, 4): (1, 5), (1, 2): (2, 6)}))
    [5]
    """
    return [token for _, token in merge_symbol_positions(ids, merges)]


def merge_symbol_positions(ids: list[int], merges: Merges) -> list[tuple[int, int]]:
    """`merge_symbols`, each result with the position of its first symbol in `ids`.

    >>> merge_symbol_positions([1, 1, 1], pack({(1, 1): (0, 2)}))
    [(0, 2), (2, 1)]
    """
    n = len(ids)
    if n < 2:
        return list(enumerate(ids))
    sym = list(ids)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    alive = [True] * n
    get = merges.get
    heap = [(found >> 32, i) for i in range(n - 1) if (found := get(sym[i] << 32 | sym[i + 1])) is not None]
    heapq.heapify(heap)
    while heap:
        rank, i = heapq.heappop(heap)
        j = nxt[i]
        if not alive[i] or j >= n:
            continue
        found = get(sym[i] << 32 | sym[j])
        if found is None or found >> 32 != rank:
            continue
        sym[i] = found & _LOW
        alive[j] = False
        nxt[i] = nxt[j]
        if nxt[i] < n:
            prv[nxt[i]] = i
            right = get(sym[i] << 32 | sym[nxt[i]])
            if right is not None:
                heapq.heappush(heap, (right >> 32, i))
        if prv[i] >= 0:
            left = get(sym[prv[i]] << 32 | sym[i])
            if left is not None:
                heapq.heappush(heap, (left >> 32, prv[i]))
    return [(i, sym[i]) for i in range(n) if alive[i]]


def _wordpiece_model(field: Field) -> tuple[Model, dict[int, str]]:
    """The library's WordPiece model, run by our `WordPieceTokenizer`: greedy longest
    match, continuations written with the prefix, and the unknown token for a word
    with an unmatched position or more than max_input_chars_per_word characters."""
    from ..algorithms.wordpiece import WordPieceTokenizer

    vocab = _bpe_vocab(field.key("vocab"))
    unk = field.key("unk_token", "[UNK]").as_str(nonempty=True)
    if unk not in vocab:
        raise field.key("unk_token", unk).fail(f"is {unk!r}, which is not in the vocabulary")
    prefix = field.key("continuing_subword_prefix", "##").as_str()
    if not prefix:
        raise field.key("continuing_subword_prefix", "").fail("is empty; this app's WordPiece needs a prefix such as '##'")
    longest = field.key("max_input_chars_per_word", 100).as_int(low=0)
    try:
        wordpiece = WordPieceTokenizer(vocab, unk_token=unk, prefix=prefix, max_input_chars_per_word=longest,
                                       special_tokens=(), name="tokenizer.json")
    except ValueError as exc:
        raise field.key("vocab").fail(f"cannot be used: {exc}") from None
    reverse = _reverse(vocab)

    def encode_word(word: str) -> list[tuple[int, str, int, int]]:
        ids = wordpiece.encode_word(word)
        if len(ids) == 1:
            return [(ids[0], reverse[ids[0]], 0, len(word))]
        out, pos = [], 0
        for k, i in enumerate(ids):
            width = len(reverse[i]) - (len(prefix) if k else 0)
            out.append((i, reverse[i], pos, pos + width))
            pos += width
        return out

    model = _cached(encode_word)
    model.work = ModelWork("WordPiece", trace=wordpiece.trace)
    return model, reverse


def _unigram_model(field: Field) -> tuple[Model, dict[int, str]]:
    """The library's Unigram model, run by our `viterbi`: every piece (the unknown
    token too) may match; a character with no one-character piece gets an unknown node
    scored the lowest score minus 10; a run of unknown nodes is one token (its text), which
    is written as bytes (`<0x41>`) with byte_fallback when they all exist, else the unk id."""
    from ..algorithms.unigram import PieceTable, build_lattice, merge_unknown, viterbi

    vocab_field = field.key("vocab")
    scores: dict[str, float] = {}
    ids: dict[str, int] = {}
    for i, item in enumerate(vocab_field.items()):
        if not isinstance(item.value, list) or len(item.value) != 2:
            raise item.fail('is not a [piece, score] pair (["▁the", -3.2])')
        piece = item.index(0).as_str(nonempty=True)
        scores.setdefault(piece, item.index(1).as_number())
        ids.setdefault(piece, i)
    if not scores:
        raise vocab_field.fail("is empty; a Unigram model needs pieces")
    unk_field = field.key("unk_id", None)
    unk_id = None if unk_field.value is None else unk_field.as_int(low=0, high=len(vocab_field.value) - 1)
    byte_fallback = _flag(field, "byte_fallback", False)
    table = PieceTable(scores)
    unk_score = min(scores.values()) - 10.0
    reverse = {i: vocab_field.value[i][0] for i in range(len(vocab_field.value))}

    def encode_word(word: str) -> list[tuple[int, str, int, int]]:
        out = []
        for start, end, known in merge_unknown(viterbi(word, table, unk_score)):
            text = word[start:end]
            found = ids.get(text)
            if found is not None:
                out.append((found, text, start, end))
                continue
            if byte_fallback:
                codes = [(ids.get(f"<0x{b:02X}>"), f"<0x{b:02X}>") for b in text.encode("utf-8")]
                if all(c is not None for c, _ in codes):
                    out.extend((c, name, start, end) for c, name in codes)
                    continue
            if unk_id is None:
                raise ValueError(
                    f"The Unigram model has no unk_id, so it cannot encode {text!r}. "
                    "Use a tokenizer.json whose model names an unknown token."
                )
            out.append((unk_id, text, start, end))
        return out

    def lattice(word: str):
        def id_of(i: int, j: int, known: bool) -> int:
            found = ids.get(word[i:j]) if known else None
            return found if found is not None else (unk_id if unk_id is not None else -1)

        return build_lattice(word, word, table, unk_score, id_of)

    model = _cached(encode_word)
    model.work = ModelWork("Unigram", lattice=lattice)
    return model, reverse


MODELS: dict[str, Callable[[Field], tuple[Model, dict[int, str]]]] = {
    "BPE": _bpe_model,
    "WordPiece": _wordpiece_model,
    "Unigram": _unigram_model,
}


# ---- decoders -------------------------------------------------------------------------------
# A decoder stage maps the list of token strings to a new list; the tokens are joined at the end.

Stage = Callable[[list[str]], list[str]]


def _decoder_stage(field: Field) -> Stage:
    return _type(field, DECODERS, "decoder")(field)


def _decoder_or_error(field: Field) -> Decoder:
    """The file's decoder; one this app cannot run is an error when decoding only."""
    try:
        stage = _decoder_stage(field)
    except ValueError as exc:
        message = str(exc)

        def refuse(tokens: list[str]) -> str:
            raise ValueError(message)

        return refuse
    return lambda tokens: "".join(stage(list(tokens)))


def _byte_level_decoder(field: Field) -> Stage:
    return lambda tokens: ["".join(tokens) and byte_chars_joined(tokens)]


def byte_chars_joined(tokens: list[str]) -> str:
    """Tokens in GPT-2's byte form read back into text (invalid UTF-8 as U+FFFD).

    >>> byte_chars_joined(["Hello", "Ġw", "orld"])
    'Hello world'
    """
    return b"".join(byte_chars_to_bytes(t) for t in tokens).decode("utf-8", "replace")


def _metaspace_decoder(field: Field) -> Stage:
    replacement = field.key("replacement").as_str()
    scheme_field = field.key("prepend_scheme", None)
    scheme = "always" if scheme_field.value is None else scheme_field.one_of(("always", "first", "never"))
    legacy = field.key("add_prefix_space", None)
    if legacy.value is not None and not legacy.as_bool():
        scheme = "never"

    def run(tokens: list[str]) -> list[str]:
        # The library drops every replacement character of the first token (not only a
        # leading one) unless nothing was prepended.
        first = "" if scheme != "never" else " "
        return [token.replace(replacement, " " if i else first) for i, token in enumerate(tokens)]

    return run


_CLEANUP = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
            (" 'm", "'m"), (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


def _cleanup(text: str) -> str:
    for dirty, clean in _CLEANUP:
        text = text.replace(dirty, clean)
    return text


def _wordpiece_decoder(field: Field) -> Stage:
    prefix = field.key("prefix", "##").as_str()
    cleanup = _flag(field, "cleanup", True)

    def run(tokens: list[str]) -> list[str]:
        out = []
        for i, token in enumerate(tokens):
            if i:
                token = token[len(prefix):] if token.startswith(prefix) else " " + token
            out.append(_cleanup(token) if cleanup else token)
        return out

    return run


def _bpe_decoder(field: Field) -> Stage:
    suffix = field.key("suffix", "</w>").as_str()
    last = lambda i, n: i == n - 1  # noqa: E731
    return lambda tokens: [t.replace(suffix, "" if last(i, len(tokens)) else " ") for i, t in enumerate(tokens)]


_BYTE_TOKEN = regex.compile(r"<0x([0-9A-Fa-f]{2})>")


def _byte_fallback_decoder(field: Field) -> Stage:
    def run(tokens: list[str]) -> list[str]:
        out: list[str] = []
        pending = bytearray()

        def flush() -> None:
            if pending:
                try:
                    out.append(pending.decode("utf-8"))
                except UnicodeDecodeError:
                    out.extend(["\ufffd"] * len(pending))
                pending.clear()

        for token in tokens:
            m = _BYTE_TOKEN.fullmatch(token) if len(token) == 6 else None
            if m:
                pending.append(int(m.group(1), 16))
            else:
                flush()
                out.append(token)
        flush()
        return out

    return run


def _strip_decoder(field: Field) -> Stage:
    content = field.key("content").as_str()
    start, stop = field.key("start").as_int(low=0), field.key("stop").as_int(low=0)

    def strip(token: str) -> str:
        chars = list(token)
        a = 0
        while a < min(start, len(chars)) and chars[a] == content:
            a += 1
        b = len(chars)
        while len(chars) - b < stop and b > a and chars[b - 1] == content:
            b -= 1
        return "".join(chars[a:b])

    return lambda tokens: [strip(t) for t in tokens]


def _replace_decoder(field: Field) -> Stage:
    replace = _replace(field)
    return lambda tokens: [replace(t) for t in tokens]


def _decoder_sequence(field: Field) -> Stage:
    stages = [_decoder_stage(item) for item in field.key("decoders").items()]

    def run(tokens: list[str]) -> list[str]:
        for stage in stages:
            tokens = stage(tokens)
        return tokens

    return run


DECODERS: dict[str, Callable[[Field], Stage]] = {
    "ByteLevel": _byte_level_decoder,
    "Metaspace": _metaspace_decoder,
    "WordPiece": _wordpiece_decoder,
    "BPEDecoder": _bpe_decoder,
    "ByteFallback": _byte_fallback_decoder,
    "Fuse": lambda field: lambda tokens: ["".join(tokens)],
    "Strip": _strip_decoder,
    "Replace": _replace_decoder,
    "Sequence": _decoder_sequence,
}


# ---- added tokens ---------------------------------------------------------------------------

def _added_tokens(field: Field, vocab: dict[int, str]) -> list[AddedToken]:
    by_text = {text: i for i, text in vocab.items()}
    out = []
    for item in field.items():
        content = item.key("content").as_str(nonempty=True)
        token_id = item.key("id").as_int(low=0)
        # The library gives an added token the model's id when the model has the text.
        token_id = by_text.get(content, token_id)
        out.append(
            AddedToken(
                id=token_id,
                content=content,
                special=_flag(item, "special", False),
                normalized=_flag(item, "normalized", True),
                lstrip=_flag(item, "lstrip", False),
                rstrip=_flag(item, "rstrip", False),
                single_word=_flag(item, "single_word", False),
            )
        )
    return out


# ---- writing --------------------------------------------------------------------------------

def _hf_token(tok, token_id: int) -> str:
    """A trained token as the HF vocabulary writes it: GPT-2 form for bytes, marker attached."""
    body, eow = tok.tokens[token_id]
    text = _to_gpt2(body) if isinstance(body, bytes) else body
    return text + tok.marker if eow else text


def _to_gpt2(data: bytes) -> str:
    return "".join(_BYTE_CHARS[b] for b in data)


def hf_problem(tok) -> str | None:
    """Why a tokenizer.json cannot reproduce this trained tokenizer, or None if it can."""
    if tok.merges is None:
        return "it is a rank table with no merge list; export it as a .tiktoken file instead"
    if tok.end_of_word == "separate":
        return (f"its end-of-word marker {tok.marker!r} is a symbol of its own, and Hugging Face's BPE "
                "has none: its end_of_word_suffix joins the marker to the word's last character, which "
                "is the 'attached' setting. Train with end of word 'attached' or 'none'")
    seen: dict[str, int] = {}
    for token_id in sorted(tok.tokens):
        text = _hf_token(tok, token_id)
        if text in seen:
            return (f"tokens {seen[text]} and {token_id} are both written {text!r} (a token's own text ends "
                    f"in the marker {tok.marker!r}), and a tokenizer.json vocabulary needs each text once. "
                    "Train with a marker that does not occur in the text")
        seen[text] = token_id
    return None


def hf_json_file(tok) -> bytes:
    """A tokenizer.json that Hugging Face tokenizers loads and that encodes like `tok`.

    Byte units get the ByteLevel pre-tokenizer and decoder (after our pattern as a
    Split); char units our pattern as a Split; an attached marker becomes the model's
    end_of_word_suffix. Special tokens are added tokens (special, not normalized).
    """
    problem = hf_problem(tok)
    if problem:
        raise ValueError(f"A tokenizer.json cannot hold this tokenizer: {problem}.")
    steps = []
    if tok.pattern is not None:
        # Keep what the pattern matches, drop the rest (our pre-tokenizers' rule).
        pattern = explicit_classes(rewrite_bounded_plus(tok.pattern, to="onig"))
        steps.append({"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Removed", "invert": True})
    if tok.units == "byte":
        steps.append({"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False})
    pre_tokenizer = None if not steps else steps[0] if len(steps) == 1 else {"type": "Sequence", "pretokenizers": steps}
    suffix = tok.marker if tok.end_of_word == "attached" else None
    merges = [
        [_hf_token(tok, a), _hf_token(tok, b)]
        for (a, b), _ in sorted(tok.merges.items(), key=lambda item: item[1][0])
    ]
    data = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": i, "content": text, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for text, i in sorted(tok.special_tokens.items(), key=lambda item: item[1])
        ],
        "normalizer": None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": (
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
            if tok.units == "byte" else {"type": "BPEDecoder", "suffix": suffix} if suffix else None
        ),
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": suffix,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": {_hf_token(tok, i): i for i in sorted(tok.tokens)},
            "merges": merges,
        },
    }
    return json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8")
