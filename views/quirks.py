"""Quirks: why models trip over tokens, computed live with real tokenizers, and the
source texts' worked examples reproduced exactly. A thin view: ui.quirks.widgets draws."""
import streamlit as st

from ui.quirks.widgets import page_css, section_tabs

st.title("Tokenizer quirks")
page_css(  # the page's CSS and this text: one block
    "Models read token ids, not letters. Each tab below puts one tricky text through every real "
    "tokenizer the app ships (OpenAI's GPT-2, cl100k and o200k, Mistral's, Llama 3, Qwen, DeepSeek, a Unigram "
    "model, BERT's WordPiece) and draws "
    "the tokens as chips, so you can see what the model sees. Where a source text states a count or "
    "a split, the real result is shown next to it. Open “Try it on your own text” under a section to "
    "recompute it for your own text. The last tab steps through the source texts' worked examples."
)
section_tabs()
st.page_link("views/explorer.py", label="Open the Vocabulary explorer",
             icon=":material/manage_search:")
