"""What every tokenizer.json component reads the same way: its `type` looked up in a
table, a boolean option with a default, a Split/Replace pattern, an empty range."""
from __future__ import annotations

from typing import Callable

import regex

from ...pretokenize import compile_untrusted
from ..checks import Field
from .oniguruma import rewrite_bounded_plus

FIX = "Use a tokenizer.json saved by Hugging Face tokenizers (`Tokenizer.save`)"


def builder_of(field: Field, table: dict, what: str) -> Callable:
    kind = field.key("type").as_str()
    builder = table.get(kind)
    if builder is None:
        raise field.fail(
            f"is a {what} of type {kind!r}, which this app cannot run yet (it reads: "
            f"{', '.join(table)}). Choose a tokenizer without it"
        )
    return builder


def flag(field: Field, name: str, default: bool) -> bool:
    value = field.key(name, default)
    return default if value.value is None else value.as_bool()


def pattern_of(field: Field) -> str:
    """A Split / Replace pattern: {"String": s} (literal) or {"Regex": r}."""
    obj = field.as_dict()
    if len(obj) != 1 or next(iter(obj)) not in ("String", "Regex"):
        raise field.fail('is not {"String": ...} or {"Regex": ...}')
    kind, value = next(iter(obj.items()))
    text = field.key(kind).as_str()
    if kind == "String":
        return regex.escape(text)
    text = rewrite_bounded_plus(text, to="python")
    try:
        compile_untrusted(text)  # bounded: refuses what would take long to compile
    except regex.error as exc:
        raise field.key(kind).fail(f"is not a regular expression this app can read ({exc})") from None
    return text


def empty_at(origin, i: int) -> tuple[int, int]:
    """An empty range of the original text just before character i (or at the end)."""
    at = origin[i][0] if i < len(origin) else origin[-1][1] if origin else 0
    return (at, at)
