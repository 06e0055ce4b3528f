"""tokenizer.json with WordPiece and Unigram models, decoding and token offsets, checked
against Hugging Face `tokenizers` on files trained here.

Each case trains a tokenizer with the library, saves it, and compares our reading of the
file with `Tokenizer.from_file(path)`: ids and tokens of `encode(text,
add_special_tokens=False)`, `decode(ids, skip_special_tokens=False)`, and the offsets
(`Encoding.offsets`, which the library gives into the original text).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tokenizers import Tokenizer as HFTokenizer, decoders as D, models, normalizers as N, pre_tokenizers as P, trainers

from bpe_core.formats import load_hf_json, load_tokenizer
from stress_strings import families, stress_strings

REPO = Path(__file__).resolve().parent.parent
STRESS = stress_strings()
MULTILINGUAL = list(families()["languages"])[::3]
CODE = list(families()["code"])
EXTRA = ["Hello, world! Don't stop.", "hugging huggingface HUGS", "ÉCOLE école naïve", "日本語のテキスト 中文",
         "x" * 150, "a" * 99 + " " + "b" * 101, "  leading and trailing  ", "", " ", "tab\there\nnew line",
         "emoji 🤗🏳️‍🌈 and ✓", "ǅ ǆ Σ ΟΔΟΣ"]
TEXTS = STRESS[::4] + MULTILINGUAL + CODE + EXTRA
ENGLISH = (REPO / "corpora" / "english_sample.txt").read_text(encoding="utf-8")
CORPUS = (REPO / "corpora" / "english_sample.txt").read_text(encoding="utf-8") + "\n".join(STRESS[::7])
BYTES = [f"<0x{b:02X}>" for b in range(256)]


def _wordpiece(norm, pre, **trainer):
    tok = HFTokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=trainer.pop("max_chars", 100)))
    tok.normalizer, tok.pre_tokenizer = norm, pre
    tok.decoder = D.WordPiece(prefix=trainer.get("continuing_subword_prefix", "##"))
    settings = dict(vocab_size=800, show_progress=False, special_tokens=["[UNK]", "[CLS]", "[SEP]"], limit_alphabet=300)
    settings.update(trainer)
    tok.train_from_iterator([CORPUS], trainers.WordPieceTrainer(**settings))
    return tok


def _unigram(norm, pre, decoder, *, byte_fallback=False, corpus=CORPUS, **trainer):
    tok = HFTokenizer(models.Unigram(byte_fallback=byte_fallback) if byte_fallback else models.Unigram())
    if norm is not None:
        tok.normalizer = norm
    tok.pre_tokenizer, tok.decoder = pre, decoder
    settings = dict(vocab_size=1800, show_progress=False, special_tokens=["<unk>"] + (BYTES if byte_fallback else []),
                    unk_token="<unk>")
    settings.update(trainer)
    tok.train_from_iterator([corpus], trainers.UnigramTrainer(**settings))
    if byte_fallback:  # the trainer leaves the option off in the model it makes
        data = json.loads(tok.to_str())
        data["model"]["byte_fallback"] = True
        tok = HFTokenizer.from_str(json.dumps(data))
    return tok


CASES = {
    "wordpiece-bert": lambda: _wordpiece(N.BertNormalizer(), P.BertPreTokenizer()),
    "wordpiece-cased-short-words": lambda: _wordpiece(N.BertNormalizer(lowercase=False, strip_accents=False),
                                                      P.BertPreTokenizer(), max_chars=8),
    "wordpiece-nfd-whitespace-prefix": lambda: _wordpiece(N.Sequence([N.NFD(), N.StripAccents(), N.Lowercase()]),
                                                          P.Whitespace(), continuing_subword_prefix="@@"),
    "unigram-metaspace": lambda: _unigram(None, P.Metaspace(), D.Metaspace()),
    "unigram-nfkc-first-no-split": lambda: _unigram(N.NFKC(), P.Metaspace(prepend_scheme="first", split=False),
                                                    D.Metaspace(prepend_scheme="first", split=False)),
    "unigram-byte-fallback": lambda: _unigram(
        N.Sequence([N.Replace(" ", "▁"), N.Prepend("▁")]), None,
        D.Sequence([D.Replace("▁", " "), D.ByteFallback(), D.Fuse(), D.Strip(" ", 1, 0)]),
        byte_fallback=True, vocab_size=700, corpus=ENGLISH),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request, tmp_path_factory):
    tok = CASES[request.param]()
    path = tmp_path_factory.mktemp("models") / "tokenizer.json"
    tok.save(str(path))
    return request.param, path, HFTokenizer.from_file(str(path)), load_tokenizer(path)


def test_scores_are_read_as_the_library_reads_them(tmp_path):
    """The library reads a JSON float with two roundings (serde_json's fast path), which
    can be one unit in the last place off; `serde_float` must give its exact reading."""
    import random
    from bpe_core.formats.checks import serde_float
    rng = random.Random(7)
    vocab = [("<unk>", 0.0)] + [(f"p{i}", -rng.uniform(0.5, 20.0)) for i in range(3000)]
    vocab += [(f"q{i}", -rng.uniform(1e-9, 1e-3)) for i in range(500)] + [("big", -123456.78901234567)]
    tok = HFTokenizer(models.Unigram(vocab, unk_id=0))
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    written = [text for _, text in json.loads(path.read_text(encoding="utf-8"), parse_float=str)["model"]["vocab"]]
    library = [score for _, score in json.loads(HFTokenizer.from_file(str(path)).to_str())["model"]["vocab"]]
    ours = [serde_float(text) if isinstance(text, str) else float(text) for text in written]
    assert ours == library
    off = sum(float(text) != score for text, score in zip(written, library) if isinstance(text, str))
    assert off > 100, off  # the library's reading differs from Python's for many 17-digit scores


def test_ids_and_tokens_match_the_library(case):
    name, path, theirs, ours = case
    assert ours.model_type == json.loads(path.read_text(encoding="utf-8"))["model"]["type"]
    for text in TEXTS:  # exact, near-ties included: Unigram scores are read as the library reads them
        got = theirs.encode(text, add_special_tokens=False)
        pairs = ours.encode_pairs(text, allowed_special="all")
        assert [i for i, _ in pairs] == got.ids, (name, text)
        assert [s for _, s in pairs] == got.tokens, (name, text)


def test_decode_matches_the_library(case):
    name, _, theirs, ours = case
    for text in TEXTS:
        ids = theirs.encode(text, add_special_tokens=False).ids
        assert ours.decode(ids) == theirs.decode(ids, skip_special_tokens=False), (name, text)
        mine = ours.encode(text, allowed_special="all")
        assert ours.decode(mine) == theirs.decode(mine, skip_special_tokens=False), (name, text)


#: Cases whose normalizer composes characters or reorders marks (NFKC, NFD): there a token
#: covers the whole cluster (a base character and its marks) it came from, where the
#: library can be finer.
COMPOSING = {"unigram-nfkc-first-no-split", "wordpiece-nfd-whitespace-prefix"}


def test_token_spans_match_the_library_offsets(case):
    """Offsets into the original text equal `Encoding.offsets`, except where the library
    points a prepended ▁ standing alone at the first character (we draw it empty, where it
    stands) and, after a normalizer that composes or reorders, where ours cover the whole cluster."""
    name, _, theirs, ours = case
    checked = coarser = 0
    for text in TEXTS:
        got = theirs.encode(text, add_special_tokens=False)
        spans = ours.token_spans(text, allowed_special="all")
        assert [s.id for s in spans] == ours.encode(text, allowed_special="all") == got.ids, (name, text)
        for span, (start, end) in zip(spans, got.offsets):
            assert 0 <= span.start <= span.end <= len(text)
            checked += 1
            if span.start == span.end:
                assert span.start == start and span.label == "▁", (name, text, span)
            elif name in COMPOSING and (span.start, span.end) != (start, end):
                assert span.start <= start <= end <= span.end, (name, text, span)
                coarser += 1
            else:
                assert (span.start, span.end) == (start, end), (name, text, span)
    assert checked > 1000 and coarser < checked / 20


def test_unknown_model_type_and_bad_unigram_vocab_are_errors():
    base = {"version": "1.0", "added_tokens": [], "normalizer": None, "pre_tokenizer": None,
            "post_processor": None, "decoder": None}
    cases = [
        ({"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"}, r"is 'WordLevel': this app reads BPE, WordPiece, Unigram"),
        ({"type": "Unigram", "vocab": [["a", "x"]], "unk_id": 0}, r"`model.vocab\[0\]\[1\]` is 'x'"),
        ({"type": "Unigram", "vocab": [["a"]], "unk_id": 0}, r"`model.vocab\[0\]` is not a \[piece, score\] pair"),
        ({"type": "Unigram", "vocab": [["a", -1.0]], "unk_id": 3}, r"`model.unk_id` is 3"),
        ({"type": "WordPiece", "vocab": {"a": 0}, "unk_token": "[UNK]"}, r"`model.unk_token` is '\[UNK\]', which is not"),
        ({"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 0}}, r"`model.vocab` cannot be used: Two vocabulary entries share an id"),
    ]
    for model, words in cases:
        with pytest.raises(ValueError, match=words):
            load_hf_json(json.dumps({**base, "model": model}))


def test_unknown_decoder_fails_only_when_decoding():
    tok = HFTokenizer(models.WordPiece({"[UNK]": 0, "a": 1, "##b": 2}, unk_token="[UNK]"))
    data = json.loads(tok.to_str())
    data["decoder"] = {"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": True}
    ours = load_hf_json(json.dumps(data))
    assert ours.encode("ab") == [1, 2]
    with pytest.raises(ValueError, match=r"`decoder` is a decoder of type 'CTC'"):
        ours.decode([1, 2])


def test_byte_level_spans_share_a_character(tmp_path):
    """A byte-level tokenizer may split a character's bytes: each part covers the whole
    character, its token_bytes are its own bytes and its label is `<E4>`-style."""
    tok = HFTokenizer(models.BPE())
    tok.pre_tokenizer = P.ByteLevel(add_prefix_space=False)
    tok.decoder = D.ByteLevel()
    tok.train_from_iterator(["plain ascii text only"], trainers.BpeTrainer(
        vocab_size=300, show_progress=False, initial_alphabet=P.ByteLevel.alphabet()))
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    ours = load_tokenizer(path)
    spans = ours.token_spans("a 日")
    assert [s.id for s in spans] == tok.encode("a 日").ids
    tail = spans[-3:]
    assert all((s.start, s.end) == (2, 3) for s in tail) and all(s.partial for s in tail)
    assert b"".join(s.token_bytes for s in spans) == "a 日".encode()
    assert tail[0].label == "<E6>"
    assert ours.decode(tok.encode("a 日").ids) == tok.decode(tok.encode("a 日").ids) == "a 日"


@pytest.mark.parametrize("flag", ["--json", "--tokens"])
def test_cli_prints_the_library_output(case, tmp_path, flag):
    name, path, theirs, _ = case
    text = "\n".join(TEXTS[::25])
    file = tmp_path / "text.txt"
    file.write_text(text, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "bpe_core", "encode", "--tokenizer", str(path), "--file", str(file), flag],
                         capture_output=True, text=True, cwd=REPO, check=True).stdout
    got = theirs.encode(text, add_special_tokens=False)
    mine = load_tokenizer(path).encode_pairs(text, allowed_special="all")
    assert json.loads(out) == ([i for i, _ in mine] if flag == "--json" else [t for _, t in mine]), name
    assert json.loads(out) == (got.ids if flag == "--json" else got.tokens), name
