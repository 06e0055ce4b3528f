"""Train page, pure drawing: what every part of a step's picture shares.

The page's CSS (`PAGE_CSS`), how many words, tokens and merges a step draws, and the small
pieces the other drawing modules build from: a run of token chips (`chips_inline`) and a
pair written as text or chips. The parts of a step are drawn by `sentence.py` (the
sentence), `pair_table.py` (the pair counts), `merges.py` (what merge k did and the merge
list), `corpus_view.py` (the words), `vocab_view.py` (the vocabulary and figures) and
`chart.py` (corpus length against step); each reads a `RunView` (ui/train/run_view.py:
a run with its per-run index of each word's tokens at any step).

Step k means "after k merges". Every token is drawn with ui/shared/chips.py, the one chip
renderer (HTML-escaped, whitespace and invisible characters drawn with
bpe_core.display's one table, the end-of-word marker styled apart, each chip one
unbreakable box). No Streamlit here; tests call these directly.
"""
from __future__ import annotations

from typing import Sequence

from bpe_core.display import visible_text
from ui.shared.chips import CHIP_CSS, PALETTE, chips_html
from ui.train.run_view import RunView


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

def chips_inline(view: RunView, ids: Sequence[int], classes: Sequence[tuple[str, ...]] | None = None, start: int = 0) -> str:
    """Token chips as an inline run (neighbours differ in colour; the first takes colour
    `start`)."""
    chips = [view.chip(t, classes[i] if classes else ()) for i, t in enumerate(ids)]
    return chips_html(chips, start=start, extra="tp-inline")


def pair_label(view: RunView, pair: tuple[int, int]) -> str:
    """`e + s` (plain text)."""
    return f"{view.label(pair[0])} + {view.label(pair[1])}"


def pair_html(view: RunView, pair: tuple[int, int]) -> str:
    return chips_inline(view, pair)


def join_items(items: list[str], more: int = 0) -> str:
    """`a`, `a and b`, `a, b and c`, `a, b and 3 more pairs`."""
    if more:
        return ", ".join(items) + f" and {more} more pair{'s' if more != 1 else ''}"
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def word_text(view: RunView, w: int) -> str:
    return visible_text(view.run.words.words[w])
