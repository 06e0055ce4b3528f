"""Train page, pure part 3: predict mode (questions, grading, feedback, the score).

At step k the student sees the pair table before merge k+1 without the winner and
answers two questions: which pair merges next, and how one word will split after that
merge. Answers are graded against the engine's next event: a pair tied with the winner
counts as right, and the feedback says which one the tie rule picks and why. The rows
are shuffled within each count (seeded, so a rerun keeps the order) because the engine
lists tied pairs in tie-rule order, which would give the answer away.

No Streamlit here; the page keeps the results in session state.
"""
from __future__ import annotations

import html
import random
from dataclasses import dataclass
from typing import Mapping, Sequence

from ui.shared.chips import chip_for, chips_html
from ui.train.drawing import chips_inline, pair_label
from ui.train.sentence import rule_reason
from ui.train.run_view import RunView, symbol_label

__all__ = [
    "row_order", "SplitQuestion", "split_question", "merge_symbols", "grade_pair", "Feedback",
    "pair_feedback", "split_feedback", "Score", "score", "options_html",
]

Symbol = tuple  # (body, eow): a token that may not exist in the vocabulary yet


def row_order(view: RunView, k: int, seed: str, *, hide_counts: bool = False) -> list[int]:
    """The order of the table rows for the question at step k (about merge k+1): by
    count, shuffled within equal counts, or wholly shuffled when counts are hidden.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> run = train(WordTable.from_word_counts("low 5\\nlower 2\\nnewest 6\\nwidest 3"),
    ...             TrainerSettings(end_of_word="separate", merges=4))
    >>> order = row_order(RunView(run), 0, "x")
    >>> sorted(order) == list(range(len(run.events[0].top_pairs))), order == row_order(RunView(run), 0, "x")
    (True, True)
    """
    rows = view.run.events[k].top_pairs
    rng = random.Random(f"{seed}:{k}")
    idx = list(range(len(rows)))
    if hide_counts:
        rng.shuffle(idx)
        return idx
    groups: dict[int, list[int]] = {}
    for i, (_, c) in enumerate(rows):
        groups.setdefault(c, []).append(i)
    out: list[int] = []
    for c in sorted(groups, reverse=True):
        g = groups[c]
        rng.shuffle(g)
        out.extend(g)
    return out


def merge_symbols(symbols: Sequence[Symbol], a: Symbol, b: Symbol) -> tuple[Symbol, ...]:
    """Merge every non-overlapping (a, b) left to right, as the trainer does.

    >>> merge_symbols([("a", False)] * 3, ("a", False), ("a", False))
    (('aa', False), ('a', False))
    """
    out: list[Symbol] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
            out.append((a[0] + b[0], b[1]))
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


@dataclass(frozen=True)
class SplitQuestion:
    """How will word `word` split after the next merge? `options` are candidate splits
    (as (body, eow) symbols); `answer` indexes the engine's."""

    word: int
    options: tuple[tuple[Symbol, ...], ...]
    answer: int


LETTERS = "ABCDEF"


def split_question(view: RunView, k: int, words: Sequence[int], seed: str, *, max_options: int = 4) -> SplitQuestion | None:
    """A split question about one of `words` (those drawn on the page) at step k.

    The word is one the next merge changes about 60% of the time (so "no change" is
    sometimes right). The options are the current split, the right one, and the splits
    that merging another adjacent pair of the word would give.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> run = train(WordTable.from_word_counts("low 5\\nlower 2\\nnewest 6\\nwidest 3"),
    ...             TrainerSettings(end_of_word="separate", merges=4))
    >>> v = RunView(run); q = split_question(v, 0, range(4), "s")
    >>> q.options[q.answer] == tuple(run.tokens[t] for t in v.tokens_at(q.word, 1))
    True
    """
    rng = random.Random(f"{seed}:{k}:split")
    candidates = [w for w in words if len(view.tokens_at(w, k)) >= 2]
    if not candidates or k >= view.steps:
        return None
    changed = set(view.changed_words(k + 1))
    hit = [w for w in candidates if w in changed]
    miss = [w for w in candidates if w not in changed]
    pool = hit if hit and (not miss or rng.random() < 0.6) else miss
    w = rng.choice(pool)
    tokens = view.run.tokens
    now = tuple(tokens[t] for t in view.tokens_at(w, k))
    right = tuple(tokens[t] for t in view.tokens_at(w, k + 1))
    others = {merge_symbols(now, x, y) for x, y in zip(now, now[1:])} - {now, right}
    extra = sorted(others, key=repr)
    rng.shuffle(extra)
    options = list(dict.fromkeys([now, right] + extra[: max(0, max_options - 2)]))
    rng.shuffle(options)
    return SplitQuestion(w, tuple(options), options.index(right))


def options_html(view: RunView, q: SplitQuestion) -> str:
    """The split options as lettered rows of chips."""
    rows = []
    for i, opt in enumerate(q.options):
        chips = chips_html([chip_for(body, eow, view.marker) for body, eow in opt], extra="tp-inline")
        rows.append(f'<div class="tp-option"><b>{LETTERS[i]}</b>&nbsp; {chips}</div>')
    return '<div class="tp">' + "".join(rows) + "</div>"


def grade_pair(view: RunView, k: int, pair: tuple[int, int]) -> str:
    """'exact' (the engine's pick), 'tied' (same count as the winner: counts as right)
    or 'wrong', for the question at step k about merge k+1."""
    ev = view.run.events[k]
    if pair == ev.pair:
        return "exact"
    count = dict(ev.top_pairs).get(pair)
    if count == ev.count or pair in ev.ties:
        return "tied"
    return "wrong"


@dataclass(frozen=True)
class Feedback:
    ok: bool
    text: str
    html: str


def pair_feedback(view: RunView, k: int, pair: tuple[int, int]) -> Feedback:
    """What to tell the student about their pick for merge k+1, naming the tie rule.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> run = train(WordTable.from_word_counts("low 5\\nlower 2\\nnewest 6\\nwidest 3"),
    ...             TrainerSettings(end_of_word="separate", merges=4))
    >>> v = RunView(run); s_t = run.events[0].ties[1]
    >>> pair_feedback(v, 0, s_t).text
    'Counts as right: s + t is tied with e + s at count 9. The first-seen rule picks e + s because it occurs first: reading “newest” left to right, e + s comes before s + t and t + </w>.'
    """
    ev = view.run.events[k]
    grade = grade_pair(view, k, pair)
    win_t, win_h = pair_label(view, ev.pair), chips_inline(view, ev.pair)
    you_t, you_h = pair_label(view, pair), chips_inline(view, pair)
    reason_t, reason_h = rule_reason(view, k + 1)
    rule_t = f" The {ev.tie_break} rule picks {win_t} {reason_t}." if ev.tie_count > 1 else ""
    rule_h = (f" The <b>{ev.tie_break}</b> rule picks {win_h} {reason_h}." if ev.tie_count > 1 else "")
    if grade == "exact":
        if ev.tie_count > 1:
            others = ev.tie_count - 1
            head_t = f"Right: {win_t} merges next (count {ev.count}), tied with {others} other pair{'s' if others > 1 else ''}."
            head_h = f"Right: {win_h} merges next (count {ev.count}), tied with {others} other pair{'s' if others > 1 else ''}."
        else:
            head_t = f"Right: {win_t} merges next, the most frequent pair (count {ev.count})."
            head_h = f"Right: {win_h} merges next, the most frequent pair (count {ev.count})."
        return Feedback(True, head_t + rule_t, head_h + rule_h)
    if grade == "tied":
        return Feedback(
            True,
            f"Counts as right: {you_t} is tied with {win_t} at count {ev.count}.{rule_t}",
            f"Counts as right: {you_h} is tied with {win_h} at count {ev.count}.{rule_h}",
        )
    count = dict(ev.top_pairs).get(pair, 0)
    return Feedback(
        False,
        f"Not this time: {you_t} occurs {count} times, but {win_t} occurs {ev.count} times and merges next.{rule_t}",
        f"Not this time: {you_h} occurs {count} times, but {win_h} occurs {ev.count} times and merges next.{rule_h}",
    )


def skipped_feedback(view: RunView, k: int) -> Feedback:
    """What to say at step k when its question was skipped (Skip did the merge)."""
    ev = view.run.events[k]
    return Feedback(
        False,
        f"Skipped: {pair_label(view, ev.pair)} merged next (count {ev.count}).",
        f"Skipped: {chips_inline(view, ev.pair)} merged next (count {ev.count}).",
    )


def split_feedback(view: RunView, q: SplitQuestion, picked: int) -> Feedback:
    ok = picked == q.answer
    word = view.run.words.words[q.word]
    right = q.options[q.answer]
    right_h = chips_html([chip_for(b, e, view.marker) for b, e in right], extra="tp-inline")
    right_t = " ".join(view_label(view, s) for s in right)
    head = "Right" if ok else f"Not quite (you picked {LETTERS[picked]})"
    return Feedback(
        ok,
        f"{head}: after the merge “{word}” splits as {right_t} ({LETTERS[q.answer]}).",
        f"{html.escape(head)}: after the merge “{html.escape(word)}” splits as {right_h} ({LETTERS[q.answer]}).",
    )


def view_label(view: RunView, sym: Symbol) -> str:
    body, eow = sym
    return symbol_label(body, eow, view.marker)


@dataclass(frozen=True)
class Score:
    pairs_right: int
    pairs_asked: int
    splits_right: int
    splits_asked: int
    skipped: int = 0

    def text(self) -> str:
        """
        >>> Score(3, 4, 1, 2).text(), Score(1, 3, 0, 0, skipped=2).text()
        ('Score: 3 of 4 pairs right, 1 of 2 splits right.', 'Score: 1 of 3 pairs right (2 skipped).')
        """
        out = f"Score: {self.pairs_right} of {self.pairs_asked} pair{'s' if self.pairs_asked != 1 else ''} right"
        if self.skipped:
            out += f" ({self.skipped} skipped)"
        if self.splits_asked:
            out += f", {self.splits_right} of {self.splits_asked} split{'s' if self.splits_asked != 1 else ''} right"
        return out + "."


def score(results: Mapping[object, Mapping[str, object]]) -> Score:
    """Add up graded answers: {(run key, step): {"pair": grade, "split": bool | None}};
    a skipped question ("pair": "skipped") counts as asked and not right.

    >>> score({("r", 0): {"pair": "tied", "split": False}, ("r", 1): {"pair": "wrong", "split": None}})
    Score(pairs_right=1, pairs_asked=2, splits_right=0, splits_asked=1, skipped=0)
    """
    pr = sum(1 for r in results.values() if r.get("pair") in ("exact", "tied"))
    sr = sum(1 for r in results.values() if r.get("split") is True)
    sa = sum(1 for r in results.values() if r.get("split") is not None)
    skipped = sum(1 for r in results.values() if r.get("pair") == "skipped")
    return Score(pr, len(results), sr, sa, skipped)
