"""Vocabulary explorer: look inside any tokenizer's vocabulary (one token, search and
filters, overviews, odd tokens, two vocabularies compared). A thin view: the sections
live in ui/explorer/widgets.py, the engine in bpe_core/explore.py."""
import streamlit as st

from ui.explorer import widgets as xw

st.title("Vocabulary explorer")
st.markdown(
    "What is *in* a vocabulary? Pick a tokenizer, then look up one token (its bytes, and for BPE the merges "
    "that built it), search and filter all of them, see how long they are and which scripts they serve, "
    "find the odd ones, or compare two vocabularies."
)
xw.init_state()
chosen = xw.choose_tokenizer()
if chosen is not None:
    name, load = chosen
    token_box = st.container()
    view = xw.view_selector()
    if view in xw.CONTROLS:
        xw.CONTROLS[view](load)
    tok, index = load()  # a built-in's first visit reads its file and builds its index here
    with token_box:
        xw.token_panel(name, tok, index)
    xw.PANELS[view](name, tok, index)
xw.sync_to_url()
