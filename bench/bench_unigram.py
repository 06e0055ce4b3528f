"""Unigram quality and training time: bpe_core vs sentencepiece and Hugging Face tokenizers.

    python bench/bench_unigram.py            # from the repository root (about a minute)

Text: English docstrings of the standard library, read with `ast` from the .py files
of this Python's stdlib in sorted order (nothing is imported), each paragraph joined
into one line. The first 120 kB of lines train, the next 60 kB are held out.

All three trainers get the same lines, one sentence per line, a vocabulary of 1,500
pieces counting <unk>, no normalisation (`identity`: spaces become `▁`, a `▁` in front,
nothing collapsed) and every character kept:

- sentencepiece: `SentencePieceTrainer.train(model_type="unigram",
  normalization_rule_name="identity", remove_extra_whitespaces=False,
  character_coverage=1.0, bos_id=-1, eos_id=-1, num_threads=1)`, so <unk> is its only
  extra piece, as in ours;
- ours: `words_from_text` on each line, counts summed, then `train_unigram`;
- HF: `tokenizers` Unigram with `UnigramTrainer(vocab_size=1500, special_tokens=["<unk>"])`,
  a `Metaspace` pre-tokenizer (prepend "always") and no normaliser, one thread.

Quality is the number of tokens each model needs for the held-out lines (each line
encoded alone). Times are the best of 3 runs, timed round-robin.
"""
from __future__ import annotations

import os

os.environ["RAYON_NUM_THREADS"] = "1"  # must precede the import of tokenizers
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import ast  # noqa: E402
import io  # noqa: E402
import sys  # noqa: E402
import sysconfig  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import header, interleaved, table  # noqa: E402

from bpe_core.algorithms.unigram import UnigramSettings, train_unigram, words_from_text  # noqa: E402

VOCAB = 1500
TRAIN_BYTES = 120_000
HELD_BYTES = 60_000
REPEAT = 3
TARGET = 1.05  # ours / sentencepiece, held-out tokens


def docstring_lines() -> list[str]:
    """Every docstring paragraph of the stdlib's top-level .py files, one per line."""
    lines: list[str] = []
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node, clean=True)
                for para in (doc or "").split("\n\n"):
                    line = " ".join(part.strip() for part in para.splitlines() if part.strip())
                    if line:
                        lines.append(line)
    return lines


def split(lines: list[str]) -> tuple[list[str], list[str]]:
    train, held, size = [], [], 0
    for line in lines:
        n = len(line.encode("utf-8")) + 1
        if size < TRAIN_BYTES:
            train.append(line)
        elif size < TRAIN_BYTES + HELD_BYTES:
            held.append(line)
        else:
            break
        size += n
    return train, held


def train_sentencepiece(lines: list[str]):
    import sentencepiece as spm

    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=buf, vocab_size=VOCAB, model_type="unigram",
        normalization_rule_name="identity", remove_extra_whitespaces=False, character_coverage=1.0,
        bos_id=-1, eos_id=-1, num_threads=1, minloglevel=2,
    )
    return spm.SentencePieceProcessor(model_proto=buf.getvalue())


def train_ours(lines: list[str]):
    words: Counter = Counter()
    for line in lines:
        words.update(words_from_text(line))
    return train_unigram(dict(words), UnigramSettings(vocab_size=VOCAB)).model()


def train_hf(lines: list[str]):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    trainer = trainers.UnigramTrainer(vocab_size=VOCAB, special_tokens=["<unk>"], unk_token="<unk>",
                                      show_progress=False)
    tok.train_from_iterator(lines, trainer=trainer)
    return tok


def main() -> None:
    header("Unigram: held-out tokens and training time (ours vs sentencepiece vs HF)")
    train, held = split(docstring_lines())
    print(f"Training: {len(train):,} lines, {sum(len(x.encode()) + 1 for x in train):,} bytes; "
          f"held out: {len(held):,} lines, {sum(len(x.encode()) + 1 for x in held):,} bytes; "
          f"vocabulary {VOCAB:,} (with <unk>).\n")
    timings = interleaved({
        "sentencepiece": lambda: train_sentencepiece(train),
        "ours": lambda: train_ours(train),
        "HF tokenizers": lambda: train_hf(train),
    }, repeat=REPEAT)
    sp, ours, hf = (timings[k].result for k in ("sentencepiece", "ours", "HF tokenizers"))
    counts = {
        "sentencepiece": (sum(len(sp.encode(x)) for x in held), sp.get_piece_size()),
        "ours": (sum(len(ours.encode(x)) for x in held), ours.vocab_size),
        "HF tokenizers": (sum(len(hf.encode(x).ids) for x in held), hf.get_vocab_size()),
    }
    base_tokens = counts["sentencepiece"][0]
    base_time = timings["sentencepiece"].best
    rows = [
        [name, vocab, tokens, f"{tokens / base_tokens:.3f}x", timings[name].best, timings[name].cpu,
         f"{timings[name].best / base_time:.1f}x"]
        for name, (tokens, vocab) in counts.items()
    ]
    print(table(["trainer", "vocab", "held-out tokens", "vs sentencepiece", "train s (best)", "CPU s",
                 "time vs sentencepiece"], rows))
    ratio = counts["ours"][0] / base_tokens
    hf_ratio = counts["HF tokenizers"][0] / base_tokens
    print()
    print(f"ours / sentencepiece held-out tokens = {ratio:.3f} (target <= {TARGET}): "
          f"{'MET' if ratio <= TARGET else 'NOT MET'}")
    print(f"ours / HF held-out tokens = {counts['ours'][0] / counts['HF tokenizers'][0]:.3f} "
          f"(HF / sentencepiece = {hf_ratio:.3f}): {'MET' if ratio < hf_ratio else 'NOT MET'} (ahead of HF)")


if __name__ == "__main__":
    main()
