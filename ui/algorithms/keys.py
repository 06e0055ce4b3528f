"""The Algorithms page's session state, declared once (ui.shared.state.Key): the corpus
choice, its own text, the open tab, each view's widget values and the steppers' steps.

A widget's value is kept in its key with `KEY.widget("algo_w_<name>")`, so it survives a
shut tab or another page. Values that belong to one corpus (its size, a word from it) are
families: one key per corpus, `FAMILY.key(widgets.corpus_scope(corpus), default)`.
"""
from __future__ import annotations

from ui.shared.state import Key, KeyFamily

from .logic import DEFAULT_OWN_TEXT, DEFAULT_PRESET

#: Every widget key of the page: `algo_w_<name>`.
WIDGETS = KeyFamily("algo_w_")

CORPUS: Key[str] = Key("algo.corpus", DEFAULT_PRESET)  # a preset's name, or the reader's own text
TEXT: Key[str] = Key("algo.text", DEFAULT_OWN_TEXT)     # the reader's own text
TAB: Key[str | None] = Key("algo.tab", None)            # the open tab's label (None: the first)
#: Tokens beyond the alphabet, per corpus: `algo.extra.<corpus scope>`
EXTRA = KeyFamily("algo.extra.")

# ---- the views (ui/algorithms/*_view.py) -------------------------------------------------
WP_STEP: Key[int | None] = Key("algo.wp.step", None)   # WordPiece's merge on screen
UG_STEP: Key[int | None] = Key("algo.ug.step", None)   # Unigram's event on screen
#: The word WordPiece traces, per corpus: `algo.trace_pick.<corpus scope>`
TRACE_PICK = KeyFamily("algo.trace_pick.")
TRACE_WORD: Key[str] = Key("algo.trace_word", "hugging")  # "another word"
#: The word BPE-dropout splits, per corpus: `algo.dropout_word.<corpus scope>`
DROPOUT_WORD = KeyFamily("algo.dropout_word.")
DROPOUT_P: Key[float] = Key("algo.dropout_p", 0.1)
DROPOUT_SEED: Key[int] = Key("algo.dropout_seed", 0)
DROPOUT_DRAWS: Key[int] = Key("algo.dropout_draws", 6)
#: The word whose Unigram lattice is drawn, per corpus: `algo.lattice_word.<corpus scope>`
LATTICE_WORD = KeyFamily("algo.lattice_word.")
SAMPLE_ALPHA: Key[float] = Key("algo.sample_alpha", 0.2)
SAMPLE_SEED: Key[int] = Key("algo.sample_seed", 0)
SAMPLE_DRAWS: Key[int] = Key("algo.sample_draws", 6)
