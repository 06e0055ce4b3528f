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

Offsets for drawing (`token_spans`): each piece can carry its `origin`, one
(start, end) range of the original text per character. Splitting slices it; a stage that
rewrites characters (a normalizer, ByteLevel, Metaspace) says where each new character
came from: a normalizer may give an `aligned` form of itself (the Unicode forms, Replace,
Prepend, Strip and Sequence do, with Hugging Face's own rules: see `unicode_align`), and
one that does not is run character by character when that gives the same text (as for
Lowercase or StripAccents), else cluster by cluster (a base character and its combining
marks), else on the whole chunk, every new character then covering all of it.
Encoding (`encode`) carries no origins, so it pays nothing for them.

How the model worked on one word (`work`, a `ModelWork`): the merge-by-merge replay of
a BPE model, the longest-match trace of a WordPiece model, the lattice of a Unigram model;
`model_words` gives the words of a text as the model sees them (normalized and
pre-tokenized), numbered as `token_spans` numbers its pieces.

Decoding (`decode`) runs a decoder given as a function from token strings to text (see
`hf_json`'s decoders); without one, tokens are joined with spaces, as the library does.

What it leaves out: post-processors (encoding never adds special tokens here).
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Callable, Collection, Iterable, Literal

import regex

from ..contracts import TokenizerDefaults
from ..display import bytes_label, gpt2_to_bytes
from ..encode.tokenizer import TokenSpan
from ..model_work import ModelWord, ModelWork
from ..pretokenize import Guarded, pattern_deadline

__all__ = [
    "Piece",
    "AddedToken",
    "PipelineTokenizer",
    "BEHAVIORS",
    "find_regex",
    "find_chars",
    "split_piece",
    "is_white_space",
    "sub_piece",
    "normalize_piece",
    "origin_span",
    "ModelWork",
    "ModelWord",
]


Origin = tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class Piece:
    """Text on its way through the pipeline; `at_start`: it begins the original text.

    `origin`, when kept, holds for each character of `text` the (start, end) range of
    the original text it came from (see the module docstring).
    """

    text: str
    at_start: bool = False
    origin: Origin | None = None


def sub_piece(piece: Piece, a: int, b: int, at_start: bool) -> Piece:
    """The characters a..b of a piece, with their origins."""
    origin = piece.origin[a:b] if piece.origin is not None else None
    return Piece(piece.text[a:b], at_start, origin)


def origin_span(origin: Origin, a: int = 0, b: int | None = None) -> tuple[int, int]:
    """The range of the original text that characters a..b came from.

    >>> origin_span(((0, 0), (0, 1), (1, 3)), 1)
    (0, 3)
    """
    part = origin[a:b]
    return min(s for s, _ in part), max(e for _, e in part)


def _clusters(text: str) -> list[tuple[int, int]]:
    """Each base character with the combining marks after it.

    >>> _clusters("ae\u0301b")
    [(0, 1), (1, 3), (3, 4)]
    """
    bounds = [i for i, ch in enumerate(text) if i == 0 or not unicodedata.combining(ch)]
    return list(zip(bounds, bounds[1:] + [len(text)]))


def normalize_piece(normalizer: Callable[[str], str], piece: Piece) -> Piece:
    """Run a normalizer on a piece, keeping origins when the piece has them."""
    if piece.origin is None:
        return Piece(normalizer(piece.text), piece.at_start)
    if isinstance(normalizer, AlignedNormalizer):
        text, origin = normalizer.aligned(piece.text, piece.origin)
        return Piece(text, piece.at_start, origin)
    whole = normalizer(piece.text)
    for groups in (_characters(piece.text), _clusters(piece.text)):
        parts = [normalizer(piece.text[a:b]) for a, b in groups]
        if "".join(parts) == whole:
            spans: list[tuple[int, int]] = []
            for (a, b), part in zip(groups, parts):
                spans.extend([origin_span(piece.origin, a, b)] * len(part))
            return Piece(whole, piece.at_start, tuple(spans))
    # the normalizer looks across clusters: the chunk as a whole
    return Piece(whole, piece.at_start, (origin_span(piece.origin),) * len(whole) if whole else ())


def _characters(text: str) -> list[tuple[int, int]]:
    return [(i, i + 1) for i in range(len(text))]


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


@dataclass(frozen=True, slots=True)
class AlignedNormalizer:
    """A normalizer whose offsets need more than character by character: `normalize`
    maps a text, `aligned` maps a text and each character's origin to the new text and
    its characters' origins (see `normalize_piece`)."""

    normalize: Callable[[str], str]
    aligned: Callable[[str, Origin], tuple[str, Origin | None]]

    def __call__(self, text: str) -> str:
        return self.normalize(text)


PreTokenizer = Callable[[list[Piece]], list[Piece]]
#: A model turns a piece into tokens: (id, token string, start, end), the offsets being
#: characters of the piece the token covers (a byte-fallback token covers its character).
Model = Callable[[str], list[tuple[int, str, int, int]]]
Decoder = Callable[[list[str]], str]
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


def find_regex(pattern: str, *, untrusted: bool = False) -> Callable[[str], Segments]:
    """Matches of a regex and the stretches between them (`untrusted`: a pattern from a
    file, run with a time limit; see `bpe_core.pretokenize.Guarded`).

    >>> find_regex(r"\\d+")("ab12c")
    [(0, 2, False), (2, 4, True), (4, 5, False)]
    """
    # a file's pattern (`untrusted`): compiled with bounds, run with a time limit
    compiled = Guarded(pattern) if untrusted else regex.compile(pattern)

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

    marks = CharTable(lambda ch: "1" if test(ch) else "0")

    def find(text: str) -> Segments:
        out: Segments = []
        last = 0
        # each character's verdict in one pass at C speed (a character is tested once)
        for m in _MATCH.finditer(text.translate(marks)):
            i = m.start()
            if last < i:
                out.append((last, i, False))
            out.append((i, i + 1, True))
            last = i + 1
        if last < len(text):
            out.append((last, len(text), False))
        return out

    return find


_MATCH = regex.compile("1")


class CharTable(dict):
    """A `str.translate` table that works each character's replacement out the first time
    it is seen (`rule(ch)`) and keeps it, up to `limit` characters.

    >>> "aXb".translate(CharTable(lambda ch: ch.lower() * 2))
    'aaxxbb'
    """

    def __init__(self, rule: Callable[[str], str], limit: int = 1 << 16):
        super().__init__()
        self.rule = rule
        self.limit = limit

    def __missing__(self, code: int) -> str:
        value = self.rule(chr(code))
        if len(self) < self.limit:
            self[code] = value
        return value


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
    return [sub_piece(piece, a, b, piece.at_start and a == 0) for a, b in kept if b > a]


_WORD_AT_END = regex.compile(r"\w$")
_WORD_AT_START = regex.compile(r"^\w")
_SPACE_AT_END = regex.compile(r"\s*$")
_SPACE_AT_START = regex.compile(r"^\s*")


class PipelineTokenizer(TokenizerDefaults):
    """A tokenizer read from another library's file: added tokens, normalizer,
    pre-tokenizer and model, run in that order (see the module docstring).

    `encode` gives ids, `tokens` the token strings as the library shows them,
    `token_spans` the tokens with offsets into the text, `decode` text from ids.
    Special added tokens are matched only when allowed (`allowed_special="all"` is the
    library's default behaviour); ordinary added tokens are always matched.
    `byte_level`: the pieces are in GPT-2's byte form (a ByteLevel pre-tokenizer), so a
    token's characters stand for bytes.
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
        decoder: Decoder | None = None,
        byte_level: bool = False,
        work: ModelWork | None = None,
        notes: Iterable[str] = (),
    ):
        self.name = name
        #: what the file asks for that encoding here leaves out (shown beside the tokenizer)
        self.notes = tuple(notes)
        self.kind = kind
        self.model_type = model_type
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.model = model
        self.decoder = decoder
        self.byte_level = byte_level
        self.work = work
        #: What the file has that the library accepts silently (shared or missing ids, ...).
        self.warnings: tuple[str, ...] = ()
        self.added_tokens = tuple(added_tokens)
        self.vocab = dict(vocab)
        for tok in self.added_tokens:
            self.vocab.setdefault(tok.id, tok.content)
        self.special_tokens = {t.content: t.id for t in self.added_tokens if t.special}
        self._added_ids = {t.id for t in self.added_tokens}
        raw = [t for t in self.added_tokens if not t.normalized]
        normed = [t for t in self.added_tokens if t.normalized]
        self._raw_matcher = _matcher(raw, lambda t: t.content)
        self._normed_matcher = _matcher(normed, lambda t: normalizer(t.content) if normalizer else t.content)

    @property
    def kind_label(self) -> str:
        """What a page calls it: its file's kind and its model ("tokenizer.json, BPE")."""
        return f"{self.kind}, {self.model_type}" if self.model_type else "BPE"

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def token_text(self, token_id: int) -> str:
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise TypeError(f"token ids must be integers, not {token_id!r}")
        if token_id not in self.vocab:
            raise ValueError(f"Token id {token_id} is not in the {self.name} vocabulary. Check the ids.")
        return self.vocab[token_id]

    #: SentencePiece's name for the same lookup, so either name works on every kind.
    id_to_piece = token_text

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes a token stands for: GPT-2's byte form read back for a byte-level
        tokenizer, the byte of a byte-fallback token (`<0x0A>`), else the token decoded
        alone."""
        text = self.token_text(token_id)
        if token_id in self._added_ids:
            return text.encode("utf-8")
        if self.byte_level:
            return byte_chars_to_bytes(text)
        fallback = _BYTE_TOKEN.fullmatch(text)
        if fallback:
            return bytes([int(fallback.group(1), 16)])
        return self.decode([token_id]).encode("utf-8")

    def encode(self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()) -> list[int]:
        """Token ids of `text` (special added tokens matched only if allowed)."""
        return [i for i, _ in self.encode_pairs(text, allowed_special=allowed_special)]

    def tokens(self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()) -> list[str]:
        """Token strings of `text`, as the library's `Encoding.tokens` shows them."""
        return [s for _, s in self.encode_pairs(text, allowed_special=allowed_special)]

    def encode_pairs(
        self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()
    ) -> list[tuple[int, str]]:
        """(id, token string) for each token of `text`."""
        return [
            (i, s)
            for _, tokens, _ in self._run(text, allowed_special, aligned=False)
            for i, s, _, _ in tokens
        ]

    def token_spans(
        self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()
    ) -> list[TokenSpan]:
        """Tokens with character offsets into `text`, for colouring.

        A token covers the characters its text came from, through the normalizer and
        pre-tokenizer; a token holding part of a character (a byte of it) covers that
        whole character, as do its neighbours, and its `token_bytes` are its own bytes.
        `label` is the token as the library shows it (`##s`, `▁the`), or its bytes
        (`<E4>` for part of a character) for a byte-level or byte-fallback token.
        """
        spans: list[TokenSpan] = []
        for index, (piece, tokens, added) in enumerate(self._run(text, allowed_special, aligned=True)):
            for token_id, token, a, b in tokens:
                start, end = origin_span(piece.origin, a, b) if piece.origin else (0, 0)
                if added:
                    spans.append(TokenSpan(token_id, token.encode("utf-8"), token, start, end, index,
                                           token_id in self.special_tokens.values()))
                    continue
                data, label = self._span_bytes(piece.text[a:b], token, text[start:end])
                spans.append(TokenSpan(token_id, data, label, start, end, index))
        return spans

    def model_words(
        self, text: str, *, allowed_special: Collection[str] | Literal["all"] = (), upto: int | None = None
    ) -> list[ModelWord]:
        """The words of `text` as the model receives them, numbered as `token_spans`
        numbers its pieces (`TokenSpan.piece` indexes this list); with `upto`, only the
        words up to that index (the text after it is not processed).

        >>> from bpe_core.formats import load_hf_json
        >>> tok = load_hf_json({"model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 1}},
        ...     "normalizer": {"type": "Lowercase"}, "pre_tokenizer": {"type": "Whitespace"}})
        >>> [(w.text, w.start, w.end) for w in tok.model_words("A bB")]
        [('a', 0, 1), ('bb', 2, 4)]
        """
        words = []
        for piece, _, added in self._run(text, allowed_special, aligned=True):
            start, end = origin_span(piece.origin) if piece.origin else (0, 0)
            words.append(ModelWord(piece.text, start, end, added))
            if upto is not None and len(words) > upto:
                break
        return words

    def word_of(self, text: str, span: TokenSpan, *,
                allowed_special: Collection[str] | Literal["all"] = ()) -> ModelWord | None:
        """The word of `model_words(text)` a token of `text` came from: its tokens are
        numbered by word (`TokenSpan.piece`), so only the text up to that word is read."""
        words = self.model_words(text, allowed_special=allowed_special, upto=span.piece)
        return words[span.piece] if span.piece < len(words) else None

    def token_label(self, token_id: int) -> str:
        """A token as the page writes it: its bytes (`<E4>` for part of a character) for a
        byte-level model, else its text as the file writes it (`##s`, `▁the`)."""
        if self.byte_level and token_id not in self._added_ids:
            return bytes_label(self.token_bytes(token_id))
        return self.token_text(token_id)

    def _span_bytes(self, piece_text: str, token: str, original: str) -> tuple[bytes, str]:
        if self.byte_level:
            data = byte_chars_to_bytes(piece_text)
            return data, bytes_label(data)
        fallback = _BYTE_TOKEN.fullmatch(token)
        if fallback and piece_text != token:
            data = bytes([int(fallback.group(1), 16)])
            return data, bytes_label(data)
        return original.encode("utf-8"), token

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The bytes of a token sequence: each token's bytes joined for a byte-level
        tokenizer (so a cut character stays cut), else `decode` as UTF-8."""
        ids = list(ids)
        if self.byte_level:
            return b"".join(self.token_bytes(i) for i in ids)
        return self.decode(ids).encode("utf-8")

    def decode(self, ids: Iterable[int]) -> str:
        """Text from ids, through the file's decoder, as the library's
        `decode(ids, skip_special_tokens=False)`: special tokens are kept, and without a
        decoder the tokens are joined with spaces."""
        ids = list(ids)
        tokens = [self.token_text(i) for i in ids]
        if self.decoder is None:
            return " ".join(tokens)
        return self.decoder(tokens)

    def _run(self, text: str, allowed_special, *, aligned: bool):
        """(piece, its tokens, whether they are an added token) for each piece of `text`."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        _check_encodable(text)
        with pattern_deadline():  # the file's patterns share one time limit for the whole text
            return list(self._pieces(text, allowed_special, aligned=aligned))

    def _pieces(self, text: str, allowed_special, *, aligned: bool):
        allowed = self._allowed(allowed_special)
        whole = Piece(text, True, tuple((i, i + 1) for i in range(len(text))) if aligned else None)
        for chunk, token in self._cut(whole, self._raw_matcher, allowed):
            if token is not None:
                yield chunk, [(*token, 0, len(chunk.text))], True
                continue
            normalized = normalize_piece(self.normalizer, chunk) if self.normalizer else chunk
            for part, token2 in self._cut(normalized, self._normed_matcher, allowed):
                if token2 is not None:
                    yield part, [(*token2, 0, len(part.text))], True
                    continue
                for piece in self.pre_tokenizer([part]) if self.pre_tokenizer else [part]:
                    if piece.text:
                        yield piece, self.model(piece.text), False

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
                start = max(_SPACE_AT_END.search(text[:start]).start(), done)  # type: ignore[union-attr]  # always matches
            if tok.rstrip:
                stop += _SPACE_AT_START.match(text[stop:]).end()  # type: ignore[union-attr]  # always matches
            if done < start:
                out.append((sub_piece(piece, done, start, piece.at_start and done == 0), None))
            out.append((sub_piece(piece, start, stop, False), (tok.id, text[start:stop])))
            done = stop
        if done < len(text):
            out.append((sub_piece(piece, done, len(text), piece.at_start and done == 0), None))
        return out


_BYTE_TOKEN = regex.compile(r"<0x([0-9A-Fa-f]{2})>")


def byte_chars_to_bytes(text: str) -> bytes:
    """GPT-2's byte form read back into bytes; text with a character outside the form
    is its own UTF-8 (the library's ByteLevel decoder does the same per token).

    >>> byte_chars_to_bytes("Ġw"), byte_chars_to_bytes("a★")
    (b' w', b'a\\xe2\\x98\\x85')
    """
    try:
        return gpt2_to_bytes(text)
    except ValueError:
        return text.encode("utf-8")


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
    return _Alternation(alternatives), by_text


class _Alternation:
    """`finditer` of the pattern that matches any of `alternatives` (the first listed
    wins at a place), compiled on first use: a file's hundreds of added tokens take a
    tenth of a second to compile, which a load need not wait for. Literals only, so the
    standard library's `re` matches them as `regex` does, and compiles them three times
    faster."""

    __slots__ = ("alternatives", "_compiled")

    def __init__(self, alternatives: list[str]):
        self.alternatives = alternatives
        self._compiled: re.Pattern[str] | None = None

    def finditer(self, text: str):
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile("|".join(map(re.escape, self.alternatives)))
        return compiled.finditer(text)


def _check_encodable(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"The text has an unpaired surrogate {text[exc.start]!r} at position {exc.start}: "
            "it is not a real character and has no UTF-8 bytes. Remove it and try again."
        ) from None
