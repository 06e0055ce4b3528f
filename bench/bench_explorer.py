"""The Vocabulary explorer's engine: index build, memory, search and filters, overviews.

    python bench/bench_explorer.py                 # every built-in tokenizer (about 2 minutes)
    python bench/bench_explorer.py --only o200k_base --odd

For each built-in tokenizer (bpe_core.pretrained.PRETRAINED): the time to read its file
(`load_pretrained`, once per process), to build its `VocabIndex` (once per process on
the server: what a first view needs) and to make the columns the filters, sorts and
overviews scan (on their first use), and what the index holds (`nbytes`, the figure the
byte-bounded cache `explorer.index` counts, and tracemalloc's peak while building it
and making its columns);
then each query the page runs, best of 3, timed round-robin against its peer: the same
question answered without an index, by asking the tokenizer for every token's bytes and
testing them (what a page would do with no index). The ratio is peer / ours.
`--odd` also times the odd-token computations (unreachable tokens, tokens never
produced on the built-in corpora), which the page runs behind a button.

Targets: on o200k_base every search and filter answers in under 0.3 s; a first load of
the page with GPT-2 (its default) builds the index in well under the app's 2 s.
"""
from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import header, interleaved, table  # noqa: E402

from bpe_core import explore  # noqa: E402
from bpe_core.explore import Query, VocabIndex  # noqa: E402
from bpe_core.pretrained import PRETRAINED, load_pretrained  # noqa: E402

QUERIES = {
    "contains ' the'": (Query(text=" the"), lambda t: " the" in t),
    "prefix 'Magik'": (Query(text="Magik", mode="prefix"), lambda t: t.startswith("Magik")),
    "pattern ^\\d{3}$": (Query(text=r"^\d{3}$", mode="pattern"), None),
    "Cyrillic, 5-8 chars": (Query(script="Cyrillic", min_chars=5, max_chars=8), None),
    "leading space, digits only": (Query(leading_space=True, digits="only"), lambda t: t[:1] == " " and t.strip().isdigit()),
    "all, longest first": (Query(sort="length", descending=True), None),
}


def naive_texts(tok, ids):
    out = []
    for i in ids:
        data = tok.token_bytes(i)
        out.append(data.decode("utf-8", errors="replace"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=list(PRETRAINED), help="tokenizer names")
    parser.add_argument("--odd", action="store_true", help="also time the odd-token computations")
    args = parser.parse_args()
    header("Vocabulary explorer: index, search, filters (bpe_core.explore)")
    build_rows, search_rows, odd_rows = [], [], []
    slowest_o200k = 0.0
    for name in args.only:
        t0 = time.perf_counter()
        tok = load_pretrained(name)
        read = time.perf_counter() - t0
        t0 = time.perf_counter()
        index = VocabIndex.build(tok, name=name)
        build = time.perf_counter() - t0
        t0 = time.perf_counter()
        index.complete()
        columns = time.perf_counter() - t0
        tracemalloc.start()  # a second build, traced (tracing slows allocation several times over)
        VocabIndex.build(tok, name=name).complete()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        t0 = time.perf_counter()
        explore.overview(index)
        ov = time.perf_counter() - t0
        build_rows.append([name, f"{len(index):,}", f"{read:.2f}", f"{build:.2f}", f"{columns:.2f}",
                           f"{index.nbytes() / 1e6:.1f}",
                           f"{peak / 1e6:.1f}", f"{ov:.2f}"])
        for label, (query, test) in QUERIES.items():
            explore.search(index, query)  # the sorted orders and the pattern haystack: made once per index
            contenders = {"ours": lambda q=query: explore.search(index, q, pattern_seconds=30)}
            if test is not None:
                contenders["peer"] = lambda test=test: [i for i, t in zip(index.ids, naive_texts(tok, index.ids))
                                                        if test(t)]
            timing = interleaved(contenders, repeat=3)
            ours = timing["ours"].best
            peer = timing["peer"].best if "peer" in timing else None
            if name == "o200k_base":
                slowest_o200k = max(slowest_o200k, ours)
            search_rows.append([name, label, f"{timing['ours'].result.total:,}", f"{ours * 1000:.0f}",
                                "" if peer is None else f"{peer * 1000:.0f}",
                                "" if peer is None else f"{peer / ours:.0f}x"])
        if args.odd:
            t0 = time.perf_counter()
            unreachable = explore.unreachable(index, tok)
            t_un = time.perf_counter() - t0
            t0 = time.perf_counter()
            never = explore.never_produced(index, tok, list(explore.corpus_texts(Path("corpora")).values()))
            t_nv = time.perf_counter() - t0
            odd_rows.append([name, f"{len(unreachable):,}", f"{t_un:.1f}", f"{len(never):,}", f"{t_nv:.1f}"])
    print("## Index (built once per process)\n")
    print(table(["tokenizer", "tokens", "file read s", "build s (first view)", "columns s (first filter)", "nbytes MB",
                 "peak MB (tracemalloc)", "overview s"], build_rows))
    print("\n## Queries (best of 3; peer: the tokenizer asked for every token, then tested)\n")
    print(table(["tokenizer", "query", "matches", "ours ms", "peer ms", "peer / ours"], search_rows))
    if odd_rows:
        print("\n## Odd tokens (behind a button on the page; kept in explorer.odd)\n")
        print(table(["tokenizer", "unreachable", "s", "never produced on corpora/", "s"], odd_rows))
    if "o200k_base" in args.only:
        verdict = "MET" if slowest_o200k < 0.3 else "NOT MET"
        print(f"\nTarget: every o200k_base search and filter under 0.3 s: slowest {slowest_o200k:.3f} s: {verdict}")
    gpt2 = next((r for r in build_rows if r[0] == "gpt2"), None)
    if gpt2:
        first = float(gpt2[2]) + float(gpt2[3])
        print(f"Target: GPT-2's file read and index (the page's first load) well under 2 s: {first:.2f} s: "
              f"{'MET' if first < 1.0 else 'NOT MET'}")


if __name__ == "__main__":
    main()
