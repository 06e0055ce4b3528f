"""Streamlit widgets of the Algorithms page: the corpus and size controls, the cached
runs, a Back / Step / slider stepper, and chips.

Widget values that must survive a visit to another page are kept under a store key
(`algo.*`) and copied into the widget's key on every run (`ui.shared.state.persist`).
Trained runs are shared by every session through the byte-bounded cache
"algorithms.runs", keyed by the corpus text, its kind, the algorithm and the size.
"""
from __future__ import annotations

import zlib

import streamlit as st

from bpe_core.algorithms import ALGORITHMS
from ui.shared.cache import byte_cached
from ui.shared.markdown import md_error, md_escape
from ui.shared.state import persist, remember
from ui.shared.word_views import chips_html

from .logic import (
    DEFAULT_OWN_TEXT,
    DEFAULT_PRESET,
    MAX_EXTRA,
    OWN_TEXT,
    TEXT_LIMIT,
    PageCorpus,
    Trained,
    base_sizes,
    corpus_choices,
    default_extra,
    page_corpus,
    target_sizes,
    train_one,
)

__all__ = ["choose_corpus", "choose_extra", "trained_runs", "stepper", "show_chips", "kept", "corpus_scope",
           "choose_tab"]


@byte_cached("algorithms.runs")
def _trained(name: str, text: str, kind: str, vocab_size: int) -> Trained:
    return train_one(name, text, kind, vocab_size)


def trained_runs(corpus: PageCorpus, extra: int) -> dict[str, Trained]:
    """Every registered algorithm trained on the corpus to its alphabet plus `extra`
    tokens (cached across sessions)."""
    sizes = target_sizes(corpus, extra)
    return {name: _trained(name, corpus.text, corpus.kind, sizes[name]) for name in ALGORITHMS}


def choose_corpus() -> PageCorpus | None:
    """A built-in corpus or the user's own text; None (with a message) if unusable."""
    choices = corpus_choices()
    persist("algo_w_corpus", "algo.corpus", DEFAULT_PRESET)
    choice = st.selectbox("Corpus", list(choices), format_func=lambda c: md_escape(choices[c]),
                          key="algo_w_corpus", on_change=remember, args=("algo_w_corpus", "algo.corpus"))
    own = ""
    if choice == OWN_TEXT:
        persist("algo_w_text", "algo.text", DEFAULT_OWN_TEXT)
        own = st.text_area(f"Your text (up to {TEXT_LIMIT:,} characters)", key="algo_w_text", max_chars=TEXT_LIMIT,
                           height=120, on_change=remember, args=("algo_w_text", "algo.text"))
    try:
        corpus = page_corpus(choice, own)
    except ValueError as exc:
        st.error(md_error(exc))
        return None
    for note in corpus.notes:
        st.caption(md_escape(note))
    return corpus


def corpus_scope(corpus: PageCorpus) -> str:
    """A short name for the corpus, for values that belong to it (its size, a word from it)."""
    return f"{corpus.kind}.{zlib.crc32(corpus.text.encode())}"


def kept(widget_key: str, default, *, scope: str = "", valid=None) -> dict:
    """The keyword arguments that make a widget keep its value while it is not drawn (in a
    tab that is shut, on another page): the value lives under `algo.<name>[.<scope>]` and is
    copied into the widget key each run. A stored value that `valid` refuses (a word of
    another corpus for a radio) gives way to `default`."""
    store = "algo." + widget_key.removeprefix("algo_w_") + (f".{scope}" if scope else "")
    if valid is not None and store in st.session_state and not valid(st.session_state[store]):
        del st.session_state[store]
    persist(widget_key, store, default)
    return {"key": widget_key, "on_change": remember, "args": (widget_key, store)}


def choose_tab(labels: list[str]) -> list:
    """The page's tabs, of which only the open one is drawn (a switch reruns the page):
    drawing all five at every load cost the browser seconds (bench/README.md). The open
    tab is kept like any widget value, so it survives a visit to another page."""
    return st.tabs(labels, **kept("algo_w_tab", labels[0], valid=labels.__contains__))


def choose_extra(corpus: PageCorpus) -> int:
    """How many tokens each algorithm learns (or keeps) beyond its alphabet."""
    key = f"algo.extra.{corpus_scope(corpus)}"
    persist("algo_w_extra", key, default_extra(corpus))
    starts = ", ".join(f"{ALGORITHMS[n].title} {size}" for n, size in base_sizes(corpus).items())
    return st.number_input(
        "Tokens beyond the alphabet", min_value=0, max_value=MAX_EXTRA, step=1, key="algo_w_extra",
        on_change=remember, args=("algo_w_extra", key),
        help=f"Each algorithm starts from an alphabet of its own (here: {starts} tokens; WordPiece's "
             "includes BERT's 5 special tokens and its ## continuations, Unigram's the ▁ and <unk>). "
             "BPE and WordPiece merge until they have this many more tokens; Unigram prunes down to "
             "its alphabet plus this many (on a tiny corpus it may end below).",
    )


def _move(store: str, delta: int, lo: int, hi: int) -> None:
    st.session_state[store] = min(hi, max(lo, st.session_state.get(store, lo) + delta))


def stepper(name: str, lo: int, hi: int, *, label: str, default: int | None = None) -> int:
    """Back and Step buttons and a slider over steps lo..hi; the step lives in session
    state (`algo.<name>.step`), kept in range when the run changes."""
    store, widget = f"algo.{name}.step", f"algo_w_{name}_step"
    current = st.session_state.get(store, lo if default is None else default)
    st.session_state[store] = min(hi, max(lo, current))
    if hi <= lo:
        st.caption(md_escape(f"{label}: {lo} (the only one)."))
        return lo
    back, step, _ = st.columns([1, 1, 4])
    back.button("◀ Back", key=f"algo_w_{name}_back", on_click=_move, args=(store, -1, lo, hi),
                disabled=st.session_state[store] <= lo, width="stretch")
    step.button("Step ▶", key=f"algo_w_{name}_next", on_click=_move, args=(store, 1, lo, hi),
                disabled=st.session_state[store] >= hi, width="stretch")
    persist(widget, store, lo)
    return st.slider(label, lo, hi, key=widget, on_change=remember, args=(widget, store))


def show_chips(tokens, **kwargs) -> None:
    """Draw tokens as chips (escaped HTML)."""
    st.html(chips_html(tokens, **kwargs))


def show_error(trained: Trained) -> None:
    st.error(md_error(f"{ALGORITHMS[trained.name].title} could not train on this corpus: {trained.error}"))
