"""The source texts' worked examples, reproduced with our engine from Train page presets.

Each `WorkedExample` names a preset in corpora/presets.json (so the Train page can step
through it), the merge table its source text prints, the encodings it prints, and what
is known to be wrong in them. `our_trace` and `our_encodings` compute the same things
with `bpe_core`; `compare_traces` lines the two up row by row. The printed tables are
quotations (what the text says), never results: every result is computed.

What it leaves out: drawing (widgets.py) and the live tokenizers (logic.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from bpe_core import TrainingRun, train
from ui.train.config import build_word_table, load_presets, preset_corpus

__all__ = [
    "PrintedMerge", "WorkedExample", "EXAMPLES", "TraceRow", "preset_run", "our_trace", "our_encodings",
    "compare_traces", "train_link", "ByteResult", "byte_bpe_result", "BYTE_BPE_TEXT",
]


@dataclass(frozen=True)
class PrintedMerge:
    """One row of a merge table as a source text prints it."""

    left: str
    right: str
    count: int | None = None

    @property
    def token(self) -> str:
        return self.left + self.right


@dataclass(frozen=True)
class WorkedExample:
    """A source text's worked example and the preset that reproduces it.

    `printed` is the merge table as printed; `restored` (if any) is the same table with
    damage undone (002's swallowed `</w>`); `printed_encodings` maps a word to the tokens
    the text says it becomes; `note` explains any difference from our run.
    """

    preset: str
    source: str
    title: str
    merges: int
    printed: tuple[PrintedMerge, ...]
    printed_encodings: tuple[tuple[str, tuple[str, ...]], ...]
    note: str
    restored: tuple[PrintedMerge, ...] = ()
    printed_label: str = "as printed"


def _table(*rows: tuple) -> tuple[PrintedMerge, ...]:
    return tuple(PrintedMerge(*r) for r in rows)


EXAMPLES: tuple[WorkedExample, ...] = (
    WorkedExample(
        "seed000_underscore", "000", "low 5, lower 2, newest 6, widest 3 with _ (first-seen ties)", 8,
        _table(("e", "s", 9), ("es", "t", 9), ("est", "_", 9), ("l", "o", 7), ("lo", "w", 7), ("n", "e", 6),
               ("ne", "w", 6), ("new", "est_", 6)),
        (("lowest", ("low", "est_")),),
        "Printed exactly as our engine trains it: ties at 9 (e s, s t, t _) and at 7 (l o, o w) go to the "
        "pair seen first, and “lowest”, never seen in training, becomes low + est_.",
    ),
    WorkedExample(
        "seed001_five_words", "001", "low 5, lower 2, newest 6, widest 3, new 2 with </w>", 10,
        _table(("e", "s", 9), ("es", "t", 9), ("l", "o", 7), ("lo", "w", 7), ("n", "e", 8), ("ne", "w", 8),
               ("new", "est", 6), ("w", "i", 3), ("wi", "d", 3), ("wid", "est", 3)),
        (("low", ("low", "</w>")), ("lowest", ("low", "est", "</w>")), ("newer", ("new", "e", "r", "</w>")),
         ("unknown", ("u", "n", "k", "n", "o", "w", "n", "</w>"))),
        "The text's “expected output” is not what its own code prints. Its code (Counter.most_common, "
        "which keeps the first-counted of equal pairs, on Python 3.7+) merges exactly what our engine "
        "merges: es, est, est</w>, ne, new, lo, low, newest</w>, low</w>, wi. The printed list forgets that "
        "</w> is a symbol that pairs like any other (so est + </w> at 9 comes third, and newest ends in "
        "est</w>), and its counts are out of order (ne at 8 is printed after lo at 7). The encodings it "
        "prints follow from the wrong list: with the real merges, “low” is one token low</w> and “lowest” "
        "is low + est</w>.",
        printed_label="the text's “expected output”",
    ),
    WorkedExample(
        "seed002_sennrich", "002", "Sennrich's low 5, lower 2, newest 6, widest 3 with </w>", 5,
        _table(("e", "s", 9), ("es", "t", 9), ("est", "", 9), ("l", "o", 7), ("lo", "w", 7)),
        (("lowest", ("low", "est</w>")),),
        "The web page this text was taken from swallowed the end-of-word marker </w> as if it were an HTML "
        "tag, so the third merge reads “est → est” and the walk-through shows est where est</w> is meant. "
        "With </w> put back, the trace is ours: e s, es t, est </w>, then l o (tied with o w at 7; the "
        "leftmost wins), lo w. The text says “after six merges” but shows five.",
        restored=_table(("e", "s", 9), ("es", "t", 9), ("est", "</w>", 9), ("l", "o", 7), ("lo", "w", 7)),
    ),
    WorkedExample(
        "classroom", "003", "low ×3, lowest ×2, newer ×2, wider ×1 with _ (the “classroom” preset)", 5,
        _table(("l", "o", 5), ("lo", "w", 5), ("low", "_", 3), ("e", "r", 3), ("er", "_", 3)),
        (("lowest", ("low", "e", "s", "t", "_")),),
        "Printed exactly as our engine trains it. After five merges “lowest” is still low + e + s + t + _: "
        "its suffix was never frequent enough to earn a merge.",
    ),
)


@lru_cache(maxsize=16)
def preset_run(preset_id: str) -> TrainingRun:
    """The preset's training run with the settings presets.json gives it (a few merges, so cached)."""
    preset = load_presets()[preset_id]
    table, _ = build_word_table(preset_corpus(preset_id), preset.settings)
    return train(table, preset.settings.trainer_settings())


@dataclass(frozen=True)
class TraceRow:
    step: int
    left: str
    right: str
    token: str
    count: int
    ties: int


def our_trace(preset_id: str, merges: int) -> tuple[TraceRow, ...]:
    """The first `merges` merges of the preset's run, as text.

    >>> [(r.token, r.count) for r in our_trace("classroom", 3)]
    [('lo', 5), ('low', 5), ('low_', 3)]
    """
    run = preset_run(preset_id)
    rows = []
    for ev in run.events[:merges]:
        left, right = (run.displays[t] for t in ev.pair)
        rows.append(TraceRow(ev.step, left, right, left + right, ev.count, ev.tie_count))
    return tuple(rows)


def our_encodings(preset_id: str, merges: int, words: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each word encoded with the first `merges` merges; a character the run never saw
    is shown as ⟨u?⟩ (a character-level vocabulary has no id for it).

    >>> our_encodings("seed000_underscore", 8, ("lowest",))
    (('lowest', ('low', 'est_')),)
    """
    tok = preset_run(preset_id).tokenizer(merges)
    out = []
    for word in words:
        tokens = []
        for span in tok.token_spans(word):
            if span.id is None:
                tokens.append(f"⟨{span.label}?⟩")
            else:
                tokens.append(_token(tok, span.id))
        out.append((word, tuple(tokens)))
    return tuple(out)


def _token(tok, token_id: int) -> str:
    body, eow = tok.tokens[token_id]
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    return text + (tok.marker if eow else "")


def compare_traces(printed: tuple[PrintedMerge, ...], ours: tuple[TraceRow, ...]) -> tuple[bool, ...]:
    """Row by row: does the printed merge (pair and, if printed, count) equal ours?

    >>> compare_traces(_table(("l", "o", 5), ("x", "y", 1)), our_trace("classroom", 2))
    (True, False)
    """
    same = []
    for i, p in enumerate(printed):
        r = ours[i] if i < len(ours) else None
        same.append(r is not None and (p.left, p.right) == (r.left, r.right)
                    and (p.count is None or p.count == r.count))
    return tuple(same)


def train_link(preset_id: str, step: int | None = None) -> str:
    """The Train page's address for a preset (at a step).

    >>> train_link("classroom", 5)
    '/train-bpe?preset=classroom&step=5'
    """
    return f"/train-bpe?preset={preset_id}" + (f"&step={step}" if step is not None else "")


# --- source text 000's byte-level ByteBPE ------------------------------------------------

BYTE_BPE_PRESET = "seed000_bytebpe"
BYTE_BPE_TEXT = "the lowest newest 你好"


@dataclass(frozen=True)
class ByteResult:
    """What 000's ByteBPE run prints, computed: bytes, tokens and each token's bytes."""

    text: str
    n_bytes: int
    tokens: tuple[bytes, ...]
    vocab_size: int

    @property
    def n_tokens(self) -> int:
        return len(self.tokens)

    def is_single_token(self, piece: str) -> bool:
        return piece.encode("utf-8") in self.tokens


def byte_bpe_result(text: str = BYTE_BPE_TEXT) -> ByteResult:
    """000's run: byte units, its simplified regex (our `simple` pre-tokenizer), 24 merges
    (256 bytes + 24 = vocabulary 280), on its corpus.

    >>> r = byte_bpe_result()
    >>> r.n_bytes, r.n_tokens, r.vocab_size, r.is_single_token(" lowest"), r.is_single_token(" newest")
    (24, 12, 280, True, True)
    """
    run = preset_run(BYTE_BPE_PRESET)
    tok = run.tokenizer(len(run.events))
    ids = tok.encode(text)
    return ByteResult(text, len(text.encode("utf-8")), tuple(tok.token_bytes(i) for i in ids),
                      run.events[-1].vocab_size if run.events else 256)
