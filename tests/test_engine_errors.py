"""Bad input gets a ValueError (TypeError for a wrong type) whose message names the
problem, shows the value, and says what to do: a page shows it to a student as is.

Each test asserts on the key words of the message, so a vague message fails.
"""
from __future__ import annotations

import re

import pytest

from bpe_core import (
    BPETrainer,
    Tokenizer,
    TrainerSettings,
    WordTable,
    decode_text_file,
    gpt2_to_bytes,
    parse_word_counts,
    pretokenize,
    train,
)
from bpe_core.formats import tokenizer_from_json
from bpe_core.pretrained import openai_tokenizer

LOW = "low 5\nlower 2\nnewest 6\nwidest 3"


def _byte_tokenizer(**kw) -> Tokenizer:
    run = train(WordTable.from_text("hello world, hello there", "gpt2"), TrainerSettings(units="byte", merges=5))
    return run.tokenizer(**kw)


# ---- empty corpora and corpora with nothing to merge ---------------------------------

@pytest.mark.parametrize("text, pretokenizer", [("", "gpt2"), ("", "none"), ("", "whitespace")])
def test_empty_text(text, pretokenizer):
    with pytest.raises(ValueError, match=r"corpus is empty.*Paste or upload"):
        WordTable.from_text(text, pretokenizer)


@pytest.mark.parametrize("text", [" ", "   \n\t  ", "\u3000\u00a0"])
def test_whitespace_only_text_with_the_whitespace_pretokenizer(text):
    """The whitespace pre-tokenizer drops whitespace, so nothing is left: the message
    says the text was only whitespace."""
    with pytest.raises(ValueError, match=r"corpus is empty.*only whitespace"):
        WordTable.from_text(text, "whitespace")


@pytest.mark.parametrize("text", ["", "\n\n", "# a comment only\n", "  \n# x\n"])
def test_empty_word_list(text):
    with pytest.raises(ValueError, match=r"word list is empty.*'low 5'"):
        WordTable.from_word_counts(text)


def test_empty_word_table_given_to_the_trainer():
    with pytest.raises(ValueError, match="corpus is empty"):
        BPETrainer(WordTable((), ()))


@pytest.mark.parametrize("units", ["char", "byte"])
@pytest.mark.parametrize("words", ["a 1\nb 2", "x 3", "# c\né 4\n, 1"])
def test_no_adjacent_pairs(words, units):
    """Single-character words and no end-of-word marker: no pair to count. ("é" is two
    bytes, so in byte units it has a pair: that case must train.)"""
    table = WordTable.from_word_counts(words)
    if units == "byte" and "é" in words:
        assert train(table, TrainerSettings(units=units)).events[0].pair_text == ("Ã", "©")
        return
    with pytest.raises(ValueError, match=r"Nothing to merge.*no adjacent pairs.*end-of-word marker"):
        train(table, TrainerSettings(units=units, end_of_word="none"))


def test_single_characters_train_with_a_separate_marker():
    """The fix the message suggests works: a separate marker gives each word a pair."""
    run = train(WordTable.from_word_counts("a 1\nb 2"), TrainerSettings(end_of_word="separate"))
    assert [ev.pair_text for ev in run.events] == [("b", "</w>"), ("a", "</w>")]


# ---- numbers: merges, minimum count, vocabulary size -----------------------------------

@pytest.mark.parametrize(
    "field, value, words",
    [
        ("merges", -1, r"merges must be at least 0, not -1"),
        ("min_count", -2, r"minimum count must be at least 0, not -2"),
        ("vocab_size", 0, r"vocabulary size must be at least 1, not 0"),
        ("vocab_size", -5, r"vocabulary size must be at least 1, not -5"),
        ("top_n", -1, r"top N must be at least 0"),
    ],
)
def test_negative_numbers(field, value, words):
    with pytest.raises(ValueError, match=words):
        TrainerSettings(**{field: value})


@pytest.mark.parametrize("value", [1.5, 2.0, "10", True, None, [3]])
@pytest.mark.parametrize("field, name", [("merges", "merges"), ("min_count", "minimum count"),
                                         ("vocab_size", "vocabulary size")])
def test_non_integer_numbers(field, name, value):
    """Floats (even 2.0), strings, booleans: "must be a whole number", showing the value.
    None means "no limit" for merges and the vocabulary size, so it is allowed there."""
    if value is None and field != "min_count":
        TrainerSettings(**{field: value})
        return
    with pytest.raises(ValueError, match=rf"The {name} must be a whole number, not {re.escape(repr(value))}"):
        TrainerSettings(**{field: value})


@pytest.mark.parametrize(
    "units, end_of_word, target, base",
    [("char", "none", 2, 3), ("char", "separate", 3, 4), ("byte", "none", 255, 256), ("byte", "separate", 100, 257)],
)
def test_target_vocabulary_smaller_than_the_base_alphabet(units, end_of_word, target, base):
    """"low": chars l, o, w (+ the marker); bytes: all 256 (+ the marker)."""
    with pytest.raises(ValueError, match=rf"target vocabulary of {target} is smaller than the {base} base symbols.*at least {base}"):
        train(WordTable.from_word_counts("low 5"), TrainerSettings(units=units, end_of_word=end_of_word, vocab_size=target))


def test_target_vocabulary_equal_to_the_base_alphabet_makes_no_merge():
    run = train(WordTable.from_word_counts("low 5"), TrainerSettings(vocab_size=3))
    assert run.steps == 0 and "vocabulary size of 3" in run.stop_reason


# ---- unknown names ----------------------------------------------------------------

def test_unknown_pretokenizer():
    with pytest.raises(ValueError, match=r"Unknown pre-tokenizer 'bert'\. Choose one of: whitespace, gpt2"):
        WordTable.from_text("x", "bert")
    with pytest.raises(ValueError, match=r"Unknown pre-tokenizer 'GPT2'"):
        pretokenize("x", "GPT2")


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("tie_break", "random", r"Unknown tie rule 'random'\. Choose one of: first-seen, lexicographic, smallest-id"),
        ("tie_break", "first_seen", r"Unknown tie rule 'first_seen'"),
        ("units", "word", r"Unknown units 'word'\. Choose one of: char, byte"),
        ("units", "bytes", r"Unknown units 'bytes'"),
        ("end_of_word", "suffix", r"Unknown end of word 'suffix'\. Choose one of: none, separate, attached"),
        ("end_of_word", None, r"Unknown end of word None"),
    ],
)
def test_unknown_settings(field, value, words):
    with pytest.raises(ValueError, match=words):
        TrainerSettings(**{field: value})


def test_empty_marker():
    with pytest.raises(ValueError, match=r"end-of-word marker is empty.*'</w>'"):
        TrainerSettings(end_of_word="separate", marker="")


# ---- word-count lists and files ----------------------------------------------------

@pytest.mark.parametrize(
    "text, words",
    [
        ("low 5\nlower x", r"Line 2: 'lower x' is not a 'word count' line \('x' is not a whole number\)"),
        ("low 5\n\nlower", r"Line 3: 'lower' is not a 'word count' line \(it has no count\)"),
        ("# c\nlow 1.5", r"Line 2: 'low 1.5'.*'1\.5' is not a whole number"),
        ("low 5\nlow 0", r"Line 2: 'low 0' has count 0; counts must be whole numbers of 1 or more"),
        ("low -3", r"Line 1: 'low -3' has count -3"),
        ("a b 3", r"Line 1: 'a b 3': a word may not contain spaces"),
        ("low 5\nlower 2\nnewest 6\nwidest", r"Line 4: 'widest'"),
    ],
)
def test_malformed_word_count_line_names_the_line(text, words):
    with pytest.raises(ValueError, match=words):
        WordTable.from_word_counts(text)
    with pytest.raises(ValueError, match=words):
        parse_word_counts(text)


@pytest.mark.parametrize(
    "data, words",
    [
        (b"abc\xff\xfe", r"the file is not valid UTF-8 text \(byte 0xff at position 3\).*Save it as UTF-8"),
        ("caf\u00e9".encode("latin-1"), r"not valid UTF-8 text \(byte 0xe9 at position 3\)"),
        ("\u00e9".encode()[:1], r"not valid UTF-8 text \(byte 0xc3 at position 0\)"),
        (b"ab\x00c", r"binary file \(it contains NUL bytes\)"),
    ],
)
def test_text_file_that_is_not_utf8(data, words):
    with pytest.raises(ValueError, match=words):
        decode_text_file(data)


def test_text_file_message_names_the_file():
    with pytest.raises(ValueError, match=r"^'notes\.txt' is not valid UTF-8"):
        decode_text_file(b"\x80", name="'notes.txt'")


def test_valid_utf8_file_with_a_byte_order_mark():
    assert decode_text_file("\ufeffhé".encode()) == "hé"


# ---- wrong types -----------------------------------------------------------------

@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: WordTable.from_text(b"bytes"), r"text must be a str, not bytes"),
        (lambda: WordTable.from_word_counts(None), r"word counts must be a str, not NoneType"),
        (lambda: decode_text_file("text"), r"data must be bytes, not str"),
        (lambda: BPETrainer(["low", "lower"]), r"words must be a WordTable, not list"),
        (lambda: TrainerSettings(end_of_word="separate", marker=5), r"marker must be a str, not int"),
        (lambda: pretokenize(3), r"text must be a str, not int"),
        (lambda: _byte_tokenizer().encode(b"x"), r"text must be a str, not bytes"),
        (lambda: _byte_tokenizer().decode(["a"]), r"token ids must be integers, not 'a'"),
        (lambda: _byte_tokenizer().decode([1.0]), r"token ids must be integers, not 1\.0"),
        (lambda: _byte_tokenizer().replay(None), r"piece must be a str, not NoneType"),
    ],
)
def test_wrong_types_are_type_errors(call, words):
    with pytest.raises(TypeError, match=words):
        call()


def test_word_table_with_mismatched_counts():
    with pytest.raises(ValueError, match=r"2 words but 1 counts"):
        WordTable(("low", "lower"), (5,))


# ---- tokenizers: decode, special tokens, unknown characters, steps --------------------

@pytest.mark.parametrize("bad", [10**6, -1, 264])
def test_decode_token_id_out_of_range(bad):
    """The trained vocabulary has 256 bytes + 5 merges = ids 0..260, and <|endoftext|>
    is 261; 264 and the others are not ids."""
    tok = _byte_tokenizer()
    assert tok.special_tokens == {"<|endoftext|>": 261}
    with pytest.raises(ValueError, match=rf"Token id {bad} is not in the .* vocabulary \(ids 0 to 260, plus special tokens\)"):
        tok.decode([1, bad])


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_decode_out_of_range_with_openai_tokenizers(name):
    tok = openai_tokenizer(name)
    with pytest.raises(ValueError, match=rf"Token id 999999 is not in the {name} vocabulary"):
        tok.decode([999999])


def test_disallowed_special_token():
    tok = _byte_tokenizer()
    with pytest.raises(ValueError, match=r"contains the special token '<\|endoftext\|>', which is not allowed.*allowed_special"):
        tok.encode("a <|endoftext|> b", disallowed_special="all")


@pytest.mark.parametrize("which", ["trained", "gpt2", "cl100k_base", "o200k_base"])
def test_special_tokens_are_ordinary_text_by_default(which):
    """Pasted text cannot inject a control token: by default "<|endoftext|>" is its
    characters (several ids); only allowed_special makes it the one special id."""
    tok = _byte_tokenizer() if which == "trained" else openai_tokenizer(which)
    special = tok.special_tokens["<|endoftext|>"]
    plain = tok.encode("<|endoftext|>")
    assert len(plain) > 1 and special not in plain
    assert tok.decode(plain) == "<|endoftext|>"
    assert tok.encode("<|endoftext|>", allowed_special="all") == [special]
    assert tok.encode("<|endoftext|>", allowed_special={"<|endoftext|>"}) == [special]
    assert tok.encode("x<|endoftext|>", allowed_special="all")[-1] == special


def test_gpt2_special_token_id():
    tok = openai_tokenizer("gpt2")
    assert tok.encode("<|endoftext|>", allowed_special="all") == [50256]


def test_unknown_allowed_special_token():
    with pytest.raises(ValueError, match=r"'<\|foo\|>' is not a special token of .*<\|endoftext\|>"):
        _byte_tokenizer().encode("x", allowed_special={"<|foo|>"})


def test_character_unknown_to_a_character_vocabulary():
    run = train(WordTable.from_text("low lower", "gpt2"), TrainerSettings(merges=2))
    with pytest.raises(ValueError, match=r"The character 'z' \(U\+007A\) is not in this character-level vocabulary.*byte units"):
        run.tokenizer().encode("lz")


@pytest.mark.parametrize("text", ["a", "ba", "bb"])
def test_character_known_only_in_the_other_end_of_word_form(text):
    """Char units, marker attached, trained on "ab": the base vocabulary is a and b</w>.
    Encoding "a" needs a</w>, and "ba" needs b (not final) and a</w>; neither exists, so
    encode must raise ValueError. It looks for the culprit with
    next(ch for ch in piece if (ch, False) not in base and (ch, True) not in base), but
    every character is known in one of its two forms, so the generator is empty and
    StopIteration escapes (the CLI, which catches ValueError, prints a traceback)."""
    run = train(WordTable.from_text("ab", "gpt2"), TrainerSettings(end_of_word="attached", merges=0))
    with pytest.raises(ValueError, match=r"not in this character-level vocabulary"):
        run.tokenizer().encode(text)


@pytest.mark.parametrize("k", [-1, 4, 1.0, True, "2"])
def test_step_out_of_range(k):
    run = train(WordTable.from_word_counts(LOW), TrainerSettings(end_of_word="separate", merges=3))
    with pytest.raises(ValueError, match=rf"Step {re.escape(repr(k))} is out of range: choose 0 to 3"):
        run.segmentations(k)


def test_not_gpt2_byte_form():
    with pytest.raises(ValueError, match=r"not in GPT-2's byte-to-unicode form: ' ' is not one of its 256"):
        gpt2_to_bytes("a b")


@pytest.mark.parametrize(
    "data, words",
    [("{not json", r"not valid JSON"), ('{"format": "other"}', r"not a bpe-teaching-tokenizer file"),
     ([1, 2], r"not a bpe-teaching-tokenizer file"),
     ('{"format": "bpe-teaching-tokenizer", "units": "char"}', r"the top level has no 'version' field")],
)
def test_bad_tokenizer_file(data, words):
    with pytest.raises(ValueError, match=words):
        tokenizer_from_json(data)


def test_a_comment_that_ends_in_a_number_is_a_comment():
    """`# toy corpus from Sennrich et al. 2016` is a comment, not the word
    '# toy corpus from Sennrich et al.' with count 2016; `#hashtag 2` stays a word."""
    table = WordTable.from_word_counts("# toy corpus from Sennrich et al. 2016\n#hashtag 2\nlow 5")
    assert table.words == ("#hashtag", "low")


@pytest.mark.parametrize("count", ["+-5", "²", "5.0", "--2"])
def test_a_count_that_is_not_a_whole_number_names_the_line(count):
    with pytest.raises(ValueError, match=r"Line 2: .* is not a whole number"):
        WordTable.from_word_counts(f"low 5\nlower {count}")


def test_a_damaged_merge_in_a_saved_tokenizer_is_named():
    from bpe_core.formats import run_to_json, tokenizer_from_json

    data = run_to_json(train(WordTable.from_word_counts(LOW), TrainerSettings(end_of_word="separate", merges=3)))
    data["merges"][1]["pair"] = [1, 2, 3]
    with pytest.raises(ValueError, match=r"`merges\[1\].pair` is a list of 3 items, not a pair of token ids"):
        tokenizer_from_json(data)


def test_one_special_token_named_as_a_string():
    """allowed_special="<|endoftext|>" means that token, not the set of its characters."""
    from bpe_core.pretrained import openai_tokenizer

    tok = openai_tokenizer("gpt2")
    assert tok.encode("a<|endoftext|>", allowed_special="<|endoftext|>") == tok.encode("a") + [50256]
