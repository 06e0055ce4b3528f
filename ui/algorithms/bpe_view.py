"""The BPE tab of the Algorithms page: the merges learned on the corpus, and BPE-dropout
(one word, several draws, p and seed)."""
from __future__ import annotations

import streamlit as st

from bpe_core import sample_segmentations
from ui.shared.markdown import md_error, md_escape

from .logic import WORD_LIMIT, PageCorpus, Trained, corpus_words, segment
from . import keys
from .widgets import corpus_scope, show_chips, show_error


def show(trained: Trained, corpus: PageCorpus) -> None:
    if trained.run is None:
        show_error(trained)
        return
    run = trained.run
    st.markdown(
        f"BPE learned **{run.steps}** merges on this corpus. Encoding replays them in order. "
        "**BPE-dropout** (Provilkov et al., 2020) skips each possible merge with probability *p* "
        "at every step, so the same word comes out split in different ways from draw to draw: a model "
        "trained on such draws also sees a word's smaller parts."
    )
    merges = [" + ".join(ev.pair_text) for ev in run.events[:30]]
    if merges:
        st.caption(md_escape("First merges: " + ", ".join(merges) + (" ..." if run.steps > 30 else "")))
    words = corpus_words(corpus)
    left, right = st.columns(2)
    word = left.text_input("Word to split", max_chars=WORD_LIMIT,
                           **keys.DROPOUT_WORD.key(corpus_scope(corpus), words[0][0] if words else "hugs")
                           .widget("algo_w_dropout_word"))
    p = right.slider("Dropout probability p", 0.0, 1.0, step=0.05, **keys.DROPOUT_P.widget("algo_w_dropout_p"))
    seed_col, n_col = st.columns(2)
    seed = seed_col.number_input("Seed", 0, 1_000_000, **keys.DROPOUT_SEED.widget("algo_w_dropout_seed"))
    draws = n_col.number_input("Draws", 1, 20, **keys.DROPOUT_DRAWS.widget("algo_w_dropout_draws"))
    if not word.strip():
        st.info("Type a word to see it split.")
        return
    tok = run.tokenizer()
    try:
        samples = sample_segmentations(tok, word.strip(), p=p, samples=int(draws), seed=int(seed))
    except ValueError as exc:
        st.error(md_error(exc))
        return
    st.markdown("Without dropout:")
    show_chips(segment("bpe", tok, word.strip()))
    st.markdown(f"{int(draws)} draws with p = {p:.2f}, seed {int(seed)}:")
    for draw in samples:
        show_chips(draw)
