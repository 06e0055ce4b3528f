"""The Hugging Face NLP course's worked examples (chapter 6, sections 5 to 7: BPE,
WordPiece, Unigram), recomputed with this project's engine and checked number by number.

All three sections use one corpus: hug 10, pug 5, pun 12, bun 4, hugs 5
(corpora/hf_course.txt). Each `Check` holds what the course printed, what our code
computes, and whether they agree; where they do not, `note` says what went wrong. Known
slips: the WordPiece section, as printed when huggingface/course issue 500 was filed
(2023), scored (hu, ##g) 1/15 though it is 10 / (15 x 15) = 2/45 and so merged `hug`
third instead of `hugs` (the current text has it right); the Unigram section's
probabilities for "pug" use 5 as the count of "p" though "p" occurs 17 times (in pug and
pun).

The Unigram section starts from a given vocabulary with frequencies rather than from
training; we score it with our own lattice and Viterbi (`bpe_core.algorithms.unigram`),
on the words as they are (no `▁`: the course's example has none).

What it leaves out: the course's code sections, which train on a four-sentence corpus
pre-tokenized by downloaded tokenizers (bert-base-cased, xlnet-base-cased).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from bpe_core import TrainerSettings, WordTable, train
from bpe_core.algorithms.unigram import PieceTable, lattice_edges, viterbi
from bpe_core.algorithms.wordpiece import WordPieceSettings, train_wordpiece

__all__ = ["Check", "COURSE_WORDS", "COURSE_UNIGRAM_VOCAB", "bpe_checks", "wordpiece_checks",
           "unigram_checks", "all_checks", "unigram_segmentations"]

COURSE_WORDS = "hug 10\npug 5\npun 12\nbun 4\nhugs 5"
_WORDS = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
#: The Unigram section's initial vocabulary and the frequencies it gives them.
COURSE_UNIGRAM_VOCAB: dict[str, int] = {
    "h": 15, "u": 36, "g": 20, "hu": 15, "ug": 20, "p": 17, "pu": 17, "n": 16,
    "un": 16, "b": 4, "bu": 4, "s": 5, "hug": 15, "gs": 5, "ugs": 5,
}


@dataclass(frozen=True)
class Check:
    """One claim of the course: where it is, what it says, what we compute."""

    section: str
    claim: str
    course: str
    ours: str
    agrees: bool
    note: str = ""


def _close(a: float, b: float, rel: float = 1e-9) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b))


def _as_printed(ours: float, printed: str) -> bool:
    """Whether our value matches a printed one to within one unit of its last digit
    (the course rounds some values and truncates others).

    >>> _as_printed(0.0714286, "0.071428"), _as_printed(0.001322, "0.000389")
    (True, False)
    """
    decimals = len(printed.partition(".")[2])
    return abs(ours - float(printed)) <= 10.0 ** -decimals * 1.0001


def _frac(f: Fraction) -> str:
    return f"{f.numerator}/{f.denominator}"


# ---- BPE (chapter 6, section 5) ------------------------------------------------------
def bpe_checks() -> list[Check]:
    """The course's three merges and their counts, from our trainer (no end-of-word
    marker, first-seen ties, as the course's loop).

    >>> [c.agrees for c in bpe_checks()]
    [True, True, True, True]
    """
    run = train(WordTable.from_word_counts(COURSE_WORDS), TrainerSettings(merges=3))
    claims = [(("u", "g"), 20), (("u", "n"), 16), (("h", "ug"), 15)]
    out = []
    for i, ((a, b), n) in enumerate(claims):
        ev = run.events[i]
        ours = f"{ev.pair_text[0]} + {ev.pair_text[1]} ({ev.count} times)"
        out.append(Check("BPE", f"merge {i + 1}", f"{a} + {b} ({n} times)", ours,
                         ev.pair_text == (a, b) and ev.count == n))
    tok = run.tokenizer(3)
    got = tuple(tok.token_text(t) for t in tok.encode("bug"))
    out.append(Check("BPE", '"bug" after three merges', "b ug", " ".join(got), got == ("b", "ug")))
    return out


# ---- WordPiece (chapter 6, section 6) ------------------------------------------------
def wordpiece_checks() -> list[Check]:
    """Scores and merges of the WordPiece section, from our trainer.

    >>> [(c.claim[:24], c.agrees) for c in wordpiece_checks() if not c.agrees]
    [('score of (hu, ##g) after', False), ('other pairs after merge ', False), ('merge 3', False)]
    """
    run = train_wordpiece(WordTable.from_word_counts(COURSE_WORDS), WordPieceSettings(merges=3))
    e1, e2, e3 = run.events
    text = run.tokens

    def score_of(event, left: str, right: str) -> Fraction | None:
        for r in event.table:
            if (text[r.pair[0]], text[r.pair[1]]) == (left, right):
                return r.fraction
        return None

    u_pairs = {_frac(r.fraction) for r in e1.table if "##u" in (text[r.pair[0]], text[r.pair[1]])}
    hu_g = score_of(e3, "hu", "##g")
    others = sorted({_frac(r.fraction) for r in e3.table if text[r.pair[0]] != "hu"}, key=lambda s: Fraction(s))
    out = [
        Check("WordPiece", "score of (##u, ##g), the most frequent pair (20 times)", "1/36",
              _frac(score_of(e1, "##u", "##g")), score_of(e1, "##u", "##g") == Fraction(1, 36)),
        Check("WordPiece", "every pair with ##u at the start", "1/36", ", ".join(sorted(u_pairs)), u_pairs == {"1/36"}),
        Check("WordPiece", "merge 1", "##g + ##s at 1/20", f"{' + '.join(e1.pair_text)} at {_frac(e1.score_fraction)}",
              e1.token == "##gs" and e1.score_fraction == Fraction(1, 20)),
        Check("WordPiece", "merge 2 (every pair tied)", "h + ##u at 1/36",
              f"{' + '.join(e2.pair_text)} at {_frac(e2.score_fraction)}, {e2.tie_count} pairs tied",
              e2.token == "hu" and e2.score_fraction == Fraction(1, 36)),
        Check("WordPiece", "score of (hu, ##g) after merge 2", "1/15", f"10 / (15 × 15) = {_frac(hu_g)}",
              hu_g == Fraction(1, 15),
              "hug occurs 10 times, hu 15 times and ##g 15 times (10 in hug, 5 in pug), so the score is "
              "10/225 = 2/45, not 1/15 (huggingface/course issue 500; the current text has it right)."),
        Check("WordPiece", "other pairs after merge 2", "1/21", ", ".join(others), others == ["1/21"],
              "(##u, ##g) occurs only 5 times (in pug) by then: 5 / (21 × 15) = 1/63."),
        Check("WordPiece", "merge 3", "hu + ##g -> hug", f"{' + '.join(e3.pair_text)} -> {e3.token} "
              f"at {_frac(e3.score_fraction)}", e3.token == "hug",
              "With the right scores, (hu, ##gs) at 5 / (15 × 5) = 1/15 beats (hu, ##g) at 2/45, so the "
              "third merge makes hugs (as the current course text says)."),
    ]
    tok = run.tokenizer(3)
    for word, expected in (("hugs", ["hugs"]), ("bugs", ["b", "##u", "##gs"]), ("mug", ["[UNK]"]),
                           ("bum", ["[UNK]"])):
        got = tok.tokenize(word)
        out.append(Check("WordPiece", f'"{word}" by longest match', " ".join(expected), " ".join(got), got == expected))
    return out


# ---- Unigram (chapter 6, section 7) --------------------------------------------------
def _log_probs(vocab: dict[str, int] = COURSE_UNIGRAM_VOCAB) -> dict[str, float]:
    total = sum(vocab.values())
    return {p: math.log(f / total) for p, f in vocab.items()}


def unigram_segmentations(word: str, scores: dict[str, float] | None = None) -> list[tuple[tuple[str, ...], float]]:
    """Every segmentation of `word` into the course's pieces, with its probability, most
    probable first: the lattice from our engine, each path walked.

    >>> [(" ".join(s), round(p, 6)) for s, p in unigram_segmentations("pug")]
    [('p ug', 0.00771), ('pu g', 0.00771), ('p u g', 0.001322)]
    """
    scores = _log_probs() if scores is None else scores
    edges = lattice_edges(word, PieceTable(scores), -1e9)
    paths: list[list[tuple[tuple[str, ...], float]]] = [[((), 0.0)]] + [[] for _ in word]
    for j in range(1, len(word) + 1):
        for i, s, known in edges[j]:
            if known:
                paths[j].extend((segs + (word[i:j],), total + s) for segs, total in paths[i])
    return sorted(((s, math.exp(t)) for s, t in paths[-1]), key=lambda st: -st[1])


def _best(word: str, scores: dict[str, float]) -> tuple[tuple[str, ...], float]:
    """Our Viterbi's segmentation of `word` and its probability."""
    spans = viterbi(word, PieceTable(scores), -1e9)
    return tuple(word[i:j] for i, j, _ in spans), math.exp(math.fsum(scores[word[i:j]] for i, j, _ in spans))


def _loss(scores: dict[str, float]) -> float:
    return sum(n * -math.log(_best(w, scores)[1]) for w, n in _WORDS.items())


def _substring_count(piece: str) -> int:
    return sum(n * sum(w.startswith(piece, i) for i in range(len(w))) for w, n in _WORDS.items())


def unigram_checks() -> list[Check]:
    """Frequencies, probabilities, Viterbi paths and losses of the Unigram section.

    >>> [(c.claim, c.agrees) for c in unigram_checks() if not c.agrees]  # doctest: +NORMALIZE_WHITESPACE
    [('P(p, u, g)', False), ('P(pu, g)', False), ('P(p, ug)', False)]
    """
    scores = _log_probs()
    freqs_ok = all(_substring_count(p) == f for p, f in COURSE_UNIGRAM_VOCAB.items())
    out = [
        Check("Unigram", "frequencies of the 15 pieces in the corpus", "as listed",
              "all 15 agree" if freqs_ok else "some differ", freqs_ok),
        Check("Unigram", "sum of the frequencies", "210", str(sum(COURSE_UNIGRAM_VOCAB.values())),
              sum(COURSE_UNIGRAM_VOCAB.values()) == 210),
    ]
    pug = dict(unigram_segmentations("pug"))
    # Each product has one factor 5/210 (pug's own count) where the first piece's frequency
    # belongs: p and pu both occur 17 times (5 in pug, 12 in pun).
    for segs, course, sum_text in ((("p", "u", "g"), "0.000389", "17/210 × 36/210 × 20/210"),
                                   (("pu", "g"), "0.0022676", "17/210 × 20/210"),
                                   (("p", "ug"), "0.0022676", "17/210 × 20/210")):
        ours = pug[segs]
        why = (f"The course multiplies by 5/210 for {segs[0]}, but {segs[0]} occurs 17 times "
               f"(5 in pug, 12 in pun): {sum_text} = {ours:.6f}.")
        out.append(Check("Unigram", f"P({', '.join(segs)})", course, f"{sum_text} = {ours:.6f}",
                         _as_printed(ours, course), why))
    out.append(Check("Unigram", '"pug": p ug and pu g tie', "tie", "tie" if _close(pug[("p", "ug")], pug[("pu", "g")])
                     else "no tie", _close(pug[("p", "ug")], pug[("pu", "g")]),
                     "Both are 340/44100 = 0.007710; our Viterbi keeps p + ug (the longer last piece wins a tie)."))
    for j, course in zip(range(1, 6), ("0.171429", "0.076191", "0.005442", "0.005442", "0.005442")):
        segs, p = _best("unhug"[:j], scores)
        out.append(Check("Unigram", f'best path to character {j - 1} of "unhug"', course,
                         f"{' '.join(segs)}: {p:.6f}", _as_printed(p, course)))
    for word, course_segs, course in (("hug", "hug", "0.071428"), ("pug", "pu g", "0.007710"),
                                      ("pun", "pu n", "0.006168"), ("bun", "bu n", "0.001451"),
                                      ("hugs", "hug s", "0.001701")):
        segs, p = _best(word, scores)
        tie = "" if " ".join(segs) == course_segs else f" (ties with {course_segs})"
        out.append(Check("Unigram", f'score of "{word}"', f"{course_segs}: {course}",
                         f"{' '.join(segs)}: {p:.6f}{tie}", _as_printed(p, course)))
    loss = _loss(scores)
    out.append(Check("Unigram", "corpus loss", "169.8", f"{loss:.2f}", round(loss, 1) == 169.8))
    no_pu = {p: s for p, s in scores.items() if p != "pu"}
    out.append(Check("Unigram", "loss rise without pu", "0", f"{_loss(no_pu) - loss:.4f}", abs(_loss(no_pu) - loss) < 1e-9))
    no_hug = {p: s for p, s in scores.items() if p != "hug"}
    rise = _loss(no_hug) - loss
    out.append(Check("Unigram", "loss rise without hug", "23.5", f"{rise:.2f}", round(rise, 1) == 23.5))
    segs, p = _best("huggun", scores)
    out.append(Check("Unigram", 'exercise: "huggun"', "(left to the reader)", f"{' '.join(segs)}: {p:.3g}", True,
                     "Our answer to the course's exercise."))
    return out


def all_checks() -> list[Check]:
    return bpe_checks() + wordpiece_checks() + unigram_checks()
