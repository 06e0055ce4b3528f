"""`UnigramModel`: pieces with scores, encoding by Viterbi, decoding, the lattice, n-best
segmentations and sampling (subword regularisation), saving."""
from __future__ import annotations

import json
import math
import random
from array import array
from collections.abc import Iterable, Mapping, Sequence

from bpe_core import TokenSpan
from bpe_core.contracts import TokenizerDefaults

from .lattice import Lattice, Segmentation, build_lattice, forward, lattice_edges
from .text import SPACE, denormalize, normalize
from .viterbi import PieceTable, merge_unknown, viterbi

__all__ = ["UNK_PIECE", "UNK_PENALTY", "UNK_SURFACE", "FORMAT_VERSION", "UnigramModel"]

UNK_PIECE = "<unk>"
UNK_PENALTY = 10.0
UNK_SURFACE = " \u2047 "
FORMAT_VERSION = 1


class UnigramModel(TokenizerDefaults):
    """Pieces with scores (log-probabilities); id = position in `pieces`.

    The piece at `unk_id` stands for unknown characters and is never matched in text.
    `unk_score` defaults to the lowest score minus 10, as in sentencepiece.

    >>> m = UnigramModel.from_scores({"▁": -2.0, "a": -2.0, "b": -2.0, "▁ab": -3.0})
    >>> m.encode_pieces("ab ba")
    ['▁ab', '▁', 'b', 'a']
    >>> m.decode(m.encode("ab ba"))
    'ab ba'
    """

    #: What a page calls this kind of tokenizer (`contracts.TextTokenizer`).
    kind_label = "Unigram"

    def __init__(
        self,
        pieces: Sequence[str],
        scores: Sequence[float],
        *,
        unk_id: int = 0,
        unk_score: float | None = None,
        float32: bool = False,
    ):
        pieces, scores = tuple(pieces), tuple(float(s) for s in scores)
        if len(pieces) != len(scores):
            raise ValueError(f"{len(pieces)} pieces but {len(scores)} scores; give one score per piece.")
        if not 0 <= unk_id < len(pieces):
            raise ValueError(f"unk_id {unk_id} is not an id of the {len(pieces)} pieces; add an <unk> piece.")
        matched = {p: s for i, (p, s) in enumerate(zip(pieces, scores)) if i != unk_id}
        if len(matched) != len(pieces) - 1 or pieces[unk_id] in matched:
            raise ValueError("Pieces must be distinct; remove the duplicates.")
        self.pieces, self.scores, self.unk_id, self.float32 = pieces, scores, unk_id, float32
        self.table = PieceTable(matched)
        if unk_score is None:
            unk_score = min(matched.values(), default=0.0) - UNK_PENALTY
            if float32:
                unk_score = array("f", [unk_score])[0]
        self.unk_score = float(unk_score)
        self._ids = {p: i for i, p in enumerate(pieces)}

    @classmethod
    def from_scores(cls, scores: Mapping[str, float], *, unk_piece: str = UNK_PIECE) -> UnigramModel:
        """Ids in order of score, best first (ties by piece), `<unk>` first: the order a
        trained sentencepiece model uses."""
        order = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        return cls([unk_piece] + [p for p, _ in order], [0.0] + [s for _, s in order])

    # ---- vocabulary

    @property
    def vocab_size(self) -> int:
        return len(self.pieces)

    def piece_to_id(self, piece: str) -> int:
        return self._ids.get(piece, self.unk_id)

    def id_to_piece(self, token_id: int) -> str:
        self._check_ids([token_id])
        return self.pieces[token_id]

    def _check_ids(self, ids: Iterable[int]) -> None:
        for token_id in ids:
            if not isinstance(token_id, int) or isinstance(token_id, bool):
                raise TypeError(f"Token ids must be ints, not {type(token_id).__name__} ({token_id!r}).")
            if not 0 <= token_id < len(self.pieces):
                raise ValueError(f"Token id {token_id} is out of range; this model has ids 0..{len(self.pieces) - 1}.")

    # ---- encoding

    def _spans(self, normalized: str) -> list[tuple[int, int, bool]]:
        return merge_unknown(viterbi(normalized, self.table, self.unk_score, float32=self.float32))

    def _id(self, normalized: str, start: int, end: int, known: bool) -> int:
        return self._ids[normalized[start:end]] if known else self.unk_id

    def encode(self, text: str, *, allowed_special=()) -> list[int]:
        """Token ids of the best segmentation (a Unigram model here has no special
        tokens, so `allowed_special` changes nothing; it is taken so every tokenizer
        is called the same way)."""
        norm = normalize(text)
        return [self._id(norm, s, e, k) for s, e, k in self._spans(norm)]

    def encode_pieces(self, text: str) -> list[str]:
        """The pieces of the best segmentation (a run of unknown characters as its text)."""
        norm = normalize(text)
        return [norm[s:e] for s, e, _ in self._spans(norm)]

    def decode(self, ids: Iterable[int]) -> str:
        """Text from ids: pieces joined, `▁` as a space, the dummy prefix dropped;
        `<unk>` as " ⁇ " (sentencepiece's surface for it)."""
        ids = list(ids)
        self._check_ids(ids)
        text = "".join(UNK_SURFACE if i == self.unk_id else self.pieces[i] for i in ids)
        return denormalize(text)

    def token_text(self, token_id: int) -> str:
        """The piece, as the model writes it (`▁the`)."""
        return self.id_to_piece(token_id)

    def token_bytes(self, token_id: int) -> bytes:
        """The text a piece stands for, `▁` as a space (`<unk>` as its surface, " ⁇ ")."""
        self._check_ids([token_id])
        piece = UNK_SURFACE if token_id == self.unk_id else self.pieces[token_id]
        return piece.replace(SPACE, " ").encode("utf-8")

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """`decode` as UTF-8 (every piece is whole characters)."""
        return self.decode(ids).encode("utf-8")

    def token_spans(self, text: str, *, allowed_special=()) -> list[TokenSpan]:
        """Tokens with character offsets into `text`, for colouring.

        `label` is the piece as the model sees it (with `▁`); `token_bytes` is the text it
        stands for. The dummy prefix belongs to the first token, so a first token that is
        only `▁` has an empty span (0, 0). There is no pre-tokenizer: `piece` is always 0.

        >>> m = UnigramModel.from_scores({"▁": -2.0, "a": -2.0, "▁a": -1.0})
        >>> [(s.label, s.start, s.end) for s in m.token_spans("a a")]
        [('▁a', 0, 1), ('▁a', 1, 3)]
        """
        norm = normalize(text)
        out = []
        for s, e, known in self._spans(norm):
            start, end = max(s - 1, 0), e - 1
            surface = text[start:end]
            out.append(TokenSpan(self._id(norm, s, e, known), surface.encode("utf-8"), norm[s:e], start, end, 0))
        return out

    # ---- the lattice, n-best and sampling

    def lattice(self, text: str) -> Lattice:
        """Every candidate piece of `text` with its score and marginal, and the best path."""
        norm = normalize(text)
        return build_lattice(text, norm, self.table, self.unk_score,
                             lambda i, j, known: self._id(norm, i, j, known), float32=self.float32)

    def _segmentation(self, norm: str, spans: list[tuple[int, int, bool]], score: float) -> Segmentation:
        merged = merge_unknown(spans)
        return Segmentation(
            pieces=tuple(norm[s:e] for s, e, _ in merged),
            ids=tuple(self._id(norm, s, e, k) for s, e, k in merged),
            score=score,
        )

    def nbest(self, text: str, n: int) -> list[Segmentation]:
        """The n best segmentations, best first (fewer if the text has fewer). Equal
        scores keep the order of their last piece's start, earliest first."""
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be a whole number of 1 or more, not {n!r}.")
        norm = normalize(text)
        edges = lattice_edges(norm, self.table, self.unk_score)
        # tops[j]: up to n (score, start, rank at start, known) of the best paths to j
        tops: list[list[tuple[float, int, int, bool]]] = [[(0.0, -1, -1, True)]]
        for j in range(1, len(edges)):
            cands = [(tops[i][r][0] + s, i, r, known) for i, s, known in edges[j] for r in range(len(tops[i]))]
            cands.sort(key=lambda c: -c[0])  # stable: earlier starts first on ties
            tops.append(cands[:n])
        out = []
        for rank in range(len(tops[-1]) if norm else 0):
            spans, j, r = [], len(edges) - 1, rank
            score = tops[j][r][0]
            while j > 0:
                _, i, r_prev, known = tops[j][r]
                spans.append((i, j, known))
                j, r = i, r_prev
            spans.reverse()
            out.append(self._segmentation(norm, spans, score))
        return out

    def samples(self, text: str, count: int, *, alpha: float = 0.1, seed: int = 0) -> list[Segmentation]:
        """`count` segmentations drawn independently with probability proportional to
        p(segmentation)^alpha (forward filtering, backward sampling). The same seed gives
        the same draws. alpha -> 0 makes every segmentation equally likely; a large alpha
        approaches the best one."""
        if not isinstance(count, int) or count < 0:
            raise ValueError(f"count must be a whole number of 0 or more, not {count!r}.")
        if not isinstance(alpha, (int, float)) or not alpha >= 0 or math.isinf(alpha):
            raise ValueError(f"alpha must be a finite number of 0 or more, not {alpha!r}.")
        norm = normalize(text)
        edges = lattice_edges(norm, self.table, self.unk_score)
        fwd = forward(edges, alpha=alpha)
        rng = random.Random(seed)
        return [self._draw(norm, edges, fwd, alpha, rng) for _ in range(count)]

    def sample(self, text: str, *, alpha: float = 0.1, seed: int = 0) -> Segmentation:
        """One sampled segmentation (see `samples`)."""
        return self.samples(text, 1, alpha=alpha, seed=seed)[0]

    def _draw(self, norm, edges, fwd, alpha, rng) -> Segmentation:
        spans, score, j = [], 0.0, len(edges) - 1
        while j > 0:
            # the last piece before j is (i, j) with probability exp(alpha*s + fwd[i] - fwd[j])
            u, acc = rng.random(), 0.0
            for i, s, known in edges[j]:
                acc += math.exp(alpha * s + fwd[i] - fwd[j])
                if u < acc:
                    break
            spans.append((i, j, known))
            score += s
            j = i
        spans.reverse()
        return self._segmentation(norm, spans, score)

    # ---- saving

    def to_json(self) -> dict:
        """A JSON-ready dict: {"algorithm": "unigram", "pieces": [[piece, score], ...], ...}."""
        return {
            "algorithm": "unigram",
            "format_version": FORMAT_VERSION,
            "unk_id": self.unk_id,
            "unk_score": self.unk_score,
            "float32": self.float32,
            "pieces": [[p, s] for p, s in zip(self.pieces, self.scores)],
        }

    @classmethod
    def from_json(cls, data: dict | str, *, name: str = "the tokenizer") -> UnigramModel:
        """Read what `to_json` wrote (a dict, or its JSON text)."""
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{name} is not valid JSON ({exc.msg}, line {exc.lineno}).") from None
        if not isinstance(data, dict) or data.get("algorithm") != "unigram":
            raise ValueError(f'{name} is not a saved Unigram model: it needs "algorithm": "unigram".')
        pieces = data.get("pieces")
        if not isinstance(pieces, list) or not all(
            isinstance(row, list) and len(row) == 2 and isinstance(row[0], str)
            and isinstance(row[1], (int, float)) for row in pieces
        ):
            raise ValueError(f'{name}: "pieces" must be a list of [piece, score] pairs.')
        return cls(
            [p for p, _ in pieces],
            [s for _, s in pieces],
            unk_id=data.get("unk_id", 0),
            unk_score=data.get("unk_score"),
            float32=bool(data.get("float32", False)),
        )
