"""tiktoken `.tiktoken` rank files: read them, and write one for a trained tokenizer.

A rank file is one `base64(token bytes) rank` line per token, and nothing else: no
pre-tokenizer pattern, no special tokens, no merge list. tiktoken ranks a pair of
adjacent symbols by the rank of the token their bytes join into; so the merges are
implied by the ranks, and can be recovered (for each token in rank order, BPE on its
bytes using only lower ranks ends in the two parts that made it).

Reading needs the pattern from elsewhere: a name from `PATTERN_CHOICES` or a regex.
Writing (`tiktoken_file`) refuses, with the reason, a tokenizer that a rank file
cannot represent (see `tiktoken_problem`).

What it leaves out: special tokens (give them to tiktoken yourself: the file has no
place for them).
"""
from __future__ import annotations

import base64
import binascii
from pathlib import Path

import regex

from ..pretrained.openai_files import recover_merges
from ..pretokenize import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN, SIMPLE_PATTERN, WHITESPACE_PATTERN, compile_untrusted
from ..encode.tokenizer import Tokenizer
from .checks import Source, check_size

__all__ = [
    "PATTERN_CHOICES",
    "resolve_pattern",
    "parse_ranks",
    "load_tiktoken_ranks",
    "tiktoken_problem",
    "tiktoken_file",
    "looks_like_ranks",
    "ANY_TEXT_PATTERN",
]

#: Patterns a user can pick by name for a rank file (tiktoken's names and ours).
PATTERN_CHOICES: dict[str, str] = {
    "gpt2": GPT2_PATTERN,
    "r50k_base": GPT2_PATTERN,
    "p50k_base": GPT2_PATTERN,
    "cl100k_base": CL100K_PATTERN,
    "o200k_base": O200K_PATTERN,
    "cl100k": CL100K_PATTERN,
    "o200k": O200K_PATTERN,
    "simple": SIMPLE_PATTERN,
    "whitespace": WHITESPACE_PATTERN,
}
#: The pattern that makes the whole text one piece (our `none` pre-tokenizer).
ANY_TEXT_PATTERN = r"[\s\S]+"

_FIX = "Use a .tiktoken file as tiktoken publishes them (one 'base64token rank' per line)"


def resolve_pattern(choice: str) -> str:
    """A pattern name from `PATTERN_CHOICES`, or a regex typed in full.

    >>> resolve_pattern("cl100k_base") == CL100K_PATTERN
    True
    >>> resolve_pattern(r"\\S+")
    '\\\\S+'
    """
    if not isinstance(choice, str) or not choice:
        raise ValueError(
            "A .tiktoken file holds no pre-tokenizer pattern. Pass one: a name "
            f"({', '.join(PATTERN_CHOICES)}) or a regular expression."
        )
    if choice in PATTERN_CHOICES:
        return PATTERN_CHOICES[choice]
    try:
        compile_untrusted(choice)  # bounded: refuses what would take long to compile
    except regex.error as exc:
        raise ValueError(
            f"The pattern {choice!r} is neither a known name ({', '.join(PATTERN_CHOICES)}) "
            f"nor a regular expression ({exc}). Fix the pattern."
        ) from None
    return choice


def looks_like_ranks(data: bytes) -> bool:
    """Whether the file's first line has the `base64 rank` shape."""
    first = data.lstrip()[:200].split(b"\n", 1)[0].split()
    return len(first) == 2 and first[1].isdigit() and regex.fullmatch(rb"[A-Za-z0-9+/=]+", first[0]) is not None


def _parse_plain(data: bytes) -> dict[bytes, int] | None:
    """The table of a rank file as tiktoken and most libraries write it, read with
    C-level loops: lines `base64 rank` with one space, ending in \n (the last may not),
    each token canonical base64 (what `b2a_base64` writes, so what `b64decode(validate=True)`
    reads the same way). None for any other file, or when a token or rank repeats: the
    line-by-line reader then reads it or says where it is wrong."""
    fields = data.split()
    tokens, numbers = fields[0::2], fields[1::2]
    if len(tokens) != len(numbers) or not b"".join(numbers).isdigit():
        return None
    # the file is exactly these lines (one space each, no empty line, no \r) ...
    if b"\n".join(map(b" ".join, zip(tokens, numbers))) != data.removesuffix(b"\n"):
        return None
    # ... and each token is canonical base64: it is what encoding its bytes writes
    try:
        decoded = list(map(binascii.a2b_base64, tokens))
    except binascii.Error:
        return None
    if b"".join(map(binascii.b2a_base64, decoded)) != b"\n".join(tokens) + b"\n":
        return None
    table = dict(zip(decoded, map(int, numbers)))
    if len(table) != len(numbers) or len(set(numbers)) != len(numbers):
        return None
    return table


def parse_ranks(data: bytes, *, name: str = "ranks.tiktoken") -> dict[bytes, int]:
    """token bytes -> rank, checked: every line `base64 rank`, no token or rank twice."""
    source = Source(f"the rank file {name!r}", _FIX)
    check_size(data, source)
    ranks: dict[bytes, int] | None = _parse_plain(data) if isinstance(data, bytes) else None
    if ranks is not None and ranks:
        return _check_bytes(ranks, source)
    ranks = {}
    owner: dict[int, int] = {}
    for lineno, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 2 or not fields[1].isdigit():
            raise source.error(f"line {lineno} is {line[:60]!r}, not 'base64token rank'")
        try:
            # "=" alone is the empty token (Whisper's multilingual.tiktoken ends with one; tiktoken's
            # lenient base64 reads it as b""): it holds an id that encoding never gives
            token = b"" if fields[0] == b"=" else base64.b64decode(fields[0], validate=True)
        except (binascii.Error, ValueError):
            raise source.error(f"line {lineno}: {fields[0][:40]!r} is not base64") from None
        rank = int(fields[1])
        if token in ranks:
            raise source.error(f"line {lineno} repeats the token {token!r} (first on line {owner[ranks[token]]})")
        if rank in owner:
            raise source.error(f"line {lineno} repeats rank {rank} (first on line {owner[rank]})")
        ranks[token] = rank
        owner[rank] = lineno
    if not ranks:
        raise source.error("it has no tokens")
    return _check_bytes(ranks, source)


def _check_bytes(ranks: dict[bytes, int], source: Source) -> dict[bytes, int]:
    missing = [b for b in range(256) if bytes((b,)) not in ranks]
    if missing:
        raise source.error(
            f"{len(missing)} single bytes (e.g. {missing[0]:#04x}) have no rank, so some text could "
            "not be encoded; a byte-level rank file lists all 256"
        )
    return ranks


def load_tiktoken_ranks(
    data: bytes,
    *,
    pattern: str | None,
    name: str = "ranks.tiktoken",
    special_tokens: dict[str, int] | None = None,
) -> Tokenizer:
    """A tokenizer from a rank file and a pattern (a name or a regex; see `resolve_pattern`).

    Without a pattern, a file named after a tiktoken encoding (cl100k_base.tiktoken)
    gets that encoding's pattern.
    """
    if pattern is None:
        stem = Path(name).name.split(".")[0]
        if stem in PATTERN_CHOICES:
            pattern = stem
    regex_text = resolve_pattern(pattern)  # type: ignore[arg-type]
    ranks = parse_ranks(data, name=name)
    return Tokenizer.from_ranks(
        name=name, mergeable_ranks=ranks, pattern=regex_text, special_tokens=dict(special_tokens or {})
    )


# ---- writing --------------------------------------------------------------------------------

def tiktoken_problem(tok: Tokenizer) -> str | None:
    """Why a rank file cannot carry this trained tokenizer, or None if it can.

    A rank file has bytes and ranks only, and tiktoken merges any adjacent pair whose
    bytes join into a token. So it needs: byte units (every token is bytes, all 256 single
    bytes present); no end-of-word marker (a rank file has no symbol that is not
    bytes); one merge per token (a second merge making the same token would get that
    token's rank, not its own); and merges that the ranks alone give back (for each
    token, BPE on its bytes with the lower ranks must end in the pair that made it).
    """
    if tok.merges is None:
        return None  # already a rank table
    if tok.units != "byte":
        return ("it works on characters; a rank file holds byte strings, and tiktoken needs every "
                "single byte as a token. Train with byte units")
    if tok.end_of_word != "none":
        return (f"its end-of-word marker ({tok.end_of_word}, {tok.marker!r}) is a symbol with no bytes "
                "of its own; a rank file can only hold byte strings. Train with end of word 'none'")
    by_token: dict[int, int] = {}
    for (a, b), (rank, new) in sorted(tok.merges.items(), key=lambda item: item[1][0]):
        if new in by_token:
            return (f"merges {by_token[new]} and {rank} both make {tok.token_text(new)!r}; a rank file "
                    "gives a token one rank, so the second merge cannot be written")
        by_token[new] = rank
    ranks = _ranks(tok)
    try:
        recovered = recover_merges(ranks)
    except ValueError as exc:
        return f"its ranks do not rebuild its merges ({exc})"
    ours = [(tok.token_bytes(a), tok.token_bytes(b)) for (a, b), _ in sorted(tok.merges.items(), key=lambda i: i[1][0])]
    for step, (mine, theirs) in enumerate(zip(ours, recovered), start=1):
        if mine != theirs:
            return (f"merge {step} joins {mine[0]!r} + {mine[1]!r}, but from the ranks alone tiktoken would "
                    f"build that token from {theirs[0]!r} + {theirs[1]!r}, so it would encode differently")
    return None


def _ranks(tok: Tokenizer) -> dict[bytes, int]:
    return {tok.token_bytes(i): i for i in sorted(tok.tokens)}


def tiktoken_file(tok: Tokenizer) -> bytes:
    """The `.tiktoken` rank file of a trained byte-level tokenizer (rank = our id).

    Raises ValueError, naming the setting, when a rank file cannot represent it.
    """
    problem = tiktoken_problem(tok)
    if problem:
        raise ValueError(f"A tiktoken rank file cannot hold this tokenizer: {problem}.")
    lines = [base64.b64encode(data) + b" " + str(rank).encode() for data, rank in _ranks(tok).items()]
    return b"\n".join(lines) + b"\n"
