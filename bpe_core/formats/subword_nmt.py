"""subword-nmt codes files: write one for a trained tokenizer, and read one back.

A codes file is a `#version: 0.2` line, then one merge per line, `left right`, in rank
order. subword-nmt works on whitespace-separated words of characters and marks a word's
end with `</w>`: in version 0.2 glued to the last character (`t</w>`, our `attached`),
in version 0.1 as a symbol of its own (our `separate`). Its `apply_bpe` merges the
lowest-ranked pair first, all its occurrences left to right, which reaches the same
segmentation as our encoder.

What it leaves out: subword-nmt's vocabulary filter and glossaries (options of
`apply_bpe`, not of the codes); and its word splitting on spaces only (our
`whitespace` pre-tokenizer splits on every kind of whitespace: feed it the same words).
"""
from __future__ import annotations

from ..encode.tokenizer import Tokenizer
from .checks import Source, check_size

__all__ = ["subword_nmt_problem", "subword_nmt_codes", "load_subword_nmt_codes", "MARKER"]

#: subword-nmt's end-of-word marker (fixed in its code).
MARKER = "</w>"
_FIX = "Use a codes file written by subword-nmt learn-bpe (or by our export)"


def subword_nmt_problem(tok: Tokenizer) -> str | None:
    """Why a codes file cannot reproduce this trained tokenizer, or None if it can."""
    if tok.merges is None:
        return "it is a rank table with no merge list"
    if tok.units != "char":
        return "it works on bytes; subword-nmt works on characters. Train with char units"
    if tok.pretokenizer != "whitespace":
        return (f"it was trained with the {tok.pretokenizer!r} pre-tokenizer, but subword-nmt segments "
                "whitespace-separated words. Train with the whitespace pre-tokenizer")
    if tok.end_of_word == "none":
        return ("it has no end-of-word marker, but subword-nmt always marks the end of a word with "
                f"{MARKER!r}. Train with end of word 'attached' (or 'separate') and marker {MARKER!r}")
    if tok.marker != MARKER:
        return f"its end-of-word marker is {tok.marker!r}; subword-nmt's is always {MARKER!r}. Train with that marker"
    for token_id, (body, _) in sorted(tok.tokens.items()):
        if MARKER in body or " " in body:
            return f"token {token_id} ({body!r}) contains {MARKER!r} or a space, which a codes line cannot tell apart"
    return None


def subword_nmt_codes(tok: Tokenizer) -> bytes:
    """The codes file: version 0.2 for an attached marker, 0.1 for a separate one."""
    problem = subword_nmt_problem(tok)
    if problem:
        raise ValueError(f"A subword-nmt codes file cannot hold this tokenizer: {problem}.")
    version = "0.2" if tok.end_of_word == "attached" else "0.1"
    lines = [f"#version: {version}"]
    for (a, b), _ in sorted(tok.merges.items(), key=lambda item: item[1][0]):  # type: ignore[union-attr]
        lines.append(f"{tok.token_text(a)} {tok.token_text(b)}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def load_subword_nmt_codes(data: str | bytes, *, name: str = "codes") -> Tokenizer:
    """A character-level tokenizer from a codes file (whitespace words, `</w>` marker).

    The vocabulary is every symbol the merges name or make; a character no merge names
    has no id (encode raises ValueError; `token_spans` gives it id None).
    """
    source = Source(f"the codes file {name!r}", _FIX)
    check_size(data, source)
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise source.error(f"it is not UTF-8 text (byte at position {exc.start})") from None
    lines = data.rstrip("\n").split("\n")
    version, first = "0.1", 1
    if lines and lines[0].startswith("#version:"):
        version, first = lines[0].split()[-1], 2
        lines = lines[1:]
    if version not in ("0.1", "0.2"):
        raise source.error(f"its version is {version!r}; subword-nmt writes 0.1 or 0.2")
    end_of_word = "attached" if version == "0.2" else "separate"
    pairs = []
    for lineno, line in enumerate(lines, start=first):
        parts = line.strip("\r\n ").split(" ")
        if len(parts) != 2 or not all(parts):
            raise source.error(f"line {lineno} is {line[:60]!r}, not two symbols separated by one space")
        pairs.append((_symbol(parts[0]), _symbol(parts[1])))
    tokens: list[tuple[str, bool]] = []
    ids: dict[tuple[str, bool], int] = {}

    def add(token: tuple[str, bool]) -> int:
        if token not in ids:
            ids[token] = len(tokens)
            tokens.append(token)
        return ids[token]

    # Base symbols first (every single character the merges name), then merged tokens.
    for pair in pairs:
        for body, eow in pair:
            if len(body) <= 1:
                add((body, eow))
    if end_of_word == "separate":
        add(("", True))
    base_size = len(tokens)
    merges = []
    for (a, b) in pairs:
        merges.append((add(a), add(b)))
        add((a[0] + b[0], b[1]))
    return Tokenizer.from_merges(
        tokens=tokens, merges=merges, units="char", end_of_word=end_of_word, marker=MARKER,
        pretokenizer="whitespace", name=name, base_size=base_size,
    )


def _symbol(text: str) -> tuple[str, bool]:
    return (text[: -len(MARKER)], True) if text.endswith(MARKER) else (text, False)
