"""A real tokenizer cut down to k tokens: what real vocabulary sizes buy, and cost.

A BPE rank table is ordered: rank r is the r-th token the tokenizer learned, and every
merge only joins tokens learned before it. So the first k ranks of a real tokenizer are
a tokenizer of size k, with no retraining. Encoding with it is the same merge loop
(`bpe_core`'s `merge_lowest`: join the adjacent pair of lowest rank, leftmost first)
with every rank >= k treated as "not a merge" (NO_MERGE), and, as tiktoken does, a piece
that is itself a token of rank < k is that one token. The 256 single bytes have the
ranks 0-255 in GPT-2's, cl100k's and o200k's tables, so k >= 256 keeps all of them and
any text can still be written.

This module measures characters per token of a set of texts at such sizes and pairs
each size with what it costs a model (ui.vocab.model_cost). Pure functions over a
byte-level `Tokenizer` (one built by `Tokenizer.from_ranks`); no Streamlit. What it
leaves out: special tokens (the texts are encoded as plain text), and merge-list
tokenizers (ours), which the page's first section covers step by step.

>>> from bpe_core import Tokenizer
>>> ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"abc": 257, b"bc": 258}
>>> tok = Tokenizer.from_ranks(name="toy", mergeable_ranks=ranks, pattern=r"\\S+|\\s+", special_tokens={})
>>> [truncated_piece_ids(b"abcbc", tok.ranks, k) for k in (256, 257, 258, 259)]
[[97, 98, 99, 98, 99], [256, 99, 98, 99], [257, 98, 99], [257, 258]]
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import pandas as pd

from bpe_core import Tokenizer
from bpe_core.encode.merge_loop import NO_MERGE, merge_lowest
from bpe_core.pretrained import PRETRAINED
from ui.vocab.model_cost import REAL_VOCABS, ModelConfig, model_cost

__all__ = [
    "BASE_BYTES",
    "TRUNCATION_SIZES",
    "SizeMark",
    "truncated_piece_ids",
    "truncated_encode",
    "truncation_table",
    "size_marks",
    "real_model_sizes",
    "cost_at_sizes",
]

#: every byte-level table here starts with the 256 single bytes (ranks 0-255)
BASE_BYTES = 256

#: 2^8 ... 2^17 ranks: the sizes the page draws (plus the tokenizer's full size)
TRUNCATION_SIZES: tuple[int, ...] = tuple(2**e for e in range(8, 18))


def _check_size(k: int) -> None:
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"A truncation size must be an int, not {type(k).__name__} ({k!r}).")
    if k < BASE_BYTES:
        raise ValueError(f"Cannot keep only {k!r} ranks: a byte-level tokenizer needs its {BASE_BYTES} "
                         f"single bytes. Choose k >= {BASE_BYTES}.")


def truncated_piece_ids(data: bytes, ranks: Mapping[bytes, int], k: int) -> list[int]:
    """The ids of one pre-tokenized piece (its UTF-8 bytes) under the first k ranks.

    >>> ranks = {bytes([b]): b for b in range(256)} | {b"aa": 256, b"aaaa": 257}
    >>> truncated_piece_ids(b"aaaaa", ranks, 257), truncated_piece_ids(b"aaaaa", ranks, 258)
    ([256, 256, 97], [257, 97])
    """
    _check_size(k)
    whole = ranks.get(data)
    if whole is not None and whole < k:  # tiktoken's rule: a piece that is a token stays whole
        return [whole]

    def rank_of(left: bytes, right: bytes) -> float:
        rank = ranks.get(left + right)
        return NO_MERGE if rank is None or rank >= k else rank

    parts = merge_lowest([data[i : i + 1] for i in range(len(data))], rank_of, bytes.__add__)
    return [ranks[p] for p in parts]


def truncated_encode(tokenizer: Tokenizer, text: str, k: int) -> list[int]:
    """Encode `text` (special tokens as plain text) with the first k ranks of a
    byte-level rank-table tokenizer. With k at least the table's size it is
    `tokenizer.encode(text)`; with k = 256 it is one token per UTF-8 byte."""
    if tokenizer.ranks is None:
        raise ValueError(f"Tokenizer {tokenizer.name!r} has no rank table: truncation needs a byte-level "
                         "tokenizer built from ranks (GPT-2, cl100k_base, o200k_base).")
    out: list[int] = []
    memo: dict[str, list[int]] = {}
    for piece, _ in tokenizer.pieces(text):
        ids = memo.get(piece)
        if ids is None:
            ids = memo[piece] = truncated_piece_ids(piece.encode("utf-8"), tokenizer.ranks, k)
        out.extend(ids)
    return out


def truncation_table(tokenizer: Tokenizer, texts: Mapping[str, str], sizes: Sequence[int],
                     *, names: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Tokens and characters per token of each text at each size, plus an "all" row per
    size (every text together: total characters ÷ total tokens).

    Columns: size, code, language, tokens, chars, chars_per_token.
    """
    names = names or {}
    rows = []
    for k in sizes:
        total_tokens = total_chars = 0
        for code, text in texts.items():
            tokens = len(truncated_encode(tokenizer, text, k))
            total_tokens += tokens
            total_chars += len(text)
            rows.append(dict(size=k, code=code, language=names.get(code, code), tokens=tokens,
                             chars=len(text), chars_per_token=len(text) / tokens if tokens else 0.0))
        rows.append(dict(size=k, code="all", language="All together", tokens=total_tokens, chars=total_chars,
                         chars_per_token=total_chars / total_tokens if total_tokens else 0.0))
    return pd.DataFrame(rows, columns=["size", "code", "language", "tokens", "chars", "chars_per_token"])


@dataclass(frozen=True)
class SizeMark:
    """A real model's vocabulary size to mark on the size axis (several names share a
    mark when their sizes are too close to tell apart on a logarithmic axis)."""

    size: int
    label: str


def size_marks(sizes: Mapping[str, int], *, within: float = 0.05) -> list[SizeMark]:
    """Named sizes in ascending order, names whose sizes lie within `within` (a
    fraction) of the previous one merged into one mark at the smaller size.

    >>> size_marks({"GPT-2": 50_257, "Llama 3": 128_256, "Tekken": 131_072})
    [SizeMark(size=50257, label='GPT-2'), SizeMark(size=128256, label='Llama 3 · Tekken')]
    """
    marks: list[SizeMark] = []
    for name, size in sorted(sizes.items(), key=lambda item: item[1]):
        if marks and size <= marks[-1].size * (1 + within):
            marks[-1] = SizeMark(marks[-1].size, f"{marks[-1].label} · {name}")
        else:
            marks.append(SizeMark(size, name))
    return marks


def real_model_sizes() -> dict[str, int]:
    """Real models' vocabulary sizes to mark: every tokenizer in bpe_core's registry
    (their sizes there are checked against the files) and Llama 3 (the published size).

    >>> real_model_sizes()["GPT-2"], real_model_sizes()["Llama 3"]
    (50257, 128256)
    """
    sizes = {p.short: p.vocab_size for p in PRETRAINED.values()}
    sizes.update({r.name: r.size for r in REAL_VOCABS if r.name == "Llama 3"})
    return sizes


def cost_at_sizes(sizes: Sequence[int], *, hidden_size: int, tied: bool, total_params: int,
                  precision: str = "bf16") -> pd.DataFrame:
    """What each vocabulary size costs a model of width `hidden_size` and `total_params`
    parameters: embedding parameters (V × d per matrix), output-layer FLOPs per token
    (2dV) and their shares.

    >>> cost_at_sizes([256, 65_536], hidden_size=4096, tied=False, total_params=8_030_261_248)[
    ...     ["size", "embedding_params", "output_flops"]].values.tolist()
    [[256, 2097152, 2097152], [65536, 536870912, 536870912]]
    """
    rows = []
    for v in sizes:
        cost = model_cost(ModelConfig(int(v), hidden_size, tied, total_params), precision)
        rows.append(dict(size=int(v), embedding_params=cost.embedding_params, output_flops=cost.output_flops,
                         embedding_bytes=int(cost.embedding_bytes), param_share=float(cost.param_share),
                         output_share=float(cost.output_share)))
    return pd.DataFrame(rows, columns=["size", "embedding_params", "output_flops", "embedding_bytes",
                                       "param_share", "output_share"])
