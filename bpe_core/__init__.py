"""bpe_core: a step-by-step byte-pair-encoding engine for teaching.

The pipeline, named the same way everywhere:
text -> pre-tokenize (pieces with offsets) -> word table (unique words with counts, in
order of first appearance) -> base symbols (characters or UTF-8 bytes, plus the
end-of-word convention) -> merges (trainer, one event per merge) -> tokenizer
(encode / decode / replay).

Pure Python plus `regex`: no Streamlit, no printing, deterministic.

>>> from bpe_core import WordTable, TrainerSettings, train
>>> run = train(WordTable.from_word_counts("low 5\\nlower 2\\nnewest 6\\nwidest 3"),
...             TrainerSettings(end_of_word="separate", merges=4))
>>> [ev.pair_text for ev in run.events]
[('e', 's'), ('es', 't'), ('est', '</w>'), ('l', 'o')]
"""
from .corpus import WordTable, decode_text_file, parse_word_counts
from .display import bytes_label, bytes_to_gpt2, gpt2_to_bytes, visible_whitespace
from .pretokenize import PRETOKENIZERS, Piece, pretokenize
from .encode.tokenizer import Replay, ReplayStep, Tokenizer, TokenSpan
from .tie_rules import TIE_RULES, TieRule
from .train import BPETrainer, CountChange, MergeEvent, TokenCounts, TrainerSettings, TrainingRun, token_counts, train
from .vocab import END_OF_WORD, UNITS

# Loaded on first use (PEP 562), so `import bpe_core` stays cheap for the command line.
_LAZY = {
    "dropout_encode": ".dropout", "sample_segmentations": ".dropout",
    "SentencePieceTokenizer": ".spm", "shipped_tokenizer": ".spm",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'bpe_core' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value

__all__ = [
    "WordTable",
    "decode_text_file",
    "parse_word_counts",
    "bytes_label",
    "bytes_to_gpt2",
    "gpt2_to_bytes",
    "visible_whitespace",
    "PRETOKENIZERS",
    "Piece",
    "pretokenize",
    "Replay",
    "ReplayStep",
    "Tokenizer",
    "TokenSpan",
    "TIE_RULES",
    "TieRule",
    "BPETrainer",
    "CountChange",
    "MergeEvent",
    "TrainerSettings",
    "TrainingRun",
    "train",
    "TokenCounts",
    "token_counts",
    "END_OF_WORD",
    "UNITS",
    "dropout_encode",
    "sample_segmentations",
    "SentencePieceTokenizer",
    "shipped_tokenizer",
]
