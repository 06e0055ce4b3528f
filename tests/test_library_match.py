"""The Train page's "Match a library" settings reproduce the installed libraries' merges,
merge by merge: subword-nmt 0.3.8's learn-bpe and Hugging Face tokenizers' BpeTrainer
(ui/train/library_match.py), on the Sennrich words and the page's other word lists."""
from __future__ import annotations

import io
import json

import pytest
import subword_nmt
from subword_nmt.learn_bpe import learn_bpe
from streamlit.testing.v1 import AppTest
from tokenizers import Tokenizer as HFTokenizer, models, pre_tokenizers, trainers

from bpe_core import train
from tests.train_settings import open_settings
from ui.train import library_match
from ui.train import state
from ui.train.config import Settings, build_word_table, load_presets, preset_corpus

WORD_LISTS = ("sennrich", "sennrich_figure1", "hf_course", "seed001_five_words")
N = 30


def words_of(preset: str) -> dict[str, int]:
    table, _ = build_word_table(preset_corpus(preset), load_presets()[preset].settings)
    return dict(zip(table.words, table.counts))


def ours(preset: str, library: str) -> list[tuple[str, str]]:
    s = library_match.apply(Settings(merges=N), library)
    table, _ = build_word_table(preset_corpus(preset), s)
    return [tuple(e.pair_text) for e in train(table, s.trainer_settings()).events]


def subword_nmt_merges(words: dict[str, int]) -> list[tuple[str, str]]:
    out = io.StringIO()
    learn_bpe(io.StringIO("".join(f"{w} {c}\n" for w, c in words.items())), out, N, is_dict=True)  # min_frequency 2
    return [tuple(line.split(" ")) for line in out.getvalue().splitlines() if not line.startswith("#")]


def bpe_trainer_merges(words: dict[str, int], suffix: str | None) -> list[tuple[str, str]]:
    tok = HFTokenizer(models.BPE(end_of_word_suffix=suffix) if suffix else models.BPE())
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    options = {"end_of_word_suffix": suffix} if suffix else {}
    tok.train_from_iterator([w for w, c in words.items() for _ in range(c)],
                            trainers.BpeTrainer(vocab_size=10_000, show_progress=False, **options))
    merges = json.loads(tok.to_str())["model"]["merges"]
    return [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in merges][:N]


def test_the_installed_subword_nmt_is_the_one_checked():
    from importlib.metadata import version

    assert version("subword-nmt") == "0.3.8" and subword_nmt.learn_bpe.learn_bpe is learn_bpe


@pytest.mark.parametrize("preset", WORD_LISTS)
def test_subword_nmt_choice_makes_learn_bpe_merges(preset):
    expected = subword_nmt_merges(words_of(preset))
    assert expected, "subword-nmt made no merge"
    assert ours(preset, "subword-nmt") == expected


def test_first_seen_with_a_separate_marker_does_not():
    """The page's default (Sennrich's Algorithm 1 as printed) parts from subword-nmt at merge 1."""
    expected = subword_nmt_merges(words_of("sennrich"))
    assert expected[0] == ("s", "t</w>")
    table, _ = build_word_table(preset_corpus("sennrich"), Settings())
    assert tuple(train(table, Settings().trainer_settings()).events[0].pair_text) == ("e", "s")


@pytest.mark.parametrize("preset", WORD_LISTS)
@pytest.mark.parametrize("library, suffix", [("hf-bpe", None), ("hf-bpe-suffix", "</w>")])
def test_bpe_trainer_choices_make_its_merges(preset, library, suffix):
    expected = bpe_trainer_merges(words_of(preset), suffix)
    got = ours(preset, library)
    assert got == expected[:len(got)] and len(got) == min(N, len(expected))


def test_the_page_offers_the_choice_and_says_what_subword_nmt_does_at_merge_1():
    at = AppTest.from_file("../app.py", default_timeout=60)
    at.run()
    at.switch_page("views/train.py").run()
    open_settings(at)
    assert not at.exception
    choice = at.selectbox(key="train_w_library")
    assert choice.value == library_match.OWN
    assert "subword-nmt learn-bpe" in at.selectbox(key="train_w_end_of_word").help
    at.button(key="train_w_btn_step").click().run()
    line = [c.value for c in at.caption if "subword-nmt learn-bpe merges" in c.value]
    assert len(line) == 1 and "s + t</w>" in line[0].replace("\\\\", "").replace("\\", "")
    open_settings(at)
    at.selectbox(key="train_w_library").set_value("subword-nmt").run()
    assert not at.exception
    assert at.session_state["train.s.end_of_word"] == "attached"
    assert at.session_state["train.s.tie_break"] == "lexicographic"
    assert at.session_state["train.s.min_count"] == 2
    open_settings(at)
    assert at.selectbox(key="train_w_library").value == "subword-nmt"
    assert at.session_state[state.STEP] == 1  # the step stays: merge 1 is now subword-nmt's
    sentence = next(h.value for h in at.html if "tp-sentence" in h.value and "Merged" in h.value)
    assert "t&lt;/w&gt;" in sentence and "lexicographic" in sentence
    assert not any("subword-nmt learn-bpe merges" in c.value for c in at.caption)


def test_prose_split_at_spaces_suggests_gpt2_and_names_glued_words():
    """English prose with the whitespace pre-tokenizer: a note says punctuation stays
    glued to words, names such a pair from the corpus, and suggests gpt2; with gpt2 no note."""
    at = AppTest.from_file("../app.py", default_timeout=60)
    at.run()
    at.switch_page("views/train.py").run()
    open_settings(at)
    at.selectbox(key="train_w_preset").set_value("english").run()
    open_settings(at)
    assert not any("glued" in c.value for c in at.caption)  # the preset trains with gpt2
    at.selectbox(key="train_w_pretokenizer").set_value("whitespace").run()
    open_settings(at)
    assert not at.exception
    note = [c.value for c in at.caption if "punctuation stays glued" in c.value]
    assert len(note) == 1 and "**gpt2**" in note[0] and "(here “" in note[0]


def test_the_first_merge_of_a_pair_seen_once_says_it_memorises_words():
    from bpe_core import TrainerSettings, WordTable
    from ui.train.sentence import explain_step
    from ui.train.run_view import RunView

    run = train(WordTable.from_word_counts("low 5\nlower 2\nxyzzy 1"), TrainerSettings(merges=20))
    view = RunView(run)
    once = [e.step for e in run.events if e.count == 1]
    assert len(once) >= 2
    assert "memorise whole words" in explain_step(view, once[0]).text
    assert not any("memorise" in explain_step(view, k).text for k in once[1:])
    assert not any("memorise" in explain_step(view, e.step).text for e in run.events if e.count > 1)
