"""Drawings of how a model builds the tokens of one word, shared by the Algorithms page
(models trained there) and the Tokenize page (tokenizer files uploaded there): tokens as
chips, a Unigram lattice as a grid, a WordPiece longest-match trace as table rows.

Pure functions returning an HTML string (every piece of text through `html.escape`, chips
through the one renderer ui/shared/chips.py) or plain rows, so tests check them without a
browser.
"""
from __future__ import annotations

import html
from typing import Iterable, Sequence

from bpe_core.algorithms.unigram import Lattice
from bpe_core.algorithms.wordpiece import WordTrace
from ui.shared.chips import TokenChip, chips_html as _chips_run

__all__ = ["UNKNOWN_TOKENS", "chips_html", "trace_rows", "table_height", "lattice_html"]


UNKNOWN_TOKENS = frozenset({"[UNK]", "<unk>", "?"})


def chips_html(tokens: Sequence[str], *, css: bool = True, unknown: Iterable[str] = UNKNOWN_TOKENS) -> str:
    """Tokens as coloured chips (the one place the word views draw chips); an unknown token
    gets the dashed "unknown" style. Text is escaped.

    >>> out = chips_html(["hug", "##s", "<b>"], css=False)
    >>> out.count('<span title="'), "&lt;b&gt;" in out
    (3, True)
    >>> 'bpe-tok unk' in chips_html(["[UNK]"], css=False)
    True
    """
    unknown = set(unknown)
    chips = [TokenChip(t, title=t, classes=("unk",) if t in unknown else ()) for t in tokens]
    return _chips_run(chips, css=css, block=True)




def trace_rows(trace: WordTrace) -> list[dict]:
    """Every lookup of the longest-match loop, in order."""
    return [{"position": a.start, "tried": a.candidate, "in the vocabulary": "yes" if a.found else "no"}
            for a in trace.attempts]




def table_height(rows: int, *, most: int = 420) -> int:
    """Pixels for a dataframe that shows `rows` rows without scrolling (up to `most`).

    >>> table_height(2), table_height(100)
    (114, 420)
    """
    return min(most, 37 * (rows + 1) + 3)




def lattice_html(lattice: Lattice) -> str:
    """The lattice as a grid: one column per character of the normalised word, one bar
    per candidate piece spanning its characters, stacked in rows; the pieces of the best
    path bold and outlined. Each bar shows the piece, its score (log-probability) and its
    marginal (how often a sampled segmentation uses it). Escaped."""
    norm = lattice.normalized
    best = set(lattice.best_path)
    cols = max(1, len(norm))
    head = "".join(f'<div class="ulc" style="grid-column:{i + 1}">{html.escape(ch)}</div>'
                   for i, ch in enumerate(norm))
    rows_end: list[int] = []  # per stacked row, the end of its last bar
    cells = []
    for k, node in enumerate(lattice.nodes):
        row = next((r for r, end in enumerate(rows_end) if end <= node.start), None)
        if row is None:
            rows_end.append(node.end)
            row = len(rows_end) - 1
        rows_end[row] = node.end
        cls = "ulb best" if k in best else "ulb"
        label = html.escape(node.piece if node.known else f"{node.piece} (unknown)")
        tip = html.escape(f"{node.piece}: score {node.score:.3f}, marginal {node.marginal:.3f}", quote=True)
        cells.append(
            f'<div class="{cls}" title="{tip}" style="grid-column:{node.start + 1} / {node.end + 1};'
            f'grid-row:{row + 2}"><b>{label}</b><br><small>{node.score:.2f} · p {node.marginal:.2f}</small></div>'
        )
    style = (
        "<style>.ulat{display:grid;gap:3px;font-family:ui-monospace,Menlo,Consolas,monospace;"
        "overflow-x:auto;padding:4px 0}.ulc{text-align:center;font-weight:700;border-bottom:2px solid #333}"
        ".ulb{background:#B3DDF5;color:#000;border:1px solid #555;border-radius:4px;padding:2px 4px;"
        "text-align:center;font-size:.85rem;line-height:1.2;overflow:hidden;white-space:nowrap}"
        ".ulb.best{background:#F4D48C;border:3px solid #D55E00}</style>"
    )
    grid = (f'<div class="ulat" style="grid-template-columns:repeat({cols}, minmax(3.2rem, 1fr))">'
            f"{head}{''.join(cells)}</div>")
    legend = ('<p style="font-size:.85rem">Outlined in orange: the best path (Viterbi). Under each piece: '
              "its score (log-probability) and p, the probability that a segmentation drawn from the "
              "model uses it.</p>")
    return style + grid + legend
