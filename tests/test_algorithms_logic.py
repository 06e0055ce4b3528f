"""The Algorithms page's pure logic and the registry: checked against Hugging Face
tokenizers where a reference exists, against brute force for the Unigram sums, and
against the engine's own events for the tables the page draws."""
import itertools
import math
from fractions import Fraction

import pytest

from bpe_core.algorithms import ALGORITHMS, algorithm
from bpe_core.algorithms.unigram import UnigramModel
from ui.algorithms import course
from ui.shared.word_views import chips_html, lattice_html
from ui.algorithms.logic import (
    corpus_words,
    final_tokenizers,
    learned_surfaces,
    overlap_regions,
    page_corpus,
    raw_count_rows,
    score_rows,
    side_by_side_html,
    target_sizes,
    tokens_per_word,
    train_one,
    unigram_chart,
    unigram_rows,
    why_sentence,
)


@pytest.fixture(scope="module")
def english():
    corpus = page_corpus("english")
    sizes = target_sizes(corpus, 120)
    return corpus, {n: train_one(n, corpus.text, corpus.kind, sizes[n]) for n in ALGORITHMS}


# ---- the registry --------------------------------------------------------------------
def test_registry_entries_train_and_reach_their_targets(english):
    corpus, trained = english
    sizes = target_sizes(corpus, 120)
    assert all(t.run is not None for t in trained.values())
    assert trained["bpe"].run.vocab_size(trained["bpe"].run.steps) == sizes["bpe"]
    assert len(trained["wordpiece"].run.vocab()) == sizes["wordpiece"]
    assert trained["unigram"].run.events[-1].vocab_size == sizes["unigram"]
    for name, t in trained.items():
        algo = ALGORITHMS[name]
        assert isinstance(t.run.events[0], algo.event_type)
        assert isinstance(algo.settings_for(50), algo.settings_type)


def test_unknown_algorithm_is_a_clear_error():
    with pytest.raises(ValueError, match=f"Choose one of: {', '.join(ALGORITHMS)}"):
        algorithm("sentencepiece")


def test_bpe_entry_segments_training_words_as_training_did(english):
    corpus, trained = english
    run = trained["bpe"].run
    tok = ALGORITHMS["bpe"].tokenizer_at(run, run.steps)
    segs = run.segmentations(run.steps)
    for w, word in enumerate(run.words.words[:200]):
        assert ALGORITHMS["bpe"].segment(tok, word) == tuple(tok.token_text(t) for t in segs[w])


def test_unigram_entry_last_step_is_the_final_model(english):
    run = english[1]["unigram"].run
    algo = ALGORITHMS["unigram"]
    assert algo.tokenizer_at(run, algo.last_step(run)).pieces == run.model().pieces


# ---- the course, against Hugging Face tokenizers and brute force ---------------------
def test_course_bpe_merges_match_hugging_face_bpe_trainer():
    pytest.importorskip("tokenizers")
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    words = [w for w, n in course._WORDS.items() for _ in range(n)]
    tok.train_from_iterator([" ".join(words)], trainers.BpeTrainer(vocab_size=10, show_progress=False))
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m)
              for m in __import__("json").loads(tok.to_str())["model"]["merges"]]
    assert merges == [("u", "g"), ("u", "n"), ("h", "ug")]
    assert all(c.agrees for c in course.bpe_checks())


def test_course_wordpiece_slips_are_exactly_the_known_ones():
    wrong = {c.claim: c for c in course.wordpiece_checks() if not c.agrees}
    assert set(wrong) == {"score of (hu, ##g) after merge 2", "other pairs after merge 2", "merge 3"}
    assert "2/45" in wrong["score of (hu, ##g) after merge 2"].ours
    assert wrong["merge 3"].ours.startswith("hu + ##gs -> hugs")
    # 10 / (15 x 15), worked by hand: hug 10 times, hu 15 (hug, hugs), ##g 15 (hug, pug)
    assert Fraction(10, 15 * 15) == Fraction(2, 45)


def _brute_force(word, probs):
    """Every way to cut `word` into pieces of `probs`, with the product of probabilities."""
    out = {}
    for cuts in itertools.product([False, True], repeat=len(word) - 1):
        pieces, start = [], 0
        for i, cut in enumerate(cuts, 1):
            if cut:
                pieces.append(word[start:i])
                start = i
        pieces.append(word[start:])
        if all(p in probs for p in pieces):
            out[tuple(pieces)] = math.prod(probs[p] for p in pieces)
    return out


@pytest.mark.parametrize("word", ["pug", "hug", "hugs", "unhug", "huggun", "bun"])
def test_course_unigram_sums_equal_brute_force(word):
    total = sum(course.COURSE_UNIGRAM_VOCAB.values())
    probs = {p: f / total for p, f in course.COURSE_UNIGRAM_VOCAB.items()}
    ours = dict(course.unigram_segmentations(word))
    truth = _brute_force(word, probs)
    assert ours.keys() == truth.keys()
    assert all(math.isclose(ours[k], truth[k]) for k in truth)


def test_course_unigram_slips_are_the_pug_probabilities():
    wrong = [c for c in course.unigram_checks() if not c.agrees]
    assert [c.claim for c in wrong] == ["P(p, u, g)", "P(pu, g)", "P(p, ug)"]
    assert "0.001322" in wrong[0].ours and "0.007710" in wrong[1].ours
    # each note names the piece the course gave pug's own count (5/210) to
    assert [c.note.split(",")[0] for c in wrong] == [
        "The course multiplies by 5/210 for p", "The course multiplies by 5/210 for pu",
        "The course multiplies by 5/210 for p"]
    loss = next(c for c in course.unigram_checks() if c.claim == "corpus loss")
    assert loss.agrees and loss.ours == "169.80"


def test_course_unigram_best_paths_equal_our_model_on_the_same_scores():
    total = sum(course.COURSE_UNIGRAM_VOCAB.values())
    model = UnigramModel.from_scores({p: math.log(f / total) for p, f in course.COURSE_UNIGRAM_VOCAB.items()})
    for word in ("unhug", "huggun", "pug"):
        best = max(course.unigram_segmentations(word), key=lambda sp: sp[1])[1]
        lat = model.lattice(word)  # with the dummy prefix: ▁ is unknown, the rest is the course's word
        assert "".join(lat.best_pieces[1:]) == word
        assert math.isclose(math.exp(lat.best_score - lat.nodes[lat.best_path[0]].score), best, rel_tol=1e-9)


# ---- WordPiece tables and the sentence ------------------------------------------------
def test_score_table_winner_first_and_raw_counts_agree_with_the_event(english):
    run = english[1]["wordpiece"].run
    for ev in run.events[:40]:
        rows = score_rows(run, ev)
        assert rows[0]["merged"] == "WordPiece"
        raw = raw_count_rows(run, ev.step)
        assert raw[0]["count"] == ev.bpe_count  # our recount finds BPE's top count
        assert any(r["merged"] == "BPE would" for r in raw)
        sentence = why_sentence(run, ev)
        assert " + ".join(ev.pair_text) in sentence
        if not ev.bpe_agrees:
            assert " + ".join(ev.bpe_pair_text) in sentence


def test_why_sentence_on_a_tie_says_so():
    words = ALGORITHMS["wordpiece"].words(course.COURSE_WORDS, kind="words")
    run = ALGORITHMS["wordpiece"].train(words, ALGORITHMS["wordpiece"].settings_for(15))
    text = why_sentence(run, run.events[1])
    assert "6 pairs share that score" in text and "same score" in text and "only" not in text.split("BPE")[1]


# ---- side by side, overlap, tokens per word ------------------------------------------
def test_overlap_regions_partition_the_union(english):
    tokenizers = final_tokenizers(english[1])
    sets = {n: learned_surfaces(n, t) for n, t in tokenizers.items()}
    regions = overlap_regions(sets)
    assert sum(r["tokens"] for r in regions) == len(set().union(*sets.values()))
    shared = next(r for r in regions if r["vocabularies"] == "BPE + WordPiece + Unigram")
    assert shared["tokens"] == len(sets["bpe"] & sets["wordpiece"] & sets["unigram"])


def test_tokens_per_word_matches_a_direct_count(english):
    corpus, trained = english
    tokenizers = final_tokenizers(trained)
    words = corpus_words(corpus)
    rows = {r["algorithm"]: r for r in tokens_per_word(tokenizers, words)}
    wp = tokenizers["wordpiece"]
    direct = sum(len(wp.tokenize(w)) * c for w, c in words) / sum(c for _, c in words)
    assert rows["WordPiece"]["tokens per word"] == round(direct, 3)
    assert rows["BPE"]["tokens per word"] >= 1
    kept = sum(c for w, c in words if len(wp.tokenize(w)) == 1) / sum(c for _, c in words)
    assert rows["WordPiece"]["words kept whole"] == f"{kept:.0%}"


def test_html_escapes_user_text():
    out = side_by_side_html(["<img src=x>"], [{"bpe": ("<img", " src=x>"), "unigram": ("▁<",)}])
    assert "<img src" not in out and "&lt;img" in out
    assert "<script>" not in chips_html(["<script>"])


# ---- Unigram -------------------------------------------------------------------------
def test_lattice_html_draws_every_node_and_marks_the_best_path(english):
    model = english[1]["unigram"].run.model()
    lat = model.lattice("tokenizers <b>")
    out = lattice_html(lat)
    assert out.count('class="ulb') == len(lat.nodes)
    assert out.count('class="ulb best"') == len(lat.best_path)
    assert "&lt;" in out and "&gt;" in out
    assert out.count("<b>") == len(lat.nodes)  # only the page's own tags: the text is escaped


def test_unigram_rows_and_chart(english):
    run = english[1]["unigram"].run
    rows = unigram_rows(run)
    assert [r["vocabulary size"] for r in rows] == [ev.vocab_size for ev in run.events]
    assert rows[0]["label"] == "seed vocabulary"
    assert any(r["kind"] == "prune" and r["removed"] > 0 for r in rows)
    spec = unigram_chart(rows, 2).to_dict()
    assert len(spec["vconcat"]) == 2
    assert spec["vconcat"][0]["layer"][1]["data"]["values"] == [{"event": 2}]  # the chosen event's rule
