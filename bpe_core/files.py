"""Saving and loading trained tokenizers, and exporting merges for people.

The JSON format (`bpe-teaching-tokenizer`, version 1) stores the vocabulary in id order
and the merges as pairs of ids in rank order, plus the settings needed to encode the
same way. Token bodies of byte-level vocabularies are written in GPT-2's
byte-to-unicode form, as Hugging Face merges files are.
"""
from __future__ import annotations

import json
from typing import Any

from .display import bytes_to_gpt2, gpt2_to_bytes, visible_whitespace
from .tokenizer import Tokenizer
from .training import DEFAULT_SPECIAL, TrainingRun

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


def tokenizer_from_json(data: dict[str, Any] | str, name: str = "saved") -> Tokenizer:
    """Rebuild a Tokenizer from `run_to_json` output (a dict or a JSON string)."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise ValueError(f"The tokenizer file is not valid JSON ({exc}). Save it again with 'train --save'.") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(
            f"This is not a {FORMAT} file. Create one with `python -m bpe_core train ... --save PATH` "
            "or the Train page's download button."
        )
    try:
        units = data["units"]
        tokens = []
        for entry in data["vocab"]:
            body = entry["body"]
            tokens.append((gpt2_to_bytes(body) if units == "byte" else body, bool(entry["end_of_word"])))
        merges = [tuple(m["pair"]) for m in data["merges"]]
        for rank, pair in enumerate(merges, start=1):
            if len(pair) != 2 or not all(isinstance(t, int) and not isinstance(t, bool) for t in pair):
                raise ValueError(
                    f"Merge {rank} in the tokenizer file is {list(pair)!r}, not a pair of token ids. "
                    "The file is damaged: save it again."
                )
        return Tokenizer.from_merges(
            tokens=tokens,
            merges=merges,  # type: ignore[arg-type]
            units=units,
            end_of_word=data["end_of_word"],
            marker=data["marker"],
            pretokenizer=data["pretokenizer"],
            special_tokens=data.get("special_tokens", {}),
            name=name,
            base_size=data.get("base_size"),
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"The tokenizer file is missing or mangles a field ({exc!r}). Save it again.") from None


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
