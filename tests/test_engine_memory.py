"""What a training run holds in memory, and the bounds that keep it small (issue: a
10,000-character text with no pre-tokenizer held about 92 MB; the command line ran out
of memory on a 1 MB text with no pre-tokenizer)."""
import random
import tracemalloc

import pytest

from bpe_core import TrainerSettings, WordTable, train


def _random_text(n: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    words = ("".join(rng.choice("abcdefghij") for _ in range(rng.randint(1, 9))) for _ in range(n))
    return " ".join(words)[:n]


def _traced(fn):
    tracemalloc.start()
    try:
        value = fn()
        current, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return value, current


@pytest.mark.parametrize("pretokenizer, units", [("none", "char"), ("whitespace", "char"), ("gpt2", "byte")])
def test_nbytes_is_close_to_what_the_run_really_holds(pretokenizer, units):
    words = WordTable.from_text(_random_text(3000), pretokenizer)
    run, traced = _traced(lambda: train(words, TrainerSettings(units=units, merges=600, top_n=20)))
    assert 0.8 * traced <= run.nbytes() <= 1.25 * traced


def test_events_do_not_keep_the_tokens_of_changed_words():
    """With no pre-tokenizer the whole text is one word that every merge changes; events
    keep its index only, so 600 merges of a 3,000-character word hold well under 2 MB
    (whole token tuples per event held about 600 x 3,000 x 8 bytes = 14 MB)."""
    words = WordTable.from_text(_random_text(3000), "none")
    run, traced = _traced(lambda: train(words, TrainerSettings(merges=600, top_n=20)))
    assert all(ev.changed_words == (0,) for ev in run.events)
    assert traced < 2_000_000


def test_the_token_text_limit_stops_training_and_says_why():
    words = WordTable.from_text(_random_text(3000), "none")
    run = train(words, TrainerSettings(merges=None, max_token_text=50_000))
    assert "limit of 50,000" in run.stop_reason
    body_size = sum(len(body) for body, _ in run.tokens)
    assert 50_000 <= body_size < 50_000 + 3_000  # the last merge may pass it by one token
    unlimited = train(words, TrainerSettings(merges=None))
    assert unlimited.steps > run.steps and unlimited.events[: run.steps] == run.events


def test_words_changed_replays_the_changed_words():
    run = train(WordTable.from_word_counts("low 5\nlower 2\nnewest 6\nwidest 3"),
                TrainerSettings(end_of_word="separate", merges=4))
    assert [w for w, _ in run.words_changed(1)] == [2, 3]  # e s: newest, widest
    assert run.words_changed(0) == ()
    for k in range(1, 5):
        segs = run.segmentations(k)
        assert run.words_changed(k) == tuple((w, segs[w]) for w in run.events[k - 1].changed_words)
