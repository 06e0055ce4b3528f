"""HTML for the Vocabulary explorer: one token's card and its merge tree. Pure functions
returning strings; every token's text goes through the chips' `chip_label` (escaped,
whitespace marked, invisible characters named) or `html.escape`."""
from __future__ import annotations

import html

from bpe_core.explore import MergeTree, TokenRecord
from ui.shared.chips import CHIP_CSS, chip_label

__all__ = ["EXPLORER_CSS", "ROWS_CSS", "card_html", "tree_html"]

EXPLORER_CSS = """<style>
.vx-card { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: .25rem 0 .75rem; }
.vx-card dt { font-weight: 600; }
.vx-card dd { margin: 0; overflow-wrap: anywhere; }
@media (max-width: 640px) {  /* a phone: each fact's name above its value, the value full width */
  .vx-card { grid-template-columns: minmax(0, 1fr); gap: 0; padding-left: 0; margin-left: 0; }
  .vx-card dd { margin: 0 0 .4rem .75rem; }
}
.vx-big { font-size: 1.6rem; }
.vx-hex { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.vx-tree, .vx-tree ul { list-style: none; margin: 0; padding-left: 1.4rem; border-left: 2px solid #555; }
.vx-tree { padding-left: .6rem; }
.vx-tree li { margin: .15rem 0; }
.vx-tree .bpe-tokens { font-size: 1rem; line-height: 1.6; }
.vx-note { font-size: .9rem; font-style: italic; }
</style>"""
#: A table of tokens (ui/explorer/widgets.py `rows_html`): their text and bytes in a fixed
#: width font, each cell on one line but the bytes (at least 6 a line; on a phone the extra
#: columns scroll sideways inside the table's box); a long list scrolls inside its box.
ROWS_CSS = """<style>
.vx-rows td, .vx-rows th { white-space: nowrap; }
.vx-rows td:nth-child(3) { white-space: normal; min-width: 18ch; }
.vx-rows td:nth-child(2), .vx-rows td:nth-child(3) { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.vx-tall .bpe-table-wrap { max-height: 20rem; overflow-y: auto; }
</style>"""


def _chip(text: str, cls: str = "") -> str:
    extra = f' class="bpe-tok {cls}"' if cls else ""
    return f'<span class="bpe-tokens bpe-o0"><span{extra}>{chip_label(text)}</span></span>'


def _row(term: str, value: str) -> str:
    return f"<dt>{html.escape(term)}</dt><dd>{value}</dd>"


def card_html(rec: TokenRecord, *, css: bool = True) -> str:
    """One token: its chip, then a definition list of its facts.

    >>> from bpe_core.explore import TokenRecord
    >>> rec = TokenRecord(7, "<b>", "<b>", "<b>", "3C 62 3E", 3, 3, True, None, False, "Latin", "BPE")
    >>> "<b>" in card_html(rec, css=False), "&lt;b&gt;" in card_html(rec, css=False)
    (False, True)
    """
    yes = {True: "yes", False: "no"}
    rows = [
        _row("Id", f"{rec.id:,}"),
        _row("Written as", f'<span class="vx-hex">{html.escape(rec.form)}</span>'),
        _row("Bytes", f'<span class="vx-hex">{html.escape(rec.hex)}</span> ({rec.n_bytes} byte'
                      f'{"s" if rec.n_bytes != 1 else ""}, {rec.n_chars} character{"s" if rec.n_chars != 1 else ""})'),
        _row("Whole UTF-8 on its own", yes[rec.utf8] + ("" if rec.utf8 else f": {html.escape(rec.fragment_of or '')}")),
        _row("Special token", yes[rec.special] + (": never made from ordinary text unless a program allows it"
                                                   if rec.special else "")),
        _row("Script", html.escape(rec.script)),
        _row("Kind", html.escape(rec.kind)),
    ]
    if rec.rank is not None:
        rows.append(_row("Rank", f"{rec.rank:,} (lower ranks merge first)"))
    if rec.score is not None:
        rows.append(_row("Score", f"{rec.score:g} (a log-probability: higher is likelier)"))
    if rec.continues is not None:
        rows.append(_row("Continues a word (##)", yes[rec.continues]))
    cls = "special" if rec.special else "partial" if not rec.utf8 else ""
    body = (f'<div class="vx-big">{_chip(rec.text, cls)}</div>'
            f'<dl class="vx-card">{"".join(rows)}</dl>')
    return (CHIP_CSS + EXPLORER_CSS if css else "") + body


def _node(tree: MergeTree) -> str:
    facts = []
    if tree.id is not None:
        facts.append(f"id {tree.id:,}")
    if tree.rank is not None and tree.parts:
        facts.append(f"merge rank {tree.rank:,}")
    label = f' <span class="vx-note">{html.escape(", ".join(facts))}</span>' if facts else ""
    kids = "".join(_node(p) for p in tree.parts)
    return f"<li>{_chip(tree.text)}{label}{f'<ul>{kids}</ul>' if kids else ''}</li>"


def tree_html(tree: MergeTree, note: str = "") -> str:
    """The merge tree as nested lists: each token above the tokens that merged into it.

    >>> from bpe_core.explore import MergeTree
    >>> t = MergeTree(3, "ab", 1, (MergeTree(0, "a", None), MergeTree(1, "<b>", None)))
    >>> tree_html(t).count("<li>"), "&lt;b&gt;" in tree_html(t)
    (3, True)
    """
    caption = f'<p class="vx-note">{html.escape(note)}</p>' if note else ""
    return f'{caption}<ul class="vx-tree" aria-label="Merge tree">{_node(tree)}</ul>'
