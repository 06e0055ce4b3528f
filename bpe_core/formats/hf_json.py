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
- models: BPE with unk_token, fuse_unk, continuing_subword_prefix, end_of_word_suffix,
  byte_fallback and ignore_merges (a model type is one function in `_MODELS`;
  WordPiece, Unigram and WordLevel are refused for now);
- added tokens with special, normalized, lstrip, rstrip and single_word.

Writing (`hf_json_file`) turns a tokenizer trained here into a tokenizer.json the library
encodes the same way: our pattern as a Split (rewritten where Oniguruma, the library's
regex engine, reads it differently), ByteLevel for byte units, an attached marker as
the end_of_word_suffix; `hf_problem` says why a tokenizer cannot be written.

What it leaves out: the post-processor and decoder (encoding here never adds special
tokens, as `encode(text, add_special_tokens=False)`), BPE dropout (random), truncation
and padding (refused: they would change the ids).
"""
from __future__ import annotations

import heapq
import json
import unicodedata
from functools import lru_cache
from typing import Any, Callable

import regex

from ..display import byte_to_unicode
from .checks import Field, Source, parse_json
from .pipeline import (
    BEHAVIORS,
    AddedToken,
    Model,
    Normalizer,
    Piece,
    PipelineTokenizer,
    PreTokenizer,
    find_chars,
    find_regex,
    inverted,
    is_white_space,
    split_piece,
)

__all__ = ["load_hf_json", "looks_like_hf_json", "hf_json_file", "hf_problem", "NORMALIZERS", "PRE_TOKENIZERS", "MODELS"]

_FIX = "Use a tokenizer.json saved by Hugging Face tokenizers (`Tokenizer.save`)"


def looks_like_hf_json(data: Any) -> bool:
    """Whether parsed JSON has the shape of a tokenizer.json (a `model` object)."""
    return isinstance(data, dict) and isinstance(data.get("model"), dict)


def load_hf_json(data: str | bytes | dict, *, name: str = "tokenizer.json") -> PipelineTokenizer:
    """Read a tokenizer.json (its text, bytes, or the parsed dict)."""
    source = Source(f"the tokenizer file {name!r}", _FIX)
    root = parse_json(data, source) if isinstance(data, (str, bytes)) else Field(data, source)
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
    return PipelineTokenizer(
        name=name,
        kind="tokenizer.json",
        normalizer=normalizer,
        pre_tokenizer=pre_tokenizer,
        model=model,
        added_tokens=added,
        vocab=vocab,
        model_type=model_type,
    )


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
    return lambda field: lambda text: unicodedata.normalize(form, text)


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


def _replace(field: Field) -> Normalizer:
    compiled = regex.compile(_pattern(field.key("pattern")))
    content = field.key("content").as_str()
    return lambda text: compiled.sub(lambda m: content, text)


def _prepend(field: Field) -> Normalizer:
    prefix = field.key("prepend").as_str()
    return lambda text: prefix + text if text else text


def _strip(field: Field) -> Normalizer:
    left, right = _flag(field, "strip_left", True), _flag(field, "strip_right", True)

    def strip(text: str) -> str:
        start, end = 0, len(text)
        while left and start < end and is_white_space(text[start]):
            start += 1
        while right and end > start and is_white_space(text[end - 1]):
            end -= 1
        return text[start:end]

    return strip


def _normalizer_sequence(field: Field) -> Normalizer:
    stages = [_normalizer(item) for item in field.key("normalizers").items()]

    def run(text: str) -> str:
        for stage in stages:
            text = stage(text)
        return text

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


def _byte_level(field: Field) -> PreTokenizer:
    prefix = _flag(field, "add_prefix_space", True)
    use_regex = _flag(field, "use_regex", True)
    find = find_regex(BYTE_LEVEL_PATTERN)

    def split(piece: Piece) -> list[Piece]:
        if prefix and not piece.text.startswith(" "):
            piece = Piece(" " + piece.text, piece.at_start)
        parts = split_piece(piece, find, "isolated") if use_regex else [piece]
        return [Piece(_to_byte_chars(p.text), p.at_start) for p in parts]

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
        text = piece.text.replace(" ", replacement)
        if not text.startswith(replacement) and (scheme == "always" or (scheme == "first" and piece.at_start)):
            text = replacement + text
        piece = Piece(text, piece.at_start)
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
        later = " (WordPiece and Unigram come with the encoders of the algorithms issue)" if kind in (
            "WordPiece", "Unigram", "WordLevel") else ""
        raise field.key("type").fail(
            f"is {kind!r}: this app reads {', '.join(MODELS)} models only, so far{later}. "
            "Choose a tokenizer.json with a BPE model"
        )
    return kind


def _bpe_vocab(field: Field) -> dict[str, int]:
    vocab: dict[str, int] = {}
    for token, value in field.members():
        vocab[token] = value.as_int(low=0)
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
    merges: dict[tuple[int, int], tuple[int, int]] = {}
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
        merges[(vocab[a], vocab[b])] = (rank, vocab[joined])  # a later duplicate wins, as in the library
    reverse = {i: t for t, i in sorted(vocab.items(), key=lambda item: item[1], reverse=True)}
    unk_id = vocab[unk] if unk is not None else None
    cache: dict[str, list[tuple[int, str]]] = {}

    def symbols(word: str) -> list[int]:
        out: list[int] = []
        pending: int | None = None  # an unknown stretch waiting to be written as unk
        last = len(word) - 1
        for i, ch in enumerate(word):
            sym = (prefix if prefix and i else "") + ch + (suffix if suffix and i == last else "")
            found = vocab.get(sym)
            if found is not None:
                if pending is not None:
                    out.append(pending)
                    pending = None
                out.append(found)
                continue
            if byte_fallback:
                codes = [vocab.get(f"<0x{b:02X}>") for b in sym.encode("utf-8")]
                if all(c is not None for c in codes):
                    out.extend(codes)  # type: ignore[arg-type]
                    continue
            if unk_id is not None:
                if pending is not None and not fuse_unk:
                    out.append(pending)
                pending = unk_id
        if pending is not None:
            out.append(pending)
        return out

    def encode_word(word: str) -> list[tuple[int, str]]:
        if not word:
            return []
        hit = cache.get(word)
        if hit is not None:
            return hit
        if ignore_merges and word in vocab:
            ids = [vocab[word]]
        else:
            ids = merge_symbols(symbols(word), merges)
        result = [(i, reverse[i]) for i in ids]
        if len(cache) > 100_000:
            cache.clear()
        cache[word] = result
        return result

    return encode_word, reverse


def merge_symbols(ids: list[int], merges: dict[tuple[int, int], tuple[int, int]]) -> list[int]:
    """Apply merges to a word's symbols: the lowest rank first, the leftmost on a tie.

    A heap of (rank, position) with a linked list of symbols; an entry whose pair has
    changed since it was pushed is skipped when popped.

    >>> merge_symbols([1, 1, 1], {(1, 1): (0, 2)})
    [2, 1]
    >>> merge_symbols([1, 2, 3], {(2, 3): (0, 4), (1, 4): (1, 5), (1, 2): (2, 6)})
    [5]
    """
    n = len(ids)
    if n < 2:
        return list(ids)
    sym = list(ids)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    alive = [True] * n
    heap = [(merges[(sym[i], sym[i + 1])][0], i) for i in range(n - 1) if (sym[i], sym[i + 1]) in merges]
    heapq.heapify(heap)
    while heap:
        rank, i = heapq.heappop(heap)
        j = nxt[i]
        if not alive[i] or j >= n:
            continue
        found = merges.get((sym[i], sym[j]))
        if found is None or found[0] != rank:
            continue
        sym[i] = found[1]
        alive[j] = False
        nxt[i] = nxt[j]
        if nxt[i] < n:
            prv[nxt[i]] = i
            right = merges.get((sym[i], sym[nxt[i]]))
            if right is not None:
                heapq.heappush(heap, (right[0], i))
        if prv[i] >= 0:
            left = merges.get((sym[prv[i]], sym[i]))
            if left is not None:
                heapq.heappush(heap, (left[0], prv[i]))
    return [sym[i] for i in range(n) if alive[i]]


MODELS: dict[str, Callable[[Field], tuple[Model, dict[int, str]]]] = {"BPE": _bpe_model}


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
