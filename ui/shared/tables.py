"""Small static tables drawn as plain HTML (one st.html each), for a cheap first load.

`st.dataframe` and `st.table` both make the browser fetch and compile Streamlit's Arrow
and table-formatting scripts on the first table of a page (arrowFormatUtils, recordbatch,
serialization, moment, numbro: about 1 MB of JavaScript, 1.3 MB more with the data grid);
`st.html` needs none of them and, like a grid, is drawn only once scrolled into view. So
the pages' small summary tables (tens of rows, nothing to sort or search) are HTML.

Every header and text cell goes through `html.escape` (cells may hold what a user
typed); numbers are formatted here. A column in `bars` is drawn with a bar beside each
value: a share (a float) as a percentage, as a ProgressColumn was, or a count (an int),
as a bar chart of a few rows would.

What it leaves out: sorting, searching and a CSV download (the grids' toolbar); tables
where those matter stay `st.dataframe`.
"""
from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from html.parser import HTMLParser

from ui.shared.a11y import scroll_box_attrs

__all__ = ["TABLE_CSS", "table_html", "read_table"]

TABLE_CSS = """<style>
.bpe-table-wrap { overflow-x: auto; max-width: 100%; }
.bpe-table { border-collapse: collapse; font-size: 0.95rem; margin: 0.2rem 0 0.6rem 0; }
.bpe-table th, .bpe-table td { border-bottom: 1px solid rgba(128,128,128,0.3); padding: 0.25rem 0.75rem;
  text-align: left; vertical-align: top; }
.bpe-table th { font-weight: 600; border-bottom-width: 2px; }
.bpe-table td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.bpe-table .bar { display: inline-block; height: 0.7em; margin-left: 0.4rem; background: #0072B2; opacity: 0.6;
  vertical-align: middle; }
.bpe-table td.num:has(.bar) { text-align: left; }
</style>"""


def _cell(value: object, bar_max: float | None) -> str:
    if bar_max is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
        width = 0.0 if bar_max <= 0 else max(0.0, min(1.0, value / bar_max)) * 6.0
        shown = f"{value:,}" if isinstance(value, int) else f"{value:.1%}"
        return (f'<td class="num">{shown}<span class="bar" style="width:{width:.2f}rem" '
                f'aria-hidden="true"></span></td>')
    if isinstance(value, bool):
        return f"<td>{'yes' if value else 'no'}</td>"
    if isinstance(value, int):
        return f'<td class="num">{value}</td>'
    if isinstance(value, float):
        return f'<td class="num">{value:.4g}</td>'
    return f"<td>{'' if value is None else html.escape(str(value))}</td>"


def table_html(rows: Sequence[Mapping[str, object]], *, bars: Mapping[str, float] | None = None,
               css: bool = True, label: str = "") -> str:
    """`rows` (dicts with the same keys, in order) as an HTML table, every text escaped.
    `bars`: column -> the largest value; its cells get a bar (shares as percentages).
    `css`: include TABLE_CSS (once per st.html is fine: it is 0.6 kB). `label`: the
    table's accessible name (aria-label), plain text."""
    bars = bars or {}
    columns = list(rows[0]) if rows else []
    head = "".join(f'<th scope="col">{html.escape(str(c))}</th>' for c in columns)
    body = "".join("<tr>" + "".join(_cell(row.get(c), bars.get(c)) for c in columns) + "</tr>" for row in rows)
    name = f' aria-label="{html.escape(label)}"' if label else ""
    box = scroll_box_attrs(label or "table")
    return (f'{TABLE_CSS if css else ""}<div class="bpe-table-wrap"{box}><table class="bpe-table"{name}>'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self.tables and self.tables[-1]:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def read_table(markup: str, index: int = 0) -> list[dict[str, str]]:
    """The `index`-th table of some HTML as a list of rows (header -> cell text, unescaped):
    what a reader (or a test) sees in a table made by table_html."""
    reader = _Reader()
    reader.feed(markup)
    header, *rows = reader.tables[index]
    return [dict(zip(header, row)) for row in rows]
