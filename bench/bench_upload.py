"""What a large uploaded tokenizer.json costs: file size, parse time, memory once loaded.

The Tokenize page takes tokenizer files up to 40 MB (real ones: bert-base 0.7 MB, Qwen2
7 MB, Llama-3 9 MB, Gemma 34 MB). This builds Llama-3-sized files with Hugging Face
`tokenizers` (a byte-level BPE with a 128,000-token vocabulary and about 280,000 merges,
tests/synthetic_tokenizers.py; and a 256,000-piece Unigram), then, for
each, times `load_tokenizer_bytes` (the page's loader; best of 3) against the library's
own `Tokenizer.from_str`, measures with tracemalloc what the loaded tokenizer holds
(`held`, what stays in the session) and the peak while parsing, and times the first
encode of a 10 kB text (every word new) and of the same text again.

    python bench/bench_upload.py
"""
from __future__ import annotations

import gc
import json
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from tokenizers import Tokenizer as HFTokenizer  # noqa: E402

from bpe_core.formats import load_tokenizer_bytes  # noqa: E402
from synthetic_tokenizers import synthetic_bpe_json, synthetic_unigram_json  # noqa: E402


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
