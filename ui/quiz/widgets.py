"""Drawing the quiz: one question folded under "Check your understanding: ...", drawn only
while its box is open, its answer kept across folding and pages.

Widget keys: `quiz_w_open_<id>` (the box), `quirks_w_quiz_<id>` (the answer box; the name
predates the quiz's move out of the Quirks page, and links and tests know it), store
`quiz.answer.<id>`.
"""
from __future__ import annotations

import streamlit as st

from ui.shared.markdown import md_escape
from ui.shared.state import KeyFamily, folded

from .questions import Question, explanation, grade_choice, grade_number, questions_for, quiz_label

#: A question's answer, kept while its box is shut: `quiz.answer.<id>`.
ANSWERS = KeyFamily("quiz.answer.")
#: A question's box: `quiz_w_open_<id>`.
WIDGETS = KeyFamily("quiz_w_")

__all__ = ["ask_question", "ask_quiz"]


def ask_question(q: Question) -> None:
    """One question, folded under "Check your understanding: ..." and drawn only while
    open (so a first visit renders no radio nor number box, nor fetches their scripts).
    The answer is kept in a `quiz.answer.<id>` store while the box is shut or the reader
    is on another page, and a box that holds an answer opens by itself."""
    store = ANSWERS.key(q.id, None)
    box = folded(md_escape(quiz_label(q)), f"quiz_w_open_{q.id}", reopen=store.get() is not None)
    if box is not None:
        with box:
            _question_body(q, store.widget(f"quirks_w_quiz_{q.id}"))


def _question_body(q: Question, widget: dict) -> None:
    """The question, its answer box (`widget`: its key and callback, from `Key.widget`), and
    after a try the verdict and the explanation."""
    st.markdown(md_escape(q.prompt))
    if q.options:
        choice = st.radio("Your answer", range(len(q.options)), index=None,
                          format_func=lambda i: md_escape(q.options[i]), label_visibility="collapsed", **widget)
        right = grade_choice(q, choice)
    else:
        value = st.number_input(f"Your answer ({q.unit})", value=None, min_value=0.0, step=1.0, **widget)
        right = grade_number(q, value)
    if right is None:
        st.caption("Pick an answer to see the explanation.")
        return
    if q.options:
        verdict = "Right." if right else f"Not quite: the answer is “{q.options[q.answer]}”"
    else:
        verdict = ("Right" if right else "Not quite") + f": about {q.number:,.0f} {q.unit}."
    (st.success if right else st.error)(md_escape(verdict))
    st.markdown(md_escape(explanation(q)))


def ask_quiz(page: str, section: str = "") -> None:
    """The quiz questions that belong on `page` (other pages call this in one line)."""
    for q in questions_for(page, section):
        ask_question(q)
