"""What every part of the Vocabulary size page draws with: the run under study
(`RunChoice`), the chart switch (pictures or interactive Vega-Lite), the charts and
pictures cached by content (`show_chart`, `cached_figure`), and `Blocks`, which joins a
section's HTML (figures, headings, prose, tables, pictures) into one st.html: a first
load draws every element and fetches a script per kind of widget, so each section is a
few elements."""
from __future__ import annotations

from dataclasses import dataclass

import altair as alt
import streamlit as st

from bpe_core import TrainingRun
from ui.shared.cache import byte_cached
from ui.shared.rawhtml import html_block
from ui.shared.tables import TABLE_CSS
from ui.shared.state import session_run
from ui.vocab.charts import (
    CHOSEN,
    CURVES_AXIS_ROOM,
    fast_render,
    fit_titles,
    set_param,
    display_height,
)
from ui.vocab import keys, static
from ui.vocab.blocks import BLOCKS_CSS
from ui.vocab.curves import (
    unit_name,
)
from ui.vocab.sources import (
    builtin_run,
)


CURVES_KEY = keys.CURVES


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
def chart_spec(cache_key: str, _build, extra: int = 170) -> tuple[dict, int | None]:
    """Build a chart once per distinct input (`cache_key` names all of them) and keep
    its Vega-Lite spec: building and validating an Altair chart takes longer than
    everything else on this page, and the spec is read-only. Titles wrap to the
    chart's width in the browser (`fit_titles`)."""
    chart = _build()
    height = display_height(chart, extra) if not isinstance(chart, alt.VConcatChart) else None
    # Tests validate every chart builder against the Vega-Lite schema (chart.to_dict());
    # the page skips that second validation, which costs more than building the chart.
    return fast_render(fit_titles(chart.to_dict(validate=False))), height


def show_chart(cache_key: str, build, *, key: str, chosen: int | None = None, extra: int = 170, **kwargs):
    """Draw a chart from the spec cache, as wide as its column; `chosen` sets its
    `chosen` parameter.

    Single charts get their own height (Streamlit would otherwise shrink them): the
    plot's plus `extra` pixels for the title, legends and axes.
    """
    kwargs.setdefault("width", "stretch")
    spec, height = chart_spec(cache_key, build, extra)
    # A fresh top level each run: Streamlit moves the datasets out of the dict it gets.
    spec = set_param(spec, CHOSEN, chosen) if chosen is not None else {**spec, "datasets": dict(spec.get("datasets", {}))}
    return st.vega_lite_chart(spec=spec, key=key, height=height if height else "content", **kwargs)


@byte_cached("charts")
def cached_figure(cache_key: str, _build):
    """What `_build` makes (a static chart's HTML, the curve panels without the chosen size,
    an explanation), built once per distinct input: `cache_key` names all of it, and
    starts with what it is ("curves-bases:", "real-sizes-text:", ...)."""
    return _build()


def interactive() -> bool:
    """Whether the page draws its charts with Vega-Lite (hover, click) or as pictures."""
    return bool(keys.INTERACTIVE.get())


CHART_KINDS = {False: "pictures (quick to load)", True: "interactive"}
CHARTS_LABEL = ("Charts: pictures (numbers written on them) or interactive (exact numbers on hover, click a curve "
                "to pick a size; loads a charting library)")


def chart_choice() -> bool:
    """The switch between static pictures (the default: a first visit loads no charting
    library) and the interactive Vega-Lite charts (tooltips, click to pick a size).
    Two radio options, not a toggle: the page draws radios already, so a first load
    fetches no script for a toggle."""
    return st.radio(CHARTS_LABEL, list(CHART_KINDS), format_func=CHART_KINDS.get, horizontal=True,
                    **keys.INTERACTIVE.widget("vocab_w_interactive"))


class Blocks:
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
            show_chart(cache_key, build, key=key, chosen=chosen, extra=extra, **kwargs)
        else:
            self.add(cached_figure(f"{cache_key}:{chosen}", figure))

    def pair(self, *charts: dict) -> None:
        """Charts side by side (stacked on a phone): pictures in one CSS grid, or
        interactive charts in st.columns. Each is a dict of `chart`'s arguments."""
        if interactive():
            self.flush()
            for column, c in zip(st.columns(len(charts)), charts):
                with column:
                    self.chart(**c)
            return
        self.add('<div class="vc-pair">', *(cached_figure(f"{c['cache_key']}:{c.get('chosen')}", c["figure"])
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
