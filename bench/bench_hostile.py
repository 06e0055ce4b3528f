"""What one visitor can cost the server: the worst tokenizer upload and the worst pattern at
the page's limits, next to legitimate ones (docs/limits.md quotes the figures).

Uploads. Each file is read in a fresh Python process the way the Tokenize page reads an
upload (`ui.tokenize.upload.read_upload`: the page's 40 MB limit, zips unpacked to it at
most), and the process reports its peak RSS above what it held before the read (imports
done, the file's bytes already in memory, as an upload's are; the peak is reset through
/proc/self/clear_refs, so Linux only), what it still holds after (the tokenizer a session
keeps) and the CPU time. The files:

- legitimate: a byte-level BPE tokenizer.json written by Hugging Face `tokenizers` at
  about 38 MB (a 475,000-token vocabulary and its merges, tests/synthetic_tokenizers.py),
  once with merges as "a b" strings (as tokenizers 0.23 writes them) and once as
  ["a", "b"] pairs (the densest layout real files use);
- hostile, each about 40 MB (as close to the limit as the unit allows): the densest
  lists the structure check lets through filled with the costliest values (`["Ā","Ā"],"Ā",`:
  a list per 16 bytes), one-character strings of a non-Latin-1 letter (each a 76-byte Python object
  for 5 bytes of file), floats, and what the check refuses (`{},`, `[],` plainly and
  zipped: the red-team's 122 kB zip that unpacked to 126 MB);

Patterns. The worst pattern found, `(?:a|a)+b|\\S` (time doubling with each `a`), typed
for a .tiktoken file and as a tokenizer.json Split regex after WhitespaceSplit (one call
per word, one budget for the text), on a run of `a`s and on the Tokenize page's largest
text (2 MB); a compile bomb; and GPT-4's own pattern on the same 2 MB for comparison.
Times are CPU seconds of this process (the `regex` module's limit counts them too).

    python bench/bench_hostile.py            # everything (about 2 minutes)
    python bench/bench_hostile.py --quick    # files of 4 MB instead of 40
"""
from __future__ import annotations

import argparse
import base64
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

# ---- one read in a fresh process ---------------------------------------------------------------
_CHILD = r"""
import gc, json, sys, time
sys.path.insert(0, sys.argv[1])
from ui.tokenize.upload import read_upload


def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1e3  # kB -> MB


name, path = sys.argv[2], sys.argv[3]
data = open(path, "rb").read()
gc.collect()
with open("/proc/self/clear_refs", "w") as handle:
    handle.write("5")  # reset the peak (VmHWM) to the current RSS
before = status("VmRSS")
start = time.process_time()
try:
    tok = read_upload([(name, data)], None)
    outcome = f"loaded ({tok.vocab_size:,} tokens)"
except (ValueError, TypeError) as exc:
    tok, outcome = None, "refused: " + str(exc)[:90]
seconds = time.process_time() - start
peak = status("VmHWM")
gc.collect()
print(json.dumps({"before_mb": before, "peak_mb": peak, "held_mb": status("VmRSS") - before, "seconds": seconds,
                  "outcome": outcome}))
"""


def read_in_child(name: str, data: bytes) -> dict:
    with tempfile.NamedTemporaryFile(suffix=Path(name).suffix, delete=False) as handle:
        handle.write(data)
    try:
        proc = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT), name, handle.name],
                              capture_output=True, text=True, cwd=ROOT, timeout=900)
    finally:
        os.unlink(handle.name)
    if proc.returncode:
        return {"before_mb": 0, "peak_mb": 0, "held_mb": 0, "seconds": 0, "outcome": "crashed: " + proc.stderr[-200:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---- the files ----------------------------------------------------------------------------------
def legit_files(target: int) -> dict[str, bytes]:
    from synthetic_tokenizers import synthetic_bpe_json

    vocab = int(475_000 * target / 38_000_000)
    strings = synthetic_bpe_json(vocab_size=vocab)
    doc = json.loads(strings)
    doc["model"]["merges"] = [m.split(" ") for m in doc["model"]["merges"]]
    pairs = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode()
    return {"legitimate, merges as strings": strings, "legitimate, merges as pairs": pairs}


def _filled(unit: bytes, size: int) -> bytes:
    head, tail = b'{"model": {"type": "BPE", "vocab": {}, "merges": [', b"0]}}"
    return head + unit * ((size - len(head) - len(tail)) // len(unit)) + tail


def hostile_files(size: int) -> dict[str, bytes]:
    letter = "Ā".encode()                      # U+0100: not cached by CPython, 76 bytes as a str
    return {
        "hostile: pairs of one-letter strings, one list per 16 bytes":
            _filled(b'["' + letter + b'","' + letter + b'"],"' + letter + b'",', size),
        "hostile: strings of one letter": _filled(b'"' + letter + b'",', size),
        "hostile: floats": _filled(b"1e1,", size),
        "hostile: {}, (refused)": _filled(b"{},", size),
        "hostile: [], (refused)": _filled(b"[],", size),
    }


def zip_bomb() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("tokenizer.json", _filled(b"{},", 126_000_000))
    return buffer.getvalue()


# ---- patterns -----------------------------------------------------------------------------------
EVIL = r"(?:a|a)+b|\S"


def _cpu(fn) -> tuple[float, str]:
    start = time.process_time()
    try:
        fn()
        outcome = "finished"
    except ValueError as exc:
        outcome = "stopped: " + str(exc).split(".")[0][:70]
    return time.process_time() - start, outcome


def pattern_rows(text_bytes: int) -> list[tuple[str, float, str]]:
    from bpe_core.formats import load_tokenizer_bytes
    from bpe_core.pretrained import load_pretrained

    ranks = b"\n".join(base64.b64encode(bytes([i])) + b" " + str(i).encode() for i in range(256))
    typed = load_tokenizer_bytes("r.tiktoken", ranks, pattern=EVIL)
    split = load_tokenizer_bytes("tokenizer.json", json.dumps({"model": {
        "type": "BPE", "vocab": {"a": 0, "b": 1, " ": 2}, "merges": []}, "pre_tokenizer": {
        "type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, {
            "type": "Split", "pattern": {"Regex": EVIL}, "behavior": "Isolated", "invert": False}]}}).encode())
    english = (ROOT / "corpora" / "english_sample.txt").read_text(encoding="utf-8")
    big = (english * (text_bytes // len(english.encode()) + 1))[:text_bytes]
    words = " ".join(["a" * 22] * max(text_bytes // 23, 1))[:text_bytes]
    cl100k = load_pretrained("cl100k_base")
    rows = [
        (".tiktoken typed pattern, 40 a's", *_cpu(lambda: typed.encode("a" * 40))),
        (f".tiktoken typed pattern, {text_bytes / 1e6:.0f} MB of English", *_cpu(lambda: typed.encode(big))),
        (f"Split after WhitespaceSplit, {text_bytes / 1e6:.0f} MB of 22-a words", *_cpu(lambda: split.encode(words))),
        ("compile bomb ((a{1000}){1000}){10}",
         *_cpu(lambda: load_tokenizer_bytes("r.tiktoken", ranks, pattern=r"((a{1000}){1000}){10}"))),
        (f"cl100k_base (built in), {text_bytes / 1e6:.0f} MB of English", *_cpu(lambda: cl100k.encode(big))),
    ]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="4 MB files instead of 40 MB")
    args = parser.parse_args()
    from ui.tokenize.upload import LIMIT_BYTES

    size = LIMIT_BYTES // 10 if args.quick else LIMIT_BYTES
    legit_target = size * 38 // 40
    files = {**legit_files(legit_target), **hostile_files(size)}
    files_named = [(label, "tokenizer.json", data) for label, data in files.items()]
    files_named.append(("hostile: zip of 126 MB of {}, (refused)", "tok.zip", zip_bomb()))
    print(f"Uploads (the Tokenize page's limit: {LIMIT_BYTES / 1e6:.0f} MB), one fresh process each:\n")
    print("| file | MB | peak RSS above start, MB | × file | held after, MB | CPU s | outcome |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for label, name, data in files_named:
        r = read_in_child(name, data)
        grown = r["peak_mb"] - r["before_mb"]
        print(f"| {label} | {len(data) / 1e6:.1f} | {grown:,.0f} | {grown * 1e6 / len(data):.1f} | "
              f"{r['held_mb']:,.0f} | {r['seconds']:.1f} | {r['outcome'].replace('|', '/')} |", flush=True)
    text_bytes = 200_000 if args.quick else 2_000_000
    print("\nPatterns (CPU seconds; the limit is one budget of matching per text):\n")
    print("| pattern and text | CPU s | outcome |")
    print("|---|---:|---|")
    for label, seconds, outcome in pattern_rows(text_bytes):
        print(f"| {label} | {seconds:.2f} | {outcome.replace('|', '/')} |", flush=True)


if __name__ == "__main__":
    main()
