"""Train: step through BPE training, merge by merge, forward and back.

A thin view: state and training live in ui/train/state.py, the panels in
ui/train/panels.py, and the pure drawing helpers in ui/train/ (sentence,
pair_table, merges, corpus_view, vocab_view, chart) and ui/train/predict.py.
"""
import streamlit as st

from ui.train import panels as panels
from ui.train import state as state
from ui.train import tie_compare
from ui.shared.markdown import md_error
from ui.classmode import panels as class_panels

state.init()
present = state.LAYOUT.get() == "present"
if not present:
    st.title("Train a BPE tokenizer")
    st.markdown(
        "Pick a corpus, then **step** through byte-pair encoding: each merge joins the most "
        "frequent adjacent pair into a new token. Step back and forth, play, or jump to any "
        "step; ties and the rule that breaks them are named at every step."
    )
view = state.ensure_run()
if present and class_panels.beside_the_step():
    # the projector: the QR code or the question's chart beside the step, not above it
    body, side = st.columns([2.3, 1], gap="medium")
    with side, st.container(key=class_panels.SIDE_KEY):
        class_panels.train_banner(view)
else:
    class_panels.train_banner(view)  # class mode: the instructor's panel or a student's banner
    body = st.container()
with body:
    if present:
        panels.presentation_css()
        if state.ERROR.get():
            st.error(md_error(state.ERROR.get()))
    else:
        panels.inputs_panel(view)
    panels.mode_bar()
    panels.step_area()
class_panels.start_control(view)  # folded to one line; in the presentation view too
tie_compare.show()  # "Compare tie rules" (ui/train/tie_compare.py)
