"""Algorithms: every registered training algorithm trained on one corpus, side by side;
each one stepped in its own tab; the Hugging Face course's worked examples checked.

A thin view: the algorithms come from the registry (bpe_core.algorithms.ALGORITHMS), the
computing lives in ui.algorithms.logic, and each entry names the view module that draws
its tab (`Algorithm.view`, ui.algorithms.<name>_view).
"""
import importlib

import streamlit as st

from bpe_core.algorithms import ALGORITHMS
from ui.algorithms.course import all_checks
from ui.algorithms.logic import (
    SHOWN_WORDS,
    corpus_words,
    final_tokenizers,
    learned_surfaces,
    overlap_regions,
    side_by_side,
    side_by_side_html,
    tokens_per_word,
)
from ui.algorithms.widgets import choose_corpus, choose_extra, choose_tab, show_error, trained_runs
from ui.shared.markdown import md_escape
from ui.shared.tables import table_html
from ui.shared.word_views import table_height

#: The side-by-side tab's headings and notes, sized as Streamlit's subheaders and captions.
SIDE_CSS = """<style>
.algo-side h3 { font-size: 1.5rem; font-weight: 600; line-height: 1.25; margin: 1.4rem 0 0.6rem; padding: 0; }
.algo-side p { margin: 0 0 0.6rem; }
.algo-side p.algo-note { font-size: 0.875rem; opacity: 0.75; }
.algo-side code { font-size: 0.9em; padding: 0.1em 0.25em; border-radius: 0.25rem; background: rgba(128,128,128,0.15); }
</style>"""

#: Numbers in words, for the title.
NUMBER_WORDS = {2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six"}


def algorithm_tab(name: str, trained, corpus) -> None:
    """The tab of one algorithm: its registry entry's view (`Algorithm.view`), or an
    error naming the module when it cannot be imported."""
    module = ALGORITHMS[name].view
    try:
        show = importlib.import_module(module).show
    except (ImportError, AttributeError) as exc:
        st.error(md_escape(f"The {ALGORITHMS[name].title} tab cannot be drawn: {module} has no show "
                           f"function ({exc}). Its registry entry names the view module."))
        return
    show(trained[name], corpus)


def _titles() -> str:
    """The algorithms' titles in bold, "A, B and C"."""
    titles = [f"**{md_escape(a.title)}**" + (f" ({md_escape(a.used_by)})" if a.used_by else "")
              for a in ALGORITHMS.values()]
    return titles[0] if len(titles) == 1 else f"{', '.join(titles[:-1])} and {titles[-1]}"


def side_by_side_tab(trained, corpus) -> None:
    """The same words split by each algorithm, tokens per word, the vocabularies' overlap."""
    for t in trained.values():
        if t.run is None:
            show_error(t)
    tokenizers = final_tokenizers(trained)
    if not tokenizers:
        return
    words = corpus_words(corpus)
    shown = [w for w, _ in words[:SHOWN_WORDS]]
    # One HTML block: the words split side by side, then static tables (ui/shared/tables.py)
    # of tokens per word and of the vocabularies' overlap (its counts drawn as bars), with
    # their headings (<h3>) and notes. This tab is what a first visit opens: a data grid and
    # a Vega chart made the browser fetch and run about 2.5 MB of Streamlit's scripts, and
    # each heading or note as its own element was one more thing to render.
    regions = overlap_regions({n: learned_surfaces(n, tok) for n, tok in tokenizers.items()})
    overlap = (table_html(regions, bars={"tokens": max(r["tokens"] for r in regions)}, label="Vocabulary overlap")
               if regions else '<p class="algo-note">No multi-character tokens yet: raise the target vocabulary size.</p>')
    st.html(
        f'{SIDE_CSS}<div class="algo-side"><p>The {len(shown)} most frequent words, split by each algorithm:</p>'
        + side_by_side_html(shown, side_by_side(tokenizers, shown))
        + "<h3>Tokens per word</h3>" + table_html(tokens_per_word(tokenizers, words), label="Tokens per word")
        + "<h3>Vocabulary overlap</h3><p>Multi-character tokens compared by their characters (WordPiece's "
          "<code>##</code> and Unigram's <code>▁</code> set aside), the number of tokens each combination of "
          "vocabularies shares:</p>" + overlap + "</div>"
    )


def course_tab() -> None:
    """The Hugging Face course's chapter 6 numbers, recomputed; the wrong ones named."""
    st.markdown(
        "The Hugging Face NLP course (chapter 6) works BPE, WordPiece and Unigram by hand on one small "
        "corpus: hug 10, pug 5, pun 12, bun 4, hugs 5 (pick *Hugging Face course* above to train on it). "
        "Here every number it prints is recomputed with this app's engine. Where the course is wrong, "
        "the right value is shown and the note says why."
    )
    checks = all_checks()
    wrong = sum(not c.agrees for c in checks)
    st.markdown(f"**{len(checks) - wrong} of {len(checks)}** numbers agree; **{wrong}** do not.")
    for section in ("BPE", "WordPiece", "Unigram"):
        st.markdown(f"**{section}**")
        rows = [c for c in checks if c.section == section]
        st.dataframe([{"claim": c.claim, "the course": c.course, "this app": c.ours,
                       "agrees": "yes" if c.agrees else "NO"} for c in rows],
                     hide_index=True, width="stretch", height=table_height(len(rows), most=1400))
        for c in rows:
            if not c.agrees:
                st.warning(md_escape(f"{c.claim}: the course says {c.course}, it is {c.ours}. {c.note}"))
            elif c.note:
                st.caption(md_escape(f"{c.claim}: {c.note}"))


st.title(f"{NUMBER_WORDS.get(len(ALGORITHMS), len(ALGORITHMS))} ways to learn a vocabulary")
st.markdown(
    f"{_titles()} all learn subword tokens from a corpus, but they choose them differently. "
    "Train them all on the same text and compare."
)
st.markdown("\n".join(f"- **{md_escape(algo.title)}**: {md_escape(algo.summary)}" for algo in ALGORITHMS.values()))

corpus_col, size_col = st.columns([3, 1])
with corpus_col:
    corpus = choose_corpus()
if corpus is None:
    st.stop()
with size_col:
    extra = choose_extra(corpus)
with st.spinner(f"Training {', '.join(a.title for a in ALGORITHMS.values())}..."):
    trained = trained_runs(corpus, int(extra))

# Only the open tab is drawn (a switch reruns the page; the runs come from the cache).
tabs = choose_tab(["Side by side"] + [a.title for a in ALGORITHMS.values()] + ["The course's examples"])
draws = [lambda: side_by_side_tab(trained, corpus)]
draws += [lambda name=name: algorithm_tab(name, trained, corpus) for name in ALGORITHMS]
draws += [course_tab]
for tab, draw in zip(tabs, draws):
    if tab.open:
        with tab:
            draw()
