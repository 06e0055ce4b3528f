"""The Vocabulary explorer's sections: the tokenizer, one token, and four views (search,
overview, odd tokens, compare). Logic in ui/explorer/logic.py, HTML in html.py, charts
in charts.py; the engine is bpe_core.explore.

State: every setting lives under an `explorer.*` store and is copied into its widget each
run (`KEY.widget`, ui/shared/state.py), so it survives other pages and folded boxes. The URL holds
`tokenizer`, `id` and `q`; a new link's parameters win once, then the page writes its
own. A trained or uploaded tokenizer's index and odd tokens stay in this session.
"""
from __future__ import annotations

import time

import streamlit as st

from bpe_core import explore
from bpe_core.explore import Query, VocabIndex
from bpe_core.pretrained import PRETRAINED, load_pretrained
from ui.explorer import keys, logic
from ui.explorer.html import EXPLORER_CSS, ROWS_CSS, card_html, tree_html
from ui.explorer.logic import CHOICES, PER_PAGE, REAL_NAMES, UPLOADED, YOURS, label_of
from ui.shared.chips import CHIP_CSS
from ui.shared.markdown import md_error, md_escape
from ui.shared.state import (
    STEP_KEY, Key, folded, request_train_step, session_tokenizer,
)
from ui.shared.tables import TABLE_CSS, table_html

S = keys.SETTINGS    # stored values by name, `explorer.<name>` (declared in ui/explorer/keys.py)
W = keys.WIDGETS     # widget keys
VIEWS = {"search": "Search", "overview": "Overview", "odd": "Odd tokens", "compare": "Compare"}
ANY = keys.ANY
TRI = {ANY: "any", "yes": "yes", "no": "no"}
DIGITS = {ANY: "any", "some": "has a digit", "only": "digits only", "none": "no digit"}
SORT_LABELS = {"id": "id", "length": "length in characters", "bytes": "length in bytes"}
MODE_LABELS = {"substring": "contains", "prefix": "starts with", "suffix": "ends with", "pattern": "pattern (regex)"}
LENGTH_MAX = keys.LENGTH_MAX
ODD_EXPLAINED = (
    "Some tokens are in a vocabulary but a model almost never sees them in training, so their embeddings "
    "stay close to where they started. Asked to repeat such a token, GPT-2 and GPT-3 models said something "
    "else entirely: the **SolidGoldMagikarp** tokens (Rumbelow and Watkins, 2023), named after a Reddit "
    "user whose name was frequent in the tokenizer's training text but not in the model's. "
    "**Fishing for Magikarp** (Land and Bartolo, 2024) finds such *under-trained* tokens in many models "
    "from the tokenizer alone and from the model's weights. Two tests that need only the tokenizer:\n\n"
    "- **Unreachable**: encoding the token's own text does not give the token (the pre-tokenizer cuts its "
    "text, or the merges take another path), so ordinary text rarely or never produces it. A piece that "
    "only occurs inside a word (WordPiece's `##ing`, a SentencePiece piece without `▁`) is encoded after a "
    "whole word of the vocabulary.\n"
    "- **Never produced on the built-in texts**: encoding every corpus of this app and the ten-language "
    "paragraph never gives it. In a big vocabulary most tokens are rare, so this list is long: it is a "
    "starting point, not a verdict."
)


# ---- state --------------------------------------------------------------------------------
def bind(name: str, **kwargs) -> dict:
    """A widget's key and callbacks, kept in the store `explorer.<name>` (`Key.widget`)."""
    return S[name].widget(W + name, **kwargs)


def _reset_page() -> None:
    S["page"].set(1)


def init_state() -> None:
    for key in keys.SETTINGS.values():
        key.init()
    sync_from_url()


def sync_from_url() -> None:
    """Apply a new link's parameters (not our own echo of them)."""
    params = st.query_params.to_dict()
    if not params or params == keys.URL_WRITTEN.get():
        return
    found, warnings = logic.read_url(params)
    if "tokenizer" in found:
        S["tokenizer"].set(found["tokenizer"])
    S["q"].set(found.get("q", ""))
    S["id"].set(found.get("id"))
    S["page"].set(1)
    if "q" in found:
        S["view"].set("search")
        keys.PICK_FIRST.set("id" not in found)
    keys.URL_WRITTEN.set(params)
    keys.URL_WARNINGS.set(warnings)


def sync_to_url() -> None:
    params = logic.url_for(tokenizer=S["tokenizer"].get(), token_id=S["id"].get(), q=S["q"].get())
    if params != st.query_params.to_dict():
        st.query_params.from_dict(params)
    keys.URL_WRITTEN.set(params)


# ---- the tokenizer ------------------------------------------------------------------------
def _session_index(tok) -> VocabIndex:
    """A trained or uploaded tokenizer's index, kept in this session only."""
    held = keys.SESSION_INDEX.get()
    if held is None or held[0] is not tok:
        held = (tok, VocabIndex.build(tok))
        keys.SESSION_INDEX.set(held)
    return held[1]


def _uploaded():
    from ui.tokenize.upload import uploaded_tokenizer  # the Tokenize page's upload, this session's

    return uploaded_tokenizer()


def choose_tokenizer():
    """The tokenizer menu; returns (name, load) or None (nothing to show yet). `load()`
    returns (tokenizer, VocabIndex): on a built-in's first visit in this server process it
    reads the file and builds the index, so the page draws what needs neither (the view's
    controls) before calling it, and the browser draws them meanwhile."""
    for warning in keys.URL_WARNINGS.pop():
        st.warning(md_escape(warning), icon=":material/link_off:")
    st.selectbox("Tokenizer", CHOICES, format_func=label_of, **bind("tokenizer", on_change=_new_tokenizer))
    name = S["tokenizer"].get()
    if name in REAL_NAMES:
        try:
            if not logic.builtin_index_ready(name):
                return name, _first_build(name)
            loaded = load_pretrained(name), logic.builtin_index(name)
            return name, lambda: loaded
        except ValueError as exc:  # its package is missing, or its file is not the pinned one
            st.error(md_error(str(exc)), icon=":material/error:")
            return None
    tok = session_tokenizer() if name == YOURS else _uploaded()
    if tok is None:
        if name == YOURS:
            st.info("No tokenizer trained yet in this session: train one on the Train page, then come back.",
                    icon=":material/info:")
            st.page_link("views/train.py", label="Go to the Train page", icon=":material/model_training:")
        else:
            st.info("No tokenizer file uploaded yet in this session: open “Your own tokenizer file” on the "
                    "Tokenize page, upload one, then come back.", icon=":material/info:")
            st.page_link("views/tokenize.py", label="Go to the Tokenize page", icon=":material/text_fields:")
        return None
    loaded = tok, _session_index(tok)
    return name, lambda: loaded


def _first_build(name: str):
    """A built-in's first visit in this server process: the call returned reads its file
    and builds its index (o200k_base: about a second on an idle machine, several on a busy
    one); the page makes it once it has drawn the view's controls. Meanwhile the page shows
    how far it has got, and what it can show without the index: the link's token (from a
    one-token index), or else the vocabulary's first tokens. All of it is cleared once the
    index is there, and the page is drawn as on any visit."""
    holder = st.empty()
    entry = PRETRAINED[name]
    with holder.container():
        status = st.status(f"Reading the {entry.title} file (once per server)…", expanded=False)
    loaded: list[tuple] = []

    def load():
        if loaded:
            return loaded[0]
        try:
            with holder.container():
                tok = load_pretrained(name)
                status.update(label=f"Indexing its {entry.vocab_size:,} tokens for search and filters (once per "
                                    "server)…")
                _preview(tok)
                loaded.append((tok, logic.builtin_index(name)))
        except ValueError as exc:  # its package is missing, or its file is not the pinned one
            holder.error(md_error(str(exc)), icon=":material/error:")
            sync_to_url()
            st.stop()
        holder.empty()
        return loaded[0]

    return load


def _preview(tok) -> None:
    """While the index builds: the link's token's card, or the first page of tokens."""
    token_id = S["id"].get()
    try:
        if token_id is not None:
            st.html(card_html(explore.token_record(VocabIndex.build(tok, ids=[token_id]), tok, token_id)))
        elif not S["q"].get():
            first = VocabIndex.build(tok, ids=range(PER_PAGE))
            st.caption(f"The first {len(first)} tokens, while the rest are read:")
            st.html(rows_html(first, first.ids, "The first tokens"))
    except (ValueError, TypeError, KeyError):  # an id the vocabulary lacks: the page says so below
        pass


def _new_tokenizer() -> None:
    """Another tokenizer (stored already): no token picked, the first page of results."""
    S["id"].set(None)
    S["page"].set(1)


# ---- one token ----------------------------------------------------------------------------
def pick_link_result(index: VocabIndex) -> None:
    """A link's search (`?q=` without `id`) shows its exact match, else its first result.
    Picked before the card is drawn, so the link's page is drawn in one run."""
    if not keys.PICK_FIRST.pop():
        return
    q = current_query()
    try:
        found = explore.search(index, q, page=1, per_page=PER_PAGE)
    except ValueError:  # a bad pattern: the search view says so
        return
    if found.ids:
        exact = [i for i in found.ids if index.text[index.row(i)].strip() == q.text.strip()]
        S["id"].set((exact or list(found.ids))[0])


def token_panel(name: str, tok, index: VocabIndex) -> None:
    """The id box, then the chosen token's card, merge tree and links."""
    pick_link_result(index)
    wanted = S["id"].get()
    if wanted is not None and not 0 <= wanted <= index.ids[-1]:
        st.error(md_escape(f"Token id {wanted:,} is not in the {index.name} vocabulary (ids 0 to "
                           f"{index.ids[-1]:,}). Type one of its ids."), icon=":material/error:")
        S["id"].set(None)
    st.number_input("Token id", min_value=0, max_value=index.ids[-1], step=1, placeholder="Type an id, or pick "
                    "a token in the results below", **bind("id"))
    token_id = S["id"].get()
    if token_id is None:
        return
    try:
        rec = explore.token_record(index, tok, int(token_id))
    except (ValueError, TypeError) as exc:
        st.error(md_error(str(exc)), icon=":material/error:")
        return
    st.html(card_html(rec))
    if rec.tree is not None and rec.tree.parts:
        box = folded(f"How token {rec.id:,} is built: {rec.tree.depth() - 1} levels of merges", W + "tree_open")
        if box is not None:
            with box:
                st.html(CHIP_CSS + EXPLORER_CSS + tree_html(rec.tree, rec.tree_note))
    links(name, rec)


def links(name: str, rec) -> None:
    params = {"text": rec.text} if rec.utf8 else {}
    if name in REAL_NAMES or name == YOURS:
        params["tokenizer"] = name
    if params.get("text"):
        st.page_link("views/tokenize.py", label="Tokenize this token's text on the Tokenize page",
                     icon=":material/text_fields:", query_params=params)
    if name == YOURS and rec.rank:
        if st.button(f"Open training step {rec.rank} on the Train page (the merge that made this token)",
                     key=W + "to_train", icon=":material/model_training:"):
            STEP_KEY.set(rec.rank)
            request_train_step(rec.rank)
            st.switch_page("views/train.py")


# ---- views --------------------------------------------------------------------------------
def view_selector() -> str:
    st.segmented_control("View", list(VIEWS), format_func=VIEWS.get, required=True, **bind("view"))
    return S["view"].get()


def _tri(value: str) -> bool | None:
    return None if value == ANY else value in ("yes", "only")


def current_query() -> Query:
    chars, nbytes = S["chars"].get(), S["bytes"].get()
    digits = S["digits"].get()
    return Query(
        text=S["q"].get(), mode=S["mode"].get(), script=None if S["script"].get() == ANY else S["script"].get(),
        min_chars=chars[0] or None, max_chars=None if chars[1] >= LENGTH_MAX else chars[1],
        min_bytes=nbytes[0] or None, max_bytes=None if nbytes[1] >= LENGTH_MAX else nbytes[1],
        leading_space=_tri(S["space"].get()), digits=None if digits == ANY else digits,
        whitespace=True if S["whitespace"].get() else None, fragment=_tri(S["fragment"].get()),
        special=_tri(S["special"].get()), continues=_tri(S["continues"].get()),
        sort=S["sort"].get(), descending=S["desc"].get(),
    )


def _filters(load) -> None:
    box = folded("Filters: script, length, spaces, digits, fragments, special tokens", W + "filters_open")
    if box is None:
        return
    prefix = load()[1].prefix
    with box:
        left, right = st.columns(2)
        left.selectbox("Script", (ANY,) + explore.SCRIPT_NAMES, **_paged("script"))
        left.slider("Length in characters (64 means 64 or more)", 0, LENGTH_MAX, **_paged("chars"))
        left.slider("Length in bytes (64 means 64 or more)", 0, LENGTH_MAX, **_paged("bytes"))
        right.selectbox("Starts with a space", list(TRI), format_func=TRI.get, **_paged("space"))
        right.selectbox("Digits", list(DIGITS), format_func=DIGITS.get, **_paged("digits"))
        right.selectbox("Byte fragments (not whole UTF-8)", ("any", "only", "none"), **_paged("fragment"))
        right.selectbox("Special tokens", ("any", "only", "none"), **_paged("special"))
        if prefix:
            right.selectbox(f"Continues a word ({prefix})", list(TRI), format_func=TRI.get,
                            **_paged("continues"))
        left.checkbox("Whitespace only (spaces, tabs, newlines)", **_paged("whitespace"))


def _paged(name: str) -> dict:
    """A filter's binding that also goes back to page 1 when it changes."""
    return bind(name, on_change=_reset_page)


def _active_filters(q: Query) -> str:
    parts = []
    if q.script:
        parts.append(f"script {q.script}")
    if q.min_chars or q.max_chars is not None:
        parts.append(f"{q.min_chars or 0}-{q.max_chars if q.max_chars is not None else '∞'} characters")
    if q.min_bytes or q.max_bytes is not None:
        parts.append(f"{q.min_bytes or 0}-{q.max_bytes if q.max_bytes is not None else '∞'} bytes")
    for label, value in (("leading space", q.leading_space), ("byte fragments", q.fragment),
                         ("special", q.special), ("continues a word", q.continues)):
        if value is not None:
            parts.append(f"{label}: {'only' if value else 'none'}")
    if q.digits:
        parts.append(DIGITS[q.digits])
    if q.whitespace:
        parts.append("whitespace only")
    return ", ".join(parts)


def _rows(index: VocabIndex, ids) -> list[dict]:
    rows = []
    for i in ids:
        r = index.row(i)
        rows.append({"id": i, "token": index.visible(r), "bytes": index.data[r].hex(" ").upper()[:60],
                     "characters": index.n_chars(r), "byte count": index.n_bytes(r), "script": index.script_name(r)})
    return rows


def rows_html(index: VocabIndex, ids, label: str, *, tall: bool = False) -> str:
    """Tokens as an HTML table (every text escaped by table_html; whitespace and invisibles
    marked as the chips do). `tall`: at most about 12 rows high, the rest scrolled inside.
    A plain table, not st.dataframe: the data grid's scripts (about 1.8 MB of JavaScript)
    are not fetched, so the page's first load is about a second shorter."""
    rows = _rows(index, ids)
    table = table_html(rows, css=False, label=label) if rows else ""
    return f'{TABLE_CSS}{ROWS_CSS}<div class="vx-rows{" vx-tall" if tall else ""}">{table}</div>'


def _picked(menu: Key[int | None]) -> None:
    """A token picked under a table shows that token above."""
    if menu.get() is not None:
        S["id"].set(menu.get())


def token_table(index: VocabIndex, ids, key: str, *, label: str, pick: str | None = None,
                tall: bool = False) -> None:
    """Tokens as a table; with `pick` (the menu's label), a menu under it of the table's
    tokens, by id and text: picking one shows that token above (keyboard and screen
    readers use it as any menu; the id box above takes any id too)."""
    ids = tuple(ids)
    st.html(rows_html(index, ids, label, tall=tall))
    if pick is None or not ids:
        return
    widget = W.key("pick_" + key)
    widget.set(S["id"].get() if S["id"].get() in ids else None)
    st.selectbox(pick, ids, index=None, key=widget, on_change=_picked, args=(widget,),
                 placeholder="Choose a token of this table",
                 format_func=lambda i: f"{i}: {index.visible(index.row(i))}")


def search_controls(load) -> None:
    """The search view's controls (`load`: the call that returns the tokenizer and its
    index; only the filters box, when open, needs them)."""
    left, mid = st.columns([3, 1])
    left.text_input("Search the tokens' text", placeholder="e.g. Magikarp,  the, ing", max_chars=logic.URL_TEXT_LIMIT,
                    **_paged("q"))
    mid.selectbox("Match", list(MODE_LABELS), format_func=MODE_LABELS.get, **_paged("mode"))
    _filters(load)
    a, b = st.columns([3, 1])
    a.selectbox("Sort by", list(SORT_LABELS), format_func=SORT_LABELS.get, **bind("sort"))
    b.toggle("Reverse order", help="Longest first, or the highest id first.", **bind("desc"))


def view_search(name: str, tok, index: VocabIndex) -> None:
    """The search's results (its controls are drawn before, by search_controls)."""
    q = current_query()
    try:
        found = explore.search(index, q, page=S["page"].get(), per_page=PER_PAGE)
    except ValueError as exc:
        st.error(md_error(str(exc)), icon=":material/error:")
        return
    filters = _active_filters(q)
    st.caption(md_escape(f"{found.total:,} of {len(index):,} tokens match" + (f" ({filters})" if filters else "")
                         + f"; page {found.page} of {found.pages}; {found.seconds * 1000:.0f} ms. "
                         "Choose one in the menu under the table, or type its id above, to see that token."))
    if found.ids:
        token_table(index, found.ids, "results", label="Search results",
                    pick="Show one of these tokens above")
    if found.pages > 1:
        st.number_input("Page", min_value=1, max_value=found.pages, step=1, **bind("page"))


def _overview(name: str, index: VocabIndex):
    return logic.builtin_overview(name) if name in REAL_NAMES else explore.overview(index)


def view_overview(name: str, tok, index: VocabIndex) -> None:
    from ui.explorer import charts  # Altair: imported when a chart is drawn (about 0.6 s at a server's first)

    o = _overview(name, index)
    st.markdown(md_escape(
        f"{o.size:,} tokens ({index.kind}): {o.specials:,} special, {o.fragments:,} byte fragments (not whole "
        f"UTF-8 on their own), {o.leading_space:,} start with a space."))
    st.radio("Count length in", ("characters", "bytes"), horizontal=True, **bind("unit"))
    unit = S["unit"].get()
    st.altair_chart(charts.length_chart(o, unit), width="stretch")
    st.caption(md_escape(charts.length_summary(o, unit)))
    st.altair_chart(charts.script_chart(o), width="stretch")
    st.caption(md_escape("Scripts: " + charts.script_summary(o) + " Common means no letters (digits, "
                         "punctuation, spaces); Mixed, letters of two scripts."))
    st.markdown("**The longest tokens** (pick one to see it above)")
    token_table(index, o.longest, "longest", label="The longest tokens", pick="Show one of the longest tokens above")
    st.markdown("**Digit groups**: tokens made only of ASCII digits, by how many digits")
    if o.digit_groups:
        st.html(table_html([{"digits": n, "tokens": have, "possible strings": possible,
                             "all there": "yes" if have == possible else "no"}
                            for n, have, possible in o.digit_groups], label="Digit groups"))
    else:
        st.caption("None: this vocabulary has no token made only of digits.")
    st.markdown(f"**Whitespace tokens**: {len(o.whitespace):,} (runs of spaces, tabs and newlines, for code)")
    if o.whitespace:
        token_table(index, o.whitespace[:200], "whitespace", label="Whitespace tokens",
                    pick="Show one of the whitespace tokens above", tall=True)


def _odd(name: str, tok, index: VocabIndex, which: str, progress) -> tuple[int, ...]:
    if name in REAL_NAMES:
        fn = logic.builtin_unreachable if which == "unreachable" else logic.builtin_never
        return fn(name, progress)
    held = keys.ODD.init()
    key = (id(tok), which)
    if key not in held or held[key][0] is not tok:
        ids = (explore.unreachable(index, tok, progress=progress) if which == "unreachable"
               else explore.never_produced(index, tok, logic.corpus_texts(), progress=progress))
        held.clear() if len(held) > 4 else None
        held[key] = (tok, ids)
    return held[key][1]


def _odd_done(name: str, tok, which: str) -> bool:
    return bool(keys.ODD_ASKED.key(f"{name}.{which}.{id(tok)}").get())


def view_odd(name: str, tok, index: VocabIndex) -> None:
    st.markdown(ODD_EXPLAINED)
    for which, label, what in (
        ("unreachable", "Find the unreachable tokens", "encoding each token's own text"),
        ("never", "Find the tokens the built-in texts never produce", "encoding the built-in texts"),
    ):
        asked = keys.ODD_ASKED.key(f"{name}.{which}.{id(tok)}", False)
        if st.button(label, key=W + "odd_" + which, icon=":material/search:"):
            asked.set(True)
        if not asked.get():
            continue
        bar = st.progress(0.0, text=f"{label}: {what}…")
        started = time.perf_counter()

        def progress(done: int, total: int, bar=bar, label=label) -> None:
            bar.progress(done / max(total, 1), text=f"{label}: {done:,} of {total:,}")

        ids = _odd(name, tok, index, which, progress)
        bar.empty()
        heading = ("Unreachable" if which == "unreachable" else "Never produced on the built-in texts")
        st.markdown(f"**{heading}: {len(ids):,} tokens** ({time.perf_counter() - started:.1f} s; "
                    "kept for the next visit)")
        if ids:
            shown = ids if which == "unreachable" else sorted(ids, key=lambda i: (-index.n_bytes(index.row(i)), i))
            token_table(index, shown[:500], "odd_table_" + which, label=heading,
                        pick=f"Show one of these tokens above ({heading.lower()})", tall=True)
            if len(ids) > 500:
                st.caption(f"The first 500 shown ({'by id' if which == 'unreachable' else 'longest first'}).")


def view_compare(name: str, tok, index: VocabIndex) -> None:
    from ui.explorer import charts

    others = [n for n in CHOICES if n != name and (n in REAL_NAMES or n == YOURS and session_tokenizer() is not None
                                                    or n == UPLOADED and _uploaded() is not None)]
    if S["other"].get() not in others:
        S["other"].set(others[0] if others else None)
    if not others:
        st.info("No other tokenizer to compare with.")
        return
    st.selectbox("Compare with", others, format_func=label_of, **bind("other"))
    other = S["other"].get()
    if other in REAL_NAMES and name in REAL_NAMES:
        with st.spinner("Comparing the two vocabularies…"):
            c = logic.builtin_compare(name, other)
        other_index = logic.builtin_index(other)
    else:
        other_tok = load_pretrained(other) if other in REAL_NAMES else (
            session_tokenizer() if other == YOURS else _uploaded())
        other_index = logic.builtin_index(other) if other in REAL_NAMES else VocabIndex.build(other_tok)
        c = explore.compare(index, other_index)
    a, b = _short(name), _short(other)
    st.markdown(md_escape(charts.compare_summary(c, a, b)) + " Tokens are compared by their bytes "
                "(GPT-2's `Ġthe` and SentencePiece's `▁the` are both the bytes of “ the”); special tokens are left out.")
    st.radio("Group by", ("script", "bytes"), format_func={"script": "script", "bytes": "length in bytes"}.get,
             horizontal=True, **bind("cmp_by"))
    st.altair_chart(charts.compare_chart(c, a, b, S["cmp_by"].get()), width="stretch")
    st.caption(md_escape(charts.compare_summary(c, a, b)))
    left, right = st.columns(2)
    with left:
        st.markdown(f"**Only in {md_escape(a)}** (longest first; pick one to see it above)")
        token_table(index, c.only_a[:300], "only_a", label=f"Only in {a}", pick=f"Show one of the tokens only in {a} above",
                    tall=True)
    with right:
        st.markdown(f"**Only in {md_escape(b)}** (longest first)")
        token_table(other_index, c.only_b[:300], "only_b", label=f"Only in {b}", tall=True)


def _short(name: str) -> str:
    from bpe_core.pretrained import PRETRAINED

    return PRETRAINED[name].short if name in PRETRAINED else ("your tokenizer" if name == YOURS else "your file")


#: What each view draws before the index is needed (a first visit builds it after them).
CONTROLS = {"search": search_controls}
PANELS = {"search": view_search, "overview": view_overview, "odd": view_odd, "compare": view_compare}
