"""The word table: unique words with their counts, in order of first appearance.

Two ways in: raw text split by a pre-tokenizer (`WordTable.from_text`), or a word-count
list such as Sennrich's toy corpus (`WordTable.from_word_counts("low 5\\nlower 2")`).
Reading uploaded bytes as text lives here too, so every caller gets the same messages,
and so does `normalize_newlines`: a training corpus reads Windows (\\r\\n) and old Mac
(\\r) line endings as \\n, the way a browser's text box hands pasted text over, so the
command line, an upload and a paste of the same text train the same merges.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .pretokenize import check_pretokenizer, piece_texts

__all__ = [
    "WordTable", "parse_word_counts", "decode_text_file", "normalize_newlines", "MAX_COUNT", "MAX_CORPUS_SYMBOLS",
]

#: The largest count one word may have: a million million, far above any real corpus's
#: word frequency. Bigger numbers would only overflow the 64-bit columns of the tables
#: the pages draw (and a 4,301-digit count is more than Python's int() reads).
MAX_COUNT = 10**12
#: The largest corpus, in symbols (each word's length times its count, added up): 2**53,
#: the largest whole number a browser's JavaScript numbers hold exactly.
MAX_CORPUS_SYMBOLS = 2**53


@dataclass(frozen=True)
class WordTable:
    """Unique words and their counts, in order of first appearance.

    `pretokenizer` names how raw text was split (None for a word-count list).
    """

    words: tuple[str, ...]
    counts: tuple[int, ...]
    pretokenizer: str | None = None

    def __post_init__(self) -> None:
        if len(self.words) != len(self.counts):
            raise ValueError(
                f"{len(self.words)} words but {len(self.counts)} counts: give one count per word."
            )
        symbols = 0
        for word, count in zip(self.words, self.counts):
            if isinstance(count, bool) or not isinstance(count, int):
                raise TypeError(f"The count of {word!r} must be a whole number, not {type(count).__name__}.")
            if not 1 <= count <= MAX_COUNT:
                raise ValueError(
                    f"The count of {word!r} is {_short_number(count)}; counts must be from 1 to "
                    f"{MAX_COUNT:,}. Use smaller counts (only their ratios matter to the merges)."
                )
            symbols += count * (len(word) + 1)
        if symbols > MAX_CORPUS_SYMBOLS:
            raise ValueError(
                f"The corpus adds up to about {symbols:.2e} symbols (each word's length times its "
                f"count); the largest this app takes is {MAX_CORPUS_SYMBOLS:,}. Use smaller counts "
                "(only their ratios matter to the merges)."
            )

    def __len__(self) -> int:
        return len(self.words)

    @property
    def total(self) -> int:
        """How many words the corpus has in all (the sum of the counts)."""
        return sum(self.counts)

    @classmethod
    def from_text(cls, text: str, pretokenizer: str = "gpt2") -> "WordTable":
        """Split `text` with a pre-tokenizer and count the pieces.

        >>> WordTable.from_text("low low lower", "whitespace")
        WordTable(words=('low', 'lower'), counts=(2, 1), pretokenizer='whitespace')
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        check_pretokenizer(pretokenizer)
        counts = Counter(piece_texts(text, pretokenizer))  # keeps first-seen order
        if not counts:
            raise ValueError(
                "The corpus is empty: the text has no words"
                + (" (only whitespace)" if text else "")
                + ". Paste or upload some text, or pick a preset."
            )
        return cls(tuple(counts), tuple(counts.values()), pretokenizer)

    @classmethod
    def from_word_counts(cls, text: str) -> "WordTable":
        """Read a word-count list: one `word count` per line.

        Blank lines and lines starting with `#` that are not `word count` lines are
        comments. A repeated word adds up. Errors name the line.

        >>> WordTable.from_word_counts("# toy\\nlow 5\\nlower 2\\nlow 1")
        WordTable(words=('low', 'lower'), counts=(6, 2), pretokenizer=None)
        """
        pairs = parse_word_counts(text)
        merged: dict[str, int] = {}
        for word, count in pairs:
            merged[word] = merged.get(word, 0) + count
            if merged[word] > MAX_COUNT:
                raise ValueError(
                    f"The counts of {word!r} add up to {merged[word]:,}, more than {MAX_COUNT:,}, the "
                    "largest count this app takes. Use smaller counts (only their ratios matter)."
                )
        return cls(tuple(merged), tuple(merged.values()), None)

    def to_word_counts(self) -> str:
        """The table as a word-count list (the inverse of `from_word_counts`)."""
        return "".join(f"{w} {c}\n" for w, c in zip(self.words, self.counts))


def parse_word_counts(text: str) -> list[tuple[str, int]]:
    """Parse `word count` lines; raise ValueError naming the first bad line.

    >>> parse_word_counts("low 5\\n\\n#hashtag 2\\n# a comment")
    [('low', 5), ('#hashtag', 2)]
    """
    if not isinstance(text, str):
        raise TypeError(f"word counts must be a str, not {type(text).__name__}")
    out: list[tuple[str, int]] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        parts = line.rsplit(None, 1)
        if line.startswith("#") and (len(parts) < 2 or any(ch.isspace() for ch in parts[0])):
            continue  # a comment, even one that ends in a number ("# Sennrich et al. 2016")
        if len(parts) == 2 and _is_int(parts[1]):
            word, count_text = parts
            if len(count_text.lstrip("+-0")) > len(str(MAX_COUNT)):
                raise ValueError(
                    f"Line {lineno}: the count {_short_number(count_text)} of {word[:40]!r} is larger "
                    f"than {MAX_COUNT:,}, the largest count this app takes. Use smaller counts "
                    "(only their ratios matter to the merges)."
                )
            count = int(count_text)
            if count > MAX_COUNT:
                raise ValueError(
                    f"Line {lineno}: the count {count:,} of {word[:40]!r} is larger than "
                    f"{MAX_COUNT:,}, the largest count this app takes. Use smaller counts "
                    "(only their ratios matter to the merges)."
                )
            if count <= 0:
                raise ValueError(
                    f"Line {lineno}: {raw!r} has count {count}; counts must be whole numbers "
                    "of 1 or more. Fix or delete that line."
                )
            if any(ch.isspace() for ch in word):
                raise ValueError(
                    f"Line {lineno}: {raw!r}: a word may not contain spaces. Write one word "
                    "and its count per line, e.g. 'low 5'."
                )
            out.append((word, count))
        elif line.startswith("#"):
            continue
        else:
            hint = (
                f"{parts[1]!r} is not a whole number"
                if len(parts) == 2
                else "it has no count"
            )
            raise ValueError(
                f"Line {lineno}: {raw!r} is not a 'word count' line ({hint}). "
                "Write one word and a whole number per line, e.g. 'low 5'."
            )
    if not out:
        raise ValueError(
            "The word list is empty. Write one 'word count' per line, e.g. 'low 5'."
        )
    return out


def _short_number(value: int | str) -> str:
    """A number for a message, cut in the middle when it is too long to read.

    >>> _short_number("1" * 50)
    '11111111111111111111…11111 (50 digits)'
    >>> _short_number(12345)
    '12,345'
    """
    text = str(value)
    digits = text.lstrip("+-")
    if len(digits) <= 16:
        return f"{int(text):,}"
    return f"{text[:20]}…{text[-5:]} ({len(digits):,} digits)"


def _is_int(text: str) -> bool:
    """An optional sign and ASCII digits ('²' and '+-5' are not whole numbers)."""
    body = text[1:] if text[:1] in "+-" else text
    return body.isascii() and body.isdigit()


def normalize_newlines(text: str) -> tuple[str, int]:
    r"""`text` with every \r\n and lone \r made \n, and how many line endings changed.

    >>> normalize_newlines("low\r\nlower\rnew\n")
    ('low\nlower\nnew\n', 2)
    """
    if "\r" not in text:
        return text, 0
    n = text.count("\r")
    return text.replace("\r\n", "\n").replace("\r", "\n"), n


def decode_text_file(data: bytes, name: str = "the file", *, unix_newlines: bool = False) -> str:
    r"""Decode uploaded bytes as UTF-8 text, or raise ValueError saying how to fix it.

    A UTF-8 byte-order mark is dropped; NUL bytes mean a binary file. With
    `unix_newlines` (a training corpus) line endings become \n (`normalize_newlines`).

    >>> decode_text_file("héllo".encode()), decode_text_file(b"a\r\nb", unix_newlines=True)
    ('héllo', 'a\nb')
    """
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    if b"\x00" in data:
        raise ValueError(
            f"{name} looks like a binary file (it contains NUL bytes), not text. "
            "Upload a plain-text .txt file saved as UTF-8."
        )
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{name} is not valid UTF-8 text (byte {data[exc.start]:#04x} at position "
            f"{exc.start}). Save it as UTF-8 (most editors: 'Save as' -> encoding UTF-8) "
            "and upload it again."
        ) from None
    text = text.removeprefix("\ufeff")
    return normalize_newlines(text)[0] if unix_newlines else text
