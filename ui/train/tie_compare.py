"""Tie rules side by side: the Train page's corpus trained once with each tie rule, the
merge lists next to each other, and the first step where the rules part, explained.

Every rule in bpe_core.tie_rules.RULES (first-seen, lexicographic, smallest-id, and any
rule added later) trains the corpus and settings on screen up to the run's number of
merges. Until the first tie at the top is broken differently, the runs are the same
merge for merge (same pair table, same ties, same ids), so the step where they part is
explained by that step's ties alone: which pairs tied, and which one each rule took and
why (the rule's own `reason`).

Bounded: at most MAX_MERGES merges and the first MAX_CHARS characters of the corpus
(cut after a newline); the runs come from the Train page's shared, byte-bounded run
cache (ui.train.state.train_view, "train.runs"), so a rule the student switches to
next is already trained. What it leaves out: the later steps' own ties (after the
parting the runs differ and so do their tables).

`compare(runs, n)` is pure (runs in, rows and a sentence out); `show()` draws it.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from bpe_core import TrainingRun
from bpe_core import tie_rules
from bpe_core.tie_rules import tie_rule
from ui.shared.markdown import md_error, md_escape
from ui.shared.state import folded
from ui.train import state
from ui.train.config import Corpus, Settings
from ui.train.run_view import symbol_label

__all__ = ["MAX_MERGES", "MAX_CHARS", "TieComparison", "bounded", "compare", "train_rules", "show"]

#: Merges compared at most (the table is read by a person; training 3 rules stays quick).
MAX_MERGES = 300
#: Characters of the corpus trained at most (a long upload is cut after a newline).
MAX_CHARS = 200_000
#: Tied pairs named in the sentence at most.
NAMED_TIES = 4

TOGGLE = "train_w_tie_compare"
#: the "Compare tie rules" expander's key (True while open)
OPEN = "train_w_tie_open"


@dataclass(frozen=True)
class TieComparison:
    """Each rule's merge list (as "a + b" texts) and where the rules first part.

    `parting` is the 1-based step of the first merge on which two rules differ (None if
    they agree on all `n`); `sentence` says it in words (markdown, user text escaped).
    """

    rules: tuple[str, ...]
    merges: tuple[tuple[str, ...], ...]
    n: int
    parting: int | None
    sentence: str

    def table(self) -> pd.DataFrame:
        """One row per step, one column per rule, and where the rules part."""
        rows = []
        for i in range(self.n):
            cells = [m[i] if i < len(m) else "(stopped)" for m in self.merges]
            if self.parting is not None and i + 1 == self.parting:
                note = "◀ first parting"
            elif len(set(cells)) > 1:
                note = "differ"
            else:
                note = ""
            rows.append({"step": i + 1, **dict(zip(self.rules, cells)), "": note})
        return pd.DataFrame(rows)


def _label(run: TrainingRun, token_id: int) -> str:
    body, eow = run.tokens[token_id]
    return symbol_label(body, eow, run.settings.marker)


def _pair(run: TrainingRun, pair: tuple[int, int]) -> str:
    return f"{_label(run, pair[0])} + {_label(run, pair[1])}"


def _merge_texts(run: TrainingRun, n: int) -> tuple[str, ...]:
    return tuple(_pair(run, e.pair) for e in run.events[:n])


def compare(runs: dict[str, TrainingRun], n: int) -> TieComparison:
    """The merge lists of runs that differ only in their tie rule, side by side, and
    the first step where they part.

    >>> from bpe_core import TrainerSettings, WordTable, train
    >>> words = WordTable.from_word_counts("ab 3\\nzy 1\\ncd 1")
    >>> runs = {r: train(words, TrainerSettings(tie_break=r, merges=3)) for r in ("first-seen", "smallest-id")}
    >>> c = compare(runs, 3)
    >>> c.merges[0][:2], c.merges[1][:2], c.parting
    (('a + b', 'z + y'), ('a + b', 'c + d'), 2)
    """
    rules = tuple(runs)
    merges = tuple(_merge_texts(runs[r], n) for r in rules)
    n = max((len(m) for m in merges), default=0)
    parting = next((i + 1 for i in range(n) if len({m[i] if i < len(m) else None for m in merges}) > 1), None)
    if parting is None:
        ties = sum(1 for e in runs[rules[0]].events[:n] if e.tie_count > 1) if rules else 0
        sentence = (f"The {len(rules)} rules agree on all {n:,} merges"
                    + (f": ties came up at {ties:,} step{'s' if ties != 1 else ''}, but every rule took the same pair."
                       if ties else ": no step had a tie at the top."))
    else:
        sentence = _parting_sentence(runs, parting)
    return TieComparison(rules, merges, n, parting, sentence)


def _parting_sentence(runs: dict[str, TrainingRun], k: int) -> str:
    """Why the rules part at step k: the pairs tied there and each rule's pick."""
    picks = []
    tied_event = None
    for rule, run in runs.items():
        if k > len(run.events):
            picks.append(f"**{md_escape(rule)}** has stopped")
            continue
        e = run.events[k - 1]
        tied_event = tied_event or (run, e)
        picks.append(f"**{md_escape(rule)}** merges **{md_escape(_pair(run, e.pair))}** "
                     f"{md_escape(tie_rule(rule).reason)}")
    if tied_event is None:
        return f"At merge {k} the runs stop at different steps."
    run, e = tied_event
    named = sorted({_pair(run, p) for p in e.ties})[:NAMED_TIES]
    more = e.tie_count - len(named)
    pairs = ", ".join(f"**{md_escape(p)}**" for p in named) + (f" and {more:,} more" if more > 0 else "")
    return (f"At merge {k}, {e.tie_count:,} pairs tie at {e.count:,} occurrence{'s' if e.count != 1 else ''} "
            f"({pairs}): " + "; ".join(picks) + ".")


def bounded(corpus: Corpus, settings: Settings, merges: int) -> tuple[Corpus, int, str]:
    """The corpus and number of merges actually compared (cut to MAX_CHARS characters
    and MAX_MERGES merges), and a note saying what was cut ("" if nothing).

    >>> c, n, note = bounded(Corpus("text", "text", "ab\\n" * 150_000), Settings(), 900)
    >>> len(c.text) <= MAX_CHARS, n, note.startswith("Compared on the first")
    (True, 300, True)
    """
    notes = []
    if len(corpus.text) > MAX_CHARS:
        cut = corpus.text.rfind("\n", 0, MAX_CHARS)
        cut = cut + 1 if cut > MAX_CHARS // 2 else MAX_CHARS
        corpus = dataclasses.replace(corpus, text=corpus.text[:cut])
        notes.append(f"the first {cut:,} characters of the corpus")
    n = min(merges, MAX_MERGES)
    if n < merges:
        notes.append(f"the first {n:,} merges (of {merges:,})")
    note = f"Compared on {' and '.join(notes)}, so it stays quick." if notes else ""
    return corpus, n, note


def train_rules(corpus: Corpus, settings: Settings, n: int) -> dict[str, TrainingRun]:
    """The corpus trained with every tie rule for `n` merges (the shared run cache
    answers runs trained before). Raises ValueError with a user message."""
    runs = {}
    for rule in tie_rules.RULES:
        s = dataclasses.replace(settings, tie_break=rule.name, stop="merges", merges=n)
        runs[rule.name] = state.train_view(corpus, s, progress=False).run
    return runs


def _highlight(df: pd.DataFrame, parting: int | None):
    def row_style(row):
        if parting is not None and row["step"] == parting:
            return ["background-color: #F8E0C8; font-weight: 700"] * len(row)
        return [""] * len(row)
    return df.style.apply(row_style, axis=1)


def show() -> None:
    """The Train page's "Compare tie rules" expander (not in presentation view)."""
    if state.LAYOUT.get() == "present" or not state.ACTIVE.get():
        return
    # Drawn only while open (opening reruns the page): folded, its caption and toggle
    # were rendered out of sight at every first visit.
    box = folded("Compare tie rules", OPEN, icon=":material/compare_arrows:")
    if box is None:
        return
    with box:
        st.caption("When several pairs share the top count, a tie rule picks one. Train this corpus "
                   "once with each rule and see where their merge lists part.")
        if not st.toggle("Train with every tie rule and compare", key=TOGGLE):
            return
        corpus, settings = state.active_corpus()
        merges = state.current_view().steps
        if merges == 0:
            st.info("This run has no merges yet: set a number of merges above 0.")
            return
        corpus, n, note = bounded(corpus, settings, merges)
        try:
            with st.spinner("Training with each tie rule…"):
                result = compare(train_rules(corpus, settings, n), n)
        except ValueError as exc:  # the engine's message about this input (a TypeError is a bug)
            st.error(md_error(exc))
            return
        if note:
            st.caption(note)
        if result.parting is None:
            st.success(result.sentence)
        else:
            st.markdown(f"**They part at merge {result.parting}.** " + result.sentence)
        df = result.table()
        st.dataframe(_highlight(df, result.parting), hide_index=True, height=min(420, 38 + 35 * len(df)))
