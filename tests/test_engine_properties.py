"""Property tests: the incremental trainer against the naive reference (tests/naive_bpe.py).

Hypothesis draws small corpora (unique words with counts) over an alphabet chosen to
break things: letters that repeat (so ties and overlapping pairs such as `a a a` are
common), `<`, `/`, `w` and `>` (which spell the marker `</w>`), `_` (the other marker),
characters HTML and regexes treat specially (`,`, `&`, `#`), a space inside a word, a
two-byte `é` and a four-byte emoji (so byte units split characters). Every combination
of units x end of word x tie rule is run, and the incremental trainer must agree with
the naive one on every event: pair, count, ties, the pair table, the count changes, the
words changed, the figures after each merge, and the replayed segmentations.

The last part checks round trips: decode(encode(x)) == x for any Unicode text with
byte-level tokenizers (trained ones and OpenAI's), and unpaired surrogates are refused.
"""
from __future__ import annotations

import functools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_core import TIE_RULES, UNITS, END_OF_WORD, BPETrainer, TrainerSettings, WordTable, pretokenize, train
from bpe_core.tie_rules import tie_rule
from bpe_core.display import byte_to_unicode
from bpe_core.pretrained import openai_tokenizer
from bpe_core.train.trainer import MAX_TIES_KEPT
from naive_bpe import NaiveBPE, gpt2_byte_map

REPO = Path(__file__).resolve().parent.parent

ALPHABET = ["a", "a", "b", "b", "c", ",", "<", "/", "w", ">", "_", "&", "#", " ", "\u00e9", "\U0001f600"]

word = st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=7).map("".join)
corpus = st.lists(st.tuples(word, st.integers(1, 4)), min_size=1, max_size=6)
marker = st.sampled_from(["</w>", "_"])

# 18 combinations per test: a few examples each keeps the file to seconds, and every run
# draws new corpora (failures found earlier are replayed first from .hypothesis/).
FAST = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _unique(pairs):
    """Merge repeated words (counts add up), keeping the order of first appearance."""
    merged: dict[str, int] = {}
    for w, c in pairs:
        merged[w] = merged.get(w, 0) + c
    return list(merged), list(merged.values())


def _train_both(pairs, units, end_of_word, tie_break, marker="</w>", *, top_n=0, merges=None,
                vocab_size=None, min_count=1):
    """(run, naive steps, naive trainer, initial naive segmentations); run is None when
    the corpus has no adjacent pair (and then the engine must say so)."""
    words, counts = _unique(pairs)
    naive = NaiveBPE(words, counts, units=units, end_of_word=end_of_word, marker=marker, tie_break=tie_break)
    initial = [tuple(seg) for seg in naive.segmentations]
    s = TrainerSettings(units=units, end_of_word=end_of_word, marker=marker, tie_break=tie_break,
                        merges=merges, vocab_size=vocab_size, min_count=min_count, top_n=top_n)
    table = WordTable(tuple(words), tuple(counts))
    if not naive.pair_table()[0]:
        with pytest.raises(ValueError, match="Nothing to merge"):
            train(table, s)
        return None, [], naive, initial
    run = train(table, s)
    steps = naive.train(merges, vocab_size=vocab_size, min_count=min_count)
    return run, steps, naive, initial


all_tie_rules = pytest.mark.parametrize("tie_break", TIE_RULES)
all_eow = pytest.mark.parametrize("end_of_word", END_OF_WORD)
all_units = pytest.mark.parametrize("units", UNITS)


def test_naive_byte_map_is_gpt2s():
    """The naive trainer's own copy of GPT-2's byte map equals the engine's (so display
    texts and the code-point order of byte ids are compared like for like)."""
    assert gpt2_byte_map() == byte_to_unicode()


@all_units
@all_eow
@all_tie_rules
@FAST
@given(pairs=corpus, marker=marker)
def test_events_equal_the_naive_trainers(units, end_of_word, tie_break, pairs, marker):
    """Trained to exhaustion (no merge budget, min count 1), both trainers make the same
    merges with the same counts, ties (all of them, in tie-rule order, winner first),
    figures after each merge, and segmentations of the words each merge changed."""
    run, steps, naive, _ = _train_both(pairs, units, end_of_word, tie_break, marker)
    if run is None:
        return
    assert run.tokens == tuple(naive.tokens)
    assert run.displays == tuple(naive.displays())
    assert run.base_size == naive.base_size
    assert len(run.events) == len(steps)
    assert run.stop_reason.startswith("no pairs are left")
    for ev, ns in zip(run.events, steps):
        assert (ev.step, ev.pair, ev.pair_text, ev.count) == (ns.step, ns.pair, ns.pair_text, ns.count)
        assert (ev.token_id, ev.token, ev.is_new_token) == (ns.token_id, ns.token, ns.is_new_token)
        assert ev.tie_break == tie_break
        assert ev.tie_count == len(ns.ties)
        assert ev.ties == ns.ties[:MAX_TIES_KEPT]
        assert ev.ties[0] == ev.pair
        assert ev.corpus_length == ns.corpus_length
        assert ev.vocab_size == ns.vocab_size
        assert ev.tokens_in_use == ns.tokens_in_use
        assert ev.merged_occurrences == ns.merged_occurrences
        assert ev.changed_words == tuple(sorted(ns.changed))
        assert dict(run.words_changed(ev.step)) == {w: ns.segmentations[w] for w in ns.changed}


@all_units
@all_eow
@all_tie_rules
@FAST
@given(pairs=corpus, top_n=st.integers(0, 12))
def test_top_pairs_equal_the_naive_full_table(units, end_of_word, tie_break, pairs, top_n):
    """Each event's pair table is the naive full table's first `top_n` rows, in the same
    order (count descending, then the tie rule), as it stood before that merge."""
    run, steps, _, _ = _train_both(pairs, units, end_of_word, tie_break, top_n=top_n)
    if run is None:
        return
    for ev, ns in zip(run.events, steps, strict=True):
        assert ev.top_pairs == ns.table[:top_n]


@all_units
@all_eow
@all_tie_rules
@FAST
@given(pairs=corpus)
def test_count_changes_equal_the_difference_of_naive_tables(units, end_of_word, tie_break, pairs):
    """A merge's count changes are exactly the pairs whose count differs between the full
    table before it and the full table after it (0 meaning absent), and the kinds follow
    from before/after."""
    run, steps, naive, _ = _train_both(pairs, units, end_of_word, tie_break)
    if run is None:
        return
    tables = [dict(ns.table) for ns in steps] + [naive.pair_table()[0]]
    for k, ev in enumerate(run.events):
        before, after = tables[k], tables[k + 1]
        expected = {
            p: (before.get(p, 0), after.get(p, 0))
            for p in before.keys() | after.keys()
            if before.get(p, 0) != after.get(p, 0)
        }
        assert {c.pair: (c.before, c.after) for c in ev.count_changes} == expected
        for c in ev.count_changes:
            assert c.kind == ("appeared" if not c.before else "vanished" if not c.after
                              else "up" if c.after > c.before else "down")
        assert ev.count_changes and ev.pair in {c.pair for c in ev.count_changes}


@all_units
@all_eow
@all_tie_rules
@FAST
@given(pairs=corpus)
def test_replay_at_every_step_equals_training(units, end_of_word, tie_break, pairs):
    """`run.segmentations(k)` replays the first k merges (lowest rank first) on each
    word; it must give the segmentation training had after step k, for every k from 0
    (the base symbols) to the last step."""
    run, steps, _, initial = _train_both(pairs, units, end_of_word, tie_break)
    if run is None:
        return
    per_step = [tuple(initial)] + [ns.segmentations for ns in steps]
    for k, expected in enumerate(per_step):
        got = run.segmentations(k)
        assert [got[w] for w in range(len(expected))] == list(expected), f"step {k}"


@FAST
@given(pairs=corpus, units=st.sampled_from(UNITS), end_of_word=st.sampled_from(END_OF_WORD),
       tie_break=st.sampled_from(TIE_RULES))
def test_corpus_length_drops_by_merged_occurrences(pairs, units, end_of_word, tie_break):
    """Merging n occurrences of a pair turns 2n tokens into n, so the corpus gets exactly
    `merged_occurrences` tokens shorter each step; the run's accessors agree."""
    run, _, _, initial = _train_both(pairs, units, end_of_word, tie_break)
    if run is None:
        return
    words, counts = _unique(pairs)
    length = sum(len(seg) * c for seg, c in zip(initial, counts))
    assert run.initial_corpus_length == run.corpus_length(0) == length
    for ev in run.events:
        assert 0 < ev.merged_occurrences <= ev.count  # `a a a` counts (a, a) twice, merges it once
        assert ev.corpus_length == length - ev.merged_occurrences
        assert run.corpus_length(ev.step) == ev.corpus_length
        length = ev.corpus_length


@FAST
@given(pairs=corpus, units=st.sampled_from(UNITS), end_of_word=st.sampled_from(END_OF_WORD),
       tie_break=st.sampled_from(TIE_RULES))
def test_retired_tokens_are_the_merged_ones_no_word_uses(pairs, units, end_of_word, tie_break):
    """A merge can only retire its own two tokens, and does so exactly when no word uses
    them afterwards; `retired_tokens(k)` is every token (base or merged) the corpus used
    once and uses no more after step k."""
    run, steps, _, initial = _train_both(pairs, units, end_of_word, tie_break)
    if run is None:
        return
    used_before = {t for seg in initial for t in seg}
    ever_used = set(used_before)
    for ev, ns in zip(run.events, steps, strict=True):
        used_after = {t for seg in ns.segmentations for t in seg}
        assert set(ev.tokens_retired) == set(ev.pair) - used_after
        ever_used |= used_after
        assert run.retired_tokens(ev.step) == ever_used - used_after
        assert run.tokens_in_use(ev.step) == len(used_after)
        used_before = used_after


@FAST
@given(pairs=corpus, units=st.sampled_from(UNITS), end_of_word=st.sampled_from(END_OF_WORD),
       tie_break=st.sampled_from(TIE_RULES), extra=st.integers(0, 8), min_count=st.integers(0, 4),
       merges=st.none() | st.integers(0, 6))
def test_stop_conditions_equal_the_naive_trainers(pairs, units, end_of_word, tie_break, extra,
                                                  min_count, merges):
    """With a merge budget, a target vocabulary size (base size + `extra`) and a minimum
    count, both trainers stop after the same merges, and the engine's vocabulary never
    passes the target."""
    words, counts = _unique(pairs)
    base = NaiveBPE(words, counts, units=units, end_of_word=end_of_word, tie_break=tie_break).base_size
    run, steps, _, _ = _train_both(pairs, units, end_of_word, tie_break, merges=merges,
                                   vocab_size=base + extra, min_count=min_count)
    if run is None:
        return
    assert [ev.pair for ev in run.events] == [ns.pair for ns in steps]
    assert run.vocab_size(run.steps) <= base + extra
    if merges is not None:
        assert run.steps <= merges
    assert all(ev.count >= min_count for ev in run.events)
    assert run.stop_reason


@all_tie_rules
def test_ties_beyond_the_cap(tie_break):
    """100 two-letter words aa..jj, once each: 100 pairs tie at count 1. Each event keeps
    the first MAX_TIES_KEPT (64) of them in tie-rule order and counts all of them; each
    merge removes one pair, so the tie counts go 100, 99, 98."""
    words = [a + b for a in "abcdefghij" for b in "abcdefghij"]
    run = train(WordTable(tuple(words), (1,) * 100), TrainerSettings(tie_break=tie_break, merges=3))
    steps = NaiveBPE(words, [1] * 100, units="char", end_of_word="none", tie_break=tie_break).train(3)
    assert MAX_TIES_KEPT == 64
    assert [ev.tie_count for ev in run.events] == [100, 99, 98]
    for ev, ns in zip(run.events, steps, strict=True):
        assert len(ev.ties) == 64 and ev.ties == ns.ties[:64]
    # One-letter tokens are numbered in code-point order, so ids sort as the texts do.
    rule = tie_rule(tie_break)
    pairs = [(w[0], w[1]) for w in words]
    key = pairs.index if rule.key == "first-seen" else None
    first = (max if rule.largest_first else min)(pairs, key=key)
    assert run.events[0].pair_text == first


# ---- round trips ---------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _byte_tokenizer(pretokenizer: str, end_of_word: str):
    """A byte-level tokenizer trained (200 merges) on the English sample."""
    text = (REPO / "corpora" / "english_sample.txt").read_text(encoding="utf-8")
    run = train(WordTable.from_text(text, pretokenizer),
                TrainerSettings(units="byte", end_of_word=end_of_word, merges=200, top_n=0))
    return run.tokenizer()


any_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=60)


@pytest.mark.parametrize(
    "pretokenizer, end_of_word",
    [("gpt2", "none"), ("cl100k", "none"), ("o200k", "none"), ("none", "none"),
     ("gpt2", "separate"), ("simple", "none"), ("gpt2", "attached")],
)
@settings(max_examples=60, deadline=None)
@given(text=any_text)
def test_trained_byte_tokenizer_round_trips_any_text(pretokenizer, end_of_word, text):
    """Byte units cover every character, so any text (no surrogates) encodes, and the
    bytes of the tokens join back into the text: decode(encode(x)) == x."""
    tok = _byte_tokenizer(pretokenizer, end_of_word)
    ids = tok.encode(text)
    assert tok.decode(ids) == text
    assert tok.decode_bytes(ids) == text.encode("utf-8")


@pytest.mark.parametrize("text", ["_", "snake_case", "a _ b", "__init__"])
def test_simple_pretokenizer_keeps_every_character(text):
    """pretokenize.py promises that the regex pre-tokenizers tile the input (every
    character lands in one piece). The simple pattern
    ` ?[^\\W\\d_]+| ?\\d{1,3}| ?[^\\s\\w]+|\\s+` has no alternative that matches `_`
    (a word character, but neither a letter nor a digit, nor a non-word character), so
    `_` falls between pieces: "snake_case" becomes "snake", "case", and a byte-level
    tokenizer with this pre-tokenizer decodes encode("snake_case") to "snakecase"."""
    assert "".join(p.text for p in pretokenize(text, "simple")) == text
    tok = _byte_tokenizer("simple", "none")
    assert tok.decode(tok.encode(text)) == text


@pytest.mark.parametrize("text", ["ba", "x", "0", "é"])
def test_byte_units_with_attached_marker_encode_any_text(text):
    """Byte units promise that any text encodes. With end_of_word="attached", a piece's
    last symbol is its last byte marked end-of-word, (b"a", True), a different token
    from (b"a", False). The trainer adds all 256 unmarked bytes to the base vocabulary
    but no marked ones, so after training on "ab" (marked bytes: only b"b") encoding
    "ba" raises ValueError, and the message blames the wrong thing: "The character 'b'
    ... is not in this character-level vocabulary ... train with byte units"."""
    run = train(WordTable.from_text("ab", "gpt2"),
                TrainerSettings(units="byte", end_of_word="attached", merges=0))
    tok = run.tokenizer()
    assert tok.decode(tok.encode(text)) == text


@pytest.mark.parametrize("name", ["gpt2", "cl100k", "o200k"])
@settings(max_examples=100, deadline=None)
@given(text=any_text)
def test_regex_pretokenizers_tile_the_text(name, text):
    """Every character lands in exactly one piece, pieces in order, offsets exact."""
    pieces = pretokenize(text, name)
    assert "".join(p.text for p in pieces) == text
    pos = 0
    for p in pieces:
        assert (p.start, p.end) == (pos, pos + len(p.text)) and p.text
        pos = p.end


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
@settings(max_examples=60, deadline=None)
@given(text=any_text)
def test_openai_tokenizer_round_trips_any_text(name, text):
    """The same for OpenAI's byte-level tokenizers, loaded through bpe_core."""
    tok = openai_tokenizer(name)
    assert tok.decode(tok.encode(text)) == text


@settings(max_examples=40, deadline=None)
@given(text=st.text(st.sampled_from(sorted(set("the cat, sat on a mat? 'tis so."))), max_size=40))
def test_trained_char_tokenizer_round_trips_text_of_its_alphabet(text):
    """A character-level tokenizer (GPT-2 pre-tokenizer, no marker) round-trips any text
    made of characters it was trained on."""
    run = _char_run()
    tok = run.tokenizer()
    assert tok.decode(tok.encode(text)) == text


@functools.lru_cache(maxsize=None)
def _char_run():
    return train(WordTable.from_text("the cat sat on a mat, 'tis so? the cat sat. " * 3, "gpt2"),
                 TrainerSettings(merges=20, top_n=0))


@pytest.mark.parametrize("which", ["gpt2-none", "none-none", "gpt2-char", "openai"])
@settings(max_examples=40, deadline=None)
@given(text=any_text)
def test_token_spans_follow_encode_and_cover_the_text(which, text):
    """Token spans (for colouring) have the ids encode gives, in order, and cover the
    text from 0 to its end without gaps; only tokens that hold part of a character
    may share it with a neighbour."""
    if which == "openai":
        tok = openai_tokenizer("gpt2")
    elif which == "gpt2-char":
        tok = _char_run().tokenizer()
        text = "".join(ch for ch in text if ch in "the cat sat on a mat, 'tis so?.")
    else:
        tok = _byte_tokenizer(*which.split("-"))
    spans = tok.token_spans(text)
    assert [sp.id for sp in spans] == tok.encode(text)
    assert b"".join(sp.token_bytes for sp in spans) == text.encode("utf-8")
    if text:
        assert (spans[0].start, spans[-1].end) == (0, len(text))
    for a, b in zip(spans, spans[1:]):
        assert b.start == a.end or ((a.partial or b.partial) and b.start < a.end)


@pytest.mark.parametrize("text", ["hi", "a b"])
def test_token_spans_with_byte_units_and_a_separate_marker(text):
    """With byte units and a separate marker, each piece ends with the marker token,
    whose body is b"" (0 bytes). Tokenizer._piece_spans looks up
    char_of_byte[b + len(data) - 1] with b == len(piece bytes), one past the end, and
    raises IndexError (char units give the marker an empty span at the piece's end)."""
    run = train(WordTable.from_text("hi", "gpt2"), TrainerSettings(units="byte", end_of_word="separate", merges=0))
    tok = run.tokenizer()
    spans = tok.token_spans(text)
    assert [sp.id for sp in spans] == tok.encode(text)


@pytest.mark.parametrize("text", ["\ud800", "a\udfffb", "emoji \ud83d broken"])
@pytest.mark.parametrize("which", ["trained", "gpt2", "cl100k_base", "o200k_base"])
def test_unpaired_surrogates_are_refused(which, text):
    """An unpaired surrogate has no UTF-8 bytes: encoding refuses it with a ValueError
    that names it, instead of dropping or replacing it."""
    tok = _byte_tokenizer("gpt2", "none") if which == "trained" else openai_tokenizer(which)
    with pytest.raises(ValueError, match="unpaired surrogate"):
        tok.encode(text)


long_words = st.lists(
    st.tuples(st.text(alphabet="abc ,", min_size=40, max_size=160), st.integers(1, 3)),
    min_size=1, max_size=3,
)


@all_tie_rules
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pairs=long_words)
def test_long_words_equal_the_naive_trainer(tie_break, pairs):
    """Words longer than the trainer's long-word threshold (48 symbols; text with no
    pre-tokenizer is one such word) take the cached-offsets path for first-seen keys:
    the same merges, counts and ties as the naive trainer, for 40 merges."""
    run, steps, _, _ = _train_both(pairs, "char", "none", tie_break, merges=40)
    if run is None:
        return
    assert [(ev.pair, ev.count, ev.ties) for ev in run.events] == [
        (ns.pair, ns.count, ns.ties[:MAX_TIES_KEPT]) for ns in steps
    ]


@pytest.mark.parametrize("tie_break", TIE_RULES)
def test_replay_of_a_long_piece_equals_training(tie_break):
    """Text with no pre-tokenizer is one long word: replaying the first k merges on it
    (the heap-based loop for pieces over 256 symbols) gives exactly the segmentation
    training reached after step k."""
    text = (REPO / "corpora" / "english_sample.txt").read_text(encoding="utf-8")[:3000]
    table = WordTable.from_text(text, "none")
    settings = TrainerSettings(tie_break=tie_break, merges=120, top_n=0)
    run = train(table, settings)
    trainer = BPETrainer(table, settings)  # the trainer's own segmentation, step by step
    trained = {}
    for ev in trainer.iter_merges():
        if ev.step in (1, 7, 60, 120):
            trained[ev.step] = tuple(trainer.segmentations[0])
    for k, toks in trained.items():
        assert run.segmentations(k)[0] == toks
        assert run.words_changed(k) == ((0, toks),)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
@pytest.mark.parametrize("text", ["7" * 3000, " " * 5000, "ab" * 2000, "\n" * 900 + "x", "é" * 1500,
                                  "".join(str(i) for i in range(1500))])
def test_long_pieces_match_tiktoken(name, text):
    """Pieces over 256 bytes (long digit runs under GPT-2's ` ?\\p{N}++`, whitespace runs)
    take the heap-based loop; its ids equal tiktoken's."""
    tiktoken = pytest.importorskip("tiktoken")
    from bpe_core.pretrained.openai_files import load_openai_encoding

    f = load_openai_encoding(name)
    enc = tiktoken.Encoding(name, pat_str=f.pattern, mergeable_ranks=f.mergeable_ranks, special_tokens=f.special_tokens)
    assert openai_tokenizer(name).encode(text) == enc.encode_ordinary(text)


@all_tie_rules
def test_events_are_whole_frozen_dataclasses(tie_break):
    """The trainer builds events without MergeEvent.__init__ (for speed): each must
    still have exactly the dataclass's fields, compare equal to one built the normal
    way, and refuse assignment."""
    import dataclasses

    from bpe_core import MergeEvent

    words = WordTable.from_text("low lower newest widest " * 3 + "aaabdaaabac", "gpt2")
    run = train(words, TrainerSettings(units="byte", tie_break=tie_break, merges=30, top_n=5))
    names = {f.name for f in dataclasses.fields(MergeEvent)}
    for ev in run.events:
        assert set(vars(ev)) == names
        assert MergeEvent(**{n: getattr(ev, n) for n in names}) == ev
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.events[0].count = 0  # type: ignore[misc]


@all_tie_rules
def test_trainer_is_freed_without_the_cyclic_collector(tie_break):
    """No reference cycles: `train()` drops the trainer's large tables by reference
    counting before it switches the collector back on."""
    import gc
    import weakref

    from bpe_core import BPETrainer

    words = WordTable.from_text("low lower newest widest " * 3, "whitespace")
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        trainer = BPETrainer(words, TrainerSettings(tie_break=tie_break, merges=5))
        list(trainer.iter_merges())
        ref = weakref.ref(trainer)
        del trainer
        assert ref() is None
    finally:
        if was_enabled:
            gc.enable()


def test_train_by_default_leaves_the_collector_alone():
    """The library's default touches no process-wide state: the collector stays as it
    was (on, or off), and objects made before training stay in their generation."""
    import gc

    words = WordTable.from_text("low lower newest widest " * 50, "gpt2")
    was_enabled = gc.isenabled()
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            gc.collect()
            marker = [[] for _ in range(3)]  # young, tracked objects
            train(words, TrainerSettings(units="byte", merges=50))
            assert gc.isenabled() is enabled
            if not enabled:  # no collection ran, so only a freeze could have moved them
                young = {id(o) for o in gc.get_objects(0)}
                assert all(id(m) in young for m in marker)
    finally:
        (gc.enable if was_enabled else gc.disable)()


def test_train_leaves_the_run_in_the_oldest_generation():
    """`train(pause_gc=True)` hands its run to the collector's oldest generation, so the next young
    collections do not walk thousands of events; the collector is on again after it
    (if it was on before) and nothing stays frozen."""
    import gc

    words = WordTable.from_text("low lower newest widest " * 50 + "aaabdaaabac", "gpt2")
    gc.collect()
    was_enabled = gc.isenabled()
    gc.enable()
    try:
        run = train(words, TrainerSettings(units="byte", merges=200), pause_gc=True)
        young = {id(o) for o in gc.get_objects(0)} | {id(o) for o in gc.get_objects(1)}
        assert all(id(ev) not in young for ev in run.events)
        assert gc.isenabled() and gc.get_freeze_count() == 0
    finally:
        if not was_enabled:
            gc.disable()
