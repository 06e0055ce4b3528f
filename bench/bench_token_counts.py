"""Token counts at every step from one pass (`text_counts`) vs encoding at each step.

The Vocabulary size page's texts: the English run of 1000 byte-level merges (GPT-2
pieces, trained on the first 80% of corpora/english_sample.txt as ui/vocab/sources.py
does), its two held-out texts and the ten language paragraphs. Prints the one-pass cost
per text, and the cost of one slider move (a new k: build the tokenizer, count the twelve
texts) both ways.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bpe_core import TrainerSettings, WordTable, train  # noqa: E402
from ui.vocab.curves import count_tokens, text_counts  # noqa: E402
from ui.vocab.sources import corpus_split, held_out_texts, language_texts  # noqa: E402


def main() -> None:
    words = WordTable.from_text(corpus_split("english")[0], "gpt2")
    run = train(words, TrainerSettings(units="byte", end_of_word="none", merges=1000, top_n=0))
    texts = {h.key: h.text for h in held_out_texts("english", run)}
    texts.update(language_texts())
    print(f"run: {run.steps} merges; {len(texts)} texts, {sum(map(len, texts.values())):,} characters")

    t0 = time.perf_counter()
    run.tokenizer(run.steps, special_tokens={})  # built once per run, used by every text's pass
    print(f"the tokenizer with all merges: {(time.perf_counter() - t0) * 1e3:.1f} ms")
    print("\n| text | chars | one pass (ms) | distinct pieces | falling pieces | nbytes |")
    print("|---|---:|---:|---:|---:|---:|")
    counted = {}
    for key, text in texts.items():
        t0 = time.perf_counter()
        counted[key] = text_counts(run, text)
        ms = (time.perf_counter() - t0) * 1e3
        c = counted[key].counts
        print(f"| {key} | {len(text):,} | {ms:.1f} | {c.pieces:,} | {c.falling_pieces} | {counted[key].nbytes():,} |")

    steps = list(range(7, run.steps + 1, 97))  # distinct k, none cached yet
    t0 = time.perf_counter()
    for k in steps:
        tok = run.tokenizer(k)
        direct = {key: count_tokens(tok, text) for key, text in texts.items()}
    per_move_direct = (time.perf_counter() - t0) / len(steps) * 1e3
    t0 = time.perf_counter()
    for k in steps:
        fast = {key: c.at(k) for key, c in counted.items()}
    per_move_fast = (time.perf_counter() - t0) / len(steps) * 1e6
    assert fast == direct
    mismatches = sum(counted[key].at(k) != count_tokens(run.tokenizer(k, special_tokens={}), text)
                     for k in (0, 1, 2, 500, run.steps) for key, text in texts.items())
    print(f"\nper slider move (12 texts): tokenizer + count_tokens {per_move_direct:.1f} ms; "
          f"text_counts(...).at(k) {per_move_fast:.1f} µs; mismatches {mismatches}")


if __name__ == "__main__":
    main()
