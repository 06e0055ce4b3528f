"""Tokenizer files: our own JSON format and the formats other libraries use.

- `saved`: the `bpe-teaching-tokenizer` JSON that `train --save` writes.
- `checks`: the guarded JSON loader and typed field readers every reader uses.
"""
from .saved import FORMAT, merges_text, run_to_json, tokenizer_from_json, vocab_text

__all__ = ["FORMAT", "merges_text", "run_to_json", "tokenizer_from_json", "vocab_text"]
