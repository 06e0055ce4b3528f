"""Tab 3 of the Vocabulary size page: the same paragraph in ten languages under GPT-2,
cl100k, o200k and the run studied, at the chosen size."""
from __future__ import annotations

import html
from functools import lru_cache

import pandas as pd
import streamlit as st

from bpe_core import TrainingRun
from ui.shared.state import folded, session_run, session_step
from ui.vocab.charts import (
    language_ratio_chart,
    language_tokens_chart,
)
from ui.vocab import static
from ui.vocab.blocks import heading_html
from ui.vocab.curves import (
    LANGUAGES,
    TokenCount,
    language_rows,
)
from ui.vocab.drawing import Blocks, RunChoice
from ui.vocab.sources import (
    counts_for,
    language_texts,
    openai_language_table,
    curve_key,
)


LANGUAGES_TITLE = "3. The same text in ten languages"


def languages_section(choice: RunChoice, vocab: int, k: int) -> None:
    """Section 3, its heading (an <h2>) included."""
    texts = language_texts()
    ours = {f"{choice.label}, V = {vocab:,}": _languages_at(choice.key, choice.run, k)}
    ours_keys = [choice.key, str(k)]
    session = session_run()
    if session is not None and choice.source != "session":
        step = session_step()
        session_key = curve_key(session)
        ours[f"Train page tokenizer, V = {session.vocab_size(step):,}"] = _languages_at(session_key, session, step)
        ours_keys += [session_key, str(step)]
    # Plain rows (the OpenAI ones made once): a frame is built only for an interactive chart or the table.
    rows = _openai_rows() + language_rows(ours, texts)

    out = Blocks()
    out.add(heading_html(2, LANGUAGES_TITLE, "3-the-same-text-in-ten-languages"),
            "<p>One short paragraph, written for this app in ten languages, tokenized by GPT-2, GPT-4's "
            "cl100k_base, GPT-4o's o200k_base and the run studied above at the chosen size.</p>")
    lang_key = f"{choice.key}:{k}:" + ":".join(ours_keys)
    tokenizers = len({r["tokenizer"] for r in rows})
    # side by side on a wide screen (stacked on a phone): the tab stays within three screens
    out.pair(dict(cache_key="lang-tokens:" + lang_key, build=lambda: language_tokens_chart(pd.DataFrame(rows)),
                  figure=lambda: static.language_tokens_figure(rows), key="vocab_w_lang_tokens",
                  extra=170 + 22 * tokenizers),
             dict(cache_key="lang-ratio:" + lang_key, build=lambda: language_ratio_chart(pd.DataFrame(rows)),
                  figure=lambda: static.language_ratio_figure(rows), key="vocab_w_lang_ratio", extra=420))
    out.add(_explain_languages(rows))
    out.flush()
    unknown = [r for r in rows if r["tokenizer"] in ours and r["unknown"] > 0]
    if unknown:
        langs = ", ".join(f"{r['language']} ({int(r['unknown']):,})" for r in unknown)
        st.info(f"Your character-level tokenizer has never seen some characters of: {langs}. Each unknown "
                "character is counted as one token (as an [UNK] token would be). Byte units avoid this: "
                "every character is made of bytes the vocabulary has.")
    box = folded("Exact numbers", "vocab_w_lang_table")
    if box is not None:
        box.dataframe(
            pd.DataFrame(rows)[["tokenizer", "language", "script", "tokens", "ratio", "chars", "bytes",
                                "bytes_per_char", "chars_per_token", "unknown"]],
            hide_index=True, width="stretch",
            column_config={
                "ratio": st.column_config.NumberColumn("× English", format="%.2f"),
                "bytes_per_char": st.column_config.NumberColumn("bytes per character", format="%.2f"),
                "chars_per_token": st.column_config.NumberColumn("characters per token", format="%.2f"),
                "unknown": st.column_config.NumberColumn("unknown characters"),
            },
        )
    box = folded("The ten texts", "vocab_w_lang_texts")
    if box is not None:
        for code, text in texts.items():
            box.markdown(f"**{LANGUAGES[code][0]}** ({LANGUAGES[code][1]})")
            box.text(text)


@lru_cache(maxsize=1)
def _openai_rows() -> list[dict]:
    """The OpenAI tokenizers' rows of the language table, as plain dicts (made once; read-only)."""
    return openai_language_table().to_dict("records")


def _languages_at(key: str, run: TrainingRun, k: int) -> dict[str, TokenCount]:
    """The ten paragraphs' counts under the first k merges of the run `key` names, read
    off their counts at every step (one pass per run and paragraph, `counts_for`)."""
    return {code: counts_for(key, f"language:{code}", run, text).at(k) for code, text in language_texts().items()}


def _explain_languages(rows: list[dict]) -> str:
    # plain rows, not a groupby: the slider redraws this at every move
    most: dict[str, tuple[float, str]] = {}  # tokenizer -> (largest ratio, its language), first-seen order
    bpc = None
    for r in rows:
        name, language, ratio = r["tokenizer"], r["language"], r["ratio"]
        if ratio == ratio and (name not in most or ratio > most[name][0]):  # NaN skipped; first of ties, as idxmax
            most[name] = (ratio, language)
        if r["code"] == "hi" and bpc is None:
            bpc = r["bytes_per_char"]
    bpc = 3.0 if bpc is None else bpc
    worst = [f"{html.escape(str(name))}: {html.escape(str(language))} needs "
             f"<strong>{ratio:.1f}×</strong> English's tokens" for name, (ratio, language) in most.items()]
    return (
        "<p>The paragraph says the same thing in every language, so a fair tokenizer would spend about the same "
        "number of tokens on each. It does not: " + "; ".join(worst) + ". "
        "A BPE tokenizer spends its merges where its training text was: a script it saw little of got few "
        "merges, so its words stay split into short pieces. At the bottom is the byte-level fallback: a character "
        "with no merges costs one token per UTF-8 byte, 1 for ASCII, 2 for Cyrillic or Arabic, 3 for Devanagari, "
        f"Chinese, Japanese or Korean (this Hindi text averages {bpc:.1f} bytes a character) and 4 for an emoji. "
        "Larger vocabularies trained on more languages (cl100k, then o200k) narrow the gap. "
        "More tokens means a shorter context window, slower generation and a higher bill for the same meaning.</p>"
    )
