"""The encoder's fast paths give exactly what the plain algorithms give.

- Pre-tokenization: `Splitter` runs the OpenAI patterns and the open models' (Llama 3,
  Qwen, Tekken) with the standard library's `re`
  (classes read off `regex`, characters up to U+FFFF) and falls back to `regex` for text
  with higher characters. Its pieces must equal `regex`'s with the published pattern.
- Byte-level merge lists run tiktoken's loop on bytes (`_bpe_bytes`) and take a piece
  that is a token as one token when the merges provably build it (`_whole_edges`). Both
  must agree with the merge list's own rule (lowest rank first, leftmost on ties, a pair
  ranks only if it is in the list), which a merge list can break on purpose: the same
  bytes made by two pairs, a token whose bytes two other tokens join into, merges listed
  before the merges that make their tokens.
"""
from __future__ import annotations

import random

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.pretokenize import MODEL_PATTERNS, PATTERNS, compile_pattern, compile_splitter
from bpe_core.encode.tokenizer import Tokenizer, _whole_edges
from stress_strings import stress_strings

OPENAI = ["gpt2", "cl100k", "o200k"]
#: every pattern with a `re` form: OpenAI's, then the open models' (llama3, qwen, qwen3.5, tekken)
FAST = OPENAI + [f"model:{name}" for name in MODEL_PATTERNS]


def _pattern(name: str) -> str:
    return MODEL_PATTERNS[name[6:]] if name.startswith("model:") else PATTERNS[name]

# Contexts for every BMP character: after letters, digits, spaces, apostrophes, newlines,
# camel case; doubled; at the start and end of the text.
CONTEXTS = [
    "{c}", "a{c}b", " {c}{c}1", "A{c}'s", "{c}'S x{c}\n", "1{c}23{c}4", "\n{c} \r\n{c}",
    "x {c}/\n", "'{c}", " {c}  {c}", "É{c}é", "{c}\u0301 ", "\t{c}\u3000",
]


@pytest.mark.parametrize("name", FAST)
def test_every_bmp_character_splits_as_regex_does(name):
    splitter = compile_splitter(_pattern(name))
    assert splitter.bmp is not None and splitter.guarded is None
    rx = compile_pattern(_pattern(name))
    for context in CONTEXTS:
        for start in range(0, 0x10000, 0x1000):
            text = "".join(context.format(c=chr(cp)) for cp in range(start, start + 0x1000))
            assert splitter.bmp.findall(text) == rx.findall(text), (context, hex(start))


@pytest.mark.parametrize("name", FAST)
def test_stress_strings_split_as_regex_does(name):
    splitter = compile_splitter(_pattern(name))
    rx = compile_pattern(_pattern(name))
    for text in stress_strings():
        assert splitter.findall(text) == rx.findall(text)
        assert [(m.group(), m.start()) for m in splitter.finditer(text)] == [
            (m.group(), m.start()) for m in rx.finditer(text)
        ]


def test_text_above_the_bmp_goes_to_regex():
    splitter = compile_splitter(PATTERNS["o200k"])
    assert splitter._engine("plain ascii") is splitter.bmp
    assert splitter._engine("café — ok") is splitter.bmp
    assert splitter._engine("emoji 🙂 here") is splitter.regex
    assert splitter._engine("𝐀𝐁 letters") is splitter.regex
    # Astral letters are \p{L} for regex; a BMP-only class would cut the word.
    text = "x𝐀𝐁y 𝟏𝟐𝟑𝟒 🙂🙂!"
    assert splitter.findall(text) == compile_pattern(PATTERNS["o200k"]).findall(text)


def test_other_patterns_use_regex_only():
    for name in ("whitespace", "simple"):
        assert compile_splitter(PATTERNS[name]).bmp is None


text_chars = st.characters(exclude_categories=["Cs"])
tricky = st.sampled_from(
    ["'s", "'S", "'ſ", "'ll", "'LL", "'Ve", " ", "  ", "\n", "\r\n", "\t", "\u00a0", "\u3000", "\u2028",
     "1234", "٣٤", "Ab", "aB", "ǅx", "ʰ", "é", "e\u0301", "/", "//\n", "🙂", "𝐀", "\x1c", "\x85", "_"]
)


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.one_of(st.text(text_chars, max_size=6), tricky), max_size=12),
       name=st.sampled_from(FAST))
def test_hypothesis_splits_as_regex_does(parts, name):
    text = "".join(parts)
    splitter = compile_splitter(_pattern(name))
    rx = compile_pattern(_pattern(name))
    assert splitter.findall(text) == rx.findall(text)
    if splitter.bmp is not None and all(ord(c) < 0x10000 for c in text):
        assert splitter.bmp.findall(text) == rx.findall(text)


# ---- byte-level merge lists ---------------------------------------------------------------

def _byte_vocab(extra: list[bytes]) -> list[tuple[bytes, bool]]:
    return [(bytes((b,)), False) for b in range(256)] + [(t, False) for t in extra]


def _naive_merge_encode(vocab: list[tuple[bytes, bool]], merges: list[tuple[int, int]], data: bytes) -> list[int]:
    """The merge-list rule, as plainly as possible: the adjacent pair listed first in the
    merge list (leftmost on ties) is merged into the token with its joined bytes."""
    ids = {body: i for i, (body, _) in enumerate(vocab)}
    rank: dict[tuple[int, int], int] = {}
    for r, pair in enumerate(merges):
        rank.setdefault(pair, r)
    seq = [ids[bytes((b,))] for b in data]
    while True:
        found = [(rank[p], i) for i, p in enumerate(zip(seq, seq[1:])) if p in rank]
        if not found:
            return seq
        _, i = min(found)
        seq[i : i + 2] = [ids[vocab[seq[i]][0] + vocab[seq[i + 1]][0]]]


def _tokenizer(vocab, merges, pretokenizer="none"):
    return Tokenizer.from_merges(tokens=vocab, merges=merges, units="byte", end_of_word="none",
                                 pretokenizer=pretokenizer)


def _id(vocab, body: bytes) -> int:
    return [b for b, _ in vocab].index(body)


def test_bytes_joined_by_a_pair_that_is_not_the_merge():
    """b+c first, then a+b, then ab+c makes abc. On "abc" the merge list stops at
    [a, bc]: (a, bc) is not a merge, though a and bc join into abc's bytes, so the
    tiktoken rule (and a whole-piece lookup) would say [abc]."""
    vocab = _byte_vocab([b"bc", b"ab", b"abc"])
    a, b, c = (_id(vocab, x) for x in (b"a", b"b", b"c"))
    bc, ab, abc = (_id(vocab, x) for x in (b"bc", b"ab", b"abc"))
    tok = _tokenizer(vocab, [(b, c), (a, b), (ab, c)])
    assert tok._fast is not None and tok._fast[2] is not None  # fast paths on
    assert tok.encode("abc") == [a, bc] == _naive_merge_encode(vocab, [(b, c), (a, b), (ab, c)], b"abc")
    assert tok.encode("abd") == [ab, _id(vocab, b"d")]
    assert tok.encode("xabcab") == _naive_merge_encode(vocab, [(b, c), (a, b), (ab, c)], b"xabcab")
    assert tok.replay("abc").ids == (a, bc)
    assert tok.decode(tok.encode("abcabc")) == "abcabc"
    # Listing (a, bc) too makes abc from both pairs: "abc" is then one token.
    merges = [(b, c), (a, b), (ab, c), (a, bc)]
    tok2 = _tokenizer(vocab, merges)
    assert tok2._fast[2] is None  # abc made twice: no whole-piece shortcut
    assert tok2.encode("abc") == [abc] == _naive_merge_encode(vocab, merges, b"abc")


def test_the_same_bytes_from_two_pairs():
    """abc made by (a, bc) at rank 2 and by (ab, c) at rank 4: the byte loop ranks any
    pair joining into abc by rank 2, which is only right for (a, bc)."""
    vocab = _byte_vocab([b"bc", b"ab", b"abc", b"ca"])
    a, b, c = (_id(vocab, x) for x in (b"a", b"b", b"c"))
    bc, ab, ca = (_id(vocab, x) for x in (b"bc", b"ab", b"ca"))
    merges = [(b, c), (a, bc), (a, b), (ab, c), (c, a)]
    tok = _tokenizer(vocab, merges)
    for text in ["abc", "abcabc", "cabc", "abca", "ab", "aabcc", "cabcab", "bcab"]:
        assert tok.encode(text) == _naive_merge_encode(vocab, merges, text.encode()), text


def test_a_piece_that_is_a_token_the_merges_do_not_build():
    """Merges listed out of order: (x, yz) comes before (x, y) and (y, z). On "xyz" the
    merge list applies (x, y) first and stops at [xy, z], so the token xyz is not built
    from its own bytes: a whole-piece lookup would be wrong."""
    vocab = _byte_vocab([b"yz", b"xyz", b"xy"])
    x, y, z = (_id(vocab, ch) for ch in (b"x", b"y", b"z"))
    yz, xyz, xy = (_id(vocab, t) for t in (b"yz", b"xyz", b"xy"))
    merges = [(x, yz), (x, y), (y, z)]
    tok = _tokenizer(vocab, merges)
    assert tok._fast[2] is None  # a merge before its token is made: no whole-piece shortcut
    for text in ["xyz", "xyzyz", "yxyz"]:
        assert tok.encode(text) == _naive_merge_encode(vocab, merges, text.encode()), text
    assert tok.encode("xyz") == [xy, z]


def test_two_tokens_side_by_side_only_when_nothing_merges_across():
    """"abcd" is "ab" + "cd", both tokens. With b+c merged first the run goes
    [a, bc, d] instead; with b+c merged last it ends in [ab, cd]."""
    vocab = _byte_vocab([b"ab", b"bc", b"cd"])
    a, b, c, d = (_id(vocab, x) for x in (b"a", b"b", b"c", b"d"))
    ab, bc, cd = (_id(vocab, x) for x in (b"ab", b"bc", b"cd"))
    across = [(b, c), (a, b), (c, d)]
    tok = _tokenizer(vocab, across)
    assert tok._fast[2] is not None
    assert tok.encode("abcd") == [a, bc, d] == _naive_merge_encode(vocab, across, b"abcd")
    apart = [(a, b), (c, d), (b, c)]
    tok = _tokenizer(vocab, apart)
    assert tok.encode("abcd") == [ab, cd] == _naive_merge_encode(vocab, apart, b"abcd")
    # The same with the left edge of "cd" merged into something else first.
    vocab = _byte_vocab([b"ab", b"cd", b"bc", b"cde"])
    a, b, c, d, e = (_id(vocab, x) for x in (b"a", b"b", b"c", b"d", b"e"))
    ab, cd, bc = (_id(vocab, x) for x in (b"ab", b"cd", b"bc"))
    merges = [(a, b), (c, d), (cd, e), (b, c)]
    tok = _tokenizer(vocab, merges)
    for text in ["abcd", "abcde", "abcdab", "bcde"]:
        assert tok.encode(text) == _naive_merge_encode(vocab, merges, text.encode()), text


def test_whole_edges_agrees_with_running_the_merges():
    rng = random.Random(7)
    for _ in range(40):
        vocab, merges = _random_merge_list(rng, monotone=True)
        tok = _tokenizer(vocab, merges)
        if tok._fast is None or tok._fast[2] is None:
            continue
        key, ids, origin = tok._fast
        memo = {i: (((i, 0),), ((i, 0),)) for i in (ids[bytes((b,))] for b in range(256))}
        for body, t in ids.items():
            if len(body) > 1:
                built = _naive_merge_encode(vocab, merges, body) == [t]
                assert (_whole_edges(t, origin, tok._pair_rank, memo) is not None) == built, body


def _random_merge_list(rng: random.Random, monotone: bool, alphabet: bytes = b"abc ", n: int = 25):
    """Merges of existing tokens over a tiny alphabet (so bytes collide often)."""
    tokens = [bytes((ch,)) for ch in alphabet]
    extra: list[bytes] = []
    pairs: list[tuple[bytes, bytes]] = []
    for _ in range(n):
        left, right = rng.choice(tokens), rng.choice(tokens)
        if len(left + right) > 8:
            continue
        pairs.append((left, right))
        if left + right not in tokens:
            tokens.append(left + right)
            extra.append(left + right)
    if not monotone:
        rng.shuffle(pairs)
    vocab = _byte_vocab(extra)
    index = {body: i for i, (body, _) in enumerate(vocab)}
    return vocab, [(index[left], index[right]) for left, right in pairs]


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), monotone=st.booleans(),
       texts=st.lists(st.text(st.sampled_from("abc "), max_size=14), min_size=1, max_size=6))
def test_hypothesis_random_merge_lists_follow_the_merge_rule(seed, monotone, texts):
    vocab, merges = _random_merge_list(random.Random(seed), monotone)
    for pretokenizer in ("none", "gpt2"):
        tok = _tokenizer(vocab, merges, pretokenizer)
        for text in texts:
            pieces = [text] if pretokenizer == "none" else regex.findall(PATTERNS["gpt2"], text)
            expected = [i for piece in pieces for i in _naive_merge_encode(vocab, merges, piece.encode())]
            assert tok.encode(text) == expected, (merges, text)
            assert tok.decode(tok.encode(text)) == text
            # The cached path (token_spans) and replay end in the same ids.
            assert [s.id for s in tok.token_spans(text)] == expected
            for piece in pieces:
                assert list(tok.replay(piece).ids) == _naive_merge_encode(vocab, merges, piece.encode())


def test_fast_path_off_for_other_units():
    char = Tokenizer.from_merges(tokens=[("a", False), ("b", False), ("ab", False)], merges=[(0, 1)],
                                 units="char", end_of_word="none")
    assert char._fast is None
    assert char.encode("abab") == [2, 2]
    with pytest.raises(ValueError, match="not in this character-level vocabulary"):
        char.encode("ab abc")


def test_rank_table_encodes_an_empty_piece():
    """A custom pattern may match the empty string between characters: such a match cuts
    nothing and has no tokens, and the text around it is kept (issue 26: the space used to
    be dropped). A pattern that matches the empty string itself, [a-z]*, is refused."""
    ranks = {bytes([b]): b for b in range(256)}
    ranks[b"ab"] = 256
    tok = Tokenizer.from_ranks(name="x", mergeable_ranks=ranks, pattern=r"[a-z]+|(?=\s)", special_tokens={})
    assert tok.encode("ab cd") == [256, 32, 99, 100]
    with pytest.raises(ValueError, match="matches the empty string"):
        Tokenizer.from_ranks(name="x", mergeable_ranks=ranks, pattern=r"[a-z]*", special_tokens={})


def test_a_shared_tokenizer_encodes_from_many_threads(monkeypatch):
    """One tokenizer serves every session of the app, so threads share its piece cache;
    a thread that clears the full cache must not break another thread's encode."""
    import sys
    import threading

    import bpe_core.encode.tokenizer as tokenizer_module
    from bpe_core.pretrained import openai_tokenizer

    monkeypatch.setattr(tokenizer_module, "_CACHE_LIMIT", 300)  # clears often
    tok = openai_tokenizer("gpt2")
    texts = [
        " ".join(f"w{random.Random(seed * 1000 + i).randrange(10**6)}" for i in range(200))
        for seed in range(40)
    ]
    errors: list[BaseException] = []
    results: dict[int, list[int]] = {}

    def worker(n: int) -> None:
        try:
            for k in range(n, len(texts), 4):
                results[k] = tok.encode(texts[k])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors
    monkeypatch.setattr(tokenizer_module, "_CACHE_LIMIT", 200_000)
    for k, text in enumerate(texts):
        assert results[k] == tok.encode(text)


def test_a_rank_tables_tokens_read_like_the_dict_they_stand_for():
    """`Tokenizer.tokens` of a rank table is read from its id -> bytes table: every lookup,
    membership test, length and order is that of the dict {id: (bytes, False)}."""
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({b"ab": 256, b"": 257, b"a b": 300})
    tok = Tokenizer.from_ranks(name="toy", mergeable_ranks=ranks, pattern=r"\S+|\s+", special_tokens={"<|e|>": 301})
    as_dict = {rank: (data, False) for data, rank in ranks.items()}
    assert dict(tok.tokens) == as_dict and list(tok.tokens) == list(as_dict) and len(tok.tokens) == 259
    assert tok.tokens[256] == (b"ab", False) and tok.tokens.get(257) == (b"", False)  # the empty token is there
    assert tok.tokens.get(301) is None and tok.tokens.get(999, "none") == "none" and 301 not in tok.tokens
    assert 300 in tok.tokens and sorted(tok.tokens.items())[-1] == (300, (b"a b", False))
    with pytest.raises(KeyError):
        tok.tokens[258]
    assert tok.token_bytes(300) == b"a b" and tok.token_bytes(301) == b"<|e|>" and tok.vocab_size == 260
    with pytest.raises(ValueError, match="not in the toy vocabulary"):
        tok.token_bytes(258)
