"""How Unigram shows its work on a text: the lattice of every candidate piece
(`lattice_edges`, `build_lattice`), forward-backward over it (each candidate's posterior
probability, the partition function), and `Segmentation`, one way to cut a text."""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .viterbi import as_table, viterbi

__all__ = ["lattice_edges", "forward", "backward", "LatticeNode", "Lattice", "build_lattice", "Segmentation"]


def lattice_edges(normalized: str, scores: Mapping[str, float], unk_score: float) -> list[list[tuple[int, float, bool]]]:
    """Every candidate, grouped by end: `edges[j]` lists (start, score, known) of each
    piece ending at position j, in order of start (`edges[0]` is empty).

    >>> lattice_edges("▁a", {"▁": -1.0, "▁a": -3.0}, -20.0)
    [[], [(0, -1.0, True)], [(0, -3.0, True), (1, -20.0, False)]]
    """
    table = as_table(scores)
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
    table = as_table(scores)
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
