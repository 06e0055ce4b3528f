"""Export a trained tokenizer to the formats other libraries read.

One entry per format: what it is called on the command line, the files it writes, and
the function that says why it cannot (`export_problem`). Every writer refuses, naming
the setting, rather than writing a file that encodes differently.

- `hf`: tokenizer.json for Hugging Face tokenizers;
- `tiktoken`: a .tiktoken rank file (byte units, no end-of-word marker);
- `subword-nmt`: a codes file (char units, whitespace words, `</w>`);
- `gpt2`: vocab.json + merges.txt (byte units, GPT-2's regex, no marker).

`export_files` returns {file name: bytes}; `export_bytes` one download (gpt2 as a zip);
`write_export` writes the files for the command line.

What it leaves out: training settings that do not change encoding (the tie rule).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..encode.tokenizer import Tokenizer
from .gpt2_files import gpt2_files, gpt2_problem, gpt2_zip
from .hf_json import hf_json_file, hf_problem
from .subword_nmt import subword_nmt_codes, subword_nmt_problem
from .tiktoken_ranks import tiktoken_file, tiktoken_problem

__all__ = ["EXPORT_FORMATS", "export_problem", "export_files", "export_bytes", "write_export"]

#: format -> (why it cannot, {file name: bytes}, the single download's file name)
_FORMATS: dict[str, tuple[Callable, Callable[[Tokenizer], dict[str, bytes]], str]] = {
    "hf": (hf_problem, lambda tok: {"tokenizer.json": hf_json_file(tok)}, "tokenizer.json"),
    "tiktoken": (tiktoken_problem, lambda tok: {"tokenizer.tiktoken": tiktoken_file(tok)}, "tokenizer.tiktoken"),
    "subword-nmt": (subword_nmt_problem, lambda tok: {"codes.txt": subword_nmt_codes(tok)}, "codes.txt"),
    "gpt2": (gpt2_problem, gpt2_files, "gpt2_tokenizer.zip"),
}
EXPORT_FORMATS: tuple[str, ...] = tuple(_FORMATS)
_NAMES = {"hf": "a Hugging Face tokenizer.json", "tiktoken": "a tiktoken rank file",
          "subword-nmt": "a subword-nmt codes file", "gpt2": "GPT-2's vocab.json + merges.txt"}


def _check(fmt: str) -> str:
    if fmt not in _FORMATS:
        raise ValueError(f"Unknown export format {fmt!r}. Choose one of: {', '.join(EXPORT_FORMATS)}.")
    return fmt


def _check_trained(tok: Tokenizer) -> None:
    if not isinstance(tok, Tokenizer) or tok.merges is None:
        raise ValueError(
            "Only a tokenizer trained here (saved with `train --save`) can be exported; "
            "this one has no merge list of ours."
        )


def export_problem(tok: Tokenizer, fmt: str) -> str | None:
    """Why `fmt` cannot hold this tokenizer (a sentence naming the setting), or None."""
    _check_trained(tok)
    return _FORMATS[_check(fmt)][0](tok)


def export_files(tok: Tokenizer, fmt: str) -> dict[str, bytes]:
    """The files of one format: {file name: content}. ValueError if it cannot hold `tok`."""
    _check_trained(tok)
    problem = export_problem(tok, fmt)
    if problem:
        raise ValueError(f"{_NAMES[fmt][0].upper()}{_NAMES[fmt][1:]} cannot hold this tokenizer: {problem}.")
    return _FORMATS[fmt][1](tok)


def export_bytes(tok: Tokenizer, fmt: str) -> tuple[str, bytes]:
    """One download: (file name, bytes); gpt2's two files come as a zip."""
    files = export_files(tok, fmt)
    if fmt == "gpt2":
        return _FORMATS[fmt][2], gpt2_zip(tok)
    (name, data), = files.items()
    return name, data


def write_export(tok: Tokenizer, fmt: str, out: list[str]) -> list[Path]:
    """Write the export to disk. One path: the file (or, for gpt2, a folder that gets
    vocab.json and merges.txt); gpt2 also takes two paths: vocab file, merges file."""
    files = export_files(tok, fmt)
    if not out or len(out) > len(files):
        many = "one path (a folder) or two (vocab.json, merges.txt)" if fmt == "gpt2" else "one path"
        raise ValueError(f"--out takes {many} for the {fmt} format, not {len(out)}.")
    if len(files) == 1:
        targets = [Path(out[0])]
    elif len(out) == 1:
        folder = Path(out[0])
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"Cannot create the folder {str(folder)!r}: {exc.strerror}. Check the path.") from None
        targets = [folder / name for name in files]
    else:
        targets = [Path(p) for p in out]
    for target, data in zip(targets, files.values()):
        try:
            target.write_bytes(data)
        except OSError as exc:
            raise ValueError(
                f"Cannot write {str(target)!r}: {exc.strerror}. Check the folder exists and is writable."
            ) from None
    return targets
