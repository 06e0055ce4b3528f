"""WordPiece's training settings: what to train and when to stop, and the tie rules it can
follow (`TIE_KEY_KINDS`: the kinds of `TieRule.key` the trainer knows how to order)."""
from __future__ import annotations

from dataclasses import dataclass

from bpe_core.tie_rules import tie_rule

__all__ = ["BERT_SPECIAL_TOKENS", "TIE_KEY_KINDS", "WordPieceSettings"]

#: BERT's special tokens, in the order BERT's vocabulary (and the course) lists them.
BERT_SPECIAL_TOKENS: tuple[str, ...] = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")

#: The kinds of tie-rule key (`TieRule.key`) `WordPieceTrainer._tie_key` can order.
TIE_KEY_KINDS: tuple[str, ...] = ("ids", "texts", "first-seen")


@dataclass(frozen=True)
class WordPieceSettings:
    """What to train and when to stop.

    - tie_break: the name of a rule in `TIE_RULES` (see the module doc);
    - merges: how many merges at most (None: no limit); vocab_size: stop once the
      vocabulary (special tokens included) has this many tokens (None: no target);
    - special_tokens: the first ids of the vocabulary; unk_token is added in front of
      them if they do not name it (the encoder needs it);
    - prefix: the continuation prefix ("##");
    - top_n: how many rows of the score table each event keeps.
    """

    tie_break: str = "first-seen"
    merges: int | None = 10
    vocab_size: int | None = None
    special_tokens: tuple[str, ...] = BERT_SPECIAL_TOKENS
    unk_token: str = "[UNK]"
    prefix: str = "##"
    top_n: int = 20

    def __post_init__(self) -> None:
        rule = tie_rule(self.tie_break)
        if rule.key not in TIE_KEY_KINDS:
            raise ValueError(
                f"WordPiece cannot break ties by tie rule {rule.name!r}: it orders pairs by "
                f"{', '.join(TIE_KEY_KINDS)} keys, not {rule.key!r}. Choose another tie rule, "
                "or teach `WordPieceTrainer._tie_key` that kind of key."
            )
        for what, value, minimum in (("merges", self.merges, 0), ("vocabulary size", self.vocab_size, 1)):
            if value is not None:
                check_whole(what, value, minimum)
        check_whole("top N", self.top_n, 0)
        if isinstance(self.special_tokens, str) or not all(isinstance(t, str) and t for t in self.special_tokens):
            raise TypeError("special_tokens must be a tuple of non-empty strings, e.g. ('[PAD]', '[UNK]').")
        if len(set(self.special_tokens)) != len(self.special_tokens):
            raise ValueError(f"special_tokens lists a token twice: {self.special_tokens!r}. List each once.")
        if not isinstance(self.unk_token, str) or not self.unk_token:
            raise ValueError("The unknown token is empty. Use '[UNK]' (BERT's) or another non-empty string.")
        if not isinstance(self.prefix, str) or not self.prefix:
            raise ValueError("The continuation prefix is empty. Use '##' (BERT's) or another non-empty string.")

    @property
    def vocab_specials(self) -> tuple[str, ...]:
        """The special tokens the vocabulary starts with (the unknown token included)."""
        if self.unk_token in self.special_tokens:
            return tuple(self.special_tokens)
        return (self.unk_token, *self.special_tokens)


def check_whole(what: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"The {what} must be a whole number, not {value!r}. Enter a number like 10.")
    if value < minimum:
        raise ValueError(f"The {what} must be at least {minimum}, not {value}.")
