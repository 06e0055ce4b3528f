"""The Vocabulary size page, section by section: controls, charts, explanations.

Each `*_section` function draws one part of the page. Numbers come from
ui.vocab.curves and ui.vocab.model_cost (pure), charts from ui.vocab.charts (pure), runs
and texts from ui.vocab.sources (cached). Widget values live under `vocab.*` store
keys and are copied into their widget keys each run (ui.shared.state.persist), so they survive
a visit to another page; buttons and the chart change state only in callbacks.

A first load draws every element and fetches a script per kind of widget, so each
section writes its figures, headings, prose, tables and pictures as one st.html
(`_Blocks`, HTML from ui.vocab.blocks and ui.vocab.static, every value escaped), draws
the calculator's inputs only while their box is open, and uses radios where a
selectbox, a select slider or a toggle would each fetch a script of their own.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from functools import lru_cache

import altair as alt
import pandas as pd
import streamlit as st

from bpe_core import TrainingRun
from ui.vocab.model_cost import (
    PRECISION_NOTES,
    PRECISIONS,
    PRESETS,
    REAL_VOCABS,
    ModelConfig,
    approx,
    approx_bytes,
    approx_flops,
    check_figure,
    exact,
    model_cost,
    vocab_change,
)
from ui.shared.cache import byte_cached
from ui.shared.markdown import md_error, md_escape
from ui.shared.rawhtml import html_block
from ui.shared.tables import TABLE_CSS
from ui.shared.state import folded, persist, session_label, session_run, session_step, stored
from ui.vocab.charts import (
    CHOSEN,
    CURVES_AXIS_ROOM,
    fast_render,
    fit_titles,
    cost_share_chart,
    set_param,
    display_height,
    curves_chart,
    language_ratio_chart,
    language_tokens_chart,
    picked_vocab,
    real_vocab_chart,
    truncation_chart,
    truncation_cost_chart,
)
from ui.vocab import static
from ui.vocab.blocks import BLOCKS_CSS, Stat, caption_html, heading_html, signed, stats_html
from ui.vocab.real_sizes import TRUNCATION_SIZES, cost_at_sizes, real_model_sizes, size_marks
from ui.vocab.curves import (
    HELD_COLUMNS,
    LANGUAGES,
    TokenCount,
    base_retirements,
    held_out_rows,
    held_out_steps,
    language_rows,
    overlapping_merges,
    step_for_vocab,
    unit_name,
    vocab_accounting,
)
from ui.vocab.sources import (
    BUILTINS,
    MERGE_CHOICES,
    builtin_run,
    counts_for,
    units_for,
    curve_for,
    held_out_texts,
    language_texts,
    o200k_truncation,
    openai_language_table,
    curve_key,
)

__all__ = [
    "RunChoice",
    "page_top",
    "text_block",
    "chart_choice",
    "choose_run",
    "choose_vocab",
    "curves_section",
    "cost_section",
    "languages_section",
    "real_sizes_section",
]

CURVES_KEY = "vocab.curves"
INTERACTIVE_STORE = "vocab.interactive"


@dataclass(frozen=True)
class RunChoice:
    """The run the page studies, with what the page needs to talk about it."""

    run: TrainingRun
    key: str       # cache key (built-in settings or a fingerprint of the session run)
    source: str    # "session", or a built-in corpus key
    label: str     # short name for legends and sentences
    units: str = ""   # a built-in run's settings (empty for the session's run)
    merges: int = 0

    @property
    def unit(self) -> str:
        return unit_name(self.run.settings.units)

    def ref(self) -> tuple[str, str, int, str, str]:
        """What names this choice without holding its run (`choice_again` finds the run),
        for the page's fragment: Streamlit keeps a fragment's arguments for the session,
        and a run kept there would outlive the byte-bounded cache that holds it."""
        return (self.source, self.units, self.merges, self.key, self.label)


def choice_again(ref: tuple[str, str, int, str, str]) -> RunChoice | None:
    """The choice `RunChoice.ref` named: the session's run, or the built-in run (from the
    cache). None if the session's run has gone. The session's run changes only on the
    Train page (`publish_run`), which this page's fragment never runs beside: a full run
    of this page, which makes a new reference, always comes first."""
    source, units, merges, key, label = ref
    run = session_run() if source == "session" else builtin_run(source, units, merges)
    return None if run is None else RunChoice(run, key, source, label, units, merges)


@byte_cached("charts")
def _spec(cache_key: str, _build, extra: int = 170) -> tuple[dict, int | None]:
    """Build a chart once per distinct input (`cache_key` names all of them) and keep
    its Vega-Lite spec: building and validating an Altair chart takes longer than
    everything else on this page, and the spec is read-only. Titles wrap to the
    chart's width in the browser (`fit_titles`)."""
    chart = _build()
    height = display_height(chart, extra) if not isinstance(chart, alt.VConcatChart) else None
    # Tests validate every chart builder against the Vega-Lite schema (chart.to_dict());
    # the page skips that second validation, which costs more than building the chart.
    return fast_render(fit_titles(chart.to_dict(validate=False))), height


def _show(cache_key: str, build, *, key: str, chosen: int | None = None, extra: int = 170, **kwargs):
    """Draw a chart from the spec cache, as wide as its column; `chosen` sets its
    `chosen` parameter.

    Single charts get their own height (Streamlit would otherwise shrink them): the
    plot's plus `extra` pixels for the title, legends and axes.
    """
    kwargs.setdefault("width", "stretch")
    spec, height = _spec(cache_key, build, extra)
    # A fresh top level each run: Streamlit moves the datasets out of the dict it gets.
    spec = set_param(spec, CHOSEN, chosen) if chosen is not None else {**spec, "datasets": dict(spec.get("datasets", {}))}
    return st.vega_lite_chart(spec=spec, key=key, height=height if height else "content", **kwargs)


@byte_cached("charts")
def _figure(cache_key: str, _build):
    """What `_build` makes (a static chart's HTML, the curve panels without the chosen size,
    an explanation), built once per distinct input: `cache_key` names all of it, and
    starts with what it is ("curves-bases:", "real-sizes-text:", ...)."""
    return _build()


@byte_cached("vocab.tables")
def _retirements(key: str, _run: TrainingRun) -> pd.DataFrame:
    """base_retirements of the run `key` names, once per run (not at every slider move)."""
    return base_retirements(_run)


@byte_cached("vocab.tables")
def _overlaps(key: str, _run: TrainingRun) -> pd.DataFrame:
    """overlapping_merges of the run `key` names, once per run."""
    return overlapping_merges(_run)


def interactive() -> bool:
    """Whether the page draws its charts with Vega-Lite (hover, click) or as pictures."""
    return bool(st.session_state.get(INTERACTIVE_STORE, False))


CHART_KINDS = {False: "pictures (quick to load)", True: "interactive"}
CHARTS_LABEL = ("Charts: pictures (numbers written on them) or interactive (exact numbers on hover, click a curve "
                "to pick a size; loads a charting library)")


def chart_choice() -> bool:
    """The switch between static pictures (the default: a first visit loads no charting
    library) and the interactive Vega-Lite charts (tooltips, click to pick a size).
    Two radio options, not a toggle: the page draws radios already, so a first load
    fetches no script for a toggle."""
    return st.radio(CHARTS_LABEL, list(CHART_KINDS), format_func=CHART_KINDS.get, horizontal=True,
                    **stored("vocab_w_interactive", INTERACTIVE_STORE, False))


class _Blocks:
    """What a section draws, collected in order: each run of HTML (figures, prose, tables,
    pictures) becomes one st.html, so the browser draws one element where it drew a
    markdown block, a caption or a metric each; in interactive mode the Vega-Lite charts
    are drawn in between, each as its own element."""

    def __init__(self) -> None:
        self._parts: list[str] = []

    def add(self, *parts: str) -> None:
        self._parts.extend(p for p in parts if p)

    def flush(self) -> None:
        """Draw what is collected (call before drawing any other element)."""
        if self._parts:
            html_block("".join(self._parts))
            self._parts = []

    def chart(self, cache_key: str, build, figure, *, key: str, chosen: int | None = None, extra: int = 170,
              **kwargs) -> None:
        """A chart as an interactive Vega-Lite chart (`build`, see `_show`) or, by default,
        as a static picture (`figure`: a function returning ui.vocab.static HTML)."""
        if interactive():
            self.flush()
            _show(cache_key, build, key=key, chosen=chosen, extra=extra, **kwargs)
        else:
            self.add(_figure(f"{cache_key}:{chosen}", figure))

    def pair(self, *charts: dict) -> None:
        """Charts side by side (stacked on a phone): pictures in one CSS grid, or
        interactive charts in st.columns. Each is a dict of `chart`'s arguments."""
        if interactive():
            self.flush()
            for column, c in zip(st.columns(len(charts)), charts):
                with column:
                    self.chart(**c)
            return
        self.add('<div class="vc-pair">', *(_figure(f"{c['cache_key']}:{c.get('chosen')}", c["figure"])
                                             for c in charts), "</div>")


def text_block(*parts: str) -> None:
    """Headings and prose (HTML built from constants and escaped values) as one st.html."""
    html_block("".join(parts))


TOOLTIP_CSS = """<style>
#vg-tooltip-element { font-size: 15px; }
#vg-tooltip-element table tr td.key { color: #333; }
.st-key-vocab-curves { padding-right: %dpx; }
/* room above each interactive chart for Streamlit's hover toolbar (table, download,
   fullscreen), which floats over the element's top edge and covered the line above */
.stElementContainer:has([data-testid="stVegaLiteChart"]) { padding-top: 2.4rem; }
</style>"""


def page_top(intro_html: str) -> None:
    """The page's CSS (chart tooltips in a projector-friendly size, Vega's default is
    11 px; pictures, tables and figures) and its introduction, as one block."""
    # Streamlit makes each curve panel's plot as wide as the chart's container; the
    # padding leaves the room its y axis takes, so the whole chart fits the page.
    html_block(TOOLTIP_CSS % CURVES_AXIS_ROOM + static.STATIC_CSS + TABLE_CSS + BLOCKS_CSS + intro_html)


# ---- which run ------------------------------------------------------------------------
def choose_run() -> RunChoice | None:
    """The source picker: the session's run from the Train page, or a built-in corpus
    trained here (cached for everyone on this server)."""
    session = session_run()
    options = (["session"] if session is not None else []) + list(BUILTINS)
    titles = {k: b.title for k, b in BUILTINS.items()}
    if session is not None:
        titles["session"] = f"Your tokenizer from the Train page: {md_escape(session_label() or 'your corpus')}"
    default = "session" if session is not None else "english"
    if st.session_state.get("vocab.source") not in options:
        st.session_state["vocab.source"] = default
    source = st.radio("Training run to study", options, format_func=titles.get,
                      **stored("vocab_w_source", "vocab.source", default))
    if source == "session":
        run = session
        st.html(caption_html(
            f"{html.escape(session_label())}: {run.steps:,} merges, vocabulary {run.vocab_size(run.steps):,} "
            f"({unit_name(run.settings.units)} as base symbols). {html.escape(run.stop_message())}"))
        return RunChoice(run, curve_key(run), "session", "Your Train-page run")

    builtin = BUILTINS[source]
    left, right = st.columns([2, 3])
    units = left.radio(
        "Base symbols", ["byte", "char"], horizontal=True,
        format_func={"byte": "UTF-8 bytes (like GPT-2)", "char": "characters"}.get,
        **stored("vocab_w_units", "vocab.units", "byte"),
    )
    # Six budgets as a radio, not a select slider: a slider measures the page (a forced
    # layout) each time it is drawn, which on a first load cost more than the radio.
    merges = right.radio(
        "Merges to learn (at most)", MERGE_CHOICES, horizontal=True, format_func=lambda n: f"{n:,}",
        **stored("vocab_w_merges", f"vocab.merges.{source}", builtin.default_merges),
    )
    try:
        run = builtin_run(source, units, merges)
    except ValueError as exc:  # only a broken corpus file would get here
        st.error(f"Could not train on the {builtin.short}: {md_error(exc)}")
        return None
    # One caption for the run and for the choice the radio does not offer yet.
    st.html(caption_html(html.escape(
        f"Trained on this page on the first {builtin.fraction:.0%} of the {builtin.short} with GPT-2's "
        f"pre-tokenizer; the rest is held out. {run.stop_message()} Runs are kept for everyone on this "
        "server, so switching back is instant."
        + ("" if session is not None else " No tokenizer trained on the Train page yet in this session; "
           "when there is one, it appears above as a choice."))))
    return RunChoice(run, curve_key(run, (source, units, merges)), source,
                     f"{builtin.short} run ({unit_name(units)})", units, merges)


# ---- which vocabulary size ------------------------------------------------------------
def _chosen_store(choice: RunChoice) -> str:
    return f"vocab.chosen.{choice.key}"


def _default_vocab(choice: RunChoice) -> int:
    run = choice.run
    if choice.source == "session" and session_step() > 0:
        return run.vocab_size(session_step())
    return run.vocab_size(run.steps // 2)


def _on_pick(store: str, low: int, high: int) -> None:
    """Chart click: the picked vocabulary size becomes the chosen one."""
    picked = picked_vocab(st.session_state.get(CURVES_KEY))
    if picked is not None:
        st.session_state[store] = min(max(picked, low), high)


def choose_vocab(choice: RunChoice) -> tuple[int, int]:
    """The vocabulary-size slider shared by every chart and the cost calculator.

    Returns (vocabulary size, the step that reaches it)."""
    run = choice.run
    low, high = run.base_size, run.vocab_size(run.steps)
    store = _chosen_store(choice)
    value = st.session_state.get(store, _default_vocab(choice))
    st.session_state[store] = min(max(int(value), low), high)
    vocab = st.slider(
        "Vocabulary size to study: drag, use the arrow keys, or (with interactive charts) click a point on a curve",
        min_value=low, max_value=high, step=1, **stored("vocab_w_chosen", store, st.session_state[store]),
    )
    return vocab, step_for_vocab(run, vocab)


# ---- the curves -------------------------------------------------------------------------
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
#: the folded box of the calculator's formulas
FORMULAS_LABEL = "How each figure is computed"
FORMULAS_KEY = "vocab_w_cost_formulas"
#: the folded box of the real sizes (o200k cut to its first k ranks, and their cost)
REAL_SIZES_LABEL = "At real sizes: o200k cut to its first k tokens, and what each size costs"
REAL_SIZES_KEY = "vocab_w_real_sizes"


def curves_section(choice: RunChoice, vocab: int, k: int) -> None:
    run, unit = choice.run, choice.unit
    curve = curve_for(choice.key, run)
    held_grid, held_k = _held_grid(choice.key, choice), _held_at(choice, k)
    retired = _retirements(choice.key, run)
    row, start = _curve_row(choice, curve, k), _curve_row(choice, curve, 0)
    out = _Blocks()
    out.add(stats_html(_curve_stats(choice, vocab, k, row, start, held_k), label=f"At vocabulary size {vocab:,}"))
    training_label = f"Training text ({choice.label})"
    out.chart(f"curves:{choice.key}", lambda: curves_chart(
        curve, held_grid, retired, chosen_vocab=vocab, unit=unit, training_label=training_label),
        lambda: static.curves_figure(
            curve, held_grid, retired, chosen=vocab, k=k, unit=unit, training_label=training_label,
            bases=_figure(f"curves-bases:{choice.key}", lambda: static.curves_bases(
                curve, held_grid, retired, unit=unit, training_label=training_label)),
            alt=_figure(f"curves-alt:{choice.key}", lambda: static.curves_alt(curve, held_grid, unit))),
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
    store, low, high = _chosen_store(choice), run.base_size, run.vocab_size(run.steps)
    return lambda: _on_pick(store, low, high)


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
CHART = "chart"
_CHART_DEFAULTS = dict(hidden=768, total=124_439_808, tied="tied", precision="bf16", compare=0)
#: the calculator's inputs, in the order they are drawn and named
COST_FIELDS = ("vocab", "hidden", "total", "tied", "precision", "compare")
_FIELD_NAMES = dict(vocab="V", hidden="d", total="N", tied="embeddings", precision="precision", compare="V′")
#: the folded box that holds the calculator's inputs (drawn only while open)
CALCULATOR_LABEL = "Change the model: V, d, N, tied, precision, compare"
CALCULATOR_KEY = "vocab_w_cost_inputs"


def _preset_values(key: str, chart_vocab: int | None) -> dict:
    """What the preset `key` sets each input to (the chart's choice: V follows the
    slider, `chart_vocab`; None leaves V out)."""
    if key == CHART:
        values = dict(_CHART_DEFAULTS)
        if chart_vocab is not None:
            values["vocab"] = chart_vocab
        return values
    p = PRESETS[key]
    return dict(vocab=p.config.vocab_size, hidden=p.config.hidden_size, total=p.config.total_params,
                tied="tied" if p.config.tied else "untied", precision=p.precision, compare=p.compare_to or 0)


def _set_inputs(key: str) -> None:
    for name, value in _preset_values(key, None).items():
        st.session_state[f"vocab.cost.{name}"] = value


def _apply_preset() -> None:
    """Preset picked: copy its figures into the calculator's stores."""
    key = st.session_state["vocab_w_cost_preset"]
    st.session_state["vocab.cost.preset"] = key
    _set_inputs(key)


def _reset_inputs() -> None:
    """'Back to the preset's values': the stores, and the open box's widgets with them."""
    _set_inputs(st.session_state["vocab.cost.preset"])


def cost_section(chart_vocab: int) -> tuple[ModelConfig, str]:
    """The calculator: V, d, tied or untied, N and precision -> the vocabulary's cost.

    "Start from" and the results are always drawn; the six inputs only while their box
    is open (a first visit then draws no number input). Their values live in the
    `vocab.cost.*` stores, so the results follow them folded or not.

    Returns the model it describes and the precision, for the real-sizes part."""
    # No number in this option: a label that changed at every slider move redrew the radio
    # (five options) each time; the caption under the radio says V.
    titles = {CHART: "The vocabulary chosen above, in a GPT-2-small-sized model"}
    titles.update({k: p.title for k, p in PRESETS.items()})
    persist("vocab_w_cost_preset", "vocab.cost.preset", CHART)
    for name, value in _CHART_DEFAULTS.items():
        st.session_state.setdefault(f"vocab.cost.{name}", value)
    st.session_state.setdefault("vocab.cost.vocab", chart_vocab)
    # A radio, not a selectbox: the page draws radios already, and a selectbox's scripts
    # (~130 kB: the combobox, its menu and filter) cost a first load more than six lines.
    preset = st.radio("Start from", list(titles), format_func=titles.get, key="vocab_w_cost_preset",
                      on_change=_apply_preset)
    follow = preset == CHART
    if follow:
        st.session_state["vocab.cost.vocab"] = chart_vocab
    stored = {name: st.session_state[f"vocab.cost.{name}"] for name in COST_FIELDS}
    changed = _changed(stored, _preset_values(preset, chart_vocab))
    box = folded(CALCULATOR_LABEL, CALCULATOR_KEY)
    if box is not None:
        with box:
            _cost_inputs(follow, chart_vocab, changed)
        stored = {name: st.session_state[f"vocab.cost.{name}"] for name in COST_FIELDS}
        changed = _changed(stored, _preset_values(preset, chart_vocab))

    config = ModelConfig(int(stored["vocab"]), int(stored["hidden"]), stored["tied"] == "tied", int(stored["total"]))
    precision, compare = stored["precision"], int(stored["compare"])
    cost = model_cost(config, precision)
    out = _Blocks()
    out.add(caption_html(html.escape(
        f"V = {config.vocab_size:,} · d = {config.hidden_size:,} · N = {config.total_params:,} "
        f"(≈ {approx(config.total_params)}) · {stored['tied']} · {precision}"
        + (f" · compared with V′ = {compare:,}" if compare else ""))))
    if changed:
        out.add(caption_html(_changed_note(changed, folded=box is None), note=True))
    out.add(stats_html(_cost_stats(cost), label="What the vocabulary costs"))
    out.flush()
    box = folded(FORMULAS_LABEL, FORMULAS_KEY)  # the formulas table: drawn only while open
    if box is not None:
        with box:
            html_block(_cost_table(cost))
    if compare:
        out.add(_comparison(config, compare, precision))
    if preset != CHART:
        out.add(_published(preset, config))
    # Plain rows: the pictures read them as they are; only an interactive chart needs a frame.
    parts = [
        dict(measure="Parameters", part="vocabulary", value=cost.embedding_params, label="embedding matrices"),
        dict(measure="Parameters", part="rest", value=max(0, config.total_params - cost.embedding_params),
             label="everything else"),
        dict(measure="FLOPs per token", part="vocabulary", value=cost.output_flops, label="output layer (2dV)"),
        dict(measure="FLOPs per token", part="rest", value=max(0, cost.forward_flops - cost.output_flops),
             label="everything else (≈ 2N − 2dV)"),
    ]
    if cost.embedding_params > config.total_params:
        out.flush()
        st.warning(f"The embeddings alone ({cost.embedding_params:,}) exceed the total N ({config.total_params:,}): "
                   "raise N, or lower V or d.")
    out.chart("cost:" + ":".join(str(p["value"]) for p in parts), lambda: cost_share_chart(pd.DataFrame(parts)),
              lambda: static.cost_share_figure(parts), key="vocab_w_cost_chart")
    yours = [dict(name="chosen above", size=chart_vocab, kind="yours")]
    if config.vocab_size != chart_vocab:
        yours.append(dict(name="calculator", size=config.vocab_size, kind="yours"))
    reals = _REAL_ROWS + yours
    out.chart("real:" + ":".join(str(y["size"]) for y in yours), lambda: real_vocab_chart(pd.DataFrame(reals)),
              lambda: static.real_vocab_figure(reals), key="vocab_w_real_chart")
    out.flush()
    return config, precision


#: the published vocabularies the real-sizes chart marks, as plain rows
_REAL_ROWS = [dict(name=r.name, size=r.size, kind="published") for r in REAL_VOCABS]


def _changed(stored: dict, preset: dict) -> list[tuple[str, object, object]]:
    """(input, the preset's value, the stored value) of every input that differs."""
    return [(name, preset[name], stored[name]) for name in COST_FIELDS if stored[name] != preset[name]]


def _shown(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def _changed_note(changed: list, *, folded: bool) -> str:
    """Says which inputs differ from the preset (HTML), so a folded box hides nothing.

    >>> _changed_note([("hidden", 768, 1024)], folded=True)
    '<strong>Changed from the preset:</strong> d 768 → 1,024. Open “Change the model” to see or undo it.'
    """
    items = ", ".join(f"{_FIELD_NAMES[name]} {_shown(before)} → {_shown(after)}" for name, before, after in changed)
    where = " Open “Change the model” to see or undo it." if folded else ""
    return f"<strong>Changed from the preset:</strong> {html.escape(items)}.{where}"


def _cost_inputs(follow: bool, chart_vocab: int, changed: list) -> None:
    """The six inputs, each kept in its `vocab.cost.*` store (ui.shared.state.persist)."""
    c1, c2, c3 = st.columns(3)
    c1.number_input("Vocabulary size V", min_value=1, max_value=10_000_000, step=1_000,
                    disabled=follow, help="Follows the slider above while 'Start from' is the chosen vocabulary.",
                    **stored("vocab_w_cost_vocab", "vocab.cost.vocab", chart_vocab))
    c2.number_input("Hidden size d (model width)", min_value=1, max_value=100_000, step=128,
                    **stored("vocab_w_cost_hidden", "vocab.cost.hidden", 768))
    c3.number_input("Total parameters N", min_value=1, max_value=10**13, step=1_000_000,
                    help="All parameters, embeddings included.",
                    **stored("vocab_w_cost_total", "vocab.cost.total", 124_439_808))
    c4, c5, c6 = st.columns(3)
    c4.radio("Input and output embeddings", ["tied", "untied"], horizontal=True,
             format_func={"tied": "tied (one matrix)", "untied": "untied (two)"}.get,
             **stored("vocab_w_cost_tied", "vocab.cost.tied", "tied"))
    c5.radio("Precision", list(PRECISIONS), horizontal=True,
             help="; ".join(f"{k}: {v}" for k, v in PRECISION_NOTES.items()),
             **stored("vocab_w_cost_precision", "vocab.cost.precision", "bf16"))
    c6.number_input("Compare with vocabulary size V′ (0: off)", min_value=0, max_value=10_000_000,
                    step=1_000, **stored("vocab_w_cost_compare", "vocab.cost.compare", 0))
    if changed:
        st.button("Back to the preset's values", key="vocab_w_cost_reset", on_click=_reset_inputs)


def _cost_stats(cost) -> list[Stat]:
    """The four headline costs (what four st.metric showed), each with its formula."""
    c = cost.config
    return [
        Stat("Embedding parameters", exact(cost.embedding_params),
             help=f"V × d = {c.vocab_size:,} × {c.hidden_size:,} per matrix, × {cost.matrices}"),
        Stat(f"Their memory at {cost.precision}", approx_bytes(cost.embedding_bytes),
             help=f"{exact(cost.embedding_bytes)} bytes"),
        Stat("Output-layer FLOPs per token", exact(cost.output_flops),
             help=f"2 × d × V ≈ {approx_flops(cost.output_flops)}"),
        Stat("Share of the forward pass", f"{float(cost.output_share):.1%}",
             help=f"2dV ÷ 2N = {cost.output_flops:,} ÷ {cost.forward_flops:,}"),
    ]


def _cost_table(cost) -> str:
    c = cost.config
    bpp = PRECISIONS[cost.precision]
    bpp_text = f"{float(bpp):g} byte{'s' if bpp != 1 else ''}"
    rows = [
        ("One embedding matrix", f"V × d = {c.vocab_size:,} × {c.hidden_size:,}", exact(cost.params_per_matrix),
         approx(cost.params_per_matrix)),
        ("Embedding parameters", f"× {cost.matrices} ({'tied: one matrix' if c.tied else 'untied: input and output'})",
         exact(cost.embedding_params), approx(cost.embedding_params)),
        (f"Memory at {cost.precision}", f"× {bpp_text} per parameter", exact(cost.embedding_bytes) + " bytes",
         approx_bytes(cost.embedding_bytes)),
        ("Output layer, per token", f"2 × d × V = 2 × {c.hidden_size:,} × {c.vocab_size:,}", exact(cost.output_flops),
         approx_flops(cost.output_flops)),
        ("Whole forward pass, per token", f"≈ 2 × N = 2 × {c.total_params:,}", exact(cost.forward_flops),
         approx_flops(cost.forward_flops)),
        ("Output layer's share", "2dV ÷ 2N", f"{float(cost.output_share):.2%}", ""),
        ("Embeddings' share of parameters", "embedding parameters ÷ N", f"{float(cost.param_share):.2%}", ""),
    ]
    # Three columns, each breakable at spaces, so the table fits a phone's width.
    return (static.table_html(("", "formula", "value"), [(a, b, f"{e} (≈ {x})" if x else e) for a, b, e, x in rows],
                              numeric=(2,), label="What the vocabulary costs")
            + caption_html("The 2N rule (Kaplan et al. 2020) counts one multiply-add per weight per token and leaves "
                           "out attention over the context, so for long contexts the output layer's true share is "
                           "smaller. The input embedding is a table lookup: it costs memory, not FLOPs."))


def _comparison(config: ModelConfig, other: int, precision: str) -> str:
    ch = vocab_change(config, other, precision)
    verb = "more" if ch.params >= 0 else "fewer"
    return (
        f"<p><strong>From V = {config.vocab_size:,} to V′ = {other:,}</strong> (d = {config.hidden_size:,}, "
        f"{'tied' if config.tied else 'untied'}): <strong>{abs(ch.params):,} {verb} parameters</strong> "
        f"(about {approx(abs(ch.params))}), {approx_bytes(abs(ch.bytes))} {'more' if ch.bytes >= 0 else 'less'} "
        f"memory at {html.escape(precision)}, {abs(ch.output_flops):,} {'more' if ch.output_flops >= 0 else 'fewer'} "
        f"output FLOPs per token.</p>"
    )


def _published(preset_key: str, config: ModelConfig) -> str:
    p = PRESETS[preset_key]
    out = []
    if config != p.config:
        out.append(caption_html(html.escape(f"You have changed the {p.title} figures; its published figures below "
                                            "apply to the preset's own values.")))
    items = []
    for fig in p.figures:
        computed, ok = check_figure(p, fig)
        items.append(f"<li>“{html.escape(fig.text)}” — computed <strong>{html.escape(computed)}</strong> "
                     f"{'✓' if ok else '✗'}</li>")
    out.append(f"<p><strong>Published figures for {html.escape(p.title)}</strong> "
               f"(source: {html.escape(p.source)}):</p><ul>{''.join(items)}</ul>")
    if p.note:
        out.append(caption_html(html.escape(p.note)))
    return "".join(out)


# ---- real sizes ---------------------------------------------------------------------------
REAL_SIZES_TITLE = "At real sizes: o200k cut to its first k tokens"


@byte_cached("vocab.tables")
def _real_sizes_data(hidden_size: int, tied: bool, total_params: int, precision: str):
    """What the real-sizes part draws for one model shape: o200k's truncation table, the
    real models' size marks, the cost at each size and the sizes (o200k's whole size last). Nothing here depends on V, so a
    slider move finds it all here."""
    table = o200k_truncation(TRUNCATION_SIZES)
    marks = pd.DataFrame([dict(size=m.size, label=m.label) for m in size_marks(real_model_sizes())])
    sizes = sorted(set(int(s) for s in table["size"]))
    cost = cost_at_sizes(sizes, hidden_size=hidden_size, tied=tied, total_params=total_params, precision=precision)
    return table, marks, cost, sizes


def real_sizes_section(config: ModelConfig, precision: str) -> None:
    """o200k cut to its first 2^8 ... 2^17 ranks: characters per token of the ten texts,
    beside what those sizes cost the calculator's model. Draws its own heading (an <h3>)."""
    table, marks, cost, sizes = _real_sizes_data(config.hidden_size, config.tied, config.total_params, precision)
    full = sizes[-1]
    model = (f"d = {config.hidden_size:,}, {'tied' if config.tied else 'untied'} embeddings "
             f"(the calculator's model)")
    # Nothing here depends on V: the slider, which moves V, leaves this section as it was
    # (same HTML, so the browser redraws nothing), drawn and explained once per model shape.
    shape = f"{config.hidden_size}:{config.tied}:{config.total_params}:{precision}"
    out = _Blocks()
    out.add(_figure(f"real-sizes-head:{full}", lambda: heading_html(
        3, REAL_SIZES_TITLE, "at-real-sizes-o200k-cut-to-its-first-k-tokens") + (
            "<p>A BPE tokenizer's ranks are ordered: each merge only joins tokens learned before it. So the first "
            "<em>k</em> ranks of a real tokenizer are themselves a tokenizer of size <em>k</em>, no retraining needed: "
            "encode with the same merge loop and treat every rank from <em>k</em> on as no merge (the 256 single "
            f"bytes, ranks 0 to 255, always stay). Here is GPT-4o's o200k_base cut to 256, 512, … 131,072 ranks and "
            f"whole ({full:,} ranks; its 200,019 counts special tokens too), on the ten-language paragraph (tab 3), and "
            "what each size costs the model in the calculator above.</p>")))
    out.pair(dict(cache_key="trunc:" + ":".join(map(str, sizes)), build=lambda: truncation_chart(table, marks),
                  figure=lambda: static.truncation_figure(table, marks), key="vocab_w_trunc_chart", extra=290),
             dict(cache_key=f"trunc-cost:{shape}",
                  build=lambda: truncation_cost_chart(cost, marks, model=model),
                  figure=lambda: static.truncation_cost_figure(cost, marks, model=model),
                  key="vocab_w_trunc_cost_chart", extra=220))
    out.add(_figure(f"real-sizes-text:{shape}", lambda: _explain_real_sizes(table, cost)))
    out.flush()
    box = folded("Exact numbers at each size", "vocab_w_trunc_table")
    if box is not None:
        wide = table.pivot(index="size", columns="language", values="tokens")
        box.dataframe(wide.join(cost.set_index("size")[["embedding_params", "output_flops"]]).reset_index(),
                      hide_index=True, width="stretch",
                      column_config={"size": st.column_config.NumberColumn("ranks kept", format="%d")})


def _explain_real_sizes(table: pd.DataFrame, cost: pd.DataFrame) -> str:
    total = table[table["code"] == "all"].set_index("size")
    costs = cost.set_index("size")
    a, b, c = 2**15, 2**16, 2**17
    gain_ab = total.loc[b, "chars_per_token"] / total.loc[a, "chars_per_token"] - 1
    gain_bc = total.loc[c, "chars_per_token"] / total.loc[b, "chars_per_token"] - 1
    return (
        f"<p>Each doubling of the vocabulary doubles the embedding parameters and the output layer's FLOPs, but "
        f"buys less text per token each time: all ten languages together go from "
        f"<strong>{total.loc[a, 'chars_per_token']:.2f}</strong> characters per token at {a:,} to "
        f"<strong>{total.loc[b, 'chars_per_token']:.2f}</strong> at {b:,} (+{gain_ab:.0%}) and "
        f"<strong>{total.loc[c, 'chars_per_token']:.2f}</strong> at {c:,} (+{gain_bc:.0%}), while the embeddings "
        f"grow from {approx(int(costs.loc[a, 'embedding_params']))} to {approx(int(costs.loc[c, 'embedding_params']))} "
        f"parameters. From {2**12:,} ranks to all of them, {html.escape(_most_gained(table, 2**12))} shrink the most: "
        "scripts that got few of the early merges. The dotted lines are real models' sizes; only o200k's own is this "
        "tokenizer: the others learned different merges, so their text would split differently.</p>"
    )


def _most_gained(table: pd.DataFrame, small: int, n: int = 3) -> str:
    """The n languages whose token count falls by the largest factor from `small` ranks to all."""
    each = table[table["code"] != "all"]
    full = each["size"].max()
    tokens = each.pivot(index="language", columns="size", values="tokens")
    factor = (tokens[small] / tokens[full]).sort_values(ascending=False).head(n)
    return ", ".join(f"{lang} (×{f:.1f} fewer tokens)" for lang, f in factor.items())


# ---- languages ----------------------------------------------------------------------------
LANGUAGES_TITLE = "3. The same text in ten languages"


def languages_section(choice: RunChoice, vocab: int, k: int) -> None:
    """Section 3, its heading (an <h2>) included."""
    texts = language_texts()
    ours = {f"{choice.label}, V = {vocab:,}": _languages_at(choice.key, choice.run, k)}
    ours_keys = [choice.key, str(k)]
    session = session_run()
    if session is not None and choice.source != "session":
        step = session_step()
        session_key = curve_key(session)
        ours[f"Train page tokenizer, V = {session.vocab_size(step):,}"] = _languages_at(session_key, session, step)
        ours_keys += [session_key, str(step)]
    # Plain rows (the OpenAI ones made once): a frame is built only for an interactive chart or the table.
    rows = _openai_rows() + language_rows(ours, texts)

    out = _Blocks()
    out.add(heading_html(2, LANGUAGES_TITLE, "3-the-same-text-in-ten-languages"),
            "<p>One short paragraph, written for this app in ten languages, tokenized by GPT-2, GPT-4's "
            "cl100k_base, GPT-4o's o200k_base and the run studied above at the chosen size.</p>")
    lang_key = f"{choice.key}:{k}:" + ":".join(ours_keys)
    tokenizers = len({r["tokenizer"] for r in rows})
    # side by side on a wide screen (stacked on a phone): the tab stays within three screens
    out.pair(dict(cache_key="lang-tokens:" + lang_key, build=lambda: language_tokens_chart(pd.DataFrame(rows)),
                  figure=lambda: static.language_tokens_figure(rows), key="vocab_w_lang_tokens",
                  extra=170 + 22 * tokenizers),
             dict(cache_key="lang-ratio:" + lang_key, build=lambda: language_ratio_chart(pd.DataFrame(rows)),
                  figure=lambda: static.language_ratio_figure(rows), key="vocab_w_lang_ratio", extra=420))
    out.add(_explain_languages(rows))
    out.flush()
    unknown = [r for r in rows if r["tokenizer"] in ours and r["unknown"] > 0]
    if unknown:
        langs = ", ".join(f"{r['language']} ({int(r['unknown']):,})" for r in unknown)
        st.info(f"Your character-level tokenizer has never seen some characters of: {langs}. Each unknown "
                "character is counted as one token (as an [UNK] token would be). Byte units avoid this: "
                "every character is made of bytes the vocabulary has.")
    box = folded("Exact numbers", "vocab_w_lang_table")
    if box is not None:
        box.dataframe(
            pd.DataFrame(rows)[["tokenizer", "language", "script", "tokens", "ratio", "chars", "bytes",
                                "bytes_per_char", "chars_per_token", "unknown"]],
            hide_index=True, width="stretch",
            column_config={
                "ratio": st.column_config.NumberColumn("× English", format="%.2f"),
                "bytes_per_char": st.column_config.NumberColumn("bytes per character", format="%.2f"),
                "chars_per_token": st.column_config.NumberColumn("characters per token", format="%.2f"),
                "unknown": st.column_config.NumberColumn("unknown characters"),
            },
        )
    box = folded("The ten texts", "vocab_w_lang_texts")
    if box is not None:
        for code, text in texts.items():
            box.markdown(f"**{LANGUAGES[code][0]}** ({LANGUAGES[code][1]})")
            box.text(text)


@lru_cache(maxsize=1)
def _openai_rows() -> list[dict]:
    """The OpenAI tokenizers' rows of the language table, as plain dicts (made once; read-only)."""
    return openai_language_table().to_dict("records")


def _languages_at(key: str, run: TrainingRun, k: int) -> dict[str, TokenCount]:
    """The ten paragraphs' counts under the first k merges of the run `key` names, read
    off their counts at every step (one pass per run and paragraph, `counts_for`)."""
    return {code: counts_for(key, f"language:{code}", run, text).at(k) for code, text in language_texts().items()}


def _explain_languages(rows: list[dict]) -> str:
    # plain rows, not a groupby: the slider redraws this at every move
    most: dict[str, tuple[float, str]] = {}  # tokenizer -> (largest ratio, its language), first-seen order
    bpc = None
    for r in rows:
        name, language, ratio = r["tokenizer"], r["language"], r["ratio"]
        if ratio == ratio and (name not in most or ratio > most[name][0]):  # NaN skipped; first of ties, as idxmax
            most[name] = (ratio, language)
        if r["code"] == "hi" and bpc is None:
            bpc = r["bytes_per_char"]
    bpc = 3.0 if bpc is None else bpc
    worst = [f"{html.escape(str(name))}: {html.escape(str(language))} needs "
             f"<strong>{ratio:.1f}×</strong> English's tokens" for name, (ratio, language) in most.items()]
    return (
        "<p>The paragraph says the same thing in every language, so a fair tokenizer would spend about the same "
        "number of tokens on each. It does not: " + "; ".join(worst) + ". "
        "A BPE tokenizer spends its merges where its training text was: a script it saw little of got few "
        "merges, so its words stay split into short pieces. At the bottom is the byte-level fallback: a character "
        "with no merges costs one token per UTF-8 byte, 1 for ASCII, 2 for Cyrillic or Arabic, 3 for Devanagari, "
        f"Chinese, Japanese or Korean (this Hindi text averages {bpc:.1f} bytes a character) and 4 for an emoji. "
        "Larger vocabularies trained on more languages (cl100k, then o200k) narrow the gap. "
        "More tokens means a shorter context window, slower generation and a higher bill for the same meaning.</p>"
    )
