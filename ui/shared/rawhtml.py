"""HTML handed to `st.html` exactly as it was built.

`st.html` runs a plain string through `textwrap.dedent` and `str.strip` first. Dedenting
scans the whole string with two regular expressions: about 2 ms per 100 kB on this kind
of machine, and the Vocabulary size page sends some 180 kB of pictures and prose at every
slider move. An object with a `_repr_html_` method is passed through untouched. The page's
HTML is built from constants and escaped values, and no line of it relies on being
dedented, so the browser gets the same markup either way.
"""
from __future__ import annotations

import streamlit as st

__all__ = ["Raw", "html_block"]


class Raw:
    """A finished HTML string, for `st.html` (see the module's docstring).

    >>> Raw("<p>a</p>")._repr_html_()
    '<p>a</p>'
    """

    __slots__ = ("body",)

    def __init__(self, body: str) -> None:
        self.body = body

    def _repr_html_(self) -> str:
        return self.body


def html_block(body: str):
    """`st.html(body)` without the dedent pass; `body` must not be empty."""
    return st.html(Raw(body))
