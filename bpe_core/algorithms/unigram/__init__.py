"""The Unigram language model tokenizer (Kudo 2018), SentencePiece style.

Encoding: the text is normalised the SentencePiece way (every space becomes `▁`, U+2581,
and one `▁` goes in front: the dummy prefix; nothing else is changed and there is no
pre-tokenizer), then the segmentation with the highest total score (the sum of the pieces'
log-probabilities) is found by Viterbi over the lattice of every piece that matches at
every position. `lattice()` exposes that lattice (each candidate, its score, its
posterior probability, the best path); `nbest()` lists the best few segmentations;
`sample()` draws segmentations with probability proportional to p(segmentation)^alpha
(subword regularisation, forward filtering and backward sampling, seeded).

Training (`train_unigram`): seed pieces from frequent substrings, EM re-estimation with
forward-backward expected counts and a digamma M-step, then pruning rounds that drop the
pieces whose removal costs the least likelihood, until the target size; one event per EM
iteration and per pruning round. `UnigramRun.model_at(k)` gives the model after event k.

Left out: other normalisation rules (NFKC, collapsing whitespace runs), byte fallback,
control and user-defined pieces, and the n-best sampling without replacement of
sentencepiece. A character the model does not have is scored `min score - 10` (as in
sentencepiece) and a run of them becomes one `<unk>` id, which decodes to " ⁇ ".
A `▁` typed in the text itself decodes as a space, as it does in sentencepiece.

One module per role, as the reference libraries separate them:

- `text.py`: the normalisation (`normalize`, `denormalize`, `SPACE`) and a corpus as
  training words (`words_from_text`, `words_from_word_counts`);
- `viterbi.py`: `PieceTable` and the best segmentation (`viterbi`, `viterbi_from`);
- `lattice.py`: every candidate piece with its posterior (`build_lattice`, `Lattice`),
  forward-backward, `Segmentation`;
- `model.py`: `UnigramModel`, the tokenizer (encode, decode, lattice, n-best, sampling,
  saving);
- `settings.py`: `UnigramSettings`;
- `events.py`: `UnigramEvent`, one step of training, and how the command line writes it;
- `trainer.py`: seeding, EM and pruning (`seed_pieces`, `digamma`);
- `run.py`: `UnigramRun` (the model after any event) and `train_unigram`.
"""
from __future__ import annotations

from .events import UnigramEvent, event_line, event_to_json
from .lattice import Lattice, LatticeNode, Segmentation, backward, build_lattice, forward, lattice_edges
from .model import FORMAT_VERSION, UNK_PENALTY, UNK_PIECE, UNK_SURFACE, UnigramModel
from .run import UnigramRun, train_unigram
from .settings import UnigramSettings
from .text import SPACE, denormalize, normalize, words_from_text, words_from_word_counts
from .trainer import _Trainer as _Trainer, _word_expectations_log as _word_expectations_log
from .trainer import digamma, seed_pieces
from .viterbi import PieceTable, merge_unknown, viterbi, viterbi_from

__all__ = [
    "SPACE", "UNK_PIECE", "UNK_PENALTY", "UNK_SURFACE", "FORMAT_VERSION",
    "normalize", "denormalize", "words_from_text", "words_from_word_counts",
    "PieceTable", "viterbi", "viterbi_from", "merge_unknown",
    "lattice_edges", "forward", "backward", "LatticeNode", "Lattice", "build_lattice", "Segmentation",
    "UnigramModel", "UnigramSettings", "UnigramEvent", "event_to_json", "event_line",
    "digamma", "seed_pieces", "UnigramRun", "train_unigram",
]
