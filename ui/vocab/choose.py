"""The Vocabulary size page's two choices above its tabs: the run to study (the Train
page's tokenizer or a built-in corpus trained here) and the vocabulary size (one slider
for every tab). Values live under `vocab.*` store keys (ui/vocab/keys.py) and are kept in
their widgets with `KEY.widget(...)`, so they survive a visit to another page."""
from __future__ import annotations

import html

import streamlit as st

from ui.shared.markdown import md_error, md_escape
from ui.shared.state import Key, session_label, session_run, session_step
from ui.vocab.charts import (
    picked_vocab,
)
from ui.vocab.blocks import caption_html
from ui.vocab.curves import (
    step_for_vocab,
    unit_name,
)
from ui.vocab import keys
from ui.vocab.drawing import RunChoice
from ui.vocab.sources import (
    BUILTINS,
    MERGE_CHOICES,
    builtin_run,
    curve_key,
)


def choose_run() -> RunChoice | None:
    """The source picker: the session's run from the Train page, or a built-in corpus
    trained here (cached for everyone on this server)."""
    session = session_run()
    options = (["session"] if session is not None else []) + list(BUILTINS)
    titles = {k: b.title for k, b in BUILTINS.items()}
    if session is not None:
        titles["session"] = f"Your tokenizer from the Train page: {md_escape(session_label() or 'your corpus')}"
    default = "session" if session is not None else "english"
    source = st.radio("Training run to study", options, format_func=titles.get,
                      **keys.SOURCE.widget("vocab_w_source", default, valid=options.__contains__))
    if source == "session":
        run = session
        st.html(caption_html(
            f"{html.escape(session_label())}: {run.steps:,} merges, vocabulary {run.vocab_size(run.steps):,} "
            f"({unit_name(run.settings.units)} as base symbols). {html.escape(run.stop_message())}"))
        return RunChoice(run, curve_key(run), "session", "Your Train-page run")

    builtin = BUILTINS[source]
    left, right = st.columns([2, 3])
    units = left.radio(
        "Base symbols", ["byte", "char"], horizontal=True,
        format_func={"byte": "UTF-8 bytes (like GPT-2)", "char": "characters"}.get,
        **keys.UNITS.widget("vocab_w_units"),
    )
    # Six budgets as a radio, not a select slider: a slider measures the page (a forced
    # layout) each time it is drawn, which on a first load cost more than the radio.
    merges = right.radio(
        "Merges to learn (at most)", MERGE_CHOICES, horizontal=True, format_func=lambda n: f"{n:,}",
        **keys.MERGES.key(source, builtin.default_merges).widget("vocab_w_merges"),
    )
    try:
        run = builtin_run(source, units, merges)
    except ValueError as exc:  # only a broken corpus file would get here
        st.error(f"Could not train on the {builtin.short}: {md_error(exc)}")
        return None
    # One caption for the run and for the choice the radio does not offer yet.
    st.html(caption_html(html.escape(
        f"Trained on this page on the first {builtin.fraction:.0%} of the {builtin.short} with GPT-2's "
        f"pre-tokenizer; the rest is held out. {run.stop_message()} Runs are kept for everyone on this "
        "server, so switching back is instant."
        + ("" if session is not None else " No tokenizer trained on the Train page yet in this session; "
           "when there is one, it appears above as a choice."))))
    return RunChoice(run, curve_key(run, (source, units, merges)), source,
                     f"{builtin.short} run ({unit_name(units)})", units, merges)


# ---- which vocabulary size ------------------------------------------------------------
def chosen_store(choice: RunChoice) -> Key[int]:
    """The chosen vocabulary size of this run (each run keeps its own)."""
    return keys.CHOSEN.key(choice.key, _default_vocab(choice))


def _default_vocab(choice: RunChoice) -> int:
    run = choice.run
    if choice.source == "session" and session_step() > 0:
        return run.vocab_size(session_step())
    return run.vocab_size(run.steps // 2)


def on_pick(store: Key[int], low: int, high: int) -> None:
    """Chart click: the picked vocabulary size becomes the chosen one."""
    picked = picked_vocab(keys.CURVES.get())
    if picked is not None:
        store.set(min(max(picked, low), high))


def choose_vocab(choice: RunChoice) -> tuple[int, int]:
    """The vocabulary-size slider shared by every chart and the cost calculator.

    Returns (vocabulary size, the step that reaches it)."""
    run = choice.run
    low, high = run.base_size, run.vocab_size(run.steps)
    store = chosen_store(choice)
    store.set(min(max(int(store.get()), low), high))
    vocab = st.slider(
        "Vocabulary size to study: drag, use the arrow keys, or (with interactive charts) click a point on a curve",
        min_value=low, max_value=high, step=1, **store.widget("vocab_w_chosen"),
    )
    return vocab, step_for_vocab(run, vocab)


# ---- the curves -------------------------------------------------------------------------
