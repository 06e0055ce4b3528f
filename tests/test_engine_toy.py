"""Golden toy cases everyone knows, with the answers derived by hand in the docstrings.

- Sennrich, Haddow & Birch (2016), Algorithm 1: {low 5, lower 2, newest 6, widest 3},
  a separate `</w>`, 10 merges. The expected list is derived step by step below and also
  computed by running the paper's own code (get_stats / merge_vocab), reimplemented here.
  On Python 3.7+ its `max(pairs, key=pairs.get)` returns the first maximal key in dict
  insertion order, which is the order in which pairs are first seen reading the words in
  order, each left to right: our "first-seen" tie rule.
- The same corpus under the two other tie rules gives other lists.
- Wikipedia's "aaabdaaabac" (Z=aa, Y=ab, X=ZY) and the Hugging Face course's
  hug/pug/pun/bun/hugs.
"""
from __future__ import annotations

import collections
import re
from pathlib import Path

import pytest

from bpe_core import TIE_RULES, TrainerSettings, WordTable, train

REPO = Path(__file__).resolve().parent.parent
SENNRICH = {"l o w </w>": 5, "l o w e r </w>": 2, "n e w e s t </w>": 6, "w i d e s t </w>": 3}


def sennrich_algorithm1(vocab: dict[str, int], num_merges: int):
    """The paper's Algorithm 1 (get_stats, merge_vocab), returning for each merge the
    pair, its count and every pair tied at that count in dict (first-seen) order."""

    def get_stats(vocab):
        pairs = collections.defaultdict(int)
        for word, freq in vocab.items():
            symbols = word.split()
            for i in range(len(symbols) - 1):
                pairs[symbols[i], symbols[i + 1]] += freq
        return pairs

    def merge_vocab(pair, v_in):
        v_out = {}
        bigram = re.escape(" ".join(pair))
        p = re.compile(r"(?<!\S)" + bigram + r"(?!\S)")
        for word in v_in:
            w_out = p.sub("".join(pair), word)
            v_out[w_out] = v_in[word]
        return v_out

    steps = []
    for _ in range(num_merges):
        pairs = get_stats(vocab)
        best = max(pairs, key=pairs.get)
        steps.append((best, pairs[best], [p for p, c in pairs.items() if c == pairs[best]]))
        vocab = merge_vocab(best, vocab)
    return steps


def _sennrich_run(tie_break="first-seen", merges=10):
    words = WordTable.from_word_counts((REPO / "corpora" / "sennrich_algorithm1.txt").read_text())
    return train(words, TrainerSettings(end_of_word="separate", tie_break=tie_break, merges=merges))


#: (pair, count, every pair tied at that count, winner first), derived in
#: test_sennrich_algorithm1_reference_gives_the_derived_list.
SENNRICH_STEPS = [
    (("e", "s"), 9, [("e", "s"), ("s", "t"), ("t", "</w>")]),
    (("es", "t"), 9, [("es", "t"), ("t", "</w>")]),
    (("est", "</w>"), 9, [("est", "</w>")]),
    (("l", "o"), 7, [("l", "o"), ("o", "w")]),
    (("lo", "w"), 7, [("lo", "w")]),
    (("n", "e"), 6, [("n", "e"), ("e", "w"), ("w", "est</w>")]),
    (("ne", "w"), 6, [("ne", "w"), ("w", "est</w>")]),
    (("new", "est</w>"), 6, [("new", "est</w>")]),
    (("low", "</w>"), 5, [("low", "</w>")]),
    (("w", "i"), 3, [("w", "i"), ("i", "d"), ("d", "est</w>")]),
]


def test_sennrich_algorithm1_reference_gives_the_derived_list():
    """Counting pairs weighted by word count (low 5, lower 2, newest 6, widest 3):

    1. e s = 6+3 = 9, s t = 9, t </w> = 9 (newest, widest); w e = 2+6 = 8; l o = o w = 7.
       Three pairs tie at 9; reading "newest" left to right, e s comes first -> es.
    2. es t = 9, t </w> = 9 -> es t is seen first (n e w es t </w>) -> est.
    3. est </w> = 9, alone -> est</w>.
    4. l o = 7, o w = 7 (w e is down to 2: newest's e went into es) -> l o -> lo.
    5. lo w = 7 -> low.
    6. n e = 6, e w = 6, w est</w> = 6 (all in newest), low </w> = 5 -> n e -> ne.
    7. ne w = 6, w est</w> = 6 -> ne w -> new.
    8. new est</w> = 6 -> newest</w>.
    9. low </w> = 5 -> low</w>.
    10. w i = i d = d est</w> = 3 (widest); low e = e r = r </w> = 2 -> w i -> wi.
    """
    assert sennrich_algorithm1(dict(SENNRICH), 10) == SENNRICH_STEPS


def test_sennrich_algorithm1_merges():
    """The engine (first-seen, separate </w>) makes the paper's ten merges, in order."""
    run = _sennrich_run()
    assert [ev.pair_text for ev in run.events] == [step[0] for step in sennrich_algorithm1(dict(SENNRICH), 10)]
    assert [ev.pair_text for ev in run.events] == [step[0] for step in SENNRICH_STEPS]
    assert [ev.token for ev in run.events] == [
        "es", "est", "est</w>", "lo", "low", "ne", "new", "newest</w>", "low</w>", "wi"
    ]


@pytest.mark.parametrize("k", range(10))
def test_sennrich_algorithm1_counts_and_ties_at_each_step(k):
    """Every step's count, its tie count and the tied pairs (as text, through
    run.displays), in first-seen order with the winner first, equal the paper's."""
    run = _sennrich_run()
    ev = run.events[k]
    pair, count, ties = sennrich_algorithm1(dict(SENNRICH), 10)[k]
    assert (ev.pair_text, ev.count) == (pair, count) == SENNRICH_STEPS[k][:2]
    assert ev.tie_count == len(ties) == len(ev.ties)
    assert [(run.displays[a], run.displays[b]) for a, b in ev.ties] == ties
    assert (run.displays[ev.pair[0]], run.displays[ev.pair[1]]) == ev.pair_text
    assert run.displays[ev.token_id] == ev.token
    assert ev.step == ev.rank == k + 1
    assert ev.tie_break == "first-seen"


def test_sennrich_base_vocabulary_and_figures():
    """Base symbols: </w> and the ten letters d e i l n o r s t w, in code-point order
    ('<' is 0x3C, before the letters), so ids 0..10; each merge adds one token.

    Corpus length before: (3+1)*5 + (5+1)*2 + (6+1)*6 + (6+1)*3 = 20+12+42+21 = 95 tokens.
    After 10 merges: low -> [low</w>] (1*5), lower -> [low e r </w>] (4*2),
    newest -> [newest</w>] (1*6), widest -> [wi d est</w>] (3*3): 5+8+6+9 = 28.
    """
    run = _sennrich_run()
    assert run.displays[:11] == ("</w>", "d", "e", "i", "l", "n", "o", "r", "s", "t", "w")
    assert run.base_size == 11
    assert [ev.vocab_size for ev in run.events] == list(range(12, 22))
    assert run.corpus_length(0) == 95
    assert run.corpus_length(10) == run.events[-1].corpus_length == 28
    final = run.segmentations(10)
    assert [[run.displays[t] for t in final[w]] for w in range(4)] == [
        ["low</w>"], ["low", "e", "r", "</w>"], ["newest</w>"], ["wi", "d", "est</w>"]
    ]
    assert run.stop_reason == "reached 10 merges"


def test_sennrich_segmentation_after_step_4():
    """After es, est, est</w>, lo: low -> lo w </w>; lower -> lo w e r </w>;
    newest -> n e w est</w>; widest -> w i d est</w>."""
    run = _sennrich_run()
    seg = run.segmentations(4)
    assert [" ".join(run.displays[t] for t in seg[w]) for w in range(4)] == [
        "lo w </w>", "lo w e r </w>", "n e w est</w>", "w i d est</w>"
    ]


def test_sennrich_under_lexicographic_tie_rule():
    """Lexicographic (subword-nmt): the largest pair as a tuple of strings wins.

    1. e s, s t, t </w> tie at 9; ('t', '</w>') > ('s', 't') > ('e', 's') -> t</w>.
    2. e s = 9, s t</w> = 9 -> ('s', 't</w>') is larger -> st</w>.
    3. e st</w> = 9 -> est</w>.
    4. l o = o w = 7 -> ('o', 'w') > ('l', 'o') -> ow; 5. l ow = 7 -> low.
    """
    run = _sennrich_run("lexicographic")
    assert [ev.pair_text for ev in run.events[:5]] == [
        ("t", "</w>"), ("s", "t</w>"), ("e", "st</w>"), ("o", "w"), ("l", "ow")
    ]
    ev = run.events[0]
    assert [(run.displays[a], run.displays[b]) for a, b in ev.ties] == [("t", "</w>"), ("s", "t"), ("e", "s")]
    assert ev.tie_break == "lexicographic"


def test_sennrich_under_smallest_id_tie_rule():
    """Smallest id (Hugging Face): ids </w>=0 d=1 e=2 i=3 l=4 n=5 o=6 r=7 s=8 t=9 w=10,
    new tokens from 11 on.

    1. e s = (2, 8), s t = (8, 9), t </w> = (9, 0) tie at 9 -> (2, 8) e s -> es = 11.
    2. es t = (11, 9), t </w> = (9, 0) tie at 9 -> (9, 0) t </w> -> t</w> = 12.
    3. es t</w> = 9 -> est</w> = 13.
    4. l o = (4, 6), o w = (6, 10) tie at 7 -> l o.
    """
    run = _sennrich_run("smallest-id")
    assert [ev.pair_text for ev in run.events[:4]] == [("e", "s"), ("t", "</w>"), ("es", "t</w>"), ("l", "o")]
    assert run.events[1].ties == ((9, 0), (11, 9))
    assert [ev.token_id for ev in run.events[:3]] == [11, 12, 13]


def test_the_three_tie_rules_give_three_different_lists():
    """The lesson the app teaches: same corpus, same counts, three merge lists."""
    lists = {tie: tuple(ev.pair_text for ev in _sennrich_run(tie).events) for tie in TIE_RULES}
    assert len(set(lists.values())) == 3
    # ...but every rule merges a pair with the top count at each step.
    assert len({tuple(ev.count for ev in _sennrich_run(tie).events[:3]) for tie in TIE_RULES}) == 1


def _wikipedia_run(tie_break):
    text = (REPO / "corpora" / "wikipedia_aaabdaaabac.txt").read_text()
    assert text == "aaabdaaabac"
    return train(WordTable.from_text(text, "none"), TrainerSettings(tie_break=tie_break, merges=3))


def test_wikipedia_aaabdaaabac_smallest_id():
    """Wikipedia's "Byte pair encoding": aaabdaaabac, no pre-tokenization, characters,
    no end of word. Ids: a=0 b=1 c=2 d=3.

    Pairs (overlapping, as counted): aa 4, ab 2, bd 1, da 1, ba 1, ac 1 -> aa = Z (id 4),
    giving Z a b d Z a b a c. Now Za 2 and ab 2 tie: (Z, a) = (4, 0), (a, b) = (0, 1);
    the smaller is ab = Y (id 5): Z Y d Z Y a c. Then ZY 2 -> X (id 6): X d X a c.
    """
    run = _wikipedia_run("smallest-id")
    assert [ev.pair_text for ev in run.events] == [("a", "a"), ("a", "b"), ("aa", "ab")]
    assert [ev.count for ev in run.events] == [4, 2, 2]
    assert [ev.tie_count for ev in run.events] == [1, 2, 1]
    assert run.events[1].ties == ((0, 1), (4, 0))
    assert [run.displays[t] for t in run.segmentations(3)[0]] == ["aaab", "d", "aaab", "a", "c"]
    assert [run.displays[t] for t in run.segmentations(2)[0]] == ["aa", "ab", "d", "aa", "ab", "a", "c"]


def test_wikipedia_aaabdaaabac_first_seen():
    """First-seen breaks the step-2 tie the other way: in Z a b d Z a b a c the pair Za
    starts at position 0 and ab at position 1, so Za is seen first: aa + a -> aaa. Then
    aaa b 2 is the only pair at 2 -> aaab. Same final tokens, different road."""
    run = _wikipedia_run("first-seen")
    assert [ev.pair_text for ev in run.events] == [("a", "a"), ("aa", "a"), ("aaa", "b")]
    assert [run.displays[a] + "+" + run.displays[b] for a, b in run.events[1].ties] == ["aa+a", "a+b"]
    assert [run.displays[t] for t in run.segmentations(3)[0]] == ["aaab", "d", "aaab", "a", "c"]


def test_wikipedia_merge_counts_overlap_but_merges_do_not():
    """"aaa" holds two overlapping aa pairs; merging left to right makes one: the first
    event counts aa 4 times but merges only 2 occurrences, so the corpus of 11 symbols
    shrinks to 9."""
    ev = _wikipedia_run("first-seen").events[0]
    assert (ev.count, ev.merged_occurrences, ev.corpus_length) == (4, 2, 9)


def test_hf_course_merges():
    """Hugging Face course, chapter 6: hug 10, pug 5, pun 12, bun 4, hugs 5, no marker.

    Pairs: ug = 10+5+5 = 20, pu = 5+12 = 17, un = 12+4 = 16, hu = 10+5 = 15, gs 5, bu 4.
    1. ug 20 -> ug. 2. un 16 (pu is now 12: pug lost its u) -> un. 3. h ug 15 -> hug.
    No ties, so all three tie rules agree.
    """
    words = WordTable.from_word_counts((REPO / "corpora" / "hf_course.txt").read_text())
    for tie in TIE_RULES:
        run = train(words, TrainerSettings(tie_break=tie, merges=3))
        assert [ev.pair_text for ev in run.events] == [("u", "g"), ("u", "n"), ("h", "ug")]
        assert [ev.count for ev in run.events] == [20, 16, 15]
        assert [ev.tie_count for ev in run.events] == [1, 1, 1]


@pytest.mark.parametrize("marker", ["</w>", "_"])
def test_attached_marker_is_part_of_the_last_symbol(marker):
    """subword-nmt's convention: the marker glued to the last symbol, so `w</w>` and `w`
    are different symbols: newest is n e w e s t</w>, so there is no t </w> pair.

    1. e s = 6+3 = 9 and s t</w> = 9 tie; e s is seen first (in newest) -> es.
    2. es t</w> = 9 -> est</w>, one step earlier than with a separate marker.
    3. l o = 7 (low, lower), o w</w> = 5, o w = 2 -> lo.
    """
    words = WordTable.from_word_counts((REPO / "corpora" / "sennrich_algorithm1.txt").read_text())
    run = train(words, TrainerSettings(end_of_word="attached", marker=marker, merges=3))
    assert [ev.pair_text for ev in run.events] == [("e", "s"), ("es", "t" + marker), ("l", "o")]
    assert run.events[1].token == "est" + marker
    assert "t" + marker in run.displays[: run.base_size]
