"""Train page, pure drawing: merge k's own effect (`merge_effect_html`: the words it
changed, before and after, and how many places it merged), the merge list so far, and the
pair table and merge list side by side (`tables_html`)."""
from __future__ import annotations

import heapq
import html
from typing import Sequence

from ui.shared.a11y import scroll_box_attrs
from ui.train.drawing import MERGES_SHOWN, TOKENS_PER_WORD, chips_inline, pair_html, pair_label
from ui.train.pair_table import pair_section_html
from ui.train.run_view import RunView
from ui.train.step_cache import step_cached


#: Changed words drawn before and after a merge.
EFFECT_EXAMPLES = 4


def _mark_pair(tokens: Sequence[int], pair: tuple[int, int]) -> list[tuple[str, ...]]:
    """Classes marking each occurrence of `pair` (left to right, not overlapping, as a
    merge applies it) in a word's tokens before the merge.

    >>> _mark_pair([1, 1, 1, 2], (1, 1))
    [('tp-part',), ('tp-part',), (), ()]
    """
    classes: list[tuple[str, ...]] = [() for _ in tokens]
    i = 0
    while i < len(tokens) - 1:
        if (tokens[i], tokens[i + 1]) == pair:
            classes[i] = classes[i + 1] = ("tp-part",)
            i += 2
        else:
            i += 1
    return classes


@step_cached
def merge_effect_html(view: RunView, k: int, *, present: bool = False, examples: int = EFFECT_EXAMPLES) -> str:
    """Merge k's own effect: how many places it merged, the corpus's change in tokens,
    and a few of the words it changed before and after (the most frequent first), the
    pair's two chips joining into the new one (a short CSS animation, none when the
    reader asks for reduced motion). At step 0, what will appear here.
    """
    cls = "tp tp-effect present" if present else "tp tp-effect"
    if k == 0:
        return (f'<div class="{cls}" data-merge="0"><div class="tp-effect-head">No merge yet: after each Step, '
                "the words the merge changed appear here, before and after.</div></div>")
    run = view.run
    ev = run.events[k - 1]
    before_len, after_len = run.corpus_length(k - 1), run.corpus_length(k)
    places = ev.merged_occurrences
    changed = ev.changed_words
    counts = run.words.counts
    shown = heapq.nsmallest(examples, changed, key=lambda w: (-counts[w], w))
    nwords = len(changed)
    head = (f'<strong>{places:,} place{"s" if places != 1 else ""} merged</strong>, corpus &minus;{before_len - after_len:,} '
            f"token{'s' if before_len - after_len != 1 else ''} ({before_len:,} &rarr; {after_len:,}), "
            f"in {nwords:,} distinct word{'s' if nwords != 1 else ''}")
    rows = []
    for w in shown:
        before = view.tokens_at(w, k - 1)[:TOKENS_PER_WORD]
        after = view.tokens_at(w, k)[:TOKENS_PER_WORD]
        b_html = chips_inline(view, before, _mark_pair(before, ev.pair))
        a_html = chips_inline(view, after, [("hl", "tp-join") if t == ev.token_id else () for t in after])
        rows.append(f'<div class="tp-ex" data-word="{w}">{b_html} <span class="tp-arrow">&rarr;</span> {a_html}'
                    f'<span class="cnt">&times;{counts[w]:,}</span></div>')
    more = nwords - len(shown)
    note = f'<div class="tp-note">…and {more:,} more word{"s" if more != 1 else ""}.</div>' if more > 0 else ""
    return (f'<div class="{cls}" data-merge="{k}"><div class="tp-effect-head">What merge {k} did: {head}.</div>'
            f'<div class="tp-exs">{"".join(rows)}</div>{note}</div>')


# ---- the merge list -----------------------------------------------------------------------
@step_cached
def merge_list_html(view: RunView, k: int, *, window: int = MERGES_SHOWN, present: bool = False) -> str:
    """The merges so far (the last `window`), the current one highlighted.

    Each row carries the engine's display strings as data attributes (data-left,
    data-right, data-token) so a browser test can compare them with the events.
    """
    if k == 0:
        return f'<div class="tp{" present" if present else ""}"><p>No merges yet.</p></div>'
    first = max(1, k - window + 1)
    out = [
        f'<div class="tp{" present" if present else ""}"><div class="tp-scroll"{scroll_box_attrs("merge list")}><table class="tp-table tp-merges"><thead><tr>'
        "<th>Rank</th><th>Pair</th><th>New token</th><th>Count</th><th title='pairs tied at that count'>Tie</th></tr></thead><tbody>"
    ]
    disp = view.run.displays
    for ev in view.run.events[first - 1 : k]:
        a, b = ev.pair
        cls = "now" if ev.step == k else ""
        ties = f"{ev.tie_count}&#8209;way" if ev.tie_count > 1 else ""
        reuse = "" if ev.is_new_token else ' <span class="tp-badge tie" title="this token already existed">again</span>'
        out.append(
            f'<tr class="{cls}" data-rank="{ev.step}" data-left="{html.escape(disp[a], quote=True)}" '
            f'data-right="{html.escape(disp[b], quote=True)}" data-token="{html.escape(ev.token, quote=True)}">'
            f'<td class="num">{ev.step}</td><td>{pair_html(view, ev.pair)}</td>'
            f"<td>{chips_inline(view, [ev.token_id])}{reuse}</td><td class=\"num\">{ev.count}</td>"
            f"<td>{ties}</td></tr>"
        )
    out.append("</tbody></table></div>")
    if first > 1:
        out.append(f'<div class="tp-note">Merges {first} to {k} of {k} so far; the full list is below.</div>')
    out.append("</div>")
    return "".join(out)


#: Longest merge-list label (a token without a pre-tokenizer can be very long).
MERGE_LABEL_CHARS = 60


@step_cached
def merge_row_label(view: RunView, rank: int, max_chars: int = MERGE_LABEL_CHARS) -> str:
    """One merge as plain text for the merge list's buttons (cut to `max_chars`).

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> merge_row_label(RunView(train(WordTable.from_word_counts("low 5\\nlower 2"), TrainerSettings(merges=2))), 1)
    '1 · l + o → lo  (7, 2-way tie)'
    """
    ev = view.run.events[rank - 1]
    again = ", made before" if not ev.is_new_token else ""
    tie = f", {ev.tie_count}-way tie" if ev.tie_count > 1 else ""
    label = f"{rank} · {pair_label(view, ev.pair)} → {view.label(ev.token_id)}  ({ev.count}{tie}{again})"
    return label if len(label) <= max_chars else label[: max_chars - 1] + "…"


def merge_window(k: int, window: int = MERGES_SHOWN) -> range:
    """The ranks the merge list shows at step k: the last `window` merges so far."""
    return range(max(1, k - window + 1), k + 1)


@step_cached
def tables_html(view: RunView, k: int, *, present: bool = False, max_rows: int | None = None,
                window: int = MERGES_SHOWN) -> str:
    """The pair table after merge k and the merge list side by side; they wrap under
    each other when the page is narrow (one HTML block, so CSS decides, not columns)."""
    cls = "tp-grid present" if present else "tp-grid"
    return (
        f'<div class="{cls}"><section>'
        + pair_section_html(view, k, present=present, max_rows=max_rows)
        + '</section><section><div class="tp-h">Merge list</div>'
        + merge_list_html(view, k, present=present, window=window)
        + "</section></div>"
    )
