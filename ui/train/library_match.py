"""Settings that reproduce what a student will run next: subword-nmt and Hugging Face.

A `LibraryMatch` names a library's trainer and the Train page settings that give its
merges, merge by merge (tests/test_library_match.py trains the Sennrich words with the
installed subword-nmt 0.3.8 and tokenizers and compares every merge):

- `subword-nmt learn-bpe` attaches `</w>` to the last symbol of each word (`t</w>` is one
  symbol, so `t + </w>` is never a pair), breaks ties by the largest pair as strings
  (`max(stats, key=lambda x: (stats[x], x))`) and stops below 2 occurrences
  (`--min-frequency 2`): end of word "attached", tie rule "lexicographic", minimum count 2;
- Hugging Face's `BpeTrainer` with its defaults: no end-of-word mark, ties to the smallest
  ids (base symbols numbered in code-point order), no minimum; and with
  `end_of_word_suffix="</w>"`: the same with the marker attached.

Pure: the Train page (ui/train/panels.py) offers them as one choice, and at merge 1 of a
run that differs says in one line what subword-nmt does there (`subword_nmt_line`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from bpe_core import TrainerSettings, WordTable, train
from ui.train.config import Settings

__all__ = ["LibraryMatch", "MATCHES", "OWN", "matching", "apply", "subword_nmt_line"]

#: The choice for settings that match no library.
OWN = "own"


@dataclass(frozen=True)
class LibraryMatch:
    name: str
    label: str      #: the choice's words
    command: str    #: what the student runs
    settings: dict  #: the Train page settings it fixes (units, end of word, marker, tie rule, minimum count)


MATCHES: tuple[LibraryMatch, ...] = (
    LibraryMatch("subword-nmt", "subword-nmt learn-bpe", "subword-nmt learn-bpe -s N < corpus",
                 {"units": "char", "end_of_word": "attached", "marker": "</w>", "tie_break": "lexicographic",
                  "min_count": 2}),
    LibraryMatch("hf-bpe", "Hugging Face BpeTrainer (defaults)", "tokenizers.trainers.BpeTrainer()",
                 {"units": "char", "end_of_word": "none", "tie_break": "smallest-id", "min_count": 0}),
    LibraryMatch("hf-bpe-suffix", "Hugging Face BpeTrainer, end_of_word_suffix='</w>'",
                 "tokenizers.trainers.BpeTrainer(end_of_word_suffix='</w>')",
                 {"units": "char", "end_of_word": "attached", "marker": "</w>", "tie_break": "smallest-id",
                  "min_count": 0}),
)
_BY_NAME = {m.name: m for m in MATCHES}


def _same(s: Settings, fixed: dict) -> bool:
    """Whether `s` trains as `fixed` says (min counts 0 and 1 train alike; a marker
    matters only with an end-of-word mark)."""
    for name, value in fixed.items():
        have = getattr(s, name)
        if name == "min_count":
            have, value = max(have, 1), max(value, 1)
        if have != value:
            return False
    return True


def matching(s: Settings) -> str:
    """The library whose merges these settings reproduce, or OWN.

    >>> matching(Settings(end_of_word="attached", tie_break="lexicographic", min_count=2))
    'subword-nmt'
    >>> matching(Settings(end_of_word="none", tie_break="smallest-id", min_count=1)), matching(Settings())
    ('hf-bpe', 'own')
    """
    return next((m.name for m in MATCHES if _same(s, m.settings)), OWN)


def apply(s: Settings, name: str) -> Settings:
    """`s` with the library's settings (the corpus, pre-tokenizer and stop stay)."""
    return replace(s, **_BY_NAME[name].settings) if name in _BY_NAME else s


def subword_nmt_line(words: WordTable, s: Settings, first_pair_text: tuple[str, str]) -> str | None:
    """One line for merge 1 of a run whose settings are not subword-nmt's: the merge
    `subword-nmt learn-bpe` makes first on the same words, and why it differs. None when
    it makes the same merge (or none).

    >>> from bpe_core import WordTable
    >>> words = WordTable.from_word_counts("low 5\\nlower 2\\nnewest 6\\nwidest 3")
    >>> print(subword_nmt_line(words, Settings(), ("e", "s")))
    subword-nmt learn-bpe merges s + t</w> first here: it attaches </w> to the last letter of each word (a word's last letter and </w> are one symbol, never a pair) and breaks a tie by the largest pair as strings. Choose “subword-nmt learn-bpe” under Match a library to follow it merge by merge.
    """
    if matching(s) == "subword-nmt":
        return None
    nmt = apply(s, "subword-nmt")
    settings = TrainerSettings(units=nmt.units, end_of_word="attached", marker=nmt.marker or "</w>",
                               tie_break="lexicographic", merges=1, min_count=2)
    events = train(words, settings).events
    if not events or tuple(events[0].pair_text) == tuple(first_pair_text):
        return None
    a, b = events[0].pair_text
    m = settings.marker
    return (f"subword-nmt learn-bpe merges {a} + {b} first here: it attaches {m} to the last letter of each word "
            f"(a word's last letter and {m} are one symbol, never a pair) and breaks a tie by the largest pair as "
            "strings. Choose “subword-nmt learn-bpe” under Match a library to follow it merge by merge.")
