"""What a large uploaded tokenizer.json costs: file size, parse time, memory once loaded.

The Tokenize page takes tokenizer files up to 40 MB (real ones: bert-base 0.7 MB, Qwen2
7 MB, Llama-3 9 MB, Gemma 34 MB). This builds Llama-3-sized files with Hugging Face
`tokenizers` (a byte-level BPE with a 128,000-token vocabulary and about 280,000 merges,
`synthetic_bpe_json`; and a 256,000-piece Unigram, `synthetic_unigram_json`), then, for
each, times `load_tokenizer_bytes` (the page's loader; best of 3) against the library's
own `Tokenizer.from_str`, measures with tracemalloc what the loaded tokenizer holds
(`held`, what stays in the session) and the peak while parsing, and times the first
encode of a 10 kB text (every word new) and of the same text again.

    python bench/bench_upload.py
"""
from __future__ import annotations

import gc
import json
import random
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tokenizers import Tokenizer as HFTokenizer, decoders, models, pre_tokenizers  # noqa: E402

from bpe_core.formats import load_tokenizer_bytes  # noqa: E402


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


def _best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(name: str, data: bytes) -> dict:
    text = (Path(__file__).resolve().parent.parent / "corpora" / "english_sample.txt").read_text(encoding="utf-8")[:10_000]
    parse = _best(lambda: load_tokenizer_bytes("tokenizer.json", data))
    theirs = _best(lambda: HFTokenizer.from_str(data.decode("utf-8")))
    gc.collect()
    tracemalloc.start()
    tok = load_tokenizer_bytes("tokenizer.json", data)
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    start = time.perf_counter()
    tok.token_spans(text)
    first = time.perf_counter() - start
    start = time.perf_counter()
    tok.token_spans(text)
    again = time.perf_counter() - start
    return {"file": name, "MB": len(data) / 1e6, "vocab": tok.vocab_size, "parse s": parse, "HF from_str s": theirs,
            "held MB": held / 1e6, "peak MB": peak / 1e6, "10 kB first s": first, "10 kB again s": again}


def main() -> None:
    import os
    import platform

    print(f"# bench_upload.py, {time.strftime('%Y-%m-%d %H:%M')}, {platform.machine()}, "
          f"load {os.getloadavg()[0]:.1f}\n")
    rows = []
    bpe = synthetic_bpe_json()
    merges = len(json.loads(bpe)["model"]["merges"])
    print(f"synthetic BPE: {len(bpe) / 1e6:.1f} MB, 128,000 tokens, {merges:,} merges")
    rows.append(measure("BPE 128k (Llama-3 size)", bpe))
    unigram = synthetic_unigram_json()
    print(f"synthetic Unigram: {len(unigram) / 1e6:.1f} MB, 256,000 pieces")
    rows.append(measure("Unigram 256k", unigram))
    head = list(rows[0])
    print("\n| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(f"{v:,.2f}" if isinstance(v, float) else f"{v:,}" if isinstance(v, int) else str(v)
                                for v in r.values()) + " |")


if __name__ == "__main__":
    main()
