"""The Vocabulary size page, section by section: controls, charts, explanations.

Each `*_section` function draws one part of the page. Numbers come from
ui.vocab.curves and ui.vocab.model_cost (pure), charts from ui.vocab.charts (pure), runs
and texts from ui.vocab.sources (cached). Widget values live under `vocab.*` store
keys and are copied into their widget keys each run (ui.shared.state.persist), so they survive
a visit to another page; buttons and the chart change state only in callbacks.
"""
from __future__ import annotations

from dataclasses import dataclass

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
from ui.shared.tables import TABLE_CSS
from ui.shared.state import persist, remember, session_label, session_run, session_step
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
from ui.vocab.real_sizes import TRUNCATION_SIZES, cost_at_sizes, real_model_sizes, size_marks
from ui.vocab.curves import (
    LANGUAGES,
    base_retirements,
    held_out_steps,
    language_table,
    overlapping_merges,
    step_for_vocab,
    unit_name,
    vocab_accounting,
)
from ui.vocab.sources import (
    BUILTINS,
    MERGE_CHOICES,
    builtin_run,
    curve_for,
    held_out_for,
    held_out_texts,
    language_texts,
    o200k_truncation,
    openai_language_table,
    curve_key,
)

__all__ = [
    "RunChoice",
    "readable_tooltips",
    "interactive_toggle",
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

    @property
    def unit(self) -> str:
        return unit_name(self.run.settings.units)


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
def _figure(cache_key: str, _build) -> str:
    """A static chart's HTML (ui.vocab.static), built once per distinct input."""
    return _build()


def interactive() -> bool:
    """Whether the page draws its charts with Vega-Lite (hover, click) or as pictures."""
    return bool(st.session_state.get(INTERACTIVE_STORE, False))


def interactive_toggle() -> bool:
    """The switch between static pictures (the default: a first visit loads no charting
    library) and the interactive Vega-Lite charts (tooltips, click to pick a size)."""
    return st.toggle(
        "Interactive charts: exact numbers on hover, click the curves to pick a size",
        help="Off, the charts are pictures with their numbers written on them or under them (quick to load). "
             "On, the page loads a charting library the first time (a few seconds).",
        **_widget("vocab_w_interactive", INTERACTIVE_STORE, False),
    )


def _draw(cache_key: str, build, figure, *, key: str, chosen: int | None = None, extra: int = 170, **kwargs):
    """The chart as an interactive Vega-Lite chart (`build`, see `_show`) or, by default,
    as a static picture (`figure`: a function returning ui.vocab.static HTML)."""
    if interactive():
        return _show(cache_key, build, key=key, chosen=chosen, extra=extra, **kwargs)
    st.html(_figure(f"{cache_key}:{chosen}", figure))
    return None


def _folded(label: str, key: str):
    """An expander whose contents are drawn only while it is open (a rerun opens it):
    the tables behind these cost the browser more to lay out than the charts above
    them, and a first visit rarely opens them. Returns the expander, or None when shut."""
    box = st.expander(label, key=key, on_change="rerun")
    return box if box.open else None


def _widget(widget_key: str, store_key: str, default) -> dict:
    """Copy the stored value into the widget key; return the callback arguments."""
    persist(widget_key, store_key, default)
    return dict(key=widget_key, on_change=remember, args=(widget_key, store_key))


TOOLTIP_CSS = """<style>
#vg-tooltip-element { font-size: 15px; }
#vg-tooltip-element table tr td.key { color: #333; }
.st-key-vocab-curves { padding-right: %dpx; }
</style>"""


def readable_tooltips() -> None:
    """Chart tooltips in a projector-friendly size (Vega's default is 11 px)."""
    # Streamlit makes each curve panel's plot as wide as the chart's container; the
    # padding leaves the room its y axis takes, so the whole chart fits the page.
    st.html(TOOLTIP_CSS % CURVES_AXIS_ROOM + static.STATIC_CSS + TABLE_CSS)


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
                      **_widget("vocab_w_source", "vocab.source", default))
    if session is None:
        st.caption("No tokenizer trained on the Train page yet in this session; when there is one, "
                   "it appears here as a choice.")
    if source == "session":
        run = session
        st.caption(f"{md_escape(session_label())}: {run.steps:,} merges, vocabulary {run.vocab_size(run.steps):,} "
                   f"({unit_name(run.settings.units)} as base symbols). {run.stop_message()}")
        return RunChoice(run, curve_key(run), "session", "Your Train-page run")

    builtin = BUILTINS[source]
    left, right = st.columns([2, 3])
    units = left.radio(
        "Base symbols", ["byte", "char"], horizontal=True,
        format_func={"byte": "UTF-8 bytes (like GPT-2)", "char": "characters"}.get,
        **_widget("vocab_w_units", "vocab.units", "byte"),
    )
    merges = right.select_slider(
        "Merges to learn (at most)", MERGE_CHOICES, format_func=lambda n: f"{n:,}",
        **_widget("vocab_w_merges", f"vocab.merges.{source}", builtin.default_merges),
    )
    try:
        run = builtin_run(source, units, merges)
    except ValueError as exc:  # only a broken corpus file would get here
        st.error(f"Could not train on the {builtin.short}: {md_error(exc)}")
        return None
    st.caption(
        f"Trained on this page on the first {builtin.fraction:.0%} of the {builtin.short} with GPT-2's "
        f"pre-tokenizer; the rest is held out. {run.stop_message()} Runs are kept for everyone on this "
        "server, so switching back is instant."
    )
    return RunChoice(run, curve_key(run, (source, units, merges)), source,
                     f"{builtin.short} run ({unit_name(units)})")


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
        min_value=low, max_value=high, step=1, **_widget("vocab_w_chosen", store, st.session_state[store]),
    )
    return vocab, step_for_vocab(run, vocab)


# ---- the curves -------------------------------------------------------------------------
def held_steps(choice: RunChoice) -> list[int]:
    """The sizes at which held-out text is measured for the chart (not the chosen one,
    so the chart stays the same while the slider moves)."""
    return held_out_steps(choice.run)


def _held_out(choice: RunChoice, k: int) -> pd.DataFrame:
    frames = []
    for item in held_out_texts(choice.source, choice.run):
        frames.append(held_out_for(choice.key, item.key, item.label, choice.run, item.text))
        frames.append(held_out_for(choice.key, item.key, item.label, choice.run, item.text, extra_step=k))
    if not frames:
        return pd.DataFrame(columns=["step", "vocab_size", "tokens", "unknown", "units_per_token", "text"])
    both = pd.concat(frames, ignore_index=True).drop_duplicates(["text", "step"])
    return both.sort_values(["text", "step"], kind="stable").reset_index(drop=True)


def curves_section(choice: RunChoice, vocab: int, k: int) -> None:
    run, unit = choice.run, choice.unit
    curve = curve_for(choice.key, run)
    held = _held_out(choice, k)
    retired = base_retirements(run)
    row = curve.iloc[k]
    start = curve.iloc[0]

    cols = st.columns(4)
    cols[0].metric("Vocabulary size", f"{vocab:,}", help=f"{run.base_size:,} base symbols + {k:,} merges")
    cols[1].metric("Training corpus", f"{int(row.corpus_length):,} tokens",
                   delta=f"{int(row.corpus_length) - int(start.corpus_length):,} vs no merges",
                   delta_color="inverse")
    cols[2].metric(f"{unit.capitalize()} per token, training text", f"{row.units_per_token:.2f}")
    first_held = held[held["step"] == k].head(1)
    if len(first_held):
        h = first_held.iloc[0]
        gap = h.units_per_token - row.units_per_token
        cols[3].metric(f"{unit.capitalize()} per token, held out", f"{h.units_per_token:.2f}",
                       delta=f"{gap:+.2f} vs training", delta_color="normal",
                       help=f"{h.text}: {int(h.tokens):,} tokens at this size")

    held_grid = held[held["step"].isin(held_steps(choice))]
    training_label = f"Training text ({choice.label})"
    _draw(f"curves:{choice.key}", lambda: curves_chart(
        curve, held_grid, retired, chosen_vocab=vocab, unit=unit, training_label=training_label),
        lambda: static.curves_figure(curve, held_grid, retired, chosen=vocab, k=k, unit=unit,
                                     training_label=training_label),
        key=CURVES_KEY, chosen=vocab, on_select=_pick_callback(choice), selection_mode=["pick"])
    _explain_curves(choice, vocab, k, curve, held, retired)


def _pick_callback(choice: RunChoice):
    """on_select callback for the curves chart (Streamlit passes no arguments)."""
    run = choice.run
    store, low, high = _chosen_store(choice), run.base_size, run.vocab_size(run.steps)
    return lambda: _on_pick(store, low, high)


def _explain_curves(choice, vocab, k, curve, held, retired) -> None:
    run, unit = choice.run, choice.unit
    overlaps = overlapping_merges(run)
    left, right = st.columns(2)
    with left:
        st.markdown("#### Why the corpus gets shorter")
        text = (
            "Every merge writes one token where two stood, so it shortens the training corpus by "
            "**the number of places it merges**. That is usually the pair's count *c*. It is fewer "
            "when a pair overlaps itself: in `a a a` the pair (a, a) is counted twice, but only one "
            "merge fits (`aa a`). "
        )
        if len(overlaps):
            o = overlaps.iloc[0]
            text += (f"In this run {len(overlaps):,} merges overlapped; merge {int(o['step']):,} "
                     f"(`{o['token']}`) had count {int(o['count']):,} but merged {int(o['merged']):,} places. ")
        else:
            text += "No merge in this run overlapped itself. "
        text += ("The curve comes straight from the merge events, one point per merge: nothing is "
                 "retrained. Each merge saves less than the one before, so the curve flattens: "
                 "doubling the vocabulary buys less and less.")
        st.markdown(text)
        st.markdown("#### Text the run never saw")
        if len(held):
            gaps = []
            for label, part in held.groupby("text", sort=False):
                at = part[part["step"] == k]
                if len(at):
                    gaps.append(f"{label}: **{at.iloc[0].units_per_token:.2f}** {unit} per token")
            st.markdown(
                f"At {vocab:,} tokens the training text gets **{curve.iloc[k].units_per_token:.2f}** "
                f"{unit} per token; " + "; ".join(gaps) + ". Later merges learn whole words and phrases "
                "of the training text; unseen text, above all another kind of text, reuses fewer of them."
            )
            if run.settings.end_of_word == "separate":
                st.markdown("This run writes an end-of-word marker after every word. The marker is a "
                            "token but not text, so before any merge there are fewer characters than "
                            "tokens: characters per token starts below 1.")
            unknown = held[held["unknown"] > 0]
            if len(unknown):
                st.markdown(f"Some held-out characters are not in this character-level vocabulary "
                            f"(up to {int(unknown['unknown'].max()):,} in one text); each counts as one "
                            "unknown token.")
        else:
            st.markdown("No held-out text is available for this run.")
    with right:
        st.markdown("#### Vocabulary size is not what the corpus uses")
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
        st.html(static.table_html(("At this size", "tokens"), rows, strong=(3, 7), numeric=(1,),
                                  label="Vocabulary size and the tokens the corpus uses"))
        first = retired.iloc[0] if len(retired) else None
        st.markdown(
            "A vocabulary is *base + merges* only if every merge mints a new token; a merge whose "
            "pair spells a token that already exists (`ab`+`c` and `a`+`bc` both give `abc`) adds "
            "nothing. The engine checks every merge for this. The bigger gap is between the vocabulary "
            "and the tokens in use: byte-level vocabularies keep all 256 bytes though a text uses few "
            "of them, and a base symbol whose every occurrence was merged away stays in the "
            "vocabulary (other text may need it) but is used no more"
            + (f": the first here is `{first.symbol}`, used up at {int(first.vocab_size):,} tokens by "
               f"{first.merge} → `{first.token}` (the vermilion rule in the third chart)." if first is not None else
               "; none is used up in this run.")
        )
    if len(retired):
        box = _folded(f"All {len(retired):,} base symbols used up in this run", "vocab_w_retired_table")
        if box is not None:
            box.dataframe(retired.rename(columns={"step": "merge", "vocab_size": "vocabulary size",
                                                 "symbol": "base symbol", "token": "token made",
                                                 "merge": "pair merged"}),
                         hide_index=True, width="stretch")


# ---- model cost -----------------------------------------------------------------------
CHART = "chart"
_CHART_DEFAULTS = dict(hidden=768, total=124_439_808, tied="tied", precision="bf16", compare=0)


def _apply_preset() -> None:
    """Preset picked: copy its figures into the calculator's stores."""
    key = st.session_state["vocab_w_cost_preset"]
    st.session_state["vocab.cost.preset"] = key
    if key == CHART:
        values = dict(_CHART_DEFAULTS)
    else:
        p = PRESETS[key]
        values = dict(vocab=p.config.vocab_size, hidden=p.config.hidden_size, total=p.config.total_params,
                      tied="tied" if p.config.tied else "untied", precision=p.precision,
                      compare=p.compare_to or 0)
    for name, value in values.items():
        st.session_state[f"vocab.cost.{name}"] = value


def cost_section(chart_vocab: int) -> tuple[ModelConfig, str]:
    """The calculator: V, d, tied or untied, N and precision -> the vocabulary's cost.

    Returns the model it describes and the precision, for the real-sizes part."""
    titles = {CHART: f"The vocabulary chosen above (V = {chart_vocab:,}) in a GPT-2-small-sized model"}
    titles.update({k: p.title for k, p in PRESETS.items()})
    persist("vocab_w_cost_preset", "vocab.cost.preset", CHART)
    for name, value in _CHART_DEFAULTS.items():
        st.session_state.setdefault(f"vocab.cost.{name}", value)
    st.session_state.setdefault("vocab.cost.vocab", chart_vocab)
    preset = st.selectbox("Start from", list(titles), format_func=titles.get, key="vocab_w_cost_preset",
                          on_change=_apply_preset)
    follow = preset == CHART
    if follow:
        st.session_state["vocab.cost.vocab"] = chart_vocab

    c1, c2, c3 = st.columns(3)
    vocab = c1.number_input("Vocabulary size V", min_value=1, max_value=10_000_000, step=1_000,
                            disabled=follow, help="Follows the slider above while 'Start from' is the chosen vocabulary.",
                            **_widget("vocab_w_cost_vocab", "vocab.cost.vocab", chart_vocab))
    hidden = c2.number_input("Hidden size d (model width)", min_value=1, max_value=100_000, step=128,
                             **_widget("vocab_w_cost_hidden", "vocab.cost.hidden", 768))
    total = c3.number_input("Total parameters N", min_value=1, max_value=10**13, step=1_000_000,
                            help="All parameters, embeddings included.",
                            **_widget("vocab_w_cost_total", "vocab.cost.total", 124_439_808))
    c4, c5, c6 = st.columns(3)
    tied = c4.radio("Input and output embeddings", ["tied", "untied"], horizontal=True,
                    format_func={"tied": "tied (one matrix)", "untied": "untied (two)"}.get,
                    **_widget("vocab_w_cost_tied", "vocab.cost.tied", "tied"))
    precision = c5.radio("Precision", list(PRECISIONS), horizontal=True,
                         help="; ".join(f"{k}: {v}" for k, v in PRECISION_NOTES.items()),
                         **_widget("vocab_w_cost_precision", "vocab.cost.precision", "bf16"))
    compare = c6.number_input("Compare with vocabulary size V′ (0: off)", min_value=0, max_value=10_000_000,
                              step=1_000, **_widget("vocab_w_cost_compare", "vocab.cost.compare", 0))

    config = ModelConfig(int(vocab), int(hidden), tied == "tied", int(total))
    st.caption(f"V = {config.vocab_size:,} · d = {config.hidden_size:,} · N = {config.total_params:,} "
               f"(≈ {approx(config.total_params)}) · {tied} · {precision}")
    cost = model_cost(config, precision)
    _cost_metrics(cost)
    _cost_table(cost)
    if compare:
        _comparison(config, int(compare), precision)
    if preset != CHART:
        _published(preset, config)
    parts = pd.DataFrame([
        dict(measure="Parameters", part="vocabulary", value=cost.embedding_params, label="embedding matrices"),
        dict(measure="Parameters", part="rest", value=max(0, config.total_params - cost.embedding_params),
             label="everything else"),
        dict(measure="FLOPs per token", part="vocabulary", value=cost.output_flops, label="output layer (2dV)"),
        dict(measure="FLOPs per token", part="rest", value=max(0, cost.forward_flops - cost.output_flops),
             label="everything else (≈ 2N − 2dV)"),
    ])
    if cost.embedding_params > config.total_params:
        st.warning(f"The embeddings alone ({cost.embedding_params:,}) exceed the total N ({config.total_params:,}): "
                   "raise N, or lower V or d.")
    _draw("cost:" + ":".join(map(str, parts["value"])), lambda: cost_share_chart(parts),
          lambda: static.cost_share_figure(parts), key="vocab_w_cost_chart")
    reals = pd.DataFrame([dict(name=r.name, size=r.size, kind="published") for r in REAL_VOCABS])
    yours = [dict(name="chosen above", size=chart_vocab, kind="yours")]
    if int(vocab) != chart_vocab:
        yours.append(dict(name="calculator", size=int(vocab), kind="yours"))
    frame = pd.concat([reals, pd.DataFrame(yours)], ignore_index=True)
    _draw("real:" + ":".join(str(y["size"]) for y in yours), lambda: real_vocab_chart(frame),
          lambda: static.real_vocab_figure(frame), key="vocab_w_real_chart")
    return config, precision


def _cost_metrics(cost) -> None:
    c = cost.config
    cols = st.columns(4)
    cols[0].metric("Embedding parameters", exact(cost.embedding_params),
                   help=f"V × d = {c.vocab_size:,} × {c.hidden_size:,} per matrix, × {cost.matrices}")
    cols[1].metric(f"Their memory at {cost.precision}", approx_bytes(cost.embedding_bytes),
                   help=f"{exact(cost.embedding_bytes)} bytes")
    cols[2].metric("Output-layer FLOPs per token", exact(cost.output_flops),
                   help=f"2 × d × V ≈ {approx_flops(cost.output_flops)}")
    cols[3].metric("Share of the forward pass", f"{float(cost.output_share):.1%}",
                   help=f"2dV ÷ 2N = {cost.output_flops:,} ÷ {cost.forward_flops:,}")


def _cost_table(cost) -> None:
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
    st.html(static.table_html(("", "formula", "value"), [(a, b, f"{e} (≈ {x})" if x else e) for a, b, e, x in rows],
                              numeric=(2,), label="What the vocabulary costs"))
    st.caption("The 2N rule (Kaplan et al. 2020) counts one multiply-add per weight per token and leaves "
               "out attention over the context, so for long contexts the output layer's true share is smaller. "
               "The input embedding is a table lookup: it costs memory, not FLOPs.")


def _comparison(config: ModelConfig, other: int, precision: str) -> None:
    ch = vocab_change(config, other, precision)
    verb = "more" if ch.params >= 0 else "fewer"
    st.markdown(
        f"**From V = {config.vocab_size:,} to V′ = {other:,}** (d = {config.hidden_size:,}, "
        f"{'tied' if config.tied else 'untied'}): **{abs(ch.params):,} {verb} parameters** "
        f"(about {approx(abs(ch.params))}), {approx_bytes(abs(ch.bytes))} {'more' if ch.bytes >= 0 else 'less'} "
        f"memory at {precision}, {abs(ch.output_flops):,} {'more' if ch.output_flops >= 0 else 'fewer'} "
        f"output FLOPs per token."
    )


def _published(preset_key: str, config: ModelConfig) -> None:
    p = PRESETS[preset_key]
    if config != p.config:
        st.caption(f"You have changed the {p.title} figures; its published figures below apply to the preset's own values.")
    lines = []
    for fig in p.figures:
        computed, ok = check_figure(p, fig)
        lines.append(f"- “{fig.text}” — computed **{computed}** {'✓' if ok else '✗'}")
    st.markdown(f"**Published figures for {p.title}** (source: {p.source}):\n" + "\n".join(lines))
    if p.note:
        st.caption(p.note)


# ---- real sizes ---------------------------------------------------------------------------
def real_sizes_section(config: ModelConfig, precision: str) -> None:
    """o200k cut to its first 2^8 ... 2^17 ranks: characters per token of the ten texts,
    beside what those sizes cost the calculator's model."""
    table = o200k_truncation(TRUNCATION_SIZES)
    sizes = sorted(set(int(s) for s in table["size"]))
    full = sizes[-1]
    marks = pd.DataFrame([dict(size=m.size, label=m.label) for m in size_marks(real_model_sizes())])
    cost = cost_at_sizes(sizes, hidden_size=config.hidden_size, tied=config.tied, total_params=config.total_params,
                         precision=precision)
    model = (f"d = {config.hidden_size:,}, {'tied' if config.tied else 'untied'} embeddings "
             f"(the calculator's model)")
    st.markdown(
        "A BPE tokenizer's ranks are ordered: each merge only joins tokens learned before it. So the first *k* "
        "ranks of a real tokenizer are themselves a tokenizer of size *k*, no retraining needed: encode with the "
        "same merge loop and treat every rank from *k* on as no merge (the 256 single bytes, ranks 0 to 255, "
        f"always stay). Here is GPT-4o's o200k_base cut to 256, 512, … 131,072 ranks and whole ({full:,} ranks; "
        "its 200,019 counts special tokens too), on the ten-language paragraph below, and what each size costs "
        "the model in the calculator above."
    )
    left, right = st.columns(2)
    with left:
        _draw("trunc:" + ":".join(map(str, sizes)), lambda: truncation_chart(table, marks),
              lambda: static.truncation_figure(table, marks), key="vocab_w_trunc_chart", extra=290)
    with right:
        _draw(f"trunc-cost:{config}:{precision}", lambda: truncation_cost_chart(cost, marks, model=model),
              lambda: static.truncation_cost_figure(cost, marks, model=model),
              key="vocab_w_trunc_cost_chart", extra=220)
    _explain_real_sizes(table, cost)


def _explain_real_sizes(table: pd.DataFrame, cost: pd.DataFrame) -> None:
    total = table[table["code"] == "all"].set_index("size")
    costs = cost.set_index("size")
    a, b, c = 2**15, 2**16, 2**17
    gain_ab = total.loc[b, "chars_per_token"] / total.loc[a, "chars_per_token"] - 1
    gain_bc = total.loc[c, "chars_per_token"] / total.loc[b, "chars_per_token"] - 1
    st.markdown(
        f"Each doubling of the vocabulary doubles the embedding parameters and the output layer's FLOPs, but "
        f"buys less text per token each time: all ten languages together go from "
        f"**{total.loc[a, 'chars_per_token']:.2f}** characters per token at {a:,} to "
        f"**{total.loc[b, 'chars_per_token']:.2f}** at {b:,} (+{gain_ab:.0%}) and "
        f"**{total.loc[c, 'chars_per_token']:.2f}** at {c:,} (+{gain_bc:.0%}), while the embeddings grow from "
        f"{approx(int(costs.loc[a, 'embedding_params']))} to {approx(int(costs.loc[c, 'embedding_params']))} "
        f"parameters. From {2**12:,} ranks to all of them, {_most_gained(table, 2**12)} shrink the most: scripts "
        "that got few of the early merges. The dotted lines are real models' sizes; only o200k's own is this tokenizer: "
        "the others learned different merges, so their text would split differently."
    )
    box = _folded("Exact numbers at each size", "vocab_w_trunc_table")
    if box is not None:
        wide = table.pivot(index="size", columns="language", values="tokens")
        box.dataframe(wide.join(costs[["embedding_params", "output_flops"]]).reset_index(), hide_index=True,
                     width="stretch",
                     column_config={"size": st.column_config.NumberColumn("ranks kept", format="%d")})


def _most_gained(table: pd.DataFrame, small: int, n: int = 3) -> str:
    """The n languages whose token count falls by the largest factor from `small` ranks to all."""
    each = table[table["code"] != "all"]
    full = each["size"].max()
    tokens = each.pivot(index="language", columns="size", values="tokens")
    factor = (tokens[small] / tokens[full]).sort_values(ascending=False).head(n)
    return ", ".join(f"{lang} (×{f:.1f} fewer tokens)" for lang, f in factor.items())


# ---- languages ----------------------------------------------------------------------------
def languages_section(choice: RunChoice, vocab: int, k: int) -> None:
    texts = language_texts()
    table = openai_language_table()
    ours = {f"{choice.label}, V = {vocab:,}": choice.run.tokenizer(k, special_tokens={})}
    ours_keys = [choice.key, str(k)]
    session = session_run()
    if session is not None and choice.source != "session":
        step = session_step()
        ours[f"Train page tokenizer, V = {session.vocab_size(step):,}"] = session.tokenizer(step, special_tokens={})
        ours_keys += [curve_key(session), str(step)]
    table = pd.concat([table, language_table(ours, texts)], ignore_index=True)

    lang_key = f"{choice.key}:{k}:" + ":".join(ours_keys)
    _draw("lang-tokens:" + lang_key, lambda: language_tokens_chart(table),
          lambda: static.language_tokens_figure(table), key="vocab_w_lang_tokens",
          extra=170 + 22 * table["tokenizer"].nunique())
    _draw("lang-ratio:" + lang_key, lambda: language_ratio_chart(table),
          lambda: static.language_ratio_figure(table), key="vocab_w_lang_ratio", extra=420)
    _explain_languages(table, list(ours))
    box = _folded("Exact numbers", "vocab_w_lang_table")
    if box is not None:
        box.dataframe(
            table[["tokenizer", "language", "script", "tokens", "ratio", "chars", "bytes", "bytes_per_char",
                   "chars_per_token", "unknown"]],
            hide_index=True, width="stretch",
            column_config={
                "ratio": st.column_config.NumberColumn("× English", format="%.2f"),
                "bytes_per_char": st.column_config.NumberColumn("bytes per character", format="%.2f"),
                "chars_per_token": st.column_config.NumberColumn("characters per token", format="%.2f"),
                "unknown": st.column_config.NumberColumn("unknown characters"),
            },
        )
    box = _folded("The ten texts", "vocab_w_lang_texts")
    if box is not None:
        for code, text in texts.items():
            box.markdown(f"**{LANGUAGES[code][0]}** ({LANGUAGES[code][1]})")
            box.text(text)


def _explain_languages(table: pd.DataFrame, ours: list[str]) -> None:
    worst = []
    for name, part in table.groupby("tokenizer", sort=False):
        row = part.loc[part["ratio"].idxmax()]
        worst.append(f"{name}: {row.language} needs **{row.ratio:.1f}×** English's tokens")
    hi = table[(table["code"] == "hi")]
    bpc = hi["bytes_per_char"].iloc[0] if len(hi) else 3.0
    st.markdown(
        "The paragraph says the same thing in every language, so a fair tokenizer would spend about the same "
        "number of tokens on each. It does not: " + "; ".join(worst) + ". "
        "A BPE tokenizer spends its merges where its training text was: a script it saw little of got few "
        "merges, so its words stay split into short pieces. At the bottom is the byte-level fallback: a character "
        "with no merges costs one token per UTF-8 byte, 1 for ASCII, 2 for Cyrillic or Arabic, 3 for Devanagari, "
        f"Chinese, Japanese or Korean (this Hindi text averages {bpc:.1f} bytes a character) and 4 for an emoji. "
        "Larger vocabularies trained on more languages (cl100k, then o200k) narrow the gap. "
        "More tokens means a shorter context window, slower generation and a higher bill for the same meaning."
    )
    unknown = table[table["tokenizer"].isin(ours) & (table["unknown"] > 0)]
    if len(unknown):
        langs = ", ".join(f"{r.language} ({int(r.unknown):,})" for r in unknown.itertuples())
        st.info(f"Your character-level tokenizer has never seen some characters of: {langs}. Each unknown "
                "character is counted as one token (as an [UNK] token would be). Byte units avoid this: "
                "every character is made of bytes the vocabulary has.")
