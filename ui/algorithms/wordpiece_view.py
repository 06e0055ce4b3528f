"""The WordPiece tab of the Algorithms page: training stepped merge by merge (the score
table beside the raw counts, what BPE would have merged, and why), and the longest-match
trace of a chosen word."""
from __future__ import annotations

import streamlit as st

from ui.shared.markdown import md_escape
from ui.shared.word_views import table_height, trace_rows

from .logic import (
    WORD_LIMIT,
    PageCorpus,
    Trained,
    corpus_words,
    raw_count_rows,
    real_wordpiece_trace,
    score_rows,
    unknown_example,
    why_sentence,
)
from . import keys
from .widgets import corpus_scope, show_chips, show_error, stepper


def show(trained: Trained, corpus: PageCorpus) -> None:
    if trained.run is None:
        show_error(trained)
        return
    run = trained.run
    st.markdown(
        "WordPiece starts every word as its first character and `##` continuations, then merges the "
        "pair with the best **score = count(ab) / (count(a) × count(b))**: a pair of rare parts beats "
        "a frequent pair of common ones. Step through its merges."
    )
    if run.steps == 0:
        st.info("WordPiece made no merge at this size. Raise the target vocabulary size above.")
    else:
        _steps(run)
    _trace(run, corpus)


def _steps(run) -> None:
    k = stepper(keys.WP_STEP, "wp", 1, run.steps, label="WordPiece merge")
    event = run.events[k - 1]
    st.markdown(f"**Merge {k} of {run.steps}:** {md_escape(' + '.join(event.pair_text))} → "
                f"**{md_escape(event.token)}**")
    st.info(md_escape(why_sentence(run, event)))
    left, right = st.columns(2)
    with left:
        st.markdown("**By score** (what WordPiece ranks by)")
        st.dataframe(score_rows(run, event), hide_index=True, width="stretch")
    with right:
        st.markdown("**By raw count** (what BPE ranks by)")
        st.dataframe(raw_count_rows(run, k), hide_index=True, width="stretch")
    st.caption(md_escape("Words after this merge: " + "; ".join(
        " ".join(run.segmentation_text(k, w)) for w in range(min(12, len(run.words.words))))))


def _trace(run, corpus: PageCorpus) -> None:
    st.subheader("Encoding: longest match first")
    st.markdown(
        "WordPiece does not replay merges to encode: at each position it takes the longest vocabulary "
        "entry that matches (with `##` after the first position). If nothing matches at some position, "
        "the **whole word** becomes `[UNK]`."
    )
    tok = run.tokenizer()
    words = [w for w, _ in corpus_words(corpus)]
    suggestions = list(dict.fromkeys(words[:6] + [unknown_example(tok.vocab, words)]))
    options = suggestions + ["another word"]
    pick = st.radio("A word", options, horizontal=True, format_func=md_escape,
                    **keys.TRACE_PICK.key(corpus_scope(corpus), options[0]).widget("algo_w_trace_pick",
                                                                                   valid=options.__contains__))
    word = pick
    if pick == "another word":
        word = st.text_input("Word", max_chars=WORD_LIMIT, **keys.TRACE_WORD.widget("algo_w_trace_word")).strip()
    if not word:
        st.info("Type a word to trace.")
        return
    trace = tok.trace(word)
    show_chips(trace.tokens)
    if trace.unknown:
        st.warning(md_escape(f"{word} becomes [UNK]: {trace.reason}."))
    st.dataframe(trace_rows(trace), hide_index=True, width="stretch", height=table_height(len(trace.attempts)))
    _real(word)


def _real(word: str) -> None:
    """The same word in a real WordPiece vocabulary (BERT's), beside the one trained here."""
    real = real_wordpiece_trace(word)
    st.subheader("The same word in a real WordPiece vocabulary")
    lookups = sum(len(t.attempts) for t in real.traces)
    st.markdown(
        f"In **{md_escape(real.short)}** (Google's BERT base, {real.size:,} tokens, run as Hugging Face's "
        "BertWordPieceTokenizer runs it) the word is lowercased, stripped of accents and split at punctuation "
        f"first ({md_escape(' | '.join(real.words) or 'nothing left')}), then matched longest first: "
        f"{lookups:,} {'lookup' if lookups == 1 else 'lookups'}.")
    if real.tokens:
        show_chips(real.tokens)
    for w, t in zip(real.words, real.traces):
        if t.unknown:
            st.warning(md_escape(f"{w} becomes [UNK] in BERT too: {t.reason}."))
