"""Encoding, decoding and replay with a finished merge list or rank table.

Encoding: pre-tokenize, then in each piece repeatedly merge the adjacent pair with the
lowest rank (leftmost on equal rank) until no adjacent pair has a rank. Two ways to
rank a pair, one algorithm:

- a merge list (what our trainer produces): a pair of token ids has a rank only if it is
  in the list. Replaying the first k merges on a word gives exactly the segmentation
  training reached after step k.
- a rank table (OpenAI's .tiktoken files): a pair has the rank of the token its bytes
  join into, if that token exists. This is what tiktoken does, so ids match it.

`replay` returns every merge applied to one piece with its rank and the symbols after
it; `token_spans` returns each token with its character offsets for colouring.
Special tokens such as `<|endoftext|>` are recognised only when the caller allows them:
by default they are encoded as ordinary text (so pasted text cannot inject a control
token); `disallowed_special="all"` turns such text into a ValueError instead.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Callable, Collection, Iterable, Literal, Mapping

import re


from ..contracts import TokenizerDefaults
from ..display import bytes_label, bytes_to_gpt2
from ..pretokenize import compile_splitter, pattern_deadline
from ..vocab import base_symbols
from .fast import (
    _LONG_PIECE, _NO_PAIR, _SPLIT_PIECE, _bpe_bytes, _bpe_merges, _bpe_ranks, _byte_tables, _merged_across,
    _whole_edges,
)
from .merge_loop import NO_MERGE, merge_lowest
from .special import allowed_specials, split_specials

__all__ = ["Tokenizer", "TokenSpan", "ReplayStep", "Replay"]

_CACHE_LIMIT = 200_000


@dataclass(frozen=True, slots=True)
class TokenSpan:
    """One token of an encoded text, for display.

    `id` is None for a character a character-level vocabulary has never seen.
    `start`/`end` are character offsets into the text; a token that holds only part of
    a character (`partial`) covers that whole character, as do its neighbours.
    """

    id: int | None
    token_bytes: bytes
    label: str          # the text, or <E4>-style bytes when not valid UTF-8 alone
    start: int
    end: int
    piece: int          # index of the pre-tokenized piece it came from
    special: bool = False

    @property
    def partial(self) -> bool:
        try:
            self.token_bytes.decode("utf-8")
        except UnicodeDecodeError:
            return True
        return False


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One merge applied while encoding a piece."""

    rank: int
    left: int | bytes
    right: int | bytes
    token_id: int
    position: int                       # index of the left symbol before the merge
    symbols: tuple[int | None, ...]     # token ids after this merge (None: a symbol with no id)


@dataclass(frozen=True)
class Replay:
    """How one piece was built: its base symbols, then each merge in the order applied."""

    piece: str
    base: tuple[int | None, ...]
    steps: tuple[ReplayStep, ...]

    @property
    def ids(self) -> tuple[int | None, ...]:
        return self.steps[-1].symbols if self.steps else self.base


class _RankTokens(Mapping[int, tuple[bytes, bool]]):
    """A rank table's `Tokenizer.tokens` (id -> (bytes, False)), read from its id -> bytes
    table: no tuple held per token (o200k: 200,000 fewer objects to make and for the
    garbage collector to walk when a tokenizer is loaded)."""

    __slots__ = ("_bytes",)

    def __init__(self, by_id: dict[int, bytes]):
        self._bytes = by_id

    def __getitem__(self, token_id: int) -> tuple[bytes, bool]:
        return self._bytes[token_id], False

    def get(self, token_id, default=None):
        data = self._bytes.get(token_id)
        return default if data is None else (data, False)

    def __contains__(self, token_id: object) -> bool:
        return token_id in self._bytes

    def __iter__(self):
        return iter(self._bytes)

    def __len__(self) -> int:
        return len(self._bytes)


class Tokenizer(TokenizerDefaults):
    """A BPE tokenizer: a vocabulary, a way to rank pairs, a pre-tokenizer, specials.

    Build one with `Tokenizer.from_merges` (our trainer's output) or
    `Tokenizer.from_ranks` (an OpenAI rank table).
    """

    def __init__(
        self,
        *,
        name: str,
        pattern: str | None,
        units: str,
        end_of_word: str,
        marker: str,
        tokens: Mapping[int, tuple[str | bytes, bool]],
        merges: dict[tuple[int, int], tuple[int, int]] | None,
        ranks: dict[bytes, int] | None,
        special_tokens: dict[str, int] | None = None,
        pretokenizer: str | None = None,
        base_size: int | None = None,
    ):
        self.name = name
        self.pattern = pattern
        self.pretokenizer = pretokenizer
        self.units = units
        self.end_of_word = end_of_word
        self.marker = marker
        self.tokens = tokens
        self.merges = merges
        self.ranks = ranks
        self.special_tokens = dict(special_tokens or {})
        self._special_by_id = {i: s for s, i in self.special_tokens.items()}
        self._regex = compile_splitter(pattern) if pattern is not None else None
        # Base symbols: the first `base_size` ids of a trained vocabulary.
        self._base_ids = {
            tok: i for i, tok in tokens.items() if base_size is None or i < base_size
        } if merges is not None else {}
        if isinstance(tokens, _RankTokens):
            self._bytes = tokens._bytes
        elif ranks is not None:  # id -> bytes is the table turned round (C-level, for 100k+ tokens)
            self._bytes = dict(zip(ranks.values(), ranks.keys()))
        else:
            self._bytes = {i: (b if isinstance(b, bytes) else b.encode("utf-8")) for i, (b, _) in tokens.items()}
        self._cache: dict[str, tuple[int | None, ...]] = {}
        # The merge list split in two flat dicts for the encoding loop.
        self._pair_rank = {p: r for p, (r, _) in (merges or {}).items()}
        self._pair_new = {p: t for p, (_, t) in (merges or {}).items()}
        # Byte-level merge lists also get tables keyed by token bytes, for the faster
        # tiktoken-style loop (see `_bpe_bytes`); None when that loop does not apply.
        self._fast = _byte_tables(self) if merges is not None else None
        # Whether every piece has ids for all its symbols (byte-level vocabularies), so
        # encode need not look for unknown symbols.
        self._complete = ranks is not None or self._fast is not None
        self._encode_new = self._make_piece_encoder()

    # ---- constructors -----------------------------------------------------------------
    @classmethod
    def from_merges(
        cls,
        *,
        tokens: Iterable[tuple[str | bytes, bool]],
        merges: Iterable[tuple[int, int]],
        units: str,
        end_of_word: str,
        marker: str = "</w>",
        pretokenizer: str | None = "gpt2",
        pattern: str | None = None,
        special_tokens: dict[str, int] | None = None,
        name: str = "trained",
        base_size: int | None = None,
    ) -> "Tokenizer":
        """A tokenizer from a vocabulary (id order) and a merge list (rank order, 1-based).

        The merged token's id is looked up from the vocabulary, so a merge list with two
        pairs making the same token is fine.
        """
        from ..pretokenize import PATTERNS, check_pretokenizer

        token_list = list(tokens)
        ids = {tok: i for i, tok in enumerate(token_list)}
        table: dict[tuple[int, int], tuple[int, int]] = {}
        for rank, (a, b) in enumerate(merges, start=1):
            if not (0 <= a < len(token_list) and 0 <= b < len(token_list)):
                raise ValueError(
                    f"Merge {rank} ({a}, {b}) names a token id outside the vocabulary "
                    f"(0 to {len(token_list) - 1}). The merges and vocabulary do not match."
                )
            (ba, _), (bb, eb) = token_list[a], token_list[b]
            new = ids.get((ba + bb, eb))  # type: ignore[operator]  # bodies are all str or all bytes
            if new is None:
                raise ValueError(
                    f"Merge {rank} ({a}, {b}) makes a token that is not in the vocabulary. "
                    "The merges and vocabulary do not match."
                )
            table.setdefault((a, b), (rank, new))
        if pattern is None and pretokenizer is not None:
            pattern = PATTERNS[check_pretokenizer(pretokenizer)]
        specials = dict(special_tokens or {})
        return cls(
            name=name,
            pattern=pattern,
            units=units,
            end_of_word=end_of_word,
            marker=marker,
            tokens=dict(enumerate(token_list)),
            merges=table,
            ranks=None,
            special_tokens=specials,
            pretokenizer=pretokenizer,
            base_size=base_size,
        )

    @classmethod
    def from_ranks(
        cls,
        *,
        name: str,
        mergeable_ranks: dict[bytes, int],
        pattern: str,
        special_tokens: dict[str, int],
        pretokenizer: str | None = None,
    ) -> "Tokenizer":
        """A byte-level tokenizer from a tiktoken-style table (token bytes -> rank = id)."""
        missing = [b for b in range(256) if bytes((b,)) not in mergeable_ranks]
        if missing:
            raise ValueError(
                f"The rank table lacks {len(missing)} single bytes (e.g. {missing[0]:#04x}); "
                "a byte-level table needs all 256 so any text can be encoded."
            )
        tokens = _RankTokens(dict(zip(mergeable_ranks.values(), mergeable_ranks.keys())))
        return cls(
            name=name,
            pattern=pattern,
            units="byte",
            end_of_word="none",
            marker="",
            tokens=tokens,
            merges=None,
            ranks=mergeable_ranks,
            special_tokens=special_tokens,
            pretokenizer=pretokenizer,
        )

    # ---- sizes and names ----------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        """Ordinary tokens plus special tokens."""
        return len(self.tokens) + len(self.special_tokens)

    def token_text(self, token_id: int) -> str:
        """A token's displayed form: GPT-2's byte form for byte units, marker appended."""
        if token_id in self._special_by_id:
            return self._special_by_id[token_id]
        body, eow = self._token(token_id)
        text = bytes_to_gpt2(body) if isinstance(body, bytes) else body
        return text + self.marker if eow else text

    #: What a page calls this kind of tokenizer (`contracts.TextTokenizer`).
    kind_label = "BPE"

    def marker_of(self, token_id: int) -> str:
        """The end-of-word marker the token carries ("" for a special token or a token
        inside a word)."""
        if token_id in self._special_by_id:
            return ""
        return self.marker if self._token(token_id)[1] else ""

    def token_bytes(self, token_id: int) -> bytes:
        if token_id in self._special_by_id:
            return self._special_by_id[token_id].encode("utf-8")
        self._token(token_id)
        return self._bytes[token_id]

    def _token(self, token_id: int) -> tuple[str | bytes, bool]:
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise TypeError(f"token ids must be integers, not {token_id!r}")
        tok = self.tokens.get(token_id)
        if tok is None:
            raise ValueError(
                f"Token id {token_id} is not in the {self.name} vocabulary "
                f"(ids 0 to {max(self.tokens)}{', plus special tokens' if self.special_tokens else ''}). "
                "Check the ids, or pick the tokenizer that produced them."
            )
        return tok

    # ---- encoding -----------------------------------------------------------------------
    def _split_special(
        self,
        text: str,
        allowed_special: Collection[str] | Literal["all"],
        disallowed_special: Collection[str] | Literal["all"],
    ) -> list[tuple[str, bool]]:
        """Cut text into (chunk, is_special) around the allowed special tokens."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        _check_encodable(text)
        if isinstance(disallowed_special, str) and disallowed_special != "all":
            disallowed_special = {disallowed_special}
        allowed = allowed_specials(allowed_special, self.special_tokens, name=self.name)
        disallowed = (
            set(self.special_tokens) - allowed
            if disallowed_special == "all"
            else set(disallowed_special)
        )
        for tok in sorted(disallowed):
            if tok in text:
                raise ValueError(
                    f"The text contains the special token {tok!r}, which is not allowed. "
                    f"To encode it as the special token, pass allowed_special={{{tok!r}}}; "
                    "to encode it as ordinary text, pass disallowed_special=()."
                )
        return [(text[start:end], special) for start, end, special in split_specials(text, allowed)]

    def pieces(self, text: str) -> list[tuple[str, int]]:
        """Pre-tokenize: (piece, start offset) pairs."""
        if self._regex is None:
            return [(text, 0)] if text else []
        return [(m.group(), m.start()) for m in self._regex.finditer(text)]

    def encode(
        self,
        text: str,
        *,
        allowed_special: Collection[str] | Literal["all"] = (),
        disallowed_special: Collection[str] | Literal["all"] = (),
    ) -> list[int]:
        """Encode text to token ids.

        Special tokens are ordinary text unless named in `allowed_special` (or "all");
        with `disallowed_special="all"`, text that contains a special token that is not
        allowed raises ValueError instead. A character a character-level vocabulary has
        never seen raises ValueError (byte-level vocabularies cover every character).
        """
        if self._regex is not None and self._regex.guarded is not None:
            with pattern_deadline():  # a pattern from a user or a file: one time limit for the text
                return self._encode(text, allowed_special, disallowed_special)
        return self._encode(text, allowed_special, disallowed_special)

    def _encode(self, text: str, allowed_special, disallowed_special) -> list[int]:
        out: list[int] = []
        for chunk, special in self._split_special(text, allowed_special, disallowed_special):
            if special:
                out.append(self.special_tokens[chunk])
                continue
            self._extend_ids(out, self._regex.findall(chunk) if self._regex is not None else [chunk])
        return out

    def _extend_ids(self, out: list, pieces: list[str]) -> None:
        """Append the ids of a list of pieces to `out`: each distinct piece not in the cache
        is encoded once, then every piece's ids are read from the cache (C-level loops, no
        Python code per piece)."""
        cache = self._cache
        if self._complete:
            start = len(out)
            try:  # all pieces known (a warm cache): one pass
                out.extend(chain.from_iterable(map(cache.__getitem__, pieces)))
                return
            except KeyError:
                del out[start:]
        distinct = set(pieces)
        new = distinct.difference(cache)
        fresh: dict[str, tuple[int | None, ...]] = {}
        if new:
            if len(cache) + len(new) > _CACHE_LIMIT:
                cache.clear()  # the cache may outgrow the limit for one call with more distinct pieces
                new = distinct
            encode_new = self._encode_new
            fresh = {piece: encode_new(piece) for piece in new}
            cache.update(fresh)
        if not self._complete:
            for piece in distinct:
                ids = fresh.get(piece)
                if ids is None:
                    ids = self._encode_piece(piece)
                if None in ids:
                    first = next(p for p in pieces if None in self._encode_piece(p))
                    raise ValueError(self._unknown_message(first))
        start = len(out)
        try:
            out.extend(chain.from_iterable(map(cache.__getitem__, pieces)))
        except KeyError:
            # The cache is shared (one tokenizer serves every session of the app): another
            # thread cleared it between the update above and this read.
            del out[start:]
            out.extend(chain.from_iterable(map(self._encode_piece, pieces)))

    def _unknown_message(self, piece: str) -> str:
        """Name the first symbol of `piece` that has no id (a character-level vocabulary)."""
        for (body, eow), sid in zip(
            base_symbols(piece, self.units, self.end_of_word), self._base(piece)
        ):
            if sid is None:
                where = f" at the end of a word ({body!s}{self.marker})" if eow and body else ""
                return (
                    f"The character {body!r} (U+{ord(body):04X}){where} is not in this "
                    "character-level vocabulary, so it has no token id. Train on text that "
                    "contains it, or train with byte units, which cover every character."
                )
        return f"The piece {piece!r} has a symbol with no token id in this vocabulary."

    def _encode_piece(self, piece: str) -> tuple[int | None, ...]:
        ids = self._cache.get(piece)
        if ids is None:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            ids = self._cache[piece] = self._encode_new(piece)
        return ids

    def _make_piece_encoder(self) -> Callable[[str], tuple[int | None, ...]]:
        """piece -> ids without the cache, with this tokenizer's tables bound."""
        if self.ranks is not None:
            ranks = self.ranks

            def encode_ranks(piece: str) -> tuple[int, ...]:
                return _bpe_ranks(piece.encode("utf-8"), ranks)

            return encode_ranks
        pair_rank, pair_new = self._pair_rank, self._pair_new
        base_id, units, end_of_word = self._base_ids.get, self.units, self.end_of_word

        def base(piece: str) -> list[int | None]:  # as `_base`, without a reference to self
            return [base_id(sym) for sym in base_symbols(piece, units, end_of_word)]

        if self._fast is None:
            return lambda piece: _bpe_merges(base(piece), pair_rank, pair_new)
        fast_key, fast_id, origin = self._fast

        def encode_merges(piece: str) -> tuple[int, ...]:
            ids = _bpe_bytes(piece.encode("utf-8"), fast_key, fast_id)
            if ids is None:  # a pair joined into a token's bytes that is not its merge
                ids = _bpe_merges(base(piece), pair_rank, pair_new)
            return ids

        if origin is None:
            return encode_merges
        # token id -> the edges of the run on its bytes (`_whole_edges`); a byte is its own run
        edges: dict[int, tuple | None] = {
            i: (((i, 0),), ((i, 0),)) for i in (fast_id[bytes((b,))] for b in range(256))
        }

        def encode_whole_first(piece: str) -> tuple[int, ...]:
            data = piece.encode("utf-8")
            n = len(data)
            t = fast_id.get(data)
            if t is not None:
                if 1 < n <= _LONG_PIECE:
                    e = edges[t] if t in edges else _whole_edges(t, origin, pair_rank, edges)
                    if e is not None:
                        return (t,)  # the piece is a token that the merges build from its bytes
            elif 2 < n <= _SPLIT_PIECE:
                # Two tokens side by side whose runs never merge across the gap: then the
                # run on the piece ends in exactly these two (the pair of them is not a
                # merge, as the piece is not a token).
                for k in range(n - 1, 0, -1):
                    t2 = fast_id.get(data[k:])
                    if t2 is None:
                        continue
                    t1 = fast_id.get(data[:k])
                    if t1 is None:
                        continue
                    e1 = edges[t1] if t1 in edges else _whole_edges(t1, origin, pair_rank, edges)
                    e2 = edges[t2] if t2 in edges else _whole_edges(t2, origin, pair_rank, edges)
                    if e1 is not None and e2 is not None and not _merged_across(e1[0], e2[1], _NO_PAIR, pair_rank):
                        return (t1, t2)
            ids = _bpe_bytes(data, fast_key, fast_id)
            if ids is None:
                ids = _bpe_merges(base(piece), pair_rank, pair_new)
            return ids

        return encode_whole_first

    def _base(self, piece: str) -> list:
        """A piece's base symbols: bytes (rank tables) or token ids (None if unknown)."""
        if self.ranks is not None:
            data = piece.encode("utf-8", errors="strict")
            return [data[i : i + 1] for i in range(len(data))]
        get = self._base_ids.get
        return [get(sym) for sym in base_symbols(piece, self.units, self.end_of_word)]

    def _bpe(self, piece: str, trace: list[ReplayStep] | None) -> list[int | None]:
        """The reference merge loop (`merge_lowest`) on a piece, each step traced."""
        parts = self._base(piece)
        if self.ranks is not None:
            ranks = self.ranks

            def rank_of(x, y):
                r = ranks.get(x + y)
                return NO_MERGE if r is None else r

            def join(x, y):
                return x + y

            def to_id(x):
                return ranks[x]
        else:
            merges = self.merges
            assert merges is not None  # a tokenizer has a rank table or a merge list

            def rank_of(x, y):
                m = merges.get((x, y))
                return NO_MERGE if m is None else m[0]

            def join(x, y):
                return merges[(x, y)][1]

            def to_id(x):
                return x

        on_merge = None
        if trace is not None:
            steps = trace

            def on_merge(rank, i, left, right, merged, now):
                steps.append(ReplayStep(
                    rank=int(rank), left=left, right=right, token_id=to_id(merged), position=i,
                    symbols=tuple(to_id(p) if p is not None else None for p in now),
                ))

        merge_lowest(parts, rank_of, join, on_merge=on_merge)
        return [to_id(p) if p is not None else None for p in parts]

    def replay(self, piece: str) -> Replay:
        """Every merge that builds `piece`'s tokens, in the order they are applied."""
        if not isinstance(piece, str):
            raise TypeError(f"piece must be a str, not {type(piece).__name__}")
        trace: list[ReplayStep] = []
        self._bpe(piece, trace)
        base = self._base(piece)
        if self.ranks is not None:
            base = [self.ranks[b] for b in base]
        steps = tuple(
            ReplayStep(s.rank, _as_id(self, s.left), _as_id(self, s.right), s.token_id, s.position, s.symbols)
            for s in trace
        )
        return Replay(piece, tuple(base), steps)

    def token_spans(
        self,
        text: str,
        *,
        allowed_special: Collection[str] | Literal["all"] = (),
    ) -> list[TokenSpan]:
        """Tokens with character offsets, for colouring. Unknown characters get id None."""
        with pattern_deadline():
            return self._token_spans(text, allowed_special)

    def _token_spans(self, text: str, allowed_special) -> list[TokenSpan]:
        spans: list[TokenSpan] = []
        offset = 0
        piece_index = 0
        for chunk, special in self._split_special(text, allowed_special, ()):
            if special:
                spans.append(
                    TokenSpan(self.special_tokens[chunk], chunk.encode(), chunk, offset, offset + len(chunk), piece_index, True)
                )
                piece_index += 1
                offset += len(chunk)
                continue
            for piece, start in self.pieces(chunk):
                spans.extend(self._piece_spans(piece, offset + start, piece_index))
                piece_index += 1
            offset += len(chunk)
        return spans

    def _piece_spans(self, piece: str, start: int, piece_index: int) -> list[TokenSpan]:
        ids = self._encode_piece(piece)
        if self.units == "char":
            out, pos = [], start
            # Character tokens: each token's length in characters is its body's length.
            for tid, ch in zip(ids, _char_lengths(self, ids, piece)):
                text = piece[pos - start : pos - start + ch]
                data = text.encode("utf-8")
                out.append(TokenSpan(tid, data, text, pos, pos + ch, piece_index))
                pos += ch
            return out
        # Byte tokens: map byte offsets back to characters.
        char_of_byte: list[int] = []
        for i, char in enumerate(piece):
            char_of_byte.extend([i] * len(char.encode("utf-8")))
        char_of_byte.append(len(piece))  # where a zero-byte token (a separate marker) sits
        out, b = [], 0
        for tid in ids:
            data = self._bytes[tid]  # type: ignore[index]  # byte units: every symbol has an id
            first = char_of_byte[b]
            end = char_of_byte[b + len(data) - 1] + 1 if data else first
            out.append(TokenSpan(tid, data, bytes_label(data), start + first, start + end, piece_index))
            b += len(data)
        return out

    # ---- decoding -----------------------------------------------------------------------
    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The exact bytes of a token sequence (end-of-word tokens end a word with a space)."""
        parts: list[bytes] = []
        for tid in ids:
            parts.append(self.token_bytes(tid))
            if tid not in self._special_by_id and self.tokens[tid][1] and self.pretokenizer == "whitespace":
                parts.append(b" ")
        data = b"".join(parts)
        if self.end_of_word != "none" and self.pretokenizer == "whitespace" and data.endswith(b" "):
            data = data[:-1]
        return data

    def decode(self, ids: Iterable[int]) -> str:
        """Decode ids to text; bytes that are not valid UTF-8 are written as <E4>, never dropped."""
        return hex_invalid_utf8(self.decode_bytes(ids))


def _check_encodable(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"The text has an unpaired surrogate {text[exc.start]!r} at position {exc.start}: "
            "it is not a real character and has no UTF-8 bytes. Remove it (it usually comes "
            "from a broken copy of an emoji) and try again."
        ) from None


def _as_id(tok: Tokenizer, sym: int | bytes) -> int:
    return tok.ranks[sym] if isinstance(sym, bytes) else sym  # type: ignore[index]


def _char_lengths(tok: Tokenizer, ids, piece: str) -> list[int]:
    lengths = []
    for tid in ids:
        if tid is None:
            lengths.append(1)
        else:
            body, _ = tok.tokens[tid]
            lengths.append(len(body))
    return lengths


_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


def hex_invalid_utf8(data: bytes) -> str:
    """UTF-8 text with every byte that is not part of a valid character written as <XX>.

    Python's built-in "surrogateescape" handler turns each such byte (always 0x80-0xFF:
    ASCII bytes are valid) into U+DC80-U+DCFF, which are then written as hex; no codec
    error handler is registered, so nothing process-wide changes.

    >>> hex_invalid_utf8("é".encode()[:1] + b"ok")
    '<C3>ok'
    """
    text = data.decode("utf-8", errors="surrogateescape")
    return _ESCAPED_BYTE.sub(lambda m: f"<{ord(m.group()) - 0xDC00:02X}>", text)
