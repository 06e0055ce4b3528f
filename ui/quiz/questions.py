"""The check-your-understanding questions of the chapter "1.2 Tokenization" (source text
000), as a quiz: each question has a home page, a few options (or a number to type),
and an explanation shown after a try. The arithmetic answer is computed with the
Vocabulary size page's calculator (ui/vocab/model_cost.py), never typed in.

Pure: grading is a function of the answer. What it leaves out: drawing (ui/quiz/widgets.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from ui.vocab.model_cost import ModelConfig, approx, vocab_change

__all__ = ["Question", "QUESTIONS", "questions_for", "grade_choice", "grade_number", "added_params", "explanation"]


def added_params(old_vocab: int = 64_000, new_vocab: int = 128_000, hidden: int = 4_096, *,
                 tied: bool = False) -> int:
    """Parameters added by growing the vocabulary, from the Vocabulary size page's calculator.

    >>> added_params(), approx(added_params()), approx(added_params(tied=True))
    (524288000, '524M', '262M')
    """
    # N does not change the difference; any positive total will do.
    config = ModelConfig(old_vocab, hidden, tied, 8_000_000_000)
    return vocab_change(config, new_vocab).params


@dataclass(frozen=True)
class Question:
    """One question. `options` and `answer` (an index) for a choice; for a number,
    `options` is empty and `number` is the answer in `unit` (e.g. millions), accepted
    within `tolerance` (a fraction)."""

    id: str
    page: str           # "quirks" (with `section`) or "vocab_size"
    section: str
    prompt: str
    options: tuple[str, ...]
    answer: int | None
    explanation: str
    number: float | None = None
    unit: str = ""
    tolerance: float = 0.05


def _millions(n: int) -> float:
    return n / 1_000_000


QUESTIONS: tuple[Question, ...] = (
    Question(
        "ordered_merges", "quirks", "examples",
        "Why does BPE keep an ordered list of merges, not just the final vocabulary?",
        ("Because the list is smaller to store than the vocabulary.",
         "Because a word can be cut into vocabulary tokens in many ways; replaying the merges in the "
         "order they were learned picks the one cut the model saw in training.",
         "Because encoding picks the longest vocabulary token at each position."),
        1,
        "The vocabulary alone allows many segmentations of the same word. Replaying the merges in "
        "training order always gives the same one, the one the model was trained on; greedy longest "
        "match over the vocabulary can give a different one.",
    ),
    Question(
        "byte_unknown", "quirks", "examples",
        "With byte-level BPE, can some input string produce an unknown token?",
        ("Yes: characters that were not in the training text.",
         "Yes, but only for emoji.",
         "No: every string is a sequence of bytes and all 256 byte values are in the base vocabulary."),
        2,
        "Every text is UTF-8 bytes, and the base vocabulary holds all 256 of them, so the worst case "
        "is one token per byte. A character-level vocabulary, by contrast, has no id for a letter it "
        "never saw (see “unknown” in the worked example of source text 001).",
    ),
    Question(
        "double_vocab", "vocab_size", "",
        "Doubling the vocabulary from 64K to 128K tokens at d = 4,096, with untied input and output "
        "embeddings: about how many parameters does it add? (in millions; 64K = 64,000)",
        (), None,
        "Each of the two matrices grows by (128,000 − 64,000) × 4,096 = {per} parameters, so both "
        "together add {both} ({exact} exactly). Tied embeddings would add half. Whether it pays off "
        "depends on how much shorter the sequences get.",
        number=_millions(added_params()), unit="million parameters",
    ),
    Question(
        "underscore", "quirks", "examples",
        "In the worked example, why is the end-of-word marker _ added to every word?",
        ("So BPE can tell a suffix at the end of a word (est_ in newest) from the same letters inside a word.",
         "So the words can be split on spaces later.",
         "Because BPE cannot start without at least one extra symbol."),
        0,
        "With _ the pair t _ exists only at word ends, so est_ is a different token from est. "
        "Byte-level tokenizers get the same effect the other way round: the pre-tokenizer glues the "
        "space to the start of a word, so “ est” at a word start differs from “est” inside one.",
    ),
    Question(
        "reverse_letters", "quirks", "letters",
        "A model is bad at reversing words letter by letter. Is that a failure of reasoning?",
        ("Yes: reversing a string is a reasoning task and nothing else.",
         "Often it is mostly tokenization: the model gets multi-letter tokens and must have memorised "
         "how each is spelled. Spelling the word out with spaces between letters usually helps a lot.",
         "No: models cannot represent single letters at all."),
        1,
        "Look at “strawberry” above: a handful of tokens, no letters. Splitting the word into single "
        "letters (for example with spaces between them) gives the model one token per letter.",
    ),
)


#: each question's few words, the label of the folded box that holds it ("Check your understanding: ...")
SHORT: dict[str, str] = {
    "ordered_merges": "why keep the merges in order?",
    "byte_unknown": "can byte-level BPE meet an unknown token?",
    "double_vocab": "how many parameters does doubling V add?",
    "underscore": "why the end-of-word marker?",
    "reverse_letters": "why is reversing a word hard?",
}


def quiz_label(q: Question) -> str:
    """The label of the box a question is folded in.

    >>> quiz_label(questions_for("vocab_size")[0])
    'Check your understanding: how many parameters does doubling V add?'
    """
    return f"Check your understanding: {SHORT[q.id]}"


def questions_for(page: str, section: str = "") -> tuple[Question, ...]:
    """The questions that belong on a page (and section).

    >>> [q.id for q in questions_for("quirks", "examples")]
    ['ordered_merges', 'byte_unknown', 'underscore']
    >>> [q.id for q in questions_for("vocab_size")]
    ['double_vocab']
    """
    return tuple(q for q in QUESTIONS if q.page == page and (not section or q.section == section))


def grade_choice(question: Question, choice: int | None) -> bool | None:
    """True or False once an option is picked, None before.

    >>> q = QUESTIONS[0]
    >>> grade_choice(q, None), grade_choice(q, 0), grade_choice(q, 1)
    (None, False, True)
    """
    if choice is None:
        return None
    return choice == question.answer


def grade_number(question: Question, value: float | None) -> bool | None:
    """True when the typed number is within the tolerance of the computed answer.

    >>> q = questions_for("vocab_size")[0]
    >>> grade_number(q, None), grade_number(q, 524), grade_number(q, 262), grade_number(q, 530)
    (None, True, False, True)
    """
    if value is None or question.number is None:
        return None
    return abs(value - question.number) <= question.tolerance * abs(question.number)


def explanation(question: Question) -> str:
    """The explanation, with the computed figures filled in.

    >>> "524M" in explanation(questions_for("vocab_size")[0])
    True
    """
    if question.id != "double_vocab":
        return question.explanation
    both = added_params()
    return question.explanation.format(per=f"{both // 2:,}", both=approx(both), exact=f"{both:,}")
