"""Training algorithms, one module each, and a registry that names them.

`ALGORITHMS` maps a short name ("bpe", "wordpiece", "unigram") to an `Algorithm`: its
title, a one-line summary, how to turn a corpus into the words it trains on, how to build
its settings for a target vocabulary size, its train function, its settings and event
types, how to get a tokenizer after any step, the module of the Algorithms page's tab
that draws it (`view`) and what `python -m bpe_core train --algorithm NAME` does with it
(`command_line`). The command line and the pages read only this registry, so adding an
algorithm is one engine module, one entry here and one view.

Steps are counted as each algorithm counts them: BPE and WordPiece by merges (step 0 is
before the first merge, the last step is the number of merges), Unigram by event (step 0
is the seed vocabulary, then each EM iteration and pruning round, the last is the final
vocabulary).

What it leaves out: SentencePiece's BPE (it loads `.model` files, it does not train:
`bpe_core.spm`) and BPE-dropout (a way to encode, not to train: `bpe_core.dropout`).

>>> from bpe_core.algorithms import ALGORITHMS
>>> bpe = ALGORITHMS["bpe"]
>>> run = bpe.train(bpe.words("hug 10\\npug 5\\npun 12\\nbun 4\\nhugs 5", kind="words"), bpe.settings_for(10))
>>> bpe.last_step(run), bpe.segment(bpe.tokenizer_at(run, 3), "hugs")
(3, ('hug', 's'))
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Generic, Mapping, TypeVar

from .. import MergeEvent, TrainerSettings, TrainingRun, WordTable, train
from .command_line import BPE_CLI, UNIGRAM_CLI, WORDPIECE_CLI, CommandLine
from .unigram import UnigramEvent, UnigramRun, UnigramSettings, train_unigram, words_from_text, words_from_word_counts
from .wordpiece import WordPieceEvent, WordPieceRun, WordPieceSettings, train_wordpiece

__all__ = ["Algorithm", "ALGORITHMS", "algorithm", "CommandLine"]

S = TypeVar("S")  # the settings
E = TypeVar("E")  # one event of a run
R = TypeVar("R")  # the run

#: How the page's corpora are cut into words for BPE and WordPiece (spaces only, as
#: Unigram, which has no pre-tokenizer, sees them).
PRETOKENIZER = "whitespace"


@dataclass(frozen=True)
class Algorithm(Generic[S, E, R]):
    """One training algorithm, as a page and the command line need it.

    - words(text, kind=): the corpus as this algorithm's training input (`kind` is "text"
      for running text, "words" for `word count` lines);
    - settings_for(vocab_size): settings that train up to that vocabulary size;
    - train(words, settings): the run (its `events` are `event_type`);
    - last_step(run): the last step; tokenizer_at(run, k): a tokenizer after step k;
    - segment(tokenizer, word): one word's tokens as strings;
    - vocabulary(tokenizer): its tokens as strings, special tokens left out;
    - base_size(words): the vocabulary it starts from on these words (its alphabet);
    - used_by: models that use it, for the page's introduction;
    - view: the module that draws its tab on the Algorithms page (its `show(trained,
      corpus)`; ui/algorithms/<name>_view.py by convention);
    - command_line: how `python -m bpe_core train --algorithm NAME` runs it.
    """

    name: str
    title: str
    summary: str
    words: Callable[..., Any]
    settings_type: type[S]
    settings_for: Callable[[int], S]
    train: Callable[[Any, S], R]
    event_type: type[E]
    last_step: Callable[[R], int]
    tokenizer_at: Callable[[R, int], Any]
    segment: Callable[[Any, str], tuple[str, ...]]
    vocabulary: Callable[[Any], list[str]]
    base_size: Callable[[Any], int]
    used_by: str
    view: str
    command_line: CommandLine


def _table(text: str, *, kind: str) -> WordTable:
    _check_kind(kind)
    return WordTable.from_word_counts(text) if kind == "words" else WordTable.from_text(text, PRETOKENIZER)


def _unigram_words(text: str, *, kind: str) -> dict[str, int]:
    _check_kind(kind)
    return words_from_word_counts(text) if kind == "words" else words_from_text(text)


def _check_kind(kind: str) -> None:
    if kind not in ("text", "words"):
        raise ValueError(f"Unknown corpus kind {kind!r}. Use 'text' (running text) or 'words' (word count lines).")


def _bpe_segment(tok, word: str) -> tuple[str, ...]:
    return tuple(tok.token_text(i) for i in tok.encode(word))


def _wordpiece_segment(tok, word: str) -> tuple[str, ...]:
    return tuple(tok.tokenize(word))


def _unigram_segment(model, word: str) -> tuple[str, ...]:
    return tuple(model.encode_pieces(word))


def _bpe_vocabulary(tok) -> list[str]:
    specials = set(tok.special_tokens.values())
    return [tok.token_text(i) for i in range(tok.vocab_size) if i not in specials]


def _wordpiece_vocabulary(tok) -> list[str]:
    return [t for t in tok.vocab if t not in tok.special_tokens]


def _characters(words) -> set[str]:
    return {ch for w in (words.words if isinstance(words, WordTable) else words) for ch in w}


def _wordpiece_base(table: WordTable) -> int:
    """BERT's 5 special tokens, each first character and each `##` continuation."""
    starts = {w[0] for w in table.words}
    inner = {ch for w in table.words for ch in w[1:]}
    return 5 + len(starts) + len(inner)


def _unigram_vocabulary(model) -> list[str]:
    return [p for i, p in enumerate(model.pieces) if i != model.unk_id]


ALGORITHMS: Mapping[str, Algorithm[Any, Any, Any]] = MappingProxyType({
    "bpe": Algorithm[TrainerSettings, MergeEvent, TrainingRun](
        name="bpe",
        title="BPE",
        summary="Start from characters; again and again merge the most frequent adjacent pair.",
        words=_table,
        settings_type=TrainerSettings,
        settings_for=lambda size: TrainerSettings(merges=None, vocab_size=size),
        train=train,
        event_type=MergeEvent,
        last_step=lambda run: run.steps,
        tokenizer_at=lambda run, k: run.tokenizer(k),
        segment=_bpe_segment,
        vocabulary=_bpe_vocabulary,
        base_size=lambda table: len(_characters(table)),
        used_by="GPT-2, Llama 3",
        view="ui.algorithms.bpe_view",
        command_line=BPE_CLI,
    ),
    "wordpiece": Algorithm[WordPieceSettings, WordPieceEvent, WordPieceRun](
        name="wordpiece",
        title="WordPiece",
        summary="Merge the pair with the best score count(ab) / (count(a) x count(b)); encode by longest match.",
        words=_table,
        settings_type=WordPieceSettings,
        settings_for=lambda size: WordPieceSettings(merges=None, vocab_size=size),
        train=train_wordpiece,
        event_type=WordPieceEvent,
        last_step=lambda run: run.steps,
        tokenizer_at=lambda run, k: run.tokenizer(k),
        segment=_wordpiece_segment,
        vocabulary=_wordpiece_vocabulary,
        base_size=_wordpiece_base,
        used_by="BERT",
        view="ui.algorithms.wordpiece_view",
        command_line=WORDPIECE_CLI,
    ),
    "unigram": Algorithm[UnigramSettings, UnigramEvent, UnigramRun](
        name="unigram",
        title="Unigram",
        summary="Start from many substrings; re-estimate their probabilities (EM) and prune the least useful.",
        words=_unigram_words,
        settings_type=UnigramSettings,
        settings_for=lambda size: UnigramSettings(vocab_size=size),
        train=train_unigram,
        event_type=UnigramEvent,
        last_step=lambda run: len(run.events) - 1,
        tokenizer_at=lambda run, k: run.model_at(k),
        segment=_unigram_segment,
        vocabulary=_unigram_vocabulary,
        base_size=lambda words: len(_characters(words)) + 1,  # the characters and <unk>
        used_by="T5, ALBERT, via SentencePiece",
        view="ui.algorithms.unigram_view",
        command_line=UNIGRAM_CLI,
    ),
})


def algorithm(name: str) -> Algorithm:
    """The registry entry of that name, or a ValueError that lists the names.

    >>> algorithm("unigram").title
    'Unigram'
    """
    try:
        return ALGORITHMS[name]
    except KeyError:
        raise ValueError(f"Unknown algorithm {name!r}. Choose one of: {', '.join(ALGORITHMS)}.") from None
