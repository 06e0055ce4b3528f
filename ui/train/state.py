"""Train page, Streamlit part 1: session state, the shared run cache, training, the URL.

Per session (keys "train.*", declared below as ui.shared.state.Key): the corpus choice, the
settings, the step, play/pause, the view and mode, and predict-mode results. The real values
live under non-widget keys and are kept in their widgets (`KEY.widget(...)`), so
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

# Non-widget keys: the real values, with their defaults (`init` stores the first block's).
SOURCE: Key[str] = Key("train.source", "preset")
PRESET: Key[str] = Key("train.preset", DEFAULT_PRESET)
TEXT: Key[str] = Key("train.text", DEFAULT_TEXT)
WORDS: Key[str] = Key("train.words", DEFAULT_WORDS)
UPLOAD_TEXT: Key[str | None] = Key("train.upload_text", None)
UPLOAD_NAME: Key[str] = Key("train.upload_name", "")
UPLOAD_KIND: Key[str] = Key("train.upload_kind", "text")
UPLOAD_ERROR: Key[str | None] = Key("train.upload_error", None)
STEP: Key[int] = Key("train.step", 0)
PLAYING: Key[bool] = Key("train.playing", False)
SPEED: Key[str] = Key("train.speed", "normal")
LAYOUT: Key[str] = Key("train.layout", "normal")  # "normal" or "present" (a link's `view=`)
MODE: Key[str] = Key("train.mode", "explore")     # "explore" or "predict"
HIDE_COUNTS: Key[bool] = Key("train.hide_counts", True)
ERROR: Key[str | None] = Key("train.error", None)  # message for the requested corpus/settings, or None
RESET_STEP: Key[bool] = Key("train.reset_step", False)
PENDING_STEP: Key[int | None] = Key("train.pending_step", None)
LINK_PROBLEMS: Key[tuple[str, ...]] = Key("train.link_problems", ())
EDITING: Key[bool] = Key("train.editing", False)  # the reader is changing the corpus or settings: keep them open
FAILED: Key[dict[str, str]] = Key("train.failed", {})  # run key -> message, so a bad setting is not retried each rerun
RESULTS: Key[dict[tuple, dict]] = Key("train.results", {})  # predict mode: (run key, step) -> {"pair": grade, "split": bool | None}
#: What `init` stores once per session (a dict default is copied per session).
INITIAL = (SOURCE, PRESET, TEXT, WORDS, UPLOAD_TEXT, UPLOAD_NAME, UPLOAD_KIND, UPLOAD_ERROR, STEP, PLAYING, SPEED,
           LAYOUT, MODE, HIDE_COUNTS, ERROR, RESET_STEP, PENDING_STEP, LINK_PROBLEMS, EDITING, FAILED, RESULTS)

INIT: Key[bool] = Key("train.init", False)
#: the upload fragment's callbacks changed the corpus: the fragment reruns the whole page
UPLOAD_CHANGED: Key[bool] = Key("train.upload_changed", False)
ACTIVE: Key[tuple | None] = Key("train.active", None)  # (key, Corpus, Settings) of the run on screen
VIEW_OBJ: Key[RunView | None] = Key("train.view_obj", None)  # the RunView on screen (this session's own reference)
CONTINUE_STEP: Key[int | None] = Key("train.continue_step", None)  # "Train more merges": the step to go on to once retrained
SKIP_TICK: Key[bool] = Key("train.skip_tick", False)
APP_RERUN: Key[bool] = Key("train.app_rerun", False)
END_PENDING: Key[bool] = Key("train.end_pending", False)  # play reached the end; the next tick stops the timer
#: The page's full run drew the sidebar's line for a student following a class (no step in
#: it): the step area draws the line itself again only after a full run (`panels.step_area`).
CAPTION_FOLLOWS: Key[bool] = Key("train.caption_follows", False)
SETTINGS_NEEDED: Key[bool] = Key("train.settings_needed", False)  # the corpus and settings box was opened for attention

SETTING = KeyFamily("train.s.")  # + a Settings field name
PREDICT_NOTE: Key[str | None] = Key("train.predict_note", None)  # predict mode: the note on the last answer
DL_SCOPE: Key[str] = Key("train.dl_scope", "step")  # "Download and share": the step or the whole run
EXPORT_PROBLEMS: Key[tuple | None] = Key("train.export_problems", None)  # (run, n, problems): which export formats fit (downloads.py)
#: Every widget key of the page: `train_w_<name>`.
WIDGETS = KeyFamily("train_w_")
STEP_SLIDER: Key[int] = WIDGETS.key("step", 0)  # the step slider (its value: the step asked for)

#: Seconds per step while playing.
SPEEDS: dict[str, float] = {"slow": 2.0, "normal": 1.0, "fast": 0.5, "fastest": 0.3}
#: Corpora longer than this (characters) show a progress bar while training.
PROGRESS_FROM = 20_000

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
    if INIT.get():
        return
    for key in INITIAL:
        key.init()
    set_settings(load_presets()[DEFAULT_PRESET].settings)
    restore_from_link({k: st.query_params[k] for k in st.query_params})
    INIT.set(True)


def restore_from_link(params: dict[str, str]) -> None:
    """Take corpus, settings, step, view and mode from a link's query parameters."""
    if not params:
        return
    r = from_params(params)
    if r.corpus is not None:
        if r.corpus.source == "preset":
            SOURCE.set("preset")
            PRESET.set(r.corpus.preset)
        elif r.corpus.kind == "words":
            SOURCE.set("words")
            WORDS.set(r.corpus.text)
        else:
            SOURCE.set("text")
            TEXT.set(r.corpus.text)
    if r.settings is not None:
        set_settings(r.settings)
    PENDING_STEP.set(r.step)
    LAYOUT.set(r.view)
    MODE.set(r.mode)
    LINK_PROBLEMS.set(r.problems)


def setting(name: str) -> Key[Any]:
    """The key of one Settings field (`train.s.<name>`)."""
    return SETTING.key(name)


def settings() -> Settings:
    return Settings(**{f.name: setting(f.name).get() for f in fields(Settings)})


def set_settings(s: Settings) -> None:
    for name, value in asdict(s).items():
        setting(name).set(value)


def requested_corpus() -> Corpus | None:
    """The corpus the inputs ask for (None while the upload source has no file yet)."""
    source = SOURCE.get()
    if source == "preset":
        return preset_corpus(PRESET.get())
    if source == "text":
        return Corpus("text", "text", TEXT.get())
    if source == "words":
        return Corpus("words", "words", WORDS.get())
    if UPLOAD_TEXT.get() is None:
        return None
    return Corpus("upload", UPLOAD_KIND.get(), UPLOAD_TEXT.get(), name=UPLOAD_NAME.get())


def ensure_run() -> RunView:
    """The run to show: the requested one if it trains, else the previous one (with the
    engine's message in ERROR). Sets the step for a new run."""
    UPLOAD_CHANGED.pop()  # a full run: it reads the new upload itself
    corpus = requested_corpus()
    active = ACTIVE.get()
    if corpus is not None:
        s = settings()
        try:
            key = run_key(corpus, s)
        except ValueError as exc:  # the engine's message about this input (a TypeError is a bug)
            key = None
            ERROR.set(str(exc))
        if key is not None and active is not None and key == active[0]:
            ERROR.set(None)
        elif key is not None:
            if key in FAILED.get():
                ERROR.set(FAILED.get()[key])
            else:
                try:
                    view = train_view(corpus, s, key=key)
                except ValueError as exc:
                    FAILED.get()[key] = str(exc)
                    ERROR.set(str(exc))
                    RESET_STEP.set(False)
                else:
                    _activate(view, corpus, s)
                    publish(view)

    if ACTIVE.get() is None:  # nothing good yet (e.g. a link with a bad word list)
        corpus, s = preset_corpus(DEFAULT_PRESET), load_presets()[DEFAULT_PRESET].settings
        view = train_view(corpus, s)
        _activate(view, corpus, s, keep_error=True)
        return view
    view = current_view()
    goto = take_train_step_request()  # "open training step N", from the Tokenize page's replay
    if goto is not None:
        PLAYING.set(False)
        STEP.set(max(0, min(int(goto), view.steps)))
        publish(view)
    return view


def _activate(view: RunView, corpus: Corpus, s: Settings, *, keep_error: bool = False) -> None:
    ACTIVE.set((view.key, corpus, s))
    VIEW_OBJ.set(view)
    if not keep_error:
        ERROR.set(None)
    if PENDING_STEP.get() is not None:
        want = PENDING_STEP.get()
        if want > view.steps:
            LINK_PROBLEMS.set(tuple(LINK_PROBLEMS.get()) + (
                f"The link asks for step {want}, but this training run has {view.steps} merges; showing the last step.",))
        STEP.set(min(want, view.steps))
        PENDING_STEP.set(None)
    elif RESET_STEP.get():
        STEP.set(0)
    elif CONTINUE_STEP.get() is not None:
        STEP.set(min(CONTINUE_STEP.pop(), view.steps))
    else:
        STEP.set(min(STEP.get(), view.steps))
    RESET_STEP.set(False)


def current_view() -> RunView:
    """The run on screen: this session's own reference, else the shared cache, else
    trained again quietly."""
    key, corpus, s = ACTIVE.get()
    view = VIEW_OBJ.get()
    if view is not None and view.key == key:
        return view
    view = shared_runs().get(key) or train_view(corpus, s, key=key, progress=False)
    VIEW_OBJ.set(view)
    return view


def active_corpus() -> tuple[Corpus, Settings]:
    _, corpus, s = ACTIVE.get()
    return corpus, s


# ---- stepping ------------------------------------------------------------------------------
def step() -> int:
    return STEP.get()


def interaction(*, editing: bool = False) -> None:
    """Every callback: this rerun comes from the user, not the play timer. `editing`:
    the corpus or a setting changed (the settings stay open); stepping folds them."""
    SKIP_TICK.set(True)
    EDITING.set(editing)


def set_step(k: int) -> None:
    view = current_view()
    STEP.set(max(0, min(k, view.steps)))
    publish(view)  # before the script runs, so the sidebar shows the new step


def on_step_forward() -> None:
    interaction()
    set_step(STEP.get() + 1)


def on_step_back() -> None:
    interaction()
    PLAYING.set(False)
    set_step(STEP.get() - 1)


def on_reset() -> None:
    interaction()
    if PLAYING.get():
        PLAYING.set(False)
        APP_RERUN.set(True)
    set_step(0)


def on_goto(k: int) -> None:
    """A row of the merge list: go to that merge's step (play stops)."""
    interaction()
    if PLAYING.get():
        PLAYING.set(False)
        APP_RERUN.set(True)
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
        setting("vocab_size").set(int(s.vocab_size) + extra)
    else:
        setting("merges").set(int(s.merges) + extra)
    CONTINUE_STEP.set(view.steps + 1)
    APP_RERUN.set(True)


def on_skip(key: str, k: int) -> None:
    """Predict mode's Skip: the question at step k counts as skipped, then the merge."""
    interaction()
    view = current_view()
    if view.key != key or STEP.get() != k or k >= view.steps:
        return
    if (key, k) not in RESULTS.get():
        record_answer(key, k, {"pair": "skipped", "picked": None, "split": None})
    set_step(k + 1)


def on_jump() -> None:
    """The slider moved. While playing, a value one step behind is the browser's echo
    of a tick whose drawing a newer tick cut short (the slider still shows the previous
    step), not a jump: taking it would step play backwards. The same holds on the tick
    after the last merge (play has stopped, the full rerun that switches the timer off
    is pending): the echo there would end a play one step short of the end."""
    interaction()
    value = int(STEP_SLIDER.get())
    if (PLAYING.get() or END_PENDING.get()) and STEP.get() - 1 <= value <= STEP.get():
        return
    set_step(value)


def on_play_pause() -> None:
    """Play or pause. The timer (`run_every`) is read on full reruns, so this asks for one."""
    interaction()
    view = current_view()
    if PLAYING.get():
        PLAYING.set(False)
    else:
        if STEP.get() >= view.steps:
            STEP.set(0)  # at the end, Play starts over
        PLAYING.set(True)
    APP_RERUN.set(True)


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
    SPEED.set(next_speed(SPEED.get()))
    if PLAYING.get():
        APP_RERUN.set(True)


def stop_playing() -> None:
    PLAYING.set(False)


def tick(view: RunView) -> bool:
    """One play step. Returns True when play stopped at the last merge (the page then
    reruns the whole app on the next tick, which switches the timer off)."""
    if not PLAYING.get():
        return False
    if STEP.get() < view.steps:
        STEP.set(STEP.get() + 1)
        publish(view)
    if STEP.get() >= view.steps:
        PLAYING.set(False)
        return True
    return False


def take_skip_tick() -> bool:
    return bool(SKIP_TICK.pop())


def take_app_rerun() -> bool:
    return bool(APP_RERUN.pop())


# ---- inputs --------------------------------------------------------------------------------
# The widgets' on_change, after `Key.widget` has stored the new value.
def on_source() -> None:
    interaction(editing=True)
    stop_playing()
    RESET_STEP.set(True)
    if SOURCE.get() == "words" and not WORDS.get().strip():
        WORDS.set(DEFAULT_WORDS)


def on_preset() -> None:
    """A new preset brings its own default settings and starts at step 0."""
    interaction(editing=True)
    stop_playing()
    set_settings(load_presets()[PRESET.get()].settings)
    RESET_STEP.set(True)


def on_corpus_text() -> None:
    interaction(editing=True)
    stop_playing()
    RESET_STEP.set(True)


def on_setting(name: str) -> None:
    """A setting changed: retrain (cached); the step stays where it was if it exists, so
    a student can flip the tie rule at step 4 and compare."""
    interaction(editing=True)
    stop_playing()
    value = setting(name).get()
    if name in ("merges", "vocab_size", "min_count") and value is not None:
        value = int(value)
        setting(name).set(value)
    if name == "stop" and value == "vocab" and ACTIVE.get() is not None:
        # start from the vocabulary the current run reaches, so the switch alone changes nothing
        run = current_view().run
        setting("vocab_size").set(run.vocab_size(run.steps))


def handle_upload(data: bytes | None, name: str) -> str | None:
    """Store an uploaded file's text; return an error message (the previous corpus is
    kept) or None. `data` None means the file was removed: keep what was read."""
    if data is None:
        return None
    try:
        text = read_upload(data, name)
    except ValueError as exc:
        UPLOAD_ERROR.set(str(exc))
        return str(exc)
    UPLOAD_TEXT.set(text)
    UPLOAD_NAME.set(name)
    UPLOAD_ERROR.set(None)
    RESET_STEP.set(True)
    UPLOAD_CHANGED.set(True)
    return None


def on_upload(uploader: Key[Any]) -> None:
    interaction(editing=True)
    stop_playing()
    f = uploader.get()
    if f is not None:
        handle_upload(f.getvalue(), f.name)


def on_upload_kind() -> None:
    interaction(editing=True)
    RESET_STEP.set(True)
    UPLOAD_CHANGED.set(True)


def on_toggle(toggle: Key[bool], store: Key[str], on_value: str, off_value: str) -> None:
    """A toggle over a two-valued setting (predict mode, presentation view)."""
    interaction()
    stop_playing()
    store.set(on_value if toggle.get() else off_value)


# ---- sharing -------------------------------------------------------------------------------
def link_params() -> dict[str, str]:
    corpus, s = active_corpus()
    return to_params(corpus, s, STEP.get(), view=LAYOUT.get(), mode=MODE.get())


def sync_url() -> None:
    """Write the view into the URL (sidebar navigation drops it; this puts it back)."""
    params = link_params()
    current = {k: st.query_params[k] for k in st.query_params}
    if current != params:
        st.query_params.from_dict(params)


def publish(view: RunView) -> None:
    """Let the other pages use this session's tokenizer at the current step, labelled
    from this session's own corpus (its file name, never another session's)."""
    active = ACTIVE.get()
    label = describe(active[1], active[2]) if active is not None and active[0] == view.key else ""
    publish_run(view.run, STEP.get(), label)


def record_answer(key: str, k: int, result: dict[str, Any]) -> None:
    RESULTS.set({**RESULTS.get(), (key, k): result})


def reset_score() -> None:
    interaction()
    RESULTS.set({})

