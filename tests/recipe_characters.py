"""A "Characters" baseline algorithm (no training: one event per character), the third
recipe of docs/architecture.md done as a contributor would: an engine part, a registry
entry (`ENTRY`) and a view (`show`). tests/test_recipes.py adds it to `ALGORITHMS` in a
fresh process and runs the registry's parametrised tests and the pages there."""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Iterator

from bpe_core import WordTable
from bpe_core.algorithms import Algorithm, CommandLine
from bpe_core.algorithms.command_line import read_text

UNKNOWN = "?"


# ---- the engine ------------------------------------------------------------------------
@dataclass(frozen=True)
class CharactersSettings:
    vocab_size: int | None = None


@dataclass(frozen=True)
class CharacterEvent:
    step: int
    token: str


@dataclass(frozen=True)
class CharactersTokenizer:
    vocab: tuple[str, ...]

    def tokenize(self, word: str) -> list[str]:
        return [ch if ch in self.vocab else UNKNOWN for ch in word]

    def encode(self, word: str) -> list[int]:
        return [self.vocab.index(ch) if ch in self.vocab else -1 for ch in word]


@dataclass(frozen=True)
class CharactersRun:
    events: tuple[CharacterEvent, ...]

    @property
    def steps(self) -> int:
        return len(self.events)

    def tokenizer(self, k: int) -> CharactersTokenizer:
        return CharactersTokenizer(tuple(ev.token for ev in self.events[:k]))


def train_characters(table: WordTable, settings: CharactersSettings) -> CharactersRun:
    """One event per distinct character, in order of first appearance."""
    seen = dict.fromkeys(ch for w in table.words for ch in w)
    chars = list(seen)[: settings.vocab_size]
    return CharactersRun(tuple(CharacterEvent(i + 1, ch) for i, ch in enumerate(chars)))


# ---- the command line ------------------------------------------------------------------
def _train(args: argparse.Namespace):
    source = args.words if args.words is not None else args.text
    text = read_text(source)
    table = WordTable.from_word_counts(text) if args.words is not None else WordTable.from_text(text, "whitespace")
    return train_characters(table, CharactersSettings(args.vocab_size)), []


def _trace(run: CharactersRun, args: argparse.Namespace) -> Iterator[str]:
    for ev in run.events:
        yield f"step {ev.step:>4}: {ev.token}"


CLI = CommandLine(
    train=_train,
    saved=lambda run: {"characters": list(run.tokenizer(run.steps).vocab)},
    event_json=lambda run, ev: {"step": ev.step, "token": ev.token},
    trace=_trace,
)


# ---- the registry entry -----------------------------------------------------------------
def _words(text: str, *, kind: str) -> WordTable:
    return WordTable.from_word_counts(text) if kind == "words" else WordTable.from_text(text, "whitespace")


ENTRY = Algorithm[CharactersSettings, CharacterEvent, CharactersRun](
    name="characters",
    title="Characters",
    summary="No training: every character is a token.",
    words=_words,
    settings_type=CharactersSettings,
    settings_for=lambda size: CharactersSettings(vocab_size=size),
    train=train_characters,
    event_type=CharacterEvent,
    last_step=lambda run: run.steps,
    tokenizer_at=lambda run, k: run.tokenizer(k),
    segment=lambda tok, word: tuple(tok.tokenize(word)),
    vocabulary=lambda tok: list(tok.vocab),
    base_size=lambda table: 0,
    used_by="a baseline",
    view="tests.recipe_characters",
    command_line=CLI,
)


# ---- the view ------------------------------------------------------------------------------
def show(trained, corpus) -> None:
    import streamlit as st

    if trained.run is None:
        st.error(trained.error)
        return
    st.markdown(f"Characters kept **{trained.run.steps}** characters as tokens.")
