"""Large tokenizer.json files built with Hugging Face tokenizers, for the upload tests and
bench/bench_upload.py: a byte-level BPE of Llama-3's shape and a Unigram of Gemma's piece
count. Deterministic (a seeded random), a few seconds for the full sizes.
"""
from __future__ import annotations

import json
import random

from tokenizers import Tokenizer as HFTokenizer, decoders, models, pre_tokenizers

__all__ = ["synthetic_bpe_json", "synthetic_unigram_json"]


def synthetic_bpe_json(vocab_size: int = 128_000, merges_per_token: float = 2.2, seed: int = 0) -> bytes:
    """A byte-level BPE tokenizer.json of Llama-3's shape (128,000 tokens, ~280,000
    merges, ~9 MB): the 256 byte symbols; every two- and three-letter string of 27
    common symbols (a-z and Ġ, the space); then longer tokens, each an earlier token with
    one of those symbols appended. Each token's first merge is the pair it was made
    from; cutting it before its last two or three letters gives two tokens of the
    vocabulary too, and those pairs are extra, later merges, as real merge lists have. Built and saved by Hugging Face tokenizers,
    so the file is one the library writes and reads."""
    rng = random.Random(seed)
    letters = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab: dict[str, int] = {ch: i for i, ch in enumerate(letters)}
    tokens = list(letters)
    merges: list[tuple[str, str]] = []
    common = [chr(c) for c in range(0x61, 0x7B)] + ["Ġ"]

    def add(a: str, b: str) -> None:
        vocab[a + b] = len(tokens)
        tokens.append(a + b)
        merges.append((a, b))

    for x in common:
        for y in common:
            add(x, y)
    for xy in tokens[256:]:
        for z in common:
            add(xy, z)
    grown = len(tokens)
    while len(tokens) < vocab_size:
        a = tokens[rng.randrange(max(256, len(tokens) - 2000), len(tokens))] if rng.random() < 0.7 else \
            tokens[rng.randrange(256, len(tokens))]
        b = rng.choice(common)
        if len(a) < 20 and a + b not in vocab:
            add(a, b)
    seen = set(merges)
    extra = int(vocab_size * (merges_per_token - 1))
    for token in tokens[grown:]:
        for cut in (len(token) - 2, len(token) - 3):
            pair = (token[:cut], token[cut:])
            if extra > 0 and pair not in seen and pair[0] in vocab and pair[1] in vocab:
                merges.append(pair)
                seen.add(pair)
                extra -= 1
    tok = HFTokenizer(models.BPE(vocab=vocab, merges=merges))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    # Llama-3's file: indented, one merge a line as "a b" (the older form, which the
    # library still reads); byte-level tokens hold no space
    data = json.loads(tok.to_str())
    data["model"]["merges"] = [" ".join(pair) for pair in data["model"]["merges"]]
    return json.dumps(data, indent=2, ensure_ascii=False).encode("utf-8")


def synthetic_unigram_json(pieces: int = 256_000, seed: int = 0) -> bytes:
    """A Unigram tokenizer.json with `pieces` pieces (Gemma's count) and scores."""
    rng = random.Random(seed)
    chars = [chr(c) for c in range(0x61, 0x7B)] + [chr(c) for c in range(0x3041, 0x3097)]
    vocab = [("<unk>", 0.0)] + [(c, -5.0) for c in chars] + [("▁", -3.0)]
    have = {p for p, _ in vocab}
    while len(vocab) < pieces:
        piece = ("▁" if rng.random() < 0.5 else "") + "".join(rng.choice(chars[:26]) for _ in range(rng.randint(2, 9)))
        if piece not in have:
            have.add(piece)
            vocab.append((piece, -6.0 - rng.random() * 10))
    tok = HFTokenizer(models.Unigram(vocab, unk_id=0))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    return tok.to_str(pretty=True).encode("utf-8")  # as Tokenizer.save writes it
