"""WordPiece: training by likelihood score, and greedy longest-match-first encoding.

Training follows the Hugging Face course (chapter 6, "WordPiece tokenization"):

  1. split every word into its first character and `##`-prefixed continuations
     ("hugs" -> h ##u ##g ##s); the vocabulary starts as the special tokens plus these
     symbols, sorted;
  2. score every adjacent pair (a, b) as count(ab) / (count(a) x count(b)), where the
     counts are occurrences in the current segmentation, weighted by word count;
  3. merge the best-scoring pair everywhere (left to right in each word); the new token
     drops the second part's `##` (h + ##u -> hu, ##g + ##s -> ##gs);
  4. repeat until N merges, a target vocabulary size, or no pair is left.

A pair of rare parts beats a pair of frequent ones: (##g, ##s) with count 5 scores
5 / (20 x 5) = 1/20, above (##u, ##g) with count 20 and score 20 / (36 x 20) = 1/36.
Scores are compared exactly (as fractions), so a tie is a real tie; it is broken by a
named rule from `TIE_RULES`, read as `BPETrainer` reads it (its key kind and direction,
`bpe_core.tie_rules`): `first-seen` (the default, as the course's loop over its pair
dictionary: the pair whose first occurrence comes first, reading the words in order of
first appearance, each left to right), `lexicographic` (the largest pair as a tuple of
strings) or `smallest-id`. A rule whose key kind WordPiece cannot order is refused.

Encoding (`WordPieceTokenizer`) is BERT's, and Hugging Face's `models.WordPiece`: greedy
longest match first over the vocabulary, a word with no match becoming `[UNK]`.

One module per role, as the reference libraries separate them:

- `settings.py`: `WordPieceSettings` (what to train, when to stop, which tie rule) and
  BERT's special tokens;
- `events.py`: `WordPieceEvent`, one merge with its score table (`ScoreRow`);
- `words.py`: text to words (bpe_core's pre-tokenizers plus `bert`, Hugging Face's
  `BertPreTokenizer`: whitespace, then every punctuation character a piece of its own)
  and word tables;
- `trainer.py`: `WordPieceTrainer`, the incremental trainer (and what a merge costs);
- `run.py`: `WordPieceRun` (a tokenizer and segmentations at any step) and
  `train_wordpiece`;
- `tokenizer.py`: `WordPieceTokenizer`, encoding, decoding, saving;
- `trace.py`: `WordTrace`, every lookup the longest-match loop makes on one word.

What this package leaves out: normalization (BERT's lowercasing, accent stripping,
spacing around CJK characters, control-character removal are Hugging Face's
`BertNormalizer`, not done here); special-token templates ([CLS] ... [SEP]); and
Hugging Face's `WordPieceTrainer`, which is not this algorithm: it trains BPE (merges by
raw pair count) and only writes the result with `##` prefixes.
"""
from __future__ import annotations

from .events import ScoreRow, WordPieceEvent
from .run import WordPieceRun, train_wordpiece
from .settings import BERT_SPECIAL_TOKENS, TIE_KEY_KINDS, WordPieceSettings
from .tokenizer import FORMAT, WordPieceTokenizer
from .trace import MatchAttempt, WordTrace
from .trainer import MAX_TIES_KEPT, WordPieceTrainer, initial_split, merged_token
from .words import WORDPIECE_PRETOKENIZERS, wordpiece_pieces, wordpiece_word_table

__all__ = [
    "BERT_SPECIAL_TOKENS",
    "WORDPIECE_PRETOKENIZERS",
    "WordPieceSettings",
    "TIE_KEY_KINDS",
    "ScoreRow",
    "WordPieceEvent",
    "WordPieceTrainer",
    "MAX_TIES_KEPT",
    "WordPieceRun",
    "train_wordpiece",
    "initial_split",
    "merged_token",
    "wordpiece_pieces",
    "wordpiece_word_table",
    "MatchAttempt",
    "WordTrace",
    "WordPieceTokenizer",
    "FORMAT",
]
