"""SentencePiece models read and encoded by bpe_core.spm, checked against the
`sentencepiece` library itself.

Models: Mistral 7B's `tokenizer.model.v1` (shipped in mistral-common) and BPE and
Unigram models trained here by `sentencepiece.SentencePieceTrainer` under different
flags (byte fallback, dummy prefix, extra whitespace, normalization rule, user-defined
and control symbols, whitespace as suffix). For each: the same ids as
`SentencePieceProcessor.encode` on the stress strings and on hypothesis text, the same
normalized text, the same decoding; decode(encode(x)) == x where the flags make that
possible. Malformed files give one ValueError each.
"""
from __future__ import annotations

import hashlib
import io
import json
import random
import struct
from functools import lru_cache
from pathlib import Path

import pytest
import sentencepiece as spm
from hypothesis import given, settings, strategies as st

from bpe_core.__main__ import main
from bpe_core.spm import (
    SHIPPED_MODELS,
    SentencePieceSpan,
    SentencePieceTokenizer,
    looks_like_sentencepiece,
    read_model,
    shipped_model_path,
    shipped_tokenizer,
)
from bpe_core.spm.proto import iter_fields
from bpe_core.spm.segment import _f32

from stress_strings import stress_strings

ROOT = Path(__file__).resolve().parent.parent

# ---- models -------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def training_lines() -> tuple[str, ...]:
    """Python's language reference (part) plus the ten-language samples: English prose
    and code, and enough other scripts that some characters are covered and many not."""
    import pydoc_data.topics as topics

    text = "\n".join(list(topics.topics.values())[:40])
    langs = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "corpora/languages").glob("*.txt")))
    return tuple((text + "\n" + langs).splitlines())


#: name -> sentencepiece trainer flags. Every model is trained on the same lines.
TRAINED = {
    "bpe-identity-bytes": dict(model_type="bpe", vocab_size=1000, byte_fallback=True,
                               normalization_rule_name="identity", remove_extra_whitespaces=False),
    "bpe-nfkc": dict(model_type="bpe", vocab_size=800),
    "bpe-nodummy-bytes": dict(model_type="bpe", vocab_size=600, byte_fallback=True, add_dummy_prefix=False,
                              normalization_rule_name="identity"),
    "bpe-user-symbols": dict(model_type="bpe", vocab_size=700, user_defined_symbols=["<tab>", "def ", "::"],
                             control_symbols=["<sep>"], normalization_rule_name="nmt_nfkc_cf",
                             remove_extra_whitespaces=False),
    "bpe-suffix": dict(model_type="bpe", vocab_size=600, treat_whitespace_as_suffix=True,
                       normalization_rule_name="identity", remove_extra_whitespaces=False, byte_fallback=True),
    "bpe-ws-pieces": dict(model_type="bpe", vocab_size=900, allow_whitespace_only_pieces=True, split_digits=True,
                          normalization_rule_name="identity", remove_extra_whitespaces=False,
                          byte_fallback=True, character_coverage=1.0),
    "unigram-nfkc": dict(model_type="unigram", vocab_size=800),
    "unigram-identity-bytes": dict(model_type="unigram", vocab_size=1000, byte_fallback=True,
                                   normalization_rule_name="identity", remove_extra_whitespaces=False),
    "unigram-nodummy": dict(model_type="unigram", vocab_size=600, add_dummy_prefix=False,
                            normalization_rule_name="nfkc"),
    "unigram-user-symbols": dict(model_type="unigram", vocab_size=700, user_defined_symbols=["<tab>", "def ", "::"],
                                 byte_fallback=True, normalization_rule_name="identity"),
}
#: models whose decode(encode(x)) == x for every text without U+2581 (with
#: treat_whitespace_as_suffix the dummy space comes back at the end, so bpe-suffix is not here)
LOSSLESS = ("mistral", "bpe-identity-bytes", "bpe-ws-pieces", "unigram-identity-bytes")


@lru_cache(maxsize=None)
def model_bytes(name: str) -> bytes:
    if name == "mistral":
        return shipped_model_path("mistral-7b-v1").read_bytes()
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(training_lines()), model_writer=out, minloglevel=2, num_threads=1,
        **TRAINED[name],
    )
    return out.getvalue()


@lru_cache(maxsize=None)
def pair(name: str) -> tuple[SentencePieceTokenizer, spm.SentencePieceProcessor]:
    """(ours, theirs) for one model."""
    data = model_bytes(name)
    ours = shipped_tokenizer("mistral-7b-v1") if name == "mistral" else SentencePieceTokenizer.from_bytes(data, name=name)
    return ours, spm.SentencePieceProcessor(model_proto=data)


ALL = ("mistral", *TRAINED)

# ---- texts --------------------------------------------------------------------------------

EDGE_TEXTS = [
    "", " ", "  ", "\n", "\t", " \n ", "a", " a", "a ", "  a  b  ", "a\n\nb", "\r\n", "\u3000x\u3000",
    "Hello, world!", "def f(x):\n    return x  # comment\n", "    indented\n\tand tabbed",
    "naïve café", "日本語のテキスト", "Привет, мир", "مرحبا بالعالم", "👩‍👩‍👧 🇫🇷 ❤️", "\U0001f600" * 3,
    "<s> </s> <unk> <sep> <0x0A>", "▁ already ▁▁ escaped", "x" * 300, "ab " * 200,
    "def  ::<tab> def def", "１２３ ＡＢＣ ｶﾀｶﾅ", "\u200b\u200d\ufeff", "\x00\x01\x7f",
]


def texts() -> list[str]:
    return EDGE_TEXTS + stress_strings()


# ---- parity ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_ids_equal_sentencepiece(name):
    ours, theirs = pair(name)
    for text in texts():
        assert ours.encode(text) == theirs.encode(text), (name, text)


@pytest.mark.parametrize("name", ALL)
def test_normalization_equals_sentencepiece(name):
    ours, theirs = pair(name)
    for text in texts():
        normalized, offsets = ours.normalizer.normalize(text)
        assert normalized == theirs.normalize(text), (name, text)
        assert ours.normalizer.normalize_text(text) == normalized, (name, text)
        assert len(offsets) == len(normalized) + 1
        assert offsets == sorted(offsets) and all(0 <= o <= len(text) for o in offsets)


@pytest.mark.parametrize("name", ALL)
def test_decode_equals_sentencepiece(name):
    ours, theirs = pair(name)
    for text in texts()[:800]:
        ids = theirs.encode(text)
        assert ours.decode(ids) == theirs.decode(ids), (name, text)
    # arbitrary id sequences too: stray byte pieces, control and unknown pieces, leading ▁
    rng = random.Random(7)
    for _ in range(300):
        ids = [rng.randrange(ours.vocab_size) for _ in range(rng.randrange(8))]
        assert ours.decode(ids) == theirs.decode(ids), (name, ids)


@pytest.mark.parametrize("name", ALL)
def test_model_contents_equal_sentencepiece(name):
    ours, theirs = pair(name)
    assert ours.vocab_size == theirs.get_piece_size()
    for i in range(ours.vocab_size):
        assert ours.id_to_piece(i) == theirs.id_to_piece(i)
        assert ours.scores[i] == theirs.get_score(i)
        assert (ours.types[i] == "control") == theirs.is_control(i)
        assert (ours.types[i] == "unknown") == theirs.is_unknown(i)
        assert (ours.types[i] == "byte") == theirs.is_byte(i)
        assert (ours.types[i] == "unused") == theirs.is_unused(i)
    assert ours.unk_id == theirs.unk_id()
    spec = ours.model.trainer_spec
    assert (spec.bos_id, spec.eos_id, spec.pad_id) == (theirs.bos_id(), theirs.eos_id(), theirs.pad_id())
    if name != "mistral":
        flags = TRAINED[name]
        assert ours.model_type == flags["model_type"]
        assert ours.byte_fallback == flags.get("byte_fallback", False)
        norm = ours.model.normalizer_spec
        assert norm.name == flags.get("normalization_rule_name", "nmt_nfkc")
        assert norm.add_dummy_prefix == flags.get("add_dummy_prefix", True)
        assert norm.remove_extra_whitespaces == flags.get("remove_extra_whitespaces", True)
        assert (norm.precompiled_charsmap == b"") == (norm.name == "identity")


HYPOTHESIS_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(list(" \t\n\r\u3000\u00a0▁abcdefXYZ012.,:;'\"()<>#_-é中日ыع\U0001f600\u0301")),
        st.characters(blacklist_categories=("Cs",)),
    ),
    max_size=60,
)


@pytest.mark.parametrize("name", ALL)
@settings(max_examples=150, deadline=None)
@given(text=HYPOTHESIS_TEXT)
def test_ids_equal_sentencepiece_on_random_text(name, text):
    ours, theirs = pair(name)
    assert ours.encode(text) == theirs.encode(text)


@pytest.mark.parametrize("name", ALL)
@settings(max_examples=150, deadline=None)
@given(text=HYPOTHESIS_TEXT)
def test_fast_normalization_equals_sentencepiece_on_random_text(name, text):
    ours, theirs = pair(name)
    assert ours.normalizer.normalize_text(text) == theirs.normalize(text)


@pytest.mark.parametrize("user_defined", [(), ("▁", "▁▁", "▁▁▁▁"), ("▁▁▁", "the")])
def test_unigram_by_stretches_equals_one_lattice_over_a_long_text(user_defined):
    """A Unigram model encodes a text stretch by stretch: a cached path where float32 sums
    cannot change it, a float32 result kept per binade of the path score elsewhere. On a
    long text of whitespace runs (where pieces tie in exact arithmetic and float32
    decides) the path score passes through several binades and re-basings; the pieces
    are still those of one float32 Viterbi over the whole text, and the ids
    sentencepiece's."""
    from bpe_core.algorithms.unigram import viterbi_from

    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(training_lines()), model_writer=out, minloglevel=2, num_threads=1,
        model_type="unigram", vocab_size=800, user_defined_symbols=list(user_defined), remove_extra_whitespaces=False,
    )
    ours = SentencePieceTokenizer.from_bytes(out.getvalue())
    theirs = spm.SentencePieceProcessor(model_proto=out.getvalue())
    rng = random.Random(11)
    words = " ".join(training_lines()).split()
    text = "".join(" " * rng.randrange(13) + rng.choice(words) + rng.choice(["", " ", "  ", "\n"])
                   for _ in range(25_000))
    lattice = ours._lattice
    normalized = ours.normalizer.normalize_text(text)
    spans, end = viterbi_from(normalized, lattice.table, lattice.unk_score, float32=True)
    assert lattice.pieces(normalized) == [normalized[a:b] for a, b, _ in spans]
    assert ours.encode(text) == theirs.encode(text)
    assert lattice._stretch is not None and lattice._cache  # the stretches were taken
    assert not user_defined or lattice._binade_cache  # and near-ties were worked out per binade


UNIGRAM = tuple(name for name in TRAINED if name.startswith("unigram"))


@pytest.mark.parametrize("name", UNIGRAM)
def test_unigram_ids_stretch_by_stretch_equal_sentencepiece_on_random_texts(name):
    """A Unigram model's ids come from each stretch's cached entry (its ids worked out
    once, candidates found from the longest piece that can start at a position), or from
    the float32 Viterbi over the stretch's candidates: on random texts of words, runs of
    whitespace, user-defined symbols and characters no piece covers, one long text (the
    path score passes binades and re-basings) and many short ones, the ids are
    sentencepiece's, and each stretch's float32 Viterbi is `viterbi_from`'s."""
    from bpe_core.algorithms.unigram import viterbi_from

    ours, theirs = pair(name)
    lattice = ours._lattice
    assert lattice is not None and lattice.to_ids is not None
    rng = random.Random(29)
    words = " ".join(training_lines()).split()
    odd = ["<tab>", "def ", "::", "\u0a6e", "\U0001f600", "\u2581", "ꙮꙮ", "x\u0301", "12345", "\u3000"]
    gaps = ["", " ", "  ", "   ", "\t", "\n", " \n\n ", "\u00a0"]

    def text(count: int) -> str:
        return "".join(rng.choice(gaps) + (rng.choice(odd) if rng.random() < 0.15 else rng.choice(words))
                       for _ in range(count))

    long = text(30_000)
    assert ours.encode(long) == theirs.encode(long)
    for _ in range(300):
        short = text(rng.randrange(1, 12))
        assert ours.encode(short) == theirs.encode(short), short
    normalized = ours.normalizer.normalize_text(long)
    for stretch in rng.sample(sorted(set(lattice._stretch.findall(normalized))), 200):
        for base in map(_f32, (0.0, -3.5, -40_000.123, -99_990.7, -250_000.3, 17.9)):
            spans, end = viterbi_from(stretch, lattice.table, lattice.unk_score, float32=True, base=base)
            assert lattice._viterbi32(stretch, base) == (tuple(stretch[a:b] for a, b, _ in spans), end)
        spans, _ = viterbi_from(stretch, lattice.table, lattice.unk_score)
        assert lattice._cache[stretch][2] == tuple(stretch[a:b] for a, b, _ in spans)


@pytest.mark.parametrize("name", LOSSLESS)
@settings(max_examples=150, deadline=None)
@given(text=HYPOTHESIS_TEXT.filter(lambda s: "\u2581" not in s))
def test_decode_encode_is_lossless(name, text):
    ours, _ = pair(name)
    assert ours.decode(ours.encode(text)) == text
    assert ours.decode_bytes(ours.encode(text)) == text.encode("utf-8")


def test_lossless_models_round_trip_the_stress_strings():
    for name in LOSSLESS:
        ours, _ = pair(name)
        for text in texts():
            if "\u2581" not in text:
                assert ours.decode(ours.encode(text)) == text, (name, text)


def test_a_literal_space_symbol_decodes_as_a_space():
    """SentencePiece writes spaces as U+2581, so the character itself cannot come back:
    the one text no flag makes lossless (and the library agrees)."""
    ours, theirs = pair("mistral")
    assert ours.decode(ours.encode("a\u2581b")) == theirs.decode(theirs.encode("a\u2581b")) == "a b"


def test_a_lossy_model_really_loses_whitespace():
    """The default flags (nmt_nfkc, extra whitespace removed) do not round-trip:
    that is why LOSSLESS names the models that do."""
    ours, theirs = pair("bpe-nfkc")
    assert ours.decode(ours.encode("  a   b ")) == theirs.decode(theirs.encode("  a   b ")) == "a b"


# ---- token spans ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_token_spans_match_ids_and_text(name):
    ours, theirs = pair(name)
    for text in texts()[:1500]:
        spans = ours.token_spans(text)
        assert [s.id for s in spans] == ours.encode(text)
        assert all(isinstance(s, SentencePieceSpan) for s in spans)
        assert all(0 <= s.start <= s.end <= len(text) for s in spans)
        assert [s.start for s in spans] == sorted(s.start for s in spans)
        assert [s.piece for s in spans] == sorted(s.piece for s in spans)
        for s in spans:
            assert s.byte_fallback == (ours.types[s.id] == "byte")
            assert s.unknown == (s.id == ours.unk_id)
            if not s.byte_fallback and not s.unknown:
                assert s.label == ours.id_to_piece(s.id)


@pytest.mark.parametrize("name", ALL)
def test_token_offsets_equal_sentencepiece(name):
    """SentencePiece's own offsets (in UTF-8 bytes) are ours (in characters), except for
    byte-fallback pieces: it gives the character to the last of its bytes, we give it
    to each (so every byte token can be coloured)."""
    ours, theirs = pair(name)
    for text in texts()[:1500]:
        data = text.encode("utf-8")
        chars = lambda b: len(data[:b].decode("utf-8"))  # noqa: E731
        proto = theirs.encode(text, return_type="proto")
        theirs_spans = [(p.id, chars(p.begin), chars(p.end)) for p in proto.pieces]
        ours_spans = [(s.id, s.start, s.end) for s in ours.token_spans(text)]
        assert len(ours_spans) == len(theirs_spans)
        for a, b in zip(ours_spans, theirs_spans):
            if ours.types[a[0]] == "byte":
                assert a[1] <= b[1] <= b[2] <= a[2]
            else:
                assert a == b, (name, text)


def test_byte_fallback_spans_cover_their_character():
    tok = shipped_tokenizer("mistral-7b-v1")
    text = "a\n\U0001f9ec"  # a newline and a character Mistral has no piece for
    spans = tok.token_spans(text)
    fallback = [s for s in spans if s.byte_fallback]
    assert [s.label for s in fallback] == ["<0x0A>", "<0xF0>", "<0x9F>", "<0xA7>", "<0xAC>"]
    assert [(s.start, s.end) for s in fallback] == [(1, 2)] + [(2, 3)] * 4
    assert b"".join(s.token_bytes for s in fallback) == "\n\U0001f9ec".encode("utf-8")


# ---- the shipped model --------------------------------------------------------------------


def test_mistral_file_is_the_pinned_one():
    path = shipped_model_path("mistral-7b-v1")
    assert path.name == "tokenizer.model.v1" and path.parent.parent.name == "mistral_common"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == SHIPPED_MODELS["mistral-7b-v1"].sha256
    tok = shipped_tokenizer("mistral-7b-v1")
    assert (tok.vocab_size, tok.model_type, tok.byte_fallback, tok.normalization) == (32000, "bpe", True, "identity")


def test_hash_mismatch_is_a_value_error():
    data = bytearray(model_bytes("mistral"))
    data[-1] ^= 1
    with pytest.raises(ValueError, match="SHA-256"):
        SentencePieceTokenizer.from_bytes(bytes(data), sha256=SHIPPED_MODELS["mistral-7b-v1"].sha256)


def test_unknown_shipped_name():
    with pytest.raises(ValueError, match="mistral-7b-v1"):
        shipped_tokenizer("llama")


# ---- command line ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["mistral", "bpe-user-symbols", "unigram-nfkc"])
def test_cli_encode_model_file(name, tmp_path, capsys):
    text = "Hello  world\n\tdef f(x):  return x ::  日本語 👩‍👩‍👧\n"
    (tmp_path / "in.txt").write_text(text, encoding="utf-8")
    model = tmp_path / "m.model"
    model.write_bytes(model_bytes(name))
    assert main(["encode", "--tokenizer", str(model), "--file", str(tmp_path / "in.txt"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == spm.SentencePieceProcessor(model_file=str(model)).encode(text)
    # detected by content too, whatever the file is called
    plain = tmp_path / "tokenizer"
    plain.write_bytes(model_bytes(name))
    assert main(["encode", "--tokenizer", str(plain), "--file", str(tmp_path / "in.txt"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == pair(name)[1].encode(text)


def test_cli_shipped_name(capsys):
    assert main(["encode", "--tokenizer", "mistral-7b-v1", "--text", "Hello world", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == pair("mistral")[1].encode("Hello world")


def test_cli_bad_model_is_one_error_line(tmp_path, capsys):
    bad = tmp_path / "broken.model"
    bad.write_bytes(model_bytes("mistral")[:1000])
    assert main(["encode", "--tokenizer", str(bad), "--text", "hi"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: broken.model is not a valid SentencePiece model") and err.count("\n") == 1


def test_content_sniffing():
    assert looks_like_sentencepiece(model_bytes("mistral")[:16])
    assert looks_like_sentencepiece(model_bytes("unigram-nfkc")[:16])
    for other in (b"", b"{}", b'\n\n{"a": 1}', b"\x89PNG\r\n", b"low 5\n"):
        assert not looks_like_sentencepiece(other)


# ---- malformed files ------------------------------------------------------------------------


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _field(number: int, wire: int, payload: bytes | int) -> bytes:
    key = _varint(number << 3 | wire)
    if wire == 0:
        return key + _varint(payload)
    if wire == 2:
        return key + _varint(len(payload)) + payload
    return key + payload


def _piece(text: str, score: float = 0.0, kind: int = 1) -> bytes:
    body = _field(1, 2, text.encode()) + _field(2, 5, struct.pack("<f", score)) + _field(3, 0, kind)
    return _field(1, 2, body)


def _model(*pieces: bytes, trainer: bytes = _field(3, 0, 2), normalizer: bytes = _field(1, 2, b"identity")) -> bytes:
    return b"".join(pieces) + _field(2, 2, trainer) + _field(3, 2, normalizer)


GOOD_PIECES = (_piece("<unk>", 0, 2), _piece("<s>", 0, 3), _piece("\u2581", -1), _piece("a", -2), _piece("\u2581a", -0.5))


def test_handmade_model_works():
    tok = SentencePieceTokenizer.from_bytes(_model(*GOOD_PIECES))
    theirs = spm.SentencePieceProcessor(model_proto=_model(*GOOD_PIECES))
    for text in ["a", "aa a", " a b", "b"]:
        assert tok.encode(text) == theirs.encode(text)


MALFORMED = {
    "empty file": b"",
    "JSON": b'{"model": {"type": "BPE"}}',
    "text": "low 5\nlower 2\n".encode(),
    "PNG header": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "random bytes": random.Random(1).randbytes(4000),
    "varint longer than 10 bytes": b"\x08" + b"\xff" * 12,
    "length past the end": b"\x0a\x7f\x0a\x03abc",
    "field number 0": b"\x02\x00" + _model(*GOOD_PIECES),
    "group wire type": _model(*GOOD_PIECES) + b"\x0b",
    "piece text as varint": _model(*GOOD_PIECES, _field(1, 2, _field(1, 0, 5))),
    "score as varint": _model(*GOOD_PIECES, _field(1, 2, _field(1, 2, b"b") + _field(2, 0, 1))),
    "trainer_spec as varint": _model(*GOOD_PIECES) + _field(2, 0, 3),
    "model_type as bytes": _model(*GOOD_PIECES, trainer=_field(3, 2, b"\x02")),
    "piece not UTF-8": _model(*GOOD_PIECES, _field(1, 2, _field(1, 2, b"\xff\xfe"))),
    "unknown piece type": _model(*GOOD_PIECES, _piece("b", 0, 9)),
    "unknown model type": _model(*GOOD_PIECES, trainer=_field(3, 0, 7)),
    "int32 out of range": _model(*GOOD_PIECES, trainer=_field(40, 0, 1 << 40)),
    "no unknown piece": _model(*GOOD_PIECES[1:]),
    "two unknown pieces": _model(*GOOD_PIECES, _piece("<unk2>", 0, 2)),
    "duplicate piece": _model(*GOOD_PIECES, _piece("a", -3)),
    "empty piece": _model(*GOOD_PIECES, _piece("", -3)),
    "byte piece without byte_fallback": _model(*GOOD_PIECES, _piece("<0x41>", 0, 6)),
    "byte_fallback without the bytes": _model(*GOOD_PIECES, trainer=_field(3, 0, 2) + _field(35, 0, 1)),
    "no trainer_spec": b"".join(GOOD_PIECES),
    "no pieces": _field(2, 2, _field(3, 0, 2)) + _field(3, 2, b""),
}


def _nested(depth: int) -> bytes:
    data = b"\x08\x01"
    for _ in range(depth):
        data = _field(1, 2, data)
    return data


MALFORMED["deeply nested"] = _nested(5000)
MALFORMED["deeply nested, then a valid tail"] = _nested(300) + _model(*GOOD_PIECES)

#: Files the sentencepiece library loads anyway and we refuse. Its protobuf reader takes a
#: known field with the wrong wire type, or an enum value it does not know, as an unknown
#: field (so the value silently becomes the default: score 0, type NORMAL, model UNIGRAM),
#: cuts an int32 to 32 bits, does not check UTF-8 in proto2 strings, and loads a model
#: with no trainer_spec as a Unigram model. None of these is a file SentencePiece writes,
#: and each would make us answer with a default instead of what the file meant.
STRICTER_THAN_SENTENCEPIECE = {
    "empty file",  # sentencepiece takes model_proto=b"" as "no model given"
    "score as varint", "trainer_spec as varint", "model_type as bytes", "piece not UTF-8",
    "unknown piece type", "unknown model type", "int32 out of range", "no trainer_spec",
    "deeply nested, then a valid tail",
}


def _general_reader(data: bytes):
    """read_model with the fast reader of leading pieces turned off."""
    from bpe_core.spm import proto

    fast = proto._leading_pieces
    proto._leading_pieces = lambda data: ([], 0)
    try:
        return read_model(data)
    finally:
        proto._leading_pieces = fast


ODD_PIECES = (
    _field(1, 2, _field(3, 0, 1) + _field(1, 2, b"b") + _field(2, 5, struct.pack("<f", -3.0))),  # type first
    _field(1, 2, _field(1, 2, b"c")),  # text only: score 0, normal
    _field(1, 2, _field(1, 2, b"d") + _field(2, 5, struct.pack("<f", -4.0)) + _field(9, 0, 1)),  # an unknown field
    _piece("e" * 200, -5.0),  # text and message over 127 bytes
    _piece("f", -6.0, 5),  # unused
)


@pytest.mark.parametrize("name", ALL)
def test_fast_piece_reader_equals_the_general_reader(name):
    """Pieces laid out as SentencePiece writes them are read in one loop; any other
    layout from that piece on by the general reader: the model read is the same."""
    data = model_bytes(name)
    assert read_model(data) == _general_reader(data)
    from bpe_core.spm.proto import _leading_pieces

    assert _leading_pieces(data)[0] == list(read_model(data).pieces)  # every piece by the fast loop


@pytest.mark.parametrize("at", range(len(ODD_PIECES) + 1))
def test_odd_piece_layouts_read_as_the_general_reader_reads_them(at):
    pieces = (*GOOD_PIECES, *ODD_PIECES[:at], _piece("g", -7.0), *ODD_PIECES[at:])
    data = _model(*pieces)
    ours = read_model(data)
    assert ours == _general_reader(data)
    theirs = spm.SentencePieceProcessor(model_proto=data)
    assert [p.piece for p in ours.pieces] == [theirs.id_to_piece(i) for i in range(theirs.get_piece_size())]
    assert [p.score for p in ours.pieces] == [theirs.get_score(i) for i in range(theirs.get_piece_size())]


@pytest.mark.parametrize("what", MALFORMED)
def test_malformed_model_is_one_value_error(what):
    with pytest.raises(ValueError, match="is not a valid SentencePiece model") as info:
        read_model(MALFORMED[what], name="upload.model")
    assert "\n" not in str(info.value)
    if what in STRICTER_THAN_SENTENCEPIECE:
        spm.SentencePieceProcessor(model_proto=MALFORMED[what])  # loads: see the set's comment
    else:
        with pytest.raises(RuntimeError):  # the library refuses it too
            spm.SentencePieceProcessor(model_proto=MALFORMED[what])


def test_word_and_char_models_are_refused_by_name():
    for model_type, label in ((3, "WORD"), (4, "CHAR")):
        data = _model(*GOOD_PIECES, trainer=_field(3, 0, model_type))
        with pytest.raises(ValueError, match=label):
            SentencePieceTokenizer.from_bytes(data)


@pytest.mark.parametrize("name", ["mistral", "unigram-nfkc"])
def test_every_truncation_is_a_value_error(name):
    data = model_bytes(name)
    # SentencePiece writes the normalizer last, so any shorter prefix lacks part of it.
    assert [number for number, _, _ in iter_fields(data)][-1] == 3
    end_of_required = len(data)
    rng = random.Random(3)
    cuts = sorted({rng.randrange(end_of_required) for _ in range(40 if name == "mistral" else 150)} | {0, 1, 2, 3, 100, end_of_required - 1})
    for cut in cuts:
        with pytest.raises(ValueError, match="is not a valid SentencePiece model"):
            read_model(data[:cut])


def test_type_errors():
    with pytest.raises(TypeError):
        read_model("not bytes")
    tok = pair("bpe-nfkc")[0]
    with pytest.raises(TypeError):
        tok.encode(b"bytes")
    with pytest.raises(TypeError):
        tok.decode(["1"])
    with pytest.raises(ValueError, match="not in the"):
        tok.decode([tok.vocab_size])
    with pytest.raises(ValueError, match="surrogate"):
        tok.encode("a\ud800b")


def test_cli_as_scripted_checks_run_it(tmp_path):
    """`python -m bpe_core encode --tokenizer X.model --file F --json` in a subprocess."""
    import os
    import subprocess
    import sys

    text = "Tokenizers split   text.\n\tEven 日本語 and 🦜.\n"
    (tmp_path / "f.txt").write_text(text, encoding="utf-8")
    model = tmp_path / "tokenizer.model"
    model.write_bytes(model_bytes("mistral"))
    proc = subprocess.run(
        [sys.executable, "-m", "bpe_core", "encode", "--tokenizer", str(model), "--file", str(tmp_path / "f.txt"), "--json"],
        cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert json.loads(proc.stdout) == spm.SentencePieceProcessor(model_file=str(model)).encode(text)


# ---- the replay of a BPE model (the Tokenize page's Replay view) -----------------------------
BPE_BY_WORD = [n for n in ALL if n.startswith(("mistral", "bpe")) and pair(n)[0].work is not None]


def test_most_bpe_models_replay_word_by_word():
    """A BPE model replays when no piece joins a character to a following space (then the
    page's words are the model's); Mistral 7B and most trained models qualify."""
    assert "mistral" in BPE_BY_WORD and len(BPE_BY_WORD) >= 4
    assert all(pair(n)[0].work.algorithm == "BPE" for n in BPE_BY_WORD)


@pytest.mark.parametrize("name", BPE_BY_WORD)
def test_bpe_replay_ends_on_sentencepieces_own_pieces(name):
    """For every word of varied texts the replay's last symbols are the pieces
    sentencepiece itself gives the text there, each step joins exactly the two symbols it
    names, at the position it names, into a piece that is in the model."""
    ours, theirs = pair(name)
    checked = 0
    for text in texts()[:60]:
        pieces = theirs.encode(text, out_type=str)
        words = [w for w in ours.model_words(text) if not w.added]
        got: list[str] = []
        for w in words:
            r = ours.replay(w.text)
            prev = list(r.base)
            for s in r.steps:
                assert (prev[s.position], prev[s.position + 1]) == (s.left, s.right)
                joined = ours.pieces[s.left] + ours.pieces[s.right]
                assert ours.pieces[s.token_id] == joined and s.rank == s.token_id
                assert list(s.symbols) == prev[: s.position] + [s.token_id] + prev[s.position + 2:]
                prev = list(s.symbols)
            got.extend(ours.pieces[i] if i != ours.unk_id else None for i in r.ids)
            checked += len(r.steps)
        # where every piece is known (no byte fallback, no unknown), the replays spell the text's pieces
        if all(p in ours._ids for p in pieces) and None not in got:
            assert got == pieces, text
    assert checked > 50


def test_a_unigram_model_has_no_replay():
    ours, _ = pair("unigram-nfkc")
    assert ours.work.algorithm == "Unigram"
    with pytest.raises(ValueError, match="Unigram model: it has no merges"):
        ours.replay("▁hello")
