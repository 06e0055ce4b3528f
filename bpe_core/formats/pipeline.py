"""A tokenizer assembled from stages, as Hugging Face tokenizers runs a tokenizer.json.

The stages, in order: added tokens are cut out of the text (those marked not
`normalized` first, on the raw text); each remaining chunk is normalized, then the
`normalized` added tokens are cut out of it; the pre-tokenizer splits what is left into
pieces; the model turns each piece into (id, token string) pairs. `PipelineTokenizer`
holds one function per stage, so a reader of another format only has to build the
functions (see `hf_json`).

The split helpers (`find_regex`, `find_chars`, `split_piece`) follow the library's own
rules for cutting a string at matches: each match and each stretch between matches is a
segment; a behaviour (`removed`, `isolated`, `merged_with_previous`,
`merged_with_next`, `contiguous`) says what happens to the matches.

What it leaves out: offsets back into the original text after normalization (only
whether a piece starts the text is kept, which Metaspace's `first` scheme needs),
post-processors (encoding never adds special tokens here) and decoders.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Collection, Iterable, Literal

import regex

__all__ = [
    "Piece",
    "AddedToken",
    "PipelineTokenizer",
    "BEHAVIORS",
    "find_regex",
    "find_chars",
    "split_piece",
    "is_white_space",
]


@dataclass(frozen=True, slots=True)
class Piece:
    """Text on its way through the pipeline; `at_start`: it begins the original text."""

    text: str
    at_start: bool = False


@dataclass(frozen=True, slots=True)
class AddedToken:
    """A token matched in the text before the model sees it (`added_tokens` of a tokenizer.json)."""

    id: int
    content: str
    special: bool = False
    normalized: bool = False
    lstrip: bool = False
    rstrip: bool = False
    single_word: bool = False


Normalizer = Callable[[str], str]
PreTokenizer = Callable[[list[Piece]], list[Piece]]
Model = Callable[[str], list[tuple[int, str]]]
#: A segmentation of a string: (start, end, is_match) covering it left to right.
Segments = list[tuple[int, int, bool]]

BEHAVIORS: tuple[str, ...] = ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")

# Unicode's White_Space property (what Rust's char::is_whitespace tests). Python's
# str.isspace also says yes to U+001C..U+001F, which are not White_Space.
_WHITE = regex.compile(r"\p{White_Space}")


def is_white_space(ch: str) -> bool:
    """Rust's `char::is_whitespace`: Unicode White_Space.

    >>> is_white_space("\\u3000"), is_white_space("\\x1c")
    (True, False)
    """
    return _WHITE.match(ch) is not None


def find_regex(pattern: str) -> Callable[[str], Segments]:
    """Matches of a regex and the stretches between them.

    >>> find_regex(r"\\d+")("ab12c")
    [(0, 2, False), (2, 4, True), (4, 5, False)]
    """
    compiled = regex.compile(pattern)

    def find(text: str) -> Segments:
        out: Segments = []
        prev = 0
        for m in compiled.finditer(text):
            if m.start() != prev:
                out.append((prev, m.start(), False))
            out.append((m.start(), m.end(), True))
            prev = m.end()
        if prev != len(text):
            out.append((prev, len(text), False))
        return out

    return find


def find_chars(test: Callable[[str], bool]) -> Callable[[str], Segments]:
    """Each character that passes `test` is a match of its own.

    >>> find_chars(str.isdigit)("a12")
    [(0, 1, False), (1, 2, True), (2, 3, True)]
    """

    def find(text: str) -> Segments:
        out: Segments = []
        last = 0
        for i, ch in enumerate(text):
            if test(ch):
                if last < i:
                    out.append((last, i, False))
                out.append((i, i + 1, True))
                last = i + 1
        if last < len(text):
            out.append((last, len(text), False))
        return out

    return find


def inverted(find: Callable[[str], Segments]) -> Callable[[str], Segments]:
    """The same segments with matches and non-matches swapped."""
    return lambda text: [(a, b, not m) for a, b, m in find(text)]


def split_piece(piece: Piece, find: Callable[[str], Segments], behavior: str) -> list[Piece]:
    """Cut a piece at the matches of `find`; `behavior` says what the matches become.

    >>> [p.text for p in split_piece(Piece("a, b,,c"), find_chars(lambda c: c == ","), "merged_with_previous")]
    ['a,', ' b,', ',', 'c']
    >>> [p.text for p in split_piece(Piece("a, b,,c"), find_chars(lambda c: c == ","), "contiguous")]
    ['a', ',', ' b', ',,', 'c']
    """
    segments = find(piece.text)
    kept: list[tuple[int, int]] = []
    if behavior == "removed":
        kept = [(a, b) for a, b, match in segments if not match]
    elif behavior == "isolated":
        kept = [(a, b) for a, b, _ in segments]
    elif behavior == "contiguous":
        previous = False
        for a, b, match in segments:
            if kept and match == previous:
                kept[-1] = (kept[-1][0], b)
            else:
                kept.append((a, b))
            previous = match
    elif behavior == "merged_with_previous":
        previous = False
        for a, b, match in segments:
            if match and not previous and kept:
                kept[-1] = (kept[-1][0], b)
            else:
                kept.append((a, b))
            previous = match
    elif behavior == "merged_with_next":
        previous = False
        for a, b, match in reversed(segments):
            if match and not previous and kept:
                kept[-1] = (a, kept[-1][1])
            else:
                kept.append((a, b))
            previous = match
        kept.reverse()
    else:
        raise ValueError(f"Unknown split behaviour {behavior!r}; choose one of: {', '.join(BEHAVIORS)}.")
    return [
        Piece(piece.text[a:b], piece.at_start and a == 0) for a, b in kept if b > a
    ]


_WORD_AT_END = regex.compile(r"\w$")
_WORD_AT_START = regex.compile(r"^\w")
_SPACE_AT_END = regex.compile(r"\s*$")
_SPACE_AT_START = regex.compile(r"^\s*")


class PipelineTokenizer:
    """A tokenizer read from another library's file: added tokens, normalizer,
    pre-tokenizer and model, run in that order (see the module docstring).

    `encode` gives ids, `tokens` the token strings as the library shows them.
    Special added tokens are matched only when allowed (`allowed_special="all"` is the
    library's default behaviour); ordinary added tokens are always matched.
    """

    def __init__(
        self,
        *,
        name: str,
        kind: str,
        normalizer: Normalizer | None,
        pre_tokenizer: PreTokenizer | None,
        model: Model,
        added_tokens: Iterable[AddedToken] = (),
        vocab: dict[int, str],
        model_type: str = "BPE",
    ):
        self.name = name
        self.kind = kind
        self.model_type = model_type
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.model = model
        self.added_tokens = tuple(added_tokens)
        self.vocab = dict(vocab)
        for tok in self.added_tokens:
            self.vocab.setdefault(tok.id, tok.content)
        self.special_tokens = {t.content: t.id for t in self.added_tokens if t.special}
        raw = [t for t in self.added_tokens if not t.normalized]
        normed = [t for t in self.added_tokens if t.normalized]
        self._raw_matcher = _matcher(raw, lambda t: t.content)
        self._normed_matcher = _matcher(normed, lambda t: normalizer(t.content) if normalizer else t.content)

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def token_text(self, token_id: int) -> str:
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise TypeError(f"token ids must be integers, not {token_id!r}")
        if token_id not in self.vocab:
            raise ValueError(f"Token id {token_id} is not in the {self.name} vocabulary. Check the ids.")
        return self.vocab[token_id]

    def encode(self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()) -> list[int]:
        """Token ids of `text` (special added tokens matched only if allowed)."""
        return [i for i, _ in self.encode_pairs(text, allowed_special=allowed_special)]

    def tokens(self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()) -> list[str]:
        """Token strings of `text`, as the library's `Encoding.tokens` shows them."""
        return [s for _, s in self.encode_pairs(text, allowed_special=allowed_special)]

    def encode_pairs(
        self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()
    ) -> list[tuple[int, str]]:
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        _check_encodable(text)
        allowed = self._allowed(allowed_special)
        out: list[tuple[int, str]] = []
        for chunk, token in self._cut(Piece(text, True), self._raw_matcher, allowed):
            if token is not None:
                out.append(token)
                continue
            normalized = Piece(self.normalizer(chunk.text), chunk.at_start) if self.normalizer else chunk
            for part, token2 in self._cut(normalized, self._normed_matcher, allowed):
                if token2 is not None:
                    out.append(token2)
                    continue
                pieces = self.pre_tokenizer([part]) if self.pre_tokenizer else [part]
                for piece in pieces:
                    out.extend(self.model(piece.text))
        return out

    def _allowed(self, allowed_special) -> set[str]:
        if allowed_special == "all":
            return set(self.special_tokens)
        if isinstance(allowed_special, str):
            allowed_special = {allowed_special}
        allowed = set(allowed_special)
        unknown = allowed - set(self.special_tokens)
        if unknown:
            raise ValueError(
                f"{sorted(unknown)[0]!r} is not a special token of {self.name}. "
                f"Its special tokens are: {', '.join(self.special_tokens) or 'none'}."
            )
        return allowed

    def _cut(self, piece: Piece, matcher, allowed: set[str]) -> list[tuple[Piece, tuple[int, str] | None]]:
        """Cut added tokens out of a piece, as the library does (leftmost longest match;
        single_word, lstrip and rstrip as each token says). Empty chunks are dropped."""
        if matcher is None or not piece.text:
            return [(piece, None)] if piece.text else []
        pattern, by_text = matcher
        text = piece.text
        out: list[tuple[Piece, tuple[int, str] | None]] = []
        done = 0
        for m in pattern.finditer(text):
            start, stop = m.start(), m.end()
            tok = by_text[m.group()]
            if tok.special and tok.content not in allowed:
                continue
            if tok.single_word and (
                (start > 0 and _WORD_AT_END.search(text[:start]))
                or (stop < len(text) and _WORD_AT_START.search(text[stop:]))
            ):
                continue
            if tok.lstrip:
                start = max(_SPACE_AT_END.search(text[:start]).start(), done)
            if tok.rstrip:
                stop += _SPACE_AT_START.match(text[stop:]).end()
            if done < start:
                out.append((Piece(text[done:start], piece.at_start and done == 0), None))
            out.append((Piece(text[start:stop]), (tok.id, text[start:stop])))
            done = stop
        if done < len(text):
            out.append((Piece(text[done:], piece.at_start and done == 0), None))
        return out


def _matcher(tokens: list[AddedToken], form: Callable[[AddedToken], str]):
    """(regex, text -> token) matching the longest token at the leftmost place, or None."""
    by_text: dict[str, AddedToken] = {}
    for tok in tokens:
        text = form(tok)
        if text:
            by_text.setdefault(text, tok)
    if not by_text:
        return None
    alternatives = sorted(by_text, key=lambda s: (-len(s), s))
    return regex.compile("|".join(regex.escape(s) for s in alternatives)), by_text


def _check_encodable(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"The text has an unpaired surrogate {text[exc.start]!r} at position {exc.start}: "
            "it is not a real character and has no UTF-8 bytes. Remove it and try again."
        ) from None
