"""GPT-2 style `vocab.json` + `merges.txt`: read a pair into a Tokenizer, and write one.

`vocab.json` maps each token, written in GPT-2's byte-to-unicode form (`Ġ` for space),
to its id; `merges.txt` lists the merges in rank order, one `left right` per line after
an optional `#version: 0.2` header. Both files say nothing of the pre-tokenizer: every
library that reads them (GPT-2's encoder.py, Hugging Face's ByteLevelBPETokenizer,
transformers' GPT2Tokenizer) splits text with GPT-2's regex, so that is what reading
assumes and what writing requires.

Special tokens: GPT-2 writes `<|endoftext|>` into vocab.json as an ordinary entry that no
merge makes. Entries at the end of the id range that no merge makes and that look like
control tokens (`<...>` or `[...]`) are read as special tokens, matched in text only when
the caller allows them (`--allow-special`), as transformers' GPT2Tokenizer does.

CLIP's vocab.json + merges.txt have the same shape but mark a word's end with `</w>`,
lowercase the text and split it with their own pattern: a vocabulary with `</w>` tokens is
read as CLIP's, through the pipeline Hugging Face's CLIP converter writes (`clip_pipeline`).
"""
from __future__ import annotations

import io
import json
import zipfile
from typing import Union

import regex

from ..display import bytes_to_gpt2, gpt2_to_bytes
from ..encode.tokenizer import Tokenizer
from .checks import Field, Source, check_size, parse_json
from .pipeline import PipelineTokenizer

__all__ = ["load_gpt2_files", "clip_pipeline", "CLIP_PATTERN", "gpt2_problem", "gpt2_files", "gpt2_zip", "looks_like_vocab_json"]

_FIX = "Use the vocab.json and merges.txt of a byte-level BPE tokenizer (GPT-2's format)"


def looks_like_vocab_json(data) -> bool:
    """Whether parsed JSON has the shape of a vocab.json: an object of token -> id."""
    return isinstance(data, dict) and bool(data) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in list(data.values())[:100]
    )


#: CLIP's pre-tokenizer pattern (its letters, single digits, other symbols; contractions).
CLIP_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"""
_CLIP_SPECIALS = ("<|startoftext|>", "<|endoftext|>")
#: A vocabulary entry read as a special token when no merge makes it (see the module docstring).
_CONTROL = regex.compile(r"<[^<>\s]+>|\[[^\[\]\s]+\]")


def clip_pipeline(vocab: dict, merges: list[list[str]]) -> dict:
    """The tokenizer.json Hugging Face's CLIP converter writes for CLIP's two files: NFC,
    runs of whitespace as one space, lowercase; CLIP's pattern (the rest removed), then
    GPT-2's byte form; BPE with `</w>` ending each word and `<|endoftext|>` for the unknown."""
    return {
        "added_tokens": [{"id": vocab[s], "content": s, "special": True, "normalized": False, "lstrip": False,
                          "rstrip": False, "single_word": False} for s in _CLIP_SPECIALS if s in vocab],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "NFC"}, {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "}, {"type": "Lowercase"}]},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": CLIP_PATTERN}, "behavior": "Removed", "invert": True},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}]},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<|endoftext|>" if "<|endoftext|>" in vocab else None,
                  "continuing_subword_prefix": "", "end_of_word_suffix": "</w>", "fuse_unk": False,
                  "byte_fallback": False, "vocab": vocab, "merges": merges},
    }


def _load_clip(root: Field, merges_txt: str | bytes, name: str) -> PipelineTokenizer:
    from .hf_json import load_hf_json

    msource = Source(f"the merges file of {name!r}", _FIX)
    text = _merges_text(merges_txt, msource)
    merges = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if not line or (lineno == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise msource.error(f"line {lineno} is {line[:60]!r}, not two tokens separated by one space")
        merges.append(parts)
    tok = load_hf_json(clip_pipeline(root.value, merges), name=name)
    tok.kind = "CLIP vocab.json + merges.txt"
    return tok


def load_gpt2_files(
    vocab_json: str | bytes | dict, merges_txt: str | bytes, *, name: str = "vocab.json + merges.txt"
) -> Union[Tokenizer, PipelineTokenizer]:
    """A byte-level tokenizer (GPT-2's regex) from a vocab.json and a merges.txt (CLIP's
    pair, whose tokens end in `</w>`, as CLIP's pipeline)."""
    vsource = Source(f"the vocabulary file of {name!r}", _FIX)
    root = Field(vocab_json, vsource) if isinstance(vocab_json, dict) else parse_json(vocab_json, vsource)
    if isinstance(root.value, dict) and any(isinstance(k, str) and k.endswith("</w>") for k in root.value):
        return _load_clip(root, merges_txt, name)
    by_id: dict[int, bytes] = {}
    for text, value in root.members():
        token_id = value.as_int(low=0, high=len(root.value) - 1)
        if token_id in by_id:
            raise value.fail(f"is {token_id}, the id of another token too; each id appears once")
        try:
            by_id[token_id] = gpt2_to_bytes(text)
        except ValueError:
            raise value.fail(f"belongs to {text!r}, which is not in GPT-2's byte-to-unicode form") from None
    tokens = [(by_id[i], False) for i in range(len(by_id))]
    ids = {body: i for i, (body, _) in enumerate(tokens)}
    missing = [b for b in range(256) if bytes((b,)) not in ids]
    if missing:
        raise vsource.error(f"{len(missing)} single bytes (e.g. {missing[0]:#04x}) are not tokens; a byte-level vocabulary has all 256")
    merges = _read_merges(merges_txt, ids, name)
    made = {ids[tokens[a][0] + tokens[b][0]] for a, b in merges}
    end = len(tokens)
    while end > 256 and end - 1 not in made and len(tokens[end - 1][0]) > 1 and _CONTROL.fullmatch(
            tokens[end - 1][0].decode("utf-8", "replace")):
        end -= 1
    specials = {tokens[i][0].decode("utf-8"): i for i in range(end, len(tokens))}
    return Tokenizer.from_merges(
        tokens=tokens[:end], merges=merges, units="byte", end_of_word="none", pretokenizer="gpt2", name=name,
        special_tokens=specials,
    )


def _merges_text(merges_txt: str | bytes, msource: Source) -> str:
    check_size(merges_txt, msource)
    if isinstance(merges_txt, bytes):
        try:
            return merges_txt.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise msource.error(f"it is not UTF-8 text (byte at position {exc.start})") from None
    return merges_txt


def _read_merges(merges_txt: str | bytes, ids: dict[bytes, int], name: str) -> list[tuple[int, int]]:
    msource = Source(f"the merges file of {name!r}", _FIX)
    merges_txt = _merges_text(merges_txt, msource)
    merges = []
    for lineno, line in enumerate(merges_txt.split("\n"), start=1):
        line = line.rstrip("\r")
        if not line or (lineno == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise msource.error(f"line {lineno} is {line[:60]!r}, not two tokens separated by one space")
        pair = []
        for part in parts:
            try:
                body = gpt2_to_bytes(part)
            except ValueError:
                raise msource.error(f"line {lineno}: {part!r} is not in GPT-2's byte-to-unicode form") from None
            if body not in ids:
                raise msource.error(f"line {lineno}: {part!r} is not in vocab.json")
            pair.append(ids[body])
        if b"".join(gpt2_to_bytes(p) for p in parts) not in ids:
            raise msource.error(f"line {lineno}: the merged token {''.join(parts)!r} is not in vocab.json")
        merges.append((pair[0], pair[1]))
    return merges


# ---- writing --------------------------------------------------------------------------------

def gpt2_problem(tok: Tokenizer) -> str | None:
    """Why vocab.json + merges.txt cannot carry this tokenizer, or None if they can."""
    if tok.merges is None:
        return "it is a rank table with no merge list; export it as a .tiktoken file instead"
    if tok.units != "byte":
        return "it works on characters; GPT-2's files hold byte-level tokens. Train with byte units"
    if tok.end_of_word != "none":
        return (f"its end-of-word marker ({tok.end_of_word}, {tok.marker!r}) has no place in GPT-2's files, "
                "which every reader splits with GPT-2's regex and no marker. Train with end of word 'none'")
    if tok.pretokenizer != "gpt2":
        return (f"it was trained with the {tok.pretokenizer!r} pre-tokenizer, but the files carry no "
                "pattern and every reader splits text with GPT-2's regex. Train with the gpt2 "
                "pre-tokenizer, or export as tokenizer.json (hf), which carries the pattern")
    return None


def gpt2_files(tok: Tokenizer) -> dict[str, bytes]:
    """{"vocab.json": ..., "merges.txt": ...} for a trained byte-level tokenizer."""
    problem = gpt2_problem(tok)
    if problem:
        raise ValueError(f"GPT-2's vocab.json + merges.txt cannot hold this tokenizer: {problem}.")
    vocab = {bytes_to_gpt2(tok.token_bytes(i)): i for i in sorted(tok.tokens)}
    for text, token_id in sorted(tok.special_tokens.items(), key=lambda item: item[1]):
        vocab.setdefault(text, token_id)
    lines = ["#version: 0.2"]
    for (a, b), _ in sorted(tok.merges.items(), key=lambda item: item[1][0]):  # type: ignore[union-attr]
        lines.append(f"{bytes_to_gpt2(tok.token_bytes(a))} {bytes_to_gpt2(tok.token_bytes(b))}")
    return {
        "vocab.json": json.dumps(vocab, ensure_ascii=False).encode("utf-8"),
        "merges.txt": ("\n".join(lines) + "\n").encode("utf-8"),
    }


def gpt2_zip(tok: Tokenizer) -> bytes:
    """Both files in one zip (for a download button). Fixed timestamps: same bytes each time."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for filename, data in gpt2_files(tok).items():
            info = zipfile.ZipInfo(filename, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()
