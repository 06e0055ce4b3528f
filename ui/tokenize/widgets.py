"""The Tokenize page's Streamlit sections: controls, counts, tokens, and the five views.

views/tokenize.py calls these in order; each section draws widgets, calls the engine
(through ui/tokenize/logic.py) and draws HTML built by ui/tokenize/html.py.

State: every setting lives under a non-widget key `tokenize.<name>` (ui/tokenize/keys.py)
and is kept in its widget `tokenize_w_<name>` with `KEY.widget(...)` (ui/shared/state.py),
so settings survive a visit to another page. The URL carries the tokenizer, short text and
the view (`sync_from_url` once per new link, `sync_to_url` at the end of each run).

Sharing: the three OpenAI tokenizers are loaded once per server process
(`st.cache_resource`) and only read; analyses of (tokenizer, text) pairs, which are
frozen, and their HTML are shared through byte-bounded caches (ui.shared.cache), keyed by
the text itself, so a session only gets the analysis of exactly the text it pasted. The
session's own tokenizer comes from `ui.shared.state.session_tokenizer()`.
"""
from __future__ import annotations

import html
import json
from collections.abc import Callable

import pandas as pd
import streamlit as st

from bpe_core import Tokenizer
from bpe_core.display import visible_text
from bpe_core.formats.pipeline import PipelineTokenizer
from bpe_core.pretrained import PRETRAINED, load_pretrained
from ui.shared.cache import byte_cached
from ui.shared.chip_pick import chip_pick
from ui.shared.live_text import live_text, stale_css
from ui.shared.markdown import md_error, md_escape
from ui.shared.tables import table_html
from ui.shared.state import (
    STEP_KEY, folded, request_train_step, session_label, session_run, session_step, session_tokenizer,
)
from ui.shared.stepper import clamped_step, step_controls
from ui.tokenize import explain, keys, upload
from ui.tokenize.html import (
    TOKENIZE_CSS, chip_html_for, counts_html, ids_html, pieces_html, replay_html, symbol_text, text_html,
)
from ui.tokenize.logic import (
    COMPARE_DRAW_LIMIT_BYTES, COUNT_LIMIT_BYTES, DRAW_LIMIT_BYTES, EXAMPLES, IDS_SHOWN_LIMIT,
    OPTION_LIMIT, TOKENIZER_CHOICES, PANELS, YOURS, has_merges,
    Analysis, analyse, default_replay_token, hex_bytes, human_bytes, parse_ids, pieces_of,
    PieceTokens, read_url, special_in_text, token_rank, top_tokens, url_for,
)

#: A one-shot request for the Train page: "open at this step" (it should pop it and go
#: there). STEP_KEY is set too, but the Train page republishes its own step on each run.

#: Longest piece (in UTF-8 bytes) the replay view steps through.
REPLAY_LIMIT = 1000

#: Chips (and ids in the ids view) drawn at first; "Show all" draws the rest (up to
#: DRAW_LIMIT_BYTES of text). 1,000 chips are ~80 kB of HTML and fill the scroll box
#: several times; 100 kB of text is ~23,000 chips and 1.8 MB, most of a paste's time in
#: the browser (bench/README.md). The token being replayed is always drawn.
CHIP_LIMIT = 1_000

#: Text left and tokens right on a wide screen (>= 1200 px); stacked on narrower ones, where
#: the "Side by side" toggle is hidden (it would do nothing). On a phone (< 640 px) the
#: tokens come right after the text: the columns are flattened into one flex column
#: (`display: contents`) and the display options and the counts move below the tokens
#: (`order`), the text box is shorter and the page's top margin smaller, so the first
#: token is on the first screen.
SPLIT_CSS = """<style>
@media (max-width: 1199.98px) {
  .st-key-tokenize-split [data-testid="stHorizontalBlock"] { flex-wrap: wrap; }
  .st-key-tokenize-split [data-testid="stColumn"] { flex: 1 1 100% !important; min-width: 100% !important; }
  .st-key-tokenize_w_side { display: none; }
}
@media (max-width: 640px) {
  .st-key-tokenize-split [data-testid="stHorizontalBlock"] { flex-direction: column; flex-wrap: nowrap; gap: 1rem; }
  .st-key-tokenize-split [data-testid="stColumn"],
  .st-key-tokenize-split [data-testid="stColumn"] > [data-testid="stVerticalBlock"] { display: contents; }
  .st-key-tokenize-split [data-testid="stLayoutWrapper"]:has(> .st-key-tokenize-options) { order: 1; }
  .st-key-tokenize_w_text textarea { height: 4.5rem !important; min-height: 0 !important; }
  .st-key-tokenize-tokens > [data-testid="stElementContainer"]:has(.bpe-counts) { order: 1; }
  .bpe-count-value { font-size: 1.3rem; }
  [data-testid="stMainBlockContainer"] { padding-top: 2rem; }
  /* thirteen real tokenizers and two of yours: the choice in tighter buttons (four rows) */
  .st-key-tokenize_w_tokenizer button { padding: 0.1rem 0.5rem; min-height: 2rem; }
  .st-key-tokenize-compare .bpe-scroll { max-height: none; overflow-y: visible; }
  .st-key-tokenize-view .bpe-table th, .st-key-tokenize-view .bpe-table td { padding: 0.25rem 0.4rem; }
  .st-key-tokenize-view .bpe-table .bar { display: none; }  /* "vs. fewest" says it in a number */
}
</style>"""

#: The tokens (and counts) marked "Updating…" while the typed text is not applied yet;
#: the Text box's own hint "Press Ctrl+Enter to apply" is hidden (typing applies itself).
LIVE_CSS = ("<style>" + stale_css("tokenize-tokens")
            + '.st-key-tokenize_w_text [data-testid="InputInstructions"] { display: none; }</style>')

W = keys.WIDGETS         # widget keys

SHORT_NAMES = {YOURS: "Yours", **{name: p.short for name, p in PRETRAINED.items()}}
SHORT_NAMES[upload.UPLOADED] = upload.SHORT_NAME

INJECTION_NOTE = (
    "Why this matters: a special token is a control signal to the model. "
    "`<|endoftext|>` means \"this document is over\"; chat models have similar tokens that "
    "mark who is speaking. If text pasted by a user could turn into the real special id, the "
    "user could end a prompt early or forge a new turn: a **token injection**. So tokenizers "
    "encode typed special-token text as ordinary characters unless the program opts in "
    "(tiktoken's `allowed_special`)."
)


# ---- state ------------------------------------------------------------------------------
def init_state() -> None:
    """Stored values exist once per session; then a new link's query parameters win."""
    for key in keys.SETTINGS.values():
        key.init()
    sync_from_url()


def sync_from_url() -> None:
    """Apply the URL's settings when they are new (a shared link), not our own echo.

    Sidebar navigation drops the query parameters; then nothing is applied and the
    session's settings stay.
    """
    params = st.query_params.to_dict()
    if not params or params == keys.URL_WRITTEN.get():
        return
    found, warnings = read_url(params)
    for name, value in found.items():
        keys.SETTINGS[name].set(value)
    if "token" in found:
        keys.REPLAY_STEP.set(0)
        keys.TOKEN_FOR.set(_signature())
    keys.URL_WRITTEN.set(params)
    keys.URL_WARNINGS.set(warnings)


def sync_to_url() -> None:
    """Write the current view into the URL so copying it reproduces the view."""
    params = url_for(
        tokenizer=keys.TOKENIZER.get(), text=keys.TEXT.get(), special=keys.SPECIAL.get(), view=keys.VIEW.get(),
        token=keys.TOKEN.get(), compare=keys.COMPARE.get(), ids=keys.IDS.get(),
    )
    if params != st.query_params.to_dict():
        st.query_params.from_dict(params)
    keys.URL_WRITTEN.set(params)


def _signature() -> tuple:
    return (keys.TOKENIZER.get(), keys.TEXT.get(), keys.SPECIAL.get())


def _bind(name: str, **kwargs) -> dict:
    """The setting `name` kept in its widget `tokenize_w_<name>` (`Key.widget`)."""
    return keys.SETTINGS[name].widget(W + name, **kwargs)


# ---- tokenizers -------------------------------------------------------------------------
# Shared across sessions: an analysis is frozen, so sessions read the same object. Bounded
# in bytes: a 2 MB text's analysis holds ~450,000 ids (a few MB).
@byte_cached("tokenize.analyses")
def _analyse_openai(name: str, text: str, allow_special: bool) -> Analysis:
    return analyse(load_pretrained(name), text, allow_special=allow_special)


@byte_cached("tokenize.html")
def _text_html_openai(name: str, text: str, allow_special: bool, show_ws: bool, highlight: int | None,
                      _a: Analysis, ids: bool = False, limit: int | None = None) -> str:
    """The drawing of an analysis (`_a`, the one for the other arguments: not in the key),
    its first `limit` tokens (all if None)."""
    spans = _a.first(limit)
    return text_html(text, spans, load_pretrained(name), show_whitespace=show_ws, highlight=highlight,
                     complete=_a.complete and len(spans) == _a.n_spans, css=False, ids=ids)


def tokenizer_for(choice: str) -> Tokenizer | None:
    if choice == upload.UPLOADED:
        return upload.uploaded_tokenizer()
    return session_tokenizer() if choice == YOURS else load_pretrained(choice)


def analysis_for(choice: str, text: str, allow_special: bool) -> Analysis:
    if choice in (YOURS, upload.UPLOADED):
        tok = tokenizer_for(choice)
        assert tok is not None
        return analyse(tok, text, allow_special=allow_special)
    return _analyse_openai(choice, text, allow_special)


def tokens_markup(choice: str, text: str, a: Analysis, *, show_ws: bool, highlight: int | None,
                  ids: bool = False, limit: int | None = None) -> str:
    """The text's chips (its first `limit` tokens, or all), ids under them if `ids`."""
    if limit is not None and limit >= a.n_spans:
        limit = None
    if choice in (YOURS, upload.UPLOADED):
        spans = a.first(limit)
        return text_html(text, spans, tokenizer_for(choice), show_whitespace=show_ws, highlight=highlight,
                         complete=a.complete and limit is None, css=False, ids=ids)
    return _text_html_openai(choice, text, a.allow_special, show_ws, highlight, a, ids, limit)


def title_of(choice: str) -> str:
    if choice == upload.UPLOADED:
        return upload.title()
    if choice == YOURS:
        run = session_run()
        if run is None:
            return "Your tokenizer (none trained yet)"
        step = session_step()
        return f"Your tokenizer: {session_label() or 'trained on the Train page'} — step {step}, vocabulary {run.vocab_size(step):,}"
    return PRETRAINED[choice].title


# ---- controls ----------------------------------------------------------------------------
def _load_example() -> None:
    choice = keys.EXAMPLE_PILLS.get()
    if choice:
        keys.TEXT.set(EXAMPLES[choice])
        if choice == "Special token":
            keys.SPECIAL.set(False)
    keys.EXAMPLE_PILLS.set(None)


def controls() -> None:
    """Tokenizer choice, example texts, the text, and the two display options."""
    st.html(TOKENIZE_CSS + SPLIT_CSS + LIVE_CSS)  # the page's CSS, once (SPLIT_CSS applies only to the split layout)
    for warning in keys.URL_WARNINGS.pop():
        st.warning(md_escape(warning))
    upload.load_pending()  # a new upload: read it (with progress) before the choice is drawn
    cb = _bind("tokenizer")
    # wrap=True here and on the examples: in a column Streamlit keeps a button group on one
    # scrolling row and, once drawn, scrolls its selected option into view (getBoundingClientRect
    # and getComputedStyle: a forced layout of the whole page, ~0.2 s of a first load here,
    # bench/README.md). Wrapped, every option also shows on a phone.
    st.segmented_control(
        "Tokenizer", TOKENIZER_CHOICES + (upload.UPLOADED,), format_func=SHORT_NAMES.get, required=True,
        wrap=True, **cb,
        help="GPT-2, GPT-4 (cl100k_base) and GPT-4o (o200k_base) use OpenAI's original files, "
             "encoded by this app's own engine (identical ids to tiktoken). 'Yours' is the "
             "tokenizer you trained on the Train page, at its current step.",
    )
    st.caption(md_escape(title_of(keys.TOKENIZER.get())))
    upload.uploader()
    st.pills("Examples", list(EXAMPLES), key=keys.EXAMPLE_PILLS, on_change=_load_example, wrap=True,
             help="Load an example text (it replaces the text below).")
    cb = _bind("text")
    st.text_area(
        "Text", height=170, placeholder="Type or paste any text…", **cb,
        help=f"Up to {human_bytes(DRAW_LIMIT_BYTES)} is drawn token by token; up to "
             f"{human_bytes(COUNT_LIMIT_BYTES)} is counted. The tokens follow as you type (after a short "
             "pause; a paste at once); Ctrl+Enter applies at once. "
             "Half of an emoji (an unpaired surrogate) cannot be sent to the server: it is replaced by �.",
    )
    with st.container(horizontal=True, gap="medium", key="tokenize-options"):  # wraps when narrow
        cb = _bind("show_ws")
        st.toggle("Show whitespace and invisible characters", **cb,
                  help="· space, ↵ newline, → tab, ⍽ no-break space; characters that draw nothing are "
                       "named, e.g. ⟨ZWJ⟩ (zero-width joiner, glues emoji together) or ⟨VS16⟩.")
        cb = _bind("show_ids")
        st.toggle("Ids on the chips", **cb,
                  help="Each token's id (the number the model sees) under its chip. "
                       "Tap or click a chip for its id, bytes and rank.")
        cb = _bind("side")
        st.toggle("Side by side", **cb,
                  help="On a wide screen (1200 px or more): the text on the left, its tokens on the "
                       "right. Narrower screens always stack them (and do not show this switch).")
        cb = _bind("special")
        st.checkbox(
            "Allow special tokens", **cb,
            help="Off (the safe default): text such as <|endoftext|> is encoded as ordinary "
                 "characters. On: it becomes the tokenizer's one special id, as if the program "
                 "had inserted it (tiktoken's allowed_special='all').",
        )


def chips_open_replay() -> None:
    """A click, tap or Enter on a chip of the text opens that token's replay
    (ui/shared/chip_pick.py)."""
    chip_pick("tokenize-tokens", key=W.key("pick"), on_pick=open_replay, runs=".bpe-tokens.bpe-scroll")


def open_replay(i: int, run: int = 0) -> None:
    """The Replay view of the text's token number i (0-based), if it is listed there."""
    if run != 0 or not 0 <= i < OPTION_LIMIT:
        return
    keys.VIEW.set("replay")
    keys.REPLAY_SOURCE.set("text")
    keys.EXPLAIN_SOURCE.set("text")
    keys.TOKEN.set(i)
    keys.REPLAY_STEP.set(0)
    keys.TOKEN_FOR.set(_signature())


def live_typing() -> None:
    """Tokenize as the user types: the Text box applies itself after a pause (ui/shared/live_text.py)."""
    live_text(W + "text", "tokenize-tokens", keys.TEXT.get(), key=W + "live", runs_key=keys.LIVE_RUNS)


def layout():
    """Two places, for the text and for the tokens: side by side (a wide screen, when
    the option is on; narrower screens stack them), or one above the other."""
    if not keys.SIDE.get():
        return st.container(), st.container()
    with st.container(key="tokenize-split"):  # its CSS (SPLIT_CSS) comes with the controls
        return tuple(st.columns([2, 3], gap="medium"))


def no_tokenizer_yet() -> bool:
    """If 'Yours' is chosen but nothing is trained: say so, link to Train, return True."""
    if keys.TOKENIZER.get() == upload.UPLOADED:
        return upload.uploaded_tokenizer() is None
    if keys.TOKENIZER.get() != YOURS or session_tokenizer() is not None:
        return False
    st.info(
        "You have not trained a tokenizer in this session yet. Train one on the Train page "
        "(even a few merges on the toy corpus will do), then come back: this page will use it, "
        "at whatever step the Train page is on."
    )
    st.page_link("views/train.py", label="Go to the Train page", icon=":material/model_training:")
    return True


# ---- counts, notices and tokens -----------------------------------------------------------
def current_analysis() -> Analysis | None:
    """Analyse the current text with the current tokenizer, or show why not."""
    text = keys.TEXT.get()
    if not text:
        st.info("Type or paste some text above, or pick an example.")
        return None
    try:
        with st.spinner("Tokenizing…"):
            return analysis_for(keys.TOKENIZER.get(), text, keys.SPECIAL.get())
    except ValueError as exc:
        st.error(md_error(exc))
        return None


def counts(a: Analysis) -> None:
    """The five counts in one static HTML block (html.counts_html: no metric scripts)."""
    st.html(counts_html([
        ("Tokens", f"{a.n_tokens:,}", ""),
        ("Characters", f"{a.n_chars:,}", "Unicode code points (what Python's len counts)."),
        ("Bytes", f"{a.n_bytes:,}", "UTF-8 bytes: what a byte-level tokenizer starts from."),
        ("Characters per token", f"{a.chars_per_token:.2f}", "Higher is more compact: fewer tokens for the same text."),
        ("Pieces", f"{a.n_pieces:,}",
         "Pre-tokenization pieces: the regex cuts the text first, and merges never cross a cut."),
    ]))
    if a.n_unknown:
        st.warning(
            f"{a.n_unknown:,} character{'s are' if a.n_unknown != 1 else ' is'} not in your tokenizer's "
            "vocabulary: it was trained on characters and never saw "
            f"{'them' if a.n_unknown != 1 else 'it'}, so there is no id (dashed chips, '?' in the ids). "
            "Byte-level tokenizers (GPT-2, GPT-4) never have this problem: every text is bytes."
        )


def special_notice(a: Analysis) -> None:
    """When the text contains special-token strings: one id versus several, and why."""
    tok = tokenizer_for(keys.TOKENIZER.get())
    found = special_in_text(tok, keys.TEXT.get())
    if not found:
        return
    s = found[0]
    special_id = tok.special_tokens[s]
    as_text = tok.token_spans(s)
    text_chips = text_html(s, as_text, tok, css=False, scroll=False)
    special_chip = chip_html_for(tok, special_id, 0, title=f"id {special_id} · special token")
    n = len(as_text)
    others = f" (and {len(found) - 1} other special token{'s' if len(found) > 2 else ''})" if len(found) > 1 else ""
    if keys.SPECIAL.get():
        head = (f"Special tokens are **allowed**: **{md_escape(s)}**{others} became the single special id "
                f"**{special_id}**. Untick the box to see it as ordinary text ({n} tokens).")
        st.warning(head + "\n\n" + INJECTION_NOTE, icon=":material/warning:")
    else:
        head = (f"Your text contains **{md_escape(s)}**{others}. It is encoded as **ordinary text**: {n} tokens, "
                f"not the special id {special_id}. Tick **Allow special tokens** to see the difference.")
        st.info(head + "\n\n" + INJECTION_NOTE, icon=":material/shield:")
    st.html(
        '<div class="bpe-big" style="display:grid;grid-template-columns:max-content 1fr;gap:0.3rem 1rem;align-items:center">'
        f"<div>As ordinary text ({n} token{'s' if n != 1 else ''}, ids {', '.join('?' if x.id is None else str(x.id) for x in as_text)}):</div>{text_chips}"
        f'<div>As the special token (1 token, id {special_id}):</div><div class="bpe-tokens">{special_chip}</div></div>'
    )


def tokens(a: Analysis, *, highlight: int | None) -> None:
    """The text as coloured tokens (all, or a preview for long text)."""
    text = keys.TEXT.get()
    if not a.complete:
        st.info(
            f"This text is {human_bytes(a.n_bytes)}. Every one of its {a.n_tokens:,} tokens is counted, "
            + (f"but only the first {a.n_spans:,} are drawn: drawing more than " if a.n_spans else
               "but none are drawn: the text's first piece is so long that its tokens cannot be told "
               "without reading all of it, and drawing more than ")
            + f"{human_bytes(DRAW_LIMIT_BYTES)} of text token by token would make the page slow "
            "to send, to draw and to scroll, for you and everyone sharing this server. "
            "The ids, the most frequent tokens and Compare still cover the whole text."
        )
    limit = None if showing_all() else max(CHIP_LIMIT, -1 if highlight is None else highlight + 1)
    shown = a.n_spans if limit is None else min(limit, a.n_spans)
    note = (f"Showing the first {limit:,} of {a.n_spans:,} tokens ({a.n_spans - limit:,} more), "
            "so a long paste appears at once. " if shown < a.n_spans else "")
    # the chips and the note under them: one element (a caption was one more to draw on a first load)
    st.html(TOKENIZE_CSS + tokens_markup(keys.TOKENIZER.get(), text, a, show_ws=keys.SHOW_WS.get(), highlight=highlight,
                                         ids=keys.SHOW_IDS.get(), limit=limit)
            + f'<p class="bpe-caption">{html.escape(note + CHIPS_NOTE)}</p>')
    if shown < a.n_spans:
        st.button(f"Show all {a.n_spans:,} tokens", key=W + "show_all", on_click=_show_all,
                  icon=":material/unfold_more:",
                  help="Draws every token of the text. A long text takes the browser a few seconds.")


CHIPS_NOTE = (
    "Each coloured chip is one token; neighbours always differ in colour and every chip has a "
    "border. Tap or click a chip (or Tab to it and press Enter) to replay how it is built; focused, it shows its "
    "id, bytes and rank. Italic chips such as "
    "<E4><BD> are tokens that hold only part of a character (shown as bytes); bold chips are "
    "special tokens; dashed chips have no id."
)


def _show_all() -> None:
    keys.SHOW_ALL_FOR.set(_signature())


def showing_all() -> bool:
    """Whether Show all was pressed for this text (a new text starts short again)."""
    return keys.SHOW_ALL_FOR.get() == _signature()


# ---- views --------------------------------------------------------------------------------
def panel_selector() -> str:
    cb = _bind("view")
    st.segmented_control("View", list(PANELS), format_func=PANELS.get, required=True, **cb)
    return keys.VIEW.get()


def ids_json(ids) -> str:
    """The "Download all ids" file: the ids as a JSON list (an id the tokenizer lacks is null).

    >>> ids_json((15496, None, 11))
    '[15496, null, 11]'
    """
    return json.dumps(list(ids))


def view_ids(a: Analysis) -> None:
    tok = tokenizer_for(keys.TOKENIZER.get())
    ids = ["?" if i is None else str(i) for i in a.ids]
    shown = ids[:IDS_SHOWN_LIMIT if showing_all() else min(CHIP_LIMIT, IDS_SHOWN_LIMIT)]
    more = "" if showing_all() or len(shown) >= IDS_SHOWN_LIMIT else "; **Show all** above shows more"
    st.markdown(f"**{a.n_tokens:,} token ids**"
                + (f" (the first {len(shown):,} shown{more}; the download holds all)" if len(ids) > len(shown) else ""))
    # Plain text, not st.code: a code block makes the browser fetch and run its syntax
    # highlighter (1.5 MB of JavaScript) on every first load of this page, where the ids
    # view is the one open; st.text wraps the same and is part of Streamlit's main script.
    with st.container(height=200 if len(shown) > 300 else "content", key="tokenize-ids"):
        st.text(", ".join(shown))
    # Made on click (a callable: Streamlit's deferred download), not at every draw: eager data
    # is kept in the session's media files, and the browser fetches it back at once each
    # time the button is drawn (Streamlit checks its URL), ~150 kB after a 100 kB paste.
    st.download_button(
        "Download all ids (JSON)", lambda: ids_json(a.ids), file_name=f"{tok.name}_ids.json".replace(" ", "_"),
        mime="application/json", key=W + "download", on_click="ignore",
    )
    rows = [
        {"token": cell(tok, tid), "id": tid, "count": n, "share": n / a.n_tokens}
        for tid, n in top_tokens(a.ids, 20)
    ]
    # a static HTML table (ui/shared/tables.py), its heading in the same block: no data grid or
    # Arrow scripts on a first load, one element
    st.html("<p><b>Most frequent tokens</b></p>"
            + table_html(rows, bars={"share": max((r["share"] for r in rows), default=1.0)},
                         label="Most frequent tokens"))
    table_box = folded(f"Token table (the first {min(a.n_spans, OPTION_LIMIT):,} tokens)", W + "token_table")
    if table_box is None:  # drawn only once opened: 2,000 rows are ~150 kB sent at each paste
        return
    with table_box:
        table = [
            {"#": i + 1, "token": cell(tok, s.id) if s.id is not None else s.label, "id": s.id,
             "bytes": hex_bytes(s.token_bytes), "rank": token_rank(tok, s.id), "characters": f"{s.start}–{s.end}"}
            for i, s in enumerate(a.first(OPTION_LIMIT))
        ]
        st.dataframe(pd.DataFrame(table), hide_index=True)


def no_merges_note(tok, what: str) -> bool:
    """For a tokenizer without a merge list (SentencePiece): say so instead of `what`."""
    if has_merges(tok):
        return False
    if keys.TOKENIZER.get() == upload.UPLOADED:
        return bool(st.info(upload.merges_note(tok, what), icon=":material/info:")) or True
    st.info(f"**{md_escape(SHORT_NAMES.get(keys.TOKENIZER.get(), tok.name))}** is a SentencePiece model: it has "
            f"no pre-tokenizer and no merge list, so there is no {what} to show. It cuts the whole text "
            "(spaces written as ▁) into pieces from its vocabulary, by their scores. Pick a BPE "
            "tokenizer (GPT-2, GPT-4, GPT-4o, Tekken or yours) to see this view.", icon=":material/info:")
    return True


def view_pieces(a: Analysis) -> None:
    tok = tokenizer_for(keys.TOKENIZER.get())
    if isinstance(tok, PipelineTokenizer):  # a tokenizer.json: its own normalizer and pre-tokenizer
        _file_pieces(tok, a)
        return
    if no_merges_note(tok, "pre-tokenization"):
        return
    text = keys.TEXT.get()
    pieces = pieces_of(text, a.spans)
    distinct = len({p.text for p in pieces})
    st.markdown(
        f"Before any merge, the **pre-tokenizer** cuts the text into **{a.n_pieces:,} pieces** "
        f"({distinct:,} distinct{' in the drawn part' if not a.complete else ''}). BPE runs inside each "
        "piece on its own, so a token never crosses a cut: that is why ` the` and `the` are different "
        "tokens, and why a number splits into groups."
    )
    st.html(TOKENIZE_CSS + pieces_html(pieces, show_whitespace=keys.SHOW_WS.get(), css=False))
    with st.expander("The pre-tokenizer's regular expression"):
        name = tok.pretokenizer or "none"
        st.caption(f"Pre-tokenizer: {name}")
        st.code(tok.pattern or "(none: the whole text is one piece)", language=None, wrap_lines=True)


def _file_pieces(tok: PipelineTokenizer, a: Analysis) -> None:
    """The words a tokenizer.json's normalizer and pre-tokenizer cut the text into (its
    tokens are numbered by word, so the pieces come from the spans as for the others)."""
    pieces = pieces_of(keys.TEXT.get(), a.spans)
    distinct = len({p.text for p in pieces})
    st.markdown(
        f"Before its **{md_escape(tok.model_type or 'model')}** model runs, your file's normalizer and "
        f"pre-tokenizer cut the text into **{len(pieces):,} words** ({distinct:,} distinct"
        f"{' in the drawn part' if not a.complete else ''}). The model runs inside each word on its own, so a "
        "token never crosses a cut. **Replay merges** shows one word as the model receives it (normalized) "
        "and how the model splits it."
    )
    st.html(TOKENIZE_CSS + pieces_html(pieces, show_whitespace=keys.SHOW_WS.get(), css=False))


def ensure_replay_token(a: Analysis) -> None:
    """A valid token to replay: kept while the text is the same, else the default one."""
    n = min(a.n_spans, OPTION_LIMIT)
    token = keys.TOKEN.get()
    if keys.TOKEN_FOR.get() != _signature() or token is None or not 0 <= token < n:
        keys.TOKEN.set(default_replay_token(a.first(OPTION_LIMIT)) if n else None)
        keys.REPLAY_STEP.set(0)
        keys.TOKEN_FOR.set(_signature())


def replay_highlight(a: Analysis) -> int | None:
    """The token to outline in the text: the one being replayed, on the Replay view."""
    if keys.VIEW.get() != "replay" or not a.n_spans:
        return None
    tok = tokenizer_for(keys.TOKENIZER.get())
    if not (explain.from_text() if explain.explains(tok) else keys.REPLAY_SOURCE.get() == "text" and has_merges(tok)):
        return None
    ensure_replay_token(a)
    return keys.TOKEN.get()


def _token_label(tok: Tokenizer, a: Analysis, i: int) -> str:
    s = a.spans[i]
    shown = cell(tok, s.id) if s.id is not None else s.label
    return f"#{i + 1}  {shown}  (id {'?' if s.id is None else s.id})"


def view_replay(a: Analysis) -> None:
    tok = tokenizer_for(keys.TOKENIZER.get())
    if explain.explains(tok):  # an uploaded model: its replay, trace or lattice
        if a.spans:
            ensure_replay_token(a)
        explain.show(tok, a, keys.TEXT.get(), on_token=_replay_from_start, show_ws=keys.SHOW_WS.get())
        return
    if no_merges_note(tok, "replay of merges"):
        return
    cb = _bind("replay_source")
    st.segmented_control(
        "Replay", ["text", "typed"], required=True,
        format_func={"text": "A token from the text", "typed": "A word you type"}.get, **cb,
    )
    if keys.REPLAY_SOURCE.get() == "typed":
        st.text_input("Word or piece to build", max_chars=REPLAY_LIMIT, **_bind("typed", on_change=_replay_from_start),
                      help="Replayed as one piece, as if the pre-tokenizer had cut it out of a text.")
        piece = keys.TYPED.get()
        if not piece:
            st.info("Type a word, e.g. ' tokenization' (with its leading space).")
            return
        split = tok.pieces(piece)
        if len(split) > 1:
            st.caption(f"In running text the pre-tokenizer would cut this into {len(split)} pieces (below); "
                       "here it is replayed as one piece, as if it were one.")
            st.html(TOKENIZE_CSS + pieces_html(
                [PieceTokens(p, start, start + len(p), len(tok.replay(p).ids)) for p, start in split[:50]],
                show_whitespace=keys.SHOW_WS.get(), css=False))
        replay_stepper(tok, piece, None)
        return
    if not a.spans:
        st.info("No tokens to replay.")
        return
    n = min(len(a.spans), OPTION_LIMIT)
    ensure_replay_token(a)
    st.selectbox(
        f"Token to replay ({n:,} listed{'; the first ones of the text' if n < a.n_tokens else ''})",
        range(n), format_func=lambda i: _token_label(tok, a, i),
        **_bind("token", on_change=_replay_from_start),
        help="Its token is outlined in the text above. Start typing to search (e.g. #12 or a word).",
    )
    i = keys.TOKEN.get()
    span = a.spans[i]
    explorer_link(keys.TOKENIZER.get(), span.id)
    if span.special:
        st.info(f"**{md_escape(span.label)}** is a special token (id {span.id}): it is not built by merges, it was "
                "added to the vocabulary by hand and is matched as a whole, only when allowed.")
        return
    # The token's piece: the text covered by all tokens of the same piece.
    same = [s for s in a.spans if s.piece == span.piece]
    replay_stepper(tok, keys.TEXT.get()[same[0].start : max(s.end for s in same)], span.id)


def explorer_link(name: str, token_id: int | None) -> None:
    """A link to this token in the Vocabulary explorer (its id, bytes, merge tree, neighbours)."""
    if token_id is None or name not in TOKENIZER_CHOICES + (upload.UPLOADED,):
        return
    st.page_link("views/explorer.py", label=f"Look up token {token_id} in the Vocabulary explorer",
                 icon=":material/manage_search:", query_params={"tokenizer": name, "id": str(token_id)})


def cell(tok: Tokenizer, token_id: int | None) -> str:
    """A token for a table cell: bytes as <E4>, whitespace visible."""
    return visible_text(symbol_text(tok, token_id))


def _replay_from_start() -> None:
    """Another token or typed piece (stored already): its replay starts at step 0."""
    keys.REPLAY_STEP.set(0)


@st.fragment
def replay_stepper(tok: Tokenizer, piece: str, token_id: int | None) -> None:
    """Step through the merges that build `piece`: buttons, a slider, the ladder, a table.

    A fragment: stepping reruns only this part, not the whole page and its token chips.
    """
    trained = tok.merges is not None
    size = len(piece.encode("utf-8", errors="surrogatepass"))
    if size > REPLAY_LIMIT:
        st.info(f"This piece is {size:,} bytes long. Replay shows pieces of up to {REPLAY_LIMIT:,} "
                "bytes: each step redraws every symbol of the piece, and a piece this long (a run of "
                "digits or spaces, or a text with no pre-tokenizer) would take minutes. Pick a shorter "
                "token or type a word.")
        return
    replay = tok.replay(piece)
    n = len(replay.steps)
    k = clamped_step(keys.REPLAY_STEP, n)
    base_kind = "bytes" if tok.units == "byte" else "characters"
    st.markdown(
        f"The piece splits into **{len(replay.base)} base symbols** ({base_kind}); "
        f"**{n} merge{'s' if n != 1 else ''}** make{'s' if n == 1 else ''} its "
        f"**{len(replay.ids)} token{'s' if len(replay.ids) != 1 else ''}**. At each step the encoder "
        "merges the adjacent pair with the lowest rank (the earliest-learned merge)."
        + (" Keys: → next merge, ← back." if n else "")
    )
    if n:
        step_controls(k, n, store=keys.REPLAY_STEP, prefix=W, slider_key=W + "replay_step")
        st.html(_merge_caption(tok, replay, k, trained))
    elif trained and not tok.merges:
        st.info("Your tokenizer is at step 0 on the Train page: it has learned no merges yet, so every "
                "piece stays as its base symbols. Step forward on the Train page, then come back.")
        st.page_link("views/train.py", label="Go to the Train page", icon=":material/model_training:")
    else:
        st.caption("No merge applies: no adjacent pair in this piece has a rank.")
    st.html(TOKENIZE_CSS + replay_html(tok, replay, k, show_whitespace=keys.SHOW_WS.get(), trained=trained, css=False))
    if token_id is not None and len(replay.ids) > 1 and k == n:
        which = [j for j, t in enumerate(replay.ids) if t == token_id]
        if which:
            st.caption(f"The piece ends as {len(replay.ids)} tokens; the one you picked is number {which[0] + 1}.")
    if trained and k:
        rank = replay.steps[k - 1].rank
        if st.button(f"Open training step {rank} on the Train page", key=W + "to_train",
                     icon=":material/model_training:",
                     help="The Train page jumps to the step that learned this merge "
                          "(your tokenizer here then has that many merges)."):
            STEP_KEY.set(rank)
            request_train_step(rank)
            st.switch_page("views/train.py")
    if n:
        with st.expander("All merges as a table"):
            st.dataframe(pd.DataFrame([
                {"merge": j + 1, ("training step" if trained else "rank"): s.rank,
                 "left": cell(tok, s.left), "right": cell(tok, s.right),
                 "new token": cell(tok, s.token_id), "new id": s.token_id}
                for j, s in enumerate(replay.steps)
            ]), hide_index=True)


def _merge_caption(tok: Tokenizer, replay, k: int, trained: bool) -> str:
    n = len(replay.steps)
    if k == 0:
        return (f'<div class="bpe-big">Base symbols: nothing merged yet. Press <b>Next</b> '
                f"to apply merge 1 of {n}.</div>")
    s = replay.steps[k - 1]
    rank = f"training step {s.rank}" if trained else f"rank {s.rank:,}"
    def chip(tid: int, i: int) -> str:
        return chip_html_for(tok, tid, i, show_whitespace=keys.SHOW_WS.get())

    return (
        f'<div class="bpe-big"><b>Merge {k} of {n}</b> · {rank}: '
        f'<span class="bpe-tokens">{chip(s.left, 0)} + {chip(s.right, 1)} → {chip(s.token_id, 2)}</span> '
        f"(id {s.token_id:,})</div>"
    )


def view_compare(a: Analysis) -> None:
    text = keys.TEXT.get()
    options = [c for c in TOKENIZER_CHOICES if c != YOURS or session_tokenizer() is not None]
    options += [upload.UPLOADED] if upload.uploaded_tokenizer() is not None else []
    chosen = [c for c in keys.COMPARE.get() if c in options][:4]
    keys.COMPARE.set(chosen)
    cb = _bind("compare")
    # short names: a chosen tag cuts a long title with an ellipsis (the table below has the titles)
    st.multiselect("Tokenizers to compare (2 to 4)", options, max_selections=4,
                   format_func=SHORT_NAMES.get, **cb)
    chosen = keys.COMPARE.get()
    if len(chosen) < 2:
        st.info("Pick at least two tokenizers.")
        return
    results: dict[str, Analysis] = {}
    for c in chosen:
        try:
            results[c] = analysis_for(c, text, keys.SPECIAL.get())
        except ValueError as exc:
            st.error(f"{SHORT_NAMES[c]}: {md_error(exc)}")
    if not results:
        return
    fewest = min(r.n_tokens for r in results.values()) or 1
    rows = [
        {"tokenizer": title_of(c), "tokens": r.n_tokens, "characters per token": f"{r.chars_per_token:.2f}",
         "vs. fewest": f"×{r.n_tokens / fewest:.2f}"}
        for c, r in results.items()
    ]
    # a static table (ui/shared/tables.py): long names wrap instead of being cut, on a phone too
    st.html(table_html(rows, bars={"tokens": max((r["tokens"] for r in rows), default=1) or 1},
                       label="Token counts by tokenizer"))
    draw = a.n_bytes <= COMPARE_DRAW_LIMIT_BYTES
    if not draw:
        st.caption(f"The text is over {human_bytes(COMPARE_DRAW_LIMIT_BYTES)}, so only the counts are compared "
                   "(drawing it up to four times would be slow).")
        return
    # side by side on a wide screen; on a phone one below the other, each drawn whole
    # (SPLIT_CSS: no scroll box inside the page's own scrolling)
    with st.container(key="tokenize-compare"):
        cols = st.columns(len(results))
        for col, (c, r) in zip(cols, results.items()):
            with col:
                st.markdown(f"**{md_escape(SHORT_NAMES[c])}** · {r.n_tokens:,} tokens")
                st.html(TOKENIZE_CSS + tokens_markup(c, text, r, show_ws=keys.SHOW_WS.get(), highlight=None))


def _fill_ids(ids: tuple) -> None:
    keys.IDS.set(", ".join("?" if i is None else str(i) for i in ids))


def view_decode(a: Analysis | None) -> None:
    tok = tokenizer_for(keys.TOKENIZER.get())
    st.markdown(f"Turn token ids back into text with **{md_escape(title_of(keys.TOKENIZER.get()))}**.")
    cb = _bind("ids")
    st.text_area("Token ids", height=100, placeholder="e.g. 9906, 1917, 0  (commas, spaces or a [list])",
                 **cb)
    if a is not None and a.n_tokens <= IDS_SHOWN_LIMIT:
        st.button("Use the ids of the text above", key=W + "fill", on_click=_fill_ids, args=(a.ids,))
    raw = keys.IDS.get()
    if not raw.strip():
        return
    try:
        ids = parse_ids(raw)
        data = tok.decode_bytes(ids)
    except ValueError as exc:  # the engine's message about these ids (a TypeError is a bug)
        st.error(md_error(exc))
        return
    st.markdown(f"**{len(ids):,} ids → {len(data):,} bytes**")
    st.html(TOKENIZE_CSS + ids_html(tok, ids, show_whitespace=keys.SHOW_WS.get(), css=False))
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        st.warning("These ids start or stop in the middle of a character: the bytes that are not valid "
                   "UTF-8 on their own are written as <E4>-style bytes below, never dropped.")
    st.code(tok.decode(ids), language=None, wrap_lines=True)


PANEL_FUNCTIONS: dict[str, Callable[[Analysis], None]] = {
    "ids": view_ids,
    "pieces": view_pieces,
    "replay": view_replay,
    "compare": view_compare,
    "decode": view_decode,
}
