"""Vocabulary size: what a bigger vocabulary buys (shorter sequences) and what it costs
(embedding parameters, output-layer FLOPs), on one training run and on real tokenizers.

A thin view: the sections live in ui.vocab.sections. Headings and prose are HTML blocks
(ui.vocab.blocks) joined with what follows them, so a first load draws few elements.
"""
import streamlit as st

from ui.quiz.widgets import ask_quiz
from ui.vocab.blocks import heading_html
from ui.vocab.sections import (
    choice_again,
    choose_run,
    choose_vocab,
    cost_section,
    curves_section,
    chart_choice,
    languages_section,
    page_top,
    real_sizes_section,
    text_block,
)


@st.fragment
def study(ref: tuple) -> None:
    """The slider and everything it moves (sections 1 to 3). A fragment: moving the slider,
    or any control below it, reruns only this, not the title, the run picker and the chart
    switch above (the run is looked up again by its reference: see RunChoice.ref)."""
    choice = choice_again(ref)
    if choice is None:  # the session's run went away since the page was drawn
        st.rerun(scope="app")
    vocab, k = choose_vocab(choice)
    curves_section(choice, vocab, k)

    text_block(
        heading_html(2, "2. What the vocabulary costs a model", "2-what-the-vocabulary-costs-a-model"),
        "<p>A model with vocabulary V and width d stores a d-number vector for every token (the input "
        "embedding, V × d) and scores every token at every step (the output layer, another V × d "
        "unless the two are <em>tied</em>). Start from the vocabulary chosen above or from a published model.</p>",
    )
    model, precision = cost_section(vocab)
    real_sizes_section(model, precision)
    ask_quiz("vocab_size")  # folded: drawn only once its box is opened

    languages_section(choice, vocab, k)


st.title("Vocabulary size: what it buys, what it costs")
page_top(
    "<p>Every merge adds one token to the vocabulary and makes text shorter in tokens. Shorter "
    "sequences are cheaper to process, but every token needs a row in the model's embedding "
    "matrix and a score in its output layer. Pick a training run, then move <strong>one slider</strong> and "
    "watch sequence length, embedding size and output compute move together.</p>"
)
chart_choice()

st.header("1. Sequence length against vocabulary size")
choice = choose_run()
if choice is None:
    st.stop()
if choice.run.steps == 0:
    st.warning("This run has no merges yet, so there is no curve to draw. Train for a few merges "
               "on the Train page, or pick a built-in corpus above.")
    st.stop()
study(choice.ref())  # the slider and all it moves: a fragment
