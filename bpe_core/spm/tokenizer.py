"""A SentencePiece model (`.model` file) as a tokenizer, encoded with our own code.

The pipeline is SentencePiece's: normalize (`normalizer.py`: the character map, extra
spaces, the dummy prefix, spaces as `▁`), then split the whole normalized text into
pieces (`segment.py`: BPE by piece score, or Unigram by Viterbi) with no pre-tokenizer,
then ids: a piece's id; a character no piece covers is the unknown id (a run of them is
one unknown token), or with byte fallback its UTF-8 bytes as `<0xAB>` pieces. Decoding
writes `▁` back as a space and drops the dummy prefix, so with the identity rule,
remove_extra_whitespaces off and byte fallback on, decode(encode(x)) == x.

The ids equal `sentencepiece.SentencePieceProcessor(model_file=...).encode(text)`
(tested against the library). Left out: WORD and CHAR models, sampling, n-best,
bos/eos added by options, a denormalizer with rules.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from itertools import repeat
from pathlib import Path
from typing import Collection, Iterable, Literal, Sequence

from ..contracts import TokenizerDefaults
from ..display import bytes_label
from ..encode.special import allowed_specials, split_specials
from ..encode.tokenizer import Replay, ReplayStep, TokenSpan
from ..model_work import ModelWord, ModelWork, word_holding
from .normalizer import SPACE_SYMBOL, Normalizer
from .proto import ModelPiece, ModelProto, byte_of_piece, read_model
from .segment import UnigramLattice, bpe_segment
from ..algorithms.unigram import build_lattice

__all__ = ["SentencePieceSpan", "SentencePieceTokenizer", "looks_like_sentencepiece"]

_CACHE_LIMIT = 200_000


@dataclass(frozen=True, slots=True)
class SentencePieceSpan(TokenSpan):
    """A TokenSpan with SentencePiece's marks: `label` is the piece as SentencePiece
    writes it (`▁the`, `<0x0A>`); `byte_fallback` is True for a byte piece standing for
    part of a character no piece covers (each covers that whole character);
    `unknown` for the unknown token (a run of uncovered characters, no byte fallback)."""

    byte_fallback: bool = False
    unknown: bool = False


def looks_like_sentencepiece(data: bytes) -> bool:
    """Whether bytes start like a SentencePiece model: field 1 (the first piece, a
    message) whose own first field is field 1 (its text). A text file starts otherwise.

    >>> looks_like_sentencepiece(b"\\x0a\\x09\\x0a\\x05<unk>"), looks_like_sentencepiece(b'\\n\\n{"model": 1}')
    (True, False)
    """
    if data[:1] != b"\x0a":
        return False
    i = 1
    while i < min(len(data), 11) and data[i] >= 0x80:  # skip the length varint
        i += 1
    return data[i + 1 : i + 2] == b"\x0a"


class SentencePieceTokenizer(TokenizerDefaults):
    """Encode, decode and colour text with a SentencePiece BPE or Unigram model."""

    #: What a page calls this kind of tokenizer (`contracts.TextTokenizer`).
    kind_label = "SentencePiece"
    #: Its words and pieces are text (`▁` for a space), never GPT-2's byte form.
    byte_level = False

    def __init__(self, model: ModelProto, *, name: str = "sentencepiece"):
        spec = model.trainer_spec
        if spec.model_type not in ("bpe", "unigram"):
            raise ValueError(
                f"{name} is a SentencePiece {spec.model_type.upper()} model; only BPE and "
                "Unigram models can be loaded here. Train it with model_type=bpe or unigram."
            )
        if model.denormalizer_spec is not None and model.denormalizer_spec.precompiled_charsmap:
            raise ValueError(
                f"{name} has denormalization rules, which are not supported here. "
                "Use a model trained without a denormalization rule."
            )
        self.name = name
        # the specs; the pieces are kept as columns only (`model` puts them back together)
        self._model = replace(model, pieces=())
        self.model_type = spec.model_type
        self.byte_fallback = spec.byte_fallback
        # one column each (C-level: a model has tens of thousands of pieces)
        self.pieces: tuple[str, ...]
        self.scores: tuple[float, ...]
        self.types: tuple[str, ...]
        self.pieces, self.scores, self.types = zip(*model.pieces)
        self.unk_id = self.types.index("unknown")
        self.normalization = model.normalizer_spec.name or ("identity" if not model.normalizer_spec.precompiled_charsmap else "custom")
        # ids by type; the normal pieces are most of them, so the others are picked out
        by_type: dict[str, list[int]] = {}
        if set(self.types) != {"normal"}:
            for i, t in enumerate(self.types):
                if t != "normal":
                    by_type.setdefault(t, []).append(i)
        pieces = self.pieces
        #: control pieces (<s>, </s>, ...): never produced from text unless allowed.
        self.special_tokens = {pieces[i]: i for i in by_type.get("control", ())}
        # SentencePiece keeps two tables: pieces that text can become, and reserved ones
        # (unknown, control, byte; the checks in `read_model` keep each table's keys unique).
        reserved = sorted(i for t in ("unknown", "control", "byte") for i in by_type.get(t, ()))
        self._reserved: dict[str, int] = {pieces[i]: i for i in reserved}
        if reserved:
            kept = set(range(len(pieces))).difference(reserved)
            self._ids: dict[str, int] = {pieces[i]: i for i in sorted(kept)}
        else:
            self._ids = dict(zip(pieces, range(len(pieces))))
        self._byte_ids = {byte_of_piece(pieces[i]): i for i in by_type.get("byte", ())}
        user = tuple(pieces[i] for i in by_type.get("user_defined", ()))
        self._user = user
        self._unused = frozenset(pieces[i] for i in by_type.get("unused", ()))
        self.normalizer = Normalizer(
            model.normalizer_spec, user_defined=user,
            treat_whitespace_as_suffix=spec.treat_whitespace_as_suffix,
        )
        self._space = SPACE_SYMBOL if model.normalizer_spec.escape_whitespaces else " "
        if self.model_type == "bpe":
            self._scores = dict(zip(self._ids, map(self.scores.__getitem__, self._ids.values())))
            self._lattice = None
        else:
            if len(by_type) == 0:
                normal = dict(zip(self.pieces, self.scores))
            else:
                odd = set().union(*by_type.values())
                normal = {self.pieces[i]: self.scores[i] for i in range(len(self.pieces)) if i not in odd}
            self._lattice = UnigramLattice(normal, user, own=True)
            # ids stretch by stretch: a run of unknown pieces (one id without byte fallback)
            # cannot cross into a stretch when every stretch starts with a known piece,
            # which it does when `▁` is a piece (each starts with `▁` but the text's first)
            if self.byte_fallback or SPACE_SYMBOL in self._lattice.score_of:
                self._lattice.to_ids = self._stretch_ids
        s = re.escape(self._space)
        self._word = re.compile(f"{s}*[^{s}]+|{s}+")
        # BPE can encode word by word (and cache words) when no piece joins a
        # character to a following space: then no merge crosses the start of a space run.
        # (One search over the pieces one a line; the few pieces holding a newline alone.)
        self._by_word = self.model_type == "bpe" and not (
            re.search(f"[^{s}\n]{s}", "\n".join(self._ids))
            or any(re.search(f"[^{s}]{s}", p) for p in self._ids if "\n" in p)
        )
        self._cache: dict[str, tuple[str, ...]] = {}

    @property
    def model(self) -> ModelProto:
        """The parsed `.model` file (its pieces made again from the tokenizer's columns:
        a model keeps one copy of its vocabulary, not two)."""
        return replace(self._model, pieces=tuple(map(ModelPiece._make, zip(self.pieces, self.scores, self.types))))

    # ---- constructors -------------------------------------------------------------------
    @classmethod
    def from_bytes(cls, data: bytes, *, name: str = "sentencepiece", sha256: str | None = None) -> "SentencePieceTokenizer":
        """A tokenizer from the bytes of a `.model` file; `sha256`, if given, must match."""
        if sha256 is not None:
            actual = hashlib.sha256(data).hexdigest()
            if actual != sha256:
                raise ValueError(
                    f"{name}: the SHA-256 of the model file is {actual}, but {sha256} is expected, "
                    "so the file is damaged or a different version. Reinstall the package that ships it."
                )
        return cls(read_model(data, name=name), name=name)

    @classmethod
    def from_file(cls, path: str | Path, *, name: str | None = None, sha256: str | None = None) -> "SentencePieceTokenizer":
        """A tokenizer from a `.model` file on disk."""
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise ValueError(f"Cannot read {str(path)!r}: {exc.strerror}. Check the path.") from None
        return cls.from_bytes(data, name=name or Path(path).name, sha256=sha256)

    # ---- sizes and names ----------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        """Every piece, control and byte pieces included (SentencePiece's GetPieceSize)."""
        return len(self.pieces)

    def _check_id(self, token_id: int) -> int:
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise TypeError(f"token ids must be integers, not {token_id!r}")
        if not 0 <= token_id < len(self.pieces):
            raise ValueError(
                f"Token id {token_id} is not in the {self.name} vocabulary (ids 0 to "
                f"{len(self.pieces) - 1}). Check the ids, or pick the tokenizer that produced them."
            )
        return token_id

    def id_to_piece(self, token_id: int) -> str:
        return self.pieces[self._check_id(token_id)]

    def piece_to_id(self, piece: str) -> int:
        """A piece's id; the unknown id for text that is not a piece (as SentencePiece)."""
        return self._reserved.get(piece, self._ids.get(piece, self.unk_id))

    def token_text(self, token_id: int) -> str:
        """The piece as SentencePiece writes it (`▁the`, `<0x0A>`, `<s>`)."""
        return self.id_to_piece(token_id)

    def token_bytes(self, token_id: int) -> bytes:
        """What the token stands for: a byte piece its byte, a control piece nothing,
        the unknown piece its surface, any other piece its text with `▁` as a space."""
        kind = self.types[self._check_id(token_id)]
        if kind == "byte":
            return bytes((byte_of_piece(self.pieces[token_id]),))  # type: ignore[arg-type]  # a byte piece
        if kind == "control":
            return b""
        if kind == "unknown":
            return self._model.trainer_spec.unk_surface.encode("utf-8")
        return self.pieces[token_id].replace(SPACE_SYMBOL, " ").encode("utf-8")

    # ---- encoding -----------------------------------------------------------------------
    def _split_special(self, text: str, allowed_special) -> list[tuple[str, bool]]:
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(
                f"The text has an unpaired surrogate ({text[exc.start]!r} at character {exc.start}), "
                "which is not a character and has no UTF-8 form. Remove it or pair it."
            ) from None
        allowed = allowed_specials(allowed_special, self.special_tokens, name=self.name,
                                   kind="control piece", kinds="control pieces")
        if not allowed:
            return [(text, False)]
        return [(text[start:end], special) for start, end, special in split_specials(text, allowed)]

    def _segment(self, normalized: str) -> list[str]:
        """The pieces of normalized text (an unknown piece included as its text)."""
        if self._lattice is not None:
            return self._lattice.pieces(normalized)
        if not self._by_word:
            return self._bpe(normalized)
        out: list[str] = []
        cache = self._cache
        for word in self._word.findall(normalized):
            pieces = cache.get(word)
            if pieces is None:
                if len(cache) >= _CACHE_LIMIT:
                    cache.clear()
                pieces = cache[word] = tuple(self._bpe(word))
            out.extend(pieces)
        return out

    def _bpe(self, text: str) -> list[str]:
        if not text:
            return []
        symbols, frozen = self._symbols(text)
        return bpe_segment(symbols, frozen, self._scores, self._unused.__contains__)

    def _piece_ids(self, pieces: list[str]) -> Iterable[tuple[str, tuple[int, ...], bool]]:
        """(piece, its ids, is_unknown): byte fallback for unknown pieces, or one
        unknown id for a run of them."""
        lookup = self.piece_to_id if self._lattice is None else (lambda p: self._ids.get(p, self.unk_id))
        run: list[str] = []
        for piece in pieces:
            token_id = lookup(piece)
            if token_id == self.unk_id or self.types[token_id] == "unknown":
                if self.byte_fallback:
                    yield piece, tuple(self._byte_ids[b] for b in piece.encode("utf-8")), True
                else:
                    run.append(piece)
                continue
            if run:
                yield "".join(run), (self.unk_id,), True
                run = []
            yield piece, (token_id,), False
        if run:
            yield "".join(run), (self.unk_id,), True

    def encode_pieces(self, text: str) -> list[str]:
        """The pieces of `text` as SentencePiece's encode(out_type=str) writes them."""
        return [self.pieces[i] for i in self.encode(text)]

    def encode(
        self,
        text: str,
        *,
        allowed_special: Collection[str] | Literal["all"] = (),
        disallowed_special: Collection[str] | Literal["all"] = (),
    ) -> list[int]:
        """Text to ids, as `SentencePieceProcessor.encode(text)`.

        Control pieces such as `<s>` in the text are ordinary text (as in SentencePiece)
        unless named in `allowed_special` (or "all"); then the text between them is
        encoded chunk by chunk. `disallowed_special` is accepted for the same signature
        as the BPE Tokenizer and has no effect.
        """
        out: list[int] = []
        for chunk, special in self._split_special(text, allowed_special):
            if special:
                out.append(self.special_tokens[chunk])
                continue
            normalized = self.normalizer.normalize_text(chunk)
            if self._lattice is not None and self._lattice.to_ids is not None:
                out.extend(self._lattice.ids(normalized))
                continue
            pieces = self._segment(normalized)
            if self._lattice is None:
                for _, ids, _ in self._piece_ids(pieces):
                    out.extend(ids)
            else:
                self._unigram_ids(pieces, out)
        return out

    def _stretch_ids(self, pieces: Sequence[str]) -> tuple[int, ...]:
        """The ids of one stretch's pieces (`UnigramLattice.ids`)."""
        unk = self.unk_id
        ids = tuple(map(self._ids.get, pieces, repeat(unk)))
        if unk not in ids:
            return ids
        out: list[int] = []
        self._unigram_ids(pieces, out)
        return tuple(out)

    def _unigram_ids(self, pieces: Sequence[str], out: list[int]) -> None:
        """`_piece_ids` for a Unigram model's pieces, in bulk between unknown pieces."""
        unk = self.unk_id
        ids = [self._ids.get(p, unk) for p in pieces]
        start, n = 0, len(ids)
        while start < n:
            try:
                k = ids.index(unk, start)
            except ValueError:
                k = n
            out.extend(ids[start:k])
            end = k
            while end < n and ids[end] == unk:
                end += 1
            if k < end:
                if self.byte_fallback:
                    for piece in pieces[k:end]:
                        out.extend(self._byte_ids[b] for b in piece.encode("utf-8"))
                else:
                    out.append(unk)
            start = end

    def token_spans(
        self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()
    ) -> list[SentencePieceSpan]:
        """Tokens with character offsets into `text`, for colouring.

        `piece` numbers the words (a word starts at each run of `▁`); the dummy prefix
        `▁` covers no character of the text. Byte-fallback tokens each cover their whole
        character and are marked `byte_fallback`.
        """
        spans: list[SentencePieceSpan] = []
        offset = word = 0
        for chunk, special in self._split_special(text, allowed_special):
            if special:
                tid = self.special_tokens[chunk]
                spans.append(SentencePieceSpan(tid, b"", chunk, offset, offset + len(chunk), word, True))
                word += 1
            else:
                word = self._chunk_spans(chunk, offset, word, spans)
            offset += len(chunk)
        return spans

    def _chunk_spans(self, chunk: str, offset: int, word: int, spans: list) -> int:
        normalized, orig = self.normalizer.normalize(chunk)
        pos, space = 0, self._space
        for piece, ids, unknown in self._piece_ids(self._segment(normalized)):
            if piece[0] == space and (pos == 0 or normalized[pos - 1] != space) or pos == 0:
                word += 1
            start, end = offset + orig[pos], offset + orig[pos + len(piece)]
            if unknown and self.byte_fallback:
                for tid in ids:
                    data = self.token_bytes(tid)
                    spans.append(SentencePieceSpan(tid, data, self.pieces[tid], start, end, word - 1, byte_fallback=True))
            else:
                tid = ids[0]
                data = chunk[start - offset : end - offset].encode("utf-8") if unknown else self.token_bytes(tid)
                label = bytes_label(data) if unknown else self.pieces[tid]
                spans.append(SentencePieceSpan(tid, data, label, start, end, word - 1, unknown=unknown))
            pos += len(piece)
        return word

    # ---- the model's work on one word ------------------------------------------------------
    @property
    def work(self) -> ModelWork | None:
        """What the model can show of its work on one word (`model_words`): a Unigram
        model's lattice, a BPE model's replay (when its merges never cross a word, which
        is when the page's words are the model's), else None."""
        if self._lattice is not None:
            return ModelWork("Unigram", lattice=self.lattice)
        if self._by_word:
            return ModelWork("BPE", replay=self.replay, by_score=True)
        return None

    def _symbols(self, text: str) -> tuple[list[str], list[bool]]:
        """A text's starting symbols for BPE (characters; a user-defined piece is one
        frozen symbol) and which of them are frozen."""
        if not self._user:
            return list(text), [False] * len(text)
        symbols, frozen, i = [], [], 0
        while i < len(text):
            sym = self.normalizer.user_symbol_at(text, i)
            symbols.append(sym or text[i])
            frozen.append(sym is not None)
            i += len(symbols[-1])
        return symbols, frozen

    def replay(self, word: str) -> Replay:
        """The merges that build an already normalized word (`▁` for spaces), in the
        order SentencePiece applies them: each step joins the adjacent pair whose joined
        piece scores highest, the leftmost on equal scores. A step's `rank` is the new
        piece's id (a BPE model's pieces are stored best score first). A symbol no piece
        covers is the unknown id here (byte fallback writes it as its bytes).
        """
        if self._lattice is not None:
            raise ValueError(f"{self.name} is a Unigram model: it has no merges. Its lattice shows its work.")
        ids = self._ids
        unk = self.unk_id
        symbols, frozen = self._symbols(word)
        base = tuple(ids.get(p, unk) for p in symbols)
        steps: list[ReplayStep] = []
        before = [list(base)]

        def on_merge(live: list[str], at: int) -> None:
            now = tuple(ids.get(p, unk) for p in live)
            prev = before[0]
            steps.append(ReplayStep(rank=now[at], left=prev[at], right=prev[at + 1], token_id=now[at],
                                    position=at, symbols=now))
            before[0] = list(now)

        if symbols:
            bpe_segment(symbols, frozen, self._scores, self._unused.__contains__, on_merge)
        return Replay(word, base, tuple(steps))

    def token_label(self, token_id: int) -> str:
        """A token as the page writes it: its piece (`▁the`, `<0x0A>`)."""
        return self.pieces[self._check_id(token_id)]

    def lattice(self, word: str):
        """The lattice of an already normalized word (`▁` for spaces): every piece that
        matches, its score and marginal, and the best path, with scores added in
        float32 as SentencePiece adds them."""
        if self._lattice is None:
            raise ValueError(f"{self.name} is a BPE model: it has no lattice. Its pieces are merged by score.")
        lat = self._lattice

        def id_of(i: int, j: int, known: bool) -> int:
            return self._ids.get(word[i:j], self.unk_id) if known else self.unk_id

        return build_lattice(word, word, lat.table, lat.unk_score, id_of, float32=True)

    def model_words(self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()) -> list[ModelWord]:
        """The words of the normalized text (a run of `▁` with the characters after it), each
        with the range of `text` it came from; an allowed control piece is one added word."""
        words: list[ModelWord] = []
        offset = 0
        for chunk, special in self._split_special(text, allowed_special):
            if special:
                words.append(ModelWord(chunk, offset, offset + len(chunk), True))
            else:
                normalized, orig = self.normalizer.normalize(chunk)
                for m in self._word.finditer(normalized):
                    words.append(ModelWord(m.group(), offset + orig[m.start()], offset + orig[m.end()]))
            offset += len(chunk)
        return words

    def word_of(self, text: str, span: TokenSpan, *,
                allowed_special: Collection[str] | Literal["all"] = ()) -> ModelWord | None:
        """The word of `model_words(text)` a token of `text` came from: the one whose range
        holds the token's start (an empty token, the dummy prefix, belongs to the next)."""
        return word_holding(self.model_words(text, allowed_special=allowed_special), span.start)

    # ---- decoding -----------------------------------------------------------------------
    def _decode_parts(self, ids: Iterable[int]) -> list[str | bytes]:
        """Decoded text parts, with runs of byte pieces left as bytes (SentencePiece's order)."""
        spec = self._model.normalizer_spec
        strip_first = spec.add_dummy_prefix or spec.remove_extra_whitespaces
        parts: list[str | bytes] = []
        pending = bytearray()
        at_start, first_ws_seen, written = True, False, False
        for tid in ids:
            kind = self.types[self._check_id(tid)]
            if kind == "byte":
                pending.append(byte_of_piece(self.pieces[tid]))  # type: ignore[arg-type]  # a byte piece
                continue
            if pending:
                parts.append(bytes(pending))
                written = True
                pending.clear()
            if first_ws_seen or written:
                at_start = False
            text, first_ws_seen = self._decode_piece(tid, kind, at_start and strip_first)
            parts.append(text)
            written = written or bool(text)
        if pending:
            parts.append(bytes(pending))
        return parts

    def _decode_piece(self, tid: int, kind: str, strip: bool) -> tuple[str, bool]:
        if kind == "control":
            return "", False
        if kind == "unknown":
            return self._model.trainer_spec.unk_surface, False
        piece = self.pieces[tid]
        stripped = False
        if strip and piece.startswith(SPACE_SYMBOL):
            piece = piece[1:]
            stripped = not self._model.normalizer_spec.remove_extra_whitespaces
        return piece.replace(SPACE_SYMBOL, " "), stripped

    def decode(self, ids: Iterable[int]) -> str:
        """Ids to text, as `SentencePieceProcessor.decode(ids)`: byte pieces joined into
        characters, each byte that is not part of valid UTF-8 written as U+FFFD."""
        return "".join(p if isinstance(p, str) else _utf8_lossy(p) for p in self._decode_parts(ids))

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The exact bytes of decoded ids (byte pieces as their raw bytes)."""
        return b"".join(p.encode("utf-8") if isinstance(p, str) else p for p in self._decode_parts(ids))


def _utf8_lossy(data: bytes) -> str:
    """Decode UTF-8, one U+FFFD per byte that does not start a valid character
    (SentencePiece's rule; Python's "replace" would give one per bad sequence).

    >>> _utf8_lossy(b"a\\xe4\\xb8b\\xe4\\xb8\\xad")
    'a\\ufffd\\ufffdb中'
    """
    out: list[str] = []
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        width = 1 if b < 0x80 else 2 if 0xC2 <= b < 0xE0 else 3 if 0xE0 <= b < 0xF0 else 4 if 0xF0 <= b < 0xF5 else 0
        if width:
            try:
                out.append(data[i : i + width].decode("utf-8"))
                i += width
                continue
            except UnicodeDecodeError:
                pass
        out.append("\ufffd")
        i += 1
    return "".join(out)
