"""What every tokenizer and every training run offers, as `typing.Protocol`s.

Five classes tokenize text: our `Tokenizer` (BPE with a merge list or a rank table),
`WordPieceTokenizer`, `UnigramModel`, `SentencePieceTokenizer` (`.model` files) and
`PipelineTokenizer` (tokenizer.json and other libraries' files). They share no base
class, but each is a `TextTokenizer`; a page that takes "any tokenizer" types it so, and
mypy checks that each class keeps these calls. A file's tokenizer that can show how its
model builds one word is also a `ShowsModelWork`. BPE's `TrainingRun` and `WordPieceRun`
are `MergeRun`s (their step methods come from one base, `train.steps.MergeSteps`).

>>> from bpe_core import WordTable, TrainerSettings, train
>>> run = train(WordTable.from_word_counts("hug 10\\npug 5"), TrainerSettings(merges=2))
>>> isinstance(run, MergeRun), isinstance(run.tokenizer(1), TextTokenizer)
(True, True)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Collection, Iterable, Literal, Protocol, Sequence, runtime_checkable

from .encode.tokenizer import TokenSpan
from .model_work import ModelWord, ModelWork

__all__ = ["TextTokenizer", "ShowsModelWork", "MergeRun"]


@runtime_checkable
class TextTokenizer(Protocol):
    """Text to ids and back, with each token's place in the text (for drawing)."""

    @property
    def vocab_size(self) -> int: ...

    def encode(self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()) -> list[int]: ...

    def decode(self, ids: Iterable[int]) -> str: ...

    def token_spans(self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()) -> Sequence[TokenSpan]: ...


@runtime_checkable
class ShowsModelWork(Protocol):
    """A tokenizer whose model shows its work on one word (`work`: a replay, trace or
    lattice, or None when this model cannot) on the words it receives (`model_words`)."""

    @property
    def work(self) -> ModelWork | None: ...

    def model_words(self, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()) -> list[ModelWord]: ...


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
