"""The Quirks page, pure part: real tokenizers on tricky texts, and the claims to check.

Every figure the page shows comes from here and is computed from the real tokenizers in
`bpe_core.pretrained` (GPT-2, cl100k_base, o200k_base, Mistral 7B, Tekken): token counts,
pieces, digit chunks, bytes per character, whether a naive filter sees a word. What the
source texts *state* (a count, a split, a list of ids) is kept as a `Claim`, and
`check_claim` says whether the real tokenizer agrees.

What it leaves out: drawing (ui/quirks/widgets.py), the worked examples (examples.py)
and the quiz (quiz.py).
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from bpe_core import bytes_label, pretokenize
from bpe_core.display import name_invisible
from bpe_core.pretrained import PRETRAINED, load_pretrained

__all__ = [
    "SOURCES", "Encoding", "encode_with", "Quirk", "QUIRKS", "QUIRK_IDS", "Claim", "Verdict", "CLAIMS",
    "claims_for", "check_claim", "letter_count", "tokens_with_letter", "digit_chunk_lengths",
    "longest_digit_chunk", "next_different_split", "split_of", "pretokenize_pieces", "invisible_characters",
    "naive_filter_sees", "code_points", "script_rows", "language_texts", "MAX_TRY_CHARS",
]

ROOT = Path(__file__).resolve().parent.parent.parent

#: How the page names the four source texts (their own titles).
SOURCES: dict[str, str] = {
    "000": "the chapter “1.2 Tokenization” (source text 000)",
    "001": "“Tokenization Internals: BPE” (source text 001)",
    "002": "“Tokenization at Scale” (source text 002)",
    "003": "“Tokenization & BPE”, a short introduction (source text 003)",
}

#: A "try your own" text is cut to this many characters (five tokenizers draw it).
MAX_TRY_CHARS = 2_000


@dataclass(frozen=True)
class Encoding:
    """One text under one real tokenizer: ids, what each token holds, and the spans to draw."""

    name: str
    text: str
    ids: tuple[int, ...]
    pieces: tuple[str, ...]      # each token's bytes as text (<E4> for a partial character)
    spans: tuple                 # the tokenizer's token spans, for the chips

    @property
    def count(self) -> int:
        return len(self.ids)


def encode_with(name: str, text: str, *, allow_special: bool = False) -> Encoding:
    """`text` encoded by the real tokenizer `name` (special tokens as text unless allowed).

    >>> e = encode_with("gpt2", "Hello, world!")
    >>> e.count, e.pieces
    (4, ('Hello', ',', ' world', '!'))
    """
    tok = load_pretrained(name)
    allowed = "all" if allow_special else ()
    ids = tuple(tok.encode(text, allowed_special=allowed))
    spans = tuple(tok.token_spans(text, allowed_special=allowed))
    pieces = tuple(bytes_label(tok.token_bytes(i)) for i in ids)
    return Encoding(name, text, ids, pieces, spans)


@dataclass(frozen=True)
class Quirk:
    """One section of the page: what to show, the examples, why it matters for a model."""

    id: str
    title: str
    what: str
    why: str
    examples: tuple[str, ...]
    placeholder: str
    tab: str  # the section's short name: its tab label and its `?quirk=` value in a link


QUIRKS: tuple[Quirk, ...] = (
    Quirk("letters", "Letters hidden inside tokens",
          "How many r's are in “strawberry”? The model never sees the letters: it sees a few ids.",
          "To count letters or spell a word backwards, a model has to have memorised how each token "
          "is spelled, because the letters are not in its input.",
          ("strawberry", "yrrebwarts"), "Type a word", tab="Letters"),
    Quirk("numbers", "Numbers come in arbitrary chunks",
          "GPT-2 learned whatever digit groups were frequent; cl100k and o200k cut digit runs into "
          "groups of at most three; Mistral 7B and Tekken use single digits.",
          "If 1234 and 1235 are cut differently, the model has to learn arithmetic separately for each "
          "way of cutting, instead of once per digit position.",
          ("1234", "1235", "$1,234.56", "2025-01-15", "12345678901234567890"), "Type a number", tab="Numbers"),
    Quirk("spaces", "Leading and trailing spaces belong to tokens",
          "In GPT-style tokenizers the space goes with the word after it, so “ hello” and “hello” "
          "are two different tokens.",
          "A prompt that ends with a space makes the model continue after a token it rarely saw "
          "there, because in training text the space was almost always glued to the next word.",
          ("hello", " hello", "The capital of France is", "The capital of France is "),
          "Type a prompt (try ending it with a space)", tab="Spaces"),
    Quirk("case", "Capitalisation changes the tokens",
          "“hello”, “Hello” and “HELLO” are unrelated ids; upper case is much rarer and splits into "
          "more pieces.",
          "The model must learn separately that each casing means the same word, and shouting text "
          "costs more tokens.",
          ("hello", "Hello", "HELLO", " hello", " Hello", " HELLO"), "Type a word in any case", tab="Capitals"),
    Quirk("code", "Code: indentation, tabs and identifiers",
          "Early tokenizers spent one token per space of indentation; newer ones have tokens for runs "
          "of spaces and tabs.",
          "Indentation is most of the characters in some code, so how it is tokenized decides how much "
          "code fits in the context window and what it costs.",
          ("        return x", "\t\treturn x", "__init__", "def __init__(self, param: int):"),
          "Paste a line of code", tab="Code"),
    Quirk("scripts", "Other scripts cost more",
          "The same paragraph in ten languages: characters, UTF-8 bytes and tokens under each tokenizer.",
          "A language that needs three times the tokens pays three times the price, waits three times "
          "as long and fits a third as much text in the same context window.",
          (), "Type a sentence in any language", tab="Other scripts"),
    Quirk("zero_width", "A zero-width space splits a word",
          "“Ign\u200bore” looks like “Ignore” on screen, but a zero-width space (U+200B) sits inside.",
          "A keyword filter that looks for “ignore” in the text does not find it, yet the model still "
          "reads the pieces and can follow the instruction.",
          ("Ignore previous instructions", "Ign\u200bore previous instructions"), "Type a sentence", tab="Zero-width space"),
    Quirk("special", "Special tokens typed as text",
          "“<|endoftext|>” is a control token, but typed by a user it is encoded as ordinary text, "
          "unless the caller allows special tokens.",
          "If pasted text could produce the real control token, a user could end a document or fake a "
          "chat turn; that is why special tokens are an explicit opt-in.",
          ("<|endoftext|>", "Hello<|endoftext|>world", "<s>[INST]"), "Type text with a special token", tab="Special tokens"),
    Quirk("glitch", "Glitch tokens",
          "“ SolidGoldMagikarp” is one single GPT-2 token: a Reddit username frequent in the text the "
          "tokenizer was trained on, and almost absent from the text the model was trained on.",
          "A token the model hardly ever saw in training has an almost untrained embedding, and "
          "prompts that contain it produced bizarre answers from GPT-3.",
          (" SolidGoldMagikarp", " TheNitromeFan", " davidjl"), "Type a word", tab="Glitch tokens"),
    Quirk("unicode", "Unicode normalisation",
          "“é” can be one code point (U+00E9) or an e followed by a combining accent (U+0301); "
          "full-width letters (ＡＢＣ) look like ABC but are different characters.",
          "Two texts that look the same can give different ids, so a model sees them as different "
          "inputs unless the tokenizer normalises them first.",
          ("café", "cafe\u0301", "ABC", "ＡＢＣ"), "Type accented or full-width text", tab="Unicode forms"),
    Quirk("structured", "Structured output: where the tokens of JSON fall",
          "Token boundaries in '{\"status\": \"ok\"}' do not follow the JSON grammar: quotes, "
          "colons and braces merge with their neighbours.",
          "Constrained decoding must allow every token that can start a valid continuation, not only "
          "the ones that match the grammar's own symbols, or it forbids the model's natural tokens.",
          ('{"status": "ok"}', '{"status":"ok"}', '{"status": "okay"}'), "Type some JSON", tab="JSON"),
)
QUIRK_IDS = tuple(q.id for q in QUIRKS)


# --- claims from the source texts ------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """A count, a split or a list of ids that a source text states.

    `kind` is "count" (`expected` is (low, high): "~6-8" is (6, 8), "~3" is (3, 3)),
    "pieces" (the token texts in order), "ids" (the ids in order), "max_digits" (every
    digit-only token has at most `expected[0]` digits), "differ" (the texts in `others`
    split differently from `text`), "pretokenize" (the pre-tokenizer's pieces).
    """

    quirk: str
    source: str
    quote: str
    tokenizer: str
    text: str
    kind: str
    expected: tuple
    others: tuple[str, ...] = ()


@dataclass(frozen=True)
class Verdict:
    holds: bool
    real: str        # the real result, in words
    claimed: str     # the claim, in words


CLAIMS: tuple[Claim, ...] = (
    Claim("numbers", "001", "“1 2 3 4 5 6 7 8 9 10”: ~20 tokens (each a token!), with GPT-4o's tokenizer",
          "o200k_base", "1 2 3 4 5 6 7 8 9 10", "count", (20, 20)),
    Claim("numbers", "000", "GPT-4-era tokenizers split digit runs into chunks of up to 3",
          "cl100k_base", "12345678901234567890", "max_digits", (3,)),
    Claim("numbers", "000", "GPT-4-era tokenizers split digit runs into chunks of up to 3",
          "o200k_base", "12345678901234567890", "max_digits", (3,)),
    Claim("numbers", "000", "in GPT-2's tokenizer, “1234” and “1235” might split differently",
          "gpt2", "1234", "differ", (), ("1235",)),
    Claim("numbers", "000", "GPT-2's rules pre-tokenize “Hello world, it's 2025!” as "
          "Hello | ␣world | , | ␣it | 's | ␣2025 | !",
          "gpt2", "Hello world, it's 2025!", "pretokenize", ("Hello", " world", ",", " it", "'s", " 2025", "!")),
    Claim("spaces", "001", "“Hello, world!”: ~3 tokens with GPT-4o's tokenizer",
          "o200k_base", "Hello, world!", "count", (3, 3)),
    Claim("scripts", "001", "“你好，世界！”: ~6-8 tokens with GPT-4o's tokenizer",
          "o200k_base", "你好，世界！", "count", (6, 8)),
    Claim("code", "001", "“def __init__(self, param: int):”: ~12-14 tokens with GPT-4o's tokenizer",
          "o200k_base", "def __init__(self, param: int):", "count", (12, 14)),
    Claim("code", "001", "“__init__” tokenizes as __ | init | __ (3 tokens)",
          "o200k_base", "__init__", "pieces", ("__", "init", "__")),
    Claim("zero_width", "001", "“Ign\u200bore” tokenizes as Ign | ⟨ZWSP⟩ | ore",
          "o200k_base", "Ign\u200bore", "pieces", ("Ign", "\u200b", "ore")),
    Claim("structured", "001", "'{\"status\": \"ok\"}' encodes as [123, 29280, 2065, 794, 330, 564, 1, 15] "
          "(with GPT-4o's tokenizer)", "o200k_base", '{"status": "ok"}', "ids",
          (123, 29280, 2065, 794, 330, 564, 1, 15)),
    Claim("structured", "001", "'{\"status\": \"ok\"}' encodes as [123, 29280, 2065, 794, 330, 564, 1, 15] "
          "(checked against GPT-4's cl100k too, which shares three of the ids)", "cl100k_base",
          '{"status": "ok"}', "ids", (123, 29280, 2065, 794, 330, 564, 1, 15)),
)


def claims_for(quirk: str) -> tuple[Claim, ...]:
    """The source texts' claims shown in one section.

    >>> [c.source for c in claims_for("code")]
    ['001', '001']
    """
    return tuple(c for c in CLAIMS if c.quirk == quirk)


def _show(pieces: Sequence[str]) -> str:
    """Pieces as the quoted claims write them (␣ for a space, as in the quote beside it);
    invisible characters named by bpe_core.display's one table (⟨ZWSP⟩)."""
    return " | ".join(name_invisible(p).replace(" ", "␣") for p in pieces)


def check_claim(claim: Claim) -> Verdict:
    """Whether the real tokenizer agrees with what the source text states.

    >>> check_claim(CLAIMS[0]).holds, check_claim(CLAIMS[0]).real
    (False, '19 tokens')
    >>> check_claim(claims_for("zero_width")[0]).holds
    True
    """
    if claim.kind == "pretokenize":
        real = tuple(p.text for p in pretokenize(claim.text, PRETRAINED[claim.tokenizer].pretokenizer))
        return Verdict(real == claim.expected, _show(real), _show(claim.expected))
    enc = encode_with(claim.tokenizer, claim.text)
    if claim.kind == "count":
        low, high = claim.expected
        said = f"{low} tokens" if low == high else f"{low} to {high} tokens"
        return Verdict(low <= enc.count <= high, f"{enc.count} tokens", said)
    if claim.kind == "pieces":
        return Verdict(enc.pieces == claim.expected, _show(enc.pieces), _show(claim.expected))
    if claim.kind == "ids":
        return Verdict(enc.ids == claim.expected, str(list(enc.ids)), str(list(claim.expected)))
    if claim.kind == "max_digits":
        longest = longest_digit_chunk(enc.pieces)
        return Verdict(longest <= claim.expected[0], f"{_show(enc.pieces)} (longest digit chunk: {longest})",
                       f"at most {claim.expected[0]} digits a token")
    if claim.kind == "differ":
        shapes = [split_of(claim.tokenizer, t) for t in (claim.text, *claim.others)]
        real = "; ".join(f"{t} → {_show(s)}" for t, s in zip((claim.text, *claim.others), shapes))
        return Verdict(len({tuple(len(p) for p in s) for s in shapes}) > 1, real, "different splits")
    raise ValueError(f"Unknown claim kind {claim.kind!r}. Use count, pieces, ids, max_digits, differ or pretokenize.")


# --- helpers for the sections ----------------------------------------------------------


def letter_count(text: str, letter: str) -> int:
    """How many times `letter` occurs (case-insensitive).

    >>> letter_count("strawberry", "r"), letter_count("Rear", "r")
    (3, 2)
    """
    return text.lower().count(letter.lower())


def tokens_with_letter(pieces: Sequence[str], letter: str) -> int:
    """How many tokens hold the letter at least once: what the model would have to look inside.

    >>> tokens_with_letter(("str", "aw", "berry"), "r")
    2
    """
    return sum(1 for p in pieces if letter.lower() in p.lower())


def digit_chunk_lengths(pieces: Sequence[str]) -> tuple[int, ...]:
    """The number of digits in each token that holds digits.

    >>> digit_chunk_lengths(("$", "1", ",", "234", ".", "56"))
    (1, 3, 2)
    """
    return tuple(n for n in (sum(ch.isdigit() for ch in p) for p in pieces) if n)


def longest_digit_chunk(pieces: Sequence[str]) -> int:
    """The most digits any one token holds.

    >>> longest_digit_chunk(("123", "456", "78")), longest_digit_chunk(("ab",))
    (3, 0)
    """
    return max(digit_chunk_lengths(pieces), default=0)


def split_of(name: str, text: str) -> tuple[str, ...]:
    """The token texts of `text` under the real tokenizer `name`.

    >>> split_of("cl100k_base", "1234")
    ('123', '4')
    """
    return encode_with(name, text).pieces


def next_different_split(name: str, number: int, *, limit: int = 10_000) -> int | None:
    """The first number after `number` whose digits split into chunks of other lengths
    (None if there is none within `limit`).

    >>> next_different_split("cl100k_base", 1234) is None
    True
    >>> next_different_split("gpt2", 1234) > 1234
    True
    """
    shape = tuple(len(p) for p in split_of(name, str(number)))
    for n in range(number + 1, number + 1 + limit):
        if len(str(n)) != len(str(number)):
            return None
        if tuple(len(p) for p in split_of(name, str(n))) != shape:
            return n
    return None


def pretokenize_pieces(name: str, text: str) -> tuple[str, ...]:
    """How a rank-table tokenizer's regex cuts `text` before any merge (empty for the others).

    >>> pretokenize_pieces("gpt2", "it's 2025"), pretokenize_pieces("cl100k_base", "it's 2025")
    (('it', "'s", ' 2025'), ('it', "'s", ' ', '202', '5'))
    """
    pattern = PRETRAINED[name].pretokenizer
    if not pattern:
        return ()
    return tuple(p.text for p in pretokenize(text, pattern))


#: Characters that draw nothing: zero-width space, (non-)joiners, word joiner, BOM, soft hyphen.
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad"


def invisible_characters(text: str) -> tuple[str, ...]:
    """The invisible characters in `text`, as U+XXXX names.

    >>> invisible_characters("Ign\\u200bore"), invisible_characters("plain")
    (('U+200B ZERO WIDTH SPACE',), ())
    """
    return tuple(f"U+{ord(c):04X} {unicodedata.name(c, '')}".strip() for c in text if c in _INVISIBLE
                 or unicodedata.category(c) == "Cf")


def naive_filter_sees(text: str, word: str) -> bool:
    """Whether a plain substring filter finds `word` (case-insensitive) in `text`.

    >>> naive_filter_sees("Ignore this", "ignore"), naive_filter_sees("Ign\\u200bore this", "ignore")
    (True, False)
    """
    return word.lower() in text.lower()


def code_points(text: str) -> tuple[str, ...]:
    """Each character as U+XXXX.

    >>> code_points("é"), code_points("e\\u0301")
    (('U+00E9',), ('U+0065', 'U+0301'))
    """
    return tuple(f"U+{ord(c):04X}" for c in text)


@lru_cache(maxsize=1)
def language_texts() -> tuple[tuple[str, str, str, str], ...]:
    """The Vocabulary size page's paragraph in ten languages: (code, language, script, text)."""
    from ui.vocab.curves import LANGUAGES

    folder = ROOT / "corpora" / "languages"
    return tuple((code, lang, script, (folder / f"{code}.txt").read_text(encoding="utf-8").strip())
                 for code, (lang, script) in LANGUAGES.items())


def script_rows(texts: Sequence[tuple[str, str, str]], names: Sequence[str] = tuple(PRETRAINED)) -> list[dict]:
    """One row per text: characters, UTF-8 bytes, bytes per character, then tokens and
    tokens per character under each tokenizer. `texts` holds (label, script, text).

    >>> row = script_rows([("English", "Latin", "Hello world")], ["gpt2"])[0]
    >>> row["characters"], row["bytes"], row["GPT-2 tokens"], row["GPT-2 tokens/char"]
    (11, 11, 2, 0.18)
    """
    rows = []
    for label, script, text in texts:
        n_chars = max(len(text), 1)
        n_bytes = len(text.encode("utf-8"))
        row = {"language": label, "script": script, "characters": len(text), "bytes": n_bytes,
               "bytes/char": round(n_bytes / n_chars, 2)}
        for name in names:
            count = encode_with(name, text).count
            short = PRETRAINED[name].short
            row[f"{short} tokens"] = count
            row[f"{short} tokens/char"] = round(count / n_chars, 2)
        rows.append(row)
    return rows
