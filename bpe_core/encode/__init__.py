"""Encoding with a trained or real BPE tokenizer: the Tokenizer API (tokenizer.py), the
one merge loop it runs and replay teaches (merge_loop.py), and its fast paths, each
checked against that loop (fast.py)."""
from .merge_loop import NO_MERGE, merge_lowest
from .tokenizer import Replay, ReplayStep, Tokenizer, TokenSpan, hex_invalid_utf8

__all__ = ["NO_MERGE", "merge_lowest", "Replay", "ReplayStep", "Tokenizer", "TokenSpan", "hex_invalid_utf8"]
