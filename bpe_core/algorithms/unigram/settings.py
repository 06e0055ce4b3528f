"""How to train a Unigram model (`UnigramSettings`)."""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["UnigramSettings"]


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
