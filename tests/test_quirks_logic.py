"""The Quirks page's pure functions: encodings equal tiktoken's (built offline from the
same files), every claim's verdict follows from the real result, the helpers' figures,
the quiz's grading and its computed arithmetic."""
from __future__ import annotations

import pytest
import tiktoken

from bpe_core.pretrained.openai_files import load_openai_encoding
from bpe_core.pretrained import PRETRAINED
from ui.vocab.model_cost import PRESETS, check_figure
from ui.quirks import logic
from ui.quiz import questions as quiz

_REFS: dict[str, tiktoken.Encoding] = {}


def reference(name: str) -> tiktoken.Encoding:
    if name not in _REFS:
        f = load_openai_encoding(name)
        _REFS[name] = tiktoken.Encoding(name, pat_str=f.pattern, mergeable_ranks=f.mergeable_ranks,
                                        special_tokens=f.special_tokens)
    return _REFS[name]


OPENAI = ("gpt2", "cl100k_base", "o200k_base")
EVERY_EXAMPLE = sorted({t for q in logic.QUIRKS for t in q.examples} | {c.text for c in logic.CLAIMS})


@pytest.mark.parametrize("name", OPENAI)
def test_every_example_encodes_as_tiktoken_does(name):
    ref = reference(name)
    for text in EVERY_EXAMPLE:
        assert list(logic.encode_with(name, text).ids) == ref.encode(text, disallowed_special=()), text
    assert logic.encode_with(name, "<|endoftext|>", allow_special=True).ids == (ref.eot_token,)


@pytest.mark.parametrize("claim", logic.CLAIMS, ids=lambda c: f"{c.tokenizer}:{c.kind}:{c.text[:12]}")
def test_claim_verdicts_follow_the_reference(claim):
    """Each verdict is recomputed here from tiktoken (or the regex for pre-tokenization)."""
    verdict = logic.check_claim(claim)
    if claim.kind == "pretokenize":
        import regex

        pieces = tuple(regex.findall(load_openai_encoding(claim.tokenizer).pattern, claim.text))
        assert verdict.holds == (pieces == claim.expected)
        return
    ref = reference(claim.tokenizer)
    ids = ref.encode(claim.text)
    if claim.kind == "count":
        assert verdict.holds == (claim.expected[0] <= len(ids) <= claim.expected[1])
        assert verdict.real == f"{len(ids)} tokens"
    elif claim.kind == "ids":
        assert verdict.holds == (tuple(ids) == claim.expected)
    elif claim.kind == "pieces":
        assert verdict.holds == (tuple(ref.decode([i]) for i in ids) == claim.expected)
    elif claim.kind == "max_digits":
        assert verdict.holds == all(len(ref.decode([i])) <= claim.expected[0] for i in ids)
    elif claim.kind == "differ":
        shapes = {tuple(len(ref.decode([i])) for i in ref.encode(t)) for t in (claim.text, *claim.others)}
        assert verdict.holds == (len(shapes) > 1)


def test_known_verdicts():
    """The source texts' token counts that do not hold (001's "~3", "~6-8", "~12-14", "~20")
    and the ones that do (the zero-width split, __init__, digit groups of three)."""
    by_text = {(c.tokenizer, c.text, c.kind): logic.check_claim(c).holds for c in logic.CLAIMS}
    assert by_text[("o200k_base", "Hello, world!", "count")] is False
    assert by_text[("o200k_base", "1 2 3 4 5 6 7 8 9 10", "count")] is False
    assert by_text[("o200k_base", "Ign\u200bore", "pieces")] is True
    assert by_text[("o200k_base", "__init__", "pieces")] is True
    assert by_text[("cl100k_base", "12345678901234567890", "max_digits")] is True
    assert by_text[("o200k_base", '{"status": "ok"}', "ids")] is False


def test_unknown_claim_kind_is_a_value_error():
    bad = logic.Claim("x", "000", "q", "gpt2", "a", "guess", ())
    with pytest.raises(ValueError, match="Unknown claim kind 'guess'"):
        logic.check_claim(bad)


def test_every_quirk_has_examples_and_sentences():
    assert len(logic.QUIRKS) == 11 and len(set(logic.QUIRK_IDS)) == 11
    for q in logic.QUIRKS:
        assert q.what and q.why.endswith(".")
        assert q.examples or q.id == "scripts"
    assert {c.quirk for c in logic.CLAIMS} <= set(logic.QUIRK_IDS)


def test_every_tokenizer_encodes_every_example_and_decodes_back():
    from tokenizers import Tokenizer as HFTokenizer

    from bpe_core.pretrained import package_file

    # Mon Unigram's normalizer drops zero-width characters and its decoder the space its
    # Metaspace put in front: its ids decode as Hugging Face's own decode gives them
    mon = HFTokenizer.from_file(str(package_file(PRETRAINED["mon-unigram"])))
    lossy = {"mon-unigram": lambda text, ids: mon.decode(ids, skip_special_tokens=False)}
    # BERT's normalizer drops case (uncased), accents and whitespace runs: its ids decode as
    # Hugging Face's BertWordPieceTokenizer decodes them
    for name in (n for n, p in PRETRAINED.items() if p.kind == "bert-i2w"):
        bert = bert_reference(name)
        lossy[name] = lambda text, ids, bert=bert: bert.decode(ids, skip_special_tokens=False)
    for name in PRETRAINED:
        tok = PRETRAINED[name].load()
        for text in EVERY_EXAMPLE:
            enc = logic.encode_with(name, text)
            assert enc.count == len(enc.spans) or name == "mistral-7b-v1"
            expected = lossy[name](text, list(enc.ids)) if name in lossy else text
            assert tok.decode(list(enc.ids)) == expected, (name, text)


def test_helpers():
    assert logic.letter_count("strawberry", "R") == 3
    assert logic.tokens_with_letter(logic.split_of("gpt2", "strawberry"), "r") == 2  # st|raw|berry
    assert logic.digit_chunk_lengths(logic.split_of("cl100k_base", "12345678901234567890")) == (3, 3, 3, 3, 3, 3, 2)
    nxt = logic.next_different_split("gpt2", 1234)
    assert nxt is not None and 1234 < nxt <= 9999
    shape = lambda n: tuple(map(len, logic.split_of("gpt2", str(n))))  # noqa: E731
    assert shape(nxt) != shape(1234) and all(shape(n) == shape(1234) for n in range(1235, nxt))
    assert logic.next_different_split("o200k_base", 1234) is None  # always 3 + 1
    assert logic.naive_filter_sees("Ignore it", "ignore") and not logic.naive_filter_sees("Ign\u200bore", "ignore")
    assert logic.invisible_characters("a\u200bb\u200dc") == ("U+200B ZERO WIDTH SPACE", "U+200D ZERO WIDTH JOINER")
    assert logic.pretokenize_pieces("mistral-7b-v1", "x") == ()


def test_script_rows_count_real_tokens():
    texts = logic.language_texts()
    assert [t[0] for t in texts] == ["en", "de", "es", "fr", "ru", "ar", "hi", "zh", "ja", "ko"]
    rows = logic.script_rows([(lang, script, text) for _, lang, script, text in texts], OPENAI)
    for row, (_, _, _, text) in zip(rows, texts):
        assert row["bytes"] == len(text.encode()) and row["characters"] == len(text)
        for name in OPENAI:
            assert row[f"{PRETRAINED[name].short} tokens"] == len(reference(name).encode(text))
    en, zh = rows[0], rows[7]
    assert zh["GPT-2 tokens/char"] > en["GPT-2 tokens/char"]  # the point of the section


def test_quiz_arithmetic_is_the_calculators():
    """64K -> 128K at d = 4,096 untied: the quiz's answer is the Vocabulary size page's
    "double_v" preset figure, computed, not typed."""
    q = quiz.questions_for("vocab_size")[0]
    assert q.number == quiz.added_params() / 1e6 == 524.288
    figure, ok = check_figure(PRESETS["double_v"], PRESETS["double_v"].figures[0])
    assert ok and figure == "524M"
    assert quiz.grade_number(q, 524) and not quiz.grade_number(q, 262) and quiz.grade_number(q, None) is None


def test_quiz_choices_have_one_answer_each():
    for q in quiz.QUESTIONS:
        if q.options:
            assert 0 <= q.answer < len(q.options)
            assert [quiz.grade_choice(q, i) for i in range(len(q.options))].count(True) == 1
        else:
            assert q.number is not None
    assert {q.page for q in quiz.QUESTIONS} == {"quirks", "vocab_size"}
    sections = {q.section for q in quiz.questions_for("quirks")}
    assert sections <= set(logic.QUIRK_IDS) | {"examples"}


def bert_reference(name: str):
    """Hugging Face's BertWordPieceTokenizer on the vocab.txt of a built-in BERT entry."""
    from tokenizers import BertWordPieceTokenizer

    from bpe_core.formats.blingfire_i2w import bert_vocab
    from bpe_core.pretrained import package_file
    from bpe_core.pretrained.open_models import BERT_LOWERCASE

    vocab = bert_vocab(package_file(PRETRAINED[name]).read_bytes())
    return BertWordPieceTokenizer({t: i for i, t in enumerate(vocab)}, lowercase=BERT_LOWERCASE[name])
