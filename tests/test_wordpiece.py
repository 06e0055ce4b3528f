"""WordPiece: training against the course's algorithm, encoding against Hugging Face.

Training is checked merge by merge against `course_wordpiece` below, the algorithm of
the Hugging Face course (chapter 6, "WordPiece tokenization") typed again from its
description: a full recount of pair and token counts at every step, and the first pair
of the highest score in the order the pairs were first met (the course loops over its
pair dictionary and keeps a pair only if it scores strictly higher). Scores here are
Fractions, so equal scores are equal for sure. Encoding is checked against Hugging
Face's `tokenizers.models.WordPiece` given the same vocabulary.
"""
from __future__ import annotations

import json
import pickle
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import decoders, models, pre_tokenizers

from bpe_core import TIE_RULES, WordTable
from bpe_core.tie_rules import tie_rule
from bpe_core.__main__ import main as cli_main
from bpe_core.algorithms.wordpiece import (
    BERT_SPECIAL_TOKENS,
    WordPieceSettings,
    WordPieceTokenizer,
    WordPieceTrainer,
    train_wordpiece,
    wordpiece_pieces,
    wordpiece_word_table,
)
from stress_strings import stress_strings

REPO = Path(__file__).resolve().parent.parent
COURSE = "hug 10\npug 5\npun 12\nbun 4\nhugs 5"


# ---- the oracle: the course's algorithm, recounting everything at every step ----------
def course_wordpiece(words: WordTable, merges: int, tie_break: str = "first-seen") -> list[dict]:
    """Run the course's WordPiece for `merges` steps (or until no pair is left).

    Each step returns the full ranking (pairs by score, best first, ties in tie-rule
    order) with counts, the chosen pair, the new token, the pair BPE would pick, and the
    words after the merge.
    """
    specials = list(BERT_SPECIAL_TOKENS)
    alphabet = sorted({w[0] for w in words.words} | {"##" + ch for w in words.words for ch in w[1:]})
    vocab = specials + [s for s in alphabet if s not in specials]
    splits = [[ch if i == 0 else "##" + ch for i, ch in enumerate(w)] for w in words.words]
    steps = []
    for _ in range(merges):
        tokens: dict[str, int] = {}
        pairs: dict[tuple[str, str], int] = {}  # insertion order = first seen
        for split, c in zip(splits, words.counts):
            for i, tok in enumerate(split):
                tokens[tok] = tokens.get(tok, 0) + c
                if i + 1 < len(split):
                    pairs[(tok, split[i + 1])] = pairs.get((tok, split[i + 1]), 0) + c
        if not pairs:
            break
        score = {p: Fraction(n, tokens[p[0]] * tokens[p[1]]) for p, n in pairs.items()}
        order = _rule_order(list(pairs), tie_break, vocab)
        ranking = sorted(order, key=lambda p: -score[p])  # stable: ties keep the rule's order
        best = ranking[0]
        if tie_break == "first-seen":  # the course's own loop, as it is written
            course_best, top = None, None
            for p, sc in score.items():
                if top is None or top < sc:
                    course_best, top = p, sc
            assert course_best == best
        bpe = sorted(order, key=lambda p: -pairs[p])[0]
        a, b = best
        new = a + b[2:]
        for w, split in enumerate(splits):
            out, i = [], 0
            while i < len(split):
                if i + 1 < len(split) and (split[i], split[i + 1]) == best:
                    out.append(new)
                    i += 2
                else:
                    out.append(split[i])
                    i += 1
            splits[w] = out
        vocab.append(new)
        steps.append({
            "pair": best, "token": new, "score": score[best], "count": pairs[best],
            "left": tokens[a], "right": tokens[b],
            "ties": [p for p in ranking if score[p] == score[best]],
            "ranking": [(p, pairs[p], tokens[p[0]], tokens[p[1]]) for p in ranking],
            "bpe": (bpe, pairs[bpe]),
            "splits": [tuple(s) for s in splits],
            "vocab_size": len(set(vocab)),
            "corpus_length": sum(len(s) * c for s, c in zip(splits, words.counts)),
        })
    return steps


def _rule_order(pairs: list, tie_break: str, vocab: list[str]) -> list:
    """The pairs (in order of first occurrence) in the tie rule's order: its key kind and
    direction, as `bpe_core.tie_rules` declares them."""
    rule = tie_rule(tie_break)
    if rule.key == "first-seen":
        return pairs[::-1] if rule.largest_first else pairs
    if rule.key == "texts":
        return sorted(pairs, reverse=rule.largest_first)
    ids: dict[str, int] = {}
    for t in vocab:
        ids.setdefault(t, len(ids))
    return sorted(pairs, key=lambda p: (ids[p[0]], ids[p[1]]), reverse=rule.largest_first)


def assert_same_as_course(words: WordTable, merges: int, tie_break: str = "first-seen", top_n: int = 8) -> None:
    expected = course_wordpiece(words, merges, tie_break)
    run = train_wordpiece(words, WordPieceSettings(merges=merges, tie_break=tie_break, top_n=top_n))
    text = run.tokens
    assert run.steps == len(expected)
    for ev, exp in zip(run.events, expected):
        where = f"step {ev.step}"
        assert ev.pair_text == exp["pair"], where
        assert ev.token == exp["token"], where
        assert ev.score_fraction == exp["score"] and ev.score == float(exp["score"]), where
        assert (ev.count, ev.left_count, ev.right_count) == (exp["count"], exp["left"], exp["right"]), where
        assert [(text[a], text[b]) for a, b in ev.ties] == exp["ties"][:64], where
        assert ev.tie_count == len(exp["ties"]), where
        rows = [((text[a], text[b]), n, left, r) for (a, b), n, left, r in ev.table]
        assert rows == exp["ranking"][:top_n], where
        assert (ev.bpe_pair_text, ev.bpe_count) == exp["bpe"], where
        assert (ev.vocab_size, ev.corpus_length) == (exp["vocab_size"], exp["corpus_length"]), where
        segs = run.segmentations(ev.step)
        assert [tuple(text[t] for t in segs[w]) for w in range(len(words))] == exp["splits"], where
    assert run.steps == merges or run.stop_reason.startswith("no pairs")


# ---- training: the course's corpus ----------------------------------------------------
def test_course_corpus_merges_hu_gs_third_not_hug():
    """The course corpus: hug 10, pug 5, pun 12, bun 4, hugs 5.

    Step 1: (##g, ##s) scores 5 / (20 x 5) = 1/20, the best, though (##u, ##g) occurs
    20 times (20 / (36 x 20) = 1/36): BPE would merge (##u, ##g).
    Step 2: every pair scores 1/36 (six-way tie); the first seen, (h, ##u), wins -> hu.
    Step 3: the course's text says (hu, ##g) scores 1/15 and merges "hug". It does not:
    hu occurs 15 times and ##g 15 times (hug 10 + pug 5), so (hu, ##g) scores
    10 / (15 x 15) = 2/45 ~ 0.044, while (hu, ##gs) scores 5 / (15 x 5) = 1/15 ~ 0.067.
    The algorithm merges hu + ##gs -> hugs (huggingface/course issue 500); "hug" comes
    fourth, at 10 / (10 x 15) = 1/15.
    """
    words = WordTable.from_word_counts(COURSE)
    run = train_wordpiece(words, WordPieceSettings(merges=4))
    assert run.tokens[: run.base_size] == (*BERT_SPECIAL_TOKENS, "##g", "##n", "##s", "##u", "b", "h", "p")
    got = [(ev.pair_text, ev.token, ev.score_fraction, ev.tie_count) for ev in run.events]
    assert got == [
        (("##g", "##s"), "##gs", Fraction(1, 20), 1),
        (("h", "##u"), "hu", Fraction(1, 36), 6),
        (("hu", "##gs"), "hugs", Fraction(1, 15), 1),
        (("hu", "##g"), "hug", Fraction(1, 15), 1),
    ]
    first, third = run.events[0], run.events[2]
    assert first.bpe_pair_text == ("##u", "##g") and first.bpe_count == 20 and not first.bpe_agrees
    hu_g = next(r for r in third.table if (run.tokens[r.pair[0]], run.tokens[r.pair[1]]) == ("hu", "##g"))
    assert (hu_g.count, hu_g.left_count, hu_g.right_count, hu_g.fraction) == (10, 15, 15, Fraction(2, 45))
    assert (third.score_numerator, third.score_denominator) == (5, 75)
    assert_same_as_course(words, 50)


@pytest.mark.parametrize("tie_break", TIE_RULES)
def test_course_corpus_every_tie_rule(tie_break):
    """Every rule's run equals the course's loop ordered by that rule."""
    assert_same_as_course(WordTable.from_word_counts(COURSE), 50, tie_break)


@pytest.mark.parametrize("tie_break, winner", [
    ("first-seen", ("h", "##u")), ("lexicographic", ("p", "##u")), ("smallest-id", ("##u", "##g")),
])
def test_course_corpus_tie_winners(tie_break, winner):
    """Step 2 is a six-way tie at 1/36: each rule picks its own winner."""
    run = train_wordpiece(WordTable.from_word_counts(COURSE), WordPieceSettings(merges=2, tie_break=tie_break))
    assert run.events[1].pair_text == winner


# ---- training: larger corpora ---------------------------------------------------------
@pytest.fixture(scope="module")
def english_words() -> WordTable:
    return WordTable.from_text((REPO / "corpora" / "english_sample.txt").read_text(encoding="utf-8"), "whitespace")


def test_english_sample_matches_course_algorithm(english_words):
    assert_same_as_course(english_words, 250, top_n=20)


@pytest.mark.parametrize("tie_break", ["lexicographic", "smallest-id"])
def test_english_sample_other_tie_rules(english_words, tie_break):
    assert_same_as_course(english_words, 120, tie_break, top_n=5)


def test_bert_words_to_the_end():
    """Pre-tokenized as BERT does (punctuation apart), trained until no pair is left."""
    words = wordpiece_word_table((REPO / "corpora" / "multilingual_short.txt").read_text(encoding="utf-8"), "bert")
    assert "," in words.words or "!" in words.words
    assert_same_as_course(words, 10_000, top_n=3)


word_lists = st.lists(
    st.tuples(st.text(alphabet="abc#é", min_size=1, max_size=7), st.integers(1, 6)), min_size=1, max_size=10
).filter(lambda ws: any(len(w) > 1 for w, _ in ws))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(word_lists, st.sampled_from(TIE_RULES), st.integers(0, 6))
def test_random_corpora_match_course_algorithm(pairs, tie_break, top_n):
    """Small random corpora (with '#' in words, where strings such as '##a' can be both a
    word start and a continuation), every tie rule, until no pair is left."""
    words = WordTable.from_word_counts("\n".join(f"{w} {c}" for w, c in pairs))
    assert_same_as_course(words, 200, tie_break, top_n)


# ---- the run ----------------------------------------------------------------------------
def test_run_replay_vocab_and_stop(english_words):
    run = train_wordpiece(english_words, WordPieceSettings(merges=None, vocab_size=300))
    assert run.vocab_size(run.steps) == 300 and "vocabulary size of 300" in run.stop_message()
    assert run.vocab(0) == run.tokens[: run.base_size] and len(run.vocab()) == 300
    assert [ev.token for ev in run.events if ev.is_new_token] == list(run.tokens[run.base_size:])
    # Replay at step k equals training stopped at k.
    for k in (0, 1, 17, run.steps):
        again = WordPieceTrainer(english_words, WordPieceSettings(merges=k))
        list(again.iter_merges())
        assert [list(s) for s in run.segmentations(k).values()] == again.segmentations
        assert run.corpus_length(k) == again.corpus_length
    # A merge re-scores exactly the pairs left that contain a, b or ab, or whose count changed.
    for ev in run.events[::25]:
        before, after = pair_counts(run, ev.step - 1), pair_counts(run, ev.step)
        parts = {*ev.pair, ev.token_id}
        expected = {p for p in after if parts & set(p) or after[p] != before.get(p)}
        assert ev.rescored_pairs == len(expected), ev.step
        assert ev.count_changed_pairs == sum(after[p] != before.get(p) for p in after), ev.step
    assert pickle.loads(pickle.dumps(run)).events == run.events


def pair_counts(run, k: int) -> dict:
    out: dict = {}
    for w, seg in run.segmentations(k).items():
        for p in zip(seg, seg[1:]):
            out[p] = out.get(p, 0) + run.words.counts[w]
    return out


def test_tokenizer_at_a_step_uses_that_vocabulary():
    run = train_wordpiece(WordTable.from_word_counts(COURSE), WordPieceSettings(merges=4))
    assert run.tokenizer(2).tokenize("hugs") == ["hu", "##gs"]
    assert run.tokenizer(0).tokenize("hugs") == ["h", "##u", "##g", "##s"]
    assert run.tokenizer(4).tokenize("hugs bugs") == ["hugs", "b", "##u", "##gs"]
    assert run.tokenizer(4).tokenize("mug") == ["[UNK]"]


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: WordPieceSettings(tie_break="random"), "Unknown tie rule"),
        (lambda: WordPieceSettings(merges=-1), "at least 0"),
        (lambda: WordPieceSettings(prefix=""), "prefix is empty"),
        (lambda: WordPieceTrainer(WordTable.from_word_counts("a 3\nb 2")), "Nothing to merge"),
        (lambda: WordPieceTrainer(WordTable.from_word_counts(COURSE), WordPieceSettings(vocab_size=5)),
         "at least 12"),
        (lambda: train_wordpiece(WordTable.from_word_counts(COURSE)).segmentations(99), "out of range"),
        (lambda: WordPieceTokenizer(["a", "##b"]), "unknown token '[UNK]' is not in the vocabulary"),
        (lambda: WordPieceTokenizer(["[UNK]", "a", "a"]), "twice"),
        (lambda: WordPieceTokenizer(["[UNK]"], pretokenizer="bogus"), "Unknown pre-tokenizer"),
        (lambda: WordPieceTokenizer(["[UNK]"]).decode([5]), "not in the"),
        (lambda: WordPieceTokenizer.from_json('{"format": "x"}'), "not a saved WordPiece"),
    ],
)
def test_errors_name_the_problem(make, message):
    with pytest.raises((ValueError, TypeError), match=regex.escape(message)):
        make()


# ---- encoding: against Hugging Face's WordPiece model ----------------------------------
def hf_wordpiece(tok: WordPieceTokenizer, pretokenizer) -> HFTokenizer:
    hf = HFTokenizer(models.WordPiece(tok.vocab, unk_token="[UNK]", max_input_chars_per_word=100))
    hf.pre_tokenizer = pretokenizer
    return hf


STRESS = stress_strings()


@pytest.fixture(scope="module")
def stress_vocab() -> list[str]:
    """A vocabulary trained on every other stress string (so the rest has unknown
    characters too), plus words near the 100-character limit."""
    text = "\n".join(STRESS[::2])
    run = train_wordpiece(WordTable.from_text(text, "whitespace"), WordPieceSettings(merges=1500, top_n=0))
    return list(run.vocab())


def extra_strings() -> list[str]:
    long_words = ["a" * 100, "a" * 101, "é" * 100 + " ok", "b" * 99 + "é", "x" * 250 + " y"]
    return long_words + ["[UNK] [CLS]x", "##a a##", "", "   ", "hugs pug\tbun\n\nhugs"]


@pytest.mark.parametrize("style, hf_pre", [("whitespace", pre_tokenizers.WhitespaceSplit()),
                                          ("bert", pre_tokenizers.BertPreTokenizer())])
def test_ids_equal_hugging_face(stress_vocab, style, hf_pre):
    ours = WordPieceTokenizer(stress_vocab, pretokenizer=style)
    hf = hf_wordpiece(ours, hf_pre)
    texts = STRESS + extra_strings()
    if style == "bert":
        skip = bert_punctuation_newer_than_hf(texts)
        texts = [t for t in texts if not skip & set(t)]
    assert len(texts) > 2000
    unk = 0
    for text in texts:
        ids = ours.encode(text)
        assert ids == hf.encode(text, add_special_tokens=False).ids, text
        unk += ours.unk_id in ids
    assert 100 < unk < len(texts) // 2  # unknown words are well represented, not the rule


def bert_punctuation_newer_than_hf(texts: list[str]) -> set[str]:
    """The characters of `texts` that our `bert` splitter isolates and Hugging Face's
    does not. Only punctuation that Unicode added after Hugging Face's table may be in
    it, and only a handful of them; the test fails otherwise."""
    hf = pre_tokenizers.BertPreTokenizer()
    out = set()
    for ch in set("".join(texts)):
        ours = [p.text for p in wordpiece_pieces(f"a{ch}b", "bert")]
        theirs = [p for p, _ in hf.pre_tokenize_str(f"a{ch}b")]
        if ours != theirs:
            out.add(ch)
    assert all(regex.fullmatch(r"\p{P}", ch) and not ch.isascii() for ch in out), sorted(out)
    assert len(out) <= 10, sorted(out)
    return out


def test_trace_agrees_with_encode_and_shows_each_lookup(stress_vocab):
    tok = WordPieceTokenizer(["[UNK]", "h", "hu", "hug", "##s", "##g", "p"])
    tr = tok.trace("hugs")
    assert [(a.candidate, a.found) for a in tr.attempts] == [
        ("hugs", False), ("hug", True), ("##s", True)]
    assert tr.tokens == ("hug", "##s") and not tr.unknown
    bad = tok.trace("hugx")
    assert bad.unknown and bad.tokens == ("[UNK]",) and "character 3 ('x')" in bad.reason
    assert [(a.start, a.end, a.candidate, a.found) for a in bad.attempts] == [
        (0, 4, "hugx", False), (0, 3, "hug", True), (3, 4, "##x", False)]
    long = tok.trace("h" * 101)
    assert long.unknown and long.attempts == () and "101 characters" in long.reason
    ours = WordPieceTokenizer(stress_vocab)
    for text in STRESS[:300]:
        for piece in ours.pieces(text):
            assert ours.trace(piece[0]).ids == ours.encode_word(piece[0])


def test_decode_equals_hugging_face_decoder(stress_vocab):
    ours = WordPieceTokenizer(stress_vocab)
    dec = decoders.WordPiece(prefix="##", cleanup=False)
    for text in STRESS[1:400:3]:
        ids = ours.encode(text)
        assert ours.decode(ids) == dec.decode([ours.token_text(i) for i in ids]), text


@pytest.fixture(scope="module")
def letters_tokenizer() -> WordPieceTokenizer:
    """Trained on every letter of the alphabet below, so no word is unknown."""
    text = "the quick brown fox jumps over the lazy dog éàü 猫犬 " * 3 + "abcdefghijklmnopqrstuvwxyzéàü猫犬"
    chars = sorted(set(text) - {" "})
    text += " " + " ".join(c + c for c in chars)  # every letter both first and continuing
    return train_wordpiece(WordTable.from_text(text, "whitespace"), WordPieceSettings(merges=40)).tokenizer()


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("thequickbrownfoxjumpsoverlazydgéàü猫犬 \t\n")), max_size=60))
def test_decode_encode_round_trip(letters_tokenizer, text):
    """Without [UNK] (every letter is in the vocabulary; no word over 100 characters),
    decoding gives the words back, one space apart."""
    ids = letters_tokenizer.encode(text)
    assert letters_tokenizer.unk_id not in ids
    assert letters_tokenizer.decode(ids) == " ".join(text.split())


def test_token_spans_cover_the_words(stress_vocab):
    tok = WordPieceTokenizer(stress_vocab, pretokenizer="bert")
    for text in STRESS[:500] + extra_strings():
        spans = tok.token_spans(text)
        assert [s.id for s in spans] == tok.encode(text)
        for s in spans:
            assert text[s.start:s.end] == s.label and s.token_bytes == s.label.encode()
            if s.id != tok.unk_id:
                assert tok.token_bytes(s.id) == s.token_bytes
        words = {}
        for s in spans:
            words.setdefault(s.piece, []).append(s)
        assert ["".join(s.label for s in ws) for ws in words.values()] == [p for p, _ in tok.pieces(text)]


def test_special_tokens_only_when_allowed():
    tok = WordPieceTokenizer(["[UNK]", "[CLS]", "[SEP]", "a", "##b"])
    assert tok.tokenize("[CLS]ab") == ["[UNK]"]
    assert tok.encode("[CLS]ab [SEP]", allowed_special="all") == [1, 3, 4, 2]
    assert tok.token_spans("[CLS]ab", allowed_special={"[CLS]"})[0].special


def test_json_round_trip(stress_vocab):
    tok = WordPieceTokenizer(stress_vocab, pretokenizer="bert", max_input_chars_per_word=20)
    again = WordPieceTokenizer.from_json(json.dumps(tok.to_json()))
    for text in STRESS[:200]:
        assert again.encode(text) == tok.encode(text)


# ---- command line -----------------------------------------------------------------------
def run_main(capsys, *args: str) -> tuple[int, str, str]:
    code = cli_main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_wordpiece_json(capsys, tmp_path):
    words = tmp_path / "course.txt"
    words.write_text(COURSE)
    code, out, _ = run_main(capsys, "train", "--algorithm", "wordpiece", "--words", str(words), "--merges", "4", "--json")
    merges = json.loads(out)
    assert code == 0
    assert [(m["step"], m["pair"], m["token"], m["count"]) for m in merges] == [
        (1, ["##g", "##s"], "##gs", 5), (2, ["h", "##u"], "hu", 15), (3, ["hu", "##gs"], "hugs", 5),
        (4, ["hu", "##g"], "hug", 10)]
    assert [m["score"] for m in merges] == [1 / 20, 1 / 36, 1 / 15, 1 / 15]
    code, out, _ = run_main(capsys, "train", "--algorithm", "wordpiece", "--words", str(words), "--merges", "3")
    assert code == 0 and "step    3: hu + ##gs -> hugs" in out and "5/(15 x 5)" in out


def test_cli_save_then_encode(capsys, tmp_path):
    text = tmp_path / "en.txt"
    text.write_text((REPO / "corpora" / "english_sample.txt").read_text(encoding="utf-8"), encoding="utf-8")
    saved = tmp_path / "wp.json"
    code, _, _ = run_main(capsys, "train", "--algorithm", "wordpiece", "--text", str(text), "--merges", "200",
                          "--pretokenizer", "bert", "--save", str(saved))
    assert code == 0 and json.loads(saved.read_text(encoding="utf-8"))["algorithm"] == "wordpiece"
    code, out, _ = run_main(capsys, "encode", "--tokenizer", str(saved), "--text", "Tokenizers split words, Zürich!", "--json")
    expected = WordPieceTokenizer.from_json(saved.read_text(encoding="utf-8")).encode("Tokenizers split words, Zürich!")
    assert code == 0 and json.loads(out) == expected


def test_cli_as_a_process(tmp_path):
    """The exact command a scripted check runs, in a fresh interpreter."""
    words = tmp_path / "course.txt"
    words.write_text(COURSE)
    done = subprocess.run([sys.executable, "-m", "bpe_core", "train", "--algorithm", "wordpiece", "--words",
                           str(words), "--merges", "3", "--json"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert [m["token"] for m in json.loads(done.stdout)] == ["##gs", "hu", "hugs"]


def test_cli_other_algorithms_and_bpe_unchanged(capsys, tmp_path):
    words = tmp_path / "course.txt"
    words.write_text(COURSE)
    code, out, err = run_main(capsys, "train", "--algorithm", "unigram", "--words", str(words))
    assert code == 2 and out == "" and err.count("\n") == 1 and "--vocab-size" in err
    code, out, _ = run_main(capsys, "train", "--words", str(words), "--merges", "1", "--json")
    assert code == 0 and json.loads(out)[0]["pair"] == ["u", "g"]
    code, _, err = run_main(capsys, "train", "--algorithm", "wordpiece", "--words", str(words), "--units", "byte")
    assert code == 2 and "WordPiece" in err


def test_bert_splitter_known_difference_newer_punctuation():
    """U+2E43 (DASH WITH LEFT UPTURN, Unicode 9.0) is punctuation (Pd): our splitter
    isolates it, Hugging Face's older table does not. The module docstring says so; if
    Hugging Face updates its table, this test tells us to update the docstring."""
    text = "a\u2e43b"
    assert [p.text for p in wordpiece_pieces(text, "bert")] == ["a", "\u2e43", "b"]
    assert [p for p, _ in pre_tokenizers.BertPreTokenizer().pre_tokenize_str(text)] == [text]
