"""The numbers behind the Vocabulary size page, read off one training run.

No retraining per point: every MergeEvent already holds the corpus length, the
vocabulary size and the number of tokens in use after its merge, so the training
curve is a walk over the events. Each merge shortens the corpus by the number of
places it merged (`merged_occurrences`), which is the pair's count unless the pair
overlaps itself: in `a a a` the pair (a, a) is counted twice but only one merge fits.

Held-out curves are the exception: a text the run never saw must be encoded with the
first k merges (`run.tokenizer(k)`), so they are measured at a handful of sizes.

Pure functions over bpe_core objects returning pandas frames or small dataclasses; no
Streamlit, so tests check them directly.

>>> from bpe_core import WordTable, TrainerSettings, train
>>> run = train(WordTable.from_text("aaabdaaabac", "none"), TrainerSettings(merges=3))
>>> curve = training_curve(run)
>>> curve[["step", "vocab_size", "corpus_length", "tokens_in_use"]].values.tolist()
[[0, 4, 11, 4], [1, 5, 9, 5], [2, 6, 7, 5], [3, 7, 5, 4]]
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import pandas as pd

from bpe_core import TokenCounts, Tokenizer, TrainingRun, token_counts

__all__ = [
    "LANGUAGES",
    "TokenCount",
    "VocabAccounting",
    "corpus_units",
    "unit_name",
    "training_curve",
    "length_by_reencoding",
    "step_for_vocab",
    "sample_steps",
    "held_out_steps",
    "count_tokens",
    "TextCounts",
    "text_counts",
    "text_chunks",
    "held_out_curve",
    "held_out_rows",
    "HELD_COLUMNS",
    "base_retirements",
    "overlapping_merges",
    "vocab_accounting",
    "language_rows",
    "language_table",
    "split_text",
]

#: ISO 639-1 code -> (language, script); the order the page lists them in.
LANGUAGES: dict[str, tuple[str, str]] = {
    "en": ("English", "Latin"),
    "de": ("German", "Latin"),
    "es": ("Spanish", "Latin"),
    "fr": ("French", "Latin"),
    "ru": ("Russian", "Cyrillic"),
    "ar": ("Arabic", "Arabic"),
    "hi": ("Hindi", "Devanagari"),
    "zh": ("Chinese", "Han"),
    "ja": ("Japanese", "Kana and Han"),
    "ko": ("Korean", "Hangul"),
}


def unit_name(units: str, plural: bool = True) -> str:
    """'bytes' for byte-level runs, 'characters' for character-level ones.

    >>> unit_name("byte"), unit_name("char", plural=False)
    ('bytes', 'character')
    """
    word = "byte" if units == "byte" else "character"
    return word + "s" if plural else word


def _units_of(text: str, units: str) -> int:
    return len(text.encode("utf-8")) if units == "byte" else len(text)


def corpus_units(run: TrainingRun) -> int:
    """The training corpus's size in its base units (characters or UTF-8 bytes).

    End-of-word markers are not counted: they are symbols, not text.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> corpus_units(train(WordTable.from_word_counts("low 5\\nlower 2"), TrainerSettings(merges=1)))
    25
    """
    units = run.settings.units
    return sum(_units_of(w, units) * c for w, c in zip(run.words.words, run.words.counts))


def training_curve(run: TrainingRun) -> pd.DataFrame:
    """One row per step (0 = before any merge), straight from the events.

    Columns: step, vocab_size, corpus_length, tokens_in_use, base_in_use (base symbols
    the corpus still uses), units_per_token, token (made at this step), count,
    merged_occurrences, is_new_token, retired (tokens used no more, as text).
    """
    units = corpus_units(run)
    base_in_use = run.base_tokens_in_use
    rows = [
        dict(step=0, vocab_size=run.base_size, corpus_length=run.initial_corpus_length,
             tokens_in_use=run.base_tokens_in_use, base_in_use=base_in_use,
             token="", count=0, merged_occurrences=0, is_new_token=True, retired="")
    ]
    for ev in run.events:
        base_in_use -= sum(1 for t in ev.tokens_retired if t < run.base_size)
        rows.append(
            dict(step=ev.step, vocab_size=ev.vocab_size, corpus_length=ev.corpus_length,
                 tokens_in_use=ev.tokens_in_use, base_in_use=base_in_use,
                 token=ev.token, count=ev.count, merged_occurrences=ev.merged_occurrences,
                 is_new_token=ev.is_new_token,
                 retired=" ".join(run.displays[t] for t in ev.tokens_retired))
        )
    frame = pd.DataFrame(rows)
    frame["units_per_token"] = units / frame["corpus_length"]
    return frame


def length_by_reencoding(run: TrainingRun, k: int) -> int:
    """The training corpus length after step k, by replaying k merges on every word.

    The slow way; `training_curve` must agree with it (a test checks).
    """
    segs = run.segmentations(k)
    return sum(len(segs[w]) * c for w, c in enumerate(run.words.counts))


def step_for_vocab(run: TrainingRun, vocab_size: int) -> int:
    """The last step whose vocabulary has at most `vocab_size` tokens (0 if none).

    Vocabulary size never falls as merges are added; a merge that re-creates an existing
    token leaves it unchanged, and then the later step (more merges, same size) wins.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> run = train(WordTable.from_text("aaabdaaabac", "none"), TrainerSettings(merges=3))
    >>> [step_for_vocab(run, v) for v in (1, 4, 5, 6, 7, 99)]
    [0, 0, 1, 2, 3, 3]
    """
    lo, hi = 0, run.steps  # invariant: vocab_size(lo) <= v or lo == 0
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if run.vocab_size(mid) <= vocab_size:
            lo = mid
        else:
            hi = mid - 1
    return lo


def sample_steps(n_steps: int, max_points: int, keep: Iterable[int] = ()) -> list[int]:
    """Steps 0..n_steps, thinned evenly to about `max_points`, always with the ends and `keep`.

    >>> sample_steps(10, 100)
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    >>> sample_steps(1000, 5, keep=[7])
    [0, 7, 250, 500, 750, 1000]
    """
    if n_steps + 1 <= max_points:
        chosen = set(range(n_steps + 1))
    else:
        every = max(1, n_steps / max(1, max_points - 1))
        chosen = {round(i * every) for i in range(max_points)} | {0, n_steps}
    chosen |= {k for k in keep if 0 <= k <= n_steps}
    return sorted(chosen)


def held_out_steps(run: TrainingRun, points: int = 12, keep: Iterable[int] = ()) -> list[int]:
    """Steps at which to encode a held-out text: about `points`, denser at the start
    (where the curve bends most), always 0 and the last step.

    >>> held_out_steps(_ToyRun(10), points=20)
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    >>> held_out_steps(_ToyRun(1000), points=6)
    [0, 40, 160, 360, 640, 1000]
    """
    n = run.steps
    if n + 1 <= points:
        return list(range(n + 1))
    # Quadratic spacing: the curve changes fastest in the first merges.
    steps = {round(n * (i / (points - 1)) ** 2) for i in range(points)}
    steps |= {k for k in keep if 0 <= k <= n}
    return sorted(steps)


class _ToyRun:
    """Just enough of a TrainingRun for doctests of step helpers."""

    def __init__(self, steps: int):
        self.steps = steps


@dataclass(frozen=True)
class TokenCount:
    """A text encoded by one tokenizer: tokens, unknown characters, size in units.

    `unknown` counts characters a character-level vocabulary has never seen; each is
    counted as one token (as an [UNK] token would be).
    """

    tokens: int
    unknown: int
    chars: int
    bytes: int


def text_chunks(tokenizer: Tokenizer, text: str) -> list[str]:
    """What to hand the tokenizer: the whole text, unless it has no pre-tokenizer pattern.

    A tokenizer with no pre-tokenizer at all knows only words, so text is split at
    whitespace. A run trained with pre-tokenizer `none` learned
    merges across spaces; its text is encoded one line at a time (BPE on one very long
    piece is slow, and the corpus it learned from had lines too).

    >>> from bpe_core import Tokenizer, WordTable, TrainerSettings, train
    >>> words = Tokenizer.from_merges(tokens=[("l", False), ("o", False)], merges=[], units="char",
    ...                               end_of_word="none", pretokenizer=None)
    >>> text_chunks(words, "lo ol\\nll")
    ['lo', 'ol', 'll']
    >>> whole = train(WordTable.from_text("ab ab\\nab", "none"), TrainerSettings(merges=1)).tokenizer()
    >>> text_chunks(whole, "ab ab\\nab")
    ['ab ab', 'ab']
    >>> gpt2_like = train(WordTable.from_text("ab ab", "gpt2"), TrainerSettings(merges=1)).tokenizer()
    >>> text_chunks(gpt2_like, "ab ab\\nab")
    ['ab ab\\nab']
    """
    if tokenizer.pattern is not None or tokenizer.ranks is not None:
        return [text]
    if tokenizer.pretokenizer is None:
        return text.split()
    return [line for line in text.splitlines() if line]


def count_tokens(tokenizer: Tokenizer, text: str) -> TokenCount:
    """Encode `text` (special tokens as plain text) and count.

    A character-level vocabulary raises ValueError on a character it never saw, so the
    count then falls back to `token_spans`, where such characters have id None.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> tok = train(WordTable.from_text("aab", "none"), TrainerSettings(merges=1)).tokenizer()
    >>> count_tokens(tok, "aab"), count_tokens(tok, "aabz")
    (TokenCount(tokens=2, unknown=0, chars=3, bytes=3), TokenCount(tokens=3, unknown=1, chars=4, bytes=4))
    """
    tokens = unknown = 0
    for chunk, times in Counter(text_chunks(tokenizer, text)).items():
        try:
            tokens += len(tokenizer.encode(chunk)) * times
        except ValueError:
            spans = tokenizer.token_spans(chunk)
            tokens += len(spans) * times
            unknown += sum(1 for s in spans if s.id is None) * times
    return TokenCount(tokens, unknown, len(text), len(text.encode("utf-8")))


@dataclass(frozen=True, eq=False)
class TextCounts:
    """A text's `TokenCount` under the first k merges of a run, for every k at once:
    `at(k)` equals `count_tokens(run.tokenizer(k), text)`, in constant time."""

    counts: TokenCounts
    chars: int
    bytes: int

    def at(self, k: int) -> TokenCount:
        return TokenCount(self.counts.tokens_at(k), self.counts.unknown_at(k), self.chars, self.bytes)

    def nbytes(self) -> int:
        return self.counts.nbytes() + 200  # this object, its dict and two ints


def text_counts(run: TrainingRun, text: str) -> TextCounts:
    """Count `text` at every step of `run` in one pass (see `bpe_core.token_counts`),
    split as `count_tokens` splits it (`text_chunks`, the same at every step).

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> run = train(WordTable.from_text("aab", "none"), TrainerSettings(merges=1))
    >>> [text_counts(run, "aabz").at(k) for k in (0, 1)]
    [TokenCount(tokens=4, unknown=1, chars=4, bytes=4), TokenCount(tokens=3, unknown=1, chars=4, bytes=4)]
    >>> [count_tokens(run.tokenizer(k), "aabz") for k in (0, 1)]
    [TokenCount(tokens=4, unknown=1, chars=4, bytes=4), TokenCount(tokens=3, unknown=1, chars=4, bytes=4)]
    """
    chunks = text_chunks(run.tokenizer(0, special_tokens={}), text)
    return TextCounts(token_counts(run, chunks), len(text), len(text.encode("utf-8")))


def _pieces_units(tokenizer: Tokenizer, text: str, units: str) -> int:
    """The units BPE sees: the pre-tokenized pieces (whitespace pre-tokenizing drops
    the spaces between words, as it does for the training corpus)."""
    return sum(_units_of(p, units) for chunk in text_chunks(tokenizer, text) for p, _ in tokenizer.pieces(chunk))


def held_out_units(run: TrainingRun, text: str) -> int:
    """The units (bytes or characters) of `text` that BPE sees: the same at every k."""
    return _pieces_units(run.tokenizer(0, special_tokens={}), text, run.settings.units)


#: the columns of a held-out curve (`held_out_curve`, `held_out_rows`)
HELD_COLUMNS = ["step", "vocab_size", "tokens", "unknown", "units_per_token", "text"]


def held_out_rows(run: TrainingRun, counts: TextCounts, text_units: int, steps: Sequence[int],
                  label: str) -> list[dict]:
    """The points of a held-out curve at `steps`, as rows of HELD_COLUMNS: the text's
    counts at every step (`text_counts`) and its `text_units` (`held_out_units`), read at
    each step; nothing is encoded."""
    rows = []
    for k in steps:
        counted = counts.at(k)
        rows.append(dict(step=k, vocab_size=run.vocab_size(k), tokens=counted.tokens, unknown=counted.unknown,
                         units_per_token=(text_units / counted.tokens) if counted.tokens else 0.0, text=label))
    return rows


def held_out_curve(run: TrainingRun, text: str, steps: Sequence[int], label: str) -> pd.DataFrame:
    """`text` under the first k merges for each k in `steps` (counted in one pass,
    `text_counts`: the same counts as encoding with `run.tokenizer(k)`).

    Columns: step, vocab_size, tokens, unknown, units_per_token, text (the label).
    """
    rows = held_out_rows(run, text_counts(run, text), held_out_units(run, text), steps, label)
    return pd.DataFrame(rows, columns=HELD_COLUMNS)


def base_retirements(run: TrainingRun) -> pd.DataFrame:
    """Each base symbol the corpus stops using: when, at what vocabulary size, and the
    merge that used up its last occurrences.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> run = train(WordTable.from_text("aaabdaaabac", "none"), TrainerSettings(merges=3))
    >>> base_retirements(run).values.tolist()
    [[3, 7, 'b', 'aaab', 'aaa + b']]
    """
    rows = []
    for ev in run.events:
        for t in ev.tokens_retired:
            if t < run.base_size:
                rows.append(dict(step=ev.step, vocab_size=ev.vocab_size, symbol=run.displays[t],
                                 token=ev.token, merge=f"{ev.pair_text[0]} + {ev.pair_text[1]}"))
    return pd.DataFrame(rows, columns=["step", "vocab_size", "symbol", "token", "merge"])


def overlapping_merges(run: TrainingRun) -> pd.DataFrame:
    """Merges that shortened the corpus by less than their count: the pair overlaps
    itself (`a a a` has two (a, a) pairs but room for one merge).

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> run = train(WordTable.from_text("aaabdaaabac", "none"), TrainerSettings(merges=1))
    >>> overlapping_merges(run).values.tolist()
    [[1, 'aa', 4, 2]]
    """
    rows = [dict(step=ev.step, token=ev.token, count=ev.count, merged=ev.merged_occurrences)
            for ev in run.events if ev.merged_occurrences != ev.count]
    return pd.DataFrame(rows, columns=["step", "token", "count", "merged"])


@dataclass(frozen=True)
class VocabAccounting:
    """Why the vocabulary size is not "base + merges", and why fewer tokens are in use.

    vocab_size = base + merges - reused; in use = vocab_size - never_used - retired.
    """

    step: int
    base: int            # base symbols in the vocabulary (all 256 bytes for byte units)
    merges: int          # merges learned so far
    reused: int          # merges that spelled a token already in the vocabulary
    vocab_size: int
    never_used: int      # base symbols the corpus never contained
    retired_base: int    # base symbols whose every occurrence was merged away
    retired_merged: int  # merged tokens later used up by longer ones
    in_use: int


def vocab_accounting(run: TrainingRun, k: int) -> VocabAccounting:
    """The vocabulary at step k, accounted for.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> run = train(WordTable.from_text("aaabdaaabac", "none"), TrainerSettings(merges=3))
    >>> a = vocab_accounting(run, 3)
    >>> (a.base, a.merges, a.reused, a.vocab_size, a.never_used, a.retired_base, a.retired_merged, a.in_use)
    (4, 3, 0, 7, 0, 1, 2, 4)
    """
    events = run.events[:k]
    reused = sum(1 for ev in events if not ev.is_new_token)
    retired = run.retired_tokens(k)
    retired_base = sum(1 for t in retired if t < run.base_size)
    return VocabAccounting(
        step=k,
        base=run.base_size,
        merges=k,
        reused=reused,
        vocab_size=run.vocab_size(k),
        never_used=run.base_size - run.base_tokens_in_use,
        retired_base=retired_base,
        retired_merged=len(retired) - retired_base,
        in_use=run.tokens_in_use(k),
    )


def language_rows(
    tokenizers: Mapping[str, Tokenizer | Mapping[str, TokenCount]],
    texts: Mapping[str, str],
    *,
    reference: str = "en",
) -> list[dict]:
    """`language_table`'s rows as plain dicts (what the page builds at a slider move)."""
    rows = []
    for name, tok in tokenizers.items():
        counts = ({code: tok[code] for code in texts} if isinstance(tok, Mapping)
                  else {code: count_tokens(tok, text) for code, text in texts.items()})
        ref = counts.get(reference)
        for code, c in counts.items():
            language, script = LANGUAGES.get(code, (code, ""))
            rows.append(dict(
                tokenizer=name, code=code, language=language, script=script,
                tokens=c.tokens, unknown=c.unknown, chars=c.chars, bytes=c.bytes,
                bytes_per_char=c.bytes / c.chars if c.chars else 0.0,
                chars_per_token=c.chars / c.tokens if c.tokens else 0.0,
                ratio=(c.tokens / ref.tokens) if ref and ref.tokens else float("nan"),
            ))
    return rows


def language_table(
    tokenizers: Mapping[str, Tokenizer | Mapping[str, TokenCount]],
    texts: Mapping[str, str],
    *,
    reference: str = "en",
) -> pd.DataFrame:
    """Tokens per language for each tokenizer, and the ratio to the reference language.
    A tokenizer may be given as its counts already made, {language code: TokenCount}
    (`text_counts(run, text).at(k)` for a run at step k: nothing is encoded then).

    Columns: tokenizer, code, language, script, tokens, unknown, chars, bytes,
    bytes_per_char, chars_per_token, ratio (tokens / the reference's tokens, same tokenizer).
    """
    return pd.DataFrame(language_rows(tokenizers, texts, reference=reference))


def split_text(text: str, fraction: float) -> tuple[str, str]:
    """Cut text at the first line break after `fraction` of it: (training, held out).

    >>> split_text("one\\ntwo\\nthree\\nfour\\n", 0.5)
    ('one\\ntwo\\nthree\\n', 'four\\n')
    """
    if not 0 < fraction < 1:
        raise ValueError(f"The training fraction must be between 0 and 1, not {fraction!r}.")
    cut = text.find("\n", int(len(text) * fraction))
    cut = len(text) if cut < 0 else cut + 1
    return text[:cut], text[cut:]
