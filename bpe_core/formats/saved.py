"""Saving and loading trained tokenizers, and exporting merges for people.

The JSON format (`bpe-teaching-tokenizer`, version 1) stores the vocabulary in id order
and the merges as pairs of ids in rank order, plus the settings needed to encode the
same way. Token bodies of byte-level vocabularies are written in GPT-2's
byte-to-unicode form, as Hugging Face merges files are. Reading checks every field
first (types, ranges, ids that agree), so a damaged file is one clear ValueError.

What it leaves out: other libraries' formats (the sibling modules of this package).
"""
from __future__ import annotations

from typing import Any

from ..display import bytes_to_gpt2, gpt2_to_bytes, visible_whitespace
from ..pretokenize import PRETOKENIZERS
from ..encode.tokenizer import Tokenizer
from ..train.run import DEFAULT_SPECIAL, TrainingRun
from ..vocab import END_OF_WORD, UNITS
from .checks import Field, Source, describe, parse_json

__all__ = ["FORMAT", "run_to_json", "tokenizer_from_json", "merges_text", "vocab_text"]

FORMAT = "bpe-teaching-tokenizer"


def run_to_json(run: TrainingRun, k: int | None = None) -> dict[str, Any]:
    """The tokenizer at step k (all merges if None) as a JSON-ready dict."""
    k = run.steps if k is None else k
    size = run.vocab_size(k)
    s = run.settings
    events = run.events[:k]
    return {
        "format": FORMAT,
        "version": 1,
        "units": s.units,
        "end_of_word": s.end_of_word,
        "marker": s.marker,
        "pretokenizer": run.words.pretokenizer or "whitespace",
        "tie_break": s.tie_break,
        "base_size": run.base_size,
        "vocab": [
            {
                "id": i,
                "token": run.displays[i],
                "body": bytes_to_gpt2(body) if isinstance(body, bytes) else body,
                "end_of_word": eow,
            }
            for i, (body, eow) in enumerate(run.tokens[:size])
        ],
        "merges": [
            {"rank": ev.step, "pair": list(ev.pair), "text": list(ev.pair_text), "token": ev.token, "count": ev.count}
            for ev in events
        ],
        "special_tokens": {DEFAULT_SPECIAL: size},
    }


def tokenizer_from_json(data: dict[str, Any] | str | bytes, name: str = "saved") -> Tokenizer:
    """Rebuild a Tokenizer from `run_to_json` output (a dict, or the file's text or bytes).

    Every field is checked before use; a damaged or hand-edited file is one ValueError
    that names the field (`special_tokens['<|endoftext|>']`, `base_size`) and the fix.
    """
    source = Source(f"the tokenizer file {name!r}" if name != "saved" else "the tokenizer file", _FIX)
    root = parse_json(data, source) if isinstance(data, (str, bytes)) else Field(data, source)
    if not isinstance(root.value, dict) or root.value.get("format") != FORMAT:
        raise ValueError(
            f"This is not a {FORMAT} file. Create one with `python -m bpe_core train ... --save PATH` "
            "or the Train page's download button."
        )
    root.key("version").as_int(low=1, high=1)
    units = root.key("units").one_of(UNITS)
    end_of_word = root.key("end_of_word").one_of(END_OF_WORD)
    marker_field = root.key("marker")
    marker = marker_field.as_str()
    if end_of_word != "none" and not marker:
        raise marker_field.fail(f"is empty, but end_of_word is {end_of_word!r}; give the marker's text, such as '</w>'")
    pretokenizer = root.key("pretokenizer").one_of(PRETOKENIZERS)
    tokens = _read_vocab(root.key("vocab"), units)
    base = root.key("base_size", None).optional()
    base_size = None if base is None else base.as_int(low=0, high=len(tokens))
    merges = _read_merges(root.key("merges"), len(tokens))
    specials = _read_specials(root.key("special_tokens", {}), len(tokens))
    return Tokenizer.from_merges(
        tokens=tokens,
        merges=merges,
        units=units,
        end_of_word=end_of_word,
        marker=marker,
        pretokenizer=pretokenizer,
        special_tokens=specials,
        name=name,
        base_size=base_size,
    )


_FIX = "Save the tokenizer again with `python -m bpe_core train ... --save PATH` (or the Train page's download)"


def _read_vocab(field: Field, units: str) -> list[tuple[str | bytes, bool]]:
    """The vocabulary in id order: each entry's id is its position; bodies are unique."""
    tokens: list[tuple[str | bytes, bool]] = []
    seen: dict[tuple[str | bytes, bool], int] = {}
    for i, entry in enumerate(field.items()):
        entry.key("id").as_int(low=i, high=i)
        body_field = entry.key("body")
        body_text = body_field.as_str()
        if units == "byte":
            try:
                body: str | bytes = gpt2_to_bytes(body_text)
            except ValueError:
                raise body_field.fail(
                    f"is {body_text!r}, which is not in GPT-2's byte-to-unicode form "
                    "(a byte-level token is written with Ġ for space, Ċ for newline, ...)"
                ) from None
        else:
            body = body_text
        token = (body, entry.key("end_of_word").as_bool())
        if token in seen:
            raise entry.fail(f"repeats the token of `vocab[{seen[token]}]`; each token appears once")
        seen[token] = i
        tokens.append(token)
    return tokens


def _read_merges(field: Field, size: int) -> list[tuple[int, int]]:
    merges = []
    for entry in field.items():
        pair = entry.key("pair")
        if len(pair.as_list()) != 2:
            raise pair.fail(f"is {describe(pair.value)}, not a pair of token ids")
        a, b = (item.as_int(low=0, high=size - 1) for item in pair.items())
        merges.append((a, b))
    return merges


def _read_specials(field: Field, size: int) -> dict[str, int]:
    """Special tokens: name -> an id after the vocabulary, no two sharing an id."""
    specials: dict[str, int] = {}
    owner: dict[int, str] = {}
    for text, value in field.members():
        if not text:
            raise value.fail("is the id of an empty name; a special token needs text")
        token_id = value.as_int(low=size, high=size + 1_000_000)
        if token_id in owner:
            raise value.fail(f"is {token_id}, the id of {owner[token_id]!r} too; give each its own id")
        owner[token_id] = text
        specials[text] = token_id
    return specials


def merges_text(run: TrainingRun, k: int | None = None) -> str:
    """Merges as plain text, one `left right` per line in rank order (HF merges.txt style).

    Whitespace inside a character-level token is drawn (`·` space, `↵` newline, `→` tab)
    so each line still splits in two; byte-level tokens are already in GPT-2's form.
    """
    k = run.steps if k is None else k
    lines = ["#version: 0.2"]
    for ev in run.events[:k]:
        left, right = (visible_whitespace(t) for t in ev.pair_text)
        lines.append(f"{left} {right}")
    return "\n".join(lines) + "\n"


def vocab_text(run: TrainingRun, k: int | None = None) -> str:
    """The vocabulary as plain text: `id<TAB>token` per line, whitespace drawn."""
    k = run.steps if k is None else k
    return "".join(f"{i}\t{visible_whitespace(run.displays[i])}\n" for i in range(run.vocab_size(k)))
