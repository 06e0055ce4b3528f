"""Vocabulary size: what a bigger vocabulary buys (shorter sequences) and what it costs
(embedding parameters, output-layer FLOPs), on one training run and on real tokenizers.

A thin view: the choices live in ui.vocab.choose, each tab in ui.vocab.curves_tab,
cost_tab and languages_tab, what they draw with in ui.vocab.drawing. Headings and prose are HTML blocks
(ui.vocab.blocks) joined with what follows them, so a first load draws few elements.
"""
import streamlit as st

from ui.quiz.widgets import ask_quiz
from ui.shared.state import folded
from ui.vocab.blocks import heading_html
from ui.vocab.choose import choose_run, choose_vocab
from ui.vocab.cost_tab import REAL_SIZES_KEY, REAL_SIZES_LABEL, cost_section, real_sizes_section
from ui.vocab.curves_tab import curves_section
from ui.vocab.drawing import chart_choice, choice_again, page_top, text_block
from ui.vocab.languages_tab import languages_section


#: the page's three sections, one tab each (bound to `?section=`)
TABS = ("1. Sequence length", "2. What it costs", "3. Ten languages")


@st.fragment
def study(ref: tuple) -> None:
    """The slider and everything it moves (sections 1 to 3, one tab each). A fragment:
    moving the slider, switching tabs, or any control below reruns only this, not the
    title, the run picker and the chart switch above (the run is looked up again by its
    reference: see RunChoice.ref). Only the open tab is drawn."""
    choice = choice_again(ref)
    if choice is None:  # the session's run went away since the page was drawn
        st.rerun(scope="app")
    vocab, k = choose_vocab(choice)
    curves, costs, languages = st.tabs(TABS, key="section", bind="query-params")
    if curves.open:
        with curves:
            text_block(heading_html(2, "1. Sequence length against vocabulary size",
                                    "1-sequence-length-against-vocabulary-size"))
            curves_section(choice, vocab, k)
    if costs.open:
        with costs:
            text_block(
                heading_html(2, "2. What the vocabulary costs a model", "2-what-the-vocabulary-costs-a-model"),
                "<p>A model with vocabulary V and width d stores a d-number vector for every token (the input "
                "embedding, V × d) and scores every token at every step (the output layer, another V × d "
                "unless the two are <em>tied</em>). Start from the vocabulary chosen above or from a published "
                "model.</p>",
            )
            model, precision = cost_section(vocab)
            box = folded(REAL_SIZES_LABEL, REAL_SIZES_KEY)  # drawn only while open
            if box is not None:
                with box:
                    real_sizes_section(model, precision)
            ask_quiz("vocab_size")  # folded: drawn only once its box is opened
    if languages.open:
        with languages:
            languages_section(choice, vocab, k)


st.title("Vocabulary size: what it buys, what it costs")
page_top(
    "<p>Every merge adds one token to the vocabulary and makes text shorter in tokens. Shorter "
    "sequences are cheaper to process, but every token needs a row in the model's embedding "
    "matrix and a score in its output layer. Pick a training run, then move <strong>one slider</strong>: "
    "it sets the size in all three tabs below (sequence length, what it costs a model, ten languages).</p>"
)
chart_choice()

choice = choose_run()
if choice is None:
    st.stop()
if choice.run.steps == 0:
    st.warning("This run has no merges yet, so there is no curve to draw. Train for a few merges "
               "on the Train page, or pick a built-in corpus above.")
    st.stop()
study(choice.ref())  # the slider and all it moves: a fragment
st.page_link("views/explorer.py", label="Open the Vocabulary explorer",
             icon=":material/manage_search:")
