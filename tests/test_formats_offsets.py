"""Offsets of a tokenizer.json whose normalizer changes lengths, against Hugging Face tokenizers.

The page colours the original text by each token's offsets, so they must be the library's
`Encoding.offsets` exactly, also where a normalizer composes (NFC: "e" + U+0301 is one
character), decomposes (NFD, NFKD: "é" is two; "ﬁ" is "fi"), reorders combining marks,
replaces (a match by longer, shorter or no text), prepends, strips or lower-cases. The
model here gives every character its own token (a BPE with no merges and an unknown
token), so each character's range is checked; a trained WordPiece checks whole tokens.
"""
from __future__ import annotations

import pytest
from tokenizers import Regex, Tokenizer as HFTokenizer, models, normalizers as N, pre_tokenizers as P, trainers

from bpe_core.formats import load_hf_json
from stress_strings import families, stress_strings

#: Strings whose normalization changes their length or order, beside the stress strings.
COMBINING = [
    "e\u0301 a\u0323\u0302 x\u0327\u0301\u0323 \u00e9\u0324 \u1ec7",      # compose, reorder
    "\u1112\u1161\u11ab \ud55c\uae00 \u1100\u1161",                          # Hangul jamo and syllables
    "\ufb01x \ufb03 \u2460 \u00bd \u33cf \uff76\uff9e \u2126 \u212b \u01c5",  # compatibility forms
    "\u0301leading mark, \u0344 \u0f73 \u0958", "İstanbul ΣΑΣ ß ǰ", "Ç̌a va? naïve café",
]
TEXTS = stress_strings()[::3] + list(families()["languages"]) + COMBINING

NORMALIZERS = {
    "NFC": N.NFC(),
    "NFD": N.NFD(),
    "NFKC": N.NFKC(),
    "NFKD": N.NFKD(),
    "NFD+StripAccents+Lowercase": N.Sequence([N.NFD(), N.StripAccents(), N.Lowercase()]),
    "NFKC+Lowercase+Replace+Prepend": N.Sequence([N.NFKC(), N.Lowercase(), N.Replace(" ", "▁"), N.Prepend("▁")]),
    "Replace two by one": N.Replace("ab", "X"),
    "Replace one by three": N.Replace("a", "xyz"),
    "Replace whitespace runs": N.Replace(Regex(r"\s+"), " "),
    "Replace vowels by nothing": N.Replace(Regex(r"[aeiou]"), ""),
    "Prepend": N.Prepend("▁"),
    "Strip": N.Strip(),
    "BertNormalizer": N.BertNormalizer(),
}


def _per_character(norm) -> HFTokenizer:
    tok = HFTokenizer(models.BPE(vocab={"[UNK]": 0}, merges=[], unk_token="[UNK]"))
    tok.normalizer = norm
    return tok


@pytest.mark.parametrize("name", sorted(NORMALIZERS))
def test_each_character_covers_what_the_library_says(name):
    theirs = _per_character(NORMALIZERS[name])
    ours = load_hf_json(theirs.to_str())
    for text in TEXTS:
        expected = theirs.encode(text, add_special_tokens=False).offsets
        assert [(s.start, s.end) for s in ours.token_spans(text)] == expected, (name, text)


def test_wordpiece_tokens_after_nfd_cover_what_the_library_says():
    tok = HFTokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = N.Sequence([N.NFC(), N.NFD(), N.StripAccents(), N.Lowercase()])
    tok.pre_tokenizer = P.Whitespace()
    tok.train_from_iterator([" ".join(TEXTS[::2])], trainers.WordPieceTrainer(
        vocab_size=2000, show_progress=False, special_tokens=["[UNK]"]))
    ours = load_hf_json(tok.to_str())
    for text in TEXTS:
        assert [(s.start, s.end) for s in ours.token_spans(text)] == tok.encode(text, add_special_tokens=False).offsets
