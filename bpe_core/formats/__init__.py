"""Tokenizer files: our own JSON format and the formats other libraries use.

Reading (each returns a tokenizer with `encode`; `load_tokenizer` picks by path):
- `saved`: the `bpe-teaching-tokenizer` JSON that `train --save` writes;
- `hf_json`: Hugging Face tokenizer.json (BPE, WordPiece and Unigram models, common normalizers and
  pre-tokenizers, added tokens), run by the staged `pipeline.PipelineTokenizer`;
- `tiktoken_ranks`: .tiktoken rank files, with a pattern chosen by name or typed;
- `gpt2_files`: GPT-2's vocab.json + merges.txt;
- `tekken`: Mistral's Tekken JSON (1,000 reserved special ids before the ranks);
- `subword_nmt`: subword-nmt codes.

Writing a trained tokenizer: `export` (hf, tiktoken, subword-nmt, gpt2), each refusing
with the reason when the format cannot hold a setting.

`checks` holds the guarded JSON loader and the typed field readers every reader uses.
"""
from .export import EXPORT_FORMATS, export_bytes, export_files, export_problem, write_export
from .gpt2_files import load_gpt2_files
from .hf_json import load_hf_json
from .load import FORMATS_READ, detect_format, load_tokenizer, load_tokenizer_bytes, token_strings
from .pipeline import PipelineTokenizer
from .saved import FORMAT, merges_text, run_to_json, tokenizer_from_json, vocab_text
from .subword_nmt import load_subword_nmt_codes
from .tekken import load_tekken
from .tiktoken_ranks import PATTERN_CHOICES, load_tiktoken_ranks

__all__ = [
    "FORMAT",
    "merges_text",
    "run_to_json",
    "tokenizer_from_json",
    "vocab_text",
    "EXPORT_FORMATS",
    "export_bytes",
    "export_files",
    "export_problem",
    "write_export",
    "FORMATS_READ",
    "detect_format",
    "load_tokenizer",
    "load_tokenizer_bytes",
    "token_strings",
    "PipelineTokenizer",
    "load_hf_json",
    "load_tiktoken_ranks",
    "PATTERN_CHOICES",
    "load_gpt2_files",
    "load_tekken",
    "load_subword_nmt_codes",
]
