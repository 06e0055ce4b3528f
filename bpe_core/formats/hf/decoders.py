"""tokenizer.json decoders (for `decode`), one builder per `type` in `DECODERS`."""
from __future__ import annotations

from typing import Callable

import regex

from ..checks import Field
from ..pipeline import Decoder, byte_chars_to_bytes
from .common import flag, builder_of
from .normalizers import replace_normalizer


# A decoder stage maps the list of token strings to a new list; the tokens are joined at the end.

Stage = Callable[[list[str]], list[str]]


def _decoder_stage(field: Field) -> Stage:
    return builder_of(field, DECODERS, "decoder")(field)


def decoder_of(field: Field) -> Decoder:
    """The file's decoder; one this app cannot run is an error when decoding only."""
    try:
        stage = _decoder_stage(field)
    except ValueError as exc:
        message = str(exc)

        def refuse(tokens: list[str]) -> str:
            raise ValueError(message)

        return refuse
    return lambda tokens: "".join(stage(list(tokens)))


def _byte_level_decoder(field: Field) -> Stage:
    return lambda tokens: ["".join(tokens) and byte_chars_joined(tokens)]


def byte_chars_joined(tokens: list[str]) -> str:
    """Tokens in GPT-2's byte form read back into text (invalid UTF-8 as U+FFFD).

    >>> byte_chars_joined(["Hello", "Ġw", "orld"])
    'Hello world'
    """
    return b"".join(byte_chars_to_bytes(t) for t in tokens).decode("utf-8", "replace")


def _metaspace_decoder(field: Field) -> Stage:
    replacement = field.key("replacement").as_str()
    scheme_field = field.key("prepend_scheme", None)
    scheme = "always" if scheme_field.value is None else scheme_field.one_of(("always", "first", "never"))
    legacy = field.key("add_prefix_space", None)
    if legacy.value is not None and not legacy.as_bool():
        scheme = "never"

    def run(tokens: list[str]) -> list[str]:
        # The library drops every replacement character of the first token (not only a
        # leading one) unless nothing was prepended.
        first = "" if scheme != "never" else " "
        return [token.replace(replacement, " " if i else first) for i, token in enumerate(tokens)]

    return run


_CLEANUP = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
            (" 'm", "'m"), (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


def _cleanup(text: str) -> str:
    for dirty, clean in _CLEANUP:
        text = text.replace(dirty, clean)
    return text


def _wordpiece_decoder(field: Field) -> Stage:
    prefix = field.key("prefix", "##").as_str()
    cleanup = flag(field, "cleanup", True)

    def run(tokens: list[str]) -> list[str]:
        out = []
        for i, token in enumerate(tokens):
            if i:
                token = token[len(prefix):] if token.startswith(prefix) else " " + token
            out.append(_cleanup(token) if cleanup else token)
        return out

    return run


def _bpe_decoder(field: Field) -> Stage:
    suffix = field.key("suffix", "</w>").as_str()
    last = lambda i, n: i == n - 1  # noqa: E731
    return lambda tokens: [t.replace(suffix, "" if last(i, len(tokens)) else " ") for i, t in enumerate(tokens)]


_BYTE_TOKEN = regex.compile(r"<0x([0-9A-Fa-f]{2})>")


def _byte_fallback_decoder(field: Field) -> Stage:
    def run(tokens: list[str]) -> list[str]:
        out: list[str] = []
        pending = bytearray()

        def flush() -> None:
            if pending:
                try:
                    out.append(pending.decode("utf-8"))
                except UnicodeDecodeError:
                    out.extend(["\ufffd"] * len(pending))
                pending.clear()

        for token in tokens:
            m = _BYTE_TOKEN.fullmatch(token) if len(token) == 6 else None
            if m:
                pending.append(int(m.group(1), 16))
            else:
                flush()
                out.append(token)
        flush()
        return out

    return run


def _strip_decoder(field: Field) -> Stage:
    content = field.key("content").as_str()
    start, stop = field.key("start").as_int(low=0), field.key("stop").as_int(low=0)

    def strip(token: str) -> str:
        chars = list(token)
        a = 0
        while a < min(start, len(chars)) and chars[a] == content:
            a += 1
        b = len(chars)
        while len(chars) - b < stop and b > a and chars[b - 1] == content:
            b -= 1
        return "".join(chars[a:b])

    return lambda tokens: [strip(t) for t in tokens]


def _replace_decoder(field: Field) -> Stage:
    replace = replace_normalizer(field)
    return lambda tokens: [replace(t) for t in tokens]


def _decoder_sequence(field: Field) -> Stage:
    stages = [_decoder_stage(item) for item in field.key("decoders").items()]

    def run(tokens: list[str]) -> list[str]:
        for stage in stages:
            tokens = stage(tokens)
        return tokens

    return run


DECODERS: dict[str, Callable[[Field], Stage]] = {
    "ByteLevel": _byte_level_decoder,
    "Metaspace": _metaspace_decoder,
    "WordPiece": _wordpiece_decoder,
    "BPEDecoder": _bpe_decoder,
    "ByteFallback": _byte_fallback_decoder,
    "Fuse": lambda field: lambda tokens: ["".join(tokens)],
    "Strip": _strip_decoder,
    "Replace": _replace_decoder,
    "Sequence": _decoder_sequence,
}
