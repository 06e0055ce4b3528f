"""Altair charts for the Vocabulary explorer, built by pure functions from the engine's
overviews and comparisons (bpe_core.explore), each with a sentence that says what it
shows (`*_summary`: the page writes it under the chart, and into the chart's ARIA
description, so the chart has a text alternative).

Colours are Okabe-Ito; a comparison's three parts also differ by their bars' outline
(solid, dashed, dotted: `DASHES`), shown in the legend too, and are named in the tooltips.
"""
from __future__ import annotations

import altair as alt
import pandas as pd

from bpe_core.explore import Comparison, Overview

__all__ = ["length_chart", "length_summary", "script_chart", "script_summary", "compare_chart", "compare_summary"]

BLUE, VERMILLION, GREEN = "#0072B2", "#D55E00", "#009E73"
#: A comparison's parts (shared, only in the first, only in the second) by outline too:
#: solid, dashed, dotted, drawn in near-black (at least 3:1 against each fill and the page,
#: WCAG 1.4.11 for the parts of a graphic).
DASHES = ((1, 0), (8, 4), (2, 3))
OUTLINE = "#1a1a1a"
#: Lengths above this are one bar ("longer"), so a few very long tokens do not flatten the rest.
LENGTH_CAP = 32
#: A horizontal bar chart's height per bar, in pixels. Its height is the bars' area only
#: (`FIT_WIDTH`): Streamlit's default autosize ("fit") squeezes the title, legend and axis
#: into the height given, which left too little room and Vega then dropped every other
#: label of the y axis.
BAR_STEP = 22
FIT_WIDTH = alt.AutoSizeParams(type="fit-x", contains="padding")


def _capped(pairs: tuple[tuple[int, int], ...]) -> pd.DataFrame:
    rows: dict[int, int] = {}
    for n, count in pairs:
        key = min(n, LENGTH_CAP + 1)
        rows[key] = rows.get(key, 0) + count
    return pd.DataFrame({"length": [str(n) if n <= LENGTH_CAP else f">{LENGTH_CAP}" for n in rows],
                         "order": list(rows), "tokens": list(rows.values())})


def length_summary(o: Overview, unit: str) -> str:
    """One sentence: the most common length and the share of short tokens.

    >>> from bpe_core.explore import Overview
    >>> o = Overview(3, 0, 0, ((1, 1), (4, 2)), ((1, 1), (4, 2)), (), (), (), (), 0)
    >>> length_summary(o, "characters")
    'Most tokens are 4 characters long (2 of 3); 1 (33%) have 1 to 3 characters; the longest has 4.'
    """
    pairs = o.by_chars if unit == "characters" else o.by_bytes
    total = sum(c for _, c in pairs) or 1
    mode = max(pairs, key=lambda p: (p[1], -p[0]), default=(0, 0))
    short = sum(c for n, c in pairs if 1 <= n <= 3)
    longest = max((n for n, _ in pairs), default=0)
    return (f"Most tokens are {mode[0]} {unit} long ({mode[1]:,} of {total:,}); {short:,} ({short / total:.0%}) "
            f"have 1 to 3 {unit}; the longest has {longest:,}.")


def length_chart(o: Overview, unit: str = "characters") -> alt.Chart:
    """Tokens by length (characters or bytes), one bar per length."""
    frame = _capped(o.by_chars if unit == "characters" else o.by_bytes)
    return alt.Chart(frame, title=f"Tokens by length in {unit}").mark_bar(color=BLUE).encode(
        x=alt.X("length:N", sort=alt.SortField("order"), title=f"Length ({unit})", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("tokens:Q", title="Tokens", axis=alt.Axis(format=",d")),
        tooltip=[alt.Tooltip("length:N", title=f"Length ({unit})"), alt.Tooltip("tokens:Q", format=",d")],
    ).properties(height=260, description=length_summary(o, unit))


def script_summary(o: Overview) -> str:
    """>>> from bpe_core.explore import Overview
    >>> script_summary(Overview(4, 0, 0, (), (), (("Latin", 3), ("Han", 1)), (), (), (), 0))
    'Latin 75%, Han 25% of 4 tokens.'
    """
    total = sum(c for _, c in o.by_script) or 1
    parts = [f"{s} {c / total:.0%}" for s, c in o.by_script[:6]]
    return ", ".join(parts) + f" of {total:,} tokens."


def script_chart(o: Overview, top: int = 12) -> alt.Chart:
    """The share of each script among the ordinary tokens (the top few; the rest as one bar)."""
    rows = list(o.by_script[:top])
    rest = sum(c for _, c in o.by_script[top:])
    if rest:
        rows.append(("all others", rest))
    total = sum(c for _, c in rows) or 1
    frame = pd.DataFrame({"script": [s for s, _ in rows], "tokens": [c for _, c in rows],
                          "share": [c / total for _, c in rows]})
    return alt.Chart(frame, title="Tokens by script").mark_bar(color=GREEN).encode(
        y=alt.Y("script:N", sort="-x", title=None, axis=alt.Axis(labelOverlap=False)),
        x=alt.X("tokens:Q", title="Tokens", axis=alt.Axis(format=",d")),
        tooltip=["script:N", alt.Tooltip("tokens:Q", format=",d"), alt.Tooltip("share:Q", format=".1%")],
    ).properties(height=BAR_STEP * max(len(rows), 3), autosize=FIT_WIDTH, description=script_summary(o))


def compare_summary(c: Comparison, a: str, b: str) -> str:
    """>>> from bpe_core.explore import Comparison
    >>> compare_summary(Comparison(10, 20, 5, (1,) * 5, (2,) * 15, (), ()), "A", "B")
    'A and B share 5 tokens: 50% of A, 25% of B. 5 are only in A, 15 only in B.'
    """
    return (f"{a} and {b} share {c.shared:,} tokens: {c.shared / max(c.size_a, 1):.0%} of {a}, "
            f"{c.shared / max(c.size_b, 1):.0%} of {b}. {len(c.only_a):,} are only in {a}, {len(c.only_b):,} only in {b}.")


def compare_chart(c: Comparison, a: str, b: str, by: str = "script", top: int = 12) -> alt.Chart:
    """Tokens of each vocabulary by script (or by length in bytes), shared ones apart."""
    if by == "script":
        rows = [(s, na, nb, sh) for s, na, nb, sh in c.by_script[:top]]
    else:
        rows = [(str(n) if n <= LENGTH_CAP else f">{LENGTH_CAP}", na, nb, sh) for n, na, nb, sh in c.by_bytes]
        merged: dict[str, list[int]] = {}
        for key, na, nb, sh in rows:
            acc = merged.setdefault(key, [0, 0, 0])
            acc[0] += na
            acc[1] += nb
            acc[2] += sh
        rows = [(k, *v) for k, v in merged.items()]
    records = []
    for order, (key, na, nb, sh) in enumerate(rows):
        records += [
            {"group": key, "order": order, "part": "shared", "tokens": sh},
            {"group": key, "order": order, "part": f"only in {a}", "tokens": na - sh},
            {"group": key, "order": order, "part": f"only in {b}", "tokens": nb - sh},
        ]
    frame = pd.DataFrame(records)
    title = "Script" if by == "script" else "Length (bytes)"
    parts = ["shared", f"only in {a}", f"only in {b}"]
    legend = alt.Legend(orient="top", symbolStrokeWidth=2, symbolSize=300)
    return alt.Chart(frame, title=f"Shared and own tokens by {title.lower()}").mark_bar(
        stroke=OUTLINE, strokeWidth=2).encode(
        y=alt.Y("group:N", sort=alt.SortField("order"), title=title, axis=alt.Axis(labelOverlap=False)),
        x=alt.X("tokens:Q", stack="zero", title="Tokens", axis=alt.Axis(format=",d")),
        color=alt.Color("part:N", title=None, scale=alt.Scale(domain=parts, range=[GREEN, BLUE, VERMILLION]),
                        legend=legend),
        # the non-colour cue: each part's outline has its own dash (solid, dashed, dotted),
        # in the bars and in the one legend that names both
        strokeDash=alt.StrokeDash("part:N", title=None, scale=alt.Scale(domain=parts, range=list(DASHES)),
                                  legend=legend),
        tooltip=["group:N", "part:N", alt.Tooltip("tokens:Q", format=",d")],
    ).properties(height=BAR_STEP * max(len(rows), 3), autosize=FIT_WIDTH, description=compare_summary(c, a, b))
