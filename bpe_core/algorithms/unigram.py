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
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from .. import TokenSpan

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
    addition, exactly as sentencepiece adds them, so near-ties fall the same way.

    >>> viterbi("▁ab", {"▁": -1.0, "a": -1.0, "b": -1.0, "▁a": -1.5, "ab": -1.5}, -20.0)
    [(0, 1, True), (1, 3, True)]
    >>> # ▁a + b and ▁ + ab tie at -2.5: ab starts earlier, so it is kept
    >>> viterbi("▁x", {"▁": -1.0}, -20.0)
    [(0, 1, True), (1, 2, False)]
    """
    table = _table(scores)
    n = len(normalized)
    best = [0.0] * (n + 1)
    start_at = [-1] * (n + 1)
    known_at = [True] * (n + 1)
    get, prefixes, longest = table._scores.get, table._prefixes, table.max_length
    box = array("f", [0.0]) if float32 else None
    for i in range(n):
        base = best[i]
        single = False
        for j in range(i + 1, min(n, i + longest) + 1):
            piece = normalized[i:j]
            if piece not in prefixes:
                break
            score = get(piece)
            if score is None:
                continue
            single = single or j == i + 1
            cand = base + score
            if box is not None:
                box[0] = cand
                cand = box[0]
            if start_at[j] < 0 or cand > best[j]:
                best[j], start_at[j], known_at[j] = cand, i, True
        if not single:
            cand = base + unk_score
            if box is not None:
                box[0] = cand
                cand = box[0]
            if start_at[i + 1] < 0 or cand > best[i + 1]:
                best[i + 1], start_at[i + 1], known_at[i + 1] = cand, i, False
    spans: list[tuple[int, int, bool]] = []
    end = n
    while end > 0:
        spans.append((start_at[end], end, known_at[end]))
        end = start_at[end]
    spans.reverse()
    return spans


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


def forward(edges: list[list[tuple[int, float, bool]]], *, alpha: float = 1.0) -> list[float]:
    """log of the summed exp(alpha * score) of every path from 0 to each position.

    >>> [round(x, 4) for x in forward([[], [(0, 0.0, True)], [(0, 0.0, True), (1, 0.0, True)]])]
    [0.0, 0.0, 0.6931]
    """
    fwd = [0.0] * len(edges)
    for j in range(1, len(edges)):
        fwd[j] = _logsumexp([fwd[i] + alpha * s for i, s, _ in edges[j]])
    return fwd


def backward(edges: list[list[tuple[int, float, bool]]], *, alpha: float = 1.0) -> list[float]:
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

    def nodes_starting_at(self, start: int) -> list[LatticeNode]:
        return [node for node in self.nodes if node.start == start]


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

    def encode(self, text: str) -> list[int]:
        """Token ids of the best segmentation."""
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

    def token_spans(self, text: str) -> list[TokenSpan]:
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
        edges = lattice_edges(norm, self.table, self.unk_score)
        fwd, bwd = forward(edges), backward(edges)
        log_z = fwd[-1] if norm else 0.0
        nodes = sorted(
            (i, j, s, known) for j in range(1, len(edges)) for i, s, known in edges[j]
        )
        index = {(i, j): k for k, (i, j, _, _) in enumerate(nodes)}
        best = viterbi(norm, self.table, self.unk_score, float32=self.float32)
        return Lattice(
            text=text,
            normalized=norm,
            nodes=tuple(
                LatticeNode(i, j, norm[i:j], self._id(norm, i, j, known), s, known,
                            math.exp(fwd[i] + s + bwd[j] - log_z))
                for i, j, s, known in nodes
            ),
            best_path=tuple(index[i, j] for i, j, _ in best),
            best_score=math.fsum(nodes[index[i, j]][2] for i, j, _ in best),
            log_partition=log_z,
        )

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
