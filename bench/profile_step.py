"""Profile one step rerun of the Train page's step fragment: where its time goes, what it sends.

Two parts:

1. **The drawing helpers** (ui/train/sentence.py, merges.py, corpus_view.py, vocab_view.py, chart.py), called directly on the run of
   ``--preset`` at ``--steps`` steps, each timed (best of ``--repeats``) with the size of
   what it returns: what the fragment recomputes on every rerun.
2. **The fragment itself** in AppTest (the Train page's state, then
   ``panels._step_fragment()`` under cProfile, once per step): total time per rerun,
   the top functions by cumulative time, and the size of the elements it produced
   (the protobuf deltas a browser would receive, serialized). ``--cached`` runs the same
   with the step cache (ui/train/step_cache.py) warm, as the 2nd..30th student of a class
   finds it.

    python bench/profile_step.py --preset english --steps 1,50,150 --repeats 5
    python bench/profile_step.py --preset english --cached

Figures in bench/README.md ("Profile of a step rerun").
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _best(fn, repeats: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def helpers(preset: str, steps: list[int], repeats: int) -> None:
    from bpe_core import train
    from ui.train import chart, corpus_view, merges, run_view, sentence, vocab_view
    from ui.train.config import build_word_table, load_presets, preset_corpus, run_key

    corpus, settings = preset_corpus(preset), load_presets()[preset].settings
    words, _ = build_word_table(corpus, settings)
    view = run_view.RunView(train(words, settings.trainer_settings()), key=run_key(corpus, settings))
    view.by_count
    print(f"## Drawing helpers, preset {preset} ({view.steps} merges, {len(view.run.words)} words); "
          f"best of {repeats}, ms / kB returned\n")
    print("| helper | " + " | ".join(f"step {k}" for k in steps) + " |")
    print("|---|" + "---|" * len(steps))
    def raw(helper):  # the helper unwrapped: timed without the step cache
        return getattr(helper, "__wrapped__", helper)

    calls = {
        "explain_step": lambda k: raw(sentence.explain_step)(view, k).html,
        "tables_html (pair table + merge list)": lambda k: raw(merges.tables_html)(view, k),
        "corpus_sample": lambda k: raw(corpus_view.corpus_sample)(view, k).caption,
        "corpus_html": lambda k: raw(corpus_view.corpus_html)(view, k),
        "vocab_summary": lambda k: raw(vocab_view.vocab_summary)(view, k),
        "vocab_html": lambda k: raw(vocab_view.vocab_html)(view, k),
        "figures": lambda k: repr(vocab_view.figures(view, k)),
        "chart_html (the axes and the curve: once per run)": lambda k: raw(chart.chart_html)(view, k),
    }
    total = [0.0] * len(steps)
    for name, fn in calls.items():
        cells = []
        for i, k in enumerate(steps):
            t, out = _best(lambda: fn(k), repeats)
            total[i] += t
            cells.append(f"{1000 * t:.1f} / {len(str(out).encode()) / 1024:.1f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("| **sum** | " + " | ".join(f"**{1000 * t:.1f}**" for t in total) + " |\n")


def _fragment_app(preset: str, steps: list[int], cached: bool, profile: bool, out_path: str) -> None:
    """Runs inside AppTest (its own script thread): profile the step fragment per step."""
    import json
    import time
    from pathlib import Path

    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    from ui.shared.cache import cache_named
    from ui.train import panels, state

    ss = st.session_state
    state.init()
    ss[state.SOURCE], ss[state.PRESET] = "preset", preset
    from ui.train.config import load_presets
    state.set_settings(load_presets()[preset].settings)
    state.ensure_run()
    cache_named("train.steps").clear()  # cold: as the first student's browser session in a class finds it
    ctx = get_script_run_ctx()
    results = []
    for warm in ((True, False) if cached else (False,)):
        for k in steps:
            ss[state.STEP] = k
            prof = cProfile.Profile()
            sent: list = []
            orig = ctx._enqueue

            def grab(msg, _orig=orig, _sent=sent):
                _sent.append(len(msg.SerializeToString()))
                return _orig(msg)

            ctx._enqueue = grab
            ctx.shared.reset()  # each call stands for a new rerun (widget ids registered afresh)
            t = time.perf_counter()
            if profile:
                prof.enable()
            with st.container():
                panels._step_fragment()
            if profile:
                prof.disable()
            dt = time.perf_counter() - t
            ctx._enqueue = orig
            if warm and cached:
                continue  # the first pass fills the cache (the class's first student)
            s = io.StringIO()
            if profile:
                pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(25)
            results.append({"step": k, "ms": 1000 * dt, "msgs": len(sent), "bytes": sum(sent),
                            "profile": s.getvalue()})
    Path(out_path).write_text(json.dumps(results))


def fragment(preset: str, steps: list[int], cached: bool, show_profile: bool) -> None:
    import json
    import tempfile

    from streamlit.testing.v1 import AppTest

    out = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    at = AppTest.from_function(_fragment_app, args=(preset, steps, cached, show_profile, out), default_timeout=300)
    at.run()
    if at.exception:
        raise SystemExit(f"the fragment raised: {at.exception}")
    results = json.loads(Path(out).read_text())
    what = "step cache warm (another session drew these steps)" if cached else "no step cache / cold"
    print(f"## The step fragment in AppTest, preset {preset}, {what}\n")
    print(f"| step | ms{' (under cProfile)' if show_profile else ''} | ForwardMsgs | kB serialized |")
    print("|---|---|---|---|")
    for r in results:
        print(f"| {r['step']} | {r['ms']:.0f} | {r['msgs']} | {r['bytes'] / 1024:.1f} |")
    if show_profile and results:
        print("\n```\n" + results[-1]["profile"][:6000] + "\n```")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--preset", default="english")
    p.add_argument("--steps", default="1,2,3,50,51,150,151")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--cached", action="store_true", help="also run the fragment with the step cache warm")
    p.add_argument("--profile", action="store_true", help="print the cProfile of the last step")
    args = p.parse_args(argv)
    steps = [int(s) for s in args.steps.split(",")]
    helpers(args.preset, steps, args.repeats)
    fragment(args.preset, steps, False, args.profile)
    if args.cached:
        fragment(args.preset, steps, True, args.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
