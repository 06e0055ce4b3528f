"""What each recipe of docs/architecture.md promises, checked in a process where
tests/recipe_inject.py has added the new entry (tests/test_recipes.py runs this file;
pytest does not collect it on its own). A check for another recipe is skipped."""
from __future__ import annotations

import json
import os

import pytest
from streamlit.testing.v1 import AppTest

from bpe_core.__main__ import main as cli_main
from tests.recipe_inject import LARGEST_ID, MISTRAL_V3

RECIPE = os.environ.get("BPE_RECIPE", "")
APP = "../app.py"
WORDS = "hug 10\npug 5\npun 12\nbun 4\nhugs 5\n"


def only(recipe: str):
    return pytest.mark.skipif(RECIPE != recipe, reason=f"checks the {recipe} recipe")


def _page(page: str, params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


@only("tie-rule")
@pytest.mark.parametrize("algorithm", ["bpe", "wordpiece"])
def test_the_command_line_trains_with_the_new_rule(algorithm, tmp_path, capsys):
    words = tmp_path / "words.txt"
    words.write_text(WORDS, encoding="utf-8")
    args = ["train", "--words", str(words), "--merges", "6", "--json", "--algorithm", algorithm]
    assert cli_main([*args, "--tie-break", LARGEST_ID]) == 0
    newest = json.loads(capsys.readouterr().out)
    assert cli_main([*args, "--tie-break", "smallest-id"]) == 0
    oldest = json.loads(capsys.readouterr().out)
    # the runs part at a tie, which the largest ids win where the smallest did
    first = next(i for i, (a, b) in enumerate(zip(newest, oldest)) if a["pair"] != b["pair"])
    new, old = newest[first], oldest[first]
    assert new["tie_count"] == old["tie_count"] > 1 and new["pair"] == new["ties"][0]
    assert sorted(new["ties"]) == sorted(old["ties"])


@only("tie-rule")
def test_the_train_page_takes_the_new_rule_from_a_link():
    at = _page("views/train.py", {"preset": "sennrich", "tie": LARGEST_ID, "step": "3"})
    assert not any("tie=" in w.value for w in at.warning)  # the link's value is accepted
    assert at.session_state["train.s.tie_break"] == LARGEST_ID


@only("tokenizer")
def test_the_command_line_encodes_as_sentencepiece(tmp_path, capsys):
    import sentencepiece

    from bpe_core.pretrained import PRETRAINED, package_file

    text = "Hello world, 你好! Tokenizers split text.\n  spaces  and\ttabs"
    assert cli_main(["encode", "--tokenizer", MISTRAL_V3, "--text", text, "--json"]) == 0
    ours = json.loads(capsys.readouterr().out)
    sp = sentencepiece.SentencePieceProcessor(model_file=str(package_file(PRETRAINED[MISTRAL_V3])))
    assert ours == sp.encode(text)


@only("tokenizer")
def test_the_tokenize_page_offers_the_new_tokenizer():
    at = _page("views/tokenize.py", {"tokenizer": MISTRAL_V3, "text": "Hello world"})
    assert at.segmented_control(key="tokenize_w_tokenizer").value == MISTRAL_V3


@only("algorithm")
def test_the_command_line_trains_the_new_algorithm(tmp_path, capsys):
    words = tmp_path / "words.txt"
    words.write_text(WORDS, encoding="utf-8")
    assert cli_main(["train", "--algorithm", "characters", "--words", str(words), "--vocab-size", "4"]) == 0
    assert capsys.readouterr().out.splitlines() == ["step    1: h", "step    2: u", "step    3: g", "step    4: p"]


@only("algorithm")
def test_the_algorithms_page_draws_the_new_tab():
    at = _page("views/algorithms.py", {})
    assert "Characters" in [t.label for t in at.tabs]
    assert at.title[0].value == "Four ways to learn a vocabulary"
    at.session_state["algo.tab"] = "Characters"
    at.run()
    assert not at.exception, at.exception
    assert any("Characters kept" in m.value for m in at.markdown)
