"""How an imported tokenizer's model worked on one word, checked against the model itself.

A tokenizer.json read here carries `work` (bpe_core.formats.pipeline.ModelWork): the
merge-by-merge replay of a BPE model, the longest-match trace of a WordPiece model, the
lattice of a Unigram model. Each must end exactly where the model (and so Hugging Face
tokenizers, which test_formats_import/models check it against) ends: the replay's last
symbols, the trace's tokens and the lattice's best path are the word's ids, for every
word of varied texts. `model_words` numbers words as `token_spans` numbers pieces.
"""
from __future__ import annotations

import json

import pytest
from tokenizers import Tokenizer as HFTokenizer, decoders as D, models, normalizers as N, pre_tokenizers as P, trainers

from bpe_core.formats import load_hf_json
from stress_strings import families, stress_strings

CORPUS = " ".join(stress_strings()[::5]) + " hugging hugs huggingface lower lowest newest widest " * 20
TEXTS = stress_strings()[::9] + list(families()["languages"])[::4] + ["hugging huggingface HUGS", "naïve café"]


def _trained(model, trainer, *, norm=None, pre=None, decoder=None) -> HFTokenizer:
    tok = HFTokenizer(model)
    if norm is not None:
        tok.normalizer = norm
    if pre is not None:
        tok.pre_tokenizer = pre
    if decoder is not None:
        tok.decoder = decoder
    tok.train_from_iterator([CORPUS], trainer)
    return tok


CASES = {
    "bpe-bytelevel": lambda: _trained(models.BPE(), trainers.BpeTrainer(vocab_size=600, show_progress=False,
                                      initial_alphabet=P.ByteLevel.alphabet()),
                                      pre=P.ByteLevel(add_prefix_space=False), decoder=D.ByteLevel()),
    "bpe-suffix-nfkc": lambda: _trained(models.BPE(unk_token="[UNK]", end_of_word_suffix="</w>"),
                                        trainers.BpeTrainer(vocab_size=500, show_progress=False, special_tokens=["[UNK]"],
                                                            end_of_word_suffix="</w>"),
                                        norm=N.NFKC(), pre=P.Whitespace()),
    "wordpiece-bert": lambda: _trained(models.WordPiece(unk_token="[UNK]"),
                                       trainers.WordPieceTrainer(vocab_size=500, show_progress=False,
                                                                 special_tokens=["[UNK]"]),
                                       norm=N.BertNormalizer(), pre=P.BertPreTokenizer()),
    "unigram-metaspace": lambda: _trained(models.Unigram(), trainers.UnigramTrainer(
        vocab_size=4000, show_progress=False, special_tokens=["<unk>"], unk_token="<unk>"), pre=P.Metaspace()),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request):
    hf = CASES[request.param]()
    return request.param, hf, load_hf_json(hf.to_str())


def test_each_word_explained_ends_as_the_model_encodes_it(case):
    name, hf, ours = case
    work = ours.work
    assert work is not None and work.algorithm == {"bpe": "BPE", "wordpiece": "WordPiece", "unigram": "Unigram"}[
        name.split("-")[0]]
    checked = 0
    for text in TEXTS:
        words = ours.model_words(text)
        spans = ours.token_spans(text)
        for index, word in enumerate(words):
            ids = [s.id for s in spans if s.piece == index]
            if word.added:
                continue
            if work.replay is not None:
                replay = work.replay(word.text)
                assert list(replay.ids) == ids, (text, word)
                ranks = [s.rank for s in replay.steps]
                assert all(isinstance(r, int) and r >= 0 for r in ranks)
            elif work.trace is not None:
                assert list(work.trace(word.text).ids) == ids, (text, word)
            else:
                lattice = work.lattice(word.text)
                best = [lattice.nodes[k] for k in lattice.best_path]
                assert "".join(n.piece for n in best) == word.text
                known = [n.id for n in best if n.known]
                assert known == [i for i in ids if i != hf.token_to_id("<unk>")] or not all(n.known for n in best)
                if all(n.known for n in best):
                    assert [n.id for n in best] == ids, (text, word)
            checked += 1
    assert checked > 100


def test_model_words_cover_the_text_as_the_library_offsets_say(case):
    """Each word's range in the text holds the library's offsets of its tokens."""
    _, hf, ours = case
    for text in TEXTS:
        words = ours.model_words(text)
        for s in ours.token_spans(text):
            word = words[s.piece]
            assert word.start <= s.start and s.end <= word.end, (text, s, word)


def test_bpe_replay_shows_each_merge_lowest_rank_first():
    hf = CASES["bpe-bytelevel"]()
    ours = load_hf_json(hf.to_str())
    replay = ours.work.replay("Ġhugging")
    assert replay.steps, "a trained word is built by merges"
    merges = hf.to_str()
    assert '"merges"' in merges
    # every step merges its left and right into the token the file's merges list names
    listed = json.loads(merges)["model"]["merges"]
    for step in replay.steps:
        pair = listed[step.rank]
        pair = pair if isinstance(pair, list) else pair.split(" ")
        assert [ours.token_text(step.left), ours.token_text(step.right)] == pair
    assert ours.token_label(replay.ids[0]).startswith(" ")  # byte-level tokens drawn as their bytes


def test_ignore_merges_replay_is_the_whole_word():
    hf = CASES["bpe-bytelevel"]()
    data = json.loads(hf.to_str())
    data["model"]["ignore_merges"] = True
    ours = load_hf_json(data)
    word = next(w for w in ("Ġhugging", "Ġhugs", "Ġthe") if w in data["model"]["vocab"])
    replay = ours.work.replay(word)
    assert replay.steps == () and replay.ids == (data["model"]["vocab"][word],)
    assert "ignore_merges" in ours.work.note


@pytest.mark.parametrize("name", ["unigram-nfkc", "unigram-identity-bytes", "unigram-user-symbols"])
def test_sentencepiece_unigram_word_lattices_give_its_segmentation(name):
    """The best paths of a .model's word lattices, joined, are the pieces it encodes to
    (ours, which test_sentencepiece checks against the sentencepiece library)."""
    from bpe_core.spm import SentencePieceTokenizer
    from test_sentencepiece import model_bytes, texts

    tok = SentencePieceTokenizer.from_bytes(model_bytes(name), name=name)
    assert tok.work is not None and tok.work.algorithm == "Unigram"
    for text in texts()[::7]:
        words = tok.model_words(text)
        normalized = tok.normalizer.normalize(text)[0]
        assert "".join(w.text for w in words) == normalized, text
        best = [p for w in words for p in tok.work.lattice(w.text).best_pieces]
        assert best == tok._segment(normalized), (name, text)
        for w in words:
            assert 0 <= w.start <= w.end <= len(text)


def test_sentencepiece_bpe_replays_and_has_no_lattice():
    from bpe_core.pretrained import load_pretrained

    mistral = load_pretrained("mistral-7b-v1")
    assert mistral.work.algorithm == "BPE" and mistral.work.lattice is None
    replay = mistral.replay("▁tokenization")
    assert [mistral.pieces[i] for i in replay.ids] == mistral.encode_pieces("tokenization")
    with pytest.raises(ValueError, match="no lattice"):
        mistral.lattice("▁hello")
