"""SentencePiece models shipped inside PyPI packages, loaded offline and hash-checked.

`mistral-7b-v1`: Mistral 7B's `tokenizer.model.v1` (32,000 pieces, SentencePiece BPE,
byte fallback, identity normalization), from the data files of the `mistral-common`
package (`mistral_common/data/tokenizer.model.v1`). The package's code is never run:
its folder is found with `importlib.util.find_spec`, and the file's SHA-256 must equal
the hash pinned here. Nothing is downloaded.
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .tokenizer import SentencePieceTokenizer

__all__ = ["ShippedModel", "SHIPPED_MODELS", "shipped_model_path", "shipped_tokenizer"]


@dataclass(frozen=True)
class ShippedModel:
    package: str        # the import name of the package that carries the file
    requirement: str    # what to pip install
    filename: str       # under <package>/data/
    sha256: str
    title: str


SHIPPED_MODELS: dict[str, ShippedModel] = {
    "mistral-7b-v1": ShippedModel(
        package="mistral_common",
        requirement="mistral-common==1.9.1",
        filename="tokenizer.model.v1",
        sha256="dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055",
        title="Mistral 7B v0.1 (SentencePiece BPE, 32,000 pieces)",
    ),
}


def _check_name(name: object) -> ShippedModel:
    if not isinstance(name, str) or name not in SHIPPED_MODELS:
        raise ValueError(
            f"{name!r} is not a shipped SentencePiece model. Choose one of: {', '.join(SHIPPED_MODELS)}."
        )
    return SHIPPED_MODELS[name]


def shipped_model_path(name: str) -> Path:
    """Where the named model file is, inside its installed package."""
    shipped = _check_name(name)
    try:
        spec = importlib.util.find_spec(shipped.package)
    except (ImportError, ValueError):
        spec = None
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        path = Path(location) / "data" / shipped.filename
        if path.is_file():
            return path
    raise ValueError(
        f"The tokenizer file {shipped.filename!r} ships in the Python package "
        f"{shipped.requirement.split('==')[0]!r}, which is not installed (or lacks the file). "
        f"Install it: pip install {shipped.requirement}"
    )


@lru_cache(maxsize=None)
def shipped_tokenizer(name: str) -> SentencePieceTokenizer:
    """The named shipped model as a tokenizer, built once per process and shared
    (never mutate it). A file whose SHA-256 differs from the pinned one is a ValueError."""
    shipped = _check_name(name)
    return SentencePieceTokenizer.from_file(shipped_model_path(name), name=name, sha256=shipped.sha256)
