"""Class mode, pure part: what a class carries and how its question is asked and graded.

- the **snapshot** a class is started from: the Train page's link parameters (a preset
  or a short pasted text, the settings that differ from the preset's) and the run key,
  so a student trains exactly the instructor's run; an uploaded or long corpus cannot
  travel and is refused with a message saying what to use instead;
- the **question** "which pair merges next?": the top pairs before the next merge as
  options (the most frequent pairs, then shuffled as a whole, the same way for every
  caller of one class and step: an order by count would put the answer, or the tied
  answers, first), and the options that count as right (the winner and every pair tied
  with it, graded by `ui.train.predict.grade_pair`);
- the **links** (join link, instructor link), the **QR code** of the join link (a PNG
  from segno; it encodes the URL and draws nothing else) and the **tally chart** (Altair).

No Streamlit here. What it leaves out: the store (``classroom``) and session state.
"""
from __future__ import annotations

import io
import random
from typing import Mapping, Sequence
from urllib.parse import urlencode, urlsplit, urlunsplit

import altair as alt
import pandas as pd
import segno

from ui.train import predict as predict
from ui.train.config import SHARE_TEXT_LIMIT, Corpus, Settings, to_params
from ui.train.drawing import pair_label
from ui.train.run_view import RunView

__all__ = [
    "SNAPSHOT_VERSION", "JOIN_PAGE", "OPTIONS_SHOWN", "OPTION_CHARS", "UNSHAREABLE",
    "class_snapshot", "snapshot_params", "snapshot_run", "question_options",
    "correct_options", "app_root", "public_root", "is_local", "PUBLIC_SETTING", "join_url", "instructor_url", "qr_png", "tally_frame",
    "tally_chart",
]

SNAPSHOT_VERSION = 1
#: The join page's url_path (app.py).
JOIN_PAGE = "join"
#: At most this many pairs are offered (the store takes at most 12 options).
OPTIONS_SHOWN = 8
#: An option is cut to this many characters (the store takes at most 80).
OPTION_CHARS = 60
UNSHAREABLE = (
    "A class can only carry a built-in preset, or a pasted text or word list of at most "
    f"{SHARE_TEXT_LIMIT} characters: every student's browser trains the same run from it. "
    "An uploaded file (or a longer text) stays in your browser. Pick a preset, or paste a "
    f"shorter text, then start the class."
)


# ---- the snapshot ---------------------------------------------------------------------------
def class_snapshot(corpus: Corpus, settings: Settings, run_key: str) -> dict:
    """What a class is started from; ValueError (UNSHAREABLE) for a corpus that cannot travel.

    >>> from ui.train.config import preset_corpus
    >>> class_snapshot(preset_corpus("sennrich"), Settings(tie_break="smallest-id"), "abc")
    {'v': 1, 'params': {'preset': 'sennrich', 'tie': 'smallest-id'}, 'run': 'abc'}
    >>> class_snapshot(Corpus("upload", "text", "hi", name="a.txt"), Settings(), "abc")
    Traceback (most recent call last):
    ...
    ValueError: A class can only carry a built-in preset, or a pasted text or word list of at most 500 characters: every student's browser trains the same run from it. An uploaded file (or a longer text) stays in your browser. Pick a preset, or paste a shorter text, then start the class.
    """
    if not corpus.shareable:
        raise ValueError(UNSHAREABLE)
    params = to_params(corpus, settings, 0)
    params.pop("step", None)
    return {"v": SNAPSHOT_VERSION, "params": params, "run": run_key}


def snapshot_params(snapshot: Mapping) -> dict[str, str]:
    """The link parameters a snapshot carries (only string pairs; anything else dropped).

    >>> snapshot_params({"v": 1, "params": {"preset": "sennrich", "x": 3}, "run": "abc"})
    {'preset': 'sennrich'}
    """
    params = snapshot.get("params") if isinstance(snapshot, Mapping) else None
    if not isinstance(params, Mapping):
        return {}
    return {k: v for k, v in params.items() if isinstance(k, str) and isinstance(v, str)}


def snapshot_run(snapshot: Mapping) -> str:
    """The run key the class was started on ('' if the snapshot has none)."""
    run = snapshot.get("run") if isinstance(snapshot, Mapping) else None
    return run if isinstance(run, str) else ""


# ---- the question ---------------------------------------------------------------------------
def _cut(text: str, limit: int = OPTION_CHARS) -> str:
    """
    >>> _cut("abcdef", 4)
    'abc…'
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def question_options(view: RunView, k: int, seed: str) -> list[tuple[str, tuple[int, int]]]:
    """(label, pair) for the question at step k (about merge k+1): the OPTIONS_SHOWN most
    frequent pairs (ties at the cut drawn at random), shuffled as a whole, seeded by
    (seed, k) so every caller for one class and step gets the same order; labels unique.
    Empty at the last step.

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> run = train(WordTable.from_word_counts("low 5\\nlower 2\\nnewest 6\\nwidest 3"),
    ...             TrainerSettings(end_of_word="separate", merges=4))
    >>> opts = question_options(RunView(run), 0, "7K3QX9M2")
    >>> len(opts), [label for label, _ in opts][:3] == [label for label, _ in question_options(RunView(run), 0, "7K3QX9M2")][:3]
    (8, True)
    >>> question_options(RunView(run), 4, "x")
    []
    """
    if k >= view.steps:
        return []
    rows = view.run.events[k].top_pairs
    out: list[tuple[str, tuple[int, int]]] = []
    seen: set[str] = set()
    chosen = predict.row_order(view, k, seed)[:OPTIONS_SHOWN]
    random.Random(f"{seed}:{k}:options").shuffle(chosen)
    for i in chosen:
        pair = rows[i][0]
        label = _cut(pair_label(view, pair))
        n = 2
        while label in seen:  # two long tokens cut to the same text
            label = _cut(pair_label(view, pair), OPTION_CHARS - 4) + f" ({n})"
            n += 1
        seen.add(label)
        out.append((label, pair))
    return out


def correct_options(view: RunView, k: int, options: Sequence[tuple[str, tuple[int, int]]]) -> list[str]:
    """The labels that count as right: the pair that merges next and every pair tied with
    it (as the Train page's predict mode grades them).

    >>> from bpe_core import WordTable, TrainerSettings, train
    >>> run = train(WordTable.from_word_counts("low 5\\nlower 2\\nnewest 6\\nwidest 3"),
    ...             TrainerSettings(end_of_word="separate", merges=4))
    >>> v = RunView(run)
    >>> sorted(correct_options(v, 0, question_options(v, 0, "s")))   # three pairs tie at 9
    ['e + s', 's + t', 't + </w>']
    """
    return [label for label, pair in options if predict.grade_pair(view, k, pair) != "wrong"]


def pair_of(options: Sequence[tuple[str, tuple[int, int]]], label: str) -> tuple[int, int] | None:
    return next((pair for lab, pair in options if lab == label), None)


# ---- links and the QR code ------------------------------------------------------------------
def app_root(page_url: str | None) -> str:
    """The app's base URL (ending in /) from the URL of any of its pages; '/' if unknown.

    >>> app_root("http://10.0.0.5:8501/train-bpe?preset=sennrich")
    'http://10.0.0.5:8501/'
    >>> app_root("https://host/bpe/train-bpe"), app_root(None)
    ('https://host/bpe/', '/')
    """
    if not page_url:
        return "/"
    parts = urlsplit(page_url)
    path = parts.path.rsplit("/", 1)[0] + "/"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


#: The environment variable naming the address students open (e.g. http://192.168.1.20:8501/).
PUBLIC_SETTING = "BPE_PUBLIC_URL"
_LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0", "[::1]")


def public_root(text: str | None) -> str | None:
    """An address typed or set for the join link, as an app root ending in /; None if it is
    not an http(s) address.

    >>> public_root(" http://192.168.1.20:8501 "), public_root("https://bpe.example.org/app/")
    ('http://192.168.1.20:8501/', 'https://bpe.example.org/app/')
    >>> public_root("192.168.1.20:8501"), public_root("javascript:alert(1)"), public_root("http://a b/")
    (None, None, None)
    """
    text = (text or "").strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname or any(c.isspace() for c in text):
        return None
    if parts.query or parts.fragment or len(text) > 200:
        return None
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def is_local(root: str) -> bool:
    """Whether an app root names this computer only (students' devices cannot open it).

    >>> is_local("http://127.0.0.1:8501/"), is_local("http://localhost:8501/"), is_local("http://10.0.0.5:8501/")
    (True, True, False)
    """
    host = (urlsplit(root).hostname or "").lower()
    return host in _LOCAL_HOSTS or host.endswith(".localhost") or host.startswith("127.")


def join_url(root: str, join_token: str) -> str:
    """The link students open (and the QR code holds).

    >>> join_url("http://h:8501/", "tok")
    'http://h:8501/join?class=tok'
    """
    return f"{root}{JOIN_PAGE}?{urlencode({'class': join_token})}"


def instructor_url(root: str, code: str, instructor_token: str) -> str:
    """The link that gives control of the class (keep it private).

    >>> instructor_url("/", "7K3QX9M2", "secret")
    '/join?code=7K3QX9M2&teach=secret'
    """
    return f"{root}{JOIN_PAGE}?{urlencode({'code': code, 'teach': instructor_token})}"


def qr_png(url: str, *, scale: int = 10) -> bytes:
    """The QR code of `url` as a PNG: black on white, a quiet zone of 4 modules, error
    correction M (15% of the code may be smudged). A join link of about 60 characters is
    33 modules wide (version 4), so scale 10 gives a 410-pixel square.

    >>> png = qr_png("http://10.0.0.5:8501/join?class=abcdefghijklmnopqrstuv")
    >>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    """
    qr = segno.make(url, error="m", micro=False)
    out = io.BytesIO()
    qr.save(out, kind="png", scale=scale, border=4, dark="#000000", light="#ffffff")
    return out.getvalue()


# ---- the tally chart ------------------------------------------------------------------------
def tally_frame(counts: Sequence[tuple[str, int]], correct: Sequence[str] = ()) -> pd.DataFrame:
    """One row per option (those nobody chose too): its answers and, once revealed, whether
    it counts as right; `text` is what is written at the bar's end (a right answer says so
    in words, so a right answer nobody chose, whose bar has no length, still shows).

    >>> tally_frame([("e + s", 3), ("s + t", 0)], ["e + s", "s + t"]).to_dict("list")
    {'pair': ['e + s', 's + t'], 'answers': [3, 0], 'result': ['right', 'right'], 'text': ['3  ✓ right', '0  ✓ right']}
    """
    labels = [label for label, _ in counts]
    if correct:
        result = ["right" if label in correct else "not this one" for label in labels]
    else:
        result = ["answers"] * len(labels)
    text = [f"{n}  ✓ right" if r == "right" else str(n) for (_, n), r in zip(counts, result)]
    return pd.DataFrame({"pair": labels, "answers": [n for _, n in counts], "result": result, "text": text})


def tally_chart(counts: Sequence[tuple[str, int]], correct: Sequence[str] = ()) -> alt.Chart:
    """Horizontal bars, options in the order asked; right answers in bluish green once
    revealed (Okabe-Ito) and marked "✓ right" in words (a right answer nobody chose shows
    too), the others grey; the count written at each bar's end. Labels are drawn by Vega
    as text (never HTML) and there are no tooltips."""
    frame = tally_frame(counts, correct)
    order = list(frame["pair"])
    colour = alt.Color("result:N", legend=None, scale=alt.Scale(
        domain=["answers", "right", "not this one"], range=["#0072B2", "#009E73", "#BBBBBB"]))
    top = max([n for _, n in counts], default=0)
    base = alt.Chart(frame).encode(
        y=alt.Y("pair:N", sort=order, title=None, axis=alt.Axis(labelFontSize=22, labelLimit=400)),
        x=alt.X("answers:Q", title="answers", scale=alt.Scale(domain=[0, max(top, 1) * 1.4]),
                axis=alt.Axis(tickMinStep=1, format="d", labelFontSize=20, titleFontSize=20)),
    )
    bars = base.mark_bar().encode(color=colour)
    text = base.mark_text(align="left", dx=6, fontSize=22).encode(text="text:N")
    return (bars + text).properties(height=max(120, 40 * len(order)))
