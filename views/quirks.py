"""Quirks: why models trip over tokens, computed live with real tokenizers, and the
source texts' worked examples reproduced exactly. A thin view: ui.quirks.widgets draws."""
import streamlit as st

from ui.quirks.logic import QUIRKS
from ui.quirks.widgets import page_css, quirk_section, worked_examples

st.title("Tokenizer quirks")
page_css(  # the page's CSS, this text and the links to its sections: one block
    "Models read token ids, not letters. Each section below puts one tricky text through five real "
    "tokenizers (GPT-2, GPT-4's cl100k, GPT-4o's o200k, Mistral 7B and Mistral's Tekken) and draws "
    "the tokens as chips, so you can see what the model sees. Where a source text states a count or "
    "a split, the real result is shown next to it. Open “Try it on your own text” under a section to "
    "recompute it for your own text. At the end, the worked examples of the source texts, merge by merge."
)

for quirk in QUIRKS:
    quirk_section(quirk)
worked_examples()
