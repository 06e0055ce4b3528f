"""One definition per chart of the Vocabulary size page, drawn two ways.

Every chart of the page exists as an interactive Vega-Lite chart (ui.vocab.charts: hover,
tooltips, click to pick a size) and as a static picture (ui.vocab.static: an SVG image,
the page's default, with the numbers written on it). Both are made from one `Chart`
built here by a function per chart: its titles, its axes (field, title, scale, tick
labels), its series (label, colour and the cue that is not colour: a dash pattern, a point
shape, a line width), the data it reads and the chosen-size marker. A drawing decides only
what its medium needs: the layout of labels, ticks, tooltips (interactive) or numbers
written on the chart (static). Change a title, a colour or a series here and both change;
tests/test_vocab_chart_spec.py checks that each drawing shows what its spec says.

What it leaves out: drawing. Pure (no Streamlit, no Altair); cheap to build, since the
charts redrawn at a slider move build their spec at each move.

>>> spec = cost_share([dict(measure="Parameters", part="vocabulary", value=1, label="a"),
...                    dict(measure="Parameters", part="rest", value=3, label="b")])
>>> spec.panels[0].title, [s.label for s in spec.panels[0].series]
("The vocabulary's share of the model", ['the vocabulary: embeddings, output layer', 'the rest of the model'])
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ui.shared.svg import fmt_k, fmt_si

__all__ = [
    "BLUE", "ORANGE", "GREEN", "VERMILLION", "PURPLE", "SKY", "GREY", "SERIES_COLORS", "SERIES_DASHES", "TABLEAU10",
    "Series", "Axis", "Gradient", "Panel", "Marker", "Chart",
    "curves", "real_vocab", "language_tokens", "language_ratio", "cost_share", "truncation", "truncation_cost",
    "first_used_up_label",
]

# Okabe-Ito (colour-blind safe); series also differ by dash pattern or point shape.
BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY = (
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9",
)
GREY = "#999999"
SERIES_COLORS = (BLUE, VERMILLION, GREEN, PURPLE, ORANGE, SKY)
#: the dash pattern of the i-th series of a line chart (() is a solid line)
SERIES_DASHES: tuple[tuple[int, ...], ...] = ((), (8, 4), (3, 3), (10, 3, 2, 3))
#: Vega's tableau10 scheme, for the ten languages
TABLEAU10 = ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#ff9da6", "#9d755d",
             "#bab0ac")
#: what the truncation charts' x axis says
_SIZE_AXIS_TITLE = ("Vocabulary size: o200k's first k ranks", "(logarithmic scale)")


@dataclass(frozen=True)
class Series:
    """One thing a chart draws: its label, its colour and its non-colour cue.

    `key` is the value (or column) of the data it stands for; `mark` how it is drawn
    (line, point, bar, rule); `legend` False for what the chart labels in place.

    >>> Series("held out", BLUE, dash=(8, 4)).svg_dash, Series("x", BLUE).vega_dash
    ('8 4', [1, 0])
    """

    label: str
    color: str
    key: str = ""
    mark: str = "line"
    dash: tuple[int, ...] = ()
    shape: str = "circle"
    width: float = 3
    legend: bool = True

    @property
    def svg_dash(self) -> str | None:
        return " ".join(map(str, self.dash)) or None

    @property
    def vega_dash(self) -> list[int]:
        return list(self.dash) or [1, 0]


@dataclass(frozen=True)
class Axis:
    """An axis: the field it reads, its title (lines), its scale (`linear`, `log`, `log2`,
    `symlog`), the domain when fixed, the tick values when fixed, and how a tick is
    written: a format (",d", ",.1f", ".1f", "%", the same in Python and d3), "k" (1K,
    2K: powers of two) or "si" (1.5M, 2.5B)."""

    field: str
    title: str | tuple[str, ...] | None
    scale: str = "linear"
    format: str = ",d"
    domain: tuple[float, float] | None = None
    values: tuple[float, ...] = ()

    def label(self, value: float) -> str:
        """A tick's label as both drawings write it.

        >>> Axis("x", None, format="k").label(2048), Axis("x", None, format=",.1f").label(1.25)
        ('2K', '1.2')
        """
        if self.format == "k":
            return fmt_k(value)
        if self.format == "si":
            return fmt_si(value)
        if self.format == "%":
            return f"{value:.0%}"
        return format(int(value) if self.format.endswith("d") else value, self.format)


@dataclass(frozen=True)
class Gradient:
    """A colour scale for a continuous value (the heat map): its title, Vega's scheme
    and the same scheme's stops (for the picture), and where it starts."""

    title: str
    scheme: str
    stops: tuple[str, ...]
    low: float


@dataclass(frozen=True)
class Panel:
    """One plot: title, subtitle, axes and series. `hints` says how a reader gets the exact
    numbers in each drawing (interactive: a tooltip; static: written on the chart), added
    to the subtitle."""

    title: str
    subtitle: str = ""
    x: Axis | None = None
    y: Axis | None = None
    series: tuple[Series, ...] = ()
    hints: Mapping[str, str] = field(default_factory=dict)
    gradient: Gradient | None = None

    def subtitle_for(self, drawing: str) -> str:
        """The subtitle in `drawing` ("interactive" or "static").

        >>> Panel("T", "Fewer is better", hints={"static": "each count at its bar"}).subtitle_for("static")
        'Fewer is better; each count at its bar'
        """
        return "; ".join(p for p in (self.subtitle, self.hints.get(drawing, "")) if p)

    def legend(self) -> list[Series]:
        return [s for s in self.series if s.legend]


@dataclass(frozen=True)
class Marker:
    """The chosen vocabulary size: a dashed rule in every panel, labelled in one."""

    value: int
    labelled: int = 0
    color: str = "#000"
    dash: tuple[int, ...] = (6, 4)
    width: float = 2
    prefix: str = "chosen: "

    def label(self) -> str:
        return f"{self.prefix}{self.value:,}"


@dataclass(frozen=True)
class Chart:
    """A chart: its name (the picture's `data-chart`), its panels (one, or the three
    linked curve panels), the data its drawings read, and the chosen-size marker."""

    name: str
    panels: tuple[Panel, ...]
    data: Mapping[str, Any] = field(default_factory=dict)
    marker: Marker | None = None

    def texts(self, drawing: str) -> list[str]:
        """Every title, subtitle, axis title and legend label `drawing` must show."""
        out: list[str] = []
        for p in self.panels:
            out += [p.title, p.subtitle_for(drawing)]
            for axis in (p.x, p.y):
                if axis is not None and axis.title:
                    out += [axis.title] if isinstance(axis.title, str) else list(axis.title)
            out += [s.label for s in p.legend()]
            if p.gradient:
                out.append(p.gradient.title)
        return [t for t in dict.fromkeys(out) if t]


# ---- 1. the curves ------------------------------------------------------------------------
def first_used_up_label(symbol: str, vocab_size: int) -> str:
    """The label of the rule where the first base symbol is used up.

    >>> first_used_up_label("q", 300)
    "first base symbol used up: 'q' at 300"
    """
    return f"first base symbol used up: '{symbol}' at {int(vocab_size):,}"


def curves(curve, held=None, retired=None, *, unit: str = "characters", training_label: str = "Training corpus",
           chosen: int | None = None) -> Chart:
    """Three linked panels against vocabulary size: the training corpus's length in tokens,
    `unit` per token (training text and each held-out text), and the vocabulary against
    the tokens and base symbols in use, with a triangle where a base symbol is used up.
    `curve` is ui.vocab.curves.training_curve, `held` held_out_curve, `retired`
    base_retirements."""
    has_held = held is not None and len(held)
    unit_title = f"{unit.capitalize()} per token"
    x = Axis("vocab_size", "Vocabulary size (tokens)")
    length = Panel(
        "Training corpus length shrinks with every merge",
        "Tokens needed to write the whole training corpus, read off the merge events",
        x=x, y=Axis("corpus_length", "Tokens in training corpus"),
        series=(Series("Tokens in training corpus", BLUE, key="corpus_length", legend=False),))
    texts = [training_label] + (list(dict.fromkeys(held["text"])) if has_held else [])
    per_token = Panel(
        f"{unit_title}: the text the run learned from, and text it never saw",
        "Held-out text is encoded with the first k merges at the marked sizes; "
        "the gap is what the merges overfit to the training text",
        x=x, y=Axis("units_per_token", unit_title, format=",.1f"),
        series=tuple(Series(t, SERIES_COLORS[i % len(SERIES_COLORS)], key=t,
                            dash=SERIES_DASHES[i % len(SERIES_DASHES)]) for i, t in enumerate(texts)))
    in_use = (Series("Vocabulary size (every token)", GREY, key="vocab_size", dash=(6, 4)),
              Series("Tokens the corpus uses", BLUE, key="tokens_in_use"),
              Series("Base symbols it still uses", ORANGE, key="base_in_use"),
              Series("Base symbol used up", VERMILLION, key="retired", mark="point", shape="triangle-down",
                     legend=False),
              Series("First base symbol used up", VERMILLION, key="first_retired", mark="rule", width=2,
                     legend=False))
    use = Panel(
        "Vocabulary size against the tokens actually in use",
        "Triangles: a base symbol whose every occurrence has been merged into longer tokens",
        # symlog, so 0 is allowed: the few dozen base symbols in use would otherwise be a
        # flat line under a vocabulary of thousands
        x=x, y=Axis("tokens", "Tokens (logarithmic scale)", scale="symlog"), series=in_use)
    marker = Marker(int(chosen)) if chosen is not None else None
    return Chart("curves", (length, per_token, use), dict(curve=curve, held=held, retired=retired), marker)


# ---- 2. the cost calculator's charts ------------------------------------------------------
def cost_share(parts: Sequence[Mapping]) -> Chart:
    """The vocabulary's share of the parameters and of the FLOPs, one 100% bar per measure.
    `parts`: rows of measure, part ("vocabulary" or "rest"), value, label."""
    panel = Panel(
        "The vocabulary's share of the model", "Parameters and forward-pass FLOPs per token",
        x=Axis("value", "Share of the model", format="%"), y=Axis("measure", None),
        series=(Series("the vocabulary: embeddings, output layer", VERMILLION, key="vocabulary", mark="bar"),
                Series("the rest of the model", "#BBBBBB", key="rest", mark="bar")))
    return Chart("cost_share", (panel,), dict(parts=parts))


#: the real-models chart's tick values (those inside its domain are drawn)
_REAL_TICKS = (100, 300, 1_000, 3_000, 10_000, 30_000, 100_000, 300_000)


def real_vocab(reals: Sequence[Mapping]) -> Chart:
    """Real models' vocabulary sizes on one logarithmic axis, the sizes chosen on the page
    among them. `reals`: rows of name, size, kind ("published" or "yours")."""
    sizes = [int(r["size"]) for r in reals]
    lo, hi = max(10, int(min(sizes) * 0.6)), int(max(sizes) * 1.6)
    panel = Panel(
        "Vocabulary sizes of real models",
        hints={"interactive": "Hover a point for the exact size; sources in the docs",
               "static": "Each model's exact size is written under its name"},
        x=Axis("size", "Vocabulary size (tokens, logarithmic scale)", scale="log", domain=(lo, hi),
               values=tuple(v for v in _REAL_TICKS if lo <= v <= hi)),
        series=(Series("real models", BLUE, key="published", mark="point", shape="circle"),
                Series("chosen on this page", VERMILLION, key="yours", mark="point", shape="diamond")))
    return Chart("real_vocab", (panel,), dict(reals=reals))


def _size_axis(sizes: list[int]) -> Axis:
    """o200k's ranks kept: a base-2 logarithmic axis with a tick at every drawn size."""
    return Axis("size", _SIZE_AXIS_TITLE, scale="log2", format="k", domain=(min(sizes), max(sizes) * 1.12),
                values=tuple(sizes))


#: the real models' sizes on the truncation charts: a dotted rule each, named in place
_REAL_MODEL = Series("Real model", "#555", key="marks", mark="rule", dash=(2, 3), width=2, legend=False)


def truncation(table, marks) -> Chart:
    """Characters per token of each language (thin lines) and of all of them together (a
    thick black line) against the number of o200k's ranks kept, real models' sizes marked.
    `table` is ui.vocab.real_sizes.truncation_table (code "all" is the total); `marks` has
    columns size and label."""
    sizes = sorted(set(int(s) for s in table["size"]))
    langs = list(dict.fromkeys(table.loc[table["code"] != "all", "language"]))
    # room above the highest curve for the models' names
    top = float(table["chars_per_token"].max()) * (1 + 0.06 * (len(marks) + 1))
    panel = Panel(
        "o200k cut to its first k tokens", "Characters per token of one paragraph in ten languages",
        x=_size_axis(sizes), y=Axis("chars_per_token", "Characters per token", format=".1f", domain=(0, top)),
        series=tuple(Series(lang, TABLEAU10[i % len(TABLEAU10)], key=lang, width=2) for i, lang in enumerate(langs))
        + (Series("all ten together", "#000", key="all", width=5), _REAL_MODEL))
    return Chart("truncated", (panel,), dict(table=table, marks=marks))


def truncation_cost(cost, marks, *, model: str) -> Chart:
    """Embedding parameters and output-layer FLOPs per token at the same sizes. `cost` is
    ui.vocab.real_sizes.cost_at_sizes; `model` names the calculator's model."""
    sizes = sorted(set(int(s) for s in cost["size"]))
    most = float(cost[["embedding_params", "output_flops"]].to_numpy().max()) * (1 + 0.1 * (len(marks) + 1))
    panel = Panel(
        "What those sizes cost", model,
        x=_size_axis(sizes), y=Axis("amount", "Parameters / FLOPs", format="si", domain=(0, most)),
        series=(Series("Embedding parameters", VERMILLION, key="embedding_params", width=4),
                Series("Output-layer FLOPs per token (2dV)", BLUE, key="output_flops", dash=(8, 4), width=4),
                _REAL_MODEL))
    return Chart("truncated_cost", (panel,), dict(cost=cost, marks=marks))


# ---- 3. ten languages ---------------------------------------------------------------------
def _tokenizers(rows: Sequence[Mapping]) -> tuple[list[str], list[str]]:
    """The languages and the tokenizers of the rows, in first-seen order."""
    return list(dict.fromkeys(r["language"] for r in rows)), list(dict.fromkeys(r["tokenizer"] for r in rows))


def language_tokens(rows: Sequence[Mapping]) -> Chart:
    """Tokens per language for each tokenizer: grouped horizontal bars. `rows` are
    ui.vocab.curves.language_rows (a tokenizer, a language, its tokens, ratio ...)."""
    languages, tokenizers = _tokenizers(rows)
    panel = Panel(
        "Tokens for the same paragraph in ten languages", "Fewer is better: the same meaning in fewer, longer tokens",
        hints={"static": "each bar's count at its end"},
        x=Axis("tokens", "Tokens for the paragraph"), y=Axis("language", None, values=tuple(languages)),
        series=tuple(Series(t, SERIES_COLORS[i % len(SERIES_COLORS)], key=t, mark="bar")
                     for i, t in enumerate(tokenizers)))
    return Chart("language_tokens", (panel,), dict(rows=rows))


def language_ratio(rows: Sequence[Mapping]) -> Chart:
    """Each language's tokens as a multiple of English's, per tokenizer: a heat map with
    the ratio written in each cell (1.00× is English's own cost)."""
    languages, tokenizers = _tokenizers(rows)
    panel = Panel(
        "How many times English's token count each language needs",
        "Same paragraph, same tokenizer; 1.00× = as cheap as English",
        x=Axis("tokenizer", None, values=tuple(tokenizers)), y=Axis("language", None, values=tuple(languages)),
        gradient=Gradient("Tokens ÷ English tokens", "orangered",
                          ("#feedde", "#fdbe85", "#fd8d3c", "#e6550d", "#a63603"), low=1.0))
    return Chart("language_ratio", (panel,), dict(rows=rows))
