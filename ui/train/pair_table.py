"""Train page, pure drawing: the pair table after merge k.

At step k the page shows the table merge k+1 is picked from (`pair_table_html(view, k +
1)`: `events[k].top_pairs`), its "change" column and its "gone" rows being what merge k
did to each count. After the last merge no event holds that table: `table_after` derives
it from the last table and the last merge's count changes.
"""
from __future__ import annotations

import html
from typing import Sequence

from ui.shared.a11y import scroll_box_attrs
from ui.train.drawing import pair_html, pair_label
from ui.train.run_view import RunView
from ui.train.step_cache import step_cached


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
            + f"<td>{pair_html(view, pair)}</td><td class=\"cnt\">{count_cell}</td>"
            f"<td>{'' if hide_counts else _delta_html(prev.get(pair), merge)}</td><td>{badge}</td></tr>"
        )
    gone = [c for c in prev.values() if c.kind == "vanished"]
    if gone and not hide_counts:
        for c in gone[:GONE_SHOWN]:
            out.append(
                f'<tr class="gone" data-gone="{html.escape(pair_label(view, c.pair), quote=True)}">'
                + ('<td class="num"></td>' if numbered else "")
                + f"<td>{pair_html(view, c.pair)}</td><td class=\"cnt\">was {c.before}</td>"
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
