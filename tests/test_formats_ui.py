"""Tokenizer files on the pages, under AppTest: the Train page's per-format downloads and
the Tokenize page's upload.

Downloads: every format the run can be written in has a button, the others say why
(the engine's reason); the bytes a button gives (`export_bytes` of the run at the page's
step) are read by the real libraries and encode as ours. Upload: a tokenizer.json built
here with Hugging Face tokenizers splits the page's text into the library's ids; GPT-2's
two files, a zip and a .tiktoken with its pattern work too; each bad file is one
st.error, the page keeps working, and another session never sees the upload.
"""
from __future__ import annotations

import html
import io
import json
import re
import zipfile

import pytest
import tiktoken
import tiktoken.load
from streamlit.testing.v1 import AppTest

from tests.train_settings import open_settings
from tokenizers import Tokenizer as HFTokenizer, decoders as D, models, normalizers as N, pre_tokenizers as P, trainers

from bpe_core import TrainerSettings, WordTable, train
from bpe_core.formats import EXPORT_FORMATS, export_bytes, export_problem, load_tokenizer_bytes
from bpe_core.formats.gpt2_files import gpt2_files
from ui.tokenize import upload as up

APP = "../app.py"
TRAIN, TOKENIZE = "views/train.py", "views/tokenize.py"
TEXT = "Hello, world! Tokenizers split unbelievable words. Ça va? 日本"


def open_page(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def errors(at: AppTest) -> str:
    return " ".join(e.value for e in at.error)


# ---- Train page downloads --------------------------------------------------------------------

def _download_labels(at: AppTest) -> list[str]:
    return [d.proto.label for d in at.get("download_button")]


def test_downloads_say_why_a_format_cannot_hold_the_run():
    at = open_page(TRAIN)
    at.session_state["train_w_share"] = True  # open "Download and share" (drawn only while open)
    at.slider(key="train_w_step").set_value(5).run()
    run, k = at.session_state["shared.run"], at.session_state["shared.step"]
    tok = run.tokenizer(k)
    labels, captions = _download_labels(at), " ".join(c.value for c in at.caption)
    for fmt in EXPORT_FORMATS:
        label = up_label(fmt)
        problem = export_problem(tok, fmt)
        if problem:
            assert label not in labels and "Not available" in captions
        else:
            assert label in labels
    assert any(export_problem(tok, fmt) for fmt in EXPORT_FORMATS)  # the toy run's marker is refused somewhere


def up_label(fmt: str) -> str:
    from ui.train.downloads import FORMAT_LABELS

    return FORMAT_LABELS[fmt][0]


def test_byte_level_run_downloads_load_in_the_real_libraries(tmp_path):
    at = open_settings(open_page(TRAIN))
    at.radio(key="train_w_source").set_value("text").run()
    at.selectbox(key="train_w_pretokenizer").set_value("gpt2").run()
    at.radio(key="train_w_units").set_value("byte").run()
    at.selectbox(key="train_w_end_of_word").set_value("none").run()
    at.text_area(key="train_w_text").set_value("the cat sat on the mat; the hat is flat. " * 20 + "naïve café 日本").run()
    run = at.session_state["shared.run"]
    at.session_state["train_w_share"] = True  # open "Download and share" (drawn only while open)
    at.slider(key="train_w_step").set_value(min(30, run.steps)).run()
    assert not at.exception and not at.error
    k = at.session_state["shared.step"]
    tok = run.tokenizer(k)
    labels = _download_labels(at)
    for fmt in ("hf", "tiktoken", "gpt2"):
        assert up_label(fmt) in labels, fmt
    assert "Not available" in " ".join(c.value for c in at.caption)  # subword-nmt: byte units
    text = "the flat cat, naïve 日本 hats"
    ours = tok.encode(text)
    _, hf = export_bytes(tok, "hf")
    assert HFTokenizer.from_str(hf.decode("utf-8")).encode(text, add_special_tokens=False).ids == ours
    _, ranks = export_bytes(tok, "tiktoken")
    (tmp_path / "r.tiktoken").write_bytes(ranks)
    enc = tiktoken.Encoding("t", pat_str=tok.pattern, mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(tmp_path / "r.tiktoken")),
                            special_tokens={})
    assert enc.encode(text) == ours
    _, zipped = export_bytes(tok, "gpt2")
    files = zipfile.ZipFile(io.BytesIO(zipped))
    (tmp_path / "vocab.json").write_bytes(files.read("vocab.json"))
    (tmp_path / "merges.txt").write_bytes(files.read("merges.txt"))
    bpe = HFTokenizer(models.BPE.from_file(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt")))
    bpe.pre_tokenizer = P.ByteLevel(add_prefix_space=False)
    assert bpe.encode(text, add_special_tokens=False).ids == ours


# ---- Tokenize page upload --------------------------------------------------------------------

def _wordpiece_json() -> bytes:
    tok = HFTokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer, tok.pre_tokenizer, tok.decoder = N.BertNormalizer(), P.BertPreTokenizer(), D.WordPiece()
    tok.train_from_iterator([TEXT * 3, "tokenizers split words into pieces"],
                            trainers.WordPieceTrainer(vocab_size=120, show_progress=False, special_tokens=["[UNK]"]))
    return tok.to_str().encode("utf-8")


def _open_uploader(at: AppTest) -> AppTest:
    """Open "Your own tokenizer file" (its contents are drawn only while it is open)."""
    if not at.get("file_uploader"):
        at.session_state["tokenize_w_upload_open"] = True
        at.run()
    return at


def _upload(at: AppTest, files: list[tuple[str, bytes]]) -> AppTest:
    uploader = _open_uploader(at).get("file_uploader")
    assert uploader, "no uploader on the page"
    for name, data in files:
        uploader[0].upload(name, data, "application/octet-stream")
    at.run()
    assert not at.exception, at.exception
    return at


def _set_text(at: AppTest, text: str) -> None:
    at.text_area(key=[t.key for t in at.text_area if "text" in t.key][0]).set_value(text).run()


def test_the_uploader_is_drawn_only_when_opened_or_when_your_file_is_chosen():
    """Folded, "Your own tokenizer file" draws nothing inside (its selectbox and file
    uploader would cost every first load their scripts); choosing "Your file" opens it
    once, and it can be folded again."""
    at = open_page(TOKENIZE)
    assert not at.get("file_uploader") and not at.selectbox
    assert any("Your own tokenizer file" in e.label for e in at.expander)
    at.segmented_control(key="tokenize_w_tokenizer").set_value(up.UPLOADED).run()
    assert at.get("file_uploader") and at.selectbox(key="tokenize_w_upload_pattern")
    at.session_state[up.OPEN] = False
    at.run()
    assert not at.exception and not at.get("file_uploader")
    at.segmented_control(key="tokenize_w_tokenizer").set_value("gpt2").run()
    at.segmented_control(key="tokenize_w_tokenizer").set_value(up.UPLOADED).run()
    assert at.get("file_uploader")


def test_uploaded_tokenizer_json_splits_text_like_the_library():
    data = _wordpiece_json()
    at = open_page(TOKENIZE)
    _upload(at, [("tokenizer.json", data)])
    assert not at.error, errors(at)
    assert at.session_state["tokenize.tokenizer"] == up.UPLOADED
    _set_text(at, TEXT)
    assert not at.exception and not at.error
    ids = HFTokenizer.from_str(data.decode()).encode(TEXT, add_special_tokens=False).ids
    assert at.session_state["tokenize.upload"]["tok"].encode(TEXT) == ids
    page = "\n".join(h.value for h in at.html)
    assert "unbelievable"[:4] in page and page.count("bpe-tok") >= len(ids)


@pytest.mark.parametrize("view", ["ids", "pieces", "replay", "compare", "decode"])
def test_every_view_works_with_an_upload(view):
    at = open_page(TOKENIZE)
    _upload(at, [("tokenizer.json", _wordpiece_json())])
    at.session_state["tokenize.view"] = view
    at.session_state["tokenize.ids"] = "1, 2, 3"
    at.session_state["tokenize.compare"] = ["gpt2", up.UPLOADED]
    at.run()
    assert not at.exception, at.exception
    assert not at.error, errors(at)


def test_gpt2_pair_zip_and_tiktoken_uploads():
    at = open_page(TOKENIZE)

    settings = TrainerSettings(merges=40, units="byte", end_of_word="none")
    trained = train(WordTable.from_text(TEXT * 5, pretokenizer="gpt2"), settings).tokenizer(40)
    files = gpt2_files(trained)
    _upload(at, sorted(files.items()))
    assert not at.error, errors(at)
    assert at.session_state["tokenize.upload"]["tok"].encode(TEXT) == trained.encode(TEXT)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    assert load_tokenizer_bytes("tok.zip", buffer.getvalue()).encode(TEXT) == trained.encode(TEXT)
    _, ranks = export_bytes(trained, "tiktoken")
    assert load_tokenizer_bytes("x.tiktoken", ranks, pattern="gpt2").encode(TEXT) == trained.encode(TEXT)


@pytest.mark.parametrize("name, data, words", [
    ("tokenizer.json", b'{"model": {"type": "BPE", "vocab": {', "not valid JSON"),
    ("tokenizer.json", json.dumps({"model": {"type": "WordLevel", "vocab": {"a": 0}}}).encode(), "WordLevel"),
    ("tokenizer.json", json.dumps({"model": {"type": "BPE", "vocab": {"a": "x"}, "merges": []}}).encode(), "not a whole number"),
    ("model.model", b"\x00\x01\x02 not a model", "SentencePiece"),
    ("weights.bin", bytes(range(256)) * 4, "not a tokenizer file"),
    ("x.tiktoken", b"YQ== zero\n", "base64token rank"),
    ("tok.zip", b"PK\x03\x04 broken", "not a zip"),
])
def test_bad_files_are_one_error_and_the_page_keeps_working(name, data, words):
    at = open_page(TOKENIZE)
    _upload(at, [(name, data)])
    assert words in errors(at) and len(at.error) == 1
    assert at.session_state["tokenize.tokenizer"] != up.UPLOADED
    assert at.session_state.get("tokenize.upload") is None
    _set_text(at, "still works")
    assert not at.exception


def _good_bpe_files() -> tuple[dict[str, bytes], object]:
    settings = TrainerSettings(merges=40, units="byte", end_of_word="none")
    trained = train(WordTable.from_text(TEXT * 5, pretokenizer="gpt2"), settings).tokenizer(40)
    return gpt2_files(trained), trained


def test_a_new_file_replaces_the_one_in_use_and_each_bad_file_has_its_own_error():
    """Three uploads one after the other: a good file, a broken one, another good one. The
    broken one gets an error naming it (and the first stays in use), the third replaces
    the first: the tokenizer is never "first + broken + third". The uploader is empty
    after each read, ready for the next file."""
    wordpiece = _wordpiece_json()
    files, trained = _good_bpe_files()
    saved = export_bytes(trained, "hf")[1]
    at = open_page(TOKENIZE)
    _upload(at, [("first.json", wordpiece)])
    assert not at.error and at.session_state["tokenize.upload"]["name"] == "first.json"
    assert not at.get("file_uploader")[0].value  # empty again: a new file replaces, it is not appended
    _upload(at, [("broken.json", b'{"model": ')])
    assert len(at.error) == 1 and "broken.json" in errors(at) and "not valid JSON" in errors(at)
    assert at.session_state["tokenize.upload"]["name"] == "first.json"
    _upload(at, [("third.json", saved)])
    assert not at.error, errors(at)
    entry = at.session_state["tokenize.upload"]
    assert entry["name"] == "third.json" and entry["tok"].encode(TEXT) == trained.encode(TEXT)
    assert at.session_state["tokenize.tokenizer"] == up.UPLOADED
    captions = " ".join(c.value for c in at.caption).replace("\u2060", "")  # md_escape's word joiner
    assert "In use: Your file: third.json" in captions and "Choose **Your file** above" not in captions


def test_several_files_at_once_each_report_their_own_error():
    files, trained = _good_bpe_files()
    at = open_page(TOKENIZE)
    _upload(at, [("a.json", b"[1, 2]"), ("b.model", b"\x00 not a model"), ("c.json", export_bytes(trained, "hf")[1])])
    messages = [e.value for e in at.error]
    assert len(messages) == 2 and "a.json" in messages[0] and "b.model" in messages[1]
    assert at.session_state["tokenize.upload"]["name"] == "c.json"


def test_gpt2_pair_one_file_after_the_other():
    """vocab.json alone waits for merges.txt (a note, not an error); merges.txt then
    completes the pair, read together."""
    files, trained = _good_bpe_files()
    at = open_page(TOKENIZE)
    _upload(at, [("vocab.json", files["vocab.json"])])
    assert not at.error and at.session_state.get("tokenize.upload") is None
    assert any("waiting for **merges.txt**" in i.value for i in at.info)
    _upload(at, [("merges.txt", files["merges.txt"])])
    assert not at.error, errors(at)
    assert at.session_state["tokenize.upload"]["tok"].encode(TEXT) == trained.encode(TEXT)
    assert not any("waiting for" in i.value for i in at.info)


def test_markup_in_a_bad_file_is_escaped():
    """The file's name reaches the message as text: its markdown is escaped."""
    at = open_page(TOKENIZE)
    _upload(at, [("**bold**.json", b"[1, 2]")])
    message = errors(at)
    assert "JSON but not a tokenizer" in message
    assert "\\*\\*bold\\*\\*" in message


def test_an_upload_stays_in_its_session():
    first = open_page(TOKENIZE)
    _upload(first, [("tokenizer.json", _wordpiece_json())])
    assert first.session_state["tokenize.upload"] is not None
    second = open_page(TOKENIZE)
    assert second.session_state.get("tokenize.upload") is None
    assert up.UPLOADED != second.session_state["tokenize.tokenizer"]


# ---- Replay view of an upload: BPE replay, WordPiece trace, Unigram lattice --------------------
# Each test fails on the code before ui/tokenize/explain.py: there the view said the file had
# "no merge list this page can replay" and drew nothing.

WORDS = "hugging hugs huggingface tokenizers split unbelievable words into pieces " * 20


def _hf(model, trainer, *, pre, decoder=None, norm=None) -> bytes:
    tok = HFTokenizer(model)
    tok.pre_tokenizer = pre
    if norm is not None:
        tok.normalizer = norm
    if decoder is not None:
        tok.decoder = decoder
    tok.train_from_iterator([WORDS], trainer)
    return tok.to_str().encode("utf-8")


def _replay_view(data: bytes, text: str, name: str = "tokenizer.json") -> AppTest:
    at = open_page(TOKENIZE)
    _upload(at, [(name, data)])
    assert not at.error, errors(at)
    at.session_state["tokenize.view"] = "replay"
    _set_text(at, text)
    assert not at.exception and not at.error, errors(at)
    assert "no merge list" not in " ".join(i.value for i in at.info)
    return at


def _page_html(at: AppTest) -> str:
    return "\n".join(h.value for h in at.html)


def _pick_token(at: AppTest, label_part: str) -> None:
    """Choose the last token of the text whose label holds `label_part`."""
    box = at.selectbox(key="tokenize_w_explain_token")
    box.set_value(max(k for k, label in enumerate(box.options) if label_part in label)).run()
    assert not at.exception, at.exception


def test_uploaded_bpe_json_replays_its_merges_one_by_one():
    data = _hf(models.BPE(), trainers.BpeTrainer(vocab_size=300, show_progress=False,
                                                initial_alphabet=P.ByteLevel.alphabet()),
               pre=P.ByteLevel(add_prefix_space=False), decoder=D.ByteLevel())
    at = _replay_view(data, "I like huggingface a lot")
    _pick_token(at, "hugging")
    tok = at.session_state["tokenize.upload"]["tok"]
    assert f"(tokenizer.json, BPE, {tok.vocab_size} tokens)" in " ".join(c.value for c in at.caption)
    replay = tok.work.replay("Ġhuggingface")
    n = len(replay.steps)
    assert n >= 5
    assert "This tokenizer's model is **BPE**" in " ".join(m.value for m in at.markdown)
    page = _page_html(at)
    assert "bpe-ladder" in page and "base symbols" in page and "merge 1 · rank" not in page
    at.button(key="tokenize_w_explain_next").click().run()
    page = _page_html(at)
    assert f"Merge 1 of {n}" in page and "merge 1 · rank" in page
    at.button(key="tokenize_w_explain_last").click().run()
    page = _page_html(at)
    assert f"Merge {n} of {n}" in page and f"merge {n} · rank" in page
    # the last row of the ladder holds the word's tokens, as the library cuts it
    hf = HFTokenizer.from_str(data.decode())
    assert [tok.token_text(i) for i in replay.ids] == hf.encode(" huggingface", add_special_tokens=False).tokens
    # a typed word goes through the pre-tokenizer first
    at.segmented_control(key="tokenize_w_explain_source").set_value("typed").run()
    at.text_input(key="tokenize_w_explain_typed").set_value("hugs and words").run()
    assert not at.exception and at.selectbox(key="tokenize_w_explain_typed_word").options[1] == "·and"


def test_uploaded_wordpiece_json_shows_the_longest_match_trace():
    data = _hf(models.WordPiece(unk_token="[UNK]"),
               trainers.WordPieceTrainer(vocab_size=120, show_progress=False, special_tokens=["[UNK]"]),
               pre=P.BertPreTokenizer(), norm=N.BertNormalizer(), decoder=D.WordPiece())
    at = _replay_view(data, "Tokenizers hugging")
    _pick_token(at, "token")
    assert "This tokenizer's model is **WordPiece**" in " ".join(m.value for m in at.markdown)
    trace = at.dataframe[-1].value
    assert list(trace.columns) == ["position", "tried", "in the vocabulary"]
    assert trace["tried"].iloc[0] == "tokenizers"  # lower-cased by the file's BertNormalizer
    tok = at.session_state["tokenize.upload"]["tok"]
    found = list(trace[trace["in the vocabulary"] == "yes"]["tried"])
    assert found == [tok.token_text(i) for i in tok.encode("tokenizers")]
    at.segmented_control(key="tokenize_w_explain_source").set_value("typed").run()
    at.text_input(key="tokenize_w_explain_typed").set_value("hugsq").run()
    assert r"becomes \[UNK\]" in " ".join(w.value for w in at.warning)  # markdown-escaped


def test_uploaded_unigram_json_shows_the_lattice_and_best_path():
    data = _hf(models.Unigram(), trainers.UnigramTrainer(vocab_size=60, show_progress=False,
                                                         special_tokens=["<unk>"], unk_token="<unk>"),
               pre=P.Metaspace(), decoder=D.Metaspace())
    at = _replay_view(data, "hugging tokenizers")
    _pick_token(at, "#")  # the last token: part of ▁tokenizers
    assert "This tokenizer's model is **Unigram**" in " ".join(m.value for m in at.markdown)
    page = _page_html(at)
    assert 'class="ulat"' in page and "ulb best" in page
    lattice = at.session_state["tokenize.upload"]["tok"].work.lattice("▁tokenizers")
    assert lattice.best_pieces == HFTokenizer.from_str(data.decode()).encode("tokenizers", add_special_tokens=False).tokens
    assert page.count("ulb best") == len(lattice.best_pieces)
    assert "".join(lattice.best_pieces) == "▁tokenizers"
    assert "of all segmentations of the word" in " ".join(c.value for c in at.caption)


def test_uploaded_sentencepiece_unigram_model_shows_the_lattice():
    import sentencepiece as spm

    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(WORDS.split(" ")), model_writer=out,
                                   model_type="unigram", vocab_size=30, minloglevel=2, num_threads=1)
    at = _replay_view(out.getvalue(), "huggingface pieces", name="tiny.model")
    _pick_token(at, "#")  # the last token: part of ▁pieces
    page = _page_html(at)
    assert 'class="ulat"' in page and "ulb best" in page
    theirs = spm.SentencePieceProcessor(model_proto=out.getvalue()).encode("pieces", out_type=str)
    lattice = at.session_state["tokenize.upload"]["tok"].work.lattice("▁pieces")
    assert lattice.best_pieces == theirs and page.count("ulb best") == len(theirs)



def test_uploaded_sentencepiece_bpe_model_replays_by_piece_score():
    """A SentencePiece BPE .model has no merge list; the Replay view steps through the
    merges it makes by piece score, and ends on the library's own pieces."""
    import sentencepiece as spm

    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(WORDS.split(" ")), model_writer=out,
                                   model_type="bpe", vocab_size=60, minloglevel=2, num_threads=1)
    at = _replay_view(out.getvalue(), "huggingface pieces", name="tiny-bpe.model")
    assert any("SentencePiece BPE" in m.value and "highest score" in m.value for m in at.markdown)
    _pick_token(at, "#")  # the last token: part of ▁pieces
    theirs = spm.SentencePieceProcessor(model_proto=out.getvalue()).encode("pieces", out_type=str)
    tok = at.session_state["tokenize.upload"]["tok"]
    replay = tok.replay("▁pieces")
    assert [tok.pieces[i] for i in replay.ids] == theirs and replay.steps
    # its kind is its own (a page once read a SentencePiece model's model_type as a tokenizer.json's)
    assert f"tiny-bpe.model (SentencePiece, {tok.vocab_size} tokens)" in " ".join(c.value for c in at.caption)
    at.button(key="tokenize_w_explain_last").click().run()
    page = _page_html(at)
    assert "bpe-ladder" in page and page.count('class="bpe-row') == len(replay.steps) + 1


# ---- large files: the 40 MB limit and progress ------------------------------------------------

def test_a_tokenizer_json_over_the_old_2_mb_limit_loads_with_progress():
    """A 2.2 MB byte-level BPE (40,000 tokens; Llama-3's shape, smaller) is read inside a
    status box that names it and its size, then says what it was and how long it took."""
    from synthetic_tokenizers import synthetic_bpe_json

    data = synthetic_bpe_json(vocab_size=40_000)
    assert len(data) > 2_000_000
    at = open_page(TOKENIZE)
    _upload(at, [("tokenizer.json", data)])
    assert not at.error, errors(at)
    label = at.get("status")[0].proto.label
    assert re.match(r"Read tokenizer\.json \(2\.\d MB\) in \d+\.\d s: tokenizer\.json, BPE, 40,000 tokens\.", label), label
    assert at.session_state["tokenize.tokenizer"] == up.UPLOADED
    _set_text(at, "the quick brown fox")
    ids = HFTokenizer.from_str(data.decode()).encode("the quick brown fox", add_special_tokens=False).ids
    assert at.session_state["tokenize.upload"]["tok"].encode("the quick brown fox") == ids
    at.run()  # the next run reads nothing again
    assert not at.get("status")


def test_a_file_over_the_limit_is_one_clear_error():
    at = open_page(TOKENIZE)
    _upload(at, [("tokenizer.json", b" " * (up.LIMIT_BYTES + 1))])
    assert "up to 40 MB (40,000,000 bytes)" in errors(at) and len(at.error) == 1
    assert at.get("status")[0].proto.label.startswith("tokenizer.json (40.0 MB) is not a tokenizer")
    assert at.session_state.get("tokenize.upload") is None


def test_a_hostile_file_name_is_escaped_in_the_status_box():
    at = open_page(TOKENIZE)
    _upload(at, [("**bold** [x](http://example.com).json", _wordpiece_json())])
    label = at.get("status")[0].proto.label
    assert label.startswith("Read ") and "\\*\\*bold\\*\\*" in label and "\\[x\\]" in label
    assert "http://" not in label  # md_escape breaks the scheme, so no live link


def test_uploaded_tokenizer_json_shows_its_pre_tokenizers_words():
    """The Pieces view of a tokenizer.json draws the words its normalizer and pre-tokenizer
    cut the text into: the same words as the library's own pre-tokenizer, each with its
    token count. (Before, the view only said the file had no pre-tokenization to show.)"""
    data = _wordpiece_json()
    text = "Hello, world! Tokenizers split unbelievable words."
    at = open_page(TOKENIZE)
    _upload(at, [("tokenizer.json", data)])
    at.session_state["tokenize.view"] = "pieces"
    _set_text(at, text)
    assert not at.exception and not at.error, errors(at)
    assert not any("no pre-tokenization" in i.value for i in at.info)
    hf = HFTokenizer.from_str(data.decode())
    words = hf.pre_tokenizer.pre_tokenize_str(hf.normalizer.normalize_str(text))
    assert any(f"**{len(words):,} words**" in m.value for m in at.markdown)
    page = _page_html(at)
    for (word, _), (start, end) in zip(words, [w[1] for w in words]):
        assert html.escape(text[start:end]) in page  # each word of the original text is drawn
