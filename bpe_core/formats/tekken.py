"""Mistral's Tekken JSON (`tekken_240911.json`): a tiktoken-style tokenizer with reserved ids.

The file holds `config` (the pre-tokenizer `pattern`, `default_vocab_size`,
`default_num_special_tokens`, `version`), `vocab` (a list of {rank, token_bytes in
base64, token_str}) and, in newer versions, `special_tokens`. Encoding is tiktoken's
rank BPE with the pattern, as mistral-common's Tekkenizer runs it, and then:

- the first `default_num_special_tokens` ids (1,000) are reserved for special tokens,
  so an ordinary token's id is its rank + 1,000;
- only the first `default_vocab_size - default_num_special_tokens` ranks are used
  (tekken_240911.json lists 150,000 but uses 130,072: 131,072 ids in all);
- files without `special_tokens` (versions up to v7) get mistral-common's fixed list
  (`<unk>`, `<s>`, `</s>`, `[INST]`, ...) and `<SPECIAL_n>` fillers up to 1,000.

Special tokens are never matched in text by default (the Tekkenizer does not match them
either); `allowed_special` turns that on.

What it leaves out: the image and audio settings, and reading the file from the
`mistral-common` package (`installed_tekken_path` only finds it if it is installed).
"""
from __future__ import annotations

import base64
import binascii
import importlib.util
from pathlib import Path

from ..encode.tokenizer import Tokenizer
from .checks import Field, Source, parse_json

__all__ = ["load_tekken", "looks_like_tekken", "installed_tekken_path", "TEKKEN_240911_SHA256"]

#: SHA-256 of tekken_240911.json as mistral-common 1.13.1 ships it.
TEKKEN_240911_SHA256 = "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316"

# mistral-common's special tokens for files that do not list them (ranks 0-19).
_LEGACY_SPECIALS = (
    "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]",
    "[IMG_END]", "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]",
    "[TOOL_CONTENT]",
)
_FIX = "Use a Tekken tokenizer file as mistral-common ships it (e.g. tekken_240911.json)"


def looks_like_tekken(data) -> bool:
    return (
        isinstance(data, dict)
        and isinstance(data.get("config"), dict)
        and "pattern" in data["config"]
        and isinstance(data.get("vocab"), list)
    )


def installed_tekken_path(filename: str = "tekken_240911.json") -> Path | None:
    """Where the installed mistral-common package keeps a Tekken file (without importing
    it), or None when the package is not installed."""
    try:
        spec = importlib.util.find_spec("mistral_common")
    except (ImportError, ValueError):
        return None
    for location in (spec.submodule_search_locations or []) if spec else []:
        path = Path(location) / "data" / filename
        if path.is_file():
            return path
    return None


def load_tekken(data: str | bytes | dict, *, name: str = "tekken.json") -> Tokenizer:
    """A tokenizer from a Tekken file (its text, bytes or parsed dict)."""
    source = Source(f"the Tekken file {name!r}", _FIX)
    root = parse_json(data, source) if isinstance(data, (str, bytes)) else Field(data, source)
    if not looks_like_tekken(root.value):
        raise source.error("it is not a Tekken file (it needs 'config' with a 'pattern', and a 'vocab' list)")
    config = root.key("config")
    pattern = config.key("pattern").as_str(nonempty=True)
    vocab = root.key("vocab")
    reserved = config.key("default_num_special_tokens").as_int(low=0, high=1_000_000)
    total = config.key("default_vocab_size").as_int(low=reserved + 256, high=reserved + len(vocab.as_list()))
    ranks = _ranks(vocab, total - reserved, reserved)
    specials = _specials(root.key("special_tokens", None).optional(), reserved)
    return Tokenizer.from_ranks(name=name, mergeable_ranks=ranks, pattern=pattern, special_tokens=specials)


def _ranks(vocab: Field, used: int, offset: int) -> dict[bytes, int]:
    """token bytes -> id (rank + offset) for the first `used` entries, checked."""
    ranks: dict[bytes, int] = {}
    for i, entry in enumerate(vocab.items()):
        if i == used:
            break
        entry.key("rank").as_int(low=i, high=i)
        encoded = entry.key("token_bytes")
        try:
            token = base64.b64decode(encoded.as_str(), validate=True)
        except (binascii.Error, ValueError):
            raise encoded.fail("is not base64") from None
        if i < 256 and token != bytes((i,)):
            raise encoded.fail(f"is {token!r}; the first 256 ranks are the single bytes in order")
        if token in ranks:
            raise encoded.fail(f"repeats the token of `vocab[{ranks[token] - offset}]`")
        ranks[token] = i + offset
    return ranks


def _specials(field: Field | None, reserved: int) -> dict[str, int]:
    names: list[str] = []
    if field is None:
        names = list(_LEGACY_SPECIALS[:reserved])
    else:
        for i, item in enumerate(field.items()):
            item.key("rank").as_int(low=i, high=i)
            names.append(item.key("token_str").as_str(nonempty=True))
        if len(names) > reserved:
            raise field.fail(f"lists {len(names)} special tokens, more than the {reserved} reserved ids")
    names += [f"<SPECIAL_{i}>" for i in range(len(names), reserved)]
    specials: dict[str, int] = {}
    for i, text in enumerate(names):
        if text in specials:
            raise (field.index(i) if field is not None else Field(None, Source("", ""))).fail(
                f"repeats the special token {text!r}"
            )
        specials[text] = i
    return specials
