"""Vocabulary size: what a bigger vocabulary buys (shorter sequences) and what it costs
(embedding parameters, output-layer FLOPs), on one training run and on real tokenizers.

A thin view: the sections live in ui.vocab.sections.
"""
import streamlit as st

from ui.quirks.widgets import ask_quiz
from ui.vocab.sections import (
    choose_run,
    choose_vocab,
    cost_section,
    curves_section,
    languages_section,
    interactive_toggle,
    readable_tooltips,
    real_sizes_section,
)

st.title("Vocabulary size: what it buys, what it costs")
readable_tooltips()
st.markdown(
    "Every merge adds one token to the vocabulary and makes text shorter in tokens. Shorter "
    "sequences are cheaper to process, but every token needs a row in the model's embedding "
    "matrix and a score in its output layer. Pick a training run, then move **one slider** and "
    "watch sequence length, embedding size and output compute move together."
)
interactive_toggle()

st.header("1. Sequence length against vocabulary size")
choice = choose_run()
if choice is None:
    st.stop()
if choice.run.steps == 0:
    st.warning("This run has no merges yet, so there is no curve to draw. Train for a few merges "
               "on the Train page, or pick a built-in corpus above.")
    st.stop()
vocab, k = choose_vocab(choice)
curves_section(choice, vocab, k)

st.header("2. What the vocabulary costs a model")
st.markdown(
    "A model with vocabulary V and width d stores a d-number vector for every token (the input "
    "embedding, V × d) and scores every token at every step (the output layer, another V × d "
    "unless the two are *tied*). Start from the vocabulary chosen above or from a published model."
)
model, precision = cost_section(vocab)
st.subheader("At real sizes: o200k cut to its first k tokens")
real_sizes_section(model, precision)
ask_quiz("vocab_size")

st.header("3. The same text in ten languages")
st.markdown(
    "One short paragraph, written for this app in ten languages, tokenized by GPT-2, GPT-4's "
    "cl100k_base, GPT-4o's o200k_base and the run studied above at the chosen size."
)
languages_section(choice, vocab, k)
