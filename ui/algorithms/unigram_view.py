"""The Unigram tab of the Algorithms page: training stepped by EM iteration and pruning
round (vocabulary size and log-likelihood per event, the pieces pruned and their loss),
the lattice of a chosen word with the best path, and sampled segmentations."""
from __future__ import annotations

import streamlit as st

from ui.shared.markdown import md_error, md_escape
from ui.shared.word_views import lattice_html, table_height

from .logic import (
    UNIGRAM_AXIS_ROOM,
    WORD_LIMIT,
    PageCorpus,
    Trained,
    corpus_words,
    event_label,
    removed_rows,
    unigram_chart,
    unigram_rows,
)
from . import keys
from .widgets import corpus_scope, show_chips, show_error, stepper


def show(trained: Trained, corpus: PageCorpus) -> None:
    if trained.run is None:
        show_error(trained)
        return
    run = trained.run
    st.markdown(
        "Unigram works the other way round: it starts from **many** frequent substrings, gives each a "
        "probability, re-estimates them with EM (which segmentations of the corpus are likely), then "
        "**prunes** the pieces whose removal costs the least likelihood, round after round, until the "
        "target size. Single characters always stay. Words start with `▁` (a space), SentencePiece style."
    )
    last = len(run.events) - 1
    k = stepper(keys.UG_STEP, "ug", 0, last, label="Unigram event", default=last)
    event = run.events[k]
    st.markdown(f"**Event {k} of {last}: {md_escape(event_label(event))}** — vocabulary "
                f"{event.vocab_size:,} pieces, log-likelihood {event.log_likelihood:,.2f}, "
                f"the corpus in {event.tokens:,} tokens.")
    # Streamlit makes each panel's plot as wide as the chart's container; the padding
    # leaves the room the axes take, so the chart fits a phone's screen.
    st.html(f"<style>.st-key-algorithms-unigram-chart {{ padding-right: {UNIGRAM_AXIS_ROOM}px; }}</style>")
    with st.container(key="algorithms-unigram-chart"):
        st.altair_chart(unigram_chart(unigram_rows(run), k), width="stretch")
    if event.removed:
        st.markdown(f"This step removed **{len(event.removed):,}** pieces (by {event.value_name}, smallest first):")
        rows = removed_rows(event)
        st.dataframe(rows, hide_index=True, width="stretch", height=table_height(len(rows)))
    else:
        st.caption("This step removed no piece.")
    _lattice(run.model_at(k), corpus)


def _lattice(model, corpus: PageCorpus) -> None:
    st.subheader("The lattice of one word")
    words = [w for w, _ in corpus_words(corpus)]
    word = st.text_input("Word (or short text)", max_chars=WORD_LIMIT,
                         **keys.LATTICE_WORD.key(corpus_scope(corpus), words[0] if words else "hugs")
                         .widget("algo_w_lattice_word"))
    if not word:
        st.info("Type a word to see its lattice.")
        return
    lattice = model.lattice(word)
    st.markdown("Every piece of the vocabulary that matches somewhere in the word is a candidate; "
                "Viterbi picks the path with the highest total score:")
    st.html(lattice_html(lattice))
    show_chips(lattice.best_pieces)
    st.markdown("**Sampled segmentations** (subword regularisation): each draw picks a segmentation "
                "with probability proportional to p(segmentation)^α. Small α: nearly uniform; large α: "
                "nearly always the best one.")
    a, s, n = st.columns(3)
    alpha = a.slider("α (alpha)", 0.0, 2.0, step=0.05, **keys.SAMPLE_ALPHA.widget("algo_w_sample_alpha"))
    seed = s.number_input("Seed", 0, 1_000_000, **keys.SAMPLE_SEED.widget("algo_w_sample_seed"))
    count = n.number_input("Draws", 1, 20, **keys.SAMPLE_DRAWS.widget("algo_w_sample_draws"))
    try:
        draws = model.samples(word, int(count), alpha=float(alpha), seed=int(seed))
    except ValueError as exc:
        st.error(md_error(exc))
        return
    for d in draws:
        show_chips(d.pieces)
