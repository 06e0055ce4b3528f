"""Checks shared by every tokenizer file reader: a guarded JSON loader and typed fields.

A tokenizer file comes from outside (an upload, a path on the command line), so every
reader checks the file's shape before it uses a value, and every problem is one
ValueError that names the field by its path (`vocab[3].id`) and says how to fix it.

- `parse_json` refuses files over a size limit, refuses before decoding a file with far
  more lists and objects than a tokenizer file of its size has (`check_structure`: a
  small file of `[],[],[],...` would otherwise become millions of Python objects, about
  25 bytes of memory per byte of file), and turns the decoder's RecursionError (a file
  nested thousands of levels deep, such as '[' * 100000) into a ValueError.
- `Field` wraps one value with its path; `field.key("vocab")`, `field.items()` and the
  typed readers (`as_int`, `as_str`, `as_bool`, `as_list`, `as_dict`, `one_of`) check
  the type before returning the plain value.

What it leaves out: the meaning of a format (which fields it has, what they must agree
on); each format's module says that, using these readers.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from itertools import chain
from typing import Any, Iterator

__all__ = ["MAX_FILE_BYTES", "BYTES_PER_CONTAINER", "Source", "Field", "parse_json", "check_size",
           "check_structure", "describe", "serde_float", "vocab_warnings"]

#: The largest tokenizer file read (bytes). The biggest published tokenizer.json files
#: (200k-token vocabularies) are about 30 MB.
MAX_FILE_BYTES = 128 * 1024 * 1024

#: The fewest bytes of file per list (`[`) a JSON tokenizer file may have, an object (`{`)
#: counting as three lists (a small dict costs about three times a small list in Python).
#: The densest real files are BPE merge lists written as pairs, `["Ġt","he"],`, beside
#: their vocabulary: about one list per 30 bytes (Llama-3's tokenizer.json: one per 32);
#: Tekken's vocabulary has one object per 55 bytes. A hostile `[],[],...` has 3, and
#: `["Ā","Ā"],` (11) cost 27 bytes of memory per byte of file. See docs/limits.md.
BYTES_PER_CONTAINER = 16
#: Lists and objects any file may have whatever its size (a tiny file with a few dozen).
_FREE_CONTAINERS = 1000

_MISSING = object()


@dataclass(frozen=True)
class Source:
    """What is being read (`the tokenizer file 'tok.json'`) and how to get a good one."""

    what: str
    fix: str

    def error(self, problem: str) -> ValueError:
        return ValueError(f"{_capital(self.what)}: {problem}. {self.fix}")


def describe(value: Any) -> str:
    """A short, safe rendering of a JSON value for an error message.

    >>> describe("x"), describe(True), describe(None), describe(float("nan"))
    ("'x' (a string)", 'true (a boolean)', 'null', 'NaN (a number)')
    >>> describe([1, 2, 3])
    'a list of 3 items'
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{'true' if value else 'false'} (a boolean)"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"{shown!r} (a string)"
    if isinstance(value, float) and not math.isfinite(value):
        return f"{'NaN' if math.isnan(value) else ('Infinity' if value > 0 else '-Infinity')} (a number)"
    if isinstance(value, (int, float)):
        return f"{value!r} (a number)"
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    if isinstance(value, dict):
        return f"an object with {len(value)} keys"
    return type(value).__name__


class Field:
    """One value of a parsed file and its path, with readers that check its type.

    >>> src = Source("the test file", "Fix it.")
    >>> Field({"vocab": [{"id": "x"}]}, src).key("vocab").index(0).key("id").path
    'vocab[0].id'
    >>> Field({"id": "x"}, src).key("id").as_int()
    Traceback (most recent call last):
    ...
    ValueError: The test file: `id` is 'x' (a string), not a whole number. Fix it.
    """

    __slots__ = ("value", "source", "path")

    def __init__(self, value: Any, source: Source, path: str = ""):
        self.value = value
        self.source = source
        self.path = path

    # ---- navigation ---------------------------------------------------------------------
    def _child(self, value: Any, step: str) -> "Field":
        if step.startswith("["):
            path = f"{self.path}{step}"
        else:
            path = f"{self.path}.{step}" if self.path else step
        return Field(value, self.source, path)

    def has(self, name: str) -> bool:
        return isinstance(self.value, dict) and name in self.value

    def key(self, name: str, default: Any = _MISSING) -> "Field":
        """The member `name` of an object; without a default, a missing key is an error."""
        obj = self.as_dict()
        if name not in obj:
            if default is _MISSING:
                raise self.fail(f"has no {name!r} field", at=self.path or "the top level")
            return self._child(default, name)
        return self._child(obj[name], name)

    def index(self, i: int) -> "Field":
        items = self.as_list()
        if not 0 <= i < len(items):
            raise self.fail(f"has {len(items)} items, so no item {i}")
        return self._child(items[i], f"[{i}]")

    def items(self) -> Iterator["Field"]:
        """Each element of a list, as a Field."""
        for i, value in enumerate(self.as_list()):
            yield self._child(value, f"[{i}]")

    def members(self) -> Iterator[tuple[str, "Field"]]:
        """Each (key, value) of an object, the value as a Field."""
        for name, value in self.as_dict().items():
            yield name, self._child(value, f"[{name!r}]")

    # ---- typed readers --------------------------------------------------------------------
    def fail(self, problem: str, *, at: str | None = None) -> ValueError:
        where = at if at is not None else (self.path or "the file")
        where = f"`{where}`" if where not in ("the file", "the top level") else where
        return self.source.error(f"{where} {problem}")

    def _wrong(self, expected: str) -> ValueError:
        return self.fail(f"is {describe(self.value)}, not {expected}")

    def as_dict(self) -> dict:
        if not isinstance(self.value, dict):
            raise self._wrong("an object ({...})")
        return self.value

    def as_list(self) -> list:
        if not isinstance(self.value, list):
            raise self._wrong("a list ([...])")
        return self.value

    def as_str(self, *, nonempty: bool = False, max_len: int | None = None) -> str:
        if not isinstance(self.value, str):
            raise self._wrong("a string")
        if nonempty and not self.value:
            raise self.fail("is empty; give a non-empty string")
        if max_len is not None and len(self.value) > max_len:
            raise self.fail(f"is {len(self.value)} characters long; the limit is {max_len}")
        return self.value

    def as_bool(self) -> bool:
        if not isinstance(self.value, bool):
            raise self._wrong("true or false")
        return self.value

    def as_int(self, *, low: int | None = None, high: int | None = None) -> int:
        """A whole number (not a boolean, not 2.0, not NaN) within [low, high]."""
        value = self.value
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong("a whole number")
        if (low is not None and value < low) or (high is not None and value > high):
            bounds = (
                f"between {low} and {high}" if low is not None and high is not None
                else f"at least {low}" if low is not None else f"at most {high}"
            )
            raise self.fail(f"is {value}; it must be {bounds}")
        return value

    def as_number(self, *, low: float | None = None, high: float | None = None) -> float:
        value = self.value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self._wrong("a finite number")
        if (low is not None and value < low) or (high is not None and value > high):
            raise self.fail(f"is {value}; it must be between {low} and {high}")
        return float(value)

    def one_of(self, choices: tuple[str, ...] | list[str]) -> str:
        value = self.as_str()
        if value not in choices:
            raise self.fail(f"is {value!r}; choose one of: {', '.join(choices)}")
        return value

    def optional(self) -> "Field | None":
        """None for a JSON null, else the field itself."""
        return None if self.value is None else self


def check_size(data: bytes | str, source: Source, *, limit: int = MAX_FILE_BYTES) -> None:
    """Refuse a file larger than `limit` bytes (str: counted as UTF-8, at least 1 per char)."""
    size = len(data)
    if size > limit:
        raise source.error(
            f"the file is {size / 2**20:.1f} MB, more than the {limit / 2**20:.0f} MB a tokenizer "
            "file may have here"
        )


def check_structure(data: bytes | str, source: Source) -> None:
    """Refuse a JSON file with far more lists and objects than a tokenizer file of its size
    has, before it is decoded (Python's `json` would build every one of them first).

    Counts the `[` and `{` characters of the raw file (those inside strings too, which only
    makes a real file look denser: a few tokens are brackets), at C speed: about 30 ms for
    40 MB.

    >>> src = Source("the test file", "Fix it.")
    >>> check_structure(b'{"merges": [["a", "b"], ["ab", "c"]]}', src)
    >>> check_structure(b"[" + b"[]," * 100_000 + b"[]]", src)
    Traceback (most recent call last):
    ...
    ValueError: The test file: it holds 100,002 lists and objects in 0.3 MB (one every 3 bytes); a tokenizer file has at most one every 16 bytes (its merges come with their vocabulary), so it is not one. Fix it.
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    lists, objects = raw.count(b"["), raw.count(b"{")
    weight = lists + 3 * objects
    if weight > _FREE_CONTAINERS and weight * BYTES_PER_CONTAINER > len(raw):
        if _depth(raw[:200_000]) > 500:
            raise source.error(_TOO_DEEP)
        raise source.error(
            f"it holds {lists + objects:,} lists and objects in {len(raw) / 1e6:.1f} MB (one every "
            f"{len(raw) / weight:.0f} bytes); a tokenizer file has at most one every {BYTES_PER_CONTAINER} "
            "bytes (its merges come with their vocabulary), so it is not one"
        )


def vocab_warnings(vocab: Any, merges: Any = None) -> list[str]:
    """What a tokenizer.json's model has that Hugging Face tokenizers accepts silently but
    a reader should know: ids shared by two tokens (the library decodes such an id to either,
    at random), ids missing below the largest (a sparse vocabulary: its size is not the
    largest id + 1), and merges listed twice (the later rank counts). `vocab` is the
    model's raw `vocab` object (token -> id), `merges` its raw list.

    >>> vocab_warnings({"a": 0, "b": 0, "c": 5}, [["a", "b"], "a b", ["b", "c"]])  # doctest: +NORMALIZE_WHITESPACE
    ["1 token reuses the id of an earlier token (first: 'b' has id 0, as 'a' does); the library accepts this, but decodes such an id to any one of its tokens (which one changes from run to run)",
     '4 ids below the largest (5) belong to no token (first: 1); the vocabulary is sparse: its size is 3 tokens, not 6',
     "1 merge is listed twice (first: 'a' + 'b', ranks 0 and 1); the later rank counts, as in the library"]
    """
    out: list[str] = []
    if isinstance(vocab, dict) and vocab and _plain_vocab(vocab):
        vocab = None  # nothing to say (checked in C-level passes)
    if isinstance(merges, list) and _plain_merges(merges):
        merges = None
    if isinstance(vocab, dict) and vocab:
        owner: dict[Any, str] = {}
        shared = 0
        first = ""
        for token, token_id in vocab.items():
            if token_id in owner:
                shared += 1
                if shared == 1:
                    first = f"{token!r} has id {token_id}, as {owner[token_id]!r} does"
            else:
                owner[token_id] = token
        if shared:
            out.append(f"{shared:,} token{' reuses' if shared == 1 else 's reuse'} the id of an earlier token (first: "
                       f"{first}); the library accepts this, but decodes such an id to any one of its tokens (which one "
                       "changes from run to run)")
        ids = [i for i in owner if isinstance(i, int) and not isinstance(i, bool)]
        if ids:
            largest = max(ids)
            missing = largest + 1 - len(ids)
            if missing > 0:
                gap = next(i for i in range(largest + 1) if i not in owner)
                out.append(f"{missing:,} ids below the largest ({largest:,}) belong to no token (first: {gap}); the "
                           f"vocabulary is sparse: its size is {len(vocab):,} tokens, not {largest + 1:,}")
    if isinstance(merges, list):
        seen: dict[tuple, int] = {}
        repeats = 0
        first = ""
        for rank, item in enumerate(merges):
            pair = tuple(item.split(" ")) if isinstance(item, str) else tuple(item) if isinstance(item, list) else None
            if pair is None or not all(isinstance(p, str) for p in pair):
                continue
            if pair in seen:
                repeats += 1
                if repeats == 1:
                    first = f"{' + '.join(map(repr, pair))}, ranks {seen[pair]} and {rank}"
            else:
                seen[pair] = rank
        if repeats:
            out.append(f"{repeats:,} merge{' is' if repeats == 1 else 's are'} listed twice (first: {first}); the later "
                       "rank counts, as in the library")
    return out


def _plain_vocab(vocab: dict) -> bool:
    """Whether a vocabulary's ids are 0 to n - 1, each once, all ints (no warning)."""
    ids = vocab.values()
    return set(map(type, ids)) == {int} and len(set(ids)) == len(vocab) and min(ids) == 0 and max(ids) == len(vocab) - 1


def _plain_merges(merges: list) -> bool:
    """Whether merges are all ["a", "b"] pairs (or all "a b" lines), none listed twice."""
    kinds = set(map(type, merges))
    if kinds == {list}:
        if set(map(len, merges)) != {2} or set(map(type, chain.from_iterable(merges))) != {str}:
            return False
        return len(set(map(tuple, merges))) == len(merges)
    if kinds == {str}:
        return len(set(merges)) == len(merges)  # equal lines are equal pairs
    return False


_TOO_DEEP = ("it is nested too deeply to read (lists or objects inside each other hundreds of levels deep); "
             "a tokenizer file is a few levels deep")
_JSON_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[][{}]')


def _depth(head: bytes) -> int:
    """The deepest nesting of lists and objects in the start of a JSON file (strings skipped).

    >>> _depth(b'{"a": [[1], "]]"]}'), _depth(b"[" * 600)
    (3, 600)
    """
    depth = deepest = 0
    for m in _JSON_TOKEN.finditer(head):
        ch = m.group()[:1]
        if ch in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        elif ch in (b"]", b"}"):
            depth -= 1
    return deepest


_POW10 = [float(f"1e{e}") for e in range(309)]   # serde_json's table: each power correctly rounded
_U64_MAX = 2**64 - 1


def serde_float(text: str) -> float:
    """A JSON number read the way Hugging Face `tokenizers` reads it (Rust's serde_json
    without its `float_roundtrip` feature), which can land one unit in the last place away
    from the correctly rounded value Python's `float` gives.

    serde_json gathers the digits into a 64-bit integer (dropping digits that would
    overflow it), converts that to a float, then multiplies or divides by a power of ten:
    two roundings instead of one. A Unigram tokenizer.json saved by the library writes its
    scores with 17 significant digits, so about one score in twenty reads differently, and
    where two segmentations are within a rounding error of each other the library's choice
    follows its own reading. We read scores the same way so our ids equal the library's.

    >>> serde_float("-7.4369808779859445"), float("-7.4369808779859445")
    (-7.436980877985944, -7.4369808779859445)
    >>> serde_float("0.5"), serde_float("-2"), serde_float("1e-3"), serde_float("12.5E+1")
    (0.5, -2.0, 0.001, 125.0)
    """
    negative = text.startswith("-")
    body = text[1:] if negative else text
    whole, _, frac = body.partition(".")
    if len(whole) + len(frac) <= 19 and "e" not in frac and "E" not in frac and "e" not in whole and "E" not in whole:
        # at most 19 digits never pass the 64-bit limit below: the digits as one integer
        value = float(int(whole + frac)) if whole or frac else 0.0
        if len(frac) < len(_POW10):
            value = value / _POW10[len(frac)] if frac else value
            return -value if negative else value
    mantissa, _, exp_text = body.replace("E", "e").partition("e")
    whole, _, frac = mantissa.partition(".")
    significand, exponent, limit = 0, 0, _U64_MAX // 10
    for position, ch in enumerate(whole):
        digit = ord(ch) - 48
        if significand >= limit and (significand > limit or digit > _U64_MAX % 10):
            exponent += len(whole) - position    # the rest of the integer part counts as tens
            break
        significand = significand * 10 + digit
    for ch in frac:
        digit = ord(ch) - 48
        if significand >= limit and (significand > limit or digit > _U64_MAX % 10):
            break                                # every further decimal digit is ignored
        significand = significand * 10 + digit
        exponent -= 1
    if exp_text:
        exponent += int(exp_text)
    value = float(significand)
    while True:
        if abs(exponent) < len(_POW10):
            value = value * _POW10[exponent] if exponent >= 0 else value / _POW10[-exponent]
            break
        if value == 0.0:
            break
        if exponent >= 0:
            value = math.inf                 # serde_json refuses this number; no score is near it
            break
        value /= 1e308
        exponent += 308
    return -value if negative else value


def parse_json(data: bytes | str, source: Source, *, limit: int = MAX_FILE_BYTES,
               parse_float=None) -> Field:
    """Parse a JSON file into a Field, with clear errors for every way it can fail.

    >>> src = Source("the test file", "Fix it.")
    >>> parse_json('{"a": [1]}', src).key("a").index(0).as_int()
    1
    >>> parse_json("[" * 100000, src)
    Traceback (most recent call last):
    ...
    ValueError: The test file: it is nested too deeply to read (lists or objects inside each other hundreds of levels deep); a tokenizer file is a few levels deep. Fix it.
    """
    check_size(data, source, limit=limit)
    check_structure(data, source)
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise source.error(
                f"it is not UTF-8 text (byte {exc.object[exc.start]:#04x} at position {exc.start}), "
                "so it is not a JSON file"
            ) from None
    try:
        value = json.loads(data, parse_float=parse_float)
    except RecursionError:
        raise source.error(_TOO_DEEP) from None
    except json.JSONDecodeError as exc:
        hint = " (it ends too early: the file may be cut off)" if exc.pos >= len(data) else ""
        raise source.error(
            f"it is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}{hint}"
        ) from None
    return Field(value, source)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
