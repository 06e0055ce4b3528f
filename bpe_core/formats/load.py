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

- a file that starts like a SentencePiece model (a protobuf), or `.model` (also
  `.model.v1`) that is not a rank file: a SentencePiece model. The content decides
  before the name: Llama 3's `tokenizer.model` is a tiktoken rank file;

`load_tokenizer_bytes(name, data)` does the same for bytes (an upload): GPT-2's pair
as two files or a zip.
- our saved JSON with `"algorithm": "wordpiece"` or `"unigram"`: those tokenizers.
"""
from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Collection, Literal, Mapping, Union

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

__all__ = ["AnyTokenizer", "load_tokenizer", "load_tokenizer_bytes", "unzip_files", "detect_format", "token_strings",
           "FORMATS_READ"]

AnyTokenizer = Union[Tokenizer, PipelineTokenizer]

#: What `load_tokenizer` reads, by the name `detect_format` gives.
FORMATS_READ: dict[str, str] = {
    "saved": "our own JSON (`train --save`: BPE, WordPiece or Unigram)",
    "sentencepiece": "SentencePiece .model",
    "hf": "Hugging Face tokenizer.json (BPE, WordPiece or Unigram model)",
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
    data = _read(path)

    def sibling(name: str) -> bytes | None:
        other = path.with_name(name)
        return _read(other) if other.is_file() else None

    return _from_data(path.name, data, label=label, name=name, pattern=pattern, detect_only=detect_only,
                      sibling=sibling, where="next to it. Put both files in one folder and give the folder")


def _from_data(file_name: str, data: bytes, *, label: str, name: str | None, pattern: str | None,
               detect_only: bool, sibling, where: str):
    """Tell a file's format by its name and content, and read it (see `_open`)."""
    suffixes = [s.lower() for s in Path(file_name).suffixes]
    suffix = suffixes[-1] if suffixes else ""
    # the content decides before the name: Llama 3's tokenizer.model is a tiktoken rank file
    ranks = suffix != ".json" and looks_like_ranks(data)
    binary_model = suffix not in (".json", ".txt", ".tiktoken") and looks_like_sentencepiece(data[:16])
    if binary_model or (".model" in suffixes and not ranks):
        if detect_only:
            return ("sentencepiece", None)
        return ("sentencepiece", SentencePieceTokenizer.from_bytes(data, name=name or file_name))
    if suffix == ".tiktoken" or ranks:
        return ("tiktoken", None) if detect_only else ("tiktoken", load_tiktoken_ranks(data, pattern=pattern, name=label))
    if suffix != ".json" and data.lstrip()[:1] != b"{":
        vocab = sibling("vocab.json")
        if vocab is not None:
            return ("gpt2", None) if detect_only else ("gpt2", load_gpt2_files(vocab, data, name=label))
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
        if detect_only:
            return ("hf", None)
        # a Unigram model's scores are read again as the library reads floats (serde_float)
        unigram = value["model"].get("type") == "Unigram" or isinstance(value["model"].get("vocab"), list)
        return ("hf", load_hf_json(data if unigram else value, name=label))
    if looks_like_tekken(value):
        return ("tekken", None) if detect_only else ("tekken", load_tekken(value, name=label))
    if looks_like_vocab_json(value):
        merges = sibling("merges.txt")
        if merges is None:
            raise ValueError(
                f"{label!r} looks like a GPT-2 vocab.json, but there is no merges.txt {where}."
            )
        return ("gpt2", None) if detect_only else ("gpt2", load_gpt2_files(value, merges, name=label))
    raise ValueError(
        f"{label!r} is JSON but not a tokenizer file this app can read. "
        f"It reads: {'; '.join(FORMATS_READ.values())}."
    )


#: How many files a zip of tokenizer files may hold.
MAX_ZIP_FILES = 16


def load_tokenizer_bytes(
    name: str, data: bytes, *, pattern: str | None = None, others: Mapping[str, bytes] | None = None,
    limit: int = MAX_FILE_BYTES,
) -> AnyTokenizer:
    """Open a tokenizer from the bytes of a file called `name` (an upload, say).

    Told apart as `load_tokenizer` tells files apart. GPT-2's pair comes as `vocab.json`
    with `merges.txt` in `others` (either may be `name`), or as a zip holding both.
    `pattern` is the pre-tokenizer regex (or a name) for a .tiktoken file. `limit` bounds
    the files' bytes together, a zip's once unpacked (a page passes its own upload limit).

    >>> tok = load_tokenizer_bytes("codes.txt", b"#version: 0.2\\nl o\\nlo w</w>\\n")
    >>> [tok.token_text(i) for i in tok.encode("low")]
    ['low</w>']
    """
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    files = {Path(name).name: bytes(data), **{Path(k).name: bytes(v) for k, v in (others or {}).items()}}
    if data[:4] == b"PK\x03\x04":
        files = unzip_files(name, bytes(data), limit=limit)
        name = next((n for n in files if n == "tokenizer.json"), None) or next(
            (n for n in files if n == "merges.txt"), None) or sorted(files)[0]
    total = sum(len(content) for content in files.values())
    if total > limit:
        raise ValueError(
            f"{' + '.join(map(repr, files))} {'is' if len(files) == 1 else 'are'} {_mb(total)}, more than the "
            f"{_mb(limit)} a tokenizer file may have here."
        )
    if "vocab.json" in files and "merges.txt" in files:
        return load_gpt2_files(files["vocab.json"], files["merges.txt"], name=name)
    return _from_data(name, files[Path(name).name], label=name, name=name, pattern=pattern, detect_only=False,
                      sibling=files.get, where="with it. Give both files (or a zip of them)")[1]


def _mb(n: int) -> str:
    """A size as the browser counts it (1 MB = 1,000,000 bytes).

    >>> _mb(40_000_000), _mb(134_217_728)
    ('40.0 MB', '134.2 MB')
    """
    return f"{n / 1e6:.1f} MB"


def unzip_files(name: str, data: bytes, *, limit: int = MAX_FILE_BYTES) -> dict[str, bytes]:
    """The files of a zip, by base name; refuses more than a few files or more than
    `limit` bytes once unpacked (read in pieces, so a zip bomb stops at the limit)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = [m for m in archive.infolist() if not m.is_dir() and not Path(m.filename).name.startswith(".")]
        if len(members) > MAX_ZIP_FILES:
            raise ValueError(f"The zip {name!r} holds {len(members)} files; give at most {MAX_ZIP_FILES}.")
        files: dict[str, bytes] = {}
        total = 0
        for member in members:
            with archive.open(member) as handle:
                content = handle.read(limit + 1 - total)
            total += len(content)
            if total > limit:
                raise ValueError(
                    f"The zip {name!r} unpacks to more than {_mb(limit)}, the most a tokenizer file may have "
                    "here. Give smaller files."
                )
            files[Path(member.filename).name] = content
    except (zipfile.BadZipFile, EOFError, NotImplementedError, RuntimeError) as exc:
        raise ValueError(f"{name!r} is not a zip this app can read ({exc}). Give the files themselves.") from None
    if not files:
        raise ValueError(f"The zip {name!r} is empty. Put the tokenizer files in it.")
    return files


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
