"""Train page, pure part 2: what the page shows at step k, as HTML strings and charts.

Everything here reads a `RunView` (ui/train/run_view.py: a run with its per-run index of
each word's tokens at any step). Only a sample of the words is drawn (the most frequent
ones plus the ones the latest merges changed).

Step k means "after k merges". At step k the page shows merge k's own effect
(`merge_effect_html`: the words it changed, before and after, and how many places it
merged) and the pair table *after* merge k (`pair_table_html(view, k + 1)`: the table
merge k+1 is picked from, `events[k].top_pairs`), its "change" column and its "gone"
rows being what merge k did to each count. After the last merge no event holds that
table: `table_after` derives it from the last table and the last merge's count changes.

Every token is drawn with ui/shared/chips.py, the one chip renderer (HTML-escaped,
whitespace and invisible characters drawn with bpe_core.display's one table, the
end-of-word marker styled apart, each chip one unbreakable box). No Streamlit here;
tests call these directly.
"""
from __future__ import annotations

import heapq
import html
from dataclasses import dataclass
from typing import Sequence

from bpe_core.display import visible_text
from bpe_core.tie_rules import tie_rule
from ui.shared.a11y import scroll_box_attrs
from ui.shared.chips import CHIP_CSS, PALETTE, chips_html
from ui.shared.svg import data_url, nice_ticks
from ui.train.run_view import RECENT_SHOWN, RunView, symbol_label
from ui.train.step_cache import step_cached

__all__ = [
    "RunView", "PAGE_CSS", "explain_step", "pair_table_html", "merge_list_html", "merge_effect_html",
    "table_after", "pair_section_html", "merge_row_label",
    "corpus_html", "vocab_html", "figures", "figures_html", "vocab_section_html", "chart_rows", "chart_html", "pair_label", "chips_inline", "symbol_label",
]

#: Drawn words: all of a small corpus; else this many most frequent + recently changed.
SMALL_CORPUS = 60
FREQUENT_SHOWN = 40
#: Tokens drawn per word (a corpus without pre-tokenizer is one very long word).
TOKENS_PER_WORD = 400
MERGES_SHOWN = 15
MERGED_TOKENS_SHOWN = 300

PAGE_CSS = CHIP_CSS + """
<style>
.tp { font-size: 1.05rem; }
.tp .bpe-tokens { font-size: 1.15rem; line-height: 2.0; }
.tp-inline { display: inline; white-space: pre-wrap; }
table.tp-table .tp-inline { white-space: nowrap; }
.tp-sentence { font-size: 1.3rem; line-height: 2.1; padding: .5rem 1rem; border-left: 6px solid #D55E00;
  background: rgba(213, 94, 0, .08); border-radius: 4px; }
.tp-sentence .bpe-tokens { font-size: 1.3rem; }
table.tp-table { border-collapse: collapse; width: 100%; }
table.tp-table th { text-align: left; font-weight: 600; border-bottom: 2px solid rgba(128,128,128,.8);
  padding: 4px 6px; white-space: nowrap; }
table.tp-table .bpe-tokens { font-size: 1.1rem; }
table.tp-table td { padding: 2px 6px; border-bottom: 1px solid rgba(128,128,128,.25); vertical-align: middle; }
table.tp-table td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.tp-table td.cnt { white-space: nowrap; font-variant-numeric: tabular-nums; }
.tp-scroll { overflow-x: auto; }
.tp-grid { display: flex; flex-wrap: wrap; gap: .5rem 1.8rem; align-items: flex-start; }
.tp-grid > section { flex: 1 1 20rem; min-width: 0; }
.tp-grid > section + section { flex: 1.3 1 24rem; }
.tp-h { font-size: 1.5rem; font-weight: 600; margin: .6rem 0 .4rem 0; }
.tp-grid.present .tp-h { font-size: 2.1rem; }
.tp-grid.present > section, .tp-grid.present > section + section { flex-basis: 26rem; }
table.tp-table tr.win td { background: rgba(213, 94, 0, .16); font-weight: 700; }
table.tp-table tr.win td:first-child { box-shadow: inset 6px 0 0 #D55E00; }
table.tp-table tr.tie td { background: rgba(230, 159, 0, .12); }
table.tp-table tr.now td { background: rgba(213, 94, 0, .16); font-weight: 700; }
table.tp-table tr.now td:first-child { box-shadow: inset 6px 0 0 #D55E00; }
.tp-barbox { display: inline-block; width: 5em; vertical-align: middle; margin-right: .4em; }
.tp-bar { display: block; height: .9em; background: #0072B2; border-radius: 2px; min-width: 2px; }
.tp-badge { display: inline-block; font-size: .8em; font-weight: 700; padding: 0 .5em; border-radius: .8em;
  border: 2px solid currentColor; white-space: nowrap; line-height: 1.5; }
.tp-badge.win { background: #B34700; color: #fff; border-color: #B34700; }
.tp-badge.tie { color: #A25F00; }
.tp-d { font-weight: 700; white-space: nowrap; }
.tp-d.new { color: #006B47; } .tp-d.up { color: #006B47; } .tp-d.down { color: #A93226; }
.tp-note { font-size: .9em; opacity: .85; margin-top: .3em; }
.tp-words { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(15em, 100%), 1fr)); gap: .35em .8em; }
.tp-word { padding: .15em .4em; border: 1px solid rgba(128,128,128,.3); border-radius: 6px; }
.tp-word.long { grid-column: 1 / -1; }
.tp-word.changed { border: 2px solid #D55E00; background: rgba(213, 94, 0, .08); }
.tp-word .cnt { font-size: .85em; opacity: .8; margin-left: .3em; white-space: nowrap; }
.tp-word .tag { font-size: .75em; color: #B34700; font-weight: 700; margin-left: .3em; }
.tp-group { font-weight: 600; margin: .4em 0 .2em 0; }
.tp-vocab .bpe-tokens { line-height: 2.2; }
.tp-chart img { width: 100%; height: auto; display: block; }
.tp-vf { display: grid; grid-template-columns: minmax(0, 1.2fr) minmax(0, 1fr); gap: 1rem 3rem; align-items: start; }
@media (max-width: 640px) { .tp-vf { grid-template-columns: minmax(0, 1fr); } }
p.tp-cap { font-size: .875rem; opacity: .8; margin: 0 0 .8rem 0; }
h3.tp-h3 { font-size: 1.5rem; font-weight: 600; line-height: 1.2; margin: .8rem 0 .5rem 0; padding: 0; scroll-margin-top: 9rem; }
.tp-figs { display: grid; grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr)); gap: .4rem 1.5rem; margin: 0 0 .8rem 0; }
.tp-fig .lab { font-size: .9rem; }
.tp-fig .lab abbr { text-decoration: underline dotted; cursor: help; }
.tp-fig .val { font-size: 2.1rem; line-height: 1.35; font-variant-numeric: tabular-nums; }
.tp-fig .dlt { display: inline-block; font-size: .85rem; padding: 0 .55em; border-radius: .8em; background: rgba(128,128,128,.15); }
.tp-fig .dlt.good { color: #006B47; background: rgba(0, 158, 115, .12); }
.tp-fig .dlt.bad { color: #A93226; background: rgba(192, 57, 43, .10); }
.tp.present { font-size: 1.3rem; }
.tp.present .bpe-tokens { font-size: 1.6rem; line-height: 1.9; }
.tp.present .tp-barbox { width: 4em; }
.tp.present table.tp-table .bpe-tokens { font-size: 1.35rem; line-height: 1.5; }
.tp.present table.tp-table td, .tp.present table.tp-table th { padding: 2px 6px; }
.tp.present .tp-words { grid-template-columns: repeat(auto-fill, minmax(min(18em, 100%), 1fr)); }
.tp-sentence.present, .tp-sentence.present .bpe-tokens { font-size: 1.6rem; }
.tp-fb { font-size: 1.15rem; line-height: 2.0; padding: .4rem 1rem; border-left: 6px solid; border-radius: 4px; margin: .3rem 0; }
.tp-fb.ok { border-color: #009E73; background: rgba(0, 158, 115, .10); }
.tp-fb.bad { border-color: #C0392B; background: rgba(192, 57, 43, .08); }
.tp-fb .bpe-tokens { font-size: 1.15rem; }
.tp-option { margin: .1em 0; }
table.tp-table tr.gone td { opacity: .8; }
table.tp-table tr.gone td:first-child .bpe-tokens > span { text-decoration: line-through; border-style: dashed; }
.tp-d.gone { color: #555; }
.tp-effect { margin: .1rem 0 .3rem 0; }
.tp-effect-head { margin-bottom: .15rem; }
.tp-exs { display: flex; flex-wrap: wrap; gap: .1rem 2rem; }
.tp-ex { max-width: 100%; }
.tp-ex .tp-arrow { margin: 0 .2em; }
.tp-effect .bpe-tokens { font-size: 1.05rem; line-height: 1.9; }
.tp-effect.present, .tp-effect.present .bpe-tokens { font-size: 1.35rem; }
.bpe-tok.tp-part { outline: 2px dashed #D55E00; outline-offset: 1px; }
/* The pair's two chips join into one: the new chip starts wide and ringed, and closes
   up. Only transform and box-shadow move, so no frame lays the page out again (an
   animated letter-spacing did, for every frame of every step). No motion for readers
   who ask for less (prefers-reduced-motion). */
.bpe-tok.tp-join { animation: tp-join .7s ease-out both; transform-origin: center; }
@keyframes tp-join {
  from { transform: scaleX(1.6); box-shadow: 0 0 0 5px rgba(213, 94, 0, .35); }
  to { transform: none; box-shadow: 0 0 0 0 rgba(213, 94, 0, 0); }
}
@media (prefers-reduced-motion: reduce) { .bpe-tok.tp-join { animation: none; } }
</style>
""" + "<style>" + "".join(  # a token's own colour, the same in every run (RunView.colours)
    f".bpe-tokens > span.bpe-tok.bpe-c{n} {{ background: {colour}; }}" for n, colour in enumerate(PALETTE)
) + "</style>\n"


# ---- small pieces -------------------------------------------------------------------------
def chips_inline(view: RunView, ids: Sequence[int], classes: Sequence[tuple[str, ...]] | None = None, start: int = 0) -> str:
    """Token chips as an inline run (neighbours differ in colour; the first takes colour
    `start`)."""
    chips = [view.chip(t, classes[i] if classes else ()) for i, t in enumerate(ids)]
    return chips_html(chips, start=start, extra="tp-inline")


def pair_label(view: RunView, pair: tuple[int, int]) -> str:
    """`e + s` (plain text)."""
    return f"{view.label(pair[0])} + {view.label(pair[1])}"


def _pair_html(view: RunView, pair: tuple[int, int]) -> str:
    return chips_inline(view, pair)


def _join(items: list[str], more: int = 0) -> str:
    """`a`, `a and b`, `a, b and c`, `a, b and 3 more pairs`."""
    if more:
        return ", ".join(items) + f" and {more} more pair{'s' if more != 1 else ''}"
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _word_text(view: RunView, w: int) -> str:
    return visible_text(view.run.words.words[w])


# ---- the sentence -------------------------------------------------------------------------
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
        f"Merged {_pair_html(view, ev.pair)} &rarr; {chips_inline(view, [ev.token_id], [('hl',)])} "
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
            f" Tied with {_join([pair_label(view, p) for p in others], more)}; the {rule} rule picked "
            f"{pair_label(view, ev.pair)} {reason_t}."
        )
        parts_h.append(
            f" Tied with {_join([_pair_html(view, p) for p in others], more)}; the "
            f'<b title="{html.escape(tie_rule(rule).explanation, quote=True)}">{rule}</b> rule picked '
            f"{_pair_html(view, ev.pair)} {reason_h}."
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
            word = _word_text(view, w)
            tokens = view.tokens_at(w, k - 1)
            inside = set(zip(tokens, tokens[1:]))
            # tied pairs in the same word: say which comes first reading it left to right
            later = [p for p in ev.ties[1:TIES_NAMED + 1] if p in inside]
            if later:
                return (f"{t}: reading “{word}” left to right, {pair_label(view, ev.pair)} comes before "
                        f"{_join([pair_label(view, p) for p in later])}",
                        f"{html.escape(t)}: reading “<bdi>{html.escape(word)}</bdi>” left to right, "
                        f"{_pair_html(view, ev.pair)} comes before {_join([_pair_html(view, p) for p in later])}")
            return f"{t} (in “{word}”)", f"{html.escape(t)} (in “<bdi>{html.escape(word)}</bdi>”)"
    return t, html.escape(t)


# ---- the pair table -----------------------------------------------------------------------
def _delta_html(change, merge: int) -> str:
    """The change column: what merge `merge` did to a count, in words and arrows (a cue
    that does not rest on colour)."""
    if change is None:
        return ""
    kind = change.kind
    if kind == "appeared":
        return f'<span class="tp-d new" title="this pair did not exist before merge {merge}">new</span>'
    diff = change.after - change.before
    if kind == "up":
        return f'<span class="tp-d up" title="merge {merge} raised this count">&#9650; +{diff}</span>'
    return f'<span class="tp-d down" title="merge {merge} lowered this count">&#9660; &minus;{-diff}</span>'


#: "Gone" rows drawn under the pair table (the rest are counted in a note).
GONE_SHOWN = 5


def table_after(view: RunView, k: int) -> tuple[tuple[tuple[tuple[int, int], int], ...], bool]:
    """The pair table after merge k (best first), and whether it is complete (top N).

    Merge k+1's event holds it (`events[k].top_pairs`: the table before merge k+1).
    After the last merge no event does, so it is derived: the last table with the last
    merge's count changes applied. Rows above the last table's smallest count are exact
    (every count that changed is in the changes); rows at that count may be missing,
    hence the flag. Equal counts keep the last table's order, new pairs after them (the
    tie rule orders them only when it picks among them, and no merge does here).

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> v = RunView(train(WordTable.from_word_counts("low 5\\nlower 2"), TrainerSettings(merges=2)))
    >>> table_after(v, 1) == (v.run.events[1].top_pairs, True)
    True
    >>> [(pair_label(v, p), c) for p, c in table_after(v, 2)[0]][:2]
    [('e + r', 2), ('low + e', 2)]
    """
    events = view.run.events
    if k < len(events):
        return events[k].top_pairs, True
    if k == 0:
        return (), True
    ev = events[k - 1]
    old = dict(ev.top_pairs)
    top_n = view.run.settings.top_n
    held_all = len(old) < top_n  # the last table held every pair there was
    floor = min(old.values(), default=0)
    counts = dict(old)
    for c in ev.count_changes:
        counts[c.pair] = c.after
    kept = [(p, c) for p, c in counts.items() if c > 0 and (held_all or c > floor or p in old)]
    kept.sort(key=lambda pc: -pc[1])  # stable: the old order breaks ties
    return tuple(kept[:top_n]), held_all or len(kept) >= top_n and kept[top_n - 1][1] > floor


def pair_table_html(
    view: RunView,
    j: int,
    *,
    reveal: bool = True,
    hide_counts: bool = False,
    order: Sequence[int] | None = None,
    present: bool = False,
    numbered: bool = False,
    max_rows: int | None = None,
    winner_badge: str = "merged",
) -> str:
    """The pair table before merge j (1-based), i.e. after merge j-1: counts as bars,
    what merge j-1 did to each count (new, up, down, and the pairs it made disappear as
    struck-through "gone" rows), and (if `reveal`) merge j's winner and its ties marked.

    `order` re-orders the rows (predict mode shuffles tied rows so the order does not
    give the answer away); `numbered` shows row numbers for answers to refer to.
    j may be one past the last merge: the table after the last merge (no winner).
    """
    run = view.run
    ev = run.events[j - 1] if j <= run.steps else None
    rows, complete = table_after(view, j - 1)
    rows = list(rows)
    if order is not None:
        rows = [rows[i] for i in order]
    if max_rows is not None:
        rows = rows[:max_rows]
    merge = j - 1  # the merge whose changes the table shows
    prev = {c.pair: c for c in run.events[j - 2].count_changes} if j >= 2 else {}
    top = max((c for _, c in rows), default=1) or 1
    head = ("<th>#</th>" if numbered else "") + (
        f"<th>Pair</th><th>Count</th><th title='how merge {merge} changed this count'>Change</th><th></th>"
    )
    out = [f'<div class="tp{" present" if present else ""}"><div class="tp-scroll"{scroll_box_attrs(f"pair table after merge {merge}")}><table class="tp-table"><thead><tr>{head}</tr></thead><tbody>']
    for n, (pair, count) in enumerate(rows, start=1):
        win = reveal and ev is not None and pair == ev.pair
        tie = reveal and ev is not None and not win and count == ev.count
        cls = "win" if win else "tie" if tie else ""
        badge = (
            f'<span class="tp-badge win">{html.escape(winner_badge)}</span>' if win
            else '<span class="tp-badge tie">tied</span>' if tie else ""
        )
        if hide_counts:
            count_cell = "?"
        else:
            width = max(1.0, 100.0 * count / top)
            count_cell = (f'<span class="tp-barbox"><span class="tp-bar" style="width:{width:.0f}%"></span></span>'
                          f"{count}")
        out.append(
            f'<tr class="{cls}" data-pair="{html.escape(pair_label(view, pair), quote=True)}">'
            + (f'<td class="num">{n}</td>' if numbered else "")
            + f"<td>{_pair_html(view, pair)}</td><td class=\"cnt\">{count_cell}</td>"
            f"<td>{'' if hide_counts else _delta_html(prev.get(pair), merge)}</td><td>{badge}</td></tr>"
        )
    gone = [c for c in prev.values() if c.kind == "vanished"]
    if gone and not hide_counts:
        for c in gone[:GONE_SHOWN]:
            out.append(
                f'<tr class="gone" data-gone="{html.escape(pair_label(view, c.pair), quote=True)}">'
                + ('<td class="num"></td>' if numbered else "")
                + f"<td>{_pair_html(view, c.pair)}</td><td class=\"cnt\">was {c.before}</td>"
                f'<td><span class="tp-d gone" title="merge {merge} used up every occurrence of this pair">'
                f"&#10005; gone</span></td><td></td></tr>"
            )
    out.append("</tbody></table></div>")
    if len(gone) > GONE_SHOWN and not hide_counts:
        out.append(f'<div class="tp-note">{len(gone) - GONE_SHOWN} more pairs are gone after merge {merge}.</div>')
    if ev is not None and reveal and ev.tie_count > len([1 for _, c in rows if c == ev.count]):
        out.append(f'<div class="tp-note">{ev.tie_count} pairs are tied at {ev.count}; the table shows the first {len(rows)} rows.</div>')
    if ev is None and not complete:
        out.append('<div class="tp-note">Training stopped here, so no later merge counted this table: it is '
                   "the last table with this merge's changes applied (pairs at the lowest count may be missing).</div>")
    if ev is None and not rows:
        out.append('<div class="tp-note">No pairs are left: every word is a single token.</div>')
    out.append("</div>")
    return "".join(out)


@step_cached
def pair_section_html(view: RunView, k: int, *, present: bool = False, max_rows: int | None = None,
                      hidden_order: Sequence[int] | None = None) -> str:
    """The heading and the pair table after merge k (the table merge k+1 is picked
    from), merge k's changes marked, merge k+1's winner and ties badged.

    `hidden_order` (a class question about merge k+1 is open): the rows in that order,
    counts, changes and the winner's badge hidden, so the table gives nothing away."""
    nxt = k + 1
    if hidden_order is not None:
        title = f"Pairs after merge {k}" if k else "Pairs at step 0"
        sub = f"Counts hidden while the class answers which pair merges next (merge {nxt})."
        return (f'<div class="tp-h">{title}</div><div class="tp-note tp-sub">{sub}</div>'
                + pair_table_html(view, nxt, reveal=False, hide_counts=True, order=hidden_order,
                                  present=present, max_rows=max_rows))
    title = f"Pair counts after merge {k}" if k else "Pair counts at step 0"
    sub = (f"Merge {nxt} is picked from these." if k < view.steps else "The last merge: nothing is picked from these.")
    if k:
        sub += f" Change, new and gone: what merge {k} did."
    return (f'<div class="tp-h">{title}</div><div class="tp-note tp-sub">{sub}</div>'
            + pair_table_html(view, nxt, reveal=k < view.steps, present=present, max_rows=max_rows,
                              winner_badge="merges next"))


# ---- what merge k did -----------------------------------------------------------------------
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
            f'<td class="num">{ev.step}</td><td>{_pair_html(view, ev.pair)}</td>'
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


# ---- the corpus ---------------------------------------------------------------------------
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


# ---- the vocabulary -----------------------------------------------------------------------
@step_cached
def vocab_summary(view: RunView, k: int) -> str:
    """Why the vocabulary size is not base + merges, in words.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> run = train(WordTable.from_word_counts("low 5\\nlower 2\\nnewest 6\\nwidest 3"),
    ...             TrainerSettings(end_of_word="separate", merges=4))
    >>> vocab_summary(RunView(run), 4)
    '15 tokens: 11 base symbols + 4 merged tokens. The corpus uses 9 of them now; 6 (struck through) no longer occur anywhere, because every occurrence was merged into a longer token.'
    """
    run = view.run
    size = run.vocab_size(k)
    merged = size - run.base_size
    in_use = run.tokens_in_use(k)
    retired = len(run.retired_tokens(k))
    again = sum(1 for ev in run.events[:k] if not ev.is_new_token)
    parts = [f"{size:,} tokens: {run.base_size:,} base symbol{'s' if run.base_size != 1 else ''} + "
             f"{merged:,} merged token{'s' if merged != 1 else ''}."]
    if again:
        parts.append(f"{again} merge{'s' if again != 1 else ''} re-made a token that already existed, adding nothing.")
    unused_base = run.base_size - len(view.base_in_corpus)
    parts.append(f"The corpus uses {in_use:,} of them now;")
    if retired:
        parts.append(f"{retired:,} (struck through) no longer occur anywhere, because every occurrence was "
                     "merged into a longer token.")
    else:
        parts[-1] = parts[-1][:-1] + "."
    if unused_base:
        also = ", and with an attached marker each of them as a word end too" if run.settings.end_of_word == "attached" else ""
        parts.append(f"{unused_base:,} of the {run.base_size:,} base symbols never occur in this corpus: a "
                     f"byte-level vocabulary holds all 256 byte values{also}.")
    return " ".join(parts)


@step_cached
def vocab_html(view: RunView, k: int) -> str:
    """Base symbols and merged tokens at step k; tokens the corpus no longer uses are
    struck through, the newest token is highlighted."""
    run = view.run
    retired = run.retired_tokens(k)
    new_id = run.events[k - 1].token_id if k else None

    def classes(t: int) -> tuple[str, ...]:
        return (("retired",) if t in retired else ()) + (("hl",) if t == new_id else ())

    base = [t for t in range(run.base_size) if t in view.base_in_corpus]
    merged = list(range(run.base_size, run.vocab_size(k)))
    hidden = max(0, len(merged) - MERGED_TOKENS_SHOWN)
    merged = merged[hidden:]
    gone = sum(1 for t in base if t in retired)
    head = f"Base symbols ({len(base)} in the corpus at step 0"
    head += f"; {gone} struck through: no longer in the corpus)" if gone else ")"
    out = ['<div class="tp tp-vocab">', f'<div class="tp-group">{head}</div>',
           chips_inline(view, base, [classes(t) for t in base])]
    n_merged = run.vocab_size(k) - run.base_size
    gone_m = sum(1 for t in range(run.base_size, run.vocab_size(k)) if t in retired)
    head = f"Merged tokens ({n_merged}" + (f"; {gone_m} struck through: used up by later merges)" if gone_m else ")")
    out.append(f'<div class="tp-group">{head}</div>')
    if merged:
        if hidden:
            out.append(f'<div class="tp-note">The latest {len(merged)} (ids {merged[0]} to {merged[-1]}):</div>')
        out.append(chips_inline(view, merged, [classes(t) for t in merged]))
    else:
        out.append('<div class="tp-note">None yet.</div>')
    out.append("</div>")
    return "".join(out)


# ---- figures and the chart ----------------------------------------------------------------
@dataclass(frozen=True)
class Figures:
    vocab_size: int
    vocab_delta: int
    corpus_length: int
    length_delta: int
    per_token: float
    per_token_start: float
    unit: str            # "characters" or "bytes"
    tokens_in_use: int


@step_cached
def figures(view: RunView, k: int) -> Figures:
    """Vocabulary size, corpus length in tokens and compression at step k."""
    run = view.run
    unit = "bytes" if run.settings.units == "byte" else "characters"
    amount = view.total_bytes if unit == "bytes" else view.total_chars
    length = run.corpus_length(k)
    start = run.corpus_length(0)
    return Figures(
        vocab_size=run.vocab_size(k),
        vocab_delta=run.vocab_size(k) - run.base_size,
        corpus_length=length,
        length_delta=length - start,
        per_token=amount / length if length else 0.0,
        per_token_start=amount / start if start else 0.0,
        unit=unit,
        tokens_in_use=run.tokens_in_use(k),
    )


@step_cached
def figures_html(view: RunView, k: int) -> str:
    """The four figures at step k (vocabulary, tokens in use, corpus length, compression)
    as one HTML row: one element a step instead of four metrics in four columns.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> v = RunView(train(WordTable.from_word_counts("low 5\\nlower 2"), TrainerSettings(merges=3)))
    >>> h = figures_html(v, 2)
    >>> "Corpus (tokens)" in h and "+2 merged" in h and "−14" in h
    True
    """
    f = figures(view, k)
    unit = "Chars" if f.unit == "characters" else "Bytes"

    def fig(label: str, value: str, delta: str = "", kind: str = "", help_text: str = "") -> str:
        lab = (f'<abbr title="{html.escape(help_text)}">{html.escape(label)}</abbr>' if help_text
               else html.escape(label))
        dlt = f'<div class="{("dlt " + kind).strip()}">{html.escape(delta)}</div>' if delta else ""
        return f'<div class="tp-fig"><div class="lab">{lab}</div><div class="val">{html.escape(value)}</div>{dlt}</div>'

    cells = [
        fig("Vocabulary", f"{f.vocab_size:,}", f"↑ +{f.vocab_delta:,} merged" if f.vocab_delta else ""),
        fig("Tokens in use", f"{f.tokens_in_use:,}", help_text="Tokens that occur somewhere in the corpus now."),
        fig("Corpus (tokens)", f"{f.corpus_length:,}",
            (f"↓ −{-f.length_delta:,}" if f.length_delta < 0 else f"↑ +{f.length_delta:,}") if f.length_delta else "",
            "good" if f.length_delta < 0 else "bad"),
        fig(f"{unit} / token", f"{f.per_token:.2f}", f"↑ from {f.per_token_start:.2f}" if k else "",
            help_text="Compression: the corpus's size divided by its length in tokens (end-of-word markers "
                      "count as tokens)."),
    ]
    return f'<div class="tp tp-figs">{"".join(cells)}</div>'



@step_cached
def vocab_section_html(view: RunView, k: int) -> str:
    """"Vocabulary and figures" under its heading, as one HTML block: the figures, the
    note on characters per token at step 0, the vocabulary (its summary and chips) and the
    chart side by side (stacked on a narrow screen). One element instead of eight (a row
    of columns, captions, three HTML blocks): each is a message and a component drawn
    again at every step."""
    f = figures(view, k)
    note = ""
    if k == 0 and f.per_token_start < 1 and view.run.settings.end_of_word == "separate":
        unit = "character" if f.unit == "characters" else "byte"
        note = (f'<p class="tp-cap">Why {f.per_token_start:.2f} at step 0, below 1: each {unit} is a token, and the '
                f"separate end-of-word marker {html.escape(view.marker)} is one more token per word (it is not in "
                "the text).</p>")
    return (f"{figures_html(view, k)}{note}"
            f'<div class="tp-vf"><div><p class="tp-cap">{html.escape(vocab_summary(view, k))}</p>{vocab_html(view, k)}</div>'
            f"<div>{chart_html(view, k)}</div></div>")


CHART_POINTS = 1000


def chart_rows(view: RunView) -> list[dict[str, int]]:
    """(step, corpus length, vocabulary size) for every step, thinned to about
    CHART_POINTS rows for long runs."""
    run = view.run
    n = run.steps
    stride = max(1, -(-n // CHART_POINTS))
    steps = list(range(0, n + 1, stride))
    if steps[-1] != n:
        steps.append(n)
    return [{"step": s, "tokens": run.corpus_length(s), "vocab": run.vocab_size(s)} for s in steps]


#: The chart's size in SVG units (the image is drawn at the column's width, this aspect).
CHART_W, CHART_H = 460, 220
_PAD_L, _PAD_R, _PAD_T, _PAD_B = 62, 14, 10, 46
#: The curve is drawn with at most this many points (a pixel each at the chart's width).
SVG_POINTS = 400


@step_cached
def _chart_frame(view: RunView) -> tuple[str, tuple[float, float, float, float]]:
    """The chart's part that is the same at every step of a run (axes, grid, curve) as
    SVG markup, and its scale (x0, x-per-step, y0, y-per-token)."""
    rows = chart_rows(view)
    stride = max(1, -(-len(rows) // SVG_POINTS))
    pts = rows[::stride] + ([rows[-1]] if (len(rows) - 1) % stride else [])
    steps = max(1, view.steps)
    tokens = [r["tokens"] for r in rows]
    yticks = nice_ticks(min(tokens), max(tokens))
    xticks = [t for t in nice_ticks(0, steps, 6) if t <= steps]
    ylo, yhi = yticks[0], yticks[-1]
    w, h = CHART_W - _PAD_L - _PAD_R, CHART_H - _PAD_T - _PAD_B
    sx, sy = w / steps, h / max(1, yhi - ylo)
    X = lambda s: _PAD_L + s * sx
    Y = lambda t: _PAD_T + h - (t - ylo) * sy
    out = []
    for t in yticks:
        out.append(f'<line class="g" x1="{_PAD_L}" x2="{_PAD_L + w}" y1="{Y(t):.1f}" y2="{Y(t):.1f}"/>'
                   f'<text x="{_PAD_L - 6}" y="{Y(t) + 4:.1f}" text-anchor="end">{t:,}</text>')
    for t in xticks:
        out.append(f'<line class="g" x1="{X(t):.1f}" x2="{X(t):.1f}" y1="{_PAD_T}" y2="{_PAD_T + h}"/>'
                   f'<text x="{X(t):.1f}" y="{_PAD_T + h + 16}" text-anchor="middle">{t:,}</text>')
    out.append(f'<text x="{_PAD_L + w / 2:.1f}" y="{CHART_H - 6}" text-anchor="middle">step (merges so far)</text>'
               f'<text transform="translate(16 {_PAD_T + h / 2:.1f}) rotate(-90)" text-anchor="middle">tokens in the corpus</text>')
    path = " ".join(f"{X(r['step']):.1f},{Y(r['tokens']):.1f}" for r in pts)
    out.append(f'<polyline class="line" points="{path}"/>')
    return "".join(out), (_PAD_L, sx, _PAD_T + h + ylo * sy, sy)


_CHART_STYLE = ("<style>text{font:14px sans-serif;fill:#555}.g{stroke:#ddd;stroke-width:1}"
                ".line{fill:none;stroke:#0072B2;stroke-width:3;stroke-linejoin:round}"
                ".now{stroke:#D55E00;stroke-width:2;stroke-dasharray:4 3}.dot{fill:#D55E00}"
                "@media (prefers-color-scheme: dark){text{fill:#bbb}.g{stroke:#444}}</style>")


@step_cached
def chart_html(view: RunView, k: int) -> str:
    """Corpus length in tokens against step, step k marked (a dashed rule and a dot), as
    an SVG image in an <img> (st.html keeps a data: image; it strips inline SVG). One
    small element: no charting library in the browser, and a step swaps one image whose
    curve and axes the run's `_chart_frame` drew once. The alt text and the tooltip say
    what the picture shows."""
    frame, (x0, sx, y0, sy) = _chart_frame(view)
    t = view.run.corpus_length(k)
    x, y = x0 + k * sx, y0 - t * sy
    marker = (f'<line class="now" x1="{x:.1f}" x2="{x:.1f}" y1="{_PAD_T}" y2="{CHART_H - _PAD_B}"/>'
              f'<circle class="dot" cx="{x:.1f}" cy="{y:.1f}" r="7"/>')
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {CHART_W} {CHART_H}">'
           f"{_CHART_STYLE}{frame}{marker}</svg>")
    src = data_url(svg)
    run = view.run
    alt_text = (f"Chart: tokens in the corpus against step, from {run.corpus_length(0):,} at step 0 to "
                f"{run.corpus_length(run.steps):,} after {run.steps:,} merges; marked: step {k:,}, {t:,} tokens.")
    return (f'<div class="tp tp-chart" data-step="{k}" data-tokens="{t}"><img src="{src}" alt="{alt_text}" '
            f'title="step {k:,}: {t:,} tokens" width="{CHART_W}" height="{CHART_H}"></div>')
