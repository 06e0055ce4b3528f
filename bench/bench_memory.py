"""What one Train-page run holds in memory, at the page's own limits (docs/performance.md, "Memory").

For the largest corpora the page accepts (a 2 MB upload; a 10,000-character text with no
pre-tokenizer, char and byte units) trained with 5,000 merges at most, it prints the
memory tracemalloc sees for the run and its RunView, `RunView.nbytes()` (what the shared
cache weighs it at), and what the tokenizers of four steps add.

    python bench/bench_memory.py
"""
from __future__ import annotations

import random
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bpe_core import train  # noqa: E402
from ui.shared.corpora import python_reference_text  # noqa: E402
from ui.train.config import Corpus, Settings, build_word_table  # noqa: E402
from ui.train.run_view import RunView  # noqa: E402


def main() -> None:
    big = (python_reference_text() * 5)[:2_000_000]
    rng = random.Random(1)
    short = "".join(rng.choice("abcdefghij ") for _ in range(10_000))
    cases = [
        ("2 MB, gpt2, byte", Corpus("text", "text", big), Settings(units="byte", pretokenizer="gpt2", merges=5000, end_of_word="none")),
        ("2 MB, whitespace, char", Corpus("text", "text", big), Settings(pretokenizer="whitespace", merges=5000)),
        ("10k, no pre-tokenizer, char", Corpus("text", "text", short), Settings(pretokenizer="none", merges=5000)),
        ("10k, no pre-tokenizer, byte", Corpus("text", "text", short), Settings(units="byte", pretokenizer="none", merges=5000, end_of_word="none")),
    ]
    print(f"{'corpus':32} {'merges':>6} {'run+view MB':>11} {'nbytes MB':>9} {'+tokenizers MB':>14}  stop")
    for name, corpus, s in cases:
        tracemalloc.start()
        words, _ = build_word_table(corpus, s)
        run = train(words, s.trainer_settings())
        view = RunView(run)
        held = tracemalloc.get_traced_memory()[0]
        for k in (run.steps, run.steps - 1, run.steps // 2, 1):
            run.segmentations(k, range(min(200, len(run.words))))
        extra = tracemalloc.get_traced_memory()[0] - held
        tracemalloc.stop()
        print(f"{name:32} {run.steps:>6} {held / 1e6:>11.1f} {view.nbytes() / 1e6:>9.1f} {extra / 1e6:>14.1f}  {run.stop_reason[:40]}")


if __name__ == "__main__":
    main()
