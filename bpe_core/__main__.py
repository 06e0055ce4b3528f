"""Command line: `python -m bpe_core train ...`, `encode ...`, `export ...` and `vocab ...`.

train prints a readable trace (one line per merge) or, with --json, a JSON list with one
object per merge. encode prints token ids (--tokens: the token strings, as JSON) with a
saved, OpenAI or imported tokenizer; export writes a saved tokenizer in another
library's format; vocab shows one token (--id), a search (--search) or an overview of a
vocabulary. Errors are one line on stderr, exit code 2.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from .algorithms import ALGORITHMS, algorithm
from .algorithms.command_line import read_text, write_json
from .display import WHITESPACE_MARKS, name_invisible, visible_whitespace
from .explore import MODES, SORTS
from .pretokenize import PRETOKENIZERS
from .pretrained import PRETRAINED, load_pretrained
from . import tie_rules
from .vocab import END_OF_WORD, UNITS

#: The default bound on the tokens' text (characters), which bounds a run's memory.
MAX_TOKEN_TEXT = 50_000_000


def _nonneg_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative; give 0 or more")
    return value


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bpe_core", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    titles = [a.title for a in ALGORITHMS.values()]
    t = sub.add_parser("train", help=f"train {', '.join(titles[:-1])} or {titles[-1]} and print each step")
    notes = "".join(f"; {name} {a.command_line.note}" for name, a in ALGORITHMS.items() if a.command_line.note)
    t.add_argument("--algorithm", choices=tuple(ALGORITHMS), default="bpe",
                   help=f"the training algorithm (default bpe){notes}")
    src = t.add_mutually_exclusive_group(required=True)
    src.add_argument("--text", metavar="FILE", help="a UTF-8 text file, split by --pretokenizer")
    src.add_argument("--words", metavar="FILE", help="a word-count list: 'low 5' per line")
    t.add_argument("--merges", type=_nonneg_int, default=None,
                   help="number of merges (default 10, or no limit when --vocab-size is given)")
    t.add_argument("--vocab-size", type=_nonneg_int, default=None, help="stop at this vocabulary size")
    t.add_argument("--units", choices=UNITS, default="char")
    t.add_argument("--end-of-word", choices=END_OF_WORD, default="none")
    t.add_argument("--marker", default="</w>", help="end-of-word marker text (default </w>)")
    t.add_argument("--pretokenizer", choices=(*PRETOKENIZERS, "bert"), default="whitespace",
                   help="bert (punctuation split off) is for --algorithm wordpiece only")
    t.add_argument("--tie-break", choices=tie_rules.TIE_RULES, default="first-seen")
    t.add_argument("--min-count", type=_nonneg_int, default=1)
    t.add_argument("--max-token-text", type=_nonneg_int, default=MAX_TOKEN_TEXT, metavar="N",
                   help="stop once the tokens' text adds up to N characters, which bounds memory "
                        f"(default {MAX_TOKEN_TEXT:,}: a few hundred MB at most; 0 for no limit)")
    t.add_argument("--json", action="store_true", help="print a JSON list of merges")
    t.add_argument("--save", metavar="PATH", help="save the tokenizer as JSON for `encode`")
    e = sub.add_parser("encode", help="encode text to token ids")
    e.add_argument("--tokenizer", required=True,
                   help=f"one of {', '.join(PRETRAINED)}, or a path: a saved tokenizer "
                   "(BPE, WordPiece or Unigram), tokenizer.json, a SentencePiece .model, .tiktoken, a folder "
                   "with vocab.json + merges.txt, a Tekken JSON, subword-nmt codes")
    src = e.add_mutually_exclusive_group(required=True)
    src.add_argument("--text", metavar="STR", help="the text itself")
    src.add_argument("--file", metavar="FILE", help="a UTF-8 text file")
    e.add_argument("--allow-special", action="store_true", help="encode <|endoftext|> etc. as special tokens")
    e.add_argument("--json", action="store_true", help="print a JSON list")
    e.add_argument("--tokens", action="store_true", help="print the token strings (a JSON list) instead of ids")
    e.add_argument("--pattern", metavar="NAME|REGEX",
                   help="pre-tokenizer for a .tiktoken file: gpt2, cl100k_base, o200k_base, ... or a regex")
    v = sub.add_parser("vocab", help="look inside a vocabulary: one token, a search, or an overview")
    v.add_argument("--tokenizer", required=True,
                   help=f"one of {', '.join(PRETRAINED)}, or a tokenizer file (as for encode)")
    what = v.add_mutually_exclusive_group()
    what.add_argument("--id", type=_nonneg_int, help="show one token: text, bytes, rank or score, merge tree")
    what.add_argument("--search", metavar="STR", help="list the tokens whose text contains STR (see --mode)")
    what.add_argument("--unreachable", action="store_true",
                      help="list the tokens that encoding their own text does not produce (slow on big vocabularies)")
    v.add_argument("--mode", choices=MODES, default="substring",
                   help="how --search matches: substring (default), prefix, suffix or pattern (a regex, time-limited)")
    v.add_argument("--sort", choices=SORTS, default="id", help="order of --search results (length: longest first)")
    v.add_argument("--limit", type=_nonneg_int, default=50, help="print at most this many tokens (default 50)")
    v.add_argument("--json", action="store_true", help="print JSON")
    v.add_argument("--pattern", metavar="NAME|REGEX", help="pre-tokenizer for a .tiktoken file (as for encode)")
    x = sub.add_parser("export", help="write a saved tokenizer in another library's format")
    x.add_argument("--tokenizer", required=True, metavar="SAVED", help="a file saved with `train --save`")
    x.add_argument("--format", required=True, choices=("hf", "tiktoken", "subword-nmt", "gpt2"))
    x.add_argument("--out", required=True, nargs="+", metavar="PATH",
                   help="the file to write; for gpt2 a folder, or two paths: vocab.json merges.txt")
    return p


def terminal_safe(line: str) -> str:
    """A line with every character that a terminal would act on shown as a mark instead:
    controls named (ESC as ⟨ESC⟩, BEL as ⟨U+0007⟩: a corpus could otherwise recolour or
    retitle the terminal), line breaks and tabs as ↵ ␍ →, spaces kept.

    >>> terminal_safe("a b\x1b]0;title\x07\r\n")
    'a b⟨ESC⟩]0;title⟨U+0007⟩␍↵'
    """
    if line.isprintable():
        return line
    return "".join(ch if ch == " " else WHITESPACE_MARKS.get(ch) or name_invisible(ch) for ch in line)


def _json_text(value: object, *, indent: int | None = 1) -> str:
    """JSON as the command line prints it: non-ASCII text as itself, but DEL and the C1
    controls (U+0080..U+009F, which some terminals obey as escape sequences) escaped, as
    JSON already escapes the C0 controls. They occur only inside strings: same JSON.

    >>> print(_json_text(["\\x9b31m", "é\\x1b"], indent=None))
    ["\\u009b31m", "é\\u001b"]
    """
    return _C1.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False, indent=indent))


_C1 = re.compile("[\x7f-\x9f]")


def cmd_train(args: argparse.Namespace) -> int:
    """Train with the registry entry's command-line hooks (`bpe_core.algorithms.command_line`)."""
    cli = algorithm(args.algorithm).command_line
    run, warnings = cli.train(args)
    for warning in warnings:
        print(terminal_safe(f"warning: {warning}"), file=sys.stderr)
    if args.save:  # before printing, so a bad path prints only the error
        write_json(args.save, cli.saved(run))
    if args.json:
        print(_json_text([cli.event_json(run, ev) for ev in run.events]))
    else:
        for line in cli.trace(run, args):  # a corpus's control characters shown, not obeyed
            print(terminal_safe(line))
    return 0


def cmd_encode(args: argparse.Namespace) -> int:
    from .formats import PipelineTokenizer, load_tokenizer, token_strings

    text = args.text if args.text is not None else read_text(args.file, corpus=False)  # encode sees the bytes as they are
    if args.tokenizer in PRETRAINED:
        tok = load_pretrained(args.tokenizer)
    else:
        tok = load_tokenizer(args.tokenizer, pattern=args.pattern)
        for note in getattr(tok, "notes", ()):
            print(terminal_safe(f"note: {note}"), file=sys.stderr)
        for warning in getattr(tok, "warnings", ()):  # what the file's own library accepts silently
            print(terminal_safe(f"warning: {warning}"), file=sys.stderr)
    # A tokenizer.json matches its added tokens, special ones too, as the library does.
    allowed = "all" if args.allow_special or isinstance(tok, PipelineTokenizer) else ()
    if args.tokens:
        print(_json_text(token_strings(tok, text, allowed_special=allowed), indent=None))
        return 0
    ids = tok.encode(text, allowed_special=allowed)
    print(json.dumps(ids) if args.json else " ".join(map(str, ids)))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from .formats import tokenizer_from_json, write_export

    tok = tokenizer_from_json(_read_bytes(args.tokenizer), name=args.tokenizer)
    for path in write_export(tok, args.format, args.out):
        print(path)
    return 0


def _read_bytes(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise ValueError(f"Cannot read {path!r}: {exc.strerror}. Check the path.") from None


def _tree_lines(tree, depth: int = 0) -> list[str]:
    rank = "" if tree.rank is None else f"  (rank {tree.rank})"
    ident = "" if tree.id is None else f"  id {tree.id}"
    lines = [f"{'  ' * depth}{tree.text}{ident}{rank}"]
    for part in tree.parts:
        lines += _tree_lines(part, depth + 1)
    return lines


def _tree_json(tree) -> dict:
    return {"id": tree.id, "text": tree.text, "rank": tree.rank, "parts": [_tree_json(p) for p in tree.parts]}


def cmd_vocab(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from .explore import Query, VocabIndex, overview, search, token_record, unreachable
    from .formats import load_tokenizer

    tok = load_pretrained(args.tokenizer) if args.tokenizer in PRETRAINED else load_tokenizer(
        args.tokenizer, pattern=args.pattern)
    index = VocabIndex.build(tok, name=args.tokenizer)
    if args.id is not None:
        rec = token_record(index, tok, args.id)
        if args.json:
            out = asdict(rec)
            out["tree"] = None if rec.tree is None else _tree_json(rec.tree)
            print(json.dumps(out, ensure_ascii=False, indent=1))
            return 0
        yes = {True: "yes", False: "no"}
        print(f"id {rec.id}: {rec.visible}  ({rec.kind})")
        print(f"written as: {visible_whitespace(rec.form)}")
        print(f"bytes: {rec.hex}  ({rec.n_bytes} bytes, {rec.n_chars} characters)")
        print(f"whole UTF-8: {yes[rec.utf8]}" + (f" ({rec.fragment_of})" if rec.fragment_of else ""))
        print(f"special: {yes[rec.special]}; script: {rec.script}")
        for label, value in (("rank", rec.rank), ("score", rec.score)):
            if value is not None:
                print(f"{label}: {value}")
        if rec.continues is not None:
            print(f"continues a word (##): {yes[rec.continues]}")
        if rec.tree is not None and rec.tree.parts:
            print("built from:")
            print("\n".join(_tree_lines(rec.tree, 1)))
        return 0
    if args.search is not None or args.unreachable:
        if args.unreachable:
            ids = unreachable(index, tok)
            total, shown = len(ids), ids[: args.limit]
        else:
            found = search(index, Query(text=args.search, mode=args.mode, sort=args.sort,
                                        descending=args.sort != "id"), per_page=max(args.limit, 1))
            total, shown = found.total, found.ids[: args.limit]
        rows = [(i, index.visible(index.row(i)), tok.token_text(i)) for i in shown]
        if args.json:
            print(json.dumps({"total": total, "tokens": [{"id": i, "text": t, "form": f} for i, t, f in rows]},
                             ensure_ascii=False, indent=1))
            return 0
        for i, text, _ in rows:
            print(f"{i}\t{text}")
        print(f"{total:,} token{'s' if total != 1 else ''}" + (f" (the first {len(rows)} shown; --limit for more)" if len(rows) < total else ""))
        return 0
    o = overview(index)
    if args.json:
        print(json.dumps({
            "tokenizer": args.tokenizer, "kind": index.kind, "size": o.size, "special": o.specials,
            "fragments": o.fragments, "leading_space": o.leading_space,
            "by_script": dict(o.by_script), "by_chars": dict(o.by_chars), "by_bytes": dict(o.by_bytes),
            "digit_groups": [{"digits": n, "tokens": have, "possible": possible} for n, have, possible in o.digit_groups],
            "longest": list(o.longest[: args.limit]), "whitespace": list(o.whitespace[: args.limit]),
        }, ensure_ascii=False, indent=1))
        return 0
    print(f"{args.tokenizer}: {o.size:,} tokens ({index.kind}), {o.specials:,} special, {o.fragments:,} byte fragments, "
          f"{o.leading_space:,} with a leading space")
    print("scripts: " + ", ".join(f"{s} {n:,}" for s, n in o.by_script[:10]))
    print("digit groups: " + (", ".join(f"{n} digits {have:,} of {possible:,}" for n, have, possible in o.digit_groups)
                              or "none"))
    print("longest: " + "  ".join(f"{i}:{index.visible(index.row(i))}" for i in o.longest[:5]))
    return 0


COMMANDS = {"train": cmd_train, "encode": cmd_encode, "export": cmd_export, "vocab": cmd_vocab}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (ValueError, TypeError) as exc:
        print(terminal_safe(f"error: {exc}"), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
