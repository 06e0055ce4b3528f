"""Train page, pure drawing: the corpus at step k. Only a sample of the words is drawn
(all of a small corpus, else the most frequent ones plus the ones the latest merges
changed)."""
from __future__ import annotations

import html
from dataclasses import dataclass

from ui.train.drawing import FREQUENT_SHOWN, SMALL_CORPUS, TOKENS_PER_WORD, chips_inline
from ui.train.run_view import RECENT_SHOWN, RunView
from ui.train.step_cache import step_cached


@dataclass(frozen=True)
class CorpusSample:
    groups: tuple[tuple[str, tuple[int, ...]], ...]   # (heading, word indices)
    shown: int
    caption: str


@step_cached
def corpus_sample(view: RunView, k: int) -> CorpusSample:
    """Which words to draw at step k: all of a small corpus (in order), else the words
    the latest merges changed and the most frequent ones."""
    words = view.run.words
    n = len(words)
    if n <= SMALL_CORPUS:
        cap = f"{n} distinct word{'s' if n != 1 else ''}, {words.total:,} in all."
        return CorpusSample((("", tuple(range(n))),), n, cap)
    recent = view.recent_words(k, RECENT_SHOWN)
    seen = set(recent)
    frequent = [w for w in view.by_count[: FREQUENT_SHOWN + len(recent)] if w not in seen][:FREQUENT_SHOWN]
    groups = []
    if recent:
        groups.append(("Changed by the latest merges", tuple(recent)))
    groups.append(("Most frequent words", tuple(frequent)))
    shown = len(recent) + len(frequent)
    cap = (f"Showing {shown} of {n:,} distinct words ({words.total:,} in all): the words the latest "
           f"merges changed and the {len(frequent)} most frequent.")
    return CorpusSample(tuple(groups), shown, cap)


@step_cached
def corpus_html(view: RunView, k: int, *, present: bool = False, sample: CorpusSample | None = None) -> str:
    """The sampled words at step k, each split into token chips with its count; the
    words merge k changed are outlined and their new tokens highlighted."""
    sample = sample or corpus_sample(view, k)
    changed = set(view.changed_words(k))
    new_id = view.run.events[k - 1].token_id if k else None
    counts = view.run.words.counts
    out = [f'<div class="tp{" present" if present else ""}">']
    for heading, ws in sample.groups:
        if heading:
            out.append(f'<div class="tp-group">{html.escape(heading)}</div>')
        out.append('<div class="tp-words">')
        for w in ws:
            toks = view.tokens_at(w, k)
            is_changed = w in changed
            shown = toks[:TOKENS_PER_WORD]
            classes = [("hl",) if is_changed and t == new_id else () for t in shown]
            body = chips_inline(view, shown, classes)
            if len(toks) > TOKENS_PER_WORD:
                body += f' <span class="cnt">… {len(toks) - TOKENS_PER_WORD:,} more tokens</span>'
            cls = "tp-word" + (" changed" if is_changed else "") + (" long" if len(toks) > 14 else "")
            tag = '<span class="tag">changed</span>' if is_changed else ""
            out.append(
                f'<div class="{cls}" data-word="{w}">{body}<span class="cnt">&times;{counts[w]:,}</span>{tag}</div>'
            )
        out.append("</div>")
    out.append("</div>")
    return "".join(out)
