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
Offsets here are in characters (SentencePiece counts UTF-8 bytes). Encoding needs no
offsets: `normalize_text` gives the same text, taking each stretch of characters that no
rule or user-defined symbol starts with in one step (tested equal to `normalize`).

Left out: malformed UTF-8 (a Python str is always well formed; unpaired surrogates are
refused before this) and building character maps (only reading them).
"""
from __future__ import annotations

import re
import struct
import sys
from array import array

from .proto import NormalizerSpec

__all__ = ["SPACE_SYMBOL", "CharsMap", "Normalizer"]

#: U+2581 LOWER ONE EIGHTH BLOCK: how SentencePiece writes a space inside a piece.
SPACE_SYMBOL = "\u2581"


_UINT32 = next(code for code in "IL" if array(code).itemsize == 4)


class CharsMap:
    """A precompiled character map: a uint32 trie size, a Darts-clone double-array trie
    (uint32 units, little-endian), then the replacement strings, each ended by NUL."""

    def __init__(self, blob: bytes):
        if len(blob) <= 4:
            raise ValueError("The model's precompiled character map is too short to hold a trie. The model file is damaged.")
        (trie_size,) = struct.unpack_from("<I", blob)
        if trie_size >= len(blob) - 4 + 1 or trie_size % 4:
            raise ValueError("The model's precompiled character map says its trie is larger than the map. The model file is damaged.")
        # 32-bit units, not a tuple of ints: a map has tens of thousands (a tenth of the
        # memory); on a little-endian machine a view of the model's own bytes (no copy)
        self._units: array | memoryview
        if sys.byteorder == "little":
            self._units = memoryview(blob)[4 : 4 + trie_size].cast("I" if _UINT32 == "I" else "L")
        else:
            self._units = array(_UINT32, blob[4 : 4 + trie_size])
            self._units.byteswap()
        self._replacements = blob[4 + trie_size :]
        self._cache: dict[int, str] = {}

    def _unit(self, pos: int) -> int:
        if not 0 <= pos < len(self._units):
            raise ValueError("The model's precompiled character map points outside its trie. The model file is damaged.")
        return self._units[pos]

    def longest(self, data: bytes, start: int) -> tuple[int, str] | None:
        """The longest rule matching `data` at byte `start`: (length in bytes, replacement)."""
        return self.longest_and_end(data, start)[0]

    def longest_and_end(self, data: bytes, start: int) -> tuple[tuple[int, str] | None, bool]:
        """`longest`, and whether the trie still had a path at the end of `data` (so a
        longer rule may match more bytes than `data` holds)."""
        unit = self._unit(0)
        pos = (unit >> 10) << ((unit & (1 << 9)) >> 6)
        best = None
        for i in range(start, len(data)):
            label = data[i]
            pos ^= label
            unit = self._unit(pos)
            if unit & ((1 << 31) | 0xFF) != label:
                return best, False
            pos ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
            if (unit >> 8) & 1:  # a leaf follows: a key ends here
                best = (i + 1 - start, self._replacement(self._unit(pos) & ((1 << 31) - 1)))
        return best, True

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

    def next_labels(self, data: bytes) -> frozenset[int]:
        """The bytes that can follow `data` on some rule's key (empty if no key starts with
        `data`, or every key that does ends there)."""
        unit = self._unit(0)
        pos = (unit >> 10) << ((unit & (1 << 9)) >> 6)
        units, size = self._units, len(self._units)
        for label in data:
            pos ^= label
            if not 0 <= pos < size or units[pos] & ((1 << 31) | 0xFF) != label:
                return frozenset()
            unit = units[pos]
            pos ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
        return frozenset(b for b in range(1, 256)
                         if 0 <= pos ^ b < size and units[pos ^ b] & ((1 << 31) | 0xFF) == b)

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
        self._patterns: dict[tuple[frozenset, frozenset], re.Pattern] = {}
        self._rules_of: dict[str, tuple[str | None, frozenset[int]]] = {}
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

    def _char_rules(self, ch: str) -> tuple[str | None, frozenset[int]]:
        """The replacement of the character map's rule for `ch` alone (None if it has none),
        and the bytes that can follow `ch` on a longer rule (remembered per character)."""
        info = self._rules_of.get(ch)
        if info is None:
            data = ch.encode("utf-8")
            hit = self.charsmap.longest(data, 0)  # type: ignore[union-attr]
            info = (None if hit is None else hit[1], self.charsmap.next_labels(data))  # type: ignore[union-attr]
            if len(self._rules_of) < 1 << 16:
                self._rules_of[ch] = info
        return info

    def _plan(self, text: str) -> tuple[re.Pattern | None, dict[int, str]]:
        """How `normalize_text` steps through `text`: a pattern of where a step must look at
        the characters one by one (a character a user-defined symbol starts with, or with
        a rule that is not a plain replacement, or any character followed by one that may
        continue a longer rule), and the plain replacements (a character whose rule is
        the only one it starts, replaced by text with no run of spaces in it); every
        other character is its own step."""
        chars = set(text)
        special = {c for c in chars if c in self._user}
        follow: set[int] = set()
        table: dict[int, str] = {}
        if self.charsmap is not None:
            for c in chars:
                rep, labels = self._char_rules(c)
                if rep is not None and c not in special:
                    if not labels and rep and "  " not in rep:
                        table[ord(c)] = rep
                    else:
                        special.add(c)
                follow |= labels
        cont = {c for c in chars if c.encode("utf-8")[0] in follow} if follow else set()
        if not special and not cont:
            return None, table
        key = (frozenset(special), frozenset(cont))
        pattern = self._patterns.get(key)
        if pattern is None:
            if len(self._patterns) >= 64:
                self._patterns.clear()
            alternatives = []
            if special:
                alternatives.append("[" + "".join(map(re.escape, sorted(special))) + "]")
            if cont:
                alternatives.append(".(?=[" + "".join(map(re.escape, sorted(cont))) + "])")
            pattern = self._patterns[key] = re.compile("|".join(alternatives), re.DOTALL)
        return pattern, table

    def _special_step(self, text: str, i: int) -> tuple[str, int]:
        """The step at a character a symbol or rule starts with: (replacement, characters)."""
        sym = self.user_symbol_at(text, i) if self._user else None
        if sym is not None:
            return sym, len(sym)
        charsmap = self.charsmap
        if charsmap is not None and not self._plain(text[i]):
            size = 16
            while True:  # a window of characters long enough to hold the longest match
                window = text[i : i + size].encode("utf-8")
                hit, open_end = charsmap.longest_and_end(window, 0)
                if not open_end or i + size >= len(text):
                    break
                size *= 4
            if hit is not None:
                try:
                    length = len(window[: hit[0]].decode("utf-8"))
                except UnicodeDecodeError:
                    raise ValueError("The model's character map has a rule that ends inside a character. "
                                     "The model file is damaged.") from None
                return hit[1], length
        return text[i], 1

    def normalize_text(self, text: str) -> str:
        """`normalize(text)[0]`, without the offsets, faster.

        >>> from bpe_core.spm.proto import NormalizerSpec
        >>> Normalizer(NormalizerSpec(name="identity")).normalize_text("  a  b ")
        '▁a▁b'
        """
        spec = self.spec
        space = SPACE_SYMBOL if spec.escape_whitespaces else " "
        squeeze = spec.remove_extra_whitespaces
        pattern, table = self._plan(text)
        parts: list[str] = []
        prev_space = squeeze
        started = False  # a step other than a lone space was taken (`normalize`'s `first`)
        i, n = 0, len(text)
        while i < n:
            found = pattern.search(text, i) if pattern is not None else None
            stop = found.start() if found is not None else n
            if stop > i:  # characters that are their own steps, or plainly replaced
                run = text[i:stop]
                if table:
                    run = _replace_all(run, table)
                if squeeze:
                    started = started or bool(run.strip(" "))
                    run = _SPACES.sub(" ", run)
                    if prev_space:
                        run = run.lstrip(" ")
                    if run:
                        parts.append(run)
                        prev_space = run[-1] == " "
                else:
                    started = True
                    parts.append(run)
                i = stop
                if found is None:
                    break
            rep, length = self._special_step(text, i)
            i += length
            if squeeze:
                started = started or rep != " "
                if prev_space:
                    rep = rep.lstrip(" ")
                if rep:
                    parts.append(rep)
                    prev_space = rep[-1] == " "
            else:
                started = True
                parts.append(rep)
        if not started:
            return ""
        body = "".join(parts)
        if space != " ":
            body = body.replace(" ", space)
        out = space + body if spec.add_dummy_prefix and not self.suffix else body
        if squeeze:
            out = out.rstrip(space)
        if spec.add_dummy_prefix and self.suffix:
            out += space
        return out

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


_SPACES = re.compile(" {2,}")


def _replace_all(text: str, table: dict[int, str]) -> str:
    """`text.translate(table)`; a few replacements that make none of the others' characters
    are done one after another (each a fast scan of the text).

    >>> _replace_all("a…b…", {ord("…"): "...", ord("ﬁ"): "fi"})
    'a...b...'
    """
    if len(table) > 8 or any(chr(c) in rep for rep in table.values() for c in table):
        return text.translate(table)
    for code, rep in table.items():
        text = text.replace(chr(code), rep)
    return text


def _chain(first, rest):
    yield first
    yield from rest
