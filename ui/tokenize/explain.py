"""Tokenize page: how an uploaded tokenizer's model builds the tokens of one word.

A tokenizer read from a file (a Hugging Face tokenizer.json, a SentencePiece Unigram
.model) carries `work` (bpe_core.model_work.ModelWork), and the Replay view shows it
instead of the built-in replay:
- a BPE model replays its merges one by one, rank by rank, as the page replays its
  built-in BPE tokenizers (Start / Back / Next / End, a slider, the ladder, a table);
- a WordPiece model shows its longest-match trace: every lookup, and why a word becomes
  the unknown token;
- a Unigram model shows the word's lattice: every piece that matches, its score and
  marginal, and the best path (Viterbi).
The word is the one the model receives (after the file's normalizer and pre-tokenizer),
taken from a token of the text (outlined there) or typed. The lattice, the trace and the
chips are ui/shared/word_views.py's, which the Algorithms page draws too.

widgets.py calls `explains(tok)`, `from_text()` and `show(...)`; everything else is here.
A SentencePiece BPE model (an uploaded .model, or Mistral 7B) replays too: it has no
merge list, so each step joins the pair whose joined piece scores highest, and the intro
says so. What it leaves out: sampling and n-best on the lattice.
"""
from __future__ import annotations

import math
from typing import Callable

import pandas as pd
import streamlit as st

from bpe_core.contracts import ShowsModelWork
from bpe_core.display import bytes_label, visible_text
from bpe_core.formats.pipeline import byte_chars_to_bytes
from bpe_core.model_work import ModelWord
from ui.shared.chips import TokenChip, chips_html as chip_run
from ui.shared.markdown import md_error, md_escape
from ui.shared.stepper import clamped_step, step_controls
from ui.shared.word_views import chips_html, lattice_html, table_height, trace_rows
from ui.tokenize import keys
from ui.tokenize.html import TOKENIZE_CSS
from ui.tokenize.logic import OPTION_LIMIT, Analysis

__all__ = ["explains", "from_text", "show", "word_text", "ladder_html", "WORD_LIMIT", "REPLAY_LIMIT"]

W = "tokenize_w_explain_"    # widget keys

#: The longest word (in characters) whose lattice or trace is drawn: a lattice has a
#: column per character and a trace up to n²/2 lookups.
WORD_LIMIT = 60
#: The longest word (in characters) the replay steps through (as the built-in replay).
REPLAY_LIMIT = 1000

INTROS = {
    "BPE": "This tokenizer's model is **BPE**: a word starts as single characters (or bytes), and the model "
           "merges the adjacent pair that comes first in the file's **merges** list (the lowest rank), "
           "again and again, until no pair of the word is in the list. Step through the merges of one word.",
    "WordPiece": "This tokenizer's model is **WordPiece**: it has no merges to replay. At each position of a word "
                 "it takes the **longest** vocabulary entry that matches (a continuation written with its prefix, "
                 "`##`), then goes on after it. If nothing matches at some position, the **whole word** becomes "
                 "the unknown token. Every lookup it makes:",
    "Unigram": "This tokenizer's model is **Unigram**: it has no merges to replay. Every piece of its vocabulary that "
               "matches somewhere in the word is a candidate with a score (its log-probability); the model "
               "keeps the segmentation with the highest total score (Viterbi). The word's **lattice**:",
    # SentencePiece BPE: merged by piece score, not by a merge list
    "BPE-score": "This tokenizer's model is **SentencePiece BPE**: a word starts as single characters, and the "
                 "model joins the adjacent pair whose joined piece has the **highest score** in its vocabulary "
                 "(the leftmost on equal scores), again and again, until no adjacent pair joins into a piece. "
                 "Step through the merges of one word.",
}


def _by_score(tok: ShowsModelWork) -> bool:
    """A BPE model that merges by piece score, with no merge list (SentencePiece BPE)."""
    return tok.work is not None and tok.work.by_score


def explains(tok) -> bool:
    """Whether the tokenizer's model can show its work here (uploaded files)."""
    return isinstance(tok, ShowsModelWork) and tok.work is not None


def from_text() -> bool:
    """Whether the word comes from a token of the text (then that token is outlined)."""
    return keys.EXPLAIN_SOURCE.get() == "text"


def word_text(tok: ShowsModelWork, word: str) -> str:
    """A word as the page writes it: a byte-level model's word as its bytes (`Ġhi` is
    ` hi`), any other as the model receives it (`▁hi`)."""
    if tok.byte_level:
        return bytes_label(byte_chars_to_bytes(word))
    return word


def ladder_html(tok, replay, upto: int, *, show_whitespace: bool = True) -> str:
    """The merge ladder up to step `upto` of a file's BPE model: one row per merge, its
    rank on the left, the symbols after it as chips, the new token outlined; the current
    row shaded. Escaped (through the chip renderer)."""
    rows = [(None, replay.base, None)] + [(s.rank, s.symbols, s.position) for s in replay.steps]
    out = []
    for k, (rank, symbols, new) in enumerate(rows[: upto + 1]):
        label = "base symbols" if rank is None else f"merge {k} · rank {rank:,}"
        chips = [TokenChip(tok.token_label(sid), title=f"id {sid}", classes=("hl",) if i == new else ())
                 for i, sid in enumerate(symbols)]
        now = " now" if k == upto else ""
        out.append(f'<div class="bpe-row{now}"><span class="bpe-rank">{label}</span>'
                   f"{chip_run(chips, show_whitespace=show_whitespace, block=True)}</div>")
    return TOKENIZE_CSS + f'<div class="bpe-ladder">{"".join(out)}</div>'


# ---- the section ---------------------------------------------------------------------------
def show(tok, a: Analysis, text: str, *, on_token: Callable[[], None], show_ws: bool) -> None:
    """The Replay view for a tokenizer with `work`: pick a word, then its replay, trace or lattice.

    The word comes from the page's chosen token (`keys.TOKEN`, outlined in the text) or is
    typed; `on_token()` is the page's callback once another token is picked (and stored).
    """
    work = tok.work
    st.markdown(INTROS["BPE-score" if work.algorithm == "BPE" and _by_score(tok) else work.algorithm])
    if work.note:
        st.caption(md_escape(work.note))
    st.segmented_control("Word", ["text", "typed"], required=True,
                         format_func={"text": "A token from the text", "typed": "A word you type"}.get,
                         **keys.EXPLAIN_SOURCE.widget(W + "source"))
    allowed = "all" if a.allow_special else ()
    word = _word_from_text(tok, a, text, on_token, allowed) if from_text() else _typed_word(tok)
    if word is None:
        return
    st.html(TOKENIZE_CSS + '<div class="bpe-big">The word as the model receives it: '
            + chips_html([word_text(tok, word.text)], css=False) + "</div>")
    {"BPE": _replay, "WordPiece": _trace, "Unigram": _lattice}[work.algorithm](tok, word.text, show_ws)


def _token_label(a: Analysis, i: int) -> str:
    s = a.spans[i]
    return f"#{i + 1}  {visible_text(s.label)}  (id {'?' if s.id is None else s.id})"


def _word_from_text(tok, a: Analysis, text: str, on_token, allowed) -> ModelWord | None:
    token = keys.TOKEN.get()
    if not a.spans or token is None:
        st.info("No tokens to explain.")
        return None
    n = min(len(a.spans), OPTION_LIMIT)
    st.selectbox(f"Token ({n:,} listed{'; the first ones of the text' if n < a.n_tokens else ''})",
                 range(n), format_func=lambda i: _token_label(a, i), **keys.TOKEN.widget(W + "token", on_change=on_token),
                 help="Its token is outlined in the text above; below, the word it came from.")
    span = a.spans[token]
    if span.special:
        st.info(f"**{md_escape(span.label)}** is a special token (id {span.id}): the model never sees it, "
                "it is matched as a whole before the model runs, only when allowed.")
        return None
    word = tok.word_of(text, span, allowed_special=allowed)  # the word the model received
    if word is None:
        st.info("This token comes from no word of the model (the normalizer added it).")
    return word


def _typed_word(tok) -> ModelWord | None:
    st.text_input("Word or short text", max_chars=REPLAY_LIMIT, **keys.EXPLAIN_TYPED.widget(W + "typed"),
                  help="Run through your file's normalizer and pre-tokenizer, as a text would be.")
    typed = keys.EXPLAIN_TYPED.get()
    if not typed:
        st.info("Type a word, e.g. tokenization.")
        return None
    try:
        words = [w for w in tok.model_words(typed) if not w.added]
    except ValueError as exc:
        st.error(md_error(exc))
        return None
    if not words:
        st.info("The normalizer and pre-tokenizer leave nothing of this text for the model.")
        return None
    if len(words) == 1:
        return words[0]
    key = keys.WIDGETS.key("explain_typed_word", 0)
    if key.get() >= len(words):
        key.set(0)
    pick = st.selectbox(f"The pre-tokenizer cuts this into {len(words)} words: pick one", range(len(words)),
                        key=key, format_func=lambda i: visible_text(word_text(tok, words[i].text)))
    return words[pick]


def _too_long(word: str, limit: int, what: str) -> bool:
    if len(word) <= limit:
        return False
    st.info(f"This word is {len(word):,} characters long; the {what} is drawn for words of up to {limit} "
            "characters. Pick a shorter token or type a word.")
    return True


# ---- BPE: replay -------------------------------------------------------------------------------
@st.fragment
def _replay(tok, word: str, show_ws: bool) -> None:
    """Step through the merges that build `word` (a fragment: stepping reruns only this)."""
    if _too_long(word, REPLAY_LIMIT, "replay"):
        return
    replay = tok.work.replay(word)
    n = len(replay.steps)
    if keys.EXPLAIN_STEP_FOR.get() != (id(tok), word):
        keys.EXPLAIN_STEP_FOR.set((id(tok), word))
        keys.EXPLAIN_STEP.set(0)
    k = clamped_step(keys.EXPLAIN_STEP, n)
    unit = "bytes" if tok.byte_level else "characters"
    st.markdown(f"The word starts as **{len(replay.base)} symbols** ({unit}); **{n} merge{'s' if n != 1 else ''}** "
                f"make{'s' if n == 1 else ''} its **{len(replay.ids)} token{'s' if len(replay.ids) != 1 else ''}**. "
                + ("The rank shown is the new piece's id (pieces are stored best score first)." if _by_score(tok)
                   else "A rank is the merge's place in the file's merges list, from 0.")
                + (" Keys: → next merge, ← back." if n else ""))
    if n:
        step_controls(k, n, store=keys.EXPLAIN_STEP, prefix=W, slider_key=W + "step")
        st.html(TOKENIZE_CSS + _merge_caption(tok, replay, k, show_ws))
    else:
        st.caption("No merge applies: no adjacent pair of this word joins into a piece of the model."
                   if _by_score(tok) else "No merge applies: no adjacent pair of this word is in the file's merges list.")
    st.html(ladder_html(tok, replay, k, show_whitespace=show_ws))
    if n:
        with st.expander("All merges as a table"):
            st.dataframe(pd.DataFrame([
                {"merge": j + 1, "rank": s.rank, "left": visible_text(tok.token_label(s.left)),
                 "right": visible_text(tok.token_label(s.right)), "new token": visible_text(tok.token_label(s.token_id)),
                 "new id": s.token_id}
                for j, s in enumerate(replay.steps)
            ]), hide_index=True)


def _merge_caption(tok, replay, k: int, show_ws: bool) -> str:
    n = len(replay.steps)
    if k == 0:
        return f'<div class="bpe-big">Base symbols: nothing merged yet. Press <b>Next</b> to apply merge 1 of {n}.</div>'
    s = replay.steps[k - 1]
    chips = [TokenChip(tok.token_label(t)) for t in (s.left, s.right, s.token_id)]
    left, right, new = (chip_run([c], start=i, show_whitespace=show_ws) for i, c in enumerate(chips))
    return (f'<div class="bpe-big"><b>Merge {k} of {n}</b> · rank {s.rank:,}: '
            f'<span class="bpe-tokens">{left} + {right} → {new}</span> (id {s.token_id:,})</div>')


# ---- WordPiece: the trace ----------------------------------------------------------------------
def _trace(tok, word: str, show_ws: bool) -> None:
    if _too_long(word, WORD_LIMIT, "trace"):
        return
    trace = tok.work.trace(word)
    st.html(chips_html(trace.tokens))
    if trace.unknown:
        st.warning(md_escape(f"{word} becomes {trace.tokens[0]}: {trace.reason}."))
    st.dataframe(trace_rows(trace), hide_index=True, width="stretch", height=table_height(len(trace.attempts)))


# ---- Unigram: the lattice ----------------------------------------------------------------------
def _lattice(tok, word: str, show_ws: bool) -> None:
    if _too_long(word, WORD_LIMIT, "lattice"):
        return
    lattice = tok.work.lattice(word)
    st.html(lattice_html(lattice))
    st.markdown("**The best path**, the tokens of this word:")
    st.html(chips_html(lattice.best_pieces))
    share = math.exp(lattice.best_score - lattice.log_partition) if lattice.nodes else 1.0
    st.caption(f"{len(lattice.nodes):,} candidate pieces. The best path scores {lattice.best_score:.2f}; "
               f"of all segmentations of the word, the model gives it probability {share:.3f}. An unknown piece "
               "(no piece of one character matches) scores 10 below the lowest score.")
