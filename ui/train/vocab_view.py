"""Train page, pure drawing: "Vocabulary and figures" at step k: the vocabulary (base
symbols and merged tokens, the retired ones struck through), the four figures, and the
block that holds both with the chart (`vocab_section_html`)."""
from __future__ import annotations

import html
from dataclasses import dataclass

from ui.train.chart import chart_html
from ui.train.drawing import MERGED_TOKENS_SHOWN, chips_inline
from ui.train.run_view import RunView
from ui.train.step_cache import step_cached


@step_cached
def vocab_summary(view: RunView, k: int) -> str:
    """Why the vocabulary size is not base + merges, in words.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> run = train(WordTable.from_word_counts("low 5\\nlower 2\\nnewest 6\\nwidest 3"),
    ...             TrainerSettings(end_of_word="separate", merges=4))
    >>> vocab_summary(RunView(run), 4)
    '15 tokens: 11 base symbols + 4 merged tokens. The corpus uses 9 of them now; 6 (struck through) no longer occur anywhere, because every occurrence was merged into a longer token.'
    """
    run = view.run
    size = run.vocab_size(k)
    merged = size - run.base_size
    in_use = run.tokens_in_use(k)
    retired = len(run.retired_tokens(k))
    again = sum(1 for ev in run.events[:k] if not ev.is_new_token)
    parts = [f"{size:,} tokens: {run.base_size:,} base symbol{'s' if run.base_size != 1 else ''} + "
             f"{merged:,} merged token{'s' if merged != 1 else ''}."]
    if again:
        parts.append(f"{again} merge{'s' if again != 1 else ''} re-made a token that already existed, adding nothing.")
    unused_base = run.base_size - len(view.base_in_corpus)
    parts.append(f"The corpus uses {in_use:,} of them now;")
    if retired:
        parts.append(f"{retired:,} (struck through) no longer occur anywhere, because every occurrence was "
                     "merged into a longer token.")
    else:
        parts[-1] = parts[-1][:-1] + "."
    if unused_base:
        also = ", and with an attached marker each of them as a word end too" if run.settings.end_of_word == "attached" else ""
        parts.append(f"{unused_base:,} of the {run.base_size:,} base symbols never occur in this corpus: a "
                     f"byte-level vocabulary holds all 256 byte values{also}.")
    return " ".join(parts)


@step_cached
def vocab_html(view: RunView, k: int) -> str:
    """Base symbols and merged tokens at step k; tokens the corpus no longer uses are
    struck through, the newest token is highlighted."""
    run = view.run
    retired = run.retired_tokens(k)
    new_id = run.events[k - 1].token_id if k else None

    def classes(t: int) -> tuple[str, ...]:
        return (("retired",) if t in retired else ()) + (("hl",) if t == new_id else ())

    base = [t for t in range(run.base_size) if t in view.base_in_corpus]
    merged = list(range(run.base_size, run.vocab_size(k)))
    hidden = max(0, len(merged) - MERGED_TOKENS_SHOWN)
    merged = merged[hidden:]
    gone = sum(1 for t in base if t in retired)
    head = f"Base symbols ({len(base)} in the corpus at step 0"
    head += f"; {gone} struck through: no longer in the corpus)" if gone else ")"
    out = ['<div class="tp tp-vocab">', f'<div class="tp-group">{head}</div>',
           chips_inline(view, base, [classes(t) for t in base])]
    n_merged = run.vocab_size(k) - run.base_size
    gone_m = sum(1 for t in range(run.base_size, run.vocab_size(k)) if t in retired)
    head = f"Merged tokens ({n_merged}" + (f"; {gone_m} struck through: used up by later merges)" if gone_m else ")")
    out.append(f'<div class="tp-group">{head}</div>')
    if merged:
        if hidden:
            out.append(f'<div class="tp-note">The latest {len(merged)} (ids {merged[0]} to {merged[-1]}):</div>')
        out.append(chips_inline(view, merged, [classes(t) for t in merged]))
    else:
        out.append('<div class="tp-note">None yet.</div>')
    out.append("</div>")
    return "".join(out)


# ---- figures ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Figures:
    vocab_size: int
    vocab_delta: int
    corpus_length: int
    length_delta: int
    per_token: float
    per_token_start: float
    unit: str            # "characters" or "bytes"
    tokens_in_use: int


@step_cached
def figures(view: RunView, k: int) -> Figures:
    """Vocabulary size, corpus length in tokens and compression at step k."""
    run = view.run
    unit = "bytes" if run.settings.units == "byte" else "characters"
    amount = view.total_bytes if unit == "bytes" else view.total_chars
    length = run.corpus_length(k)
    start = run.corpus_length(0)
    return Figures(
        vocab_size=run.vocab_size(k),
        vocab_delta=run.vocab_size(k) - run.base_size,
        corpus_length=length,
        length_delta=length - start,
        per_token=amount / length if length else 0.0,
        per_token_start=amount / start if start else 0.0,
        unit=unit,
        tokens_in_use=run.tokens_in_use(k),
    )


@step_cached
def figures_html(view: RunView, k: int) -> str:
    """The four figures at step k (vocabulary, tokens in use, corpus length, compression)
    as one HTML row: one element a step instead of four metrics in four columns.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> v = RunView(train(WordTable.from_word_counts("low 5\\nlower 2"), TrainerSettings(merges=3)))
    >>> h = figures_html(v, 2)
    >>> "Corpus (tokens)" in h and "+2 merged" in h and "−14" in h
    True
    """
    f = figures(view, k)
    unit = "Chars" if f.unit == "characters" else "Bytes"

    def fig(label: str, value: str, delta: str = "", kind: str = "", help_text: str = "") -> str:
        lab = (f'<abbr title="{html.escape(help_text)}">{html.escape(label)}</abbr>' if help_text
               else html.escape(label))
        dlt = f'<div class="{("dlt " + kind).strip()}">{html.escape(delta)}</div>' if delta else ""
        return f'<div class="tp-fig"><div class="lab">{lab}</div><div class="val">{html.escape(value)}</div>{dlt}</div>'

    cells = [
        fig("Vocabulary", f"{f.vocab_size:,}", f"↑ +{f.vocab_delta:,} merged" if f.vocab_delta else ""),
        fig("Tokens in use", f"{f.tokens_in_use:,}", help_text="Tokens that occur somewhere in the corpus now."),
        fig("Corpus (tokens)", f"{f.corpus_length:,}",
            (f"↓ −{-f.length_delta:,}" if f.length_delta < 0 else f"↑ +{f.length_delta:,}") if f.length_delta else "",
            "good" if f.length_delta < 0 else "bad"),
        fig(f"{unit} / token", f"{f.per_token:.2f}", f"↑ from {f.per_token_start:.2f}" if k else "",
            help_text="Compression: the corpus's size divided by its length in tokens (end-of-word markers "
                      "count as tokens)."),
    ]
    return f'<div class="tp tp-figs">{"".join(cells)}</div>'



@step_cached
def vocab_section_html(view: RunView, k: int) -> str:
    """"Vocabulary and figures" under its heading, as one HTML block: the figures, the
    note on characters per token at step 0, the vocabulary (its summary and chips) and the
    chart side by side (stacked on a narrow screen). One element instead of eight (a row
    of columns, captions, three HTML blocks): each is a message and a component drawn
    again at every step."""
    f = figures(view, k)
    note = ""
    if k == 0 and f.per_token_start < 1 and view.run.settings.end_of_word == "separate":
        unit = "character" if f.unit == "characters" else "byte"
        note = (f'<p class="tp-cap">Why {f.per_token_start:.2f} at step 0, below 1: each {unit} is a token, and the '
                f"separate end-of-word marker {html.escape(view.marker)} is one more token per word (it is not in "
                "the text).</p>")
    return (f"{figures_html(view, k)}{note}"
            f'<div class="tp-vf"><div><p class="tp-cap">{html.escape(vocab_summary(view, k))}</p>{vocab_html(view, k)}</div>'
            f"<div>{chart_html(view, k)}</div></div>")
