"""Bling Fire's `.i2w` files (id-to-word lists) and the BERT WordPiece tokenizers they hold.

The PyPI package blingfire (Microsoft, MIT licence) ships, next to its compiled
tokenizers, one `.i2w` file per model: the model's vocabulary in id order. Its
`bert_base_tok.i2w` is BERT base uncased, `bert_base_cased_tok.i2w` BERT base cased,
`bert_multi_cased.i2w` multilingual BERT (cased). This module reads such a file into the
vocab.txt lines BERT's own code reads, and builds the tokenizer Hugging Face's
`BertWordPieceTokenizer` builds from them (as a tokenizer.json, run by `formats.hf_json`).

The file is one of Bling Fire's "LDB" images, all integers 32-bit little-endian:

    count N, then N offsets from the start of the file (one per part);
    part 0: the runtime settings (a packed multi-map; not needed to read the words);
    part 1: a string array: count M, M + 1 offsets into the text that follows (the last
            is the text's length), then the text: word i is text[offset[i]:offset[i+1]];
    part N-1: a check: version 0, then the byte size and the CRC-32 (zlib's) of every
            part before it.

A word that begins a word in the text is written with a leading space (" the"); a word's
continuation is written bare ("s" is BERT's "##s"). So line i of vocab.txt is word i
without its space, or "##" + word i.

>>> data = _example_i2w([" [PAD]", " the", "s"])
>>> read_i2w(data)
['[PAD]', 'the', '##s']

Bling Fire's uncased vocabulary writes four of BERT's control tokens in lower case
(`[unk]`, `[cls]`, `[sep]`, `[mask]`; its own copy of vocab.txt does the same, to match
lowercased text). `bert_vocab` writes them as BERT's vocab.txt has them; with that, the
uncased list is byte for byte the vocab.txt of bert-base-uncased (tests/test_bert_vocab.py
checks its SHA-256).

What it leaves out: the settings part and Bling Fire's compiled `.bin` tokenizers. The
package's other `.i2w` files (GPT-2, RoBERTa, XLNet, XLM-R, LASER, URI) are word lists of
other kinds of model: `read_i2w` reads them, but a list alone (no merges, no scores) is
not a tokenizer, and `bert_vocab` refuses one without BERT's control tokens.
"""
from __future__ import annotations

import struct
import zlib
from typing import Any

__all__ = ["read_i2w", "bert_vocab", "bert_tokenizer_json", "load_bert_i2w", "BERT_CONTROL_TOKENS"]

#: BERT's control tokens, as its vocab.txt writes them (the tokenizer's added tokens)
BERT_CONTROL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")

_FIX = "Use a .i2w file from the blingfire package as installed (pip install -r requirements.txt)."


def _error(name: str, problem: str) -> ValueError:
    return ValueError(f"The Bling Fire word list {name!r} cannot be read: {problem}. {_FIX}")


def _ints(data: bytes, at: int, count: int, name: str) -> tuple[int, ...]:
    if at < 0 or at + 4 * count > len(data):
        raise _error(name, f"it ends inside its header (needs {4 * count} bytes at offset {at}, has {len(data)})")
    return struct.unpack_from(f"<{count}I", data, at)


def read_i2w(data: bytes, *, name: str = "words.i2w") -> list[str]:
    """The vocabulary of a Bling Fire `.i2w` file, in id order, written as in vocab.txt
    (a continuation piece with "##"). A ValueError says what is wrong with a damaged file.
    """
    (parts,) = _ints(data, 0, 1, name)
    if not 3 <= parts <= 64:
        raise _error(name, f"it says it has {parts} parts; a word list has its settings, its words and a check")
    offsets = _ints(data, 4, parts, name)
    if list(offsets) != sorted(offsets) or offsets[-1] + 12 > len(data):
        raise _error(name, f"its part offsets {list(offsets)} are out of order or past its end ({len(data)} bytes)")
    version, size, crc = _ints(data, offsets[-1], 3, name)
    body = data[offsets[0]:offsets[-1]]
    if version != 0 or size != len(body) or crc != zlib.crc32(body):
        raise _error(name, f"its check part (version {version}, {size} bytes, CRC-32 {crc:08x}) does not match "
                           f"its contents ({len(body)} bytes, CRC-32 {zlib.crc32(body):08x})")
    at = offsets[1]
    (count,) = _ints(data, at, 1, name)
    ends = _ints(data, at + 4, count + 1, name)
    text_at = at + 4 * (count + 2)
    if list(ends) != sorted(ends) or text_at + ends[-1] > offsets[2]:
        raise _error(name, "its word offsets are out of order or run past the word part")
    words = []
    for i in range(count):
        raw = data[text_at + ends[i]:text_at + ends[i + 1]]
        try:
            word = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _error(name, f"word {i} ({raw!r}) is not UTF-8 ({exc.reason})") from None
        words.append(word[1:] if word.startswith(" ") else "##" + word)
    return words


def bert_vocab(data: bytes, *, name: str = "words.i2w") -> list[str]:
    """A BERT `.i2w` file's vocab.txt lines, with BERT's control tokens written as BERT
    writes them (Bling Fire's uncased list has `[unk]` for `[UNK]`, and so on)."""
    words = read_i2w(data, name=name)
    upper = {t.lower(): t for t in BERT_CONTROL_TOKENS}
    words = [upper.get(w, w) if w.startswith("[") else w for w in words]
    missing = [t for t in BERT_CONTROL_TOKENS if t not in words]
    if missing:
        raise _error(name, f"it lacks BERT's control tokens {missing}, so it is not a BERT vocabulary")
    return words


def bert_tokenizer_json(vocab: list[str], *, lowercase: bool) -> dict[str, Any]:
    """The tokenizer.json Hugging Face's `BertWordPieceTokenizer(vocab, lowercase=...)`
    writes, without its post-processor (encoding here adds no [CLS]/[SEP]): BERT's
    normalizer (control characters removed, whitespace as a space, each CJK character a
    word, and, when lowercase, accents stripped and lower case), BERT's pre-tokenizer
    (whitespace and every punctuation character), greedy longest-match WordPiece with
    "##" continuations, [UNK] for a word it cannot spell and for a word over 100 characters.
    """
    ids = {token: i for i, token in enumerate(vocab)}
    return {
        "version": "1.0",
        "added_tokens": [{"id": ids[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for t in BERT_CONTROL_TOKENS],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": lowercase},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": ids},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
    }


def load_bert_i2w(data: bytes, *, lowercase: bool, name: str = "words.i2w"):
    """A `PipelineTokenizer` for a BERT `.i2w` file (the library's ids for the same vocab)."""
    from .hf_json import load_hf_json

    return load_hf_json(bert_tokenizer_json(bert_vocab(data, name=name), lowercase=lowercase), name=name)


def _example_i2w(words: list[str]) -> bytes:
    """A small `.i2w` image holding `words` (written as in the file), for the examples."""
    text = b"".join(w.encode("utf-8") for w in words)
    ends, at = [], 0
    for w in words:
        ends.append(at)
        at += len(w.encode("utf-8"))
    ends.append(at)
    settings = struct.pack("<I", 0)
    array = struct.pack(f"<{len(words) + 2}I", len(words), *ends) + text
    start = 4 + 4 * 3
    offsets = (start, start + len(settings), start + len(settings) + len(array))
    body = settings + array
    return struct.pack("<4I", 3, *offsets) + body + struct.pack("<3I", 0, len(body), zlib.crc32(body))

