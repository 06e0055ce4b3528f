"""Streamlit widgets of the Algorithms page: the corpus and size controls, the cached
runs, a Back / Step / slider stepper, and chips.

Widget values that must survive a visit to another page are kept under a store key
(`algo.*`, declared in ui/algorithms/keys.py) with `Key.widget`.
Trained runs are shared by every session through the byte-bounded cache
"algorithms.runs", keyed by the corpus text, its kind, the algorithm and the size.
"""
from __future__ import annotations

import zlib

import streamlit as st

from bpe_core.algorithms import ALGORITHMS
from ui.shared.cache import byte_cached
from ui.shared.markdown import md_error, md_escape
from ui.shared.state import Key
from ui.shared.word_views import chips_html

from . import keys
from .logic import (
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

__all__ = ["choose_corpus", "choose_extra", "trained_runs", "stepper", "show_chips", "corpus_scope", "choose_tab"]


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
    choice = st.selectbox("Corpus", list(choices), format_func=lambda c: md_escape(choices[c]),
                          **keys.CORPUS.widget("algo_w_corpus"))
    own = ""
    if choice == OWN_TEXT:
        own = st.text_area(f"Your text (up to {TEXT_LIMIT:,} characters)", max_chars=TEXT_LIMIT, height=120,
                           **keys.TEXT.widget("algo_w_text"))
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


def choose_tab(labels: list[str]) -> list:
    """The page's tabs, of which only the open one is drawn (a switch reruns the page):
    drawing all five at every load cost the browser seconds (bench/README.md). The open
    tab is kept like any widget value, so it survives a visit to another page."""
    return st.tabs(labels, **keys.TAB.widget("algo_w_tab", labels[0], valid=labels.__contains__))


def choose_extra(corpus: PageCorpus) -> int:
    """How many tokens each algorithm learns (or keeps) beyond its alphabet."""
    store = keys.EXTRA.key(corpus_scope(corpus), default_extra(corpus))
    starts = ", ".join(f"{ALGORITHMS[n].title} {size}" for n, size in base_sizes(corpus).items())
    return st.number_input(
        "Tokens beyond the alphabet", min_value=0, max_value=MAX_EXTRA, step=1,
        **store.widget("algo_w_extra"),
        help=f"Each algorithm starts from an alphabet of its own (here: {starts} tokens; WordPiece's "
             "includes BERT's 5 special tokens and its ## continuations, Unigram's the ▁ and <unk>). "
             "BPE and WordPiece merge until they have this many more tokens; Unigram prunes down to "
             "its alphabet plus this many (on a tiny corpus it may end below).",
    )


def _move(store: Key[int | None], delta: int, lo: int, hi: int) -> None:
    current = store.get()
    store.set(min(hi, max(lo, (lo if current is None else current) + delta)))


def stepper(store: Key[int | None], name: str, lo: int, hi: int, *, label: str, default: int | None = None) -> int:
    """Back and Step buttons (`algo_w_<name>_back`, `_next`) and a slider (`algo_w_<name>_step`)
    over steps lo..hi; the step lives in `store`, kept in range when the run changes."""
    current = store.get()
    if current is None:
        current = lo if default is None else default
    store.set(min(hi, max(lo, current)))
    if hi <= lo:
        st.caption(md_escape(f"{label}: {lo} (the only one)."))
        return lo
    back, step, _ = st.columns([1, 1, 4])
    back.button("◀ Back", key=f"algo_w_{name}_back", on_click=_move, args=(store, -1, lo, hi),
                disabled=store.get() <= lo, width="stretch")
    step.button("Step ▶", key=f"algo_w_{name}_next", on_click=_move, args=(store, 1, lo, hi),
                disabled=store.get() >= hi, width="stretch")
    return st.slider(label, lo, hi, **store.widget(f"algo_w_{name}_step"))


def show_chips(tokens, **kwargs) -> None:
    """Draw tokens as chips (escaped HTML)."""
    st.html(chips_html(tokens, **kwargs))


def show_error(trained: Trained) -> None:
    st.error(md_error(f"{ALGORITHMS[trained.name].title} could not train on this corpus: {trained.error}"))
