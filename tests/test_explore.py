"""The vocabulary explorer's engine (bpe_core/explore.py): records, search, overviews,
odd tokens and comparison, on small tokenizers built for each case and on GPT-2.

The small tokenizers are built to have exactly one unreachable token each, of the kind
each algorithm can have: a rank table's token that the pre-tokenizer cuts in three, a
merge list's token whose pair never meets (another merge takes its left part first), a
Unigram piece that scores below its own parts, a WordPiece entry the pre-tokenizer cuts.
"""
from __future__ import annotations

import functools
import json

import pytest
import regex
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models, pre_tokenizers

from bpe_core import Tokenizer, TrainerSettings, WordTable, train
from bpe_core.algorithms.unigram import UnigramModel
from bpe_core.algorithms.wordpiece import WordPieceTokenizer
from bpe_core.explore import (
    COMMON, FRAGMENT, MIXED, PATTERN_SECONDS, Query, VocabIndex, compare, corpus_texts, fragment_note,
    never_produced, overview, search, token_record, token_script, unreachable,
)
from bpe_core.formats import load_tokenizer_bytes
from bpe_core.pretrained import PRETRAINED, load_pretrained

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


@functools.lru_cache(maxsize=1)
def gpt2_index() -> VocabIndex:
    return VocabIndex.build(load_pretrained("gpt2"))


def rank_toy() -> Tokenizer:
    """Bytes, then "ab" (256) and "a b" (257): the pattern \\S+|\\s+ cuts "a b" in three."""
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({b"ab": 256, b"a b": 257, b"\xe6\x97": 258})
    return Tokenizer.from_ranks(name="toy", mergeable_ranks=ranks, pattern=r"\S+|\s+",
                                special_tokens={"<|end|>": 300})


def merge_toy() -> Tokenizer:
    """Characters a, b, c; merges a+b (1), b+c (2), a+bc (3). "abc" is never made:
    encoding it merges a+b first, and ab+c is not a merge."""
    tokens = [("a", False), ("b", False), ("c", False), ("ab", False), ("bc", False), ("abc", False)]
    return Tokenizer.from_merges(tokens=tokens, merges=[(0, 1), (1, 2), (0, 4)], units="char",
                                 end_of_word="none", pretokenizer="whitespace", base_size=3)


def test_rank_table_has_one_unreachable_token():
    tok = rank_toy()
    index = VocabIndex.build(tok)
    assert unreachable(index, tok) == (257,)
    assert len(index) == 260 and index.is_special(index.row(300))


def test_merge_list_has_one_unreachable_token():
    tok = merge_toy()
    index = VocabIndex.build(tok)
    assert unreachable(index, tok) == (5,)
    rec = token_record(index, tok, 5)
    assert rec.rank == 3 and [p.text for p in rec.tree.parts] == ["a", "bc"]
    assert [leaf.text for leaf in rec.tree.leaves()] == ["a", "b", "c"]


def test_trained_run_with_end_of_word_markers_is_all_reachable():
    run = train(WordTable.from_word_counts("low 5\nlower 2\nnewest 6\nwidest 3"),
                TrainerSettings(end_of_word="attached", merges=8))
    tok = run.tokenizer(8)
    index = VocabIndex.build(tok)
    assert unreachable(index, tok) == ()
    est = next(i for i in index.ids if tok.token_text(i) == "est</w>")
    rec = token_record(index, tok, est)
    assert rec.rank is not None and rec.tree.depth() >= 2 and rec.form == "est</w>"


def test_unigram_piece_below_its_parts_is_unreachable():
    model = UnigramModel.from_scores({"▁": -2.0, "a": -1.0, "b": -1.0, "▁a": -1.0, "▁ab": -10.0})
    index = VocabIndex.build(model)
    ab = model.piece_to_id("▁ab")
    assert unreachable(index, model) == (ab,)
    rec = token_record(index, model, ab)
    assert rec.score == -10.0 and rec.text == " ab" and rec.visible == "·ab"
    assert index.is_special(index.row(model.unk_id))


def test_wordpiece_continuations_and_an_unreachable_entry():
    tok = WordPieceTokenizer(["[UNK]", "h", "hug", "##s", "p", "##u", "##g", "a b"])
    index = VocabIndex.build(tok)
    assert unreachable(index, tok) == (7,)  # the whitespace pre-tokenizer cuts "a b"
    assert token_record(index, tok, 3).continues is True
    assert token_record(index, tok, 2).continues is False
    assert search(index, Query(continues=True)).ids == (3, 5, 6)


def test_word_internal_continuation_cut_by_the_pre_tokenizer_is_unreachable():
    """'##!' can only follow a word; BERT's pre-tokenizer always cuts '!' off into a word
    of its own, so no text gives it (the whitespace pre-tokenizer keeps "hug!" whole, and
    there it is reached). '##s' is reached after "hug" either way."""
    vocab = ["[UNK]", "hug", "##s", "##!", "!"]
    bert = WordPieceTokenizer(vocab, pretokenizer="bert")
    assert unreachable(VocabIndex.build(bert), bert) == (3,)
    assert bert.encode("hug!") == [1, 4] and bert.encode("hugs") == [1, 2]
    plain = WordPieceTokenizer(vocab)
    assert unreachable(VocabIndex.build(plain), plain) == ()


def test_word_internal_unigram_piece_below_its_parts_is_unreachable():
    """'xy' (no '▁': only inside a word) scores below 'x' + 'y', so Viterbi never picks
    it, after any word; 'x' and 'y' are reached after 'a'."""
    model = UnigramModel.from_scores({"▁": -2.0, "▁a": -1.0, "x": -1.0, "y": -1.0, "xy": -10.0})
    index = VocabIndex.build(model)
    assert unreachable(index, model) == (model.piece_to_id("xy"),)
    assert model.piece_to_id("x") in model.encode("ax")


def test_hf_wordpiece_and_unigram_files():
    vocab = {"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3, "able": 4}
    hf = HFTokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = load_tokenizer_bytes("tokenizer.json", hf.to_str().encode())
    index = VocabIndex.build(tok)
    assert index.kind == "tokenizer.json WordPiece"
    assert token_record(index, tok, 2).continues and unreachable(index, tok) == ()
    uni = HFTokenizer(models.Unigram([("<unk>", 0.0), ("▁a", -1.0), ("▁", -2.0), ("a", -2.0)], 0))
    uni.pre_tokenizer = pre_tokenizers.Metaspace()
    utok = load_tokenizer_bytes("tokenizer.json", uni.to_str().encode())
    uindex = VocabIndex.build(utok)
    assert uindex.kind == "tokenizer.json Unigram"
    assert token_record(uindex, utok, 1).text == " a"
    assert unreachable(uindex, utok) == ()


def test_hf_byte_level_bpe_tree_from_its_merges():
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {ch: i for i, ch in enumerate(alphabet)}
    for token in ("Ġl", "Ġlo", "Ġlow"):
        vocab[token] = len(vocab)
    hf = HFTokenizer(models.BPE(vocab, [("Ġ", "l"), ("Ġl", "o"), ("Ġlo", "w")]))
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok = load_tokenizer_bytes("tokenizer.json", hf.to_str().encode())
    index = VocabIndex.build(tok)
    rec = token_record(index, tok, vocab["Ġlow"])
    assert rec.text == " low" and rec.tree.rank == 2  # the merge list's index, 0-based as the file counts
    assert [leaf.text for leaf in rec.tree.leaves()] == ["·", "l", "o", "w"]


def test_gpt2_parity_solidgoldmagikarp_and_endoftext():
    tok = load_pretrained("gpt2")
    index = VocabIndex.build(tok)
    assert search(index, Query(text="SolidGoldMagikarp")).ids == (43453,)
    rec = token_record(index, tok, 43453)
    assert (rec.text, rec.form, rec.rank, rec.utf8, rec.special) == (" SolidGoldMagikarp", "ĠSolidGoldMagikarp",
                                                                     43453, True, False)
    # tiktoken's educational bpe: the parts are what the merge loop reaches below rank 43453
    assert [p.id for p in rec.tree.parts] == [15831, 42202]  # " Solid" + "GoldMagikarp"
    assert all(len(leaf.parts) == 0 and leaf.id < 256 for leaf in rec.tree.leaves())
    end = token_record(index, tok, 50256)
    assert end.text == "<|endoftext|>" and end.special and end.tree is None
    assert search(index, Query(special=True)).ids == (50256,)


def test_fragment_and_scripts():
    tok = rank_toy()
    index = VocabIndex.build(tok)
    rec = token_record(index, tok, 258)
    assert not rec.utf8 and rec.script == FRAGMENT and "U+65C0" in rec.fragment_of and rec.hex == "E6 97"
    assert fragment_note("é".encode()) is None
    assert token_script(" 12") == COMMON and token_script("aб") == MIXED and token_script("Москва") == "Cyrillic"
    assert search(index, Query(fragment=True)).total == 129  # 128 high bytes + E6 97


def test_search_modes_filters_sort_and_pages():
    tok = load_pretrained("gpt2")
    index = VocabIndex.build(tok)
    hits = search(index, Query(text=" the", mode="prefix"), per_page=10)
    assert hits.total == 50 and all(index.text[index.row(i)].startswith(" the") for i in hits.ids)
    assert len(hits.ids) == 10 and hits.pages == -(-hits.total // 10)
    last = search(index, Query(text=" the", mode="prefix"), per_page=10, page=10_000)
    assert last.page == last.pages and 0 < len(last.ids) <= 10
    ing = search(index, Query(text="ing", mode="suffix", leading_space=False, max_chars=4))
    assert all(index.text[index.row(i)].endswith("ing") and index.chars[index.row(i)] <= 4 for i in ing.ids)
    longest = search(index, Query(sort="bytes", descending=True), per_page=3).ids
    assert [index.nbytes_of[index.row(i)] for i in longest] == sorted(
        (index.nbytes_of[index.row(i)] for i in longest), reverse=True)
    assert index.nbytes_of[index.row(longest[0])] == max(index.nbytes_of)
    digits = search(index, Query(digits="only", min_chars=3, max_chars=3, leading_space=False), per_page=1000)
    assert digits.total == 777 and all(index.text[index.row(i)].isdigit() for i in digits.ids)
    ws = search(index, Query(whitespace=True))
    assert ws.total == len(overview(index).whitespace)
    cyr = search(index, Query(script="Latin", min_bytes=10, max_bytes=10))
    assert all(index.nbytes_of[index.row(i)] == 10 for i in cyr.ids)
    pat = search(index, Query(text=r"^ [A-Z][a-z]+[A-Z]", mode="pattern"))
    assert search(index, Query(text=r"^ Solid\w+karp$", mode="pattern")).ids == (43453,)
    brute = [i for i, t in zip(index.ids, index.text) if __import__("regex").search(r"^ [A-Z][a-z]+[A-Z]", t)]
    assert pat.total == len(brute) == 90  # the joined search finds what a token-by-token one does
    spaces = search(index, Query(text=r"\s\s", mode="pattern"), per_page=100, pattern_seconds=30)  # matches across joints, checked
    every = [i for i, t in zip(index.ids, index.text) if __import__("regex").search(r"\s\s", t)]
    assert spaces.total == len(every) and spaces.ids == tuple(every[:100])


@pytest.mark.parametrize("mode", ["substring", "prefix", "suffix"])
@pytest.mark.parametrize("needle", [" the", "e", "ing", " ", "\n", "\t", "a\nb", "ĠSolid", "\u00e9"])
def test_joined_find_equals_a_scan(mode, needle):
    """The search over the texts joined by newlines finds what testing each text finds."""
    index = gpt2_index()
    test = {"substring": lambda t: needle in t, "prefix": lambda t: t.startswith(needle),
            "suffix": lambda t: t.endswith(needle)}[mode]
    found = search(index, Query(text=needle, mode=mode), per_page=100_000).ids
    assert found == tuple(i for i, t in zip(index.ids, index.text) if test(t))


def test_bad_and_slow_patterns_are_value_errors():
    index = VocabIndex.build(rank_toy())
    with pytest.raises(ValueError, match="not a valid regular expression"):
        search(index, Query(text="(", mode="pattern"))
    with pytest.raises(ValueError, match="took longer than"):
        search(VocabIndex.build(load_pretrained("gpt2")), Query(text=r"(\w*)*x$", mode="pattern"),
               pattern_seconds=0.05)
    with pytest.raises(ValueError, match="Unknown script"):
        search(index, Query(script="Klingon"))
    with pytest.raises(ValueError, match="not in the toy vocabulary"):
        token_record(index, rank_toy(), 999)
    assert PATTERN_SECONDS <= 1


def test_overview_counts_digit_groups_and_whitespace():
    o = overview(VocabIndex.build(load_pretrained("gpt2")))
    assert o.size == 50_257 and o.specials == 1 and sum(n for _, n in o.by_bytes) == 50_256
    assert (3, 777, 1000) in o.digit_groups and o.whitespace and o.longest
    assert dict(o.by_script)["Latin"] > 40_000


def test_never_produced_on_the_builtin_corpora():
    tok = load_pretrained("gpt2")
    index = VocabIndex.build(tok)
    texts = corpus_texts(ROOT / "corpora")
    assert "languages/zh.txt" in texts and "english_sample.txt" in texts
    never = never_produced(index, tok, list(texts.values()))
    seen = {i for t in texts.values() for i in tok.encode(t)}
    assert 43453 in never and 50256 not in never
    assert len(never) == 50_256 - len(seen - {50256})


def test_compare_by_bytes():
    a, b = VocabIndex.build(rank_toy()), VocabIndex.build(load_pretrained("gpt2"))
    c = compare(a, b)
    assert c.size_a == 259 and c.shared == 258  # the bytes, "ab" and GPT-2's fragment E6 97; not "a b"
    assert c.only_a == (257,)
    assert sum(s for _, _, _, s in c.by_bytes) == c.shared
    assert c.size_b == 50_256 and len(c.only_b) == 50_256 - 258


@pytest.mark.parametrize("name", list(PRETRAINED))
def test_every_builtin_tokenizer_indexes(name):
    tok = load_pretrained(name)
    index = VocabIndex.build(tok)
    assert len(index) >= PRETRAINED[name].vocab_size - 300  # o200k and cl100k have gaps in their ids
    mid = index.ids[len(index) // 2]
    rec = token_record(index, tok, mid)
    assert rec.id == mid and rec.hex and json.dumps(rec.form)
    assert index.nbytes() > 1000 * len(index) // 20


# ------------------------------------------------------------ the columns made on first use


def eager_rows(tok) -> list[tuple]:
    """Each token as the index's columns hold it, computed token by token from the
    tokenizer (the build before the columns were made on first use): (text, bytes,
    characters, script, special, fragment, leading space, has a digit, digits only,
    whitespace only, continues a word)."""
    specials = set(tok.special_tokens.values()) | ({tok.unk_id} if isinstance(getattr(tok, "unk_id", None), int) else set())
    prefix = getattr(tok, "prefix", None) if isinstance(tok, WordPieceTokenizer) else (
        "##" if getattr(tok, "model_type", None) == "WordPiece" else None)
    out = []
    for tid in VocabIndex.build(tok).ids:
        data = tok.token_bytes(tid)
        try:
            text, fragment = data.decode("utf-8"), False
        except UnicodeDecodeError:
            text, fragment = "".join(f"<{b:02X}>" for b in data), True
        if tid in specials:
            text = tok.token_text(tid)
        digit = not fragment and regex.search(r"\d", text) is not None  # a decimal digit of any script
        form = tok.token_text(tid)
        out.append((text, data, len(data) if fragment else len(text), FRAGMENT if fragment else token_script(text),
                    tid in specials, fragment, not fragment and text[:1] == " ", digit,
                    digit and text.strip(" ").isdecimal(), text.isspace(),
                    bool(prefix) and form.startswith(prefix) and len(form) > len(prefix)))
    return out


EAGER_FILTERS = {  # each filter of a Query, and which eager row it keeps
    "script Latin": (Query(script="Latin"), lambda r: r[3] == "Latin"),
    "script Common": (Query(script=COMMON), lambda r: r[3] == COMMON),
    "script Mixed": (Query(script=MIXED), lambda r: r[3] == MIXED),
    "script Han": (Query(script="Han"), lambda r: r[3] == "Han"),
    "script Fragment": (Query(script=FRAGMENT), lambda r: r[3] == FRAGMENT),
    "3-5 characters": (Query(min_chars=3, max_chars=5), lambda r: 3 <= r[2] <= 5),
    "8+ bytes": (Query(min_bytes=8), lambda r: len(r[1]) >= 8),
    "at most 1 byte": (Query(max_bytes=1), lambda r: len(r[1]) <= 1),
    "leading space": (Query(leading_space=True), lambda r: r[6]),
    "no leading space": (Query(leading_space=False), lambda r: not r[6]),
    "has a digit": (Query(digits="some"), lambda r: r[7]),
    "digits only": (Query(digits="only"), lambda r: r[8]),
    "no digit": (Query(digits="none"), lambda r: not r[7]),
    "whitespace only": (Query(whitespace=True), lambda r: r[9]),
    "fragments": (Query(fragment=True), lambda r: r[5]),
    "no fragment": (Query(fragment=False), lambda r: not r[5]),
    "special": (Query(special=True), lambda r: r[4]),
    "not special": (Query(special=False), lambda r: not r[4]),
    "continues": (Query(continues=True), lambda r: r[10]),
    "does not continue": (Query(continues=False), lambda r: not r[10]),
    "the + Latin, no space": (Query(text="the", script="Latin", leading_space=False), lambda r: "the" in r[0] and r[3] == "Latin" and not r[6]),
}


@functools.lru_cache(maxsize=2)
def eager(name: str) -> list[tuple]:
    return eager_rows(load_pretrained(name))


@pytest.mark.parametrize("name", ["gpt2", "bert-base-uncased"])
def test_columns_made_on_first_use_equal_the_eager_build(name):
    """The columns (lengths, script, flags) made on first use, and the per-row answers
    given before they are made, equal a token-by-token build from the tokenizer."""
    index = VocabIndex.build(load_pretrained(name))
    rows = eager(name)
    assert len(index) == len(rows) and index.text == tuple(r[0] for r in rows) and index.data == tuple(r[1] for r in rows)
    before = [(index.n_chars(i), index.n_bytes(i), index.script_name(i), index.is_special(i), index.is_fragment(i),
               index.continues(i)) for i in range(len(index))]
    assert not index.is_complete()  # answering for one row at a time makes no column
    assert before == [(r[2], len(r[1]), r[3], r[4], r[5], r[10]) for r in rows]
    assert index.complete().is_complete()
    assert list(index.chars) == [r[2] for r in rows] and list(index.nbytes_of) == [len(r[1]) for r in rows]
    assert [index.script_name(i) for i in range(len(index))] == [r[3] for r in rows]
    assert [index.flags[i] & 1 > 0 for i in range(len(index))] == [r[4] for r in rows]  # special, read from the column


@pytest.mark.parametrize("name", ["gpt2", "bert-base-uncased"])
@pytest.mark.parametrize("label", list(EAGER_FILTERS))
def test_every_filter_on_a_fresh_index_equals_the_eager_build(name, label):
    """A filter on a new index (its columns made by that first search) finds exactly the
    tokens a token-by-token build keeps; so does a sort by length."""
    query, keep = EAGER_FILTERS[label]
    index = VocabIndex.build(load_pretrained(name))
    found = search(index, query, per_page=10**6)
    assert found.ids == tuple(i for i, r in zip(index.ids, eager(name)) if keep(r))
    assert (name, label) != ("gpt2", "special") or found.ids == (50256,)  # the filter finds something real


def test_sorts_on_a_fresh_index_equal_the_eager_build():
    index = VocabIndex.build(load_pretrained("gpt2"))
    rows = eager("gpt2")
    by_chars = search(index, Query(sort="length", descending=True), per_page=10**6).ids
    assert by_chars == tuple(sorted(index.ids, key=lambda i: -rows[i][2]))
    by_bytes = search(VocabIndex.build(load_pretrained("gpt2")), Query(sort="bytes"), per_page=10**6).ids
    assert by_bytes == tuple(sorted(index.ids, key=lambda i: len(rows[i][1])))


def test_a_first_view_makes_no_column():
    """What a page shows first (a page of all tokens, a text search, a link's card) needs
    none of the filters' columns; the first filter makes them."""
    tok = load_pretrained("gpt2")
    index = VocabIndex.build(tok)
    assert search(index, Query()).ids[:3] == (0, 1, 2)
    assert search(index, Query(text="SolidGoldMagikarp")).ids == (43453,)
    assert search(index, Query(text=r"karp$", mode="pattern")).total > 0
    rec = token_record(index, tok, 43453)
    assert (rec.script, rec.n_chars, rec.n_bytes, rec.special) == ("Latin", 18, 18, False)
    assert not index.is_complete()
    search(index, Query(digits="only"))
    assert index.is_complete()


def test_columns_are_made_once_when_sessions_ask_together():
    import threading

    index = VocabIndex.build(load_pretrained("gpt2"))
    got, start = [], threading.Barrier(4)

    def ask():
        start.wait()
        got.append((index.flags, index.script, index.chars, index.nbytes_of))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 4 and all(all(a is b for a, b in zip(got[0], g)) for g in got)


def test_an_index_of_ids_with_gaps_finds_every_row():
    """Rows of ids after a gap (o200k's special tokens) come from a small table; the rest
    are the id minus the first."""
    index = VocabIndex.build(load_pretrained("o200k_base"))
    assert index.row(0) == 0 and index.row(199_997) == 199_997
    assert index.row(199_999) == 199_998 and index.row(200_018) == 199_999
    assert 199_998 not in index and 200_018 in index and -1 not in index and "1" not in index
    assert index.is_special(index.row(200_018)) and not index.is_special(index.row(199_997))
    with pytest.raises(ValueError, match="not in the o200k_base vocabulary"):
        index.row(199_998)
