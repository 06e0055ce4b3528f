"""The `Precompiled` normalizer: SentencePiece's compiled normalization rule (nmt_nfkc
and the like) as Hugging Face's converter writes it into T5, mT5, XLM-R, ALBERT and
XLNet tokenizer.json files.

`precompiled_charsmap` is the base64 of SentencePiece's character map (a Darts-clone
double-array trie from UTF-8 strings to replacements, read by `spm.normalizer.CharsMap`).
The library applies it in its own way, not SentencePiece's longest match: for each
extended grapheme cluster of fewer than 6 UTF-8 bytes, the replacement of the shortest
rule that is a prefix of the cluster replaces the whole cluster; otherwise (no rule, or
a longer cluster) each character is replaced by its own rule's replacement, or kept.
Offsets follow the library's `transform`: a replacement's first characters take the
originals in order, extra characters share the previous one's range, and a shorter
replacement's last character covers what it dropped.
"""
from __future__ import annotations

import base64
import binascii

import regex

from ...spm.normalizer import CharsMap
from ..checks import Field
from ..pipeline import AlignedNormalizer, Normalizer

_GRAPHEME = regex.compile(r"\X")


def precompiled(field: Field) -> Normalizer:
    blob_field = field.key("precompiled_charsmap")
    try:
        blob = base64.b64decode(blob_field.as_str(), validate=True)
        charsmap = CharsMap(blob)
    except (binascii.Error, ValueError) as exc:
        raise blob_field.fail(f"is not a SentencePiece character map this app can read ({exc})") from None
    cache: dict[str, tuple[int, list[tuple[str, int]]]] = {}
    # ASCII characters no rule starts with are kept as they are: a text of only those is unchanged
    plain = frozenset(chr(b) for b in range(1, 128) if not charsmap.starts(b))

    def changes(grapheme: str) -> tuple[int, list[tuple[str, int]]]:
        """The library's (character, change) list for one grapheme: 0 takes the next
        original character, 1 is an inserted one, -k takes the next and drops k more;
        and the characters dropped before the grapheme wrote anything, which the library
        adds to the change of the character before it."""
        hit = cache.get(grapheme)
        if hit is not None:
            return hit
        out: list[tuple[str, int]] = []
        lead = 0
        data = grapheme.encode("utf-8")
        whole = charsmap.shortest(data) if len(data) < 6 else None
        parts = [(grapheme, whole)] if whole is not None else [(ch, charsmap.shortest(ch.encode("utf-8"))) for ch in grapheme]
        for old, new in parts:
            if new is None:
                out.append((old, 0))
            elif not out and len(new) < len(old) and not new:
                lead += len(old)
            else:
                _replace(out, len(old), new)
        hit = (lead, out)
        if len(cache) < 50_000:
            cache[grapheme] = hit
        return hit

    def normalize(text: str) -> str:
        if text.isascii() and plain.issuperset(text):
            return text
        return "".join(ch for g in _GRAPHEME.findall(text) for ch, _ in changes(g)[1])

    def aligned(text: str, origin):
        steps: list[tuple[str, int]] = []
        for g in _GRAPHEME.findall(text):
            lead, out = changes(g)
            if lead and steps:
                steps[-1] = (steps[-1][0], steps[-1][1] - lead)
            steps.extend(out)
        return "".join(ch for ch, _ in steps), _transform(steps, origin)

    return AlignedNormalizer(normalize, aligned)


def _replace(out: list[tuple[str, int]], old_count: int, new: str) -> None:
    """The library's `replace`: the new characters, the extra ones marked inserted, or
    the last one covering the characters dropped (a replacement by nothing puts that on
    the character before)."""
    out.extend((ch, 0) for ch in new)
    diff = len(new) - old_count
    if diff > 0:
        for k in range(len(out) - diff, len(out)):
            out[k] = (out[k][0], 1)
    elif diff < 0 and out:
        ch, change = out[-1]
        out[-1] = (ch, change + diff)


def _transform(steps: list[tuple[str, int]], origin) -> tuple:
    """Each new character's range of the original, as the library's `transform_range`."""
    spans = []
    i = 0
    last = None
    for _, change in steps:
        if change > 0:
            spans.append(last if last is not None else (0, 0))
            continue
        span = origin[i] if i < len(origin) else (origin[-1][1], origin[-1][1]) if origin else (0, 0)
        spans.append(span)
        last = origin[min(i - change, len(origin) - 1)] if origin else None
        i += 1 - change
    return tuple(spans)

