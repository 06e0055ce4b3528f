"""User text shown through Streamlit's markdown, shown literally.

Streamlit renders markdown in `st.markdown`, captions, `st.error`/`st.warning`/`st.info`,
widget labels, help tooltips and the options of radios and selects. Markdown turns
`![p](http://host/x.png)` into an image the browser fetches, `[Log in](http://host)` into
a live link, `:red[x]` and `$x$` into styled text. Every string that a user typed, pasted,
uploaded, named or put in a link goes through `md_escape` before it reaches any of those
elements; `md_error` does the same for whole messages built from user values (the
engine's ValueError messages quote the offending value).

What it leaves out: HTML. Text for `st.html` goes through `html.escape` instead.
"""
from __future__ import annotations

import re

__all__ = ["md_escape", "md_error"]

# The characters that start markdown (and Streamlit's extensions) anywhere in a line:
# links and images ([ ]), autolinks and HTML (< >), emphasis and code (* _ ~ `), maths ($),
# headings and tables (# |), entities (&), e-mail autolinks (@), and the escape itself.
# An underscore between letters or digits (bpe_core) cannot start emphasis in GFM.
_ALWAYS = re.compile(r"([\\`*~\[\]<>$#|&@]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z]))")
# A colon that touches the next character starts an emoji or icon shortcode (:smile:,
# :material/home:); "Line 1: ..." keeps its plain colon. Escaping alone does not stop
# Streamlit's renderer: it links URLs and draws shortcodes after undoing escapes. A word
# joiner (U+2060, invisible, zero width) inside each breaks them for good.
_COLON = re.compile(r":(?=\S)")
_JOIN = "\u2060"
# Autolinks: http://, https://, ftp://, www. and e-mail addresses.
_SCHEME = re.compile(r"(?i)\b(https?|ftp|mailto|file|data|javascript)(?=\\?:)")
_WWW = re.compile(r"(?i)\b(www)\.")
# List items, rules and setext headings start a line with - + =; an ordered list item with
# digits and a dot or parenthesis, whose punctuation is escaped (a backslash before a digit
# is no escape in markdown: it would be shown).
_LINE_START = re.compile(r"(?m)^(\s*)([-+=])")
_ORDERED = re.compile(r"(?m)^(\s*\d+)([.)])")


def md_escape(text: object) -> str:
    r"""`text` as markdown that shows exactly these characters, with no link, image,
    emphasis, heading, list, maths, directive or shortcode.

    Only the characters that can start markdown are escaped, so ordinary sentences
    ("Line 1: 'x' is not a number, e.g. 5.") keep their punctuation as it is.

    >>> md_escape("![p](http://h/x.png)")
    '!\\[p\\](http\u2060\\:\u2060//h/x.png)'
    >>> md_escape("Line 1: 'low' (e.g. low 5) - fine in bpe_core, not _this_")
    "Line 1: 'low' (e.g. low 5) - fine in bpe_core, not \\_this\\_"
    >>> md_escape("1. first\n2) second\n- third")
    '1\\. first\n2\\) second\n\\- third'
    >>> md_escape(":red[x] :material/home: www.evil.com a@b.c")
    '\\:\u2060red\\[x\\] \\:\u2060material/home: www\u2060\\.evil.com a\u2060\\@b.c'
    """
    out = _ALWAYS.sub(r"\\\1", str(text))
    out = _COLON.sub("\\\\:" + _JOIN, out)
    out = _SCHEME.sub("\\1" + _JOIN, out)
    out = _WWW.sub("\\1" + _JOIN + "\\\\.", out)
    out = out.replace("\\@", _JOIN + "\\@")
    out = _ORDERED.sub(r"\1\\\2", out)
    return _LINE_START.sub(r"\1\\\2", out)


def md_error(exc: BaseException | str) -> str:
    """An error message (usually quoting user input) for st.error / st.warning.

    >>> md_error(ValueError("'[x](http://h)' is not a token id")).replace("\\u2060", "")
    "'\\\\[x\\\\](http\\\\://h)' is not a token id"
    """
    return md_escape(str(exc))
