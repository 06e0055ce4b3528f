"""What one step of Unigram training records (`UnigramEvent`), and how the command line
writes it (`event_to_json`, `event_line`)."""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["UnigramEvent", "event_to_json", "event_line"]


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
