"""Where the Vocabulary size page's runs, texts and tokenizers come from.

Runs are immutable, so a built-in corpus trained here is cached once per process
(`st.cache_resource`) and shared by every session, keyed by corpus and settings; the
word table goes in as an underscore argument (not hashed). Curves derived from a run
are cached too, keyed by the same run key. The session's own run (from the Train page)
is keyed by a fingerprint of its corpus, settings and length.

Built-in corpora are split before training: the run learns from the first part and the
rest is held out, so the page can show how the merges do on text they never saw.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pandas as pd
import streamlit as st

from bpe_core import TrainerSettings, TrainingRun, WordTable, train
from bpe_core.pretrained import load_pretrained
from ui.shared.cache import byte_cached
from ui.shared.corpora import python_reference_text
from ui.vocab.curves import (
    LANGUAGES,
    TextCounts,
    held_out_units,
    language_table,
    split_text,
    text_counts,
    training_curve,
)
from ui.vocab.real_sizes import TRUNCATION_SIZES, truncation_table

__all__ = [
    "BUILTINS",
    "MERGE_CHOICES",
    "OPENAI_LABELS",
    "Builtin",
    "HeldOutText",
    "builtin_run",
    "curve_key",
    "held_out_texts",
    "curve_for",
    "counts_for",
    "units_for",
    "language_texts",
    "openai_language_table",
    "o200k_truncation",
]

CORPORA_DIR = Path(__file__).resolve().parents[2] / "corpora"

#: characters of the Python reference's held-out part used as "another kind of text"
PYTHON_SAMPLE = 12_000

#: merge budgets offered for built-in corpora (the English sample runs out near 800)
MERGE_CHOICES: tuple[int, ...] = (250, 500, 1000, 2000, 3000, 5000)

OPENAI_LABELS: dict[str, str] = {
    "gpt2": "GPT-2 (50K)",
    "cl100k_base": "GPT-4 cl100k (100K)",
    "o200k_base": "GPT-4o o200k (200K)",
}


@dataclass(frozen=True)
class Builtin:
    """A built-in corpus this page can train on: the first `fraction` is the training
    text, the rest is held out."""

    key: str
    title: str
    short: str
    fraction: float
    default_merges: int


BUILTINS: dict[str, Builtin] = {
    "english": Builtin("english", "English sample (about 4 kB of prose, corpora/english_sample.txt)",
                       "English sample", 0.8, 1000),
    "python": Builtin("python", "Python language reference (pydoc_data.topics, about 0.47 MB)",
                      "Python reference", 0.9, 3000),
}


@lru_cache(maxsize=None)
def corpus_text(key: str) -> str:
    """The whole text of a built-in corpus."""
    if key == "english":
        return (CORPORA_DIR / "english_sample.txt").read_text(encoding="utf-8")
    if key == "python":
        return python_reference_text()
    raise ValueError(f"Unknown built-in corpus {key!r}. Choose one of: {', '.join(BUILTINS)}.")


@lru_cache(maxsize=None)
def corpus_split(key: str) -> tuple[str, str]:
    """(training text, held-out text) of a built-in corpus."""
    return split_text(corpus_text(key), BUILTINS[key].fraction)


@st.cache_resource(show_spinner=False, max_entries=4)
def _word_table(key: str) -> WordTable:
    return WordTable.from_text(corpus_split(key)[0], "gpt2")


@byte_cached("vocab.runs")
def _train(key: str, units: str, merges: int, _words: WordTable) -> TrainingRun:
    """Train with a progress bar (drawn inside the cached function, so Streamlit can
    replay it on a cache hit; it ends empty)."""
    bar = st.progress(0.0, text=f"Training on the {BUILTINS[key].short}: 0 of {merges:,} merges")
    every = max(1, merges // 50)

    def progress(step: int, _event) -> None:
        if step % every == 0:
            bar.progress(min(1.0, step / merges), text=f"Training on the {BUILTINS[key].short}: "
                         f"{step:,} of {merges:,} merges")

    settings = TrainerSettings(units=units, end_of_word="none", merges=merges, top_n=0)
    run = train(_words, settings, progress=progress)
    bar.empty()
    return run


def builtin_run(key: str, units: str, merges: int) -> TrainingRun:
    """A built-in corpus trained with GPT-2's pre-tokenizer, cached per process."""
    if key not in BUILTINS:
        raise ValueError(f"Unknown built-in corpus {key!r}. Choose one of: {', '.join(BUILTINS)}.")
    return _train(key, units, merges, _word_table(key))


def curve_key(run: TrainingRun, builtin: tuple[str, str, int] | None = None) -> str:
    """A cache key for a run: the built-in's settings, or a fingerprint of the session
    run's corpus, settings and number of merges."""
    if builtin is not None:
        return "builtin:" + ":".join(map(str, builtin))
    digest = hashlib.sha1()
    digest.update(repr(run.settings).encode())
    digest.update(str(run.steps).encode())
    for word, count in zip(run.words.words, run.words.counts):
        digest.update(f"{count}\x00{word}\x01".encode("utf-8", "surrogatepass"))
    return "session:" + digest.hexdigest()[:16]


@dataclass(frozen=True)
class HeldOutText:
    key: str
    label: str
    text: str


def held_out_texts(source: str, run: TrainingRun) -> list[HeldOutText]:
    """Texts the run did not train on, for the held-out curves.

    For a built-in corpus: its own held-out part, then the other built-in corpus. For
    the session's run: both built-in held-out texts, minus any the run trained on.
    """
    english_rest, python_rest = corpus_split("english")[1], corpus_split("python")[1]
    # Another kind of text needs only a sample: 12,000 characters of the Python
    # reference's held-out part, cut at a line break.
    python_sample = python_rest[: python_rest.find("\n", PYTHON_SAMPLE) + 1 or None]
    english_all = corpus_text("english")
    if source == "english":
        return [HeldOutText("english_rest", "English sample: the held-out 20%", english_rest),
                HeldOutText("python_sample", "Python reference: 12 kB it never saw (another kind of text)",
                            python_sample)]
    if source == "python":
        return [HeldOutText("python_rest", "Python reference: the held-out 10%", python_rest),
                HeldOutText("english_all", "English sample (another kind of text)", english_all)]
    out = []
    for item in (HeldOutText("english_all", "English sample", english_all),
                 HeldOutText("python_sample", "Python reference: 12 kB of its held-out part", python_sample)):
        if not _trained_on(run, item.text):
            out.append(item)
    return out


def _trained_on(run: TrainingRun, text: str) -> bool:
    """True if the run's corpus is this very text (split the same way)."""
    pre = run.words.pretokenizer
    if pre is None:
        return False
    try:
        return WordTable.from_text(text, pre) == run.words
    except ValueError:
        return False


@byte_cached("vocab.tables")
def curve_for(key: str, _run: TrainingRun) -> pd.DataFrame:
    """The training curve of a run (shared read-only)."""
    return training_curve(_run)


@byte_cached("vocab.tables")
def units_for(key: str, text_key: str, _run: TrainingRun, _text: str) -> int:
    """A held-out text's units (bytes or characters) that BPE sees, once per run and text."""
    return held_out_units(_run, _text)


@byte_cached("vocab.tables")
def counts_for(key: str, text_key: str, _run: TrainingRun, _text: str) -> TextCounts:
    """A text's token count at every step of the run `key` names, from one pass
    (`text_counts`): a slider move then reads its size off it and encodes nothing."""
    return text_counts(_run, _text)


@lru_cache(maxsize=None)
def language_texts() -> dict[str, str]:
    """The same paragraph in ten languages (corpora/languages), in LANGUAGES order."""
    folder = CORPORA_DIR / "languages"
    return {code: (folder / f"{code}.txt").read_text(encoding="utf-8").strip() for code in LANGUAGES
            if (folder / f"{code}.txt").exists()}


@st.cache_resource(show_spinner="Loading the GPT-2, cl100k and o200k tokenizers…")
def openai_language_table() -> pd.DataFrame:
    """Tokens per language for the three OpenAI tokenizers (computed once)."""
    tokenizers = {label: load_pretrained(name) for name, label in OPENAI_LABELS.items()}
    return language_table(tokenizers, language_texts())


@byte_cached("vocab.real_sizes")
def o200k_truncation(sizes: tuple[int, ...] = TRUNCATION_SIZES) -> pd.DataFrame:
    """The ten texts under o200k_base cut to each size in `sizes`, and at its full size
    (all its ranks); about 0.3 s, then shared by every session."""
    tok = load_pretrained("o200k_base")
    full = len(tok.ranks)
    return truncation_table(tok, language_texts(), sorted({*sizes, full}),
                            names={code: name for code, (name, _) in LANGUAGES.items()})
