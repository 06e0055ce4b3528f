"""Open any supported tokenizer file by path, telling the format by extension and content.

- a folder: GPT-2's `vocab.json` + `merges.txt` inside it (or a `tokenizer.json`);
- `.tiktoken`, or lines of `base64 rank`: a tiktoken rank file (needs a pattern);
- `.json`: our saved format (`"format": "bpe-teaching-tokenizer"`), a Hugging Face
  tokenizer.json (a `model` object), a Tekken file (`config.pattern` and a `vocab`
  list), or a GPT-2 `vocab.json` (an object of token -> id; its `merges.txt` must sit
  next to it);
- `merges.txt` with a `vocab.json` beside it: the GPT-2 pair; another text file starting
  `#version:`: subword-nmt codes.

`token_strings` gives the tokens of a text as strings, the same way for every kind of
tokenizer (GPT-2's byte form for byte-level tokens, `est</w>` for an attached marker, a
character with no id as itself).

- `.model` (also `.model.v1`), or a file that starts like one: a SentencePiece model;
- our saved JSON with `"algorithm": "wordpiece"` or `"unigram"`: those tokenizers.
"""
from __future__ import annotations

from pathlib import Path
from typing import Collection, Literal, Union

from ..encode.tokenizer import Tokenizer
from .checks import MAX_FILE_BYTES, Source, parse_json
from .gpt2_files import load_gpt2_files, looks_like_vocab_json
from .hf_json import load_hf_json, looks_like_hf_json
from .pipeline import PipelineTokenizer
from .saved import tokenizer_from_json
from .subword_nmt import load_subword_nmt_codes
from .tekken import load_tekken, looks_like_tekken
from .tiktoken_ranks import load_tiktoken_ranks, looks_like_ranks
from ..spm import SentencePieceTokenizer
from ..spm.tokenizer import looks_like_sentencepiece

__all__ = ["AnyTokenizer", "load_tokenizer", "detect_format", "token_strings", "FORMATS_READ"]

AnyTokenizer = Union[Tokenizer, PipelineTokenizer]

#: What `load_tokenizer` reads, by the name `detect_format` gives.
FORMATS_READ: dict[str, str] = {
    "saved": "our own JSON (`train --save`: BPE, WordPiece or Unigram)",
    "sentencepiece": "SentencePiece .model",
    "hf": "Hugging Face tokenizer.json (BPE model)",
    "tiktoken": "tiktoken .tiktoken rank file",
    "gpt2": "GPT-2 vocab.json + merges.txt",
    "tekken": "Mistral Tekken JSON",
    "subword-nmt": "subword-nmt codes",
}


def _read(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ValueError(
                f"{str(path)!r} is {size / 2**20:.0f} MB, more than the {MAX_FILE_BYTES / 2**20:.0f} MB "
                "a tokenizer file may have here. Check the path."
            )
        return path.read_bytes()
    except OSError as exc:
        raise ValueError(f"Cannot read {str(path)!r}: {exc.strerror}. Check the path.") from None


def _gpt2_pair(folder: Path) -> tuple[Path, Path] | None:
    vocab, merges = folder / "vocab.json", folder / "merges.txt"
    return (vocab, merges) if vocab.is_file() and merges.is_file() else None


def detect_format(path: str | Path) -> str:
    """The format name (a key of FORMATS_READ) of the file or folder at `path`."""
    return _open(Path(path), pattern=None, detect_only=True)[0]


def load_tokenizer(path: str | Path, *, pattern: str | None = None, name: str | None = None) -> AnyTokenizer:
    """Open the tokenizer at `path` (see the module docstring for what is recognised).

    `pattern` is the pre-tokenizer regex (or a name such as cl100k_base) for a
    .tiktoken file, which has none of its own.
    """
    return _open(Path(path), pattern=pattern, detect_only=False, name=name)[1]


def _open(path: Path, *, pattern: str | None, detect_only: bool, name: str | None = None):
    label = name or str(path)
    if path.is_dir():
        pair = _gpt2_pair(path)
        if pair:
            return ("gpt2", None) if detect_only else ("gpt2", load_gpt2_files(_read(pair[0]), _read(pair[1]), name=label))
        if (path / "tokenizer.json").is_file():
            return _open(path / "tokenizer.json", pattern=pattern, detect_only=detect_only, name=name)
        raise ValueError(
            f"The folder {label!r} has neither vocab.json + merges.txt nor tokenizer.json. "
            "Give the path of a tokenizer file."
        )
    suffix = path.suffix.lower()
    data = _read(path)
    binary_model = suffix not in (".json", ".txt", ".tiktoken") and looks_like_sentencepiece(data[:16])
    if ".model" in [s.lower() for s in path.suffixes] or binary_model:
        if detect_only:
            return ("sentencepiece", None)
        return ("sentencepiece", SentencePieceTokenizer.from_bytes(data, name=name or path.name))
    if suffix == ".tiktoken" or (suffix != ".json" and looks_like_ranks(data)):
        return ("tiktoken", None) if detect_only else ("tiktoken", load_tiktoken_ranks(data, pattern=pattern, name=label))
    if suffix != ".json" and data.lstrip()[:1] != b"{":
        sibling = path.with_name("vocab.json")
        if sibling.is_file():
            return ("gpt2", None) if detect_only else ("gpt2", load_gpt2_files(_read(sibling), data, name=label))
        if data.lstrip().startswith(b"#version:"):
            return ("subword-nmt", None) if detect_only else ("subword-nmt", load_subword_nmt_codes(data, name=label))
        raise ValueError(
            f"{label!r} is not a tokenizer file this app can read. "
            f"It reads: {'; '.join(FORMATS_READ.values())}."
        )
    root = parse_json(data, Source(f"the tokenizer file {label!r}", "Check that it is a complete tokenizer file"))
    value = root.value
    if isinstance(value, dict) and value.get("algorithm") in ("wordpiece", "unigram"):
        return ("saved", None) if detect_only else ("saved", _load_other_algorithm(value, label))
    if isinstance(value, dict) and isinstance(value.get("format"), str):  # ours, or a damaged copy
        return ("saved", None) if detect_only else ("saved", tokenizer_from_json(value, name=label))
    if looks_like_hf_json(value):
        return ("hf", None) if detect_only else ("hf", load_hf_json(value, name=label))
    if looks_like_tekken(value):
        return ("tekken", None) if detect_only else ("tekken", load_tekken(value, name=label))
    if looks_like_vocab_json(value):
        merges = path.with_name("merges.txt")
        if not merges.is_file():
            raise ValueError(
                f"{label!r} looks like a GPT-2 vocab.json, but there is no merges.txt next to it. "
                "Put both files in one folder and give the folder."
            )
        return ("gpt2", None) if detect_only else ("gpt2", load_gpt2_files(value, _read(merges), name=label))
    raise ValueError(
        f"{label!r} is JSON but not a tokenizer file this app can read. "
        f"It reads: {'; '.join(FORMATS_READ.values())}."
    )


def _load_other_algorithm(value: dict, label: str):
    """A WordPiece or Unigram tokenizer saved by `train --algorithm ... --save`."""
    if value["algorithm"] == "wordpiece":
        from ..algorithms.wordpiece import WordPieceTokenizer

        return WordPieceTokenizer.from_json(value, name=label)
    from ..algorithms.unigram import UnigramModel

    return UnigramModel.from_json(value, name=label)


def token_strings(
    tok: AnyTokenizer, text: str, *, allowed_special: Collection[str] | Literal["all"] = ()
) -> list[str]:
    """The tokens of `text` as strings (see the module docstring)."""
    if isinstance(tok, PipelineTokenizer):
        return tok.tokens(text, allowed_special=allowed_special)
    token_text = getattr(tok, "token_text", None)
    return [
        span.label if span.id is None or token_text is None else token_text(span.id)
        for span in tok.token_spans(text, allowed_special=allowed_special)
    ]
