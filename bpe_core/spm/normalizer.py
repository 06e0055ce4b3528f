"""SentencePiece's normalizer: the text a model sees before it is split into pieces.

In order (as SentencePiece's `normalizer.cc` does it):

1. each step takes the longest user-defined symbol at the current position unchanged;
   otherwise the longest rule of the precompiled character map (rules such as nmt_nfkc
   are stored as a double-array trie from UTF-8 strings to their replacements);
   otherwise one character unchanged (the identity rule has no map);
2. remove_extra_whitespaces: spaces at the start dropped, runs of spaces inside kept as
   one, spaces at the end dropped ("space" is U+0020 after the map, nothing else);
3. add_dummy_prefix: a space put in front (at the end with treat_whitespace_as_suffix);
4. escape_whitespaces: every space written as U+2581 (`▁`).

It also returns, for every normalized character, the offset of the original
character it came from, so tokens can be coloured on the original text.
Offsets here are in characters (SentencePiece counts UTF-8 bytes).

Left out: malformed UTF-8 (a Python str is always well formed; unpaired surrogates are
refused before this) and building character maps (only reading them).
"""
from __future__ import annotations

import struct

from .proto import NormalizerSpec

__all__ = ["SPACE_SYMBOL", "CharsMap", "Normalizer"]

#: U+2581 LOWER ONE EIGHTH BLOCK: how SentencePiece writes a space inside a piece.
SPACE_SYMBOL = "\u2581"


class CharsMap:
    """A precompiled character map: a uint32 trie size, a Darts-clone double-array trie
    (uint32 units, little-endian), then the replacement strings, each ended by NUL."""

    def __init__(self, blob: bytes):
        if len(blob) <= 4:
            raise ValueError("The model's precompiled character map is too short to hold a trie. The model file is damaged.")
        (trie_size,) = struct.unpack_from("<I", blob)
        if trie_size >= len(blob) - 4 + 1 or trie_size % 4:
            raise ValueError("The model's precompiled character map says its trie is larger than the map. The model file is damaged.")
        self._units = struct.unpack_from(f"<{trie_size // 4}I", blob, 4)
        self._replacements = blob[4 + trie_size :]
        self._cache: dict[int, str] = {}

    def _unit(self, pos: int) -> int:
        if not 0 <= pos < len(self._units):
            raise ValueError("The model's precompiled character map points outside its trie. The model file is damaged.")
        return self._units[pos]

    def longest(self, data: bytes, start: int) -> tuple[int, str] | None:
        """The longest rule matching `data` at byte `start`: (length in bytes, replacement)."""
        unit = self._unit(0)
        pos = (unit >> 10) << ((unit & (1 << 9)) >> 6)
        best = None
        for i in range(start, len(data)):
            label = data[i]
            pos ^= label
            unit = self._unit(pos)
            if unit & ((1 << 31) | 0xFF) != label:
                break
            pos ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
            if (unit >> 8) & 1:  # a leaf follows: a key ends here
                best = (i + 1 - start, self._replacement(self._unit(pos) & ((1 << 31) - 1)))
        return best

    def shortest(self, data: bytes) -> str | None:
        """The replacement of the shortest rule that is a prefix of `data` (a NUL byte ends
        the search), or None: the first result of the trie's common-prefix search, which
        Hugging Face's `Precompiled` normalizer applies to a whole grapheme or character."""
        unit = self._unit(0)
        pos = (unit >> 10) << ((unit & (1 << 9)) >> 6)
        for label in data:
            if label == 0:
                break
            pos ^= label
            unit = self._unit(pos)
            if unit & ((1 << 31) | 0xFF) != label:
                return None
            pos ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
            if (unit >> 8) & 1:
                return self._replacement(self._unit(pos) & ((1 << 31) - 1))
        return None

    def reaches(self, data: bytes) -> bool:
        """Whether the trie has a path through all of `data`: False means no rule starts
        with these bytes (a character with no rule of its own and none that begins with it)."""
        unit = self._unit(0)
        pos = (unit >> 10) << ((unit & (1 << 9)) >> 6)
        for label in data:
            pos ^= label
            if not 0 <= pos < len(self._units) or self._units[pos] & ((1 << 31) | 0xFF) != label:
                return False
            unit = self._units[pos]
            pos ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
        return True

    def starts(self, label: int) -> bool:
        """Whether some rule's key starts with the byte `label`."""
        unit = self._unit(0)
        pos = ((unit >> 10) << ((unit & (1 << 9)) >> 6)) ^ label
        return 0 <= pos < len(self._units) and self._units[pos] & ((1 << 31) | 0xFF) == label

    def _replacement(self, offset: int) -> str:
        text = self._cache.get(offset)
        if text is None:
            end = self._replacements.find(b"\0", offset)
            if offset >= len(self._replacements) or end < 0:
                raise ValueError("The model's precompiled character map has a replacement outside its table. The model file is damaged.")
            try:
                text = self._replacements[offset:end].decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError("The model's precompiled character map has a replacement that is not UTF-8. The model file is damaged.") from None
            self._cache[offset] = text
        return text


class Normalizer:
    """Normalize text as a SentencePiece model does; see the module docstring."""

    def __init__(self, spec: NormalizerSpec, *, user_defined: tuple[str, ...] = (),
                 treat_whitespace_as_suffix: bool = False):
        self.spec = spec
        self.charsmap = CharsMap(spec.precompiled_charsmap) if spec.precompiled_charsmap else None
        self.suffix = treat_whitespace_as_suffix
        self._plain_chars: dict[str, bool] = {}
        self._user: dict[str, list[str]] = {}  # first character -> user-defined symbols, longest first
        for sym in sorted(set(user_defined), key=len, reverse=True):
            self._user.setdefault(sym[0], []).append(sym)

    def _plain(self, ch: str) -> bool:
        """Whether no rule of the character map starts with `ch` (remembered per character)."""
        plain = self._plain_chars.get(ch)
        if plain is None:
            plain = not self.charsmap.reaches(ch.encode("utf-8"))  # type: ignore[union-attr]
            if len(self._plain_chars) < 1 << 16:
                self._plain_chars[ch] = plain
        return plain

    def user_symbol_at(self, text: str, i: int) -> str | None:
        """The longest user-defined symbol that starts at text[i], if any."""
        for sym in self._user.get(text[i], ()):
            if text.startswith(sym, i):
                return sym
        return None

    def _steps(self, text: str):
        """(replacement, characters consumed, offset) for each normalization step."""
        i, n = 0, len(text)
        charsmap = self.charsmap
        if charsmap is not None:
            data = text.encode("utf-8")
            char_at = {}  # byte offset -> character index, at character starts
            b = 0
            for k, ch in enumerate(text):
                char_at[b] = k
                b += len(ch.encode("utf-8"))
            char_at[b] = n
            byte_of = {k: b for b, k in char_at.items()}
        while i < n:
            sym = self.user_symbol_at(text, i) if self._user else None
            if sym is not None:
                yield sym, len(sym), i
                i += len(sym)
                continue
            if charsmap is not None and not self._plain(text[i]):
                hit = charsmap.longest(data, byte_of[i])
                if hit is not None:
                    end = char_at.get(byte_of[i] + hit[0])
                    if end is None:
                        raise ValueError("The model's character map has a rule that ends inside a character. The model file is damaged.")
                    yield hit[1], end - i, i
                    i = end
                    continue
            yield text[i], 1, i
            i += 1

    def normalize(self, text: str) -> tuple[str, list[int]]:
        """(normalized text, offsets): offsets[k] is the original character index of
        normalized character k; one more entry gives the end.

        >>> from bpe_core.spm.proto import NormalizerSpec
        >>> Normalizer(NormalizerSpec(name="identity")).normalize("  a  b ")
        ('▁a▁b', [2, 2, 3, 5, 6])
        """
        spec = self.spec
        space = SPACE_SYMBOL if spec.escape_whitespaces else " "
        out: list[str] = []
        orig: list[int] = []
        steps = self._steps(text)
        consumed = 0
        first = None
        if spec.remove_extra_whitespaces:
            for step in steps:
                if step[0] != " ":
                    first = step
                    break
                consumed = step[2] + step[1]
        else:
            first = next(steps, None)
        if first is None:
            return "", [consumed]
        consumed = first[2]
        if spec.add_dummy_prefix and not self.suffix:
            out.append(space)
            orig.append(consumed)
        prev_space = spec.remove_extra_whitespaces
        for rep, length, at in _chain(first, steps):
            if prev_space:
                rep = rep.lstrip(" ")
            if rep:
                for ch in rep:
                    out.append(space if ch == " " else ch)
                    orig.append(at)
                prev_space = rep.endswith(" ")
            consumed = at + length
            if not spec.remove_extra_whitespaces:
                prev_space = False
        if spec.remove_extra_whitespaces:
            while out and out[-1] == space:
                out.pop()
                consumed = orig.pop()
        if spec.add_dummy_prefix and self.suffix:
            out.append(space)
            orig.append(consumed)
        orig.append(consumed)
        return "".join(out), orig


def _chain(first, rest):
    yield first
    yield from rest
