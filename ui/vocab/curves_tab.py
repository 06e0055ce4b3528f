"""Tab 1 of the Vocabulary size page: sequence length against vocabulary size (the
three linked curves, the figures at the chosen size, the folded explanations)."""
from __future__ import annotations

import html

import pandas as pd

from bpe_core import TrainingRun
from ui.shared.cache import byte_cached
from ui.shared.rawhtml import html_block
from ui.shared.state import folded
from ui.vocab.charts import (
    curves_chart,
)
from ui.vocab import static
from ui.vocab.blocks import Stat, heading_html, signed, stats_html
from ui.vocab.curves import (
    HELD_COLUMNS,
    base_retirements,
    held_out_rows,
    held_out_steps,
    overlapping_merges,
    vocab_accounting,
)
from ui.vocab.choose import chosen_store, on_pick
from ui.vocab.drawing import CURVES_KEY, Blocks, RunChoice, cached_figure
from ui.vocab.sources import (
    counts_for,
    units_for,
    curve_for,
    held_out_texts,
)


@byte_cached("vocab.tables")
def _retirements(key: str, _run: TrainingRun) -> pd.DataFrame:
    """base_retirements of the run `key` names, once per run (not at every slider move)."""
    return base_retirements(_run)


@byte_cached("vocab.tables")
def _overlaps(key: str, _run: TrainingRun) -> pd.DataFrame:
    """overlapping_merges of the run `key` names, once per run."""
    return overlapping_merges(_run)


def held_steps(choice: RunChoice) -> list[int]:
    """The sizes at which held-out text is measured for the chart (not the chosen one,
    so the chart stays the same while the slider moves)."""
    return held_out_steps(choice.run)


def _held_rows(choice: RunChoice, steps: list[int]) -> list[dict]:
    """Each held-out text at `steps` (HELD_COLUMNS rows), read off its cached counts at
    every step: nothing is encoded."""
    run = choice.run
    rows = []
    for item in held_out_texts(choice.source, run):
        rows += held_out_rows(run, counts_for(choice.key, item.key, run, item.text),
                              units_for(choice.key, item.key, run, item.text), steps, item.label)
    return rows


@byte_cached("vocab.tables")
def _held_grid(key: str, _choice: RunChoice) -> pd.DataFrame:
    """Each held-out text at the chart's sizes (`held_steps`), sorted by text label and
    step (`held_out_curve`'s rows): the chart's points, once per run (`key`)."""
    rows = sorted(_held_rows(_choice, held_steps(_choice)), key=lambda r: (r["text"], r["step"]))
    return pd.DataFrame(rows, columns=HELD_COLUMNS)


def _held_at(choice: RunChoice, k: int) -> list[dict]:
    """Each held-out text at step k, one row per text, sorted by label: no frame is built
    at a slider move."""
    return sorted(_held_rows(choice, [k]), key=lambda r: r["text"])


#: the curve's columns a slider move reads (the figures and the explanation at k and at 0)
_CURVE_READ = ("corpus_length", "units_per_token")


@byte_cached("vocab.tables")
def _curve_columns(key: str, _curve: pd.DataFrame) -> dict[str, list]:
    """The curve's columns a move reads, as lists, once per run: a move reads one row,
    and a pandas row (`iloc`) costs more than the whole of what is done with it."""
    return {column: _curve[column].tolist() for column in _CURVE_READ}


def _curve_row(choice: RunChoice, curve: pd.DataFrame, k: int) -> dict:
    return {column: values[k] for column, values in _curve_columns(choice.key, curve).items()}


#: the folded box of the curves' explanations (why the corpus shortens, unseen text,
#: vocabulary size against tokens in use), drawn only while open
WHY_CURVES_LABEL = "Why the curves look like this: a shorter corpus, unseen text, tokens in use"
WHY_CURVES_KEY = "vocab_w_why_curves"


def curves_section(choice: RunChoice, vocab: int, k: int) -> None:
    run, unit = choice.run, choice.unit
    curve = curve_for(choice.key, run)
    held_grid, held_k = _held_grid(choice.key, choice), _held_at(choice, k)
    retired = _retirements(choice.key, run)
    row, start = _curve_row(choice, curve, k), _curve_row(choice, curve, 0)
    out = Blocks()
    out.add(stats_html(_curve_stats(choice, vocab, k, row, start, held_k), label=f"At vocabulary size {vocab:,}"))
    training_label = f"Training text ({choice.label})"
    out.chart(f"curves:{choice.key}", lambda: curves_chart(
        curve, held_grid, retired, chosen_vocab=vocab, unit=unit, training_label=training_label),
        lambda: static.curves_figure(
            curve, held_grid, retired, chosen=vocab, k=k, unit=unit, training_label=training_label,
            bases=cached_figure(f"curves-bases:{choice.key}", lambda: static.curves_bases(
                curve, held_grid, retired, unit=unit, training_label=training_label)),
            alt=cached_figure(f"curves-alt:{choice.key}", lambda: static.curves_alt(curve, held_grid, unit))),
        key=CURVES_KEY, chosen=vocab, on_select=_pick_callback(choice), selection_mode=["pick"])
    out.flush()
    box = folded(WHY_CURVES_LABEL, WHY_CURVES_KEY)  # the explanations: drawn only while open
    if box is not None:
        with box:
            html_block(_explain_curves(choice, vocab, k, row, held_grid, held_k, retired))
    if len(retired):
        box = folded(f"All {len(retired):,} base symbols used up in this run", "vocab_w_retired_table")
        if box is not None:
            box.dataframe(retired.rename(columns={"step": "merge", "vocab_size": "vocabulary size",
                                                 "symbol": "base symbol", "token": "token made",
                                                 "merge": "pair merged"}),
                         hide_index=True, width="stretch")


def _curve_stats(choice: RunChoice, vocab: int, k: int, row: dict, start: dict, held_k: list[dict]) -> list[Stat]:
    """The figures above the curves at the chosen size (what four st.metric showed):
    `row` and `start` are the curve at k and at 0, `held_k` the held-out texts at k."""
    run, unit = choice.run, choice.unit
    shorter = int(row["corpus_length"]) - int(start["corpus_length"])
    stats = [
        Stat("Vocabulary size", f"{vocab:,}", help=f"{run.base_size:,} base symbols + {k:,} merges"),
        Stat("Training corpus", f"{int(row['corpus_length']):,} tokens",
             delta=f"{signed(shorter)} vs no merges" if shorter else "",
             up=shorter > 0, better=shorter < 0),
        Stat(f"{unit.capitalize()} per token, training text", f"{row['units_per_token']:.2f}"),
    ]
    if held_k:
        h = held_k[0]
        gap = float(h["units_per_token"] - row["units_per_token"])
        tied = round(gap, 2) == 0
        stats.append(Stat(f"{unit.capitalize()} per token, held out", f"{h['units_per_token']:.2f}",
                          delta=f"{signed(gap, '.2f')} vs training",
                          up=None if tied else gap > 0, better=None if tied else gap > 0,
                          help=f"{h['text']}: {int(h['tokens']):,} tokens at this size"))
    return stats


def _pick_callback(choice: RunChoice):
    """on_select callback for the curves chart (Streamlit passes no arguments)."""
    run = choice.run
    store, low, high = chosen_store(choice), run.base_size, run.vocab_size(run.steps)
    return lambda: on_pick(store, low, high)


def _code(text: object) -> str:
    return f"<code>{html.escape(str(text))}</code>"


def _explain_curves(choice, vocab, k, row, held_grid, held_k, retired) -> str:
    """The two explanations beside each other (stacked on a phone), as HTML."""
    run, unit = choice.run, choice.unit
    overlaps = _overlaps(choice.key, run)
    left = [heading_html(4, "Why the corpus gets shorter")]
    text = (
        "Every merge writes one token where two stood, so it shortens the training corpus by "
        "<strong>the number of places it merges</strong>. That is usually the pair's count <em>c</em>. It is "
        "fewer when a pair overlaps itself: in <code>a a a</code> the pair (a, a) is counted twice, but only one "
        "merge fits (<code>aa a</code>). "
    )
    if len(overlaps):
        o = overlaps.iloc[0]
        text += (f"In this run {len(overlaps):,} merges overlapped; merge {int(o['step']):,} "
                 f"({_code(o['token'])}) had count {int(o['count']):,} but merged {int(o['merged']):,} places. ")
    else:
        text += "No merge in this run overlapped itself. "
    text += ("The curve comes straight from the merge events, one point per merge: nothing is "
             "retrained. Each merge saves less than the one before, so the curve flattens: "
             "doubling the vocabulary buys less and less.")
    left += [f"<p>{text}</p>", heading_html(4, "Text the run never saw")]
    if held_k:
        gaps = [f"{html.escape(str(h['text']))}: <strong>{h['units_per_token']:.2f}</strong> {unit} per token"
                for h in held_k]
        left.append(
            f"<p>At {vocab:,} tokens the training text gets <strong>{row['units_per_token']:.2f}</strong> "
            f"{unit} per token; " + "; ".join(gaps) + ". Later merges learn whole words and phrases "
            "of the training text; unseen text, above all another kind of text, reuses fewer of them.</p>"
        )
        if run.settings.end_of_word == "separate":
            left.append("<p>This run writes an end-of-word marker after every word. The marker is a "
                        "token but not text, so before any merge there are fewer characters than "
                        "tokens: characters per token starts below 1.</p>")
        unknown = max([int(h["unknown"]) for h in held_k] + [int(held_grid["unknown"].max()) if len(held_grid) else 0])
        if unknown > 0:
            left.append(f"<p>Some held-out characters are not in this character-level vocabulary "
                        f"(up to {unknown:,} in one text); each counts as one "
                        "unknown token.</p>")
    else:
        left.append("<p>No held-out text is available for this run.</p>")

    a = vocab_accounting(run, k)
    base_word = "all 256 bytes" if run.settings.units == "byte" else "each distinct character"
    rows = [
        (f"Base symbols ({base_word})", f"{a.base:,}"),
        ("+ merges learned", f"{a.merges:,}"),
        ("− merges that re-created a token already in the vocabulary", f"{a.reused:,}"),
        ("= vocabulary size", f"{a.vocab_size:,}"),
        ("− base symbols the corpus never contains", f"{a.never_used:,}"),
        ("− base symbols used up by merges", f"{a.retired_base:,}"),
        ("− merged tokens used up by longer ones", f"{a.retired_merged:,}"),
        ("= tokens the corpus uses", f"{a.in_use:,}"),
    ]
    first = retired.iloc[0] if len(retired) else None
    right = [
        heading_html(4, "Vocabulary size is not what the corpus uses"),
        static.table_html(("At this size", "tokens"), rows, strong=(3, 7), numeric=(1,),
                          label="Vocabulary size and the tokens the corpus uses"),
        "<p>A vocabulary is <em>base + merges</em> only if every merge mints a new token; a merge whose "
        "pair spells a token that already exists (<code>ab</code>+<code>c</code> and <code>a</code>+<code>bc</code> "
        "both give <code>abc</code>) adds nothing. The engine checks every merge for this. The bigger gap is "
        "between the vocabulary and the tokens in use: byte-level vocabularies keep all 256 bytes though a text "
        "uses few of them, and a base symbol whose every occurrence was merged away stays in the "
        "vocabulary (other text may need it) but is used no more"
        + (f": the first here is {_code(first.symbol)}, used up at {int(first.vocab_size):,} tokens by "
           f"{html.escape(str(first.merge))} → {_code(first.token)} (the vermilion rule in the third chart).</p>"
           if first is not None else "; none is used up in this run.</p>"),
    ]
    return (f'<div class="vc-pair vc-prose"><div>{"".join(left)}</div>'
            f'<div>{"".join(right)}</div></div>')


# ---- model cost -----------------------------------------------------------------------
