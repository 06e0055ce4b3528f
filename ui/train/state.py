"""Train page, Streamlit part 1: session state, the shared run cache, training, the URL.

Per session (st.session_state, keys "train.*"): the corpus choice, the settings, the
step, play/pause, the view and mode, and predict-mode results. The real values live
under non-widget keys and are copied into widget keys each run (ui.shared.state.persist), so
they survive visits to other pages; sidebar navigation drops query parameters, so the
URL is rewritten from these values on every run.

Shared by all sessions (ui.shared.cache, "train.runs", bounded in bytes): finished runs,
keyed by a hash of the corpus and the settings. A run is immutable, so sessions share it
read-only; each session also holds its own run on screen (VIEW_OBJ), so a run the cache
drops is never trained again for a session that shows it. Training happens outside the
cache so the page can show a progress bar.

Callbacks (on_click / on_change) only change state; the page script then calls
`ensure_run()`, which trains if needed and, on a ValueError from the engine, keeps the
previous run and records the message for st.error.
"""
from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

import streamlit as st

from ui.shared.heavy import bounded_train as train  # one training at a time per process (heavy.py)
from ui.shared.cache import ByteLRU, cache_named
from ui.shared.state import Key, KeyFamily, publish_run, take_train_step_request
from ui.train.config import (
    DEFAULT_PRESET, DEFAULT_TEXT, DEFAULT_WORDS, MAX_MERGES, Corpus, Settings, build_word_table, describe,
    from_params, load_presets, preset_corpus, read_upload, run_key, to_params,
)
from ui.train.run_view import RunView

ss = st.session_state

# Non-widget keys: the real values.
INIT = Key("train.init")
SOURCE = Key("train.source")
PRESET = Key("train.preset")
TEXT = Key("train.text")
WORDS = Key("train.words")
UPLOAD_TEXT = Key("train.upload_text")
UPLOAD_NAME = Key("train.upload_name")
UPLOAD_KIND = Key("train.upload_kind")
UPLOAD_ERROR = Key("train.upload_error")
#: the upload fragment's callbacks changed the corpus: the fragment reruns the whole page
UPLOAD_CHANGED = Key("train.upload_changed")
STEP = Key("train.step")
PLAYING = Key("train.playing")
SPEED = Key("train.speed")
LAYOUT = Key("train.layout")      # "normal" or "present" (a link's `view=`)
MODE = Key("train.mode")          # "explore" or "predict"
HIDE_COUNTS = Key("train.hide_counts")
ACTIVE = Key("train.active")      # (key, Corpus, Settings) of the run on screen
VIEW_OBJ = Key("train.view_obj")  # the RunView on screen (this session's own reference)
ERROR = Key("train.error")        # message for the requested corpus/settings, or None
FAILED = Key("train.failed")      # run key -> message, so a bad setting is not retried each rerun
RESET_STEP = Key("train.reset_step")
CONTINUE_STEP = Key("train.continue_step")  # "Train more merges": the step to go on to once retrained
PENDING_STEP = Key("train.pending_step")
LINK_PROBLEMS = Key("train.link_problems")
RESULTS = Key("train.results")    # predict mode: (run key, step) -> {"pair": grade, "split": bool | None}
SKIP_TICK = Key("train.skip_tick")
APP_RERUN = Key("train.app_rerun")
END_PENDING = Key("train.end_pending")  # play reached the end; the next tick stops the timer
SETTINGS_NEEDED = Key("train.settings_needed")  # the corpus and settings box was opened for attention
EDITING = Key("train.editing")    # the reader is changing the corpus or settings: keep them open

SETTING = KeyFamily("train.s.")  # + a Settings field name
PREDICT_NOTE = Key("train.predict_note")  # predict mode: the note on the last answer
DL_SCOPE = Key("train.dl_scope")  # "Download and share": the step or the whole run
EXPORT_PROBLEMS = Key("train.export_problems")  # (run, n, problems): which export formats fit (downloads.py)
#: Every widget key of the page: `train_w_<name>`.
WIDGETS = KeyFamily("train_w_")

#: Seconds per step while playing.
SPEEDS: dict[str, float] = {"slow": 2.0, "normal": 1.0, "fast": 0.5, "fastest": 0.3}
#: Corpora longer than this (characters) show a progress bar while training.
PROGRESS_FROM = 20_000

DEFAULTS: dict[str, Any] = {
    SOURCE: "preset", PRESET: DEFAULT_PRESET, TEXT: DEFAULT_TEXT, WORDS: DEFAULT_WORDS,
    UPLOAD_TEXT: None, UPLOAD_NAME: "", UPLOAD_KIND: "text", UPLOAD_ERROR: None,
    STEP: 0, PLAYING: False, SPEED: "normal", LAYOUT: "normal", MODE: "explore", HIDE_COUNTS: True,
    ERROR: None, RESET_STEP: False, PENDING_STEP: None, LINK_PROBLEMS: (), EDITING: False,
}


# ---- the shared cache of runs --------------------------------------------------------------
def shared_runs() -> ByteLRU:
    """Finished runs shared by every session, weighed by what they hold (RunView.nbytes)."""
    return cache_named("train.runs")


def train_view(corpus: Corpus, settings: Settings, *, key: str | None = None, progress: bool = True) -> RunView:
    """The run of `corpus` under `settings`, from the shared cache or trained now (with a
    progress bar for a large corpus). Raises ValueError with a user message."""
    key = key or run_key(corpus, settings)
    cache = shared_runs()
    view = cache.get(key)
    if view is not None:
        return view
    bar = None
    if progress and len(corpus.text) > PROGRESS_FROM:
        bar = st.progress(0.0, text=f"Reading the corpus ({len(corpus.text):,} characters)…")
    try:
        words, notes = build_word_table(corpus, settings)
        trainer_settings = settings.trainer_settings()
        total = max(1, trainer_settings.merges or 1)
        every = max(1, total // 50)

        def report(step: int, _event) -> None:
            if bar is not None and step % every == 0:
                bar.progress(min(1.0, step / total), text=f"Training: merge {step:,} of up to {total:,}…")

        run = train(words, trainer_settings, progress=report)
        # No label here: the view is shared by every session with the same corpus and
        # settings, and a label would carry one session's file name to the others.
        view = RunView(run, key=key, notes=notes)
        view.by_count  # computed once here, not on the first step
        cache.put(key, view, view.nbytes())
        return view
    finally:
        if bar is not None:
            bar.empty()


# ---- session state -------------------------------------------------------------------------
def init() -> None:
    """Set the defaults once per session, then apply the link's query parameters."""
    if ss.get(INIT):
        return
    for k, v in DEFAULTS.items():
        ss.setdefault(k, v)
    ss.setdefault(FAILED, {})
    ss.setdefault(RESULTS, {})
    set_settings(load_presets()[DEFAULT_PRESET].settings)
    restore_from_link({k: st.query_params[k] for k in st.query_params})
    ss[INIT] = True


def restore_from_link(params: dict[str, str]) -> None:
    """Take corpus, settings, step, view and mode from a link's query parameters."""
    if not params:
        return
    r = from_params(params)
    if r.corpus is not None:
        if r.corpus.source == "preset":
            ss[SOURCE], ss[PRESET] = "preset", r.corpus.preset
        elif r.corpus.kind == "words":
            ss[SOURCE], ss[WORDS] = "words", r.corpus.text
        else:
            ss[SOURCE], ss[TEXT] = "text", r.corpus.text
    if r.settings is not None:
        set_settings(r.settings)
    ss[PENDING_STEP] = r.step
    ss[LAYOUT], ss[MODE] = r.view, r.mode
    ss[LINK_PROBLEMS] = r.problems


def settings() -> Settings:
    return Settings(**{f.name: ss[SETTING + f.name] for f in fields(Settings)})


def set_settings(s: Settings) -> None:
    for name, value in asdict(s).items():
        ss[SETTING + name] = value


def requested_corpus() -> Corpus | None:
    """The corpus the inputs ask for (None while the upload source has no file yet)."""
    source = ss[SOURCE]
    if source == "preset":
        return preset_corpus(ss[PRESET])
    if source == "text":
        return Corpus("text", "text", ss[TEXT])
    if source == "words":
        return Corpus("words", "words", ss[WORDS])
    if ss[UPLOAD_TEXT] is None:
        return None
    return Corpus("upload", ss[UPLOAD_KIND], ss[UPLOAD_TEXT], name=ss[UPLOAD_NAME])


def ensure_run() -> RunView:
    """The run to show: the requested one if it trains, else the previous one (with the
    engine's message in ERROR). Sets the step for a new run."""
    ss.pop(UPLOAD_CHANGED, None)  # a full run: it reads the new upload itself
    corpus = requested_corpus()
    active = ss.get(ACTIVE)
    if corpus is not None:
        s = settings()
        try:
            key = run_key(corpus, s)
        except ValueError as exc:  # the engine's message about this input (a TypeError is a bug)
            key, ss[ERROR] = None, str(exc)
        if key is not None and active is not None and key == active[0]:
            ss[ERROR] = None
        elif key is not None:
            if key in ss[FAILED]:
                ss[ERROR] = ss[FAILED][key]
            else:
                try:
                    view = train_view(corpus, s, key=key)
                except ValueError as exc:
                    ss[FAILED][key] = ss[ERROR] = str(exc)
                    ss[RESET_STEP] = False
                else:
                    _activate(view, corpus, s)
                    publish(view)

    if ss.get(ACTIVE) is None:  # nothing good yet (e.g. a link with a bad word list)
        corpus, s = preset_corpus(DEFAULT_PRESET), load_presets()[DEFAULT_PRESET].settings
        view = train_view(corpus, s)
        _activate(view, corpus, s, keep_error=True)
        return view
    view = current_view()
    goto = take_train_step_request()  # "open training step N", from the Tokenize page's replay
    if goto is not None:
        ss[PLAYING] = False
        ss[STEP] = max(0, min(int(goto), view.steps))
        publish(view)
    return view


def _activate(view: RunView, corpus: Corpus, s: Settings, *, keep_error: bool = False) -> None:
    ss[ACTIVE] = (view.key, corpus, s)
    ss[VIEW_OBJ] = view
    if not keep_error:
        ss[ERROR] = None
    if ss.get(PENDING_STEP) is not None:
        want = ss[PENDING_STEP]
        if want > view.steps:
            ss[LINK_PROBLEMS] = tuple(ss[LINK_PROBLEMS]) + (
                f"The link asks for step {want}, but this training run has {view.steps} merges; showing the last step.",)
        ss[STEP] = min(want, view.steps)
        ss[PENDING_STEP] = None
    elif ss.get(RESET_STEP):
        ss[STEP] = 0
    elif ss.get(CONTINUE_STEP) is not None:
        ss[STEP] = min(ss.pop(CONTINUE_STEP), view.steps)
    else:
        ss[STEP] = min(ss[STEP], view.steps)
    ss[RESET_STEP] = False


def current_view() -> RunView:
    """The run on screen: this session's own reference, else the shared cache, else
    trained again quietly."""
    key, corpus, s = ss[ACTIVE]
    view = ss.get(VIEW_OBJ)
    if view is not None and view.key == key:
        return view
    view = shared_runs().get(key) or train_view(corpus, s, key=key, progress=False)
    ss[VIEW_OBJ] = view
    return view


def active_corpus() -> tuple[Corpus, Settings]:
    _, corpus, s = ss[ACTIVE]
    return corpus, s


# ---- stepping ------------------------------------------------------------------------------
def step() -> int:
    return ss[STEP]


def interaction(*, editing: bool = False) -> None:
    """Every callback: this rerun comes from the user, not the play timer. `editing`:
    the corpus or a setting changed (the settings stay open); stepping folds them."""
    ss[SKIP_TICK] = True
    ss[EDITING] = editing


def set_step(k: int) -> None:
    view = current_view()
    ss[STEP] = max(0, min(k, view.steps))
    publish(view)  # before the script runs, so the sidebar shows the new step


def on_step_forward() -> None:
    interaction()
    set_step(ss[STEP] + 1)


def on_step_back() -> None:
    interaction()
    ss[PLAYING] = False
    set_step(ss[STEP] - 1)


def on_reset() -> None:
    interaction()
    if ss[PLAYING]:
        ss[PLAYING], ss[APP_RERUN] = False, True
    set_step(0)


def on_goto(k: int) -> None:
    """A row of the merge list: go to that merge's step (play stops)."""
    interaction()
    if ss[PLAYING]:
        ss[PLAYING], ss[APP_RERUN] = False, True
    set_step(k)


#: How many merges "Train more merges" adds.
MORE_MERGES = 10


def more_merges(view: RunView) -> int:
    """How many more merges "Train more merges" can ask of this run: 0 when it did not stop
    at the limit it was set to (no pairs left, the minimum count) or the limit is the
    largest the page allows."""
    run, s = view.run, settings()
    if run.stop_reason == f"reached {run.steps} merges" and s.stop == "merges":
        return max(0, min(MORE_MERGES, MAX_MERGES - run.steps))
    if s.stop == "vocab" and run.stop_reason.startswith("reached the target vocabulary size"):
        return MORE_MERGES
    return 0


def on_train_more() -> None:
    """At the last step: raise the limit the run stopped at (the number of merges, or the
    vocabulary size) by `more_merges`, retrain (the shared cache keeps runs) and go on to
    the next merge. A full rerun: the page trains before the step area draws."""
    interaction()
    stop_playing()
    view = current_view()
    extra = more_merges(view)
    if not extra:
        return
    s = settings()
    if s.stop == "vocab":
        ss[SETTING + "vocab_size"] = int(s.vocab_size) + extra
    else:
        ss[SETTING + "merges"] = int(s.merges) + extra
    ss[CONTINUE_STEP] = view.steps + 1
    ss[APP_RERUN] = True


def on_skip(key: str, k: int) -> None:
    """Predict mode's Skip: the question at step k counts as skipped, then the merge."""
    interaction()
    view = current_view()
    if view.key != key or ss[STEP] != k or k >= view.steps:
        return
    if (key, k) not in ss[RESULTS]:
        record_answer(key, k, {"pair": "skipped", "picked": None, "split": None})
    set_step(k + 1)


def on_jump(widget_key: str) -> None:
    """The slider moved. While playing, a value one step behind is the browser's echo
    of a tick whose drawing a newer tick cut short (the slider still shows the previous
    step), not a jump: taking it would step play backwards. The same holds on the tick
    after the last merge (play has stopped, the full rerun that switches the timer off
    is pending): the echo there would end a play one step short of the end."""
    interaction()
    value = int(ss[widget_key])
    if (ss[PLAYING] or ss.get(END_PENDING)) and ss[STEP] - 1 <= value <= ss[STEP]:
        return
    set_step(value)


def on_play_pause() -> None:
    """Play or pause. The timer (`run_every`) is read on full reruns, so this asks for one."""
    interaction()
    view = current_view()
    if ss[PLAYING]:
        ss[PLAYING] = False
    else:
        if ss[STEP] >= view.steps:
            ss[STEP] = 0  # at the end, Play starts over
        ss[PLAYING] = True
    ss[APP_RERUN] = True


def next_speed(speed: str) -> str:
    """The speed after `speed`, round the four (2 s, 1 s, 0.5 s, 0.3 s per step, then 2 s again).

    >>> [next_speed(s) for s in SPEEDS]
    ['normal', 'fast', 'fastest', 'slow']
    """
    names = list(SPEEDS)
    return names[(names.index(speed) + 1) % len(names)]


def speed_label(speed: str) -> str:
    """The speed button's label.

    >>> speed_label("fast")
    'Speed: 0.5 s per step'
    """
    return f"Speed: {SPEEDS[speed]:g} s per step"


def on_next_speed() -> None:
    """The speed button: the next speed. While playing, the timer (`run_every`, read on a
    full rerun) is set afresh, so the new speed applies from the next step."""
    interaction()
    ss[SPEED] = next_speed(ss[SPEED])
    if ss[PLAYING]:
        ss[APP_RERUN] = True


def stop_playing() -> None:
    ss[PLAYING] = False


def tick(view: RunView) -> bool:
    """One play step. Returns True when play stopped at the last merge (the page then
    reruns the whole app on the next tick, which switches the timer off)."""
    if not ss[PLAYING]:
        return False
    if ss[STEP] < view.steps:
        ss[STEP] += 1
        publish(view)
    if ss[STEP] >= view.steps:
        ss[PLAYING] = False
        return True
    return False


def take_skip_tick() -> bool:
    return bool(ss.pop(SKIP_TICK, False))


def take_app_rerun() -> bool:
    return bool(ss.pop(APP_RERUN, False))


# ---- inputs --------------------------------------------------------------------------------
def on_source(widget_key: str) -> None:
    interaction(editing=True)
    stop_playing()
    ss[SOURCE] = ss[widget_key]
    ss[RESET_STEP] = True
    if ss[SOURCE] == "words" and not ss[WORDS].strip():
        ss[WORDS] = DEFAULT_WORDS


def on_preset(widget_key: str) -> None:
    """A new preset brings its own default settings and starts at step 0."""
    interaction(editing=True)
    stop_playing()
    ss[PRESET] = ss[widget_key]
    set_settings(load_presets()[ss[PRESET]].settings)
    ss[RESET_STEP] = True


def on_corpus_text(widget_key: str, store_key: str) -> None:
    interaction(editing=True)
    stop_playing()
    ss[store_key] = ss[widget_key]
    ss[RESET_STEP] = True


def on_setting(widget_key: str, name: str) -> None:
    """A setting changed: retrain (cached); the step stays where it was if it exists, so
    a student can flip the tie rule at step 4 and compare."""
    interaction(editing=True)
    stop_playing()
    value = ss[widget_key]
    if name in ("merges", "vocab_size", "min_count") and value is not None:
        value = int(value)
    ss[SETTING + name] = value
    if name == "stop" and value == "vocab" and ss.get(ACTIVE) is not None:
        # start from the vocabulary the current run reaches, so the switch alone changes nothing
        run = current_view().run
        ss[SETTING + "vocab_size"] = run.vocab_size(run.steps)


def handle_upload(data: bytes | None, name: str) -> str | None:
    """Store an uploaded file's text; return an error message (the previous corpus is
    kept) or None. `data` None means the file was removed: keep what was read."""
    if data is None:
        return None
    try:
        text = read_upload(data, name)
    except ValueError as exc:
        ss[UPLOAD_ERROR] = str(exc)
        return str(exc)
    ss[UPLOAD_TEXT], ss[UPLOAD_NAME], ss[UPLOAD_ERROR] = text, name, None
    ss[RESET_STEP] = True
    ss[UPLOAD_CHANGED] = True
    return None


def on_upload(widget_key: str) -> None:
    interaction(editing=True)
    stop_playing()
    f = ss.get(widget_key)
    if f is not None:
        handle_upload(f.getvalue(), f.name)


def on_upload_kind(widget_key: str) -> None:
    interaction(editing=True)
    ss[UPLOAD_KIND] = ss[widget_key]
    ss[RESET_STEP] = True
    ss[UPLOAD_CHANGED] = True


def on_toggle(widget_key: str, store_key: str, on_value: str, off_value: str) -> None:
    interaction()
    stop_playing()
    ss[store_key] = on_value if ss[widget_key] else off_value


def on_plain(widget_key: str, store_key: str) -> None:
    interaction()
    ss[store_key] = ss[widget_key]


# ---- sharing -------------------------------------------------------------------------------
def link_params() -> dict[str, str]:
    corpus, s = active_corpus()
    return to_params(corpus, s, ss[STEP], view=ss[LAYOUT], mode=ss[MODE])


def sync_url() -> None:
    """Write the view into the URL (sidebar navigation drops it; this puts it back)."""
    params = link_params()
    current = {k: st.query_params[k] for k in st.query_params}
    if current != params:
        st.query_params.from_dict(params)


def publish(view: RunView) -> None:
    """Let the other pages use this session's tokenizer at the current step, labelled
    from this session's own corpus (its file name, never another session's)."""
    active = ss.get(ACTIVE)
    label = describe(active[1], active[2]) if active is not None and active[0] == view.key else ""
    publish_run(view.run, ss[STEP], label)


def record_answer(key: str, k: int, result: dict[str, Any]) -> None:
    ss[RESULTS] = {**ss[RESULTS], (key, k): result}


def reset_score() -> None:
    interaction()
    ss[RESULTS] = {}

