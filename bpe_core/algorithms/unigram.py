"""The Unigram language model tokenizer (Kudo 2018), SentencePiece style.

Encoding: the text is normalised the SentencePiece way (every space becomes `▁`, U+2581,
and one `▁` goes in front: the dummy prefix; nothing else is changed and there is no
pre-tokenizer), then the segmentation with the highest total score (the sum of the pieces'
log-probabilities) is found by Viterbi over the lattice of every piece that matches at
every position. `lattice()` exposes that lattice (each candidate, its score, its
posterior probability, the best path); `nbest()` lists the best few segmentations;
`sample()` draws segmentations with probability proportional to p(segmentation)^alpha
(subword regularisation, forward filtering and backward sampling, seeded).

Training (`train_unigram`): seed pieces from frequent substrings, EM re-estimation with
forward-backward expected counts and a digamma M-step, then pruning rounds that drop the
pieces whose removal costs the least likelihood, until the target size; one event per EM
iteration and per pruning round. `UnigramRun.model_at(k)` gives the model after event k.

Left out: other normalisation rules (NFKC, collapsing whitespace runs), byte fallback,
control and user-defined pieces, and the n-best sampling without replacement of
sentencepiece. A character the model does not have is scored `min score - 10` (as in
sentencepiece) and a run of them becomes one `<unk>` id, which decodes to " ⁇ ".
A `▁` typed in the text itself decodes as a space, as it does in sentencepiece.
"""
from __future__ import annotations

import json
import math
import random
import re
import unicodedata
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import TokenSpan, parse_word_counts

SPACE = "\u2581"
UNK_PIECE = "<unk>"
UNK_PENALTY = 10.0
UNK_SURFACE = " \u2047 "
FORMAT_VERSION = 1


# --------------------------------------------------------------------------- normalising


def normalize(text: str) -> str:
    """Spaces as `▁` and a `▁` in front (SentencePiece's identity rule, no collapsing).

    >>> normalize("Hello  world")
    '▁Hello▁▁world'
    >>> normalize("")
    ''
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    return SPACE + text.replace(" ", SPACE) if text else ""


def denormalize(pieces_text: str) -> str:
    """The inverse of `normalize`: `▁` back to spaces, the dummy prefix dropped.

    >>> denormalize("▁Hello▁▁world")
    'Hello  world'
    """
    out = pieces_text.replace(SPACE, " ")
    return out[1:] if out.startswith(" ") else out


# --------------------------------------------------------------------------- Viterbi


class PieceTable(Mapping):
    """A read-only mapping piece -> score that also knows every prefix of every piece,
    so a lattice can stop looking for longer matches as soon as none can exist.

    >>> t = PieceTable({"▁a": -1.0, "b": -2.0})
    >>> len(t), t["b"], t.max_length, t.is_prefix("▁")
    (2, -2.0, 2, True)
    """

    __slots__ = ("_scores", "_prefixes", "max_length")

    def __init__(self, scores: Mapping[str, float]):
        if not isinstance(scores, Mapping):
            raise TypeError(f"scores must be a mapping piece -> score, not {type(scores).__name__}")
        clean: dict[str, float] = {}
        for piece, score in scores.items():
            if not isinstance(piece, str) or not piece:
                raise ValueError(f"Piece {piece!r} is not a non-empty str; remove it from the scores.")
            value = float(score)
            if not math.isfinite(value):
                raise ValueError(f"Piece {piece!r} has score {score!r}; scores must be finite numbers.")
            clean[piece] = value
        self._scores = clean
        self._prefixes = {p[:k] for p in clean for k in range(1, len(p) + 1)}
        self.max_length = max(map(len, clean), default=0)

    def __getitem__(self, piece: str) -> float:
        return self._scores[piece]

    def __iter__(self) -> Iterator[str]:
        return iter(self._scores)

    def __len__(self) -> int:
        return len(self._scores)

    def is_prefix(self, text: str) -> bool:
        return text in self._prefixes


def _table(scores: Mapping[str, float]) -> PieceTable:
    return scores if isinstance(scores, PieceTable) else PieceTable(scores)


#: How far a float32 path score may grow before it is re-based (`viterbi`).
_REBASE = 1e5


def viterbi(
    normalized: str,
    scores: Mapping[str, float],
    unk_score: float,
    *,
    float32: bool = False,
) -> list[tuple[int, int, bool]]:
    """The best segmentation of an already normalised string, as (start, end, known) spans.

    `scores` maps each piece that may match to its score (log-probability); pass a
    `PieceTable` to reuse its prefix index across calls. A position where no
    one-character piece exists gets an unknown node of `unk_score` (one per character;
    `known` is False). Ties: for each end position the first candidate found wins, and
    candidates are found in order of their start, so the piece that starts earliest
    (the longest last piece) wins -- sentencepiece's optimised encoder does the same.
    With `float32=True` path scores are rounded to single precision after every
    addition, exactly as sentencepiece adds them, and re-based (the score where a piece
    starts subtracted from every score ahead) once past ±1e5, as sentencepiece 0.2.3
    does, so near-ties fall the same way.

    ▁a + b and ▁ + ab tie at -2.5; ab starts earlier than b, so ▁ + ab is kept:

    >>> viterbi("▁ab", {"▁": -1.0, "a": -1.0, "b": -1.0, "▁a": -1.5, "ab": -1.5}, -20.0)
    [(0, 1, True), (1, 3, True)]
    >>> viterbi("▁x", {"▁": -1.0}, -20.0)
    [(0, 1, True), (1, 2, False)]
    """
    return viterbi_from(normalized, scores, unk_score, float32=float32)[0]


def viterbi_from(
    normalized: str,
    scores: Mapping[str, float],
    unk_score: float,
    *,
    float32: bool = False,
    base: float = 0.0,
) -> tuple[list[tuple[int, int, bool]], float]:
    """`viterbi` on a stretch of text whose start already has the path score `base`
    (0 for a whole text): its spans and the path score at its end. A text cut where no
    piece can cross gives, stretch by stretch, what `viterbi` gives on the whole.

    >>> viterbi_from("ab", {"a": -1.0, "b": -1.0, "ab": -1.5}, -20.0, base=-3.0)
    ([(0, 2, True)], -4.5)
    """
    table = _table(scores)
    n = len(normalized)
    best = [base] + [-math.inf] * n    # -inf: nothing ends here yet, so the first candidate wins
    start_at = [0] * (n + 1)
    known_at = [True] * (n + 1)
    get, prefixes, longest = table._scores.get, table._prefixes, table.max_length
    box = array("f", [0.0]) if float32 else None
    for i in range(n):
        base = best[i]
        if box is not None and (base > _REBASE or base < -_REBASE):
            # sentencepiece 0.2.3 re-bases path scores past ±1e5 (float32 would lose the
            # digits that decide near-ties): every score from here on, minus this one
            for k in range(i, min(n, i + longest) + 1):
                if best[k] != -math.inf:
                    box[0] = best[k] - base
                    best[k] = box[0]
            base = best[i]
        # the one-character candidate, or an unknown node in its place
        score = get(normalized[i])
        cand = base + (unk_score if score is None else score)
        if box is not None:
            box[0] = cand
            cand = box[0]
        if cand > best[i + 1]:
            best[i + 1], start_at[i + 1], known_at[i + 1] = cand, i, score is not None
        if normalized[i] not in prefixes:
            continue
        for j in range(i + 2, min(n, i + longest) + 1):
            piece = normalized[i:j]
            if piece not in prefixes:
                break
            score = get(piece)
            if score is None:
                continue
            cand = base + score
            if box is not None:
                box[0] = cand
                cand = box[0]
            if cand > best[j]:
                best[j], start_at[j], known_at[j] = cand, i, True
    spans: list[tuple[int, int, bool]] = []
    end = n
    while end > 0:
        spans.append((start_at[end], end, known_at[end]))
        end = start_at[end]
    spans.reverse()
    return spans, best[n]


def merge_unknown(spans: Iterable[tuple[int, int, bool]]) -> list[tuple[int, int, bool]]:
    """Join each run of adjacent unknown spans into one (sentencepiece emits one <unk>).

    >>> merge_unknown([(0, 1, True), (1, 2, False), (2, 3, False), (3, 4, True)])
    [(0, 1, True), (1, 3, False), (3, 4, True)]
    """
    out: list[tuple[int, int, bool]] = []
    for start, end, known in spans:
        if not known and out and not out[-1][2] and out[-1][1] == start:
            out[-1] = (out[-1][0], end, False)
        else:
            out.append((start, end, known))
    return out


# --------------------------------------------------------------------------- the lattice


def lattice_edges(normalized: str, scores: Mapping[str, float], unk_score: float) -> list[list[tuple[int, float, bool]]]:
    """Every candidate, grouped by end: `edges[j]` lists (start, score, known) of each
    piece ending at position j, in order of start (`edges[0]` is empty).

    >>> lattice_edges("▁a", {"▁": -1.0, "▁a": -3.0}, -20.0)
    [[], [(0, -1.0, True)], [(0, -3.0, True), (1, -20.0, False)]]
    """
    table = _table(scores)
    n = len(normalized)
    edges: list[list[tuple[int, float, bool]]] = [[] for _ in range(n + 1)]
    get, prefixes, longest = table._scores.get, table._prefixes, table.max_length
    for i in range(n):
        single = False
        for j in range(i + 1, min(n, i + longest) + 1):
            piece = normalized[i:j]
            if piece not in prefixes:
                break
            score = get(piece)
            if score is not None:
                edges[j].append((i, score, True))
                single = single or j == i + 1
        if not single:
            edges[i + 1].append((i, unk_score, False))
    return edges


def _logsumexp(values: list[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def forward(edges: list[list[tuple[int, float, Any]]], *, alpha: float = 1.0) -> list[float]:
    """log of the summed exp(alpha * score) of every path from 0 to each position.
    `edges[j]` holds (start, score, anything) for each edge ending at j.

    >>> [round(x, 4) for x in forward([[], [(0, 0.0, True)], [(0, 0.0, True), (1, 0.0, True)]])]
    [0.0, 0.0, 0.6931]
    """
    fwd = [0.0] * len(edges)
    for j in range(1, len(edges)):
        fwd[j] = _logsumexp([fwd[i] + alpha * s for i, s, _ in edges[j]])
    return fwd


def backward(edges: list[list[tuple[int, float, Any]]], *, alpha: float = 1.0) -> list[float]:
    """log of the summed exp(alpha * score) of every path from each position to the end."""
    n = len(edges) - 1
    terms: list[list[float]] = [[] for _ in range(n + 1)]
    bwd = [0.0] * (n + 1)
    for j in range(n, 0, -1):
        if j < n:
            bwd[j] = _logsumexp(terms[j])
        for i, s, _ in edges[j]:
            terms[i].append(alpha * s + bwd[j])
    if n:
        bwd[0] = _logsumexp(terms[0])
    return bwd


@dataclass(frozen=True, slots=True)
class LatticeNode:
    """One candidate piece: positions in the normalised text, its id and score, and the
    posterior probability that a segmentation drawn from the model uses it."""

    start: int
    end: int
    piece: str
    id: int
    score: float
    known: bool
    marginal: float


@dataclass(frozen=True, slots=True)
class Lattice:
    """Every candidate piece of a text, the best path, and the log of the partition
    function (the log of the summed probability of every segmentation)."""

    text: str
    normalized: str
    nodes: tuple[LatticeNode, ...]     # by start, then end
    best_path: tuple[int, ...]         # indexes into nodes, left to right
    best_score: float
    log_partition: float

    @property
    def best_pieces(self) -> list[str]:
        return [self.nodes[k].piece for k in self.best_path]


def build_lattice(
    text: str,
    normalized: str,
    scores: Mapping[str, float],
    unk_score: float,
    id_of: Callable[[int, int, bool], int],
    *,
    float32: bool = False,
) -> Lattice:
    """The lattice of an already normalised string: every candidate (start, end) with
    its score, id (`id_of(start, end, known)`) and marginal, and the Viterbi path. Used by
    `UnigramModel.lattice` and by the readers of other libraries' Unigram files.

    >>> lat = build_lattice("ab", "ab", {"a": -1.0, "b": -1.0, "ab": -1.5}, -20.0, lambda i, j, k: j - i)
    >>> [(n.piece, n.id) for n in lat.nodes], lat.best_pieces
    ([('a', 1), ('ab', 2), ('b', 1)], ['ab'])
    """
    table = _table(scores)
    edges = lattice_edges(normalized, table, unk_score)
    fwd, bwd = forward(edges), backward(edges)
    log_z = fwd[-1] if normalized else 0.0
    nodes = sorted((i, j, s, known) for j in range(1, len(edges)) for i, s, known in edges[j])
    index = {(i, j): k for k, (i, j, _, _) in enumerate(nodes)}
    best = viterbi(normalized, table, unk_score, float32=float32)
    return Lattice(
        text=text,
        normalized=normalized,
        nodes=tuple(
            LatticeNode(i, j, normalized[i:j], id_of(i, j, known), s, known, math.exp(fwd[i] + s + bwd[j] - log_z))
            for i, j, s, known in nodes
        ),
        best_path=tuple(index[i, j] for i, j, _ in best),
        best_score=math.fsum(nodes[index[i, j]][2] for i, j, _ in best),
        log_partition=log_z,
    )


@dataclass(frozen=True, slots=True)
class Segmentation:
    """One segmentation of a text: pieces (runs of unknown characters joined), their
    ids, and the total score of its pieces (unknown characters scored one by one)."""

    pieces: tuple[str, ...]
    ids: tuple[int, ...]
    score: float


# --------------------------------------------------------------------------- the model


class UnigramModel:
    """Pieces with scores (log-probabilities); id = position in `pieces`.

    The piece at `unk_id` stands for unknown characters and is never matched in text.
    `unk_score` defaults to the lowest score minus 10, as in sentencepiece.

    >>> m = UnigramModel.from_scores({"▁": -2.0, "a": -2.0, "b": -2.0, "▁ab": -3.0})
    >>> m.encode_pieces("ab ba")
    ['▁ab', '▁', 'b', 'a']
    >>> m.decode(m.encode("ab ba"))
    'ab ba'
    """

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


# =========================================================================== training
#
# The steps follow sentencepiece's unigram trainer (Kudo 2018, section 3.2):
# 1. seed: every character, plus the substrings seen at least twice (not across a
#    word start), scored by frequency x length, as log-probabilities;
# 2. EM: expected piece counts by forward-backward over each distinct word, then a
#    Bayesian M-step (digamma), which drops pieces expected less than 0.5 times;
# 3. prune: keep the pieces whose removal would cost the most likelihood, a fraction
#    `shrinking_factor` of them per round; never a single character;
# 4. repeat 2-3 until at most 1.1 x the target remain; keep every character and the
#    best-scored pieces up to the target.


@dataclass(frozen=True, slots=True)
class UnigramSettings:
    """How to train. `vocab_size` counts `<unk>`; characters always stay in the vocabulary.

    `split_by_script` forbids a piece that mixes scripts (letters of two scripts, or a
    letter and a digit or punctuation mark), as sentencepiece does by default; the script
    of a character is read from its Unicode name, a close approximation of the Unicode
    Script property.
    """

    vocab_size: int = 8000
    max_piece_length: int = 16
    shrinking_factor: float = 0.75
    em_iterations: int = 2
    seed_size: int = 1_000_000
    split_by_script: bool = True

    def __post_init__(self) -> None:
        for name in ("vocab_size", "max_piece_length", "em_iterations", "seed_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a whole number of 1 or more, not {value!r}.")
        if not isinstance(self.shrinking_factor, (int, float)) or not 0 < self.shrinking_factor < 1:
            raise ValueError(f"shrinking_factor must be between 0 and 1 (exclusive), not {self.shrinking_factor!r}.")


def digamma(x: float) -> float:
    """The digamma function (derivative of log Gamma), for x > 0.

    >>> round(digamma(1.0), 9), round(digamma(0.5), 9), round(digamma(100.0), 9)
    (-0.577215665, -1.963510026, 4.600161853)
    """
    shift = 0.0
    while x < 6.0:  # psi(x) = psi(x + 1) - 1/x, until the series below is accurate
        shift -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    return shift + math.log(x) - 0.5 / x - series


_WORD = re.compile(f"[\r\n]|{SPACE}[^{SPACE}\r\n]*|[^{SPACE}\r\n]+")


def words_from_text(text: str) -> dict[str, int]:
    """The distinct words of a normalised text with their counts, in order of first
    appearance. A word starts at each `▁`; a line break is a word of its own, and the
    text after it starts a new word (no `▁` in front, as encoding will see it).

    >>> words_from_text("to be or\\nnot to be")
    {'▁to': 2, '▁be': 2, '▁or': 1, '\\n': 1, 'not': 1}
    """
    counts: dict[str, int] = {}
    for word in _WORD.findall(normalize(text)):
        counts[word] = counts.get(word, 0) + 1
    return counts


def words_from_word_counts(text: str) -> dict[str, int]:
    """Words from `word count` lines, each as it appears after a space (`▁` in front).

    >>> words_from_word_counts("hug 10\\npug 5\\nhug 2")
    {'▁hug': 12, '▁pug': 5}
    """
    counts: dict[str, int] = {}
    for word, count in parse_word_counts(text):
        key = SPACE + word
        counts[key] = counts.get(key, 0) + count
    return counts


def _script(ch: str) -> str:
    """A character's script, roughly: letters by the first word of their Unicode name,
    CJK ideographs and kana together as Han, marks inherit, all else (digits,
    punctuation, symbols) is Common.

    >>> [_script(c) for c in "aя.7\\u0301中カ"]
    ['LATIN', 'CYRILLIC', 'Common', 'Common', 'Inherited', 'Han', 'Han']
    """
    category = unicodedata.category(ch)
    if category[0] == "M":
        return "Inherited"
    if category[0] != "L" and ch != "\u30fc":
        return "Common"
    first = unicodedata.name(ch, "?").split(" ", 1)[0]
    if first in ("CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "IDEOGRAPHIC"):
        return "Han"
    return first


class _ScriptCheck:
    """Which substrings a piece may be: `▁` only in front, at most `max_length`
    characters, and (optionally) one script, as sentencepiece's IsValidSentencePiece."""

    def __init__(self, settings: UnigramSettings):
        self.max_length = settings.max_piece_length
        self.by_script = settings.split_by_script
        self._cache: dict[str, str] = {}

    def longest_valid(self, word: str, start: int) -> int:
        """The end of the longest valid piece of `word` starting at `start`; every
        shorter piece starting there is valid too."""
        prev = None
        stop = min(len(word), start + self.max_length)
        for j in range(start, stop):
            ch = word[j]
            if ch == SPACE:
                if j > start:
                    return j
                continue
            if ch in "\r\n" and j > start:
                return j
            script = self._cache.get(ch)
            if script is None:
                script = self._cache[ch] = _script(ch)
            if script == "Inherited":
                script = prev
            if self.by_script and script is not None and prev is not None and script != prev:
                return j
            prev = script
        return stop


def seed_pieces(words: Mapping[str, int], settings: UnigramSettings) -> list[tuple[str, float]]:
    """The seed vocabulary with log-probabilities: every character (scored by its count)
    and the best `seed_size` substrings of 2+ characters (scored by count x length)
    that occur at least twice and are not always followed by the same character (the
    substrings a suffix tree has a node for: sentencepiece takes its seeds from one).

    ▁a is always followed by b here, so it is not a seed; ▁ab and ab are (3 x 3, 3 x 2):

    >>> [(p, round(s, 3)) for p, s in seed_pieces({"▁ab": 2, "▁abc": 1}, UnigramSettings())]
    [('a', -2.12), ('b', -2.12), ('▁', -2.12), ('c', -3.219), ('▁ab', -1.022), ('ab', -1.427)]
    """
    check = _ScriptCheck(settings)
    chars: dict[str, int] = {}
    freq: dict[str, int] = {}
    follow: dict[str, str] = {}  # the one next character, or "" once there are several
    for word, count in words.items():
        for ch in word:
            chars[ch] = chars.get(ch, 0) + count
        n = len(word)
        for i in range(n - 1):
            for j in range(i + 2, check.longest_valid(word, i) + 1):
                piece = word[i:j]
                freq[piece] = freq.get(piece, 0) + count
                nxt = word[j] if j < n else ""  # a word end counts as several characters
                seen = follow.get(piece)
                if seen is None:
                    follow[piece] = nxt
                elif seen != nxt:
                    follow[piece] = ""
    scored = [(p, f * len(p)) for p, f in freq.items() if f >= 2 and follow[p] == ""]
    scored.sort(key=lambda ps: (-ps[1], ps[0]))
    seeds = sorted(chars.items(), key=lambda cs: (-cs[1], cs[0])) + scored[: settings.seed_size]
    log_total = math.log(sum(s for _, s in seeds))
    return [(p, math.log(s) - log_total) for p, s in seeds]


@dataclass(frozen=True, slots=True)
class UnigramEvent:
    """One step of training. Figures are for the vocabulary the step leaves.

    kind: "seed" (the seed vocabulary), "em" (one EM iteration), "prune" (one pruning
    round) or "final" (every character plus the best-scored pieces, to the target size).
    round: 0 for the seed; round r holds its EM iterations, then its pruning.
    iteration: the EM iteration within the round (1, 2, ...); 0 for other kinds.
    vocab_size: pieces plus `<unk>`.
    log_likelihood: sum over the training words of count x log(sum over segmentations
    of exp(total score)); after the digamma M-step the scores sum to a little under 1.
    tokens: the training words' length in tokens under Viterbi segmentation.
    removed: the pieces this step took out, and removed_values the number that decided
    it, named by `value_name`: the expected count (under 0.5) for "em", the approximate
    loss in log-likelihood for "prune" (0.0 for a piece no best path used), the score
    for "final". Sorted by that value, then by piece.
    """

    kind: str
    round: int
    iteration: int
    vocab_size: int
    log_likelihood: float
    tokens: int
    removed: tuple[str, ...] = ()
    removed_values: tuple[float, ...] = ()

    @property
    def value_name(self) -> str:
        return {"em": "expected count", "prune": "loss", "final": "score"}.get(self.kind, "")


class _Trainer:
    """The state of one training run. Pieces are named by their index in the seed list
    (`g`); `alive` lists the live ones. Each distinct word keeps its lattice as one flat
    list of edges (start, end, g), sorted by end, then start."""

    def __init__(self, words: Mapping[str, int], settings: UnigramSettings):
        _check_words(words)
        self.settings = settings
        self.words = list(words)
        self.counts = [words[w] for w in self.words]
        seeds = seed_pieces(words, settings)
        self.seed_list = tuple(p for p, _ in seeds)
        self.char_counts = {p: 0 for p in self.seed_list if len(p) == 1}
        for word, count in words.items():
            for ch in word:
                self.char_counts[ch] += count
        self.alive = list(range(len(seeds)))
        self.scores = [s for _, s in seeds]      # by g; a dead piece keeps its last score
        self.lost = [False] * len(seeds)         # a character the M-step found under 0.5
        self.lattices = self._build_lattices()

    def piece(self, g: int) -> str:
        return self.seed_list[g]

    def is_char(self, g: int) -> bool:
        return len(self.seed_list[g]) == 1

    def _build_lattices(self) -> list[list[tuple[int, int, int]]]:
        ids = {p: g for g, p in enumerate(self.seed_list)}
        prefixes = {p[:m] for p in ids for m in range(1, len(p) + 1)}
        longest = max(map(len, ids))
        out = []
        for word in self.words:
            n = len(word)
            edges = []
            for i in range(n):
                for j in range(i + 1, min(n, i + longest) + 1):
                    sub = word[i:j]
                    if sub not in prefixes:
                        break
                    g = ids.get(sub)
                    if g is not None:
                        edges.append((i, j, g))
            edges.sort(key=lambda e: (e[1], e[0]))
            out.append(edges)
        return out

    def keep(self, keep: list[int]) -> None:
        """Keep only the pieces `keep` (seed indexes)."""
        if len(keep) == len(self.alive):
            return
        live = bytearray(len(self.seed_list))
        for g in keep:
            live[g] = 1
        self.alive = sorted(keep)
        self.lattices = [[e for e in edges if live[e[2]]] for edges in self.lattices]

    # ---- E step

    def e_step(self, *, expectations: bool, viterbi_counts: list[float] | None = None) -> tuple[list[float], float, int]:
        """Expected count of each piece (if asked), log-likelihood, Viterbi tokens; adds
        each piece's uses on the best paths to `viterbi_counts` when given."""
        scores = self.scores
        probs = [math.exp(s) for s in scores]
        expected = [0.0] * len(scores)
        log_likelihood, tokens = 0.0, 0
        for edges, count in zip(self.lattices, self.counts):
            n = edges[-1][1]
            a, best, back = [1.0] + [0.0] * n, [0.0] + [-math.inf] * n, [0] * (n + 1)
            for i, j, g in edges:  # by end: a[i] and best[i] are final when read
                a[j] += a[i] * probs[g]
                v = best[i] + scores[g]
                if v > best[j]:
                    best[j], back[j] = v, i
            j = n
            while j > 0:
                tokens += count
                j = back[j]
            if viterbi_counts is not None:
                self._count_path(edges, back, count, viterbi_counts)
            z = a[n]
            if not z > 1e-250:  # a long or improbable word: redo it in log space
                log_likelihood += count * _word_expectations_log(edges, scores, count, expected if expectations else None)
                continue
            log_likelihood += count * math.log(z)
            if expectations:
                b = [0.0] * n + [1.0]
                scale = count / z
                for i, j, g in reversed(edges):  # by end, descending: b[j] is final when read
                    w = probs[g] * b[j]
                    b[i] += w
                    expected[g] += a[i] * w * scale
        return expected, log_likelihood, tokens

    @staticmethod
    def _count_path(edges, back, count, counts) -> None:
        on_path = set()
        j = len(back) - 1
        while j > 0:
            on_path.add((back[j], j))
            j = back[j]
        for i, j, g in edges:
            if (i, j) in on_path:
                counts[g] += count

    # ---- M step

    def m_step(self, expected: list[float]) -> list[tuple[str, float]]:
        """Digamma re-estimation; drop pieces expected under 0.5 times (a character
        stays, scored like sentencepiece's unknown: 10 below the lowest score)."""
        keep = [g for g in self.alive if expected[g] >= 0.5 or self.is_char(g)]
        log_total = digamma(math.fsum(expected[g] for g in keep if expected[g] >= 0.5))
        for g in keep:
            self.lost[g] = expected[g] < 0.5
            if not self.lost[g]:
                self.scores[g] = digamma(expected[g]) - log_total
        floor = min(self.scores[g] for g in keep if not self.lost[g]) - UNK_PENALTY
        for g in keep:
            if self.lost[g]:
                self.scores[g] = floor
        kept = set(keep)
        dropped = [(self.piece(g), expected[g]) for g in self.alive if g not in kept]
        self.keep(keep)
        return dropped

    # ---- pruning

    def alternative(self, g: int, ids: dict[str, int], prefixes: set[str]) -> list[int] | None:
        """The best segmentation of piece g into two or more pieces, or None when its
        best segmentation is not the piece itself (it is then never on a best path)."""
        piece, scores = self.piece(g), self.scores
        n = len(piece)
        best, back, via = [0.0] + [-math.inf] * n, [0] * (n + 1), [0] * (n + 1)
        for i in range(n):
            for j in range(i + 1, n + 1):
                sub = piece[i:j]
                if sub not in prefixes:
                    break
                m = ids.get(sub)
                if m is None or (i == 0 and j == n):
                    continue
                v = best[i] + scores[m]
                if v > best[j]:
                    best[j], back[j], via[j] = v, i, m
        if best[n] > scores[g]:
            return None
        out, j = [], n
        while j > 0:
            out.append(via[j])
            j = back[j]
        return out

    def prune(self, desired: int, freq: list[float]) -> list[tuple[str, float]]:
        """Keep every character and the pieces with the largest loss, down to
        max(desired, shrinking_factor x size). Returns (piece, loss) of those removed.

        The loss of removing piece x is approximated as in sentencepiece: every best-path
        use of x is replaced by x's own best split, whose pieces gain x's count.
        `freq` is each piece's count on the best paths (from `e_step`)."""
        total = math.fsum(freq)
        log_total = math.log(total)
        all_words = sum(self.counts)
        ids = {self.piece(g): g for g in self.alive}
        prefixes = {p[:m] for p in ids for m in range(1, len(p) + 1)}
        chars, candidates, removed = [], [], []
        for g in self.alive:
            if self.is_char(g):
                chars.append(g)
                continue
            alt = self.alternative(g, ids, prefixes) if freq[g] > 0 else None
            if alt is None:
                removed.append((self.piece(g), 0.0))
                continue
            f = freq[g]
            log_total_alt = math.log(total + f * (len(alt) - 1))
            log_p_alt = math.fsum(math.log(freq[m] + f) - log_total_alt for m in alt)
            loss = f / all_words * (math.log(f) - log_total - log_p_alt)
            candidates.append((loss, g))
        candidates.sort(key=lambda lg: (-lg[0], self.piece(lg[1])))
        size = max(desired, int(self.settings.shrinking_factor * len(self.alive)))
        room = max(size - len(chars), 0)
        removed += [(self.piece(g), loss) for loss, g in candidates[room:]]
        self.keep(chars + [g for _, g in candidates[:room]])
        return removed

    # ---- the end

    def finalize(self, vocab_size: int) -> list[tuple[str, float]]:
        """Every character (one the M-step lost gets the lowest score plus a small step,
        commoner characters first) and the best-scored pieces up to vocab_size - 1."""
        floor = min(self.scores[g] for g in self.alive if not self.lost[g])
        seed_index = {p: g for g, p in enumerate(self.seed_list)}
        chars = [seed_index[c] for c in sorted(self.char_counts, key=lambda c: (-self.char_counts[c], c))]
        step = 0.0
        for g in chars:
            if self.lost[g]:
                self.scores[g], self.lost[g] = floor + step, False
                step += 0.0001
        char_set = set(chars)
        others = sorted((g for g in self.alive if g not in char_set), key=lambda g: (-self.scores[g], self.piece(g)))
        room = vocab_size - 1 - len(chars)
        removed = [(self.piece(g), self.scores[g]) for g in others[room:]]
        self.keep(chars + others[:room])
        return removed

    def snapshot(self) -> tuple[array, array]:
        return array("i", self.alive), array("d", [self.scores[g] for g in self.alive])


def _word_expectations_log(edges, scores, count, expected) -> float:
    """Forward-backward in log space for one word; adds count x marginals to
    `expected` (when given) and returns the word's log-likelihood."""
    by_end: list[list[tuple[int, float, int]]] = [[] for _ in range(edges[-1][1] + 1)]
    for i, j, g in edges:
        by_end[j].append((i, scores[g], g))
    fwd = forward(by_end)
    if expected is not None:
        bwd = backward(by_end)
        for j in range(1, len(by_end)):
            for i, s, g in by_end[j]:
                expected[g] += count * math.exp(fwd[i] + s + bwd[j] - fwd[-1])
    return fwd[-1]


def _check_words(words: Mapping[str, int]) -> None:
    if not isinstance(words, Mapping):
        raise TypeError(f"words must be a mapping word -> count, not {type(words).__name__}; "
                        "use words_from_text or words_from_word_counts.")
    if not words:
        raise ValueError("The training corpus is empty; give some text.")
    for word, count in words.items():
        if not isinstance(word, str) or not word:
            raise ValueError(f"Word {word!r} is not a non-empty str.")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ValueError(f"Word {word!r} has count {count!r}; counts must be whole numbers of 1 or more.")


def _steps(trainer: _Trainer) -> Iterator[tuple[UnigramEvent, tuple[array, array]]]:
    settings = trainer.settings
    need = len(trainer.char_counts) + 1
    if settings.vocab_size < need:
        raise ValueError(f"vocab_size {settings.vocab_size} is below the {need - 1} characters of the corpus "
                         f"plus <unk>; give a vocab_size of at least {need}.")
    expected, ll, tokens = trainer.e_step(expectations=True)
    yield (UnigramEvent("seed", 0, 0, len(trainer.alive) + 1, ll, tokens), trainer.snapshot())
    desired = int(settings.vocab_size * 1.1)
    rnd = 1
    while True:
        for it in range(1, settings.em_iterations + 1):
            dropped = _by_value(trainer.m_step(expected))
            last = it == settings.em_iterations
            freq: list[float] | None = [0.0] * len(trainer.scores) if last else None
            expected, ll, tokens = trainer.e_step(expectations=not last, viterbi_counts=freq)
            yield (UnigramEvent("em", rnd, it, len(trainer.alive) + 1, ll, tokens, *dropped), trainer.snapshot())
        if len(trainer.alive) <= desired:
            break
        assert freq is not None  # the last EM iteration counted the Viterbi pieces
        removed = _by_value(trainer.prune(desired, freq))
        expected, ll, tokens = trainer.e_step(expectations=True)  # for the event and the next M step
        yield (UnigramEvent("prune", rnd, 0, len(trainer.alive) + 1, ll, tokens, *removed), trainer.snapshot())
        if not removed[0]:
            break  # nothing left that may go (only characters, or only pieces in use)
        rnd += 1
    removed = _by_value(trainer.finalize(settings.vocab_size))
    _, ll, tokens = trainer.e_step(expectations=False)
    yield (UnigramEvent("final", rnd, 0, len(trainer.alive) + 1, ll, tokens, *removed), trainer.snapshot())


def _by_value(pairs: list[tuple[str, float]]) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """(pieces, values) sorted by value, then piece.

    >>> _by_value([("b", 1.0), ("a", 1.0), ("c", 0.5)])
    (('c', 'a', 'b'), (0.5, 1.0, 1.0))
    """
    pairs = sorted(pairs, key=lambda pv: (pv[1], pv[0]))
    return tuple(p for p, _ in pairs), tuple(v for _, v in pairs)


@dataclass(frozen=True)
class UnigramRun:
    """A finished training run: its events, and the model after any of them."""

    settings: UnigramSettings
    events: tuple[UnigramEvent, ...]
    seed_list: tuple[str, ...]
    snapshots: tuple[tuple[array, array], ...]

    def model_at(self, index: int) -> UnigramModel:
        """The model after event `index` (0 is the seed vocabulary, -1 the final)."""
        alive, scores = self.snapshots[index]
        return UnigramModel.from_scores({self.seed_list[g]: s for g, s in zip(alive, scores)})

    def model(self) -> UnigramModel:
        return self.model_at(-1)


def train_unigram(words: Mapping[str, int], settings: UnigramSettings | None = None) -> UnigramRun:
    """Train a Unigram model on words with counts (`words_from_text`, `words_from_word_counts`).

    Deterministic: the same words (in the same order) and settings give the same run.
    A corpus too small for the target can end below it, because the M-step drops every
    piece expected under 0.5 times and nothing brings it back.

    >>> run = train_unigram(words_from_text("hug pug pun bun hugs " * 3), UnigramSettings(vocab_size=12))
    >>> [ev.kind for ev in run.events][:3], run.events[-1].vocab_size
    (['seed', 'em', 'em'], 12)
    """
    settings = settings or UnigramSettings()
    trainer = _Trainer(words, settings)
    events, snapshots = [], []
    for event, snap in _steps(trainer):
        events.append(event)
        snapshots.append(snap)
    return UnigramRun(settings, tuple(events), trainer.seed_list, tuple(snapshots))


# --------------------------------------------------------------------------- display helpers


def event_to_json(event: UnigramEvent) -> dict:
    """A JSON-ready dict of one event (removed pieces as [piece, value] pairs)."""
    return {
        "kind": event.kind,
        "round": event.round,
        "iteration": event.iteration,
        "vocab_size": event.vocab_size,
        "log_likelihood": event.log_likelihood,
        "tokens": event.tokens,
        "removed": [[p, v] for p, v in zip(event.removed, event.removed_values)],
    }


def event_line(event: UnigramEvent, *, shown: int = 5) -> str:
    """One readable line per event, naming the first few pieces removed.

    >>> event_line(UnigramEvent("prune", 2, 0, 1651, -172252.4, 28548, ("▁xy", "ab"), (0.0, 1.5)))
    'round  2 prune   : vocab  1,651  log-likelihood -172,252.4  tokens 28,548  removed 2 (loss: ▁xy 0, ab 1.5)'
    """
    step = {"em": f"EM {event.iteration}", "prune": "prune", "final": "final", "seed": "seed"}[event.kind]
    line = (f"round {event.round:>2} {step:<8}: vocab {event.vocab_size:>6,}  "
            f"log-likelihood {event.log_likelihood:,.1f}  tokens {event.tokens:,}")
    if event.removed:
        names = ", ".join(f"{p} {v:.3g}" for p, v in zip(event.removed[:shown], event.removed_values))
        more = " ..." if len(event.removed) > shown else ""
        line += f"  removed {len(event.removed):,} ({event.value_name}: {names}{more})"
    return line
