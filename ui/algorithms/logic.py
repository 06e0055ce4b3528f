"""What the Algorithms page computes, without Streamlit: corpora, the runs side by
side, vocabulary overlap, tokens per word, WordPiece's score table and the sentence that
explains a step, Unigram's rounds, and the charts that draw them (the lattice, the trace
and chips are drawn by ui/shared/word_views.py, which the Tokenize page uses too).

Every function takes plain values and returns plain values, an HTML string (every piece
of user text through `html.escape`) or an `alt.Chart`, so the tests check them without a
browser. The algorithms come from the registry `bpe_core.algorithms.ALGORITHMS`; nothing
here names one algorithm except the sections that teach that algorithm.

What it leaves out: caching and widgets (widgets.py), and the Hugging Face course's worked
examples (course.py).
"""
from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable, Mapping, Sequence

import altair as alt

from bpe_core.algorithms import ALGORITHMS
from bpe_core.algorithms.unigram import SPACE, UnigramEvent, UnigramRun
from bpe_core.algorithms.wordpiece import WordPieceEvent, WordPieceRun, WordTrace
from bpe_core.pretrained import PRETRAINED, load_pretrained
from ui.shared.a11y import scroll_box_attrs
from ui.shared.chips import CHIP_CSS
from ui.shared.word_views import chips_html
from ui.train.config import load_presets, preset_corpus

#: The most text the page trains on (presets are cut to it too): Unigram, the slowest of
#: them all, trains on 50,000 characters in about two seconds.
TEXT_LIMIT = 50_000
#: The most tokens the page lets each algorithm learn beyond its alphabet.
MAX_EXTRA = 2_000
#: The longest word the lattice, trace and dropout sections draw.
WORD_LIMIT = 40
#: How many words the side-by-side table shows.
SHOWN_WORDS = 12
OWN_TEXT = "own"
DEFAULT_PRESET = "hf_course"
DEFAULT_OWN_TEXT = "the lowest, the newest and the widest: low, lower, newer, wider, hugging hugs!"


# ---- the corpus ----------------------------------------------------------------------
@dataclass(frozen=True)
class PageCorpus:
    """The text every algorithm trains on: `kind` is "words" (word count lines) or
    "text"; `notes` tell the student what the page changed (a cut)."""

    text: str
    kind: str
    label: str
    notes: tuple[str, ...] = ()


def corpus_choices() -> dict[str, str]:
    """Preset id -> title, in presets.json's order, then the user's own text.

    >>> choices = corpus_choices()
    >>> choices["hf_course"].startswith("Hugging Face course"), list(choices)[-1]
    (True, 'own')
    """
    out = {p.id: p.title for p in load_presets().values()}
    out[OWN_TEXT] = "Your own text"
    return out


def cut_text(text: str, limit: int = TEXT_LIMIT) -> tuple[str, tuple[str, ...]]:
    """The text cut to `limit` characters at the last line break (or space) before it,
    and a note saying so.

    >>> cut_text("ab cd ef", 5)
    ('ab', ('The text was cut to its first 5 characters (of 8) to keep training quick.',))
    >>> cut_text("short", 5)
    ('short', ())
    """
    if len(text) <= limit:
        return text, ()
    head = text[:limit]
    stop = max(head.rfind("\n"), head.rfind(" "))
    cut = head[:stop] if stop > 0 else head
    return cut, (f"The text was cut to its first {limit:,} characters (of {len(text):,}) to keep training quick.",)


def page_corpus(choice: str, own_text: str = "") -> PageCorpus:
    """The corpus for a choice of `corpus_choices()`.

    >>> c = page_corpus("hf_course"); c.kind, "hugs 5" in c.text
    ('words', True)
    >>> page_corpus("own", "to be or not").kind
    'text'
    """
    if choice == OWN_TEXT:
        text, notes = cut_text(own_text)
        if not text.strip():
            raise ValueError("Your text is empty. Type or paste a few sentences, or pick a built-in corpus.")
        return PageCorpus(text, "text", "your text", notes)
    presets = load_presets()
    if choice not in presets:
        raise ValueError(f"Unknown corpus {choice!r}. Pick one of the built-in corpora.")
    corpus = preset_corpus(choice)
    text, notes = cut_text(corpus.text)
    return PageCorpus(text, corpus.kind, presets[choice].title, notes)


def base_sizes(corpus: PageCorpus) -> dict[str, int]:
    """The vocabulary each algorithm starts from (and cannot go below) on this corpus.

    BPE: the characters; WordPiece: BERT's 5 special tokens, each first character and
    each `##` continuation; Unigram: the characters, `▁` and `<unk>`.

    >>> sizes = base_sizes(page_corpus("hf_course"))
    >>> sizes["bpe"], sizes["wordpiece"], sizes["unigram"]
    (7, 12, 9)
    """
    return {name: algo.base_size(algo.words(corpus.text, kind=corpus.kind)) for name, algo in ALGORITHMS.items()}


def default_extra(corpus: PageCorpus) -> int:
    """How many tokens each algorithm learns beyond its start, by default: 3 for a word
    list (the course's three merges), 200 for running text.

    >>> default_extra(page_corpus("hf_course")), default_extra(page_corpus("english"))
    (3, 200)
    """
    return 3 if corpus.kind == "words" else 200


def target_sizes(corpus: PageCorpus, extra: int) -> dict[str, int]:
    """Each algorithm's target vocabulary: its start plus `extra` tokens, so all of them
    learn (or keep) the same number of tokens beyond their alphabets.

    >>> target_sizes(page_corpus("hf_course"), 3)["wordpiece"]
    15
    """
    return {name: size + extra for name, size in base_sizes(corpus).items()}


# ---- training ------------------------------------------------------------------------
@dataclass(frozen=True)
class Trained:
    """One algorithm's run on the corpus, or the message that says why there is none."""

    name: str
    run: Any = None
    error: str = ""


def train_one(name: str, text: str, kind: str, vocab_size: int) -> Trained:
    """Train one registered algorithm; a ValueError becomes the message to show.

    >>> t = train_one("wordpiece", "hug 10\\npug 5", "words", 3)
    >>> t.run is None, "at least" in t.error
    (True, True)
    """
    algo = ALGORITHMS[name]
    try:
        return Trained(name, algo.train(algo.words(text, kind=kind), algo.settings_for(vocab_size)))
    except ValueError as exc:
        return Trained(name, error=str(exc))


def final_tokenizers(trained: Mapping[str, Trained]) -> dict[str, Any]:
    """Each trained algorithm's tokenizer after its last step (failed runs left out)."""
    out = {}
    for name, t in trained.items():
        if t.run is not None:
            algo = ALGORITHMS[name]
            out[name] = algo.tokenizer_at(t.run, algo.last_step(t.run))
    return out


def segment(name: str, tokenizer: Any, word: str) -> tuple[str, ...]:
    """One word's tokens under one algorithm; a character a BPE run never saw is "?".

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> tok = train(WordTable.from_word_counts("ab 3"), TrainerSettings(merges=1)).tokenizer()
    >>> segment("bpe", tok, "ab"), segment("bpe", tok, "abz")
    (('ab',), ('?',))
    """
    try:
        return ALGORITHMS[name].segment(tokenizer, word)
    except ValueError:
        return ("?",)


def corpus_words(corpus: PageCorpus) -> list[tuple[str, int]]:
    """The corpus's distinct words with their counts, most frequent first (ties in order
    of first appearance), as BPE and WordPiece see them.

    >>> corpus_words(page_corpus("hf_course"))[:2]
    [('pun', 12), ('hug', 10)]
    """
    table = ALGORITHMS["bpe"].words(corpus.text, kind=corpus.kind)
    pairs = list(zip(table.words, table.counts))
    return sorted(pairs, key=lambda wc: -wc[1])


def side_by_side(tokenizers: Mapping[str, Any], words: Sequence[str]) -> list[dict[str, tuple[str, ...]]]:
    """For each word, its tokens under each algorithm."""
    return [{name: segment(name, tok, w) for name, tok in tokenizers.items()} for w in words]


def tokens_per_word(tokenizers: Mapping[str, Any], words: Sequence[tuple[str, int]]) -> list[dict]:
    """Per algorithm: tokens per word over the corpus (weighted by count), the share of
    words kept whole, and the longest split.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> tok = train(WordTable.from_word_counts("ab 3\\nabc 1"), TrainerSettings(merges=1)).tokenizer()
    >>> tokens_per_word({"bpe": tok}, [("ab", 3), ("abc", 1)])
    [{'algorithm': 'BPE', 'tokens per word': 1.25, 'words kept whole': '75%', 'most tokens in a word': 2}]
    """
    rows = []
    total = sum(c for _, c in words) or 1
    for name, tok in tokenizers.items():
        lengths = [(len(segment(name, tok, w)), c) for w, c in words]
        rows.append({
            "algorithm": ALGORITHMS[name].title,
            "tokens per word": round(sum(n * c for n, c in lengths) / total, 3),
            "words kept whole": f"{sum(c for n, c in lengths if n == 1) / total:.0%}",
            "most tokens in a word": max((n for n, _ in lengths), default=0),
        })
    return rows


# ---- vocabulary overlap --------------------------------------------------------------
def surface(token: str) -> str:
    """A token's characters without the markers that say where it may stand: WordPiece's
    `##` (inside a word) and Unigram's `▁` (at the start of one).

    >>> surface("##gs"), surface("▁hug"), surface("hug")
    ('gs', 'hug', 'hug')
    """
    if token.startswith("##"):
        return token[2:]
    return token[1:] if token.startswith(SPACE) else token


def learned_surfaces(name: str, tokenizer: Any) -> set[str]:
    """The multi-character tokens of a vocabulary, as surfaces (special tokens left out)."""
    return {s for s in map(surface, ALGORITHMS[name].vocabulary(tokenizer)) if len(s) >= 2}


def overlap_regions(sets: Mapping[str, set[str]]) -> list[dict]:
    """How many tokens are in exactly each combination of vocabularies (a Venn diagram
    as rows), largest first; empty combinations left out.

    >>> overlap_regions({"bpe": {"ab", "cd"}, "unigram": {"ab"}})
    [{'vocabularies': 'BPE + Unigram', 'tokens': 1, 'examples': 'ab'}, {'vocabularies': 'only BPE', 'tokens': 1, 'examples': 'cd'}]
    """
    where: dict[str, list[str]] = {}
    for tok in sorted(set().union(*sets.values())):
        names = tuple(n for n in sets if tok in sets[n])
        label = (" + ".join(ALGORITHMS[n].title for n in names) if len(names) > 1
                 else f"only {ALGORITHMS[names[0]].title}")
        where.setdefault(label, []).append(tok)
    rows = [{"vocabularies": k, "tokens": len(v), "examples": ", ".join(v[:8])} for k, v in where.items()]
    return sorted(rows, key=lambda r: (-len(r["vocabularies"].split(" + ")), -r["tokens"]))


# ---- chips ---------------------------------------------------------------------------
# ---- WordPiece: the score table and why ----------------------------------------------
def pair_label(pair_text: Sequence[str]) -> str:
    """A pair as "left + right".

    >>> pair_label(("hu", "##g"))
    'hu + ##g'
    """
    return f"{pair_text[0]} + {pair_text[1]}"


def score_rows(run: WordPieceRun, event: WordPieceEvent) -> list[dict]:
    """The score table before the merge, best score first, the winner marked, with the
    sum written out (10 / (15 × 15)) and BPE's choice marked."""
    rows = []
    for r in event.table:
        text = (run.tokens[r.pair[0]], run.tokens[r.pair[1]])
        rows.append({
            "pair": pair_label(text),
            "count": r.count,
            "score": f"{r.count}/({r.left_count}×{r.right_count}) = {_fraction(r.fraction)}",
            "merged": "WordPiece" if r.pair == event.pair else ("BPE would" if r.pair == event.bpe_pair else ""),
        })
    return rows


def _fraction(f: Fraction) -> str:
    """A fraction as "2/45" (or "3" when whole).

    >>> _fraction(Fraction(2, 45)), _fraction(Fraction(3, 1))
    ('2/45', '3')
    """
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def raw_count_rows(run: WordPieceRun, step: int, top: int = 20) -> list[dict]:
    """The pair counts before merge `step` (1-based), most frequent first (ties in order
    of first appearance), with each pair's score: what BPE ranks by."""
    segs = run.segmentations(step - 1)
    pairs: Counter = Counter()
    parts: Counter = Counter()
    for w, count in enumerate(run.words.counts):
        seg = segs[w]
        for t in seg:
            parts[t] += count
        for p in zip(seg, seg[1:]):
            pairs[p] += count
    ranked = sorted(pairs.items(), key=lambda pc: -pc[1])[:top]
    event = run.events[step - 1]
    return [{
        "pair": pair_label((run.tokens[a], run.tokens[b])),
        "count": n,
        "score": f"{n}/({parts[a]}×{parts[b]}) = {_fraction(Fraction(n, parts[a] * parts[b]))}",
        "merged": "BPE would" if (a, b) == event.bpe_pair else ("WordPiece" if (a, b) == event.pair else ""),
    } for (a, b), n in ranked]


def why_sentence(run: WordPieceRun, event: WordPieceEvent) -> str:
    """One sentence (plain text, names quoted from the corpus) that says why WordPiece
    merged this pair and what a count-based BPE would have done.

    >>> from bpe_core import WordTable
    >>> from bpe_core.algorithms.wordpiece import train_wordpiece, WordPieceSettings
    >>> run = train_wordpiece(WordTable.from_word_counts("hug 10\\npug 5\\npun 12\\nbun 4\\nhugs 5"),
    ...                       WordPieceSettings(merges=3))
    >>> print(why_sentence(run, run.events[0]))
    WordPiece merges ##g + ##s: its score 5 / (20 × 5) = 1/20 is the best, although the pair occurs only 5 times. BPE would merge ##u + ##g, the most frequent pair (20 times), but its score is only 20 / (36 × 20) = 1/36: its part ##u occurs 36 times, so each of its pairs counts for little.
    """
    win = pair_label(event.pair_text)
    score = f"{event.count} / ({event.left_count} × {event.right_count}) = {_fraction(event.score_fraction)}"
    ties = ""
    if event.tie_count > 1:
        ties = (f" {event.tie_count} pairs share that score; the {event.tie_break} rule picks this one "
                "(the first in its order).")
    if event.bpe_agrees:
        return (f"WordPiece merges {win} with score {score}, and it is also the most frequent pair "
                f"({event.count} times), so BPE would merge it too.{ties}")
    bpe = pair_label(event.bpe_pair_text)
    left, right = event.bpe_pair
    counts = _part_counts(run, event)
    bpe_score = Fraction(event.bpe_count, counts[left] * counts[right])
    bpe_text = f"{event.bpe_count} / ({counts[left]} × {counts[right]}) = {_fraction(bpe_score)}"
    head = (f"WordPiece merges {win}: its score {score} is the best, although the pair occurs only "
            f"{event.count} times.{ties} BPE would merge {bpe}, the most frequent pair ({event.bpe_count} times)")
    if bpe_score == event.score_fraction:
        return f"{head}, which has the same score ({bpe_text}) but comes later in the tie order."
    big = max((left, right), key=lambda t: counts[t])
    return (f"{head}, but its score is only {bpe_text}: its part {run.tokens[big]} occurs {counts[big]} "
            "times, so each of its pairs counts for little.")


def _part_counts(run: WordPieceRun, event: WordPieceEvent) -> Counter:
    """Token counts (weighted by word count) before the event's merge."""
    segs = run.segmentations(event.step - 1)
    out: Counter = Counter()
    for w, count in enumerate(run.words.counts):
        for t in segs[w]:
            out[t] += count
    return out


def unknown_example(vocab: Iterable[str], words: Sequence[str], prefix: str = "##") -> str:
    """A word WordPiece cannot encode: a corpus word followed by a character the
    vocabulary has no continuation for (the whole word becomes [UNK]).

    >>> unknown_example(["[UNK]", "b", "##u", "##g"], ["bug"])
    'bugq'
    """
    have = set(vocab)
    base = next((w for w in words if len(w) <= WORD_LIMIT - 1), "bug")
    for ch in "qzxjkvwymfp" + "abcdefghilnorstu":
        if prefix + ch not in have:
            return base + ch
    return base + "\u00e9\u00df"


#: the real WordPiece vocabulary the WordPiece tab traces a word in (a registry name)
REAL_WORDPIECE = "bert-base-uncased"


@dataclass(frozen=True)
class RealTrace:
    """A word as a real WordPiece model encodes it: the words its normalizer and
    pre-tokenizer make of it (BERT lowercases, strips accents, splits off punctuation),
    each one's longest-match trace, and the model's short name and size."""

    short: str
    size: int
    words: tuple[str, ...]
    traces: tuple[WordTrace, ...]

    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(t for trace in self.traces for t in trace.tokens)


def real_wordpiece_trace(word: str, name: str = REAL_WORDPIECE) -> RealTrace:
    """How the built-in real WordPiece model (BERT base uncased) splits `word`.

    >>> real_wordpiece_trace("Unaffable!").tokens
    ('una', '##ffa', '##ble', '!')
    """
    tok = load_pretrained(name)
    words = tuple(w.text for w in tok.model_words(word) if not w.added)
    return RealTrace(PRETRAINED[name].short, PRETRAINED[name].vocab_size, words, tuple(tok.work.trace(w) for w in words))


# ---- Unigram: rounds and the lattice -------------------------------------------------
def event_label(event: UnigramEvent) -> str:
    """A Unigram event in words.

    >>> event_label(UnigramEvent("em", 2, 1, 10, -5.0, 3))
    'round 2, EM 1'
    """
    if event.kind == "seed":
        return "seed vocabulary"
    if event.kind == "em":
        return f"round {event.round}, EM {event.iteration}"
    return f"round {event.round}, {'pruning' if event.kind == 'prune' else 'final cut'}"


def unigram_rows(run: UnigramRun) -> list[dict]:
    """One row per event: its index, label, kind, vocabulary size, log-likelihood,
    tokens, and how many pieces it removed."""
    return [{
        "event": i,
        "label": event_label(ev),
        "kind": ev.kind,
        "vocabulary size": ev.vocab_size,
        "log-likelihood": round(ev.log_likelihood, 2),
        "tokens": ev.tokens,
        "removed": len(ev.removed),
    } for i, ev in enumerate(run.events)]


def _on_canvas(chart):
    """Drawn on a canvas, without a screen-reader label per mark: an SVG element per
    point and label is what made the browser slow on a first load (the page's text
    says what each chart shows, the tooltips give the numbers)."""
    return chart.properties(usermeta={"embedOptions": {"renderer": "canvas"}}).configure(aria=False)


#: the y axis's labels in each Unigram panel get exactly this many pixels
UNIGRAM_LABEL_ROOM = 44
#: what the page leaves beside the Unigram panels, whose plots Streamlit makes as wide as
#: the chart's container: the y axis (labels, title) and what sticks out on the right
UNIGRAM_AXIS_ROOM = 80


def unigram_chart(rows: Sequence[dict], chosen: int) -> alt.Chart:
    """Vocabulary size and log-likelihood per event, one panel each, the chosen event
    drawn as a rule. Every y axis takes UNIGRAM_LABEL_ROOM pixels, so the panels line
    up and the page can leave UNIGRAM_AXIS_ROOM for them beside a stretched chart."""
    data = alt.Data(values=list(rows))
    x = alt.X("event:Q", title="event (EM iteration or pruning round)", axis=alt.Axis(tickMinStep=1))
    tips = [alt.Tooltip("label:N"), alt.Tooltip("vocabulary size:Q"), alt.Tooltip("log-likelihood:Q"),
            alt.Tooltip("removed:Q", title="pieces removed")]
    rule = alt.Chart(alt.Data(values=[{"event": chosen}])).mark_rule(color="#D55E00", strokeDash=[4, 3]).encode(
        x="event:Q")

    def panel(field: str, color: str) -> alt.Chart:
        line = alt.Chart(data).mark_line(point=True, color=color).encode(
            x=x, y=alt.Y(f"{field}:Q", scale=alt.Scale(zero=False),
                         axis=alt.Axis(minExtent=UNIGRAM_LABEL_ROOM, maxExtent=UNIGRAM_LABEL_ROOM)),
            tooltip=tips)
        return (line + rule).properties(height=160)

    return _on_canvas(alt.vconcat(panel("vocabulary size", "#0072B2"), panel("log-likelihood", "#009E73")))


def removed_rows(event: UnigramEvent, limit: int = 200) -> list[dict]:
    """The pieces an event removed, with the number that decided it (loss, expected
    count or score), smallest first."""
    name = event.value_name or "value"
    return [{"piece": p, name: round(v, 4)} for p, v in zip(event.removed[:limit], event.removed_values)]


def side_by_side_html(words: Sequence[str], rows: Sequence[Mapping[str, Sequence[str]]]) -> str:
    """A table: one row per word, one column per algorithm, the tokens as chips (escaped;
    the table scrolls sideways on a narrow screen).

    >>> out = side_by_side_html(["hugs"], [{"bpe": ("hug", "s"), "unigram": ("▁hug", "s")}])
    >>> out.count("<tr>"), "<th>Unigram</th>" in out, out.count('<span title="')
    (2, True, 4)
    """
    names = list(rows[0]) if rows else []
    head = "<tr><th>word</th>" + "".join(f"<th>{html.escape(ALGORITHMS[n].title)}</th>" for n in names) + "</tr>"
    body = "".join(
        f"<tr><td><code>{html.escape(w)}</code></td>"
        + "".join(f"<td>{chips_html(row[n], css=False)}</td>" for n in names) + "</tr>"
        for w, row in zip(words, rows)
    )
    style = ("<style>.algo-sbs{border-collapse:collapse;width:100%}.algo-sbs th,.algo-sbs td{text-align:left;"
             "padding:2px 8px;border-bottom:1px solid #ddd;vertical-align:middle}"
             ".algo-sbs .bpe-tokens{line-height:1.9}</style>")
    table = f'<div style="overflow-x:auto"{scroll_box_attrs("side by side")}><table class="algo-sbs">{head}{body}</table></div>'
    return CHIP_CSS + style + table
