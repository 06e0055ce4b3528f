"""Train page, pure part 1: presets, the page's configuration, the word table, the URL.

The page's configuration is two plain values: a `Corpus` (where the words come from:
a built-in preset, pasted text, an uploaded file or a typed word-count list) and the
`Settings` the student chose. Together they name one training run (`run_key`), build
its word table (`build_word_table`) and round-trip through the URL's query parameters
(`to_params` / `from_params`), so a link reproduces a view.

No Streamlit here: everything is a pure function that tests call directly. What it
leaves out: training and caching (state.py), drawing (drawing.py and the modules it names).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Mapping

from bpe_core import END_OF_WORD, PRETOKENIZERS, UNITS, TrainerSettings, WordTable, decode_text_file, tie_rules
from bpe_core.corpus import normalize_newlines
from bpe_core.train.trainer import MAX_MARKER_LENGTH, marker_clash
from ui.shared.corpora import python_reference_text

__all__ = [
    "UPLOAD_LIMIT_MB", "MAX_MERGES", "NO_PRETOKENIZER_LIMIT", "MAX_WORD_LENGTH", "SHARE_TEXT_LIMIT",
    "TOP_N", "SOURCES", "DEFAULT_PRESET", "Preset", "Settings", "Corpus", "load_presets",
    "preset_corpus", "build_word_table", "run_key", "describe", "read_upload", "to_params",
    "from_params", "Restored",
]

ROOT = Path(__file__).resolve().parents[2]
PRESETS_FILE = ROOT / "corpora" / "presets.json"

#: Streamlit refuses bigger uploads (.streamlit/config.toml, server.maxUploadSize).
UPLOAD_LIMIT_MB = 2
#: The same limit in bytes, as the browser counts it: Streamlit's uploader refuses a file
#: over 2.0 MB = 2,000,000 bytes ("File must be 2.0MB or smaller.") before it is sent, so
#: the page's own check says the same numbers; it catches what gets past the browser
#: (browsers that count a MB as 1,048,576 bytes, and callers of `read_upload`).
UPLOAD_LIMIT_BYTES = UPLOAD_LIMIT_MB * 1_000_000
#: The merge budget the page offers: enough for a 1 MB corpus, still a few seconds.
MAX_MERGES = 5_000
#: Without a pre-tokenizer the whole text is one word and every merge rewrites it (and
#: every event keeps a copy), so such a corpus is cut to this many characters.
NO_PRETOKENIZER_LIMIT = 10_000
#: A longer single word (for example a file with no spaces) would make each step slow.
MAX_WORD_LENGTH = 10_000
#: A pasted corpus up to this many characters travels in a shared link.
SHARE_TEXT_LIMIT = 500
#: A link's text or word list is read up to this many characters (a hand-made link may
#: carry more than the page writes); a word list is cut after its last whole line.
LINK_TEXT_LIMIT = SHARE_TEXT_LIMIT * 4
#: Rows of the pair table each merge event keeps (and the page shows).
TOP_N = 20
#: Training stops once the tokens' text adds up to this many characters: each merged
#: token keeps its text, and long words merged pair by pair (a text with no
#: pre-tokenizer) would otherwise build tokens as long as the text, thousands of times.
#: With it, a run holds about 30 MB at most (docs/performance.md, "Memory").
TOKEN_TEXT_LIMIT = 2_000_000

SOURCES: tuple[str, ...] = ("preset", "text", "words", "upload")
SOURCE_LABELS = {
    "preset": "Built-in preset",
    "text": "Paste text",
    "words": "Type a word list",
    "upload": "Upload a .txt file",
}
DEFAULT_PRESET = "sennrich"
DEFAULT_WORDS = "low 5\nlower 2\nnewest 6\nwidest 3\n"
DEFAULT_TEXT = "the lowest, the newest and the widest: low, lower, newer, wider!"


@dataclass(frozen=True)
class Settings:
    """What the student chose: the trainer's options plus the pre-tokenizer and how to stop.

    `stop` is "merges" (stop after `merges` merges) or "vocab" (stop at a vocabulary of
    `vocab_size` tokens); the other number is kept so switching back restores it.
    """

    units: str = "char"
    end_of_word: str = "separate"
    marker: str = "</w>"
    pretokenizer: str = "whitespace"
    tie_break: str = "first-seen"
    stop: str = "merges"
    merges: int = 10
    vocab_size: int = 30
    min_count: int = 1

    def trainer_settings(self) -> TrainerSettings:
        """The engine's settings (its ValueError messages are written for users).

        >>> t = Settings(stop="vocab", vocab_size=20).trainer_settings()
        >>> t.vocab_size, t.merges
        (20, 5000)
        """
        if self.stop not in ("merges", "vocab"):
            raise ValueError(f"Unknown stop rule {self.stop!r}. Choose 'merges' or 'vocab'.")
        if self.stop == "merges" and isinstance(self.merges, int) and self.merges > MAX_MERGES:
            raise ValueError(f"The page trains at most {MAX_MERGES:,} merges, not {self.merges:,}.")
        return TrainerSettings(
            units=self.units,
            end_of_word=self.end_of_word,
            marker=self.marker,
            tie_break=self.tie_break,
            merges=self.merges if self.stop == "merges" else MAX_MERGES,
            vocab_size=self.vocab_size if self.stop == "vocab" else None,
            min_count=self.min_count,
            top_n=TOP_N,
            max_token_text=TOKEN_TEXT_LIMIT,
        )


@dataclass(frozen=True)
class Preset:
    """One built-in corpus from corpora/presets.json, with its default settings."""

    id: str
    title: str              # plain words for a student: what the corpus is
    file: str | None
    kind: str               # "words", "text" or "pydoc"
    note: str
    settings: Settings
    source: str = ""        # where it comes from (a paper, a course, a text), the line under the title


@lru_cache(maxsize=1)
def load_presets() -> dict[str, Preset]:
    """The presets, in file order, keyed by id.

    >>> presets = load_presets()
    >>> presets["sennrich"].settings.marker, presets["classroom"].settings.marker
    ('</w>', '_')
    """
    raw = json.loads(PRESETS_FILE.read_text(encoding="utf-8"))
    out: dict[str, Preset] = {}
    for p in raw:
        s = dict(p.get("settings", {}))
        s.setdefault("marker", "</w>")
        fields = {k: v for k, v in s.items() if k in Settings.__dataclass_fields__}
        out[p["id"]] = Preset(p["id"], p["title"], p.get("file"), p["kind"], p.get("note", ""), Settings(**fields),
                              p.get("from", ""))
    return out


@lru_cache(maxsize=16)
def _preset_text(preset_id: str) -> str:
    p = load_presets()[preset_id]
    if p.kind == "pydoc":
        return python_reference_text()
    return (ROOT / "corpora" / str(p.file)).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Corpus:
    """Where the words come from.

    `source` is one of SOURCES; `kind` says how to read `text`: "words" (a word-count
    list) or "text" (raw text for the pre-tokenizer). For a preset, `preset` is its id
    and `text` its file's contents; for an upload, `name` is the file name.
    """

    source: str
    kind: str
    text: str = field(repr=False)
    preset: str = ""
    name: str = ""

    @property
    def shareable(self) -> bool:
        """Whether a link can carry this corpus (presets, and short pasted ones)."""
        if self.source == "preset":
            return True
        return self.source in ("text", "words") and len(self.text) <= SHARE_TEXT_LIMIT


def preset_corpus(preset_id: str) -> Corpus:
    """The corpus of a built-in preset (raises KeyError for an unknown id).

    >>> c = preset_corpus("sennrich"); c.kind, "newest 6" in c.text
    ('words', True)
    """
    p = load_presets()[preset_id]
    kind = "words" if p.kind == "words" else "text"
    return Corpus("preset", kind, _preset_text(preset_id), preset=preset_id)


def build_word_table(corpus: Corpus, settings: Settings) -> tuple[WordTable, tuple[str, ...]]:
    """The corpus's word table, and notes for the student (e.g. that the text was cut).

    Raises ValueError with a message for the page when the corpus cannot be used.

    >>> wt, notes = build_word_table(Corpus("words", "words", "low 5\\nlower 2"), Settings())
    >>> wt.words, wt.counts, notes
    (('low', 'lower'), (5, 2), ())
    """
    notes: list[str] = []
    if corpus.kind == "words":
        table = WordTable.from_word_counts(corpus.text)
    else:
        text, converted = normalize_newlines(corpus.text)
        if converted:
            notes.append(
                f"Line endings: {converted:,} Windows line ending{'s' if converted != 1 else ''} (\\r\\n, or a lone "
                "\\r) read as \\n, as the command line (python -m bpe_core train) and a browser's text box read "
                "them, so the same text counts the same everywhere."
            )
        if settings.pretokenizer == "none" and len(text) > NO_PRETOKENIZER_LIMIT:
            text = text[:NO_PRETOKENIZER_LIMIT]
            notes.append(
                f"Without a pre-tokenizer the whole text is a single word, so the page trains on "
                f"its first {NO_PRETOKENIZER_LIMIT:,} characters only (of {len(corpus.text):,}). "
                "Pick a pre-tokenizer to use all of it."
            )
        table = WordTable.from_text(text, settings.pretokenizer)
    clash = marker_clash(settings.trainer_settings(), table)
    if clash:
        notes.append(clash)
    longest = max(table.words, key=len)
    if len(longest) > MAX_WORD_LENGTH:
        raise ValueError(
            f"One word of this corpus is {len(longest):,} characters long (it starts "
            f"{longest[:20]!r}); the page handles words of up to {MAX_WORD_LENGTH:,}. Choose a "
            "pre-tokenizer that splits it (gpt2 or whitespace) or use a shorter text."
        )
    return table, tuple(notes)


def run_key(corpus: Corpus, settings: Settings) -> str:
    """A short hash naming the training run of this corpus under these settings.

    >>> a = run_key(preset_corpus("sennrich"), Settings())
    >>> a == run_key(preset_corpus("sennrich"), Settings()), a == run_key(preset_corpus("sennrich"), Settings(tie_break="smallest-id"))
    (True, False)
    """
    h = hashlib.sha256()
    pretokenizer = settings.pretokenizer if corpus.kind == "text" else None
    h.update(json.dumps([corpus.kind, pretokenizer, asdict(settings.trainer_settings())], sort_keys=True).encode())
    h.update(b"\0")
    h.update(corpus.text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:24]


def describe(corpus: Corpus, settings: Settings) -> str:
    """A one-line label for the run (the sidebar and the Tokenize page show it).

    >>> describe(preset_corpus("sennrich"), Settings())
    "Sennrich's toy words · char, separate </w>, first-seen"
    """
    if corpus.source == "preset":
        name = load_presets()[corpus.preset].title.split(":")[0]
    elif corpus.source == "upload":
        name = corpus.name or "uploaded file"
    else:
        name = "your word list" if corpus.kind == "words" else "your text"
    eow = settings.end_of_word + (f" {settings.marker}" if settings.end_of_word != "none" else "")
    return f"{name} · {settings.units}, {eow}, {settings.tie_break}"


def read_upload(data: bytes, name: str = "the file") -> str:
    """An uploaded file's text; ValueError (a message for the page) if it is unusable.

    >>> read_upload("low 5".encode(), "a.txt")
    'low 5'
    >>> read_upload(b"\\xff\\xfe", "b.txt")
    Traceback (most recent call last):
    ...
    ValueError: b.txt is not valid UTF-8 text (byte 0xff at position 0). Save it as UTF-8 (most editors: 'Save as' -> encoding UTF-8) and upload it again.
    """
    if len(data) > UPLOAD_LIMIT_BYTES:
        raise ValueError(
            f"{name} is {len(data) / 1e6:.2f} MB ({len(data):,} bytes); the limit is {UPLOAD_LIMIT_MB} MB "
            f"({UPLOAD_LIMIT_BYTES:,} bytes). Upload a shorter text, or cut the file in two."
        )
    text = decode_text_file(data, name)
    if not text.strip():
        raise ValueError(f"{name} is empty (or only whitespace). Upload a file with some text in it.")
    return text


# ---- the URL ----------------------------------------------------------------------------
# Short names for the settings in the query string: ?preset=sennrich&step=4&tie=smallest-id
_PARAM_OF = {
    "units": "units", "end_of_word": "eow", "marker": "marker", "pretokenizer": "pre",
    "tie_break": "tie", "stop": "stop", "merges": "merges", "vocab_size": "vocab", "min_count": "min",
}
def _choices() -> dict[str, tuple[str, ...]]:
    """The names a link may give each setting (the tie rules as registered now)."""
    return {
        "units": UNITS, "end_of_word": END_OF_WORD, "pretokenizer": PRETOKENIZERS,
        "tie_break": tie_rules.TIE_RULES, "stop": ("merges", "vocab"),
    }

_NUMBERS = {"merges": (0, MAX_MERGES), "vocab_size": (1, 1_000_000), "min_count": (0, 1_000_000_000)}
LAYOUTS = ("normal", "present")
MODES = ("explore", "predict")


def default_settings(corpus: Corpus) -> Settings:
    """The settings a link leaves out: the preset's own, or the default preset's."""
    presets = load_presets()
    return presets[corpus.preset if corpus.source == "preset" else DEFAULT_PRESET].settings


def to_params(corpus: Corpus, settings: Settings, step: int, *, view: str = "normal", mode: str = "explore") -> dict[str, str]:
    """The query parameters for this view: the corpus, settings that differ from the
    defaults, the step, and the view and mode when they are not the usual ones.

    >>> to_params(preset_corpus("sennrich"), Settings(tie_break="smallest-id"), 4)
    {'preset': 'sennrich', 'tie': 'smallest-id', 'step': '4'}
    >>> to_params(Corpus("words", "words", "a 1"), Settings(), 0, view="present")
    {'words': 'a 1', 'step': '0', 'view': 'present'}
    """
    params: dict[str, str] = {}
    if corpus.source == "preset":
        params["preset"] = corpus.preset
    elif corpus.shareable:
        params["words" if corpus.kind == "words" else "text"] = corpus.text
    base = default_settings(corpus)
    for name, key in _PARAM_OF.items():
        value = getattr(settings, name)
        if value != getattr(base, name):
            params[key] = str(value)
    params["step"] = str(step)
    if view != "normal":
        params["view"] = view
    if mode != "explore":
        params["mode"] = mode
    return params


@dataclass(frozen=True)
class Restored:
    """What a link asked for; `corpus` is None if the link names none. `problems` are
    messages about parameters that were ignored."""

    corpus: Corpus | None
    settings: Settings | None
    step: int | None
    view: str
    mode: str
    problems: tuple[str, ...]


def from_params(params: Mapping[str, str]) -> Restored:
    """Read query parameters back (the inverse of `to_params`), ignoring bad ones with
    a message, never raising.

    >>> r = from_params({"preset": "sennrich", "step": "4", "tie": "smallest-id"})
    >>> r.corpus.preset, r.settings.tie_break, r.step, r.problems
    ('sennrich', 'smallest-id', 4, ())
    >>> from_params({"preset": "nope", "step": "x"}).problems
    ("The link names an unknown preset 'nope'; showing the default one.", "The link's step 'x' is not a step number (0, 1, 2, …); starting at step 0.")
    """
    problems: list[str] = []
    corpus: Corpus | None = None
    presets = load_presets()
    if "preset" in params:
        pid = params["preset"]
        if pid in presets:
            corpus = preset_corpus(pid)
        else:
            problems.append(f"The link names an unknown preset {_quote(pid)}; showing the default one.")
            corpus = preset_corpus(DEFAULT_PRESET)
    elif "words" in params:
        words = _cut_at_line(params["words"], LINK_TEXT_LIMIT)
        if len(words) < len(params["words"]):
            problems.append(
                f"The link's word list is {len(params['words']):,} characters long; links carry at most "
                f"{LINK_TEXT_LIMIT:,}, so only its first {words.count(chr(10)):,} whole lines are used. "
                "Paste the full list into the word-count box instead."
            )
        corpus = Corpus("words", "words", words or params["words"][:0])
    elif "text" in params:
        text = params["text"][:LINK_TEXT_LIMIT]
        if len(text) < len(params["text"]):
            problems.append(
                f"The link's text is {len(params['text']):,} characters long; links carry at most "
                f"{LINK_TEXT_LIMIT:,}, so only its first {LINK_TEXT_LIMIT:,} are used."
            )
        corpus = Corpus("text", "text", text)
    settings: Settings | None = None
    if corpus is not None or any(k in params for k in _PARAM_OF.values()):
        base = default_settings(corpus or preset_corpus(DEFAULT_PRESET))
        changes: dict[str, object] = {}
        choices = _choices()
        for name, key in _PARAM_OF.items():
            if key not in params:
                continue
            raw = params[key]
            if name in choices:
                if raw in choices[name]:
                    changes[name] = raw
                else:
                    problems.append(f"The link's {key}={_quote(raw)} is not one of {', '.join(choices[name])}; using {getattr(base, name)!r}.")
            elif name in _NUMBERS:
                lo, hi = _NUMBERS[name]
                if _is_number(raw) and lo <= int(raw) <= hi:
                    changes[name] = int(raw)
                else:
                    problems.append(f"The link's {key}={_quote(raw)} is not a whole number from {lo} to {hi:,}; using {getattr(base, name)}.")
            elif name == "marker" and not 1 <= len(raw) <= MAX_MARKER_LENGTH:
                problems.append(f"The link's marker={_quote(raw)} is not 1 to {MAX_MARKER_LENGTH} characters long; "
                                f"using {getattr(base, name)!r}.")
            else:
                changes[name] = raw
        settings = replace(base, **changes)  # type: ignore[arg-type]
    step: int | None = None
    if "step" in params:
        raw = params["step"]
        if _is_number(raw) and len(raw) <= 9:
            step = int(raw)
        else:
            problems.append(f"The link's step {_quote(raw)} is not a step number (0, 1, 2, …); starting at step 0.")
    view = params.get("view", "normal")
    mode = params.get("mode", "explore")
    if view not in LAYOUTS:
        problems.append(f"The link's view={_quote(view)} is unknown; showing the normal view.")
        view = "normal"
    if mode not in MODES:
        problems.append(f"The link's mode={_quote(mode)} is unknown; showing the explore mode.")
        mode = "explore"
    return Restored(corpus, settings, step, view, mode, tuple(problems))


def _quote(raw: str, limit: int = 40) -> str:
    """A link's value for a message: quoted, cut if long.

    >>> _quote("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' (100 characters)"
    """
    return repr(raw) if len(raw) <= limit else f"{raw[:limit]!r}"[:-1] + f"…' ({len(raw):,} characters)"


def _cut_at_line(text: str, limit: int) -> str:
    """At most `limit` characters, cut after the last whole line (a word list must never
    lose half a line: 'w263 12' cut to 'w263 1' would change a count silently).

    >>> _cut_at_line("low 5\\nlower 12\\n", 12)
    'low 5\\n'
    """
    if len(text) <= limit:
        return text
    head = text[:limit]
    return head[: head.rfind("\n") + 1]


def _is_number(text: str) -> bool:
    """ASCII digits only: str.isdigit() also accepts '²', which int() refuses."""
    return text.isascii() and text.isdigit()
