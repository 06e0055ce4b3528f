"""Train page, pure drawing: the sentence that says what merge k did and why the tie
rule chose it (`explain_step`)."""
from __future__ import annotations

import html
from dataclasses import dataclass

from bpe_core.tie_rules import tie_rule
from ui.train.drawing import chips_inline, join_items, pair_html, pair_label, word_text
from ui.train.run_view import RunView
from ui.train.step_cache import step_cached


@dataclass(frozen=True)
class Explanation:
    text: str   # plain text
    html: str   # the same with token chips


TIES_NAMED = 5


@step_cached
def explain_step(view: RunView, k: int, *, present: bool = False) -> Explanation:
    """One sentence for step k: the merge, its count, its ties and how the rule chose.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> run = train(WordTable.from_word_counts("low 5\\nlower 2\\nnewest 6\\nwidest 3"),
    ...             TrainerSettings(end_of_word="separate", merges=4))
    >>> explain_step(RunView(run), 1).text
    'Merged e + s -> es (count 9). Tied with s + t and t + </w>; the first-seen rule picked e + s because it occurs first: reading “newest” left to right, e + s comes before s + t and t + </w>.'
    """
    run = view.run
    cls = "tp-sentence present" if present else "tp-sentence"
    if k == 0:
        text = (
            "Step 0: every word is split into base symbols, nothing merged yet. The table counts "
            "each adjacent pair (weighted by word count); Step merges the most frequent one."
        )
        return Explanation(text, f'<div class="{cls}">{html.escape(text)}</div>')
    ev = run.events[k - 1]
    a, b = ev.pair
    parts_t: list[str] = [f"Merged {pair_label(view, ev.pair)} -> {view.label(ev.token_id)} (count {ev.count})."]
    parts_h: list[str] = [
        f"Merged {pair_html(view, ev.pair)} &rarr; {chips_inline(view, [ev.token_id], [('hl',)])} "
        f"(count {ev.count})."
    ]
    if not ev.is_new_token:
        note = (f" {view.label(ev.token_id)} was already in the vocabulary (an earlier merge made it), "
                "so the vocabulary does not grow.")
        parts_t.append(note)
        parts_h.append(html.escape(note))
    others = list(ev.ties[1:TIES_NAMED + 1])
    more = ev.tie_count - 1 - len(others)
    if not others:
        note = " No other pair occurs that often, so no tie rule was needed."
        parts_t.append(note)
        parts_h.append(html.escape(note))
    else:
        rule = ev.tie_break
        reason_t, reason_h = rule_reason(view, k)
        parts_t.append(
            f" Tied with {join_items([pair_label(view, p) for p in others], more)}; the {rule} rule picked "
            f"{pair_label(view, ev.pair)} {reason_t}."
        )
        parts_h.append(
            f" Tied with {join_items([pair_html(view, p) for p in others], more)}; the "
            f'<b title="{html.escape(tie_rule(rule).explanation, quote=True)}">{rule}</b> rule picked '
            f"{pair_html(view, ev.pair)} {reason_h}."
        )
    if ev.count == 1 and (k == 1 or run.events[k - 2].count > 1):
        note = (" This pair occurs once: from here on merges memorise whole words of this corpus instead of "
                "learning pieces that recur in new text (subword-nmt stops before this by default, at a minimum "
                "count of 2).")
        parts_t.append(note)
        parts_h.append(html.escape(note))
    return Explanation("".join(parts_t), f'<div class="{cls}">{"".join(parts_h)}</div>')


def rule_reason(view: RunView, k: int) -> tuple[str, str]:
    """Why the winner won, as (text, HTML): the rule's own words (tie_rules.py), with the
    data its key reads: the ids, or the word it occurs in first."""
    ev = view.run.events[k - 1]
    a, b = ev.pair
    rule = tie_rule(ev.tie_break)
    t = rule.reason
    if rule.key == "ids":
        t += f" ({view.label(a)}={a}, {view.label(b)}={b})"
    elif rule.key == "first-seen":
        w = view.first_seen_word(k)
        if w is not None:
            word = word_text(view, w)
            tokens = view.tokens_at(w, k - 1)
            inside = set(zip(tokens, tokens[1:]))
            # tied pairs in the same word: say which comes first reading it left to right
            later = [p for p in ev.ties[1:TIES_NAMED + 1] if p in inside]
            if later:
                return (f"{t}: reading “{word}” left to right, {pair_label(view, ev.pair)} comes before "
                        f"{join_items([pair_label(view, p) for p in later])}",
                        f"{html.escape(t)}: reading “<bdi>{html.escape(word)}</bdi>” left to right, "
                        f"{pair_html(view, ev.pair)} comes before {join_items([pair_html(view, p) for p in later])}")
            return f"{t} (in “{word}”)", f"{html.escape(t)} (in “<bdi>{html.escape(word)}</bdi>”)"
    return t, html.escape(t)
