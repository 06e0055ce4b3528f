"""Tokenize: paste text, see how a tokenizer splits it, replay every merge, compare, decode.

A thin view: the sections live in ui/tokenize/widgets.py, the logic in
ui/tokenize/logic.py, the HTML in ui/tokenize/html.py.
"""
import streamlit as st

from ui.tokenize import widgets as tw

st.title("Tokenize text")
st.markdown(
    "Type or paste any text and see the tokens a tokenizer cuts it into. "
    "**Replay merges** steps through the merges that build a token, rank by rank."
)

tw.init_state()
text_side, token_side = tw.layout()  # side by side on a wide screen, if chosen
with text_side:
    tw.controls()

with token_side:
    ready = not tw.no_tokenizer_yet()
    analysis = tw.current_analysis() if ready else None
    if analysis is not None:
        with st.container(key="tokenize-tokens"):  # marked "Updating…" while the text is being typed
            tw.counts(analysis)
            tw.special_notice(analysis)
            tw.tokens(analysis, highlight=tw.replay_highlight(analysis))
if ready:
    with st.container(key="tokenize-view"):
        view = tw.panel_selector()
        if analysis is not None:
            tw.PANEL_FUNCTIONS[view](analysis)
        elif view == "decode":
            tw.view_decode(None)

tw.sync_to_url()
tw.chips_open_replay()
tw.live_typing()  # last: after the tokens are drawn (ui/shared/live_text.py)
