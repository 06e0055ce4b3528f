"""Encoding throughput: bpe_core's Tokenizer vs tiktoken built offline from the same ranks.

    python bench/bench_encode.py           # from the repository root

Text: Python's language reference (pydoc_data.topics, ~0.47 MB). Tokenizers:

- gpt2, cl100k_base, o200k_base: ours is `Tokenizer.from_ranks(...)` with exactly the
  arguments `bpe_core.pretrained.openai_tokenizer(name)` uses; tiktoken is
  `tiktoken.Encoding(name, pat_str=f.pattern, mergeable_ranks=f.mergeable_ranks,
  special_tokens=f.special_tokens)` from `f = load_openai_encoding(name)` (no download),
  timed with `encode_ordinary`.
- trained: 5000 merges learnt by our trainer on the same text (byte units, GPT-2
  pre-tokenizer); ours is `Tokenizer.from_merges` with the arguments
  `TrainingRun.tokenizer()` uses, tiktoken is built from its ranks (token bytes -> id).

cold = a freshly constructed tokenizer (empty piece cache; a new one for every run,
construction not timed but reported); warm = a second pass with the same tokenizer.
tiktoken has no piece cache, so it has one figure. Best of 5 each, ours and tiktoken\ntimed round-robin (cold, warm, tiktoken; repeat) so that load from elsewhere on the\nmachine hits them alike. The ids must be identical.

Then `token_spans(text)` (what the tokenize page draws) on a 20 kB and a 100 kB paste
(the start of the same text), cold and warm, per tokenizer.
"""
from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import corpus, header, table  # noqa: E402

import tiktoken  # noqa: E402

from bpe_core import TrainerSettings, WordTable, train  # noqa: E402
from bpe_core.pretrained.openai_files import load_openai_encoding  # noqa: E402
from bpe_core.pretokenize import PATTERNS, compile_splitter  # noqa: E402
from bpe_core.pretrained import PRETOKENIZER_OF, openai_tokenizer  # noqa: E402
from bpe_core.encode.tokenizer import Tokenizer  # noqa: E402
from bpe_core.train.run import DEFAULT_SPECIAL  # noqa: E402

REPEAT = 5  # best of 5, ours and tiktoken timed round-robin (the machine may be shared)
TARGET = 0.3  # ours / tiktoken throughput
PASTES = (20_000, 100_000)


def openai_case(name: str):
    f = load_openai_encoding(name)

    def fresh() -> Tokenizer:
        return Tokenizer.from_ranks(
            name=name,
            mergeable_ranks=f.mergeable_ranks,
            pattern=f.pattern,
            special_tokens=f.special_tokens,
            pretokenizer=PRETOKENIZER_OF[name],
        )

    enc = tiktoken.Encoding(
        name, pat_str=f.pattern, mergeable_ranks=f.mergeable_ranks, special_tokens=f.special_tokens
    )
    return fresh, enc


def trained_case(text: str, merges: int = 5000):
    run = train(WordTable.from_text(text, "gpt2"), TrainerSettings(units="byte", merges=merges))
    size = run.vocab_size(run.steps)
    tokens = run.tokens[:size]
    specials = {DEFAULT_SPECIAL: size}
    s = run.settings

    def fresh() -> Tokenizer:
        return Tokenizer.from_merges(
            tokens=tokens,
            merges=run.merges(),
            units=s.units,
            end_of_word=s.end_of_word,
            marker=s.marker,
            pretokenizer=run.words.pretokenizer,
            special_tokens=specials,
            name="trained",
            base_size=run.base_size,
        )

    ranks = {body: i for i, (body, _eow) in enumerate(tokens)}
    enc = tiktoken.Encoding(
        f"trained-{merges}", pat_str=PATTERNS["gpt2"], mergeable_ranks=ranks, special_tokens=specials
    )
    return fresh, enc, run


def cold_warm_tiktoken(fresh, fn, ref, repeat: int = REPEAT) -> dict:
    """Round-robin, `repeat` times: build a fresh tokenizer (timed apart), a cold call,
    a warm call (same tokenizer), then the tiktoken reference `ref()`. Returns the best
    wall seconds of each (`<key>_s`), the best CPU seconds of this process (`<key>_cpu`,
    a cross-check when other programs share the cores), and the last round's results."""
    keys = ("build", "cold", "warm", "tiktoken")
    best = {k: float("inf") for k in keys}
    cpu = {k: float("inf") for k in keys}
    out: dict = {}
    for _ in range(repeat):
        gc.collect()
        stamps = [(time.perf_counter(), time.process_time())]
        tok = fresh()
        stamps.append((time.perf_counter(), time.process_time()))
        out["cold"] = fn(tok)
        stamps.append((time.perf_counter(), time.process_time()))
        out["warm"] = fn(tok)
        stamps.append((time.perf_counter(), time.process_time()))
        out["tiktoken"] = ref()
        stamps.append((time.perf_counter(), time.process_time()))
        for k, (a, b) in zip(keys, zip(stamps, stamps[1:])):
            best[k] = min(best[k], b[0] - a[0])
            cpu[k] = min(cpu[k], b[1] - a[1])
        del tok
    return {**{k + "_s": v for k, v in best.items()}, **{k + "_cpu": v for k, v in cpu.items()}, **out}


def main() -> None:
    header("Encoding throughput (bench/bench_encode.py)")
    text = corpus()
    n_bytes = len(text.encode("utf-8"))
    mb = n_bytes / 1e6
    print(f"text: pydoc_data.topics, {n_bytes:,} bytes; best of {REPEAT}; MB = 10^6 bytes of UTF-8\n")

    # Once per process, before any tokenizer is built: the `re` forms of the OpenAI
    # patterns (character classes read off `regex`, then compiled). Later builds reuse
    # them, as they reuse the compiled `regex` patterns, so "build ms" leaves this out.
    t0 = time.perf_counter()
    for pattern in (PATTERNS["gpt2"], PATTERNS["cl100k"], PATTERNS["o200k"]):
        compile_splitter(pattern)
    print(f"one-time set-up of the re splitters (classes + 3 compiles): "
          f"{(time.perf_counter() - t0) * 1000:.0f} ms, not part of any figure\n")

    cases = []
    for name in ("gpt2", "cl100k_base", "o200k_base"):
        fresh, enc = openai_case(name)
        cases.append((name, fresh, enc))
    t0 = time.perf_counter()
    fresh_t, enc_t, run = trained_case(text)
    print(f"trained tokenizer: {run.steps} merges, {run.vocab_size(run.steps)} tokens "
          f"(training took {time.perf_counter() - t0:.2f} s, not part of any figure)\n")
    cases.append(("trained (5000 merges)", fresh_t, enc_t))

    rows, checks, span_rows, cpu_rows = [], [], [], []
    ratios_cold, ratios_warm = [], []
    for name, fresh, enc in cases:
        enc.encode_ordinary(text)  # warm-up (thread-local regex set-up)
        m = cold_warm_tiktoken(fresh, lambda tok: tok.encode(text), lambda: enc.encode_ordinary(text))
        t_cold, t_warm, t_build, t_tt = m["cold_s"], m["warm_s"], m["build_s"], m["tiktoken_s"]
        ids_cold, ids_warm, ids_tt = m["cold"], m["warm"], m["tiktoken"]
        if name in ("gpt2", "cl100k_base", "o200k_base"):
            # The shared, cached tokenizer the app uses must agree too.
            ids_shared = openai_tokenizer(name).encode(text)
        else:
            ids_shared = ids_cold
        same = ids_cold == ids_tt and ids_warm == ids_tt and ids_shared == ids_tt
        checks.append([name, len(ids_tt), "yes" if same else "NO"])
        rc, rw = t_tt / t_cold, t_tt / t_warm
        ratios_cold.append(rc)
        ratios_warm.append(rw)
        cpu_rows.append([name, m["cold_cpu"] * 1000, m["warm_cpu"] * 1000, m["tiktoken_cpu"] * 1000,
                         m["tiktoken_cpu"] / m["cold_cpu"], m["tiktoken_cpu"] / m["warm_cpu"]])
        rows.append([name, t_build * 1000, t_cold * 1000, mb / t_cold, t_warm * 1000, mb / t_warm,
                     t_tt * 1000, mb / t_tt, rc, rw])

        for size in PASTES:
            paste = text.encode("utf-8")[:size].decode("utf-8", errors="ignore")
            m = cold_warm_tiktoken(fresh, lambda tok: tok.token_spans(paste),
                                   lambda: enc.encode_ordinary(paste))
            span_rows.append([name, f"{size // 1000} kB", len(m["cold"]), m["cold_s"] * 1000,
                              m["warm_s"] * 1000, m["tiktoken_s"] * 1000])
        print(f"  {name} done", file=sys.stderr, flush=True)

    print("encode(text): ms and MB/s; ratio = ours' throughput / tiktoken's\n")
    print(table(["tokenizer", "build ms", "cold ms", "cold MB/s", "warm ms", "warm MB/s",
                 "tiktoken ms", "tiktoken MB/s", "cold ratio", "warm ratio"], rows))
    print()
    print("cross-check: the same runs in CPU seconds of this process (ms)\n")
    print(table(["tokenizer", "cold CPU ms", "warm CPU ms", "tiktoken CPU ms", "cold ratio", "warm ratio"],
                cpu_rows))
    print()
    print(table(["tokenizer", "tokens", "ids identical to tiktoken?"], checks))
    print()
    print("token_spans(paste), ms (cold: fresh tokenizer; warm: second call); tiktoken's"
          " encode_ordinary of the same paste for scale\n")
    print(table(["tokenizer", "paste", "spans", "cold ms", "warm ms", "tiktoken encode ms"], span_rows))
    print()
    worst_cold, worst_warm = min(ratios_cold), min(ratios_warm)
    print(f"target: encoding at least {TARGET}x tiktoken's throughput: worst cold ratio "
          f"{worst_cold:.2f} -> {'MET' if worst_cold >= TARGET else 'NOT MET'}; worst warm ratio "
          f"{worst_warm:.2f} -> {'MET' if worst_warm >= TARGET else 'NOT MET'}")


if __name__ == "__main__":
    main()
