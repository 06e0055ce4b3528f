"""BERT's WordPiece vocabularies from Bling Fire's `.i2w` lists (the blingfire package):
the file format read exactly (the package's own code names every id the same), the
vocabulary byte for byte BERT's vocab.txt, and our ids those of Hugging Face's
BertWordPieceTokenizer built from it, on varied text."""
from __future__ import annotations

import hashlib
import importlib.util
import struct
from pathlib import Path

import numpy as np
import pytest
from tokenizers import BertWordPieceTokenizer

from bpe_core.formats.blingfire_i2w import bert_tokenizer_json, bert_vocab, load_bert_i2w, read_i2w
from bpe_core.formats.blingfire_i2w import _example_i2w as example_i2w
from stress_strings import families, stress_strings

REPO = Path(__file__).resolve().parent.parent
PACKAGE = Path(importlib.util.find_spec("blingfire").submodule_search_locations[0])

#: file -> (lowercases, tokens, SHA-256 of the vocab.txt it gives, git blob id of that vocab.txt)
#: The uncased blob id is the Hugging Face Hub's for bert-base-uncased's vocab.txt; the cased
#: one is the blob of bert-base-cased's vocab.txt in a Hub cache; all three vocab.txt files
#: are byte for byte the ones in Bling Fire's repository (ldbsrc/*/vocab.txt), uncased after
#: its four lowercased control tokens are written as BERT writes them.
FILES = {
    "bert_base_tok.i2w": (True, 30_522, "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
                          "fb140275c155a9c7c5a3b3e0e77a9e839594a938"),
    "bert_base_cased_tok.i2w": (False, 28_996, "eeaa9875b23b04b4c54ef759d03db9d1ba1554838f8fb26c5d96fa551df93d02",
                                "2ea941cc79a6f3d7985ca6991ef4f67dad62af04"),
    "bert_multi_cased.i2w": (False, 119_547, "fe0fda7c425b48c516fc8f160d594c8022a0808447475c1a7c6d6479763f310c",
                             "e837bab60a5d204e29622d127c2dafe508aa0731"),
}
TEXTS = (stress_strings()[::3] + list(families()["languages"])
         + [p.read_text(encoding="utf-8") for p in sorted((REPO / "corpora").glob("*.txt"))]
         + [p.read_text(encoding="utf-8") for p in sorted((REPO / "corpora" / "languages").glob("*.txt"))]
         + ["Hello, world! unaffable", "naïve CAFÉ Straße 你好世界 こんにちは 안녕하세요", "x" * 101, "é" * 100,
            "[cls] [Mask] [UNK ]", "a\u2028b\x0bc\x00d\ufffde", ""])


def _data(file: str) -> bytes:
    return (PACKAGE / file).read_bytes()


def test_read_i2w_example_and_damage():
    data = example_i2w([" [PAD]", " the", "s", " é"])
    assert read_i2w(data) == ["[PAD]", "the", "##s", "é"]
    with pytest.raises(ValueError, match="check part"):
        read_i2w(data[:-1] + bytes([data[-1] ^ 1]))  # the CRC-32 no longer matches
    with pytest.raises(ValueError, match="check part"):
        read_i2w(data[:20] + b"\xff" + data[21:])  # a changed byte in the words
    with pytest.raises(ValueError, match="ends inside its header|out of order"):
        read_i2w(data[:10])
    with pytest.raises(ValueError, match="parts"):
        read_i2w(struct.pack("<I", 99) + data[4:])
    with pytest.raises(ValueError, match="control tokens"):
        bert_vocab(data)


@pytest.mark.parametrize("file", FILES)
def test_the_vocabulary_is_berts_vocab_txt(file):
    lowercase, size, sha256, blob = FILES[file]
    vocab = bert_vocab(_data(file))
    assert len(vocab) == size
    assert vocab[0] == "[PAD]" and vocab[100:104] == ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    text = ("\n".join(vocab) + "\n").encode("utf-8")
    assert hashlib.sha256(text).hexdigest() == sha256
    assert hashlib.sha1(b"blob %d\0" % len(text) + text).hexdigest() == blob
    assert sum(t.startswith("##") for t in vocab) > size // 6


@pytest.mark.parametrize("file", FILES)
def test_blingfire_names_every_id_as_we_read_it(file):
    """The package's own IdsToText, on the same .i2w file, gives each id's word (a
    continuation without its "##")."""
    import blingfire

    vocab = read_i2w(_data(file))
    model = blingfire.load_model(str(PACKAGE / file))
    try:
        for i in range(0, len(vocab), 7 if len(vocab) > 50_000 else 1):
            word = vocab[i][2:] if vocab[i].startswith("##") else vocab[i]
            assert blingfire.ids_to_text(model, np.array([i], dtype=np.int32), False, 1024) == word, i
    finally:
        blingfire.free_model(model)


@pytest.mark.parametrize("file", FILES)
def test_ids_match_hugging_face_bert_wordpiece(file):
    lowercase, size, _, _ = FILES[file]
    vocab = bert_vocab(_data(file))
    theirs = BertWordPieceTokenizer({t: i for i, t in enumerate(vocab)}, lowercase=lowercase)
    ours = load_bert_i2w(_data(file), lowercase=lowercase)
    assert ours.vocab_size == theirs.get_vocab_size() == size
    for text in TEXTS:
        expected = theirs.encode(text, add_special_tokens=False)
        assert ours.encode(text) == expected.ids, text
        assert ours.tokens(text) == expected.tokens, text
        assert ours.decode(expected.ids) == theirs.decode(expected.ids, skip_special_tokens=False), text
    for text in ("[CLS] hello [SEP]", "x[MASK]y"):
        expected = theirs.encode(text, add_special_tokens=False).ids
        assert ours.encode(text, allowed_special="all") == expected
        assert ours.encode(text) != expected  # control tokens only when asked for


@pytest.mark.parametrize("file, compiled", [("bert_base_tok.i2w", "bert_base_tok.bin"),
                                            ("bert_base_cased_tok.i2w", "bert_base_cased_tok.bin")])
def test_blingfires_own_tokenizer_agrees_on_plain_text(file, compiled):
    """Bling Fire's compiled BERT tokenizer (a different implementation, by the file's
    makers) gives our ids on the English sample and the paragraphs in Latin, Cyrillic and
    CJK scripts. (It parts from BERT elsewhere: it keeps combining marks Hindi and Arabic
    text need stripped or split, and reads U+000B as a space where BERT drops it.)"""
    import blingfire

    ours = load_bert_i2w(_data(file), lowercase=FILES[file][0])
    model = blingfire.load_model(str(PACKAGE / compiled))
    try:
        paths = [REPO / "corpora" / "english_sample.txt",
                 *(REPO / "corpora" / "languages" / f"{lang}.txt" for lang in ("en", "de", "es", "fr", "ru", "zh", "ja"))]
        for path in paths:
            text = path.read_text(encoding="utf-8")
            theirs = [int(i) for i in blingfire.text_to_ids(model, text, 100_000, 100, True)]
            assert ours.encode(text) == theirs, path.name
    finally:
        blingfire.free_model(model)


def test_the_pipeline_is_berts():
    doc = bert_tokenizer_json(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "##b"], lowercase=True)
    assert doc["normalizer"]["lowercase"] and doc["normalizer"]["handle_chinese_chars"]
    assert [t["content"] for t in doc["added_tokens"]] == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    assert doc["model"]["vocab"]["##b"] == 6
