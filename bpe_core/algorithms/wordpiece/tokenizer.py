"""WordPiece encoding: `WordPieceTokenizer`, BERT's greedy longest-match-first loop.

Encoding (`WordPieceTokenizer`) is BERT's, and Hugging Face's `models.WordPiece`: in
each pre-tokenized word, take the longest vocabulary entry that starts at the current
position (with `##` after the first position), move past it, repeat; if no entry
matches at some position the whole word becomes `[UNK]`, and so does a word longer
than `max_input_chars_per_word` (100) characters. `trace()` records every substring
tried, for display. Encoding does not replay merges: a word is cut by the vocabulary
alone, which can differ from the segmentation training reached.
"""
from __future__ import annotations

import json
from typing import Any, Collection, Iterable, Literal, Mapping, Sequence

from bpe_core import TokenSpan
from bpe_core.contracts import TokenizerDefaults
from bpe_core.encode.special import allowed_specials, split_specials

from .settings import BERT_SPECIAL_TOKENS, check_whole
from .trace import WordTrace, trace_longest_match
from .words import WORDPIECE_PRETOKENIZERS, piece_texts, wordpiece_pieces

__all__ = ["FORMAT", "WordPieceTokenizer"]

#: The saved-tokenizer format's name (the JSON's "format" key).
FORMAT = "bpe-teaching-wordpiece"


class WordPieceTokenizer(TokenizerDefaults):
    """Greedy longest-match-first WordPiece encoding (BERT's, Hugging Face's
    `models.WordPiece`) over a fixed vocabulary.

    `vocab` is a list of token strings (ids are positions) or a mapping token -> id.
    It must contain `unk_token`. Text is split by `pretokenizer` (any of
    `WORDPIECE_PRETOKENIZERS`; "whitespace" by default), then each piece is encoded.

    >>> tok = WordPieceTokenizer(["[UNK]", "h", "hug", "##s", "p", "##u", "##g"])
    >>> tok.tokenize("hugs pug hat")
    ['hug', '##s', 'p', '##u', '##g', '[UNK]']
    >>> tok.decode(tok.encode("hugs pug"))
    'hugs pug'
    """

    _CACHE_LIMIT = 100_000
    #: What a page calls this kind of tokenizer (`contracts.TextTokenizer`).
    kind_label = "WordPiece"

    def __init__(
        self,
        vocab: Sequence[str] | Mapping[str, int],
        *,
        unk_token: str = "[UNK]",
        prefix: str = "##",
        max_input_chars_per_word: int = 100,
        pretokenizer: str = "whitespace",
        special_tokens: Collection[str] | None = None,
        name: str = "WordPiece",
    ):
        self._ids = _vocab_ids(vocab)
        self._tokens = dict(zip(self._ids.values(), self._ids))  # ids are unique (`_vocab_ids`)
        if unk_token not in self._ids:
            raise ValueError(
                f"The unknown token {unk_token!r} is not in the vocabulary. Add it (BERT lists "
                "'[UNK]' among its first tokens), or name the vocabulary's own with unk_token=."
            )
        if not isinstance(prefix, str) or not prefix:
            raise ValueError("The continuation prefix is empty. Use '##' (BERT's).")
        check_whole("maximum word length", max_input_chars_per_word, 0)
        if pretokenizer not in WORDPIECE_PRETOKENIZERS:
            raise ValueError(
                f"Unknown pre-tokenizer {pretokenizer!r}. Choose one of: {', '.join(WORDPIECE_PRETOKENIZERS)}."
            )
        self.unk_token = unk_token
        self.unk_id = self._ids[unk_token]
        self.prefix = prefix
        self.max_input_chars_per_word = max_input_chars_per_word
        self.pretokenizer = pretokenizer
        self.name = name
        if special_tokens is None:
            special_tokens = [t for t in (unk_token, *BERT_SPECIAL_TOKENS) if t in self._ids]
        missing = [t for t in special_tokens if t not in self._ids]
        if missing:
            raise ValueError(f"Special token {missing[0]!r} is not in the vocabulary. Add it or leave it out.")
        self.special_tokens: dict[str, int] = {t: self._ids[t] for t in special_tokens}
        # No entry is longer than this, so longer substrings need not be looked up.
        self._longest = max(map(len, self._ids))
        self._cache: dict[str, tuple[int, ...]] = {}

    # ---- sizes and names --------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        return len(self._ids)

    @property
    def vocab(self) -> dict[str, int]:
        """token -> id (a copy)."""
        return dict(self._ids)

    def token_text(self, token_id: int) -> str:
        """The vocabulary entry, prefix included ('##s')."""
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise TypeError(f"token ids must be integers, not {token_id!r}")
        text = self._tokens.get(token_id)
        if text is None:
            raise ValueError(
                f"Token id {token_id} is not in the {self.name} vocabulary ({self.vocab_size} tokens). "
                "Check the ids, or pick the tokenizer that produced them."
            )
        return text

    #: SentencePiece's name for the same lookup, so either name works on every kind.
    id_to_piece = token_text

    def token_bytes(self, token_id: int) -> bytes:
        """The token's text as UTF-8, without the continuation prefix."""
        text = self.token_text(token_id)
        return (text[len(self.prefix):] if text.startswith(self.prefix) else text).encode("utf-8")

    def id_of(self, token: str) -> int | None:
        return self._ids.get(token)

    # ---- encoding ---------------------------------------------------------------------
    def pieces(self, text: str) -> list[tuple[str, int]]:
        """Pre-tokenize: (piece, start offset) pairs."""
        return [(p.text, p.start) for p in wordpiece_pieces(text, self.pretokenizer)]

    def encode_word(self, word: str) -> tuple[int, ...]:
        """One pre-tokenized word's ids: longest match first, or the unknown token."""
        ids = self._cache.get(word)
        if ids is None:
            ids = self._longest_match(word)
            if len(self._cache) >= self._CACHE_LIMIT:
                self._cache = {}
            self._cache[word] = ids
        return ids

    def _longest_match(self, word: str) -> tuple[int, ...]:
        if len(word) > self.max_input_chars_per_word:
            return (self.unk_id,)
        vocab, prefix, longest = self._ids, self.prefix, self._longest
        out: list[int] = []
        start, n = 0, len(word)
        while start < n:
            # Substrings longer than the longest entry cannot match: start below it.
            end = min(n, start + longest)
            while end > start:
                found = vocab.get(word[start:end] if start == 0 else prefix + word[start:end])
                if found is not None:
                    break
                end -= 1
            else:
                return (self.unk_id,)
            out.append(found)
            start = end
        return tuple(out)

    def trace(self, word: str) -> WordTrace:
        """Every lookup the longest-match loop makes on `word`, as the textbook loop
        makes them: at each position from the whole rest of the word down to one
        character (`trace.trace_longest_match`; `encode` skips substrings longer than the
        longest entry, and the result is the same)."""
        return trace_longest_match(word, self._ids, unk_token=self.unk_token, prefix=self.prefix,
                                   max_input_chars_per_word=self.max_input_chars_per_word)

    def _chunks(self, text: str, allowed_special: Collection[str] | Literal["all"]) -> list[tuple[str, int, bool]]:
        """Cut text into (chunk, start, is_special) around the allowed special tokens."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        allowed = allowed_specials(allowed_special, self.special_tokens, name=self.name)
        if not allowed:
            return [(text, 0, False)]
        return [(text[start:end], start, special) for start, end, special in split_specials(text, allowed)]

    def encode(self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()) -> list[int]:
        """Encode text to token ids.

        Special tokens such as "[CLS]" are recognised in the text only when named in
        `allowed_special` (or "all"); otherwise their characters are ordinary text (which
        the vocabulary may still match whole, as Hugging Face's WordPiece model does).
        """
        out: list[int] = []
        for chunk, _, special in self._chunks(text, allowed_special):
            if special:
                out.append(self.special_tokens[chunk])
                continue
            for piece in piece_texts(chunk, self.pretokenizer):
                out.extend(self.encode_word(piece))
        return out

    def tokenize(self, text: str) -> list[str]:
        """The token strings of `encode(text)`."""
        return [self._tokens[i] for i in self.encode(text)]

    def token_spans(self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()) -> list[TokenSpan]:
        """Tokens with character offsets, for colouring. An unknown word is one span."""
        spans: list[TokenSpan] = []
        piece_index = 0
        for chunk, offset, special in self._chunks(text, allowed_special):
            if special:
                spans.append(TokenSpan(self.special_tokens[chunk], chunk.encode(), chunk, offset,
                                       offset + len(chunk), piece_index, True))
                piece_index += 1
                continue
            for piece in wordpiece_pieces(chunk, self.pretokenizer):
                pos = offset + piece.start
                ids = self.encode_word(piece.text)
                for i, tid in enumerate(ids):
                    if tid == self.unk_id and len(ids) == 1:
                        width = len(piece.text)  # the whole word became the unknown token
                    else:
                        width = len(self._tokens[tid]) - (len(self.prefix) if i else 0)
                    covered = text[pos : pos + width]
                    spans.append(TokenSpan(tid, covered.encode("utf-8"), covered, pos, pos + width, piece_index))
                    pos += width
                piece_index += 1
        return spans

    # ---- decoding ---------------------------------------------------------------------
    def decode(self, ids: Iterable[int]) -> str:
        """Join tokens: a continuation ('##s') joins the token before it, any other token
        starts a new word after a space (Hugging Face's WordPiece decoder without
        clean-up). Whitespace runs and punctuation spacing of the original are not kept.
        """
        parts: list[str] = []
        for i, tid in enumerate(ids):
            text = self.token_text(tid)
            if i and text.startswith(self.prefix):
                parts.append(text[len(self.prefix):])
            else:
                parts.append(" " + text if i else text)
        return "".join(parts)

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """`decode` as UTF-8 (every token is whole characters)."""
        return self.decode(ids).encode("utf-8")

    # ---- saving -----------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (`from_json` reads it back)."""
        return {
            "format": FORMAT,
            "algorithm": "wordpiece",
            "version": 1,
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.prefix,
            "max_input_chars_per_word": self.max_input_chars_per_word,
            "pretokenizer": self.pretokenizer,
            "special_tokens": list(self.special_tokens),
            "vocab": dict(sorted(self._ids.items(), key=lambda kv: kv[1])),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str, *, name: str = "saved") -> "WordPieceTokenizer":
        """Rebuild a tokenizer from `to_json` output (a dict or a JSON string)."""
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as exc:
                raise ValueError(f"The tokenizer file is not valid JSON ({exc}). Save it again with 'train --save'.") from None
        if not isinstance(data, Mapping) or data.get("algorithm") != "wordpiece":
            raise ValueError(
                "This is not a saved WordPiece tokenizer (its 'algorithm' is not 'wordpiece'). "
                "Create one with `python -m bpe_core train --algorithm wordpiece ... --save PATH`."
            )
        try:
            return cls(
                data["vocab"],
                unk_token=data["unk_token"],
                prefix=data["continuing_subword_prefix"],
                max_input_chars_per_word=data["max_input_chars_per_word"],
                pretokenizer=data["pretokenizer"],
                special_tokens=data.get("special_tokens"),
                name=name,
            )
        except KeyError as exc:
            raise ValueError(f"The tokenizer file has no {exc.args[0]!r} entry; it is damaged. Save it again.") from None


def _vocab_ids(vocab: Sequence[str] | Mapping[str, int]) -> dict[str, int]:
    """token -> id from a list (ids are positions) or a mapping, checked."""
    if isinstance(vocab, str):
        raise TypeError("vocab must be a list of token strings or a mapping token -> id, not one string.")
    if isinstance(vocab, Mapping):
        ids = dict(vocab)
        values = ids.values()
        # the common case checked in C-level passes (a vocabulary has tens of thousands)
        plain = ids and set(map(type, ids)) == {str} and "" not in ids and set(map(type, values)) == {int}
        for t, i in ids.items() if not (plain and min(values) >= 0) else ():
            if not isinstance(t, str) or not t or isinstance(i, bool) or not isinstance(i, int) or i < 0:
                raise ValueError(f"Vocabulary entry {t!r}: {i!r} is not a non-empty token and an id of 0 or more.")
        if len(set(ids.values())) != len(ids):
            raise ValueError("Two vocabulary entries share an id. Give each token its own id.")
    else:
        ids = {}
        for i, t in enumerate(vocab):
            if not isinstance(t, str) or not t:
                raise ValueError(f"Vocabulary entry {i} is {t!r}, not a non-empty string.")
            if t in ids:
                raise ValueError(f"The vocabulary lists {t!r} twice (ids {ids[t]} and {i}). List each token once.")
            ids[t] = i
    if not ids:
        raise ValueError("The vocabulary is empty. Give at least the unknown token.")
    return ids
