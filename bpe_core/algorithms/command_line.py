"""What `python -m bpe_core train --algorithm NAME` does with each algorithm.

Each registry entry (`ALGORITHMS`) holds a `CommandLine`: how to train from the parsed
arguments, what `--save` writes, one event as `--json` writes it, and the readable trace.
The command line itself (`bpe_core.__main__`) reads these and keeps no list of names.
Nothing here prints: a warning is returned for the command line to print.
"""
from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from ..corpus import WordTable, decode_text_file
from ..display import visible_whitespace
from ..pretokenize import PRETOKENIZERS

__all__ = ["CommandLine", "read_text", "write_json", "BPE_CLI", "WORDPIECE_CLI", "UNIGRAM_CLI"]

#: The merges a run makes when neither --merges nor --vocab-size is given.
DEFAULT_MERGES = 10


@dataclass(frozen=True)
class CommandLine:
    """One algorithm on the command line.

    - train(args): the run and the warnings to print (the corpus is `args.text` or
      `args.words`; a flag that does not apply raises ValueError);
    - saved(run): the tokenizer `--save` writes, as JSON data (read back by `encode`);
    - event_json(run, event): one event as `--json` prints it;
    - trace(run, args): the lines printed without `--json`;
    - note: a few words for `--algorithm`'s help (what it needs), or "".
    """

    train: Callable[[argparse.Namespace], tuple[Any, list[str]]]
    saved: Callable[[Any], dict]
    event_json: Callable[[Any, Any], dict]
    trace: Callable[[Any, argparse.Namespace], Iterator[str]]
    note: str = ""


def read_text(path: str, *, corpus: bool = True) -> str:
    """A file's text; a training corpus (`corpus`) reads \\r\\n as \\n, as the app does."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ValueError(f"Cannot read {path!r}: {exc.strerror}. Check the path.") from None
    return decode_text_file(data, name=repr(path), unix_newlines=corpus)


def write_json(path: str, data: object) -> None:
    try:
        Path(path).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"Cannot write {path!r}: {exc.strerror}. Check the folder exists and is writable.") from None


def _corpus(args: argparse.Namespace, from_words: Callable[[str], Any], from_text: Callable[[str], Any]) -> Any:
    """The training input: `--words FILE` read by `from_words`, else `--text FILE` by `from_text`."""
    if args.words is not None:
        return from_words(read_text(args.words))
    return from_text(read_text(args.text))


def _merges(args: argparse.Namespace) -> int | None:
    """--merges as given; without it, no limit when --vocab-size is given, else 10."""
    if args.merges is not None or args.vocab_size is not None:
        return args.merges
    return DEFAULT_MERGES


# ---- BPE ------------------------------------------------------------------------------
def _bpe_train(args: argparse.Namespace) -> tuple[Any, list[str]]:
    from ..train.run import train
    from ..train.trainer import TrainerSettings, marker_clash

    if args.pretokenizer == "bert":
        raise ValueError(f"--pretokenizer bert is for --algorithm wordpiece. For BPE choose one of: {', '.join(PRETOKENIZERS)}.")
    table = _corpus(args, WordTable.from_word_counts, lambda text: WordTable.from_text(text, args.pretokenizer))
    settings = TrainerSettings(
        units=args.units,
        end_of_word=args.end_of_word,
        marker=args.marker,
        tie_break=args.tie_break,
        merges=_merges(args),
        vocab_size=args.vocab_size,
        min_count=args.min_count,
        top_n=0,
        max_token_text=args.max_token_text or None,
    )
    clash = marker_clash(settings, table)
    run = train(table, settings, pause_gc=True)  # a process of its own: safe to pause the collector
    return run, [clash] if clash else []


def _bpe_saved(run) -> dict:
    from ..formats import run_to_json

    return run_to_json(run)


def _bpe_event_json(run, ev) -> dict:
    return {
        "step": ev.step,
        "pair": list(ev.pair_text),
        "token": ev.token,
        "count": ev.count,
        "ties": [[run.displays[a], run.displays[b]] for a, b in ev.ties],
        "tie_count": ev.tie_count,
        "vocab_size": ev.vocab_size,
        "corpus_length": ev.corpus_length,
    }


def _bpe_trace(run, args: argparse.Namespace) -> Iterator[str]:
    show = visible_whitespace
    for ev in run.events:
        left, right = (show(t) for t in ev.pair_text)
        line = f"step {ev.step:>4}: {left} + {right} -> {show(ev.token)}  (count {ev.count}"
        others = [p for p in ev.ties if p != ev.pair]
        if others:
            names = ", ".join(f"{show(run.displays[a])} + {show(run.displays[b])}" for a, b in others)
            more = ev.tie_count - 1 - len(others)
            line += f"; tied with {names}{f' and {more} more' if more else ''}; {ev.tie_break} rule"
        yield line + ")"
    # Without --merges nobody asked for 10: say it was the default, and how to get more.
    asked = args.merges is not None or args.vocab_size is not None
    at_limit = run.stop_reason == f"reached {run.steps} merges"
    yield run.stop_message(asked=asked) + ("" if asked or not at_limit else " --merges N trains more.")


BPE_CLI = CommandLine(_bpe_train, _bpe_saved, _bpe_event_json, _bpe_trace)


# ---- WordPiece ------------------------------------------------------------------------
def _wordpiece_train(args: argparse.Namespace) -> tuple[Any, list[str]]:
    from .wordpiece import WordPieceSettings, train_wordpiece, wordpiece_word_table

    for flag, value, default in (("--units", args.units, "char"), ("--end-of-word", args.end_of_word, "none"),
                                 ("--min-count", args.min_count, 1)):
        if value != default:
            raise ValueError(f"{flag} does not apply to WordPiece (characters, '##' continuations). Leave it out.")
    table = _corpus(args, WordTable.from_word_counts, lambda text: wordpiece_word_table(text, args.pretokenizer))
    settings = WordPieceSettings(tie_break=args.tie_break, merges=_merges(args), vocab_size=args.vocab_size, top_n=0)
    return train_wordpiece(table, settings), []


def _wordpiece_event_json(run, ev) -> dict:
    return {
        "step": ev.step,
        "pair": list(ev.pair_text),
        "token": ev.token,
        "score": ev.score,
        "count": ev.count,
        "score_fraction": [ev.score_numerator, ev.score_denominator],
        "left_count": ev.left_count,
        "right_count": ev.right_count,
        "ties": [[run.tokens[a], run.tokens[b]] for a, b in ev.ties],
        "tie_count": ev.tie_count,
        "bpe_pair": list(ev.bpe_pair_text),
        "bpe_count": ev.bpe_count,
        "vocab_size": ev.vocab_size,
        "corpus_length": ev.corpus_length,
    }


def _wordpiece_trace(run, args: argparse.Namespace) -> Iterator[str]:
    show = visible_whitespace
    for ev in run.events:
        left, right = (show(t) for t in ev.pair_text)
        line = (f"step {ev.step:>4}: {left} + {right} -> {show(ev.token)}  (score {ev.count}/({ev.left_count} x "
                f"{ev.right_count}) = {ev.score:.4g}; count {ev.count}")
        if ev.tie_count > 1:
            line += f"; {ev.tie_count - 1} tied, {ev.tie_break} rule"
        if not ev.bpe_agrees:
            line += f"; BPE would merge {' + '.join(map(show, ev.bpe_pair_text))} (count {ev.bpe_count})"
        yield line + ")"
    yield run.stop_message()


WORDPIECE_CLI = CommandLine(
    _wordpiece_train, lambda run: run.tokenizer().to_json(), _wordpiece_event_json, _wordpiece_trace,
)


# ---- Unigram --------------------------------------------------------------------------
def _unigram_train(args: argparse.Namespace) -> tuple[Any, list[str]]:
    from . import unigram

    if args.vocab_size is None:
        raise ValueError("--algorithm unigram needs --vocab-size N (the pieces to keep, <unk> included).")
    words = _corpus(args, unigram.words_from_word_counts, unigram.words_from_text)
    return unigram.train_unigram(words, unigram.UnigramSettings(vocab_size=args.vocab_size)), []


def _unigram_event_json(run, ev) -> dict:
    from .unigram import event_to_json

    return event_to_json(ev)


def _unigram_trace(run, args: argparse.Namespace) -> Iterator[str]:
    from .unigram import event_line

    for ev in run.events:
        yield event_line(ev)


UNIGRAM_CLI = CommandLine(
    _unigram_train, lambda run: run.model().to_json(), _unigram_event_json, _unigram_trace,
    note="needs --vocab-size",
)
