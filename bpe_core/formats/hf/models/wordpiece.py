"""The library's WordPiece model, run by our `WordPieceTokenizer`."""
from __future__ import annotations

from ...checks import Field
from ...pipeline import ModelWork
from .shared import WordModel, token_ids, cached, id_to_token


def wordpiece_model(field: Field) -> tuple[WordModel, dict[int, str]]:
    """The library's WordPiece model, run by our `WordPieceTokenizer`: greedy longest
    match, continuations written with the prefix, and the unknown token for a word
    with an unmatched position or more than max_input_chars_per_word characters."""
    from ....algorithms.wordpiece import WordPieceTokenizer

    vocab = token_ids(field.key("vocab"))
    unk = field.key("unk_token", "[UNK]").as_str(nonempty=True)
    if unk not in vocab:
        raise field.key("unk_token", unk).fail(f"is {unk!r}, which is not in the vocabulary")
    prefix = field.key("continuing_subword_prefix", "##").as_str()
    if not prefix:
        raise field.key("continuing_subword_prefix", "").fail("is empty; this app's WordPiece needs a prefix such as '##'")
    longest = field.key("max_input_chars_per_word", 100).as_int(low=0)
    # An empty entry (HF's BertWordPieceTokenizer writes one where vocab.txt has a line of
    # U+2028, which Rust's trim_end takes away) is kept for its id, but the library's greedy
    # match never tries an empty piece, so the matcher leaves it out.
    matchable = {token: i for token, i in vocab.items() if token} if "" in vocab else vocab
    try:
        wordpiece = WordPieceTokenizer(matchable, unk_token=unk, prefix=prefix, max_input_chars_per_word=longest,
                                       special_tokens=(), name="tokenizer.json")
    except ValueError as exc:
        raise field.key("vocab").fail(f"cannot be used: {exc}") from None
    reverse = id_to_token(vocab)

    def encode_word(word: str) -> list[tuple[int, str, int, int]]:
        ids = wordpiece.encode_word(word)
        if len(ids) == 1:
            return [(ids[0], reverse[ids[0]], 0, len(word))]
        out, pos = [], 0
        for k, i in enumerate(ids):
            width = len(reverse[i]) - (len(prefix) if k else 0)
            out.append((i, reverse[i], pos, pos + width))
            pos += width
        return out

    return WordModel(cached(encode_word), ModelWork("WordPiece", trace=wordpiece.trace)), reverse
