"""Parity with the reference implementations, on toy corpora and on a real text.

- subword-nmt (`learn_bpe`): the lexicographic tie rule, the marker attached to the last
  symbol (`t</w>`), whitespace words, the same minimum count (its default is 2).
- Hugging Face tokenizers (`BpeTrainer`): the smallest-id tie rule, byte units (GPT-2's
  byte-to-unicode alphabet as the initial alphabet), the GPT-2 pre-tokenizer, no marker.
- tiktoken, for encoding: a tiktoken `Encoding` built from our trained vocabulary (token
  bytes -> id) must give the same ids as our tokenizer. Ours ranks a pair by the merge
  list, tiktoken by the token the pair's bytes join into; for a vocabulary that BPE
  training produced the two agree, which these tests check on real and random text.

The real text is Python's language reference (`pydoc_data.topics`, about 0.47 MB), which
ships with CPython, so the tests run offline.
"""
from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import re
from pathlib import Path
from unittest import mock

# One thread, and no parallelism warning in forked children (the CLI tests fork).
os.environ.setdefault("RAYON_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import pydoc_data.topics  # noqa: E402
import pytest  # noqa: E402
import subword_nmt.learn_bpe as snmt  # noqa: E402
import tiktoken  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from tokenizers import Tokenizer as HFTokenizer  # noqa: E402
from tokenizers import models, pre_tokenizers, trainers  # noqa: E402

from bpe_core import TIE_RULES, TrainerSettings, WordTable, pretokenize, train  # noqa: E402
from bpe_core.pretokenize import PATTERNS  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
CORPORA = REPO / "corpora"
WORD_LISTS = ["sennrich_algorithm1.txt", "sennrich_figure1.txt", "classroom_low_lowest.txt", "hf_course.txt"]


@functools.lru_cache(maxsize=None)
def python_reference() -> str:
    text = "".join(pydoc_data.topics.topics.values())
    assert len(text.encode("utf-8")) > 100_000
    return text


def _word_list(name: str) -> WordTable:
    return WordTable.from_word_counts((CORPORA / name).read_text(encoding="utf-8"))


# ---- subword-nmt ---------------------------------------------------------------------

_SNMT_VERBOSE = re.compile(r"pair (\d+): (\S+) (\S+) -> \S+ \(frequency (\d+)\)\n")


def subword_nmt_merges(data: str, num_symbols: int, *, min_frequency: int, is_dict: bool):
    """Run subword-nmt's learn_bpe in process: [(left, right, count)] in merge order.

    The merges come from its output file (a '#version' header, then 'left right' per
    line); the counts from its verbose lines on stderr ('pair i: a b -> ab (frequency n)').
    """
    out, err = io.StringIO(), io.StringIO()
    with mock.patch.object(snmt, "tqdm", lambda it, *a, **k: it), contextlib.redirect_stderr(err):
        snmt.learn_bpe(io.StringIO(data), out, num_symbols, min_frequency=min_frequency,
                       verbose=True, is_dict=is_dict)
    header, *lines = out.getvalue().splitlines()
    assert header == "#version: 0.2"
    counts = [(m[2], m[3], int(m[4])) for m in _SNMT_VERBOSE.finditer(err.getvalue())]
    merges = [tuple(line.split(" ")) for line in lines]
    assert [c[:2] for c in counts] == merges
    return counts


def _ours_as_subword_nmt(table: WordTable, merges: int, min_count: int):
    run = train(table, TrainerSettings(end_of_word="attached", tie_break="lexicographic",
                                       merges=merges, min_count=min_count, top_n=0))
    return [(*ev.pair_text, ev.count) for ev in run.events]


@pytest.mark.parametrize("min_count", [1, 2, 3])
@pytest.mark.parametrize("name", WORD_LISTS)
def test_subword_nmt_parity_on_toy_word_lists(name, min_count):
    """Same merges, same counts, same stopping point on every built-in word list (fed
    to subword-nmt as its dictionary format, `word count` per line)."""
    table = _word_list(name)
    theirs = subword_nmt_merges(table.to_word_counts(), 50, min_frequency=min_count, is_dict=True)
    ours = _ours_as_subword_nmt(table, 50, min_count)
    assert ours == theirs
    if min_count == 1:
        assert len(ours) >= 3


def test_subword_nmt_on_sennrich_is_not_the_papers_list():
    """The comparison can tell tie rules apart. With the marker attached, newest is
    n e w e s t</w>: e s and s t</w> tie at 6+3 = 9. The paper (first-seen) takes e s;
    subword-nmt takes the larger tuple, ('s', 't</w>') > ('e', 's'), then e st</w> 9."""
    theirs = subword_nmt_merges(_word_list("sennrich_algorithm1.txt").to_word_counts(), 10,
                                min_frequency=2, is_dict=True)
    assert theirs[0] == ("s", "t</w>", 9)
    assert theirs[1] == ("e", "st</w>", 9)


@functools.lru_cache(maxsize=None)
def _reference_words() -> str:
    """The reference text with every run of whitespace turned into one space.

    subword-nmt splits lines on ' ' only (a tab stays inside a word) and our whitespace
    pre-tokenizer splits on any whitespace; with single spaces both read the same words.
    """
    return " ".join(python_reference().split())


def test_whitespace_word_tables_agree_with_subword_nmt():
    """Before any merge: the same words with the same counts."""
    text = _reference_words()
    ours = WordTable.from_text(text, "whitespace")
    theirs = snmt.get_vocabulary(io.StringIO(text))
    assert dict(zip(ours.words, ours.counts)) == dict(theirs)
    assert len(ours) > 5000


def test_subword_nmt_parity_on_the_python_reference():
    """2000 merges on the ~0.47 MB reference: identical pairs (as text, `t</w>` style)
    and counts, in order. subword-nmt prunes its statistics for speed; this also checks
    that its pruning never changed a choice here."""
    text = _reference_words()
    theirs = subword_nmt_merges(text, 2000, min_frequency=2, is_dict=False)
    ours = _ours_as_subword_nmt(WordTable.from_text(text, "whitespace"), 2000, 2)
    assert len(theirs) == 2000
    assert ours == theirs


# ---- Hugging Face tokenizers -----------------------------------------------------------

def hf_merges(sequences: list[str], merges: int) -> list[tuple[str, str]]:
    """Train HF's BpeTrainer (byte level, all 256 bytes as the initial alphabet, no
    minimum frequency) and return its merges as (left, right) in GPT-2 byte form."""
    tok = HFTokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=256 + merges, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  min_frequency=0, show_progress=False)
    tok.train_from_iterator(sequences, trainer)
    items = json.loads(tok.to_str())["model"]["merges"]
    return [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in items]


@functools.lru_cache(maxsize=None)
def byte_run(tie_break: str, merges: int = 3000):
    """Our trainer on the reference text: byte units, GPT-2 pre-tokenizer, no marker."""
    return train(WordTable.from_text(python_reference(), "gpt2"),
                 TrainerSettings(units="byte", end_of_word="none", tie_break=tie_break,
                                 merges=None, vocab_size=256 + merges, min_count=0, top_n=0))


def test_hf_parity_on_the_python_reference():
    """3000 merges: identical merge lists. HF numbers base symbols in code-point order of
    their byte-level characters and new tokens in creation order, and breaks count ties
    by the smallest (left id, right id): our smallest-id rule."""
    run = byte_run("smallest-id")
    ours = [ev.pair_text for ev in run.events]
    theirs = hf_merges([python_reference()], 3000)
    assert len(ours) == 3000
    assert ours == theirs


def test_byte_level_merges_use_gpt2_form():
    """Byte tokens are shown in GPT-2's byte-to-unicode form, as HF writes them: the most
    frequent pair in the reference is two spaces (indented code), ('Ġ', 'Ġ')."""
    run = byte_run("smallest-id")
    assert run.events[0].pair_text == ("Ġ", "Ġ")
    assert any(t.startswith("Ġ") for t in run.displays[256:])
    assert not any(" " in t or "\n" in t for t in run.displays)


@pytest.mark.parametrize("name", WORD_LISTS + ["wikipedia_aaabdaaabac.txt"])
def test_hf_parity_on_toy_corpora_in_byte_mode(name):
    """Each toy word is given to HF as its own sequence, repeated by its count, so HF's
    word counts are the word list's; every word is a single GPT-2 piece. Trained to
    exhaustion (no pairs left): the same merges."""
    path = CORPORA / name
    if name.startswith("wikipedia"):
        table = WordTable.from_text(path.read_text(encoding="utf-8"), "gpt2")
    else:
        table = _word_list(name)
    assert all([p.text for p in pretokenize(w, "gpt2")] == [w] for w in table.words)
    table = WordTable(table.words, table.counts, "gpt2")
    run = train(table, TrainerSettings(units="byte", tie_break="smallest-id", merges=None, min_count=0))
    sequences = [w for w, c in zip(table.words, table.counts) for _ in range(c)]
    theirs = hf_merges(sequences, 200)
    assert [ev.pair_text for ev in run.events] == theirs
    assert run.stop_reason.startswith("no pairs are left")


@pytest.mark.parametrize("name", ["english_sample.txt", "multilingual_short.txt", "languages/ja.txt",
                                  "languages/hi.txt"])
def test_hf_parity_on_small_texts(name):
    """Short real texts with spaces, punctuation, digits and many scripts (multi-byte
    characters): the same 300 merges (or all there are)."""
    text = (CORPORA / name).read_text(encoding="utf-8")
    run = train(WordTable.from_text(text, "gpt2"),
                TrainerSettings(units="byte", tie_break="smallest-id", merges=None, vocab_size=556, min_count=0))
    assert [ev.pair_text for ev in run.events] == hf_merges([text], 300)


# ---- encoding: tiktoken built from our vocabulary ------------------------------------

def tiktoken_from(tok, size: int) -> tiktoken.Encoding:
    ranks = {tok.token_bytes(i): i for i in range(size)}
    assert len(ranks) == size  # no two ids share bytes, so the table is a bijection
    return tiktoken.Encoding("t", pat_str=PATTERNS["gpt2"], mergeable_ranks=ranks, special_tokens={})


@functools.lru_cache(maxsize=None)
def byte_tokenizers(tie_break: str):
    run = byte_run(tie_break)
    tok = run.tokenizer(special_tokens={})
    return tok, tiktoken_from(tok, run.vocab_size(run.steps))


VARIED = [
    "Hello world! How's it going? I'll say we've done it.",
    "Ünïcödé: naïve café, Straße, ÆØÅ; Кириллица и ελληνικά; עברית; العربية",
    "中文分词测试，日本語のテキスト、한국어 텍스트",
    "Emoji 👍🏽 and 🇺🇳 flags, family 👨‍👩‍👧‍👦, zero\u200bwidth, e\u0301",
    "def f(x):\n    return x ** 2  # comment\n\tif x: pass\r\n",
    "  leading, trailing   \n\n\n   \t\t  runs of    whitespace     ",
    "Numbers 1234567890 3.14159 2024-06-01 1e-10 0x1F",
    "<|endoftext|> is plain text here",
    "",
    " ",
    "\n\n",
    "a" * 200,
    "ab" * 50 + " " + "🙂" * 20,
]


@pytest.mark.parametrize("text", VARIED, ids=range(len(VARIED)))
@pytest.mark.parametrize("tie_break", TIE_RULES)
def test_encode_matches_tiktoken_on_varied_text(tie_break, text):
    ours, theirs = byte_tokenizers(tie_break)
    assert ours.encode(text) == theirs.encode_ordinary(text)


@pytest.mark.parametrize("tie_break", TIE_RULES)
def test_encode_matches_tiktoken_on_the_training_text_and_other_languages(tie_break):
    """The whole reference text (every merge is used) and the ten language samples."""
    ours, theirs = byte_tokenizers(tie_break)
    texts = [python_reference()] + [p.read_text(encoding="utf-8") for p in sorted((CORPORA / "languages").glob("*.txt"))]
    for text in texts:
        assert ours.encode(text) == theirs.encode_ordinary(text)


@settings(max_examples=150, deadline=None)
@given(text=st.text(st.characters(exclude_categories=["Cs"]), max_size=80), tie_break=st.sampled_from(TIE_RULES))
def test_encode_matches_tiktoken_on_any_text(text, tie_break):
    ours, theirs = byte_tokenizers(tie_break)
    assert ours.encode(text) == theirs.encode_ordinary(text)
    assert ours.decode(ours.encode(text)) == theirs.decode(theirs.encode_ordinary(text)) == text


small_text = st.text(st.sampled_from(list("aab c\u00e9")), min_size=2, max_size=40)


@settings(max_examples=150, deadline=None)
@given(corpus=small_text, probes=st.lists(small_text, min_size=1, max_size=5),
       tie_break=st.sampled_from(TIE_RULES), pretokenizer=st.sampled_from(["gpt2", "none"]))
def test_merge_list_and_token_rank_encoding_agree_on_small_vocabularies(corpus, probes, tie_break, pretokenizer):
    """A search for a counterexample where ranking pairs by merge list (ours) and by the
    joined token (tiktoken) differ: tiny corpora over a tiny alphabet, trained to
    exhaustion, so many tokens overlap and many pairs join into existing tokens."""
    try:
        table = WordTable.from_text(corpus, pretokenizer)
        run = train(table, TrainerSettings(units="byte", tie_break=tie_break, merges=None, top_n=0))
    except ValueError:
        return  # no adjacent pairs
    tok = run.tokenizer(special_tokens={})
    ranks = {tok.token_bytes(i): i for i in range(run.vocab_size(run.steps))}
    theirs = tiktoken.Encoding("t", pat_str=PATTERNS[pretokenizer] or r"[\s\S]+", mergeable_ranks=ranks,
                               special_tokens={})
    for text in probes:
        assert tok.encode(text) == theirs.encode_ordinary(text)
