"""SentencePiece models shipped inside PyPI packages: the sentencepiece entries of the
one registry of real tokenizers (bpe_core.pretrained), under the names this package
offers.

`mistral-7b-v1`: Mistral 7B's `tokenizer.model.v1` (32,000 pieces, SentencePiece BPE,
byte fallback, identity normalization), from the data files of the `mistral-common`
package. The package's code is never run: its folder is found with
`importlib.util.find_spec`, and the file's SHA-256 must equal the pinned hash.
"""
from __future__ import annotations

from pathlib import Path

from ..pretrained import PRETRAINED, Pretrained, load_pretrained, package_file
from .tokenizer import SentencePieceTokenizer

__all__ = ["SHIPPED_MODELS", "shipped_model_path", "shipped_tokenizer"]

SHIPPED_MODELS: dict[str, Pretrained] = {n: p for n, p in PRETRAINED.items() if p.kind == "sentencepiece"}


def _check_name(name: object) -> Pretrained:
    if not isinstance(name, str) or name not in SHIPPED_MODELS:
        raise ValueError(
            f"{name!r} is not a shipped SentencePiece model. Choose one of: {', '.join(SHIPPED_MODELS)}."
        )
    return SHIPPED_MODELS[name]


def shipped_model_path(name: str) -> Path:
    """Where the named model file is, inside its installed package."""
    return package_file(_check_name(name))


def shipped_tokenizer(name: str) -> SentencePieceTokenizer:
    """The named shipped model, built once per process and shared (never mutate it)."""
    _check_name(name)
    return load_pretrained(name)
