"""ui/shared/tables.py: small static tables as escaped HTML (no data grid on a first load)."""
from ui.shared.tables import TABLE_CSS, read_table, table_html


def test_every_header_and_text_cell_is_escaped_numbers_are_formatted():
    hostile = '<img src=x onerror=alert(1)>&amp;"'
    markup = table_html([{hostile: hostile, "n": 1234, "x": 0.125, "ok": True, "none": None}], label=hostile)
    assert "<img" not in markup and markup.count("&lt;img") == 4  # header, cell, the table's and its scroll box's aria-label
    assert read_table(markup) == [{hostile: hostile, "n": "1234", "x": "0.125", "ok": "yes", "none": ""}]
    assert markup.startswith(TABLE_CSS) and not table_html([{"a": 1}], css=False).startswith("<style>")


def test_bars_show_shares_as_percentages_and_counts_as_counts():
    rows = [{"token": "a", "share": 0.5, "tokens": 1200}, {"token": "b", "share": 0.25, "tokens": 600}]
    markup = table_html(rows, bars={"share": 0.5, "tokens": 1200})
    assert [(r["share"], r["tokens"]) for r in read_table(markup)] == [("50.0%", "1,200"), ("25.0%", "600")]
    assert markup.count('class="bar"') == 4 and "width:6.00rem" in markup and "width:3.00rem" in markup


def test_no_rows_is_an_empty_table():
    assert read_table(table_html([])) == []
