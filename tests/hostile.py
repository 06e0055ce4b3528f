"""Hostile values for the security tests, and the checks that say whether one got through.

`hostile(base, tag)` is one value that carries every attack at once: a markdown image, a
markdown link, raw HTML, a script and Streamlit's own markdown directives, each URL
pointing at `base` (an address nothing else uses) and naming `tag` (the parameter or
input it was put into), so a leak says where it came from. `long_hostile` repeats it to
a very long value.

Why the markdown check is strict. Streamlit renders labels, help, captions, alerts,
headings, radio and select options as GitHub-flavoured markdown, and its autolinker turns
any `http://…` in the text into a live link. Tried in Chromium with Streamlit 1.67:
backslash-escaping every punctuation character (`http\\:\\/\\/127\\.0…`) or writing each
as an HTML entity (`&#58;`) still gives a live link to the address, because the link is
found in the text after the escapes are undone; escaping only `.`, `[`, `(` and `!`
shows the backslashes on screen and still draws a link (to a mangled address). Inside a
code span nothing is linked. So `markdown_leaks` removes code spans, undoes backslash
escapes and entities, and then looks for `http://` or `https://` and the address: any URL
of the attacker's that a reader would see is a leak, however it was escaped. (Text that
breaks the scheme, for instance with a zero-width space after `http`, is not linked.)

`html_leaks` reads an `st.html` body as HTML (it is drawn as such, with DOMPurify, which
keeps `<img>`, links and `<style>`): any URL attribute or style naming the address, and
any `<script>` element, is a leak. Text that merely contains the address is not.

What it leaves out: the real browser (tests/browser/test_security_browser.py runs these
values in Chromium against a live listener).
"""
from __future__ import annotations

import html
import re
from html.parser import HTMLParser

#: Attributes whose value the browser fetches or follows.
URL_ATTRIBUTES = frozenset({
    "href", "src", "srcset", "action", "formaction", "poster", "background", "data",
    "xlink:href", "ping", "cite", "manifest", "lowsrc", "dynsrc",
})


def hostile(base: str, tag: str) -> str:
    """Every attack in one value; each URL is `base/tag/<kind>`.

    >>> v = hostile("http://127.0.0.1:9", "marker")
    >>> v.split()[0]
    '![p](http://127.0.0.1:9/marker/image.png)'
    >>> ":red[x]" in v and "<script>" in v and "[Log in](http://127.0.0.1:9/marker/link)" in v
    True
    """
    return (
        f"![p]({base}/{tag}/image.png) [Log in]({base}/{tag}/link) "
        f"<img src={base}/{tag}/html.png> <script>fetch('{base}/{tag}/script')</script> "
        ":red[x] :material/home: $x$"
    )


def long_hostile(base: str, tag: str, length: int = 100_000) -> str:
    """`hostile` repeated to exactly `length` characters.

    >>> v = long_hostile("http://127.0.0.1:9", "text", 1000)
    >>> len(v), v.startswith(hostile("http://127.0.0.1:9", "text"))
    (1000, True)
    """
    one = hostile(base, tag) + " "
    return (one * (length // len(one) + 1))[:length]


# ---- markdown ------------------------------------------------------------------------
_ESCAPABLE = re.compile(r"\\([!-/:-@\[-`{-~])")


def without_code_spans(md: str) -> str:
    r"""The markdown with its code spans removed (CommonMark: a run of n backticks up to
    the next run of exactly n; a backslash-escaped backtick opens nothing).

    >>> without_code_spans("a `b` c ``d ` e`` f \\`g` h")
    'a  c  f \\`g` h'
    """
    out: list[str] = []
    i, n = 0, len(md)
    while i < n:
        c = md[i]
        if c == "\\" and i + 1 < n:
            out.append(md[i : i + 2])
            i += 2
            continue
        if c != "`":
            out.append(c)
            i += 1
            continue
        j = i
        while j < n and md[j] == "`":
            j += 1
        run = j - i
        close = _closing_run(md, j, run)
        if close is None:
            out.append(md[i:j])  # no closer: the backticks are literal text
            i = j
        else:
            i = close + run
    return "".join(out)


def _closing_run(md: str, start: int, run: int) -> int | None:
    for m in re.finditer(r"`+", md[start:]):
        if len(m.group()) == run:
            return start + m.start()
    return None


def shown_text(md: str) -> str:
    r"""The text a reader sees outside code spans: escapes and entities undone.

    >>> shown_text(r"http\:\/\/127\.0 &#58; `http://x`")
    'http://127.0 : '
    """
    return html.unescape(_ESCAPABLE.sub(r"\1", without_code_spans(md)))


def markdown_leaks(md: str, address: str) -> list[str]:
    r"""URLs at `address` that Streamlit's markdown would show as live links (or images).

    >>> markdown_leaks("see [Log in](http://127.0.0.1:9/x/link)", "127.0.0.1:9")
    ['http://127.0.0.1:9/x/link)']
    >>> markdown_leaks(r"\[Log in\]\(http://127\.0\.0\.1:9/x/link\)", "127.0.0.1:9")
    ['http://127.0.0.1:9/x/link)']
    >>> markdown_leaks("`[Log in](http://127.0.0.1:9/x/link)`", "127.0.0.1:9")
    []
    >>> markdown_leaks("http\u200b://127.0.0.1:9/x/link", "127.0.0.1:9")  # no scheme, no link
    []
    """
    pattern = re.compile(r"(?i)https?://" + re.escape(address) + r"[^\s'\"<>]*")
    return pattern.findall(shown_text(md))


# ---- HTML ----------------------------------------------------------------------------
class _Leaks(HTMLParser):
    def __init__(self, address: str):
        super().__init__(convert_charrefs=True)
        self.address = address.lower()
        self.found: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self._check(tag, attrs)

    def handle_startendtag(self, tag, attrs):
        self._check(tag, attrs)

    def _check(self, tag, attrs):
        if tag == "script":
            self.found.append("<script> element")
        self._in_style = tag == "style"
        for name, value in attrs:
            value = (value or "").lower()
            if self.address in value and (name in URL_ATTRIBUTES or name == "style"):
                self.found.append(f"<{tag} {name}={value!r}>")

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._in_style and self.address in data.lower():
            self.found.append(f"<style> naming {self.address}")


def html_leaks(body: str, address: str) -> list[str]:
    """Elements of an HTML body that would fetch or link `address`, and any script.

    >>> html_leaks('<div title="http://127.0.0.1:9/a">&lt;img src=http://127.0.0.1:9/b&gt;</div>', "127.0.0.1:9")
    []
    >>> html_leaks('<p>x<img src=http://127.0.0.1:9/b.png></p><script>1</script>', "127.0.0.1:9")
    ["<img src='http://127.0.0.1:9/b.png'>", '<script> element']
    """
    parser = _Leaks(address)
    parser.feed(body)
    parser.close()
    return parser.found
