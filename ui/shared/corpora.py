"""Built-in texts that more than one page studies, defined once.

The Python language reference (`pydoc_data.topics`, about 0.47 MB, ships with Python)
is one text everywhere: the Train page's preset and the Vocabulary size page's corpus
read the same characters, so a figure on one page can be checked on the other.
"""
from __future__ import annotations

from functools import lru_cache

__all__ = ["python_reference_text"]


@lru_cache(maxsize=1)
def python_reference_text() -> str:
    """The help topics of the Python language reference, one after another, each topic
    on lines of its own (joined with a newline, so no word runs into the next topic).

    >>> text = python_reference_text()
    >>> len(text) > 400_000, text.count("\\n") > 5_000
    (True, True)
    """
    from pydoc_data import topics

    return "\n".join(topics.topics.values())
