"""Tokenize page: your own tokenizer file, used like a built-in tokenizer.

An uploader ("Your own tokenizer file") takes a Hugging Face tokenizer.json (BPE,
WordPiece or Unigram model), a .tiktoken rank file (with a pattern picked from a list or
typed), GPT-2's vocab.json + merges.txt (two files, or a zip), a SentencePiece .model,
a Tekken JSON, subword-nmt codes, or a tokenizer saved here. The engine reads the bytes
(`bpe_core.formats.load_tokenizer_bytes`); the page then offers the result as the choice
`UPLOADED`, with colours, ids, compare and decode like the others.

Per session only: the tokenizer lives in this session's state, never in a shared cache,
so another session never sees it. A file that is not a tokenizer (truncated JSON, wrong
types, an unknown model type, a model file of another kind) is one st.error with the
engine's message, escaped; the page keeps its previous choice and keeps working.

Size: tokenizer files up to `LIMIT_MB` (40 MB: Llama-3's tokenizer.json is 9 MB, Gemma's
34 MB); the Train page's corpus upload keeps its own 2 MB check (ui/train/config.py), so
`.streamlit/config.toml`'s server.maxUploadSize is this larger figure. A file is read on
the run after it arrives (`load_pending`, called before the tokenizer choice is drawn),
inside an `st.status` that names the file and its size and then says how long it took:
a Llama-3-sized file takes a few seconds (bench/bench_upload.py).

What it leaves out: files above the limit (the browser and Streamlit refuse them first;
`read_upload` refuses them too).
"""
from __future__ import annotations

import hashlib
import io
import secrets
import threading
import time
import weakref
import zipfile
from contextlib import contextmanager
from typing import Callable, Iterator

import streamlit as st

from bpe_core.contracts import ShowsModelWork, TextTokenizer
from bpe_core.formats import PATTERN_CHOICES, load_tokenizer_bytes
from ui.shared.cache import cache_named
from ui.shared.markdown import md_error, md_escape
from ui.shared.state import Key, folded
from ui.tokenize import keys

#: The page's choice value for the uploaded tokenizer.
UPLOADED = "upload"
SHORT_NAME = "Your file"

# This session's upload (declared in ui/tokenize/keys.py).
_STATE = keys.UPLOAD                 # an Upload: {"key", "name", "seconds"}; ["tok"], ["files"] from the registry
_ERRORS = keys.UPLOAD_ERRORS         # [(file name, error message)] of the last upload, one per file
_HALF = keys.UPLOAD_HALF             # (name, bytes): vocab.json or merges.txt waiting for the other
_GENERATION = keys.UPLOAD_GENERATION  # bumped after each read: a fresh, empty uploader
_PENDING = keys.UPLOAD_PENDING       # set by the uploader's callbacks: read the files on this run
_OPENED = keys.UPLOAD_OPENED         # opened for "Your file" (once per choice: it can be closed again)
_PATTERN: Key[str] = keys.WIDGETS.key("upload_pattern", "cl100k_base")
_TYPED: Key[str | None] = keys.WIDGETS.key("upload_typed", None)
OPEN: Key[bool] = keys.WIDGETS.key("upload_open", False)  # the uploader's expander (open or not)
_FILES = keys.WIDGETS + "upload_files"  # the uploader's box (its widget key adds a generation)
TYPED_PATTERN = "type a regex…"

#: The largest tokenizer file (or files together) the page reads, in MB as the browser
#: counts them (1 MB = 1,000,000 bytes). server.maxUploadSize in .streamlit/config.toml
#: is the same figure (Streamlit counts it in MiB, a little more).
LIMIT_MB = 40
LIMIT_BYTES = LIMIT_MB * 1_000_000

FILE_KINDS = (
    "a Hugging Face **tokenizer.json** (BPE, WordPiece or Unigram model)",
    "a **.tiktoken** rank file (choose its pattern below)",
    "GPT-2's **vocab.json + merges.txt** (both files, or a zip of them)",
    "a SentencePiece **.model**",
    "Mistral's **Tekken** JSON",
    "**subword-nmt** codes",
    "a tokenizer **saved here** (`train --save`, the Train page's JSON download)",
)


#: What an uploaded tokenizer and its files are weighed at in the registry: HELD_FIXED plus
#: HELD_PER_BYTE per byte of its files (bench/bench_hostile.py: a 30-40 MB tokenizer.json
#: holds 6.5 to 8 times its size once read, a 2-3 MB one about 20 MB more than 7 times; the
#: files' bytes are kept too, for a change of pattern).
HELD_PER_BYTE = 8
HELD_FIXED = 16 * 1024 * 1024
_UPLOADS = "tokenize.uploads"  # the server-wide, byte-bounded registry (ui/shared/cache.py BUDGETS)
_DROPPED = keys.UPLOAD_DROPPED       # the name of this session's file the registry dropped, to say so


class Upload(dict):
    """This session's entry (`key`, `name`, `seconds` in the dict); its tokenizer and the
    files' bytes live in the server-wide registry `_UPLOADS` under a random handle, read as
    `entry["tok"]` and `entry["files"]` (None and [] once the registry has dropped them).

    So every session's uploads together, open sessions and closed ones that Streamlit
    keeps for a reconnect (up to `server.disconnectedSessionTTL`), hold at most the
    registry's budget: a new upload beyond it drops the least recently used one. When
    Streamlit frees a session (or the session reads another file), its entry is garbage
    and a finalizer drops its tokenizer from the registry at once.
    """

    def __init__(self, tok, files: list[tuple[str, bytes]], **fields):
        super().__init__(handle=secrets.token_hex(16), **fields)
        held = cache_named(_UPLOADS)
        held.put(self["handle"], (tok, files), HELD_FIXED + HELD_PER_BYTE * unpacked_size(files))
        weakref.finalize(self, held.pop, self["handle"])

    def _held(self):
        return cache_named(_UPLOADS).get(dict.__getitem__(self, "handle"))

    def __getitem__(self, name: str):
        if name in ("tok", "files"):
            held = self._held()
            return (held[0] if name == "tok" else held[1]) if held is not None else (None if name == "tok" else [])
        return dict.__getitem__(self, name)


def unpacked_size(files: list[tuple[str, bytes]]) -> int:
    """The files' bytes, a zip's as unpacked (what the tokenizer was read from; a zip's
    directory says, capped at the page's limit as reading caps it).

    >>> unpacked_size([("a.json", b"{}"), ("b.zip", b"PK\\x03\\x04 broken")])
    13
    """
    total = 0
    for _, data in files:
        if data[:4] == b"PK\x03\x04":
            try:
                with zipfile.ZipFile(io.BytesIO(data)) as archive:
                    total += min(sum(m.file_size for m in archive.infolist()), LIMIT_BYTES)
                continue
            except (zipfile.BadZipFile, EOFError, ValueError):
                pass
        total += len(data)
    return total


#: Files at least this big (unpacked) are read one at a time in the whole server: reading
#: costs up to 22 times a file's size while it lasts (docs/limits.md), so a few tabs reading
#: 40 MB files at once would add up to gigabytes.
LARGE_READ_BYTES = 5_000_000
_LARGE_READ = threading.BoundedSemaphore(1)


@contextmanager
def one_large_read(nbytes: int, waiting: Callable[[], None]) -> Iterator[None]:
    """Hold the server's one slot for a large read (`nbytes` >= LARGE_READ_BYTES) while the
    block runs; `waiting()` is called every second until the slot is free (a Streamlit call
    there lets a rerun stop a run that waits). Smaller reads go at once."""
    if nbytes < LARGE_READ_BYTES:
        yield
        return
    while not _LARGE_READ.acquire(timeout=1.0):
        waiting()
    try:
        yield
    finally:
        _LARGE_READ.release()


def _entry() -> Upload | None:
    """This session's upload entry; one the registry has dropped is removed (and noted)."""
    entry = _STATE.get()
    if entry is not None and entry["tok"] is None:
        _DROPPED.set(entry["name"])
        _STATE.pop()
        return None
    return entry


def uploaded_tokenizer():
    """This session's uploaded tokenizer, or None."""
    entry = _entry()
    return entry["tok"] if entry else None


def uploaded_name() -> str:
    entry = _entry()
    return entry["name"] if entry else ""


def title() -> str:
    tok = uploaded_tokenizer()
    if tok is None:
        return "Your file (none uploaded yet: open “Your own tokenizer file” below)"
    return f"Your file: {uploaded_name()} ({kind_of(tok)}, {tok.vocab_size:,} tokens)"


def kind_of(tok: TextTokenizer) -> str:
    """A short name for what the uploaded file turned out to be ("tokenizer.json, BPE",
    "SentencePiece", "WordPiece", "Unigram", "BPE")."""
    return tok.kind_label


def chosen_pattern() -> str | None:
    """The pattern for a .tiktoken file: a name from the list, or the typed regex."""
    choice = _PATTERN.get()
    if choice == TYPED_PATTERN:
        return _TYPED.get() or None
    return choice


def read_upload(files: list[tuple[str, bytes]], pattern: str | None):
    """Load the tokenizer from uploaded (name, bytes); the first file is the main one,
    the rest its companions (merges.txt beside vocab.json). ValueError if it is not one."""
    if not files:
        raise ValueError("No file was uploaded.")
    total = sum(len(data) for _, data in files)
    if total > LIMIT_BYTES:
        raise ValueError(
            f"{' + '.join(n for n, _ in files)} is {total / 1e6:.1f} MB ({total:,} bytes); tokenizer files may have "
            f"up to {LIMIT_MB} MB ({LIMIT_BYTES:,} bytes) here. Use the command line for larger ones: "
            "python -m bpe_core encode --tokenizer PATH --file F"
        )
    (name, data), others = files[0], dict(files[1:])
    if len(files) == 2 and {n for n, _ in files} == {"vocab.json", "merges.txt"}:
        name, data = "merges.txt", dict(files)["merges.txt"]
        others = {"vocab.json": dict(files)["vocab.json"]}
    return load_tokenizer_bytes(name, data, pattern=pattern, others=others, limit=LIMIT_BYTES)


def _files_key(files: list[tuple[str, bytes]], pattern: str | None) -> str:
    digest = hashlib.sha256(repr(pattern).encode())
    for name, data in files:
        digest.update(name.encode("utf-8", "replace") + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()


def _on_upload() -> None:
    """The uploader's and the pattern's callback: read the files on this run (`load_pending`),
    where a status box can show progress (a callback's output would not stay on screen)."""
    _PENDING.set(True)


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.1f} kB"


#: GPT-2's two files, which make one tokenizer together.
PAIR = ("vocab.json", "merges.txt")


def batches(new: list[tuple[str, bytes]], half: tuple[str, bytes] | None):
    """The tokenizers to read from newly uploaded files: each file on its own, except that
    `vocab.json` and `merges.txt` go together (`half` is one of them, uploaded earlier and
    waiting for the other). Returns the batches in upload order and the half still waiting.

    >>> f = lambda n: (n, b"")
    >>> batches([f("a.json"), f("b.json")], None)
    ([[('a.json', b'')], [('b.json', b'')]], None)
    >>> batches([f("merges.txt")], f("vocab.json"))
    ([[('merges.txt', b''), ('vocab.json', b'')]], None)
    >>> batches([f("vocab.json"), f("x.model")], None)
    ([[('x.model', b'')]], ('vocab.json', b''))
    """
    waiting = {half[0]: half} if half else {}
    out = []
    for name, data in new:
        if name not in PAIR:
            out.append([(name, data)])
            continue
        waiting[name] = (name, data)  # a newer half replaces an older one of the same name
        if len(waiting) == 2:
            out.append([waiting["merges.txt"], waiting["vocab.json"]])
            waiting = {}
    return out, next(iter(waiting.values()), None)


def _uploader_key() -> Key[list | None]:
    """The file uploader's widget key: a new one after each read, so the box is empty for
    the next file (a new file replaces the tokenizer; it is not added to a growing list)."""
    return keys.WIDGETS.key(f"upload_files_{_GENERATION.get()}")


def load_pending() -> None:
    """Read newly uploaded files: each file is its own tokenizer (the last one that reads
    replaces the one in use), except GPT-2's vocab.json + merges.txt, read together (in
    one upload or one after the other). Each file that is not a tokenizer gets its own
    error; the page keeps its tokenizer. Each read shows a status box that names the file
    and its size while it is read, then says what it was and how long it took. A new
    .tiktoken pattern re-reads the files in use.

    A rerun (the user typing while a large file is read) stops this run at its next
    Streamlit call, so each result is stored before its status box is updated, and the
    request is cleared only once all is done: an interrupted read starts again.
    """
    if not _PENDING.get():
        return
    uploads = _uploader_key().get() or []
    new = [(u.name, u.getvalue()) for u in uploads]
    entry = _entry()
    pattern = chosen_pattern()
    if new:
        todo, half = batches(new, _HALF.get())
        _ERRORS.set([])
    elif entry and entry["key"] != _files_key(entry["files"], pattern):  # the pattern changed
        todo, half = [entry["files"]], _HALF.get()
    else:
        todo, half = [], _HALF.get()
    for files in todo:
        if not _read(files, pattern):
            break  # stopped by a rerun: read again on the next run
    else:
        _HALF.set(half)
        if new:  # an empty uploader for the next file
            _GENERATION.set(_GENERATION.get() + 1)
        _PENDING.pop()


def _read(files: list[tuple[str, bytes]], pattern: str | None) -> bool:
    """Read one tokenizer (one file, or GPT-2's pair) in a status box; store it, or its
    error under its own name. True when done."""
    key = _files_key(files, pattern)
    entry = _entry()
    if entry and entry["key"] == key:
        return True
    name = " + ".join(n for n, _ in files)
    size = _size(sum(len(d) for _, d in files))
    with st.status(md_escape(f"Reading {name} ({size})…"), expanded=False) as status:
        start = time.perf_counter()
        try:
            with one_large_read(unpacked_size(files), lambda: status.update(label=md_escape(
                    f"Waiting to read {name} ({size}): another large file is being read on the server…"))):
                status.update(label=md_escape(f"Reading {name} ({size})…"))
                tok = read_upload(files, pattern)
        except (ValueError, TypeError, RecursionError, MemoryError) as exc:
            _ERRORS.set([*_ERRORS.get(), (name, str(exc))])
            status.update(label=md_escape(f"{name} ({size}) is not a tokenizer this page can read: see below."),
                          state="error")
            return True
        seconds = time.perf_counter() - start
        _STATE.set(Upload(tok, files, key=key, name=name, seconds=seconds))
        _DROPPED.pop()
        keys.TOKENIZER.set(UPLOADED)
        status.update(label=md_escape(f"Read {name} ({size}) in {seconds:.1f} s: {kind_of(tok)}, "
                                      f"{tok.vocab_size:,} tokens."), state="complete")
    return True


def uploader() -> None:
    """The upload section: files, the .tiktoken pattern, each file's error (escaped), the
    half of a pair waiting for the other, and which file is in use."""
    if keys.TOKENIZER.get() != UPLOADED:
        _OPENED.pop()
    elif uploaded_tokenizer() is None and not _OPENED.get():
        OPEN.set(True)  # "Your file" just chosen, none read yet
        _OPENED.set(True)
    box = folded("**Your own tokenizer file**", OPEN)
    if box is None:  # drawn only once opened: its selectbox and file uploader cost a first load
        return        # their scripts (~200 kB) for a section most visits never open
    with box:
        st.markdown("Upload " + "; ".join(FILE_KINDS) + ". A new file replaces the one in use (the two "
                    "files of GPT-2's pair go together). It stays in this session only.")
        left, right = st.columns(2)
        options = list(dict.fromkeys(PATTERN_CHOICES)) + [TYPED_PATTERN]
        left.selectbox("Pattern for a .tiktoken file", options, index=options.index("cl100k_base"), key=_PATTERN,
                       on_change=_on_upload,
                       help="A rank file has no pre-tokenizer regex of its own: say which one its model "
                            "used (cl100k_base for GPT-4's, o200k_base for GPT-4o's), or type one.")
        if _PATTERN.get() == TYPED_PATTERN:
            right.text_input("Regex", key=_TYPED, on_change=_on_upload, placeholder=r"\w+|\s+|[^\w\s]+")
        with st.container(key=_FILES):  # the widget's own key changes after each read (_uploader_key)
            st.file_uploader(f"Tokenizer file(s), up to {LIMIT_MB} MB", accept_multiple_files=True,
                             key=_uploader_key(), on_change=_on_upload, max_upload_size=LIMIT_MB,
                             help="One file, or vocab.json and merges.txt (together or one after the "
                                  "other). A 9 MB tokenizer.json (Llama-3's size) takes a few seconds to read.")
        for name, error in _ERRORS.get():
            st.error(f"**{md_escape(name)}**: {md_error(error)}", icon=":material/error:")
        half = _HALF.get()
        if half:
            other = PAIR[1] if half[0] == PAIR[0] else PAIR[0]
            st.info(f"**{half[0]}** is waiting for **{other}**: GPT-2's format is two files. Upload "
                    f"{other} to read them together.", icon=":material/hourglass_top:")
        dropped = _DROPPED.get()
        if dropped and uploaded_tokenizer() is None:
            st.info(f"**{md_escape(dropped)}** was dropped from the server's memory, which the uploads of "
                    "everyone using it share (the least recently used goes first). Upload it again to use it.",
                    icon=":material/info:")
        kept = uploaded_tokenizer()
        if kept is not None:
            for warning in kept.warnings:  # what the file's library accepts silently
                st.warning(f"**{md_escape(uploaded_name())}**: {md_error(warning)}", icon=":material/warning:")
            chosen = keys.TOKENIZER.get() == UPLOADED
            st.caption(("In use: " if chosen else "") + md_escape(title())
                       + ("." if chosen else ". Choose **Your file** above to use it."))
            for note in kept.notes:
                st.caption(md_escape(note))


#: What the Replay view shows for a model that has no merge list of ours (ui/tokenize/explain.py).
_WORK = {"BPE": "its merges, one by one", "WordPiece": "its longest-match trace", "Unigram": "its lattice"}


def merges_note(tok, what: str) -> str:
    """Why a view needing a merge list (`what`) is not shown for this uploaded tokenizer."""
    work = tok.work if isinstance(tok, ShowsModelWork) else None
    if work is not None:
        return (f"Your file's tokenizer ({md_escape(kind_of(tok))}) cuts text with its own normalizer and "
                f"pre-tokenizer, which this view does not draw, so there is no {what} to show here. "
                "**Replay merges** shows the word each token came from, as the model receives it, and "
                f"{_WORK[work.algorithm]}.")
    return (f"Your file's tokenizer ({md_escape(kind_of(tok))}) has no merge list this page can replay, so "
            f"there is no {what} to show for it. Its tokens, ids, the comparison and decoding work as for the "
            "others. A tokenizer saved here, a .tiktoken file, GPT-2's files, Tekken or subword-nmt codes "
            "can be replayed.")
