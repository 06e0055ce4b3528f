"""What every tokenizer and every training run offers, as `typing.Protocol`s.

Five classes tokenize text: our `Tokenizer` (BPE with a merge list or a rank table),
`WordPieceTokenizer`, `UnigramModel`, `SentencePieceTokenizer` (`.model` files) and
`PipelineTokenizer` (tokenizer.json and other libraries' files). Each is a
`TextTokenizer`; a page that takes "any tokenizer" types it so and asks the contract, not
the class, and mypy checks that each class keeps these calls. What most of them answer the
same way (no notes on their file, no end-of-word marker) is a default in
`TokenizerDefaults`, their one base class. A file's tokenizer that can show how its model
builds one word is also a `ShowsModelWork`. BPE's `TrainingRun` and `WordPieceRun` are
`MergeRun`s (their step methods come from one base, `train.steps.MergeSteps`).

>>> from bpe_core import WordTable, TrainerSettings, train
>>> run = train(WordTable.from_word_counts("hug 10\\npug 5"), TrainerSettings(merges=2))
>>> isinstance(run, MergeRun), isinstance(run.tokenizer(1), TextTokenizer)
(True, True)
>>> tok = train(WordTable.from_word_counts("hug 10\\npug 5"),
...             TrainerSettings(merges=2, end_of_word="attached")).tokenizer(2)
>>> tok.kind_label, [tok.token_text(i) for i in tok.encode("hug")], tok.marker_of(tok.encode("hug")[0]), tok.notes
('BPE', ['hug</w>'], '</w>', ())
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Collection, Iterable, Literal, Protocol, Sequence, runtime_checkable

if TYPE_CHECKING:  # annotations only: every tokenizer module imports this one
    from .encode.tokenizer import TokenSpan
    from .model_work import ModelWord, ModelWork

__all__ = ["TextTokenizer", "TokenizerDefaults", "ShowsModelWork", "MergeRun"]


class TokenizerDefaults:
    """The base of every tokenizer class: what a tokenizer says of itself unless its class
    says otherwise (`TextTokenizer`'s descriptive members)."""

    #: What its file asks for that encoding here leaves out (a page shows them beside it).
    notes: tuple[str, ...] = ()
    #: What its file holds that the file's own library accepts silently (shared or missing ids).
    warnings: tuple[str, ...] = ()
    #: The end-of-word marker its tokens may carry ("</w>"), "" when they carry none.
    marker: str = ""

    def marker_of(self, token_id: int) -> str:
        """The end-of-word marker the token carries, "" when it carries none."""
        return ""


@runtime_checkable
class TextTokenizer(Protocol):
    """Text to ids and back, with each token's place in the text (for drawing), and what
    a page says of it: a short name for its kind (`kind_label`: "BPE", "WordPiece",
    "Unigram", "SentencePiece", "tokenizer.json, BPE"), its file's notes and warnings, and
    the end-of-word marker of its tokens (defaults in `TokenizerDefaults`)."""

    notes: tuple[str, ...]
    warnings: tuple[str, ...]
    marker: str

    @property
    def kind_label(self) -> str: ...

    @property
    def vocab_size(self) -> int: ...

    def encode(self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()) -> list[int]: ...

    def decode(self, ids: Iterable[int]) -> str: ...

    def token_spans(self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()) -> Sequence[TokenSpan]: ...

    def marker_of(self, token_id: int) -> str: ...


@runtime_checkable
class ShowsModelWork(Protocol):
    """A tokenizer whose model shows its work on one word (`work`: a replay, trace or
    lattice, or None when this model cannot) on the words it receives (`model_words`;
    `word_of` the one a token of the text came from). `byte_level`: those words are in
    GPT-2's byte form (`Ġhi` stands for the bytes of " hi")."""

    byte_level: bool

    @property
    def work(self) -> ModelWork | None: ...

    def model_words(self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()) -> list[ModelWord]: ...

    def word_of(self, text: str, span: TokenSpan, *,
                allowed_special: Collection[str] | Literal["all"] = ()) -> ModelWord | None: ...


@runtime_checkable
class MergeRun(Protocol):
    """A training run in merges: its steps, the figures after step k, a tokenizer at k."""

    @property
    def steps(self) -> int: ...

    def vocab_size(self, k: int) -> int: ...

    def corpus_length(self, k: int) -> int: ...

    def tokenizer(self, k: int | None = None) -> TextTokenizer: ...


if TYPE_CHECKING:  # mypy checks that each class keeps its contract
    from .algorithms.unigram import UnigramModel
    from .algorithms.wordpiece import WordPieceRun, WordPieceTokenizer
    from .encode.tokenizer import Tokenizer
    from .formats.pipeline import PipelineTokenizer
    from .spm.tokenizer import SentencePieceTokenizer
    from .train.run import TrainingRun

    def _tokenizers(a: Tokenizer, b: WordPieceTokenizer, c: UnigramModel, d: SentencePieceTokenizer,
                    e: PipelineTokenizer) -> list[TextTokenizer]:
        return [a, b, c, d, e]

    def _model_work(a: SentencePieceTokenizer, b: PipelineTokenizer) -> list[ShowsModelWork]:
        return [a, b]

    def _runs(a: TrainingRun, b: WordPieceRun) -> list[MergeRun]:
        return [a, b]
