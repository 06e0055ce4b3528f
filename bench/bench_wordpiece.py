"""WordPiece training: how long one step takes, what re-scoring costs, and peers.

    python bench/bench_wordpiece.py            # from the repository root (~1 min)

1. Step latency. `WordPieceTrainer(...)` on Python's language reference
   (pydoc_data.topics, ~0.47 MB), default settings (first-seen ties, top_n=20), 5000
   merges, each `next(iter_merges())` timed (wall, wall without the collector's pauses,
   CPU), for the `bert` pre-tokenizer (punctuation split off, as BERT) and for
   `whitespace`.
2. What re-scoring costs. A merge of (a, b) changes the counts of a, b and ab, so every
   pair containing one of them is re-scored, not only the pairs whose own count changed
   (which is all a count-based BPE revisits). Per merge: pairs re-scored, pairs whose
   count changed, words rewritten, and the share of the step spent in the update and
   re-scoring (`_apply_counts`).
3. Incremental vs a full recount: the course's algorithm (recount every pair and token
   of every word, then take the best score) per step, on the first 100 steps, against
   ours on the same steps; both must choose the same merges.
4. Whole training side by side with Hugging Face's `WordPieceTrainer` (one thread, the
   same final vocabulary size, `BertPreTokenizer`, `min_frequency=0`, BERT's special
   tokens). It is NOT the same algorithm: Hugging Face's WordPieceTrainer trains BPE
   (merges by raw pair count) and writes the result with `##` continuations; the
   script prints how much of the two vocabularies overlap.
"""
from __future__ import annotations

import os

os.environ["RAYON_NUM_THREADS"] = "1"  # must precede the import of tokenizers

import gc  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from fractions import Fraction  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import corpus, header, interleaved, percentile, table  # noqa: E402

from bpe_core.algorithms.wordpiece import (  # noqa: E402
    BERT_SPECIAL_TOKENS,
    WordPieceSettings,
    WordPieceTrainer,
    train_wordpiece,
    wordpiece_word_table,
)

TARGET_P99_MS = 20.0
MERGES = 5000


class GCTimer:
    """Time spent in the garbage collector, via gc.callbacks."""

    def __init__(self) -> None:
        self.total = 0.0
        self._t0 = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._t0 = time.perf_counter()
        else:
            self.total += time.perf_counter() - self._t0

    def __enter__(self) -> "GCTimer":
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc) -> None:
        gc.callbacks.remove(self)


def time_steps(trainer: WordPieceTrainer, n: int):
    """Per step: wall s, GC s inside it, CPU s, s inside `_apply_counts`; the events."""
    update_time = [0.0]
    apply_counts = trainer._apply_counts

    def timed(*args):
        t0 = time.perf_counter()
        out = apply_counts(*args)
        update_time[0] += time.perf_counter() - t0
        return out

    trainer._apply_counts = timed  # an instance attribute: this trainer only
    it = trainer.iter_merges()
    walls, gcs, cpus, updates, events = [], [], [], [], []
    with GCTimer() as g:
        for _ in range(n):
            g0, u0 = g.total, update_time[0]
            c0, t0 = time.process_time(), time.perf_counter()
            try:
                ev = next(it)
            except StopIteration:
                break
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
            gcs.append(g.total - g0)
            updates.append(update_time[0] - u0)
            events.append(ev)
    return walls, gcs, cpus, updates, events


def latency_row(name: str, walls, gcs, cpus) -> list[object]:
    ms = sorted(w * 1000 for w in walls)
    no_gc = sorted((w - g) * 1000 for w, g in zip(walls, gcs))
    cpu = sorted(c * 1000 for c in cpus)
    return [name, len(ms), statistics.median(ms), percentile(ms, 90), percentile(ms, 99), ms[-1],
            sum(ms) / 1000, percentile(no_gc, 99), percentile(cpu, 99), sum(x > TARGET_P99_MS for x in ms)]


def cost_row(name: str, walls, updates, events) -> list[object]:
    res = sorted(ev.rescored_pairs for ev in events)
    own = sorted(ev.count_changed_pairs for ev in events)
    wc = sorted(len(ev.changed_words) for ev in events)
    return [name, statistics.mean(res), statistics.median(res), percentile(res, 90), res[-1],
            statistics.mean(own), statistics.mean(res) / max(statistics.mean(own), 1e-9),
            statistics.mean(wc), wc[-1], 100 * sum(updates) / sum(walls),
            100 * sum(ev.bpe_agrees for ev in events) / len(events)]


# ---- 3. the course's algorithm, recounting everything at every step ---------------------
def naive_steps(words, n: int) -> tuple[list[tuple[str, str]], list[float]]:
    """The course's loop (full recount per step), timed per step."""
    splits = [[ch if i == 0 else "##" + ch for i, ch in enumerate(w)] for w in words.words]
    chosen, times = [], []
    for _ in range(n):
        t0 = time.perf_counter()
        tokens: dict[str, int] = {}
        pairs: dict[tuple[str, str], int] = {}
        for split, c in zip(splits, words.counts):
            for i, tok in enumerate(split):
                tokens[tok] = tokens.get(tok, 0) + c
                if i + 1 < len(split):
                    pairs[(tok, split[i + 1])] = pairs.get((tok, split[i + 1]), 0) + c
        best, top = None, None
        for p, k in pairs.items():
            score = Fraction(k, tokens[p[0]] * tokens[p[1]])
            if top is None or score > top:
                best, top = p, score
        new = best[0] + best[1][2:]
        for w, split in enumerate(splits):
            if len(split) < 2:
                continue
            out, i = [], 0
            while i < len(split):
                if i + 1 < len(split) and split[i] == best[0] and split[i + 1] == best[1]:
                    out.append(new)
                    i += 2
                else:
                    out.append(split[i])
                    i += 1
            splits[w] = out
        times.append(time.perf_counter() - t0)
        chosen.append(best)
    return chosen, times


# ---- 4. Hugging Face's WordPieceTrainer ------------------------------------------------
def hf_wordpiece(text: str, vocab_size: int):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size, min_frequency=0, special_tokens=list(BERT_SPECIAL_TOKENS),
        continuing_subword_prefix="##", show_progress=False,
    )
    tok.train_from_iterator([text], trainer)
    return tok.get_vocab()


def ours_whole(text: str, merges: int):
    words = wordpiece_word_table(text, "bert")
    return train_wordpiece(words, WordPieceSettings(merges=merges))


def main() -> None:
    header("WordPiece training (bench/bench_wordpiece.py)")
    text = corpus()
    lat_rows, cost_rows, slow = [], [], []
    for pre in ("bert", "whitespace"):
        t0 = time.perf_counter()
        words = wordpiece_word_table(text, pre)
        t1 = time.perf_counter()
        gc.collect()
        trainer = WordPieceTrainer(words, WordPieceSettings(merges=MERGES))
        t2 = time.perf_counter()
        walls, gcs, cpus, updates, events = time_steps(trainer, MERGES)
        name = f"{pre}: {len(words):,} words, {len(events)} merges"
        print(f"{pre}: word table {1000 * (t1 - t0):.0f} ms, trainer construction {1000 * (t2 - t1):.0f} ms, "
              f"{len(trainer.tokens):,} tokens at the end; stop: {trainer.stop_reason}")
        lat_rows.append(latency_row(name, walls, gcs, cpus))
        cost_rows.append(cost_row(name, walls, updates, events))
        order = sorted(range(len(walls)), key=lambda i: walls[i], reverse=True)[:4]
        slow += [[pre, events[i].step, " + ".join(events[i].pair_text), events[i].tie_count,
                  events[i].rescored_pairs, len(events[i].changed_words), walls[i] * 1000, gcs[i] * 1000,
                  cpus[i] * 1000] for i in order]
        del trainer, events

    print()
    print("Per-step time of next(iter_merges()), milliseconds (GC on, as in the app):\n")
    print(table(["case", "steps", "median", "p90", "p99", "max", "sum s", "p99 w/o GC", "p99 CPU",
                 f"steps > {TARGET_P99_MS:g} ms"], lat_rows))
    print()
    print("Slowest steps:\n")
    print(table(["case", "step", "pair", "ties", "re-scored", "words changed", "ms", "GC ms", "CPU ms"], slow))
    print()
    print("What a merge re-scores (per merge; 'own count' = pairs whose count changed, all BPE revisits):\n")
    print(table(["case", "re-scored mean", "median", "p90", "max", "own count mean", "re-scored / own",
                 "words changed mean", "max", "% of step time updating", "% steps BPE agrees"], cost_rows))

    # 3. a full recount per step
    words = wordpiece_word_table(text, "bert")
    n = 100
    chosen, naive_t = naive_steps(words, n)
    trainer = WordPieceTrainer(words, WordPieceSettings(merges=n))
    walls, _, _, _, events = time_steps(trainer, n)
    assert [ev.pair_text for ev in events] == chosen, "the course's algorithm chose other merges"
    print()
    print(f"Full recount (the course's loop) vs incremental, first {n} steps, bert words, ms per step:\n")
    rows = [["course loop (full recount)", statistics.median(naive_t) * 1000, max(naive_t) * 1000, sum(naive_t)],
            ["ours (incremental)", statistics.median(walls) * 1000, max(walls) * 1000, sum(walls)]]
    print(table(["trainer", "median ms", "max ms", "sum s"], rows))
    print(f"\nsame {n} merges: yes; full recount / incremental (sum): {sum(naive_t) / sum(walls):.0f}x")

    # 4. whole training vs HF's WordPieceTrainer (which is BPE underneath)
    print()
    for merges in (1000, 3000):
        size = ours_whole(text, merges).vocab_size(merges)
        res = interleaved({"ours": lambda m=merges: ours_whole(text, m),
                           "HF WordPieceTrainer": lambda s=size: hf_wordpiece(text, s)}, repeat=3)
        ours_vocab = set(res["ours"].result.vocab())
        hf_vocab = set(res["HF WordPieceTrainer"].result)
        both = len(ours_vocab & hf_vocab)
        print(f"{merges} merges (vocabulary {size:,}; HF's {len(hf_vocab):,}): ours {res['ours'].best:.3f} s "
              f"(CPU {res['ours'].cpu:.3f}), HF {res['HF WordPieceTrainer'].best:.3f} s "
              f"(CPU {res['HF WordPieceTrainer'].cpu:.3f}); ours / HF {res['ours'].best / res['HF WordPieceTrainer'].best:.1f}x; "
              f"shared tokens {both:,} of {size:,} ({100 * both / size:.0f}%) - different algorithms")

    worst = max(r[4] for r in lat_rows)
    print()
    print(f"target: p99 of one step under {TARGET_P99_MS:g} ms: worst p99 = {worst:.2f} ms -> "
          f"{'MET' if worst < TARGET_P99_MS else 'NOT MET'} ({', '.join(f'{r[0]}: {r[4]:.2f}' for r in lat_rows)})")


if __name__ == "__main__":
    main()
