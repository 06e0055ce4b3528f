"""Hugging Face `tokenizer.json`: read one into a `PipelineTokenizer`, or write one.

The file describes a pipeline (normalizer, pre-tokenizer, model, post-processor,
decoder) plus added tokens. Each component type is one function in `formats.hf` (a
module per stage: `normalizers`, `pre_tokenizers`, `models`, `decoders`), registered in
a table by its `type` name; a type outside the tables is a ValueError that names it and
its place in the file (`pre_tokenizer.pretokenizers[1]`), never a silent difference.

Supported, with the library's own rules (read from its source):
- normalizers: NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, BertNormalizer, Replace,
  Prepend, Strip, Precompiled (SentencePiece's compiled rule, `hf.precompiled`), Sequence;
- pre-tokenizers: ByteLevel, Whitespace, WhitespaceSplit, BertPreTokenizer, Metaspace,
  Split (string or regex), Punctuation, Digits, Sequence;
- models (one function each in `MODELS`): BPE with unk_token, fuse_unk,
  continuing_subword_prefix, end_of_word_suffix, byte_fallback and ignore_merges;
  WordPiece with unk_token, continuing_subword_prefix and max_input_chars_per_word,
  encoded by our `WordPieceTokenizer` (greedy longest match); Unigram with its
  [piece, score] vocabulary, unk_id and byte_fallback, encoded by our `viterbi`
  (WordLevel is refused);
- decoders (for `decode`): ByteLevel, Metaspace, WordPiece, BPEDecoder, ByteFallback,
  Fuse, Strip, Replace, Sequence; another type is an error when decoding, not loading;
- added tokens with special, normalized, lstrip, rstrip and single_word.

Writing (`hf_json_file`) turns a tokenizer trained here into a tokenizer.json the library
encodes the same way: our pattern as a Split (rewritten where Oniguruma, the library's
regex engine, reads it differently), ByteLevel for byte units, an attached marker as
the end_of_word_suffix; `hf_problem` says why a tokenizer cannot be written.

What it leaves out: the post-processor (encoding here never adds special tokens, as
`encode(text, add_special_tokens=False)`), BPE dropout (random, refused), truncation and
padding (left out, with a note in `PipelineTokenizer.notes`: encoding is of the whole text).
"""
from __future__ import annotations

import json
from typing import Any

from ..display import byte_to_unicode
from .checks import Field, Source, parse_json, serde_float, vocab_warnings
from .hf.common import FIX as _FIX, flag
from .hf.decoders import DECODERS, decoder_of
from .hf.models import MODELS, model_type_of
from .hf.normalizers import NORMALIZERS, normalizer_of
from .hf.oniguruma import explicit_classes, rewrite_bounded_plus
from .hf.pre_tokenizers import PRE_TOKENIZERS, pre_tokenizer_of
from .pipeline import AddedToken, PipelineTokenizer

__all__ = ["load_hf_json", "looks_like_hf_json", "hf_json_file", "hf_problem", "NORMALIZERS", "PRE_TOKENIZERS",
           "MODELS", "DECODERS"]


def looks_like_hf_json(data: Any) -> bool:
    """Whether parsed JSON has the shape of a tokenizer.json (a `model` object)."""
    return isinstance(data, dict) and isinstance(data.get("model"), dict)


def load_hf_json(data: str | bytes | dict, *, name: str = "tokenizer.json") -> PipelineTokenizer:
    """Read a tokenizer.json (its text, bytes, or the parsed dict)."""
    source = Source(f"the tokenizer file {name!r}", _FIX)
    # floats as the library reads them (`serde_float`): Unigram scores decide near-ties
    root = (parse_json(data, source, parse_float=serde_float) if isinstance(data, (str, bytes))
            else Field(data, source))
    if not looks_like_hf_json(root.value):
        raise source.error(
            "it is not a Hugging Face tokenizer.json (it has no 'model' object). "
            "Other formats read here: our own saved JSON, .tiktoken rank files, GPT-2's "
            "vocab.json + merges.txt, Mistral's Tekken JSON"
        )
    # encode() here is the library's encode with no length: truncation and padding do not apply
    notes = [f"The file sets {setting}; it is left out here, as the library's encode does when "
             "asked for no length: the ids are those of the whole text, unpadded."
             for setting in ("truncation", "padding") if root.key(setting, None).optional() is not None]
    normalizer_field = root.key("normalizer", None).optional()
    normalizer = normalizer_of(normalizer_field) if normalizer_field else None
    pre_field = root.key("pre_tokenizer", None).optional()
    pre_tokenizer = pre_tokenizer_of(pre_field) if pre_field else None
    model_field = root.key("model")
    model_type = model_type_of(model_field)
    model, vocab = MODELS[model_type](model_field)
    added = _added_tokens(root.key("added_tokens", []), vocab)
    decoder_field = root.key("decoder", None).optional()
    tok = PipelineTokenizer(
        name=name,
        kind="tokenizer.json",
        normalizer=normalizer,
        pre_tokenizer=pre_tokenizer,
        model=model.encode,
        added_tokens=added,
        vocab=vocab,
        model_type=model_type,
        decoder=decoder_of(decoder_field) if decoder_field else None,
        byte_level=_uses_byte_level(pre_field.value if pre_field else None),
        work=model.work,
        notes=notes,
    )
    tok.warnings = tuple(vocab_warnings(model_field.value.get("vocab"), model_field.value.get("merges")))
    return tok


def _uses_byte_level(pre_tokenizer: Any) -> bool:
    """Whether a pre-tokenizer (or one inside a Sequence) is ByteLevel."""
    if not isinstance(pre_tokenizer, dict):
        return False
    if pre_tokenizer.get("type") == "ByteLevel":
        return True
    inner = pre_tokenizer.get("pretokenizers")
    return isinstance(inner, list) and any(_uses_byte_level(p) for p in inner)

# ---- added tokens ---------------------------------------------------------------------------


def _added_tokens(field: Field, vocab: dict[int, str]) -> list[AddedToken]:
    by_text = {text: i for i, text in vocab.items()}
    out = []
    for item in field.items():
        content = item.key("content").as_str(nonempty=True)
        token_id = item.key("id").as_int(low=0)
        # The library gives an added token the model's id when the model has the text.
        token_id = by_text.get(content, token_id)
        out.append(
            AddedToken(
                id=token_id,
                content=content,
                special=flag(item, "special", False),
                normalized=flag(item, "normalized", True),
                lstrip=flag(item, "lstrip", False),
                rstrip=flag(item, "rstrip", False),
                single_word=flag(item, "single_word", False),
            )
        )
    return out


# ---- writing --------------------------------------------------------------------------------

def _hf_token(tok, token_id: int) -> str:
    """A trained token as the HF vocabulary writes it: GPT-2 form for bytes, marker attached."""
    body, eow = tok.tokens[token_id]
    text = _to_gpt2(body) if isinstance(body, bytes) else body
    return text + tok.marker if eow else text


def _to_gpt2(data: bytes) -> str:
    return "".join(_BYTE_CHARS[b] for b in data)


_BYTE_CHARS = byte_to_unicode()


def hf_problem(tok) -> str | None:
    """Why a tokenizer.json cannot reproduce this trained tokenizer, or None if it can."""
    if tok.merges is None:
        return "it is a rank table with no merge list; export it as a .tiktoken file instead"
    if tok.end_of_word == "separate":
        return (f"its end-of-word marker {tok.marker!r} is a symbol of its own, and Hugging Face's BPE "
                "has none: its end_of_word_suffix joins the marker to the word's last character, which "
                "is the 'attached' setting. Train with end of word 'attached' or 'none'")
    seen: dict[str, int] = {}
    for token_id in sorted(tok.tokens):
        text = _hf_token(tok, token_id)
        if text in seen:
            return (f"tokens {seen[text]} and {token_id} are both written {text!r} (a token's own text ends "
                    f"in the marker {tok.marker!r}), and a tokenizer.json vocabulary needs each text once. "
                    "Train with a marker that does not occur in the text")
        seen[text] = token_id
    return None


def hf_json_file(tok) -> bytes:
    """A tokenizer.json that Hugging Face tokenizers loads and that encodes like `tok`.

    Byte units get the ByteLevel pre-tokenizer and decoder (after our pattern as a
    Split); char units our pattern as a Split; an attached marker becomes the model's
    end_of_word_suffix. Special tokens are added tokens (special, not normalized).
    """
    problem = hf_problem(tok)
    if problem:
        raise ValueError(f"A tokenizer.json cannot hold this tokenizer: {problem}.")
    steps = []
    if tok.pattern is not None:
        # Keep what the pattern matches, drop the rest (our pre-tokenizers' rule).
        pattern = explicit_classes(rewrite_bounded_plus(tok.pattern, to="onig"))
        steps.append({"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Removed", "invert": True})
    if tok.units == "byte":
        steps.append({"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False})
    pre_tokenizer = None if not steps else steps[0] if len(steps) == 1 else {"type": "Sequence", "pretokenizers": steps}
    suffix = tok.marker if tok.end_of_word == "attached" else None
    merges = [
        [_hf_token(tok, a), _hf_token(tok, b)]
        for (a, b), _ in sorted(tok.merges.items(), key=lambda item: item[1][0])
    ]
    data = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": i, "content": text, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for text, i in sorted(tok.special_tokens.items(), key=lambda item: item[1])
        ],
        "normalizer": None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": (
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
            if tok.units == "byte" else {"type": "BPEDecoder", "suffix": suffix} if suffix else None
        ),
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": suffix,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": {_hf_token(tok, i): i for i in sorted(tok.tokens)},
            "merges": merges,
        },
    }
    return json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8")
