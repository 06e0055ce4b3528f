"""Tab 2 of the Vocabulary size page: what the vocabulary costs a model (the calculator,
its presets and figures, the vocabulary's share of the model, real models' sizes) and,
folded, o200k cut to its first k ranks with what each size costs."""
from __future__ import annotations

import html

import pandas as pd
import streamlit as st

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
from ui.shared.rawhtml import html_block
from ui.shared.state import folded
from ui.vocab import keys
from ui.vocab.charts import (
    cost_share_chart,
    real_vocab_chart,
    truncation_chart,
    truncation_cost_chart,
)
from ui.vocab import static
from ui.vocab.blocks import Stat, caption_html, heading_html, stats_html
from ui.vocab.real_sizes import TRUNCATION_SIZES, cost_at_sizes, real_model_sizes, size_marks
from ui.vocab.drawing import Blocks, cached_figure
from ui.vocab.sources import (
    o200k_truncation,
)


CHART = keys.COST_PRESET.default  # "chart": the chosen vocabulary in a GPT-2-small-sized model
PRESET_WIDGET = keys.WIDGETS.key("cost_preset")  # the "Start from" radio
_CHART_DEFAULTS = {name: key.default for name, key in keys.COST.items() if name != "vocab"}
#: the calculator's inputs, in the order they are drawn and named
COST_FIELDS = ("vocab", "hidden", "total", "tied", "precision", "compare")
_FIELD_NAMES = dict(vocab="V", hidden="d", total="N", tied="embeddings", precision="precision", compare="V′")
#: the folded box that holds the calculator's inputs (drawn only while open)
CALCULATOR_LABEL = "Change the model: V, d, N, tied, precision, compare"
CALCULATOR_KEY = "vocab_w_cost_inputs"
#: the folded box of the calculator's formulas
FORMULAS_LABEL = "How each figure is computed"
FORMULAS_KEY = "vocab_w_cost_formulas"
#: the folded box of the real sizes (o200k cut to its first k ranks, and their cost)
REAL_SIZES_LABEL = "At real sizes: o200k cut to its first k tokens, and what each size costs"
REAL_SIZES_KEY = "vocab_w_real_sizes"


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
        keys.COST[name].set(value)


def _apply_preset() -> None:
    """Preset picked: copy its figures into the calculator's stores."""
    key = PRESET_WIDGET.get()
    keys.COST_PRESET.set(key)
    _set_inputs(key)


def _reset_inputs() -> None:
    """'Back to the preset's values': the stores, and the open box's widgets with them."""
    _set_inputs(keys.COST_PRESET.get())


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
    keys.COST_PRESET.widget(PRESET_WIDGET)  # the stored preset into the radio; `_apply_preset` stores a new one
    for name, key in keys.COST.items():
        if not key.is_set():
            key.set(chart_vocab if name == "vocab" else key.default)
    # A radio, not a selectbox: the page draws radios already, and a selectbox's scripts
    # (~130 kB: the combobox, its menu and filter) cost a first load more than six lines.
    preset = st.radio("Start from", list(titles), format_func=titles.get, key=PRESET_WIDGET,
                      on_change=_apply_preset)
    follow = preset == CHART
    if follow:
        keys.COST["vocab"].set(chart_vocab)
    stored = {name: keys.COST[name].get() for name in COST_FIELDS}
    changed = _changed(stored, _preset_values(preset, chart_vocab))
    box = folded(CALCULATOR_LABEL, CALCULATOR_KEY)
    if box is not None:
        with box:
            _cost_inputs(follow, chart_vocab, changed)
        stored = {name: keys.COST[name].get() for name in COST_FIELDS}
        changed = _changed(stored, _preset_values(preset, chart_vocab))

    config = ModelConfig(int(stored["vocab"]), int(stored["hidden"]), stored["tied"] == "tied", int(stored["total"]))
    precision, compare = stored["precision"], int(stored["compare"])
    cost = model_cost(config, precision)
    out = Blocks()
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
    """The six inputs, each kept in its `vocab.cost.*` store (`Key.widget`)."""
    c1, c2, c3 = st.columns(3)
    c1.number_input("Vocabulary size V", min_value=1, max_value=10_000_000, step=1_000,
                    disabled=follow, help="Follows the slider above while 'Start from' is the chosen vocabulary.",
                    **keys.COST["vocab"].widget("vocab_w_cost_vocab", chart_vocab))
    c2.number_input("Hidden size d (model width)", min_value=1, max_value=100_000, step=128,
                    **keys.COST["hidden"].widget("vocab_w_cost_hidden"))
    c3.number_input("Total parameters N", min_value=1, max_value=10**13, step=1_000_000,
                    help="All parameters, embeddings included.",
                    **keys.COST["total"].widget("vocab_w_cost_total"))
    c4, c5, c6 = st.columns(3)
    c4.radio("Input and output embeddings", ["tied", "untied"], horizontal=True,
             format_func={"tied": "tied (one matrix)", "untied": "untied (two)"}.get,
             **keys.COST["tied"].widget("vocab_w_cost_tied"))
    c5.radio("Precision", list(PRECISIONS), horizontal=True,
             help="; ".join(f"{k}: {v}" for k, v in PRECISION_NOTES.items()),
             **keys.COST["precision"].widget("vocab_w_cost_precision"))
    c6.number_input("Compare with vocabulary size V′ (0: off)", min_value=0, max_value=10_000_000,
                    step=1_000, **keys.COST["compare"].widget("vocab_w_cost_compare"))
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
    out = Blocks()
    out.add(cached_figure(f"real-sizes-head:{full}", lambda: heading_html(
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
    out.add(cached_figure(f"real-sizes-text:{shape}", lambda: _explain_real_sizes(table, cost)))
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
