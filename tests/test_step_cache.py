"""The Train page's step cache (ui/train/step_cache.py): same drawing as without it, keyed
by the run's content, bounded in bytes. Isolation between sessions (no file name, no
answers) is tested in tests/test_session_isolation.py."""
from __future__ import annotations

from bpe_core import TrainerSettings, WordTable, train
from ui.shared.cache import BUDGETS, cache_named
from ui.train import chart, corpus_view, downloads, merges, pair_table, sentence, step_cache, vocab_view
from ui.train.run_view import RunView


def _view(text: str, key: str, merges: int = 6) -> RunView:
    run = train(WordTable.from_word_counts(text), TrainerSettings(end_of_word="separate", merges=merges))
    return RunView(run, key=key)


def test_the_helpers_are_wrapped_and_draw_exactly_what_they_drew_before():
    v = _view("low 5\nlower 2\nnewest 6\nwidest 3", "test-sc-same")
    assert len(step_cache.cached_helpers()) >= 15
    for name in step_cache.cached_helpers():
        module = next(m for m in (downloads, chart, corpus_view, merges, pair_table, sentence, vocab_view)
                      if hasattr(m, name))
        assert hasattr(getattr(module, name), "__wrapped__"), name
    for k in range(v.steps + 1):
        for present in (False, True):
            assert sentence.explain_step(v, k, present=present) == sentence.explain_step.__wrapped__(v, k, present=present)
            assert merges.tables_html(v, k, present=present) == merges.tables_html.__wrapped__(v, k, present=present)
            assert corpus_view.corpus_html(v, k, present=present) == corpus_view.corpus_html.__wrapped__(v, k, present=present)
        assert vocab_view.vocab_html(v, k) == vocab_view.vocab_html.__wrapped__(v, k)
        assert merges.merge_effect_html(v, k) == merges.merge_effect_html.__wrapped__(v, k)
        assert pair_table.pair_section_html(v, k, max_rows=5) == pair_table.pair_section_html.__wrapped__(v, k, max_rows=5)
        if k:
            assert merges.merge_row_label(v, k) == merges.merge_row_label.__wrapped__(v, k)
        assert vocab_view.figures(v, k) == vocab_view.figures.__wrapped__(v, k)
        # twice: the second comes from the cache, and is still right
        assert corpus_view.corpus_html(v, k) == corpus_view.corpus_html.__wrapped__(v, k)


def test_two_runs_never_share_an_entry_and_keyless_views_are_not_cached():
    a = _view("low 5\nlower 2\nnewest 6", "test-sc-a")
    b = _view("hug 10\npug 5\npun 12\nbun 4", "test-sc-b")
    assert corpus_view.corpus_html(a, 2) != corpus_view.corpus_html(b, 2)
    assert corpus_view.corpus_html(b, 2) == corpus_view.corpus_html.__wrapped__(b, 2)
    before = len(cache_named(step_cache.CACHE_NAME))
    keyless = RunView(a.run)  # tests build views like this: never cached (no content key)
    corpus_view.corpus_html(keyless, 1)
    assert len(cache_named(step_cache.CACHE_NAME)) == before


def test_format_problems_are_shared_per_run_and_step():
    a = _view("low 5\nlower 2\nnewest 6", "test-sc-fp-a")
    b = _view("hug 10\npug 5\npun 12\nbun 4", "test-sc-fp-b")
    raw = downloads.format_problems.__wrapped__
    assert downloads.format_problems(a.run, 2) == raw(a.run, 2)
    misses = step_cache.stats()["miss"]
    assert downloads.format_problems(a.run, 2) == raw(a.run, 2)
    assert step_cache.stats()["miss"] == misses  # a hit
    assert downloads.format_problems(b.run, 2) == raw(b.run, 2)


def test_the_cache_has_a_byte_budget_and_keeps_to_it():
    assert step_cache.CACHE_NAME in BUDGETS
    cache = cache_named(step_cache.CACHE_NAME)
    v = _view("low 5\nlower 2\nnewest 6\nwidest 3", "test-sc-budget", merges=8)
    for k in range(v.steps + 1):
        corpus_view.corpus_html(v, k)
    assert 0 < cache.nbytes <= cache.budget
