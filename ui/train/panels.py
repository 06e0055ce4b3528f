"""Train page, Streamlit part 2: the panels the page draws.

- `inputs_panel`: the corpus (preset, pasted text, word list, upload) and the settings;
- `mode_bar`: predict mode and presentation view;
- `step_area`: a fragment with the step controls and everything that depends on the
  step (it reruns alone when stepping or playing, so a step stays fast);
- downloads and the share link, inside the fragment (they depend on the step).

Widgets keep their value in its store with `KEY.widget(...)` (ui.shared.state), whose
on_change stores a new value and then calls the page's reaction (ui.train.state.on_*). Drawing goes through the pure helpers in
ui/train/ (drawing.py names them) and ui/train/predict.py.
"""
from __future__ import annotations

import html
import json
from typing import Any
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from bpe_core import END_OF_WORD, PRETOKENIZERS, UNITS, tie_rules
from bpe_core.formats import merges_text, run_to_json, vocab_text
from bpe_core.pretokenize import DESCRIPTIONS
from bpe_core.tie_rules import tie_rule
from ui.classmode import hooks as class_hooks
from ui.classmode import session as class_session
from ui.train import downloads, predict as predict
from ui.shared.markdown import md_error, md_escape
from ui.shared.rawhtml import html_block
from ui.train import corpus_view, drawing, merges, pair_table, sentence, vocab_view
from ui.train import library_match
from ui.train import state as state
from ui.train.run_view import RunView
from ui.shared.state import Key, folded, sidebar_caption
from ui.train.config import (
    MAX_MERGES, SHARE_TEXT_LIMIT, SOURCE_LABELS, SOURCES, UPLOAD_LIMIT_MB, load_presets,
)


UNIT_LABELS = {"char": "characters", "byte": "bytes (UTF-8)"}
EOW_LABELS = {"none": "none", "separate": "separate marker", "attached": "attached to last symbol"}
STOP_LABELS = {"merges": "a number of merges", "vocab": "a vocabulary size"}

PREDICT_NOTE = state.PREDICT_NOTE
#: Rows of the pair table and the merge list in the presentation view (they fit 1920x1080
#: with the bar, the sentence and the corpus).
PRESENT_ROWS = 8

#: The presentation view fits a 1920x1080 projector (about 950 px visible under the
#: browser's bars): no text under 20 px, the page's bottom margin gone, and the three
#: columns (pairs, merges, corpus), the sentence and the merge's examples each scroll
#: inside their own box, sized from the window's height (`vh`), so a long pasted text or
#: the class panel never push the page past the screen. 33rem is the height of everything
#: above and below the columns; a class panel (--tp-class) and a message box (--tp-alert)
#: take their room from the columns (measured at 1920x950, issue 27).
PRESENT_CSS = """
<style>
.stMainBlockContainer { padding-top: 3.9rem; padding-bottom: 1rem; }
.stMainBlockContainer:has(.st-key-class_instructor_panel) { --tp-class: 7.5rem; }
.stMainBlockContainer:has(.st-key-class_side) { --tp-class: 0rem; }
.st-key-class_side { position: sticky; top: 3.9rem; max-height: calc(100vh - 4.9rem); overflow-y: auto;
  overflow-x: hidden; padding-right: .4rem; }
.st-key-class_side [data-testid="stImage"] img { max-width: 100%; height: auto; }
.stMainBlockContainer:has(.st-key-class_student_banner) { --tp-class: 6rem; }
.stMainBlockContainer:has(.st-key-class_question) { --tp-class: 19rem; }
.stMainBlockContainer:has(.stAlert:not(.st-key-class_side .stAlert)) { --tp-alert: 4.5rem; }
.stMainBlockContainer h3 { font-size: 2.1rem; }
.stMainBlockContainer .stButton button p { font-size: 1.3rem; }
.stMainBlockContainer .stSlider [data-testid="stWidgetLabel"] p { font-size: 1.4rem; }
.stMainBlockContainer p, .stMainBlockContainer li, .stMainBlockContainer label,
.stMainBlockContainer [data-testid="stWidgetLabel"] p, .stMainBlockContainer [data-testid="stCaptionContainer"],
.stMainBlockContainer [data-testid="stCaptionContainer"] p, .stMainBlockContainer summary p,
.stMainBlockContainer .tp-cap, .stMainBlockContainer .tp-note, .stMainBlockContainer .tp-badge,
.stMainBlockContainer .tp-d, .stMainBlockContainer [data-testid="stSliderTickBar"] div,
.stMainBlockContainer [data-testid="stSliderThumbValue"], .stMainBlockContainer code,
.stMainBlockContainer .stAlert p, .stMainBlockContainer kbd, .stMainBlockContainer input, .stMainBlockContainer .tp-word .tag, .stMainBlockContainer .tp-word .cnt { font-size: 1.25rem !important; }
.stMainBlockContainer .tp-cap { margin-bottom: .3rem; }
.stMainBlockContainer .tp-sentence.present { max-height: 6.6rem; overflow-y: auto; }
.stMainBlockContainer .tp-effect.present { max-height: 7rem; overflow-y: auto; }
.stMainBlockContainer [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"]:nth-child(3)) > [data-testid="stColumn"] {
  max-height: max(10rem, calc(100vh - 33rem - var(--tp-class, 0rem) - var(--tp-alert, 0rem))); overflow-y: auto; }
</style>
"""


#: Keyed containers: Streamlit gives them the class `st-key-<key>`, which BAR_CSS styles.
BAR_KEY = "train_w_bar"
NAV_KEY = "train_w_merge_nav"
BUTTONS_KEY = "train_w_buttons"
#: The note about the step controls (left out on a phone, where it speaks of keys).
HINT_KEY = state.WIDGETS.key("hint")
#: The last step's note and its "Train more merges" button.
END_KEY = "train_w_end"
#: The play speed button (goes round state.SPEEDS).
SPEED_KEY = state.WIDGETS.key("speed")
#: The "Download and share" expander (its open state is a widget value).
SHARE_KEY = state.WIDGETS.key("share")
#: The "Corpus and settings" expander (its open state is a widget value).
SETTINGS_KEY: Key[bool] = state.WIDGETS.key("settings")

#: What the step controls do, said once above them (their tooltips cost time at every step).
CONTROLS_HINT = ("**Step** and **Back** move one merge (keys → and ←); Back replays the first merges, it never "
                 "retrains. **Reset** returns to step 0, **Play** steps on its own and **Speed** picks how fast (2, 1, 0.5 or "
                 "0.3 s per step, one click each), and the slider jumps to any step.")
#: The merge list's heading and its note, one block.
NAV_HEAD = '<div class="tp"><div class="tp-h">Merge list</div><p class="tp-cap">{note}</p></div>'

BAR_CSS = f"""
<style>
div:has(> .st-key-{BAR_KEY}) {{ position: sticky; top: 3.75rem; z-index: 50; }}
.st-key-{BUTTONS_KEY} .stSlider {{ min-width: 14rem; }}
.st-key-{BUTTONS_KEY} > div:has(.stSlider) {{ flex: 1 1 14rem; }}
.st-key-{BAR_KEY} {{ background: var(--tp-bg, #fff); padding: .3rem 0 .4rem 0;
  border-bottom: 1px solid rgba(128,128,128,.35); }}
/* The bar sticks under the page header: the header is painted, so nothing shows through. */
header[data-testid="stHeader"] {{ background: var(--tp-bg, #fff); }}
@media (prefers-color-scheme: dark) {{ .st-key-{BAR_KEY}, header[data-testid="stHeader"] {{ --tp-bg: #0e1117; }} }}
.st-key-{NAV_KEY} button {{ justify-content: flex-start; min-height: 1.9rem; padding: .1rem .5rem;
  border-bottom: 1px solid rgba(128,128,128,.25); border-radius: 4px; }}
.st-key-{NAV_KEY} button > div {{ justify-content: flex-start; width: 100%; }}
.stMainBlockContainer .st-key-{NAV_KEY} .stButton button p {{ font-size: 1rem; text-align: left; overflow-wrap: anywhere;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }}
/* On a phone the bar is one compact row that sticks too: Back, "Step k of n" (the slider's
   label; its track is left out, the merge list jumps), Step and Play (its icon, its name
   kept for screen readers), with the step's sentence right under it. Reset, Speed, the
   keyboard hints and the note about the keys are left out there. */
@media (max-width: 640px) {{
  .st-key-{BUTTONS_KEY} {{ flex-wrap: nowrap; align-items: center; gap: .35rem; }}
  .st-key-train_w_btn_reset, .st-key-{SPEED_KEY}, .st-key-{HINT_KEY} {{ display: none; }}
  .st-key-train_w_btn_back {{ order: 1; }}
  .st-key-{BUTTONS_KEY} > div.st-key-train_w_step {{ order: 2; flex: 1 1 auto; min-width: 0; }}
  .st-key-train_w_btn_step {{ order: 3; }}
  .st-key-train_w_btn_play {{ order: 4; }}
  .st-key-train_w_step [role="group"] {{ display: none; }}
  .st-key-{BUTTONS_KEY} .stSlider {{ min-width: 0; }}
  .st-key-train_w_step [data-testid="stWidgetLabel"] {{ justify-content: center; margin: 0; min-height: 0; }}
  .st-key-train_w_step [data-testid="stWidgetLabel"] p {{ font-size: 1rem; font-weight: 600; white-space: nowrap; }}
  .st-key-{BUTTONS_KEY} kbd {{ display: none; }}
  .st-key-{BUTTONS_KEY} button {{ padding-left: .6rem; padding-right: .6rem; }}
  .st-key-train_w_btn_play [data-testid="stMarkdownContainer"] {{ position: absolute; width: 1px; height: 1px;
    overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }}
  .st-key-{BAR_KEY} .tp-sentence {{ font-size: 1rem; line-height: 1.75; padding: .2rem .6rem; border-left-width: 4px; }}
  .st-key-{BAR_KEY} .tp-sentence .bpe-tokens {{ font-size: 1rem; }}
  /* at the last step, "Train more merges" comes first, right under the sentence */
  .st-key-{END_KEY} > .st-key-train_w_btn_more {{ order: -1; }}
}}
</style>
"""


def _w(name: str) -> Key[Any]:
    """A widget's key, `train_w_<name>`: dashes/underscores only, so the browser can find
    it by class (`.st-key-train_w_units`)."""
    return state.WIDGETS.key(name)


# ---- the corpus and the settings -----------------------------------------------------------
def inputs_panel(view: RunView) -> None:
    """The corpus and the settings, in an expander that stays closed while a run is on
    screen and nothing needs attention (so the step controls sit in the first viewport);
    it opens for an error or an upload still waiting for its file, stays open while the
    reader edits, and folds at the next full rerun after they step."""
    waiting = state.SOURCE.get() == "upload" and state.UPLOAD_TEXT.get() is None
    needs = bool(state.ERROR.get()) or waiting or bool(state.UPLOAD_ERROR.get()) or state.EDITING.get()
    # Opened for what needs attention, folded once that is over (the reader stepped);
    # in between the reader opens and closes it at will.
    if needs:
        SETTINGS_KEY.set(True)
    elif state.SETTINGS_NEEDED.get():
        SETTINGS_KEY.set(False)
    state.SETTINGS_NEEDED.set(needs)
    # A fixed label: the browser keeps the box open while the reader edits (a label that
    # named the corpus would change with each edit and fold the box mid-typing); the
    # sidebar names the run. Its ~20 widgets are drawn only while it is open: folded,
    # they were the last thing a first visit waited for (each kind's script fetched and
    # drawn out of sight); opening it reruns the page.
    box = folded("**Corpus and settings**", SETTINGS_KEY, icon=":material/tune:")
    if box is not None:
        with box:
            _corpus_inputs()
            _settings_inputs()
            if state.ERROR.get():
                st.error(md_error(state.ERROR.get()) + "\n\nThe page still shows the previous corpus and settings.", icon=":material/error:")
    for note in view.notes:
        st.warning(md_escape(note))


def _corpus_inputs() -> None:
    st.radio("Corpus", SOURCES, horizontal=True, format_func=SOURCE_LABELS.get,
             **state.SOURCE.widget(_w("source"), on_change=state.on_source))
    source = state.SOURCE.get()
    presets = load_presets()
    if source == "preset":
        st.selectbox("Preset", list(presets), format_func=lambda p: presets[p].title,
                     **state.PRESET.widget(_w("preset"), on_change=state.on_preset))
        chosen = presets[state.PRESET.get()]
        # the title says what the corpus is; where it comes from is the line under it
        st.caption(f"From {chosen.source}. {chosen.note}" if chosen.source else chosen.note)
    elif source == "text":
        st.text_area("Your text (split into words by the pre-tokenizer)", height=150,
                     **state.TEXT.widget(_w("text"), on_change=state.on_corpus_text),
                     help=f"Press Ctrl+Enter or click outside to train. Half of an emoji (an unpaired surrogate) cannot "
                          f"be sent to the server: it is replaced by �. Texts up to {SHARE_TEXT_LIMIT} "
                          "characters travel in the share link. Windows line endings (\\r\\n) count as one "
                          "line break (\\n), here, in uploads and on the command line.")
    elif source == "words":
        st.text_area("Word counts: one `word count` per line, e.g. `low 5`", height=150,
                     **state.WORDS.widget(_w("words"), on_change=state.on_corpus_text),
                     help="Lines starting with # are comments. Press Ctrl+Enter or click outside to train. "
                          "Half of an emoji (an unpaired surrogate) cannot be sent to the server: it is replaced by �.")
    else:
        _upload_inputs()


def _upload_inputs() -> None:
    """The uploader and its options, in a fragment. Picking a new file where one was
    already chosen first removes the old one, which reruns the uploader's fragment
    only (it used to rerun, and redraw, the whole page while the new file was still
    on its way); a file read, or a change of how to read it, reruns the whole page,
    which trains on it."""
    st.fragment(_upload_fragment)()


def _upload_fragment() -> None:
    if state.UPLOAD_CHANGED.pop():
        st.rerun(scope="app")
    wk = _w("upload")
    st.file_uploader(
        f"Upload a plain-text file (.txt, UTF-8, at most {UPLOAD_LIMIT_MB} MB)", type=["txt"], key=wk,
        max_upload_size=UPLOAD_LIMIT_MB, on_change=state.on_upload, args=(wk,),
        help=f"The server refuses files over {UPLOAD_LIMIT_MB} MB. A 1 MB text trains in a few seconds.",
    )
    st.radio("Read the file as", ["text", "words"], horizontal=True,
             format_func={"text": "text", "words": "a word-count list"}.get,
             **state.UPLOAD_KIND.widget(_w("upload_kind"), on_change=state.on_upload_kind))
    if state.UPLOAD_ERROR.get():
        st.error(md_error(state.UPLOAD_ERROR.get()) + " The page keeps the previous corpus.", icon=":material/error:")
    if state.UPLOAD_TEXT.get() is None:
        st.info(f"Choose a .txt file (at most {UPLOAD_LIMIT_MB} MB). Until then the page shows the previous corpus.")
    else:
        st.caption(f"Using **{md_escape(state.UPLOAD_NAME.get())}** ({len(state.UPLOAD_TEXT.get()):,} characters).")


def _setting(name: str) -> tuple[str, dict]:
    wk = _w(name)
    return wk, state.setting(name).widget(wk, on_change=state.on_setting, args=(name,))


EOW_HELP = (
    "How a word's end is marked, so a merge can tell a word's last letters from the same letters inside a word. "
    "**none**: not marked (Hugging Face's BpeTrainer by default, GPT-2's bytes). "
    "**separate marker**: </w> is a symbol of its own after each word, so t + </w> can merge like any pair "
    "(Sennrich's Algorithm 1 as printed). "
    "**attached to last symbol**: the last letter carries the marker, t</w>, which is one symbol that differs "
    "from t; t + </w> is never a pair (subword-nmt learn-bpe, BpeTrainer's end_of_word_suffix)."
)
_LIBRARY = _w("library")


def _library_choice(s) -> None:
    """One choice that sets everything a library's trainer fixes (ui/train/library_match.py);
    it shows the library the current settings match, or "my own settings"."""
    _LIBRARY.set(library_match.matching(s))
    labels = {library_match.OWN: "my own settings (below)", **{m.name: m.label for m in library_match.MATCHES}}
    st.selectbox(
        "Match a library", list(labels), format_func=labels.get, key=_LIBRARY, on_change=_on_library,
        help="Sets the end of word, the tie rule and the minimum count so the merges are, merge by merge, the "
             "ones the library makes on the same words: subword-nmt learn-bpe (</w> attached, ties to the "
             "largest pair as strings, at least 2 occurrences) or Hugging Face's BpeTrainer (no end mark or "
             "end_of_word_suffix='</w>', ties to the smallest ids).")


def _on_library() -> None:
    name = _LIBRARY.get()
    if name == library_match.OWN:
        return
    state.interaction(editing=True)
    state.stop_playing()
    state.set_settings(library_match.apply(state.settings(), name))


def _whitespace_note() -> str:
    """For prose split at spaces: punctuation stays glued to words; suggest gpt2 (markdown,
    the corpus's words escaped)."""
    example = ""
    view = state.ACTIVE.get() and state.current_view()
    if view is not None:
        words = view.run.words.words
        known = set(words)
        glued = next((w for w in words[:20_000] if len(w) > 1 and w[-1] in ".,;:!?" and w[:-1] in known), None)
        if glued:
            example = md_escape(f" (here “{glued}” and “{glued[:-1]}”)")
    return ("With the whitespace pre-tokenizer punctuation stays glued to words: “dog.”, “dog,” and “dog” are "
            f"three different words{example}. For prose, **gpt2** cuts punctuation off, as real tokenizers do.")


def _settings_inputs() -> None:
    """Three columns, each a stack of full-width widgets (they stay readable on a laptop)."""
    s = state.settings()
    corpus = state.requested_corpus()
    words_kind = corpus is not None and corpus.kind == "words"
    _library_choice(s)
    c1, c2, c3 = st.columns(3, gap="medium")
    with c1:
        _, kw = _setting("units")
        st.radio("Units", UNITS, horizontal=True, format_func=UNIT_LABELS.get, **kw)
        _, kw = _setting("end_of_word")
        st.selectbox("End of word", END_OF_WORD, format_func=EOW_LABELS.get, help=EOW_HELP, **kw)
        _, kw = _setting("marker")
        st.text_input("End-of-word marker", max_chars=12, disabled=s.end_of_word == "none", **kw)
    with c2:
        _, kw = _setting("pretokenizer")
        st.selectbox("Pre-tokenizer", PRETOKENIZERS, disabled=words_kind,
                     help="BPE never merges across the pieces the pre-tokenizer makes.", **kw)
        st.caption("A word-count list is already split into words." if words_kind
                   else DESCRIPTIONS[state.setting("pretokenizer").get()])
        if not words_kind and s.pretokenizer == "whitespace":
            st.caption(_whitespace_note())
        _, kw = _setting("tie_break")
        st.selectbox("Tie rule", tie_rules.TIE_RULES, **kw,
                     help="Which of several equally frequent pairs merges. "
                     + " ".join(f"{r.name}: {r.explanation}." for r in tie_rules.RULES))
        st.caption(tie_rule(state.setting("tie_break").get()).caption)
    with c3:
        _, kw = _setting("stop")
        st.selectbox("Stop at", ["merges", "vocab"], format_func=STOP_LABELS.get, **kw)
        if s.stop == "merges":
            _, kw = _setting("merges")
            st.number_input("Number of merges", min_value=0, max_value=MAX_MERGES, step=1, **kw,
                            help=f"At most {MAX_MERGES:,}.")
        else:
            _, kw = _setting("vocab_size")
            st.number_input("Target vocabulary size", min_value=1, max_value=1_000_000, step=1, **kw,
                            help="Base symbols plus merged tokens.")
        _, kw = _setting("min_count")
        st.number_input("Minimum count", min_value=0, step=1, help="Stop when the best pair occurs fewer times.", **kw)


# ---- mode and view -------------------------------------------------------------------------
def mode_bar() -> None:
    c1, c2 = st.columns(2, vertical_alignment="center")
    with c1:
        wk = _w("predict")
        wk.set(state.MODE.get() == "predict")
        st.toggle("Predict mode", key=wk, on_change=state.on_toggle, args=(wk, state.MODE, "predict", "explore"),
                  help="Before each merge, guess which pair merges next; the page grades your answer.")
    with c2:
        wk = _w("present")
        wk.set(state.LAYOUT.get() == "present")
        st.toggle("Presentation view", key=wk, on_change=state.on_toggle, args=(wk, state.LAYOUT, "present", "normal"),
                  help="Large type; only the pair table, the merge list and the corpus.")
    for problem in state.LINK_PROBLEMS.get():
        st.warning(md_escape(problem))


def presentation_css() -> None:
    if state.LAYOUT.get() == "present":
        st.html(PRESENT_CSS)


# ---- the step area (a fragment) -------------------------------------------------------------
def step_area() -> None:
    # The page's CSS is drawn here, outside the fragment: a step reruns only the
    # fragment, and what the full run drew stays on the page (8.5 kB a step saved).
    st.html(drawing.PAGE_CSS + BAR_CSS)
    if state.LAYOUT.get() != "present":  # drawn once per page run, not at every step
        with st.container(key=HINT_KEY):
            st.caption(CONTROLS_HINT)
    state.END_PENDING.set(False)  # a full run: the timer is set afresh just below
    interval = state.SPEEDS[state.SPEED.get()] if state.PLAYING.get() else None
    state.CAPTION_FOLLOWS.set(class_session.following())
    st.fragment(run_every=interval)(_step_fragment)()
    if state.CAPTION_FOLLOWS.get():  # the sidebar's line, outside the fragment (see sidebar_caption)
        sidebar_caption(following=class_session.following())


def _step_fragment() -> None:
    class_session.instructor_run_starts()  # a class's students wait for the instructor's run
    if state.take_app_rerun():
        st.rerun(scope="app")  # Play/Pause changed: the timer is set on a full rerun
    if state.END_PENDING.get():
        st.rerun(scope="app")  # play ended on the previous tick: a full run switches the timer off
    view = state.current_view()
    class_hooks.before_step(view)  # a following student woken by the class reads it first
    # The last merge of a play is drawn like any other; the app-wide rerun that stops
    # the timer waits for the next tick. Rerunning straight away let a late timer tick
    # on a busy server cut that rerun short and leave the previous step's elements on
    # screen next to the new ones.
    if not state.take_skip_tick() and state.tick(view):
        state.END_PENDING.set(True)
    k = state.step()
    present = state.LAYOUT.get() == "present"
    predicting = state.MODE.get() == "predict"
    # The control bar (buttons, slider, the sentence) sticks to the top of the window.
    with st.container(key=BAR_KEY):
        _controls(view, k, predicting)
        if view.steps and (k or not predicting):
            said = sentence.explain_step(view, k, present=present)
            # data-announce: the page's live region reads this out at each step (ui/shared/a11y.py)
            spoken = f"Step {k} of {view.steps}. " + said.text.replace(" -> ", " into ")
            html_block(f'<div data-announce="{html.escape(spoken, quote=True)}">{said.html}</div>')
        if view.steps and k == view.steps:
            _end_of_run(view)
    if view.steps == 0:
        st.info(view.run.stop_message() + " There is nothing to step through: change the settings or the corpus.")
    elif predicting:
        _predict_view(view, k, present)
    else:
        _explore_view(view, k, present)
    if not present:
        _vocab_and_figures(view, k)
        _downloads_and_link(view, k)
    state.publish(view)
    class_hooks.after_step(view, k)  # an instructor's step goes to the class
    state.sync_url()
    if state.CAPTION_FOLLOWS.get():
        if not class_session.following() and class_session.fragment_run():
            # stopped following in this run: the full run's line (no step) gives way to
            # this tab's own, drawn from here; a fragment's write would add a second line
            st.rerun(scope="app")
    else:
        sidebar_caption()  # a step reruns only this fragment: keep the sidebar in step
    class_hooks.after_draw(view)  # a student's class panel, if what it says changed


def _play_help(view: RunView, playing: bool, predicting: bool) -> str:
    """The Play/Pause button's tooltip, for the state it is in."""
    if playing:
        return "Pause: stop at this step"
    if predicting:
        return "Predict mode waits for your answers: Play is off"
    if view.steps == 0:
        return "Nothing to play: this run has no merges"
    return f"Step automatically, one merge every {state.SPEEDS[state.SPEED.get()]:g} s (the Speed button changes it)"


def _controls(view: RunView, k: int, predicting: bool) -> None:
    n = view.steps
    playing = state.PLAYING.get()
    # Predict mode: Step waits for an answer; until then it is "Skip" (marked skipped).
    asking = predicting and k < n and (view.key, k) not in state.RESULTS.get()
    # One row that wraps on a phone (columns would stack the buttons one per line).
    row = st.container(horizontal=True, vertical_alignment="bottom", gap="small", key=BUTTONS_KEY)
    # No tooltips on Reset, Back, Step and the slider: each cost the browser ~6 ms at every
    # step (a floating overlay measured on render); CONTROLS_HINT above the bar says it.
    row.button("Reset", icon=":material/first_page:", key="train_w_btn_reset", on_click=state.on_reset, disabled=k == 0 and not playing)
    row.button("Back", icon=":material/navigate_before:", key="train_w_btn_back", on_click=state.on_step_back, disabled=k == 0,
               shortcut="Left")
    if asking:
        row.button("Skip", icon=":material/skip_next:", icon_position="right", key="train_w_btn_step",
                   on_click=state.on_skip, args=(view.key, k), type="secondary", shortcut="Right",
                   help="Skip this question (the score counts it as skipped) and do the merge")
    else:
        row.button("Step", icon=":material/navigate_next:", icon_position="right", key="train_w_btn_step", on_click=state.on_step_forward, disabled=k >= n,
                   type="primary", shortcut="Right")
    row.button("Pause" if playing else "Play", icon=":material/pause:" if playing else ":material/play_arrow:", key="train_w_btn_play", on_click=state.on_play_pause,
               disabled=(n == 0) or (predicting and not playing), help=_play_help(view, playing, predicting))
    # Speed: one button that goes round the four speeds, beside Play (a row of segmented
    # buttons above the bar cost a first visit the button-group script and ~0.08 s).
    row.button(state.speed_label(state.SPEED.get()), icon=":material/speed:", key=SPEED_KEY, on_click=state.on_next_speed,
               disabled=n == 0 or predicting, type="tertiary")
    if n > 0:
        state.STEP_SLIDER.set(k)
        # value=k (the same as the key's): without it Streamlit copies the whole session
        # state at each draw to guess the slider's kind (~0.7 ms a step per student)
        row.slider(f"Step {k} of {n}", min_value=0, max_value=n, value=k, key=state.STEP_SLIDER,
                   on_change=state.on_jump, width="stretch")


def _end_of_run(view: RunView) -> None:
    """At the last step, in the bar: why training stopped and, when it stopped at the limit
    it was set to, "Train more merges" right there (a student never chose that limit: it
    came with the preset, folded away in Corpus and settings)."""
    run = view.run
    # not in a class: the class steps through one fixed run, and more merges would leave it
    extra = 0 if class_session.role() else state.more_merges(view)
    if not extra:
        st.success(run.stop_message(), icon=":material/flag:")
        return
    limit = (f"after {run.steps} merges" if state.settings().stop == "merges"
             else f"at a vocabulary of {run.vocab_size(run.steps)}")
    with st.container(horizontal=True, vertical_alignment="center", gap="small", key=END_KEY):
        st.success(f"Training stopped {limit}, where this run is set to stop (**Corpus and settings**, "
                   "Stop at).", icon=":material/flag:", width="stretch")
        st.button(f"Train {extra} more merges", icon=":material/add:", key="train_w_btn_more",
                  on_click=state.on_train_more, type="primary")


#: Runs on more distinct words than this skip the subword-nmt line (it trains one merge more).
LIBRARY_LINE_WORDS = 5_000


def _library_line(view: RunView, k: int) -> None:
    """At merge 1 of a run that differs from subword-nmt's: what subword-nmt does here and why."""
    words = view.run.words
    if k != 1 or len(words.words) > LIBRARY_LINE_WORDS:
        return
    line = library_match.subword_nmt_line(words, state.settings(), tuple(view.run.events[0].pair_text))
    if line:
        st.caption(md_escape(line))


def _explore_view(view: RunView, k: int, present: bool) -> None:
    if not present:
        _library_line(view, k)
    if not present and class_session.following() and not class_hooks.hides_next(view, k):
        _following_view(view, k)
        return
    html_block(merges.merge_effect_html(view, k, present=present))
    rows = PRESENT_ROWS if present else None
    window = PRESENT_ROWS if present else drawing.MERGES_SHOWN
    if present:
        c_pairs, c_merges, c_corpus = st.columns([1.3, 0.8, 1.2], gap="medium")
    else:
        c_pairs, c_merges = st.columns([1.25, 1], gap="large")
    with c_pairs:
        # a class question about the next merge is open: no counts, no winner (as predict mode)
        hidden = predict.row_order(view, k, view.key, hide_counts=True) if class_hooks.hides_next(view, k) else None
        html_block(pair_table.pair_section_html(view, k, present=present, max_rows=rows, hidden_order=hidden))
    with c_merges:
        _merge_nav(view, k, window)
    if k > drawing.MERGES_SHOWN and not present:
        if st.toggle("Show all merges so far", key="train_w_all_merges"):
            st.dataframe(_merges_frame(view, k), hide_index=True, height=300)
    if present:
        with c_corpus:
            _corpus(view, k, present)
    else:
        _corpus(view, k, present)


#: The merge list's note while the tab follows a class (its rows are a table, not buttons).
FOLLOW_NOTE = "You follow the class: click Explore on my own to jump to a merge."


def _following_view(view: RunView, k: int) -> None:
    """A student following a class (explore mode, the normal view, no question pending):
    the same content as `_explore_view` in two elements, not twenty-five. The merge's
    effect, the pair table and the merge list are one block of HTML (the table and the
    list side by side, under each other on a narrow screen: CSS decides, as
    `merges.tables_html`), the merge list a table instead of buttons (`_merge_nav`), then
    the corpus. Every part comes from the step cache: drawn once per run and step for the
    whole class. At each step the server sends each student its elements one by one, and
    their number, more than their bytes, is what a step costs it (docs/class_mode.md, "Load")."""
    html_block(merges.merge_effect_html(view, k) + '<div class="tp-grid"><section>'
            + pair_table.pair_section_html(view, k) + "</section><section>"
            + (NAV_HEAD.format(note="No merges yet. Step makes the first.") if k == 0 else
               NAV_HEAD.format(note=FOLLOW_NOTE) + merges.merge_list_html(view, k))
            + "</section></div>")
    if k > drawing.MERGES_SHOWN:
        if st.toggle("Show all merges so far", key="train_w_all_merges"):
            st.dataframe(_merges_frame(view, k), hide_index=True, height=300)
    _corpus(view, k, False)


def _merge_nav(view: RunView, k: int, window: int) -> None:
    """The merge list as a navigator: one button per merge (keyboard: Tab, Enter), the
    current one marked; a click jumps to that step.

    While the tab follows a class, the list is one block of HTML drawn once per run, step
    and window for every student (`merges.merge_list_html`, shared by the step cache):
    up to 15 buttons at every step for each of 150 students were a third of the server's
    work per step (profile in docs/class_mode.md, "Load"), and a jump would leave the
    class's pace anyway."""
    if k == 0:
        html_block(NAV_HEAD.format(note="No merges yet. Step makes the first."))
        return
    if class_session.following():
        html_block(NAV_HEAD.format(note=FOLLOW_NOTE)
                + merges.merge_list_html(view, k, window=window, present=state.LAYOUT.get() == "present"))
        return
    ranks = merges.merge_window(k, window)
    first = ranks[0]
    # the heading and the note in one block above the rows: one element fewer per step
    html_block(NAV_HEAD.format(note="Click a merge to go to its step."
                            + (f" Merges {first} to {k} of {k} so far." if first > 1 else "")))
    with st.container(key=NAV_KEY, gap=None):
        for r in ranks:
            label = merges.merge_row_label(view, r)
            st.button(md_escape(label + ("  ◀ now" if r == k else "")), key=f"train_w_goto_{r}",
                      type="primary" if r == k else "tertiary", on_click=state.on_goto, args=(r,), width="stretch")


def _corpus(view: RunView, k: int, present: bool) -> None:
    sample = corpus_view.corpus_sample(view, k)
    title = f"The corpus after {k} merge{'s' if k != 1 else ''}" if k else "The corpus at step 0"
    caption = sample.caption + (" Outlined words were changed by this merge; its new token is highlighted." if k else "")
    # the heading and the caption inside the corpus's HTML block: two elements fewer at every step
    html_block(f'<h3 class="tp-h3">{title}</h3><p class="tp-cap">{html.escape(caption)}</p>'
            + corpus_view.corpus_html(view, k, present=present, sample=sample))


def _merges_frame(view: RunView, k: int) -> pd.DataFrame:
    evs = view.run.events[:k]
    return pd.DataFrame({
        "rank": [e.step for e in evs],
        "left": [view.label(e.pair[0]) for e in evs],
        "right": [view.label(e.pair[1]) for e in evs],
        "new token": [view.label(e.token_id) for e in evs],
        "count": [e.count for e in evs],
        "tied pairs": [e.tie_count for e in evs],
    })


def _vocab_and_figures(view: RunView, k: int) -> None:
    # one element: the heading, figures, vocabulary, chart
    html_block('<h3 class="tp-h3">Vocabulary and figures</h3>' + vocab_view.vocab_section_html(view, k))


def _downloads_and_link(view: RunView, k: int) -> None:
    """Drawn only while open (opening it reruns the step area): folded, it would still
    send its ~15 elements at every step."""
    run = view.run
    box = folded("**Download and share**", SHARE_KEY)
    if box is None:
        return
    with box:
        scope = st.radio("Download", ["step", "all"], horizontal=True,
                         **state.DL_SCOPE.widget(_w("dl_scope"), on_change=state.interaction),
                         format_func={"step": f"the first {k} merges (this step)",
                                      "all": f"all {run.steps} merges"}.get)
        n = k if scope == "step" else run.steps
        stem = f"bpe-{n}-merges"
        c = st.columns(3)
        c[0].download_button("Tokenizer: merges + vocabulary (JSON)",
                             data=lambda: json.dumps(run_to_json(run, n), ensure_ascii=False, indent=1),
                             file_name=f"{stem}.json", mime="application/json", on_click="ignore",
                             key="train_w_dl_json")
        c[1].download_button("Merges (.txt)", data=lambda: merges_text(run, n), file_name=f"{stem}-merges.txt",
                             mime="text/plain", on_click="ignore", key="train_w_dl_merges")
        c[2].download_button("Vocabulary (.txt)", data=lambda: vocab_text(run, n), file_name=f"{stem}-vocab.txt",
                             mime="text/plain", on_click="ignore", key="train_w_dl_vocab")
        downloads.show(run, n, stem)
        params = state.link_params()
        base = st.context.url or ""
        st.markdown("**Link to this view** (corpus, settings and step):")
        st.code(f"{base}?{urlencode(params)}", language=None)
        corpus, _ = state.active_corpus()
        if not corpus.shareable:
            st.caption(f"The link cannot carry this corpus (uploaded, or longer than {SHARE_TEXT_LIMIT} "
                       "characters): whoever opens it sees the default preset with these settings.")


# ---- predict mode --------------------------------------------------------------------------
def _predict_view(view: RunView, k: int, present: bool) -> None:
    results = state.RESULTS.get()
    sc = predict.score(results)
    if k >= view.steps:
        st.info(f"Training is over. Step back or reset to predict again. {sc.text()}")
        _merge_list_and_corpus(view, k, present)
        return
    html_block(merges.merge_effect_html(view, k, present=present))
    answered = results.get((view.key, k))
    class_hides = class_hooks.hides_next(view, k)  # a class question about this merge is open
    left, right = st.columns([1.1, 1], gap="large")
    with left:
        st.subheader(f"Which pair merges next (merge {k + 1})?")
        wk = _w("show_counts")
        wk.set(not state.HIDE_COUNTS.get())
        st.toggle("Show the counts", key=wk, on_change=_on_show_counts, args=(wk,),
                  disabled=answered is not None or class_hides,
                  help="Hidden by default: the table is sorted by count, so the counts would give the answer "
                       "away. Count the pairs in the corpus below yourself.")
        hide = class_hides or (state.HIDE_COUNTS.get() and answered is None)
        order = predict.row_order(view, k, view.key, hide_counts=state.HIDE_COUNTS.get() or class_hides)
        html_block(pair_table.pair_table_html(view, k + 1, reveal=answered is not None and not class_hides,
                                       hide_counts=hide, order=order,
                                       numbered=True, present=present, winner_badge="merges next"))
        sample = corpus_view.corpus_sample(view, k)
        words = [w for _, ws in sample.groups for w in ws]
        q = predict.split_question(view, k, words, view.key)
        if answered is None:
            if PREDICT_NOTE.get():
                st.warning(md_escape(PREDICT_NOTE.get()))
            _predict_form(view, k, order, q)
        else:
            _predict_feedback(view, k, answered, q)
        st.caption(sc.text())
        if results:
            st.button("Reset score", key="train_w_btn_reset_score", on_click=state.reset_score)
    with right:
        st.subheader("Merge list")
        html_block(merges.merge_list_html(view, k, present=present))
    _corpus(view, k, present)


def _on_show_counts(widget_key: Key[bool]) -> None:
    state.interaction()
    state.HIDE_COUNTS.set(not widget_key.get())


def _merge_list_and_corpus(view: RunView, k: int, present: bool) -> None:
    st.subheader("Merge list")
    html_block(merges.merge_list_html(view, k, present=present))
    _corpus(view, k, present)


def _predict_form(view: RunView, k: int, order: list[int], q: predict.SplitQuestion | None) -> None:
    rows = view.run.events[k].top_pairs
    with st.form("train_predict_form", border=True):
        st.selectbox("Your answer: the pair that merges next", list(range(len(order))), key=_w("pick"),
                     index=None, placeholder="Choose a pair (type to search)",
                     format_func=lambda i: f"#{i + 1}:  {drawing.pair_label(view, rows[order[i]][0])}")
        if q is not None:
            word = view.run.words.words[q.word]
            st.markdown("…and how will this word split after that merge?")
            html_block('<div class="tp"><div class="tp-option">now&nbsp; '
                    + drawing.chips_inline(view, view.tokens_at(q.word, k)) + "</div></div>"
                    + predict.options_html(view, q))
            st.radio("Your answer: the split", list(predict.LETTERS[: len(q.options)]), key=_w("split"),
                     index=None, horizontal=True, help=f"The word is {word!r}. Leave it empty to skip.")
        st.form_submit_button("Check my answer", type="primary", key="train_w_btn_check",
                              on_click=_on_check, args=(view.key, k, tuple(order), q))


def _on_check(key: str, k: int, order: tuple[int, ...], q: predict.SplitQuestion | None) -> None:
    state.interaction()
    view = state.current_view()
    if view.key != key or k >= view.steps:
        return
    if _w("pick").get() is None:
        PREDICT_NOTE.set("Choose the pair you think merges next, then check.")
        return
    PREDICT_NOTE.set(None)
    pair = view.run.events[k].top_pairs[order[int(_w("pick").get())]][0]
    result: dict = {"pair": predict.grade_pair(view, k, pair), "picked": pair, "split": None}
    if q is not None and _w("split").get() is not None:
        picked = predict.LETTERS.index(_w("split").get())
        result["split"] = picked == q.answer
        result["split_pick"] = picked
    state.record_answer(key, k, result)


def _predict_feedback(view: RunView, k: int, answered: dict, q: predict.SplitQuestion | None) -> None:
    if answered.get("pair") == "skipped":
        fb = predict.skipped_feedback(view, k)
        html_block(f'<div class="tp-fb bad">{fb.html}</div>')
        return
    fb = predict.pair_feedback(view, k, answered["picked"])
    html_block(f'<div class="tp-fb {"ok" if fb.ok else "bad"}">{fb.html}</div>')
    if q is not None and answered.get("split") is not None:
        sf = predict.split_feedback(view, q, answered["split_pick"])
        html_block(f'<div class="tp-fb {"ok" if sf.ok else "bad"}">{sf.html}</div>')
    st.button("Do the merge", icon=":material/navigate_next:", icon_position="right", key="train_w_btn_next", on_click=state.on_step_forward, type="primary")
