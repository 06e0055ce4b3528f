"""Tie rules: which pair merges when several share the top count.

Every rule orders pairs by a key and takes the smallest (or, with `largest_first`, the
largest). The key is one of three kinds, and the trainer keeps each kind incrementally:

- "ids": the pair of token ids itself (base symbols are numbered in code-point order of
  their displayed form, merged tokens in creation order);
- "texts": the pair of displayed strings;
- "first-seen": where the pair first occurs, reading the words in order of first
  appearance, each left to right (the only key a merge can move; the trainer re-keys the
  pairs next to a merged position).

A new rule is one `TieRule` in `RULES` (plus its tests: the naive trainer in
tests/naive_bpe.py orders pairs by the same rule, and the property tests compare every
event). Its name is then accepted everywhere a tie rule is chosen: the trainer, the
command line's --tie-break, the Train page's radio and its links.

>>> "first-seen" in TIE_RULES
True
>>> tie_rule("lexicographic").largest_first
True
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TieRule", "RULES", "TIE_RULES", "KEY_KINDS", "tie_rule"]

KEY_KINDS = ("ids", "texts", "first-seen")


@dataclass(frozen=True)
class TieRule:
    """One tie rule: its name, what it orders pairs by, and the words that explain it.

    - explanation: the rule and who uses it (a tooltip, the command line's help);
    - caption: a short line under the Train page's choice;
    - reason: how a sentence ends that says why the winner won ("because ...").
    """

    name: str
    key: str
    largest_first: bool
    explanation: str
    caption: str
    reason: str

    def __post_init__(self) -> None:
        if self.key not in KEY_KINDS:
            raise ValueError(f"Unknown tie-rule key {self.key!r}. Choose one of: {', '.join(KEY_KINDS)}.")


RULES: tuple[TieRule, ...] = (
    TieRule(
        "first-seen", "first-seen", False,
        "the pair that occurs first when the words are read in order of first appearance, "
        "each left to right (Sennrich's Algorithm 1, minbpe, the HF course)",
        "the pair seen first, reading the words in order (Sennrich, minbpe)",
        "because it occurs first",
    ),
    TieRule(
        "lexicographic", "texts", True,
        "the largest pair as a tuple of strings (subword-nmt)",
        "the largest pair as strings (subword-nmt)",
        "because it is the largest pair as strings",
    ),
    TieRule(
        "smallest-id", "ids", False,
        "the pair with the smallest ids, base symbols numbered in code-point order "
        "(Hugging Face tokenizers' BpeTrainer)",
        "the pair with the smallest ids (Hugging Face tokenizers)",
        "because it has the smallest ids",
    ),
)

#: The rules' names, in the order pages list them; `tie_rule(name)` gives the rule.
#: Readers look both up when they run (not at import), so a rule added here reaches them.
TIE_RULES: tuple[str, ...] = tuple(r.name for r in RULES)


def tie_rule(name: object) -> TieRule:
    """The rule of that name, or a ValueError naming the choices."""
    rule = next((r for r in RULES if r.name == name), None) if isinstance(name, str) else None
    if rule is None:
        raise ValueError(f"Unknown tie rule {name!r}. Choose one of: {', '.join(TIE_RULES)}.")
    return rule
