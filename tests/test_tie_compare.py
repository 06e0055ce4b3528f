"""Tie rules side by side on the Train page (ui/train/tie_compare.py): the merge lists of
every tie rule on the corpus on screen, and the first step where they part, checked
against the engine trained directly with each rule."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from bpe_core import TrainerSettings, WordTable, train
from bpe_core.tie_rules import TIE_RULES
from ui.train.tie_compare import MAX_MERGES, OPEN, TOGGLE

APP = "../app.py"
PAGE = "views/train.py"

#: "ab" wins merge 1 (3 times), "qq" merge 2 (twice); then "zy" and "cd" tie at 1:
#: first-seen takes zy (seen first), lexicographic zy (the larger strings), smallest-id
#: cd (c < z). They part at merge 3.
PARTING_WORDS = "ab 3\nzy 1\ncd 1\nqq 2"


def open_train(query: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def engine_parting(words: str, merges: int) -> tuple[int | None, dict[str, list[tuple[str, str]]]]:
    table = WordTable.from_word_counts(words)
    lists = {r: [e.pair_text for e in train(table, TrainerSettings(end_of_word="none", tie_break=r,
                                                                   merges=merges)).events]
             for r in TIE_RULES}
    n = max(len(v) for v in lists.values())
    parting = next((i + 1 for i in range(n) if len({tuple(v[i]) if i < len(v) else None
                                                       for v in lists.values()}) > 1), None)
    return parting, lists


def compare_on(at: AppTest) -> AppTest:
    at.session_state[OPEN] = True  # open the folded expander, as a click does (a rerun)
    at.run()
    at.toggle(key=TOGGLE).set_value(True).run()
    assert not at.exception, at.exception
    return at


def test_the_first_parting_step_is_the_engines():
    parting, lists = engine_parting(PARTING_WORDS, 5)
    assert parting == 3  # the corpus is built for it (see above)
    assert lists["first-seen"][2] == ("z", "y") and lists["smallest-id"][2] == ("c", "d")
    at = compare_on(open_train({"words": PARTING_WORDS, "eow": "none", "merges": "5"}))
    said = " ".join(m.value for m in at.markdown)
    assert "They part at merge 3." in said
    assert "**smallest-id** merges **c + d** because it has the smallest ids" in said
    assert "**first-seen** merges **z + y** because it occurs first" in said
    df = next(d.value for d in at.dataframe if "step" in d.value.columns and "first-seen" in d.value.columns)
    assert list(df["step"]) == [1, 2, 3, 4]  # four words of two letters: four merges, then none is left
    assert list(df[""]).index("◀ first parting") == parting - 1
    for rule in TIE_RULES:
        assert list(df[rule]) == [f"{a} + {b}" for a, b in lists[rule]]


def test_rules_that_never_part_say_so():
    at = compare_on(open_train({"words": "ab 3\nabc 2", "eow": "none", "merges": "2"}))
    parting, _ = engine_parting("ab 3\nabc 2", 2)
    assert parting is None
    assert any(f"The {len(TIE_RULES)} rules agree on all 2 merges" in s.value for s in at.success)


def test_off_until_asked_and_bounded():
    at = open_train({"words": PARTING_WORDS, "eow": "none", "merges": "4"})
    assert [e for e in at.expander if e.label == "Compare tie rules"]
    assert not any(t.key == TOGGLE for t in at.toggle)  # folded: its contents are not drawn
    at.session_state[OPEN] = True
    at.run()
    assert at.toggle(key=TOGGLE).value is False
    assert not any("They part" in m.value for m in at.markdown)  # nothing trained until asked
    assert MAX_MERGES <= 500
