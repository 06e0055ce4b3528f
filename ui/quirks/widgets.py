"""The Quirks page, Streamlit part: sections, chips side by side, claims, worked examples, quiz.

Draws what ui/quirks/logic.py and examples.py compute; its quiz questions are drawn by
ui/quiz/widgets.py (shared with the Vocabulary size page). Every user string goes
through `html.escape` (st.html) or `md_escape` (markdown, captions, labels); so do the
source texts' quotations, which hold `<|endoftext|>`, `</w>` and `_`. Encodings of typed
text go through the shared byte-bounded cache "quirks.encodings"; the tokenizers
themselves are loaded once per process by the registry.

What it leaves out: the page's order and intro (views/quirks.py).
"""
from __future__ import annotations

import html
import unicodedata

import streamlit as st

from bpe_core.display import visible_text
from bpe_core.pretrained import PRETRAINED
from ui.shared.cache import byte_cached
from ui.shared.markdown import md_escape
from ui.shared.state import Key, KeyFamily, folded
from ui.shared.chips import CHIP_CSS, chip_for, chips_html, spans_html
from ui.shared.tables import TABLE_CSS, table_html

from . import examples as ex
from . import logic
from ui.quiz.questions import questions_for
from ui.quiz.widgets import ask_question

__all__ = ["chips", "comparison", "page_css", "quirk_section", "worked_examples", "QUIRKS_CSS"]

NAMES = tuple(PRETRAINED)

QUIRKS_CSS = """<style>
.qk-rows { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 26rem), 1fr));
  column-gap: 1.5rem; }
.qk-rows .qk-name { min-width: 7.5rem; }
.qk-rows .qk-count { min-width: 4.5rem; }
.qk-rows .qk-row .bpe-tokens { flex: 1 1 8rem; }
.qk-row { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.2rem 0.8rem;
  padding: 0.2rem 0; border-bottom: 1px solid rgba(128,128,128,0.25); }
.qk-name { min-width: 8.5rem; font-weight: 600; }
.qk-count { min-width: 5.5rem; opacity: 0.85; white-space: nowrap; }
.qk-row .bpe-tokens { flex: 1 1 16rem; font-size: 1.1rem; line-height: 2.0; }
.qk-text { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.qk-section { content-visibility: auto; contain-intrinsic-size: auto 900px; }
.qk-section h2, .qk-section h3 { scroll-margin-top: 4rem; }
.qk-section h2 { font-size: 2.1rem; font-weight: 600; margin: 1.2rem 0 0.6rem; padding: 0; line-height: 1.2; }
.qk-section h3 { font-size: 1.55rem; font-weight: 600; margin: 1rem 0 0.5rem; padding: 0; line-height: 1.25; }
.qk-section p { margin: 0 0 0.7rem; }
.qk-section p.qk-caption { font-size: 0.875rem; opacity: 0.75; margin: 0.8rem 0 0.2rem; }
.qk-note { display: flex; gap: 0.6rem; align-items: flex-start; padding: 0.8rem 1rem; border-radius: 0.5rem;
  margin: 0 0 0.7rem; }
.qk-note .qk-icon { font-weight: 700; flex: 0 0 auto; }
.qk-note.ok { background: rgba(33,195,84,0.12); }
.qk-note.ok .qk-icon { color: #177233; }
.qk-note.no { background: rgba(255,189,69,0.22); }
.qk-note.no .qk-icon { color: #926c05; }
.qk-note.why { background: rgba(28,131,225,0.11); }
.qk-note.why .qk-icon { color: #004280; }
.qk-section ul { margin: 0 0 0.7rem; }
.qk-section > .bpe-tokens { margin-bottom: 0.6rem; }
.qk-section a { color: #0068c9; }
.qk-more { margin: 0 0 0.8rem; }
.qk-more > summary { cursor: pointer; font-weight: 600; padding: 0.3rem 0; }
.qk-more[open] > summary { margin-bottom: 0.4rem; }
@media (max-width: 640px) {
  .qk-section h2 { font-size: 1.6rem; }
  .qk-section h3 { font-size: 1.3rem; }
}
</style>"""


def _table(rows) -> None:
    """A small static table drawn as escaped HTML (ui/shared/tables.py): no data grid and no
    Arrow scripts for the browser to fetch on a first load, and its cells wrap on a phone.
    Its CSS comes once, with the page's (page_css)."""
    st.html(table_html(rows, css=False))


def _esc(text: str) -> str:
    return html.escape(text, quote=False)


def _p(body: str, cls: str = "") -> str:
    """A paragraph of HTML (`body` already escaped)."""
    return f'<p class="{cls}">{body}</p>' if cls else f"<p>{body}</p>"


def _note(kind: str, body: str) -> str:
    """A callout drawn in HTML, as st.success / st.warning / st.info look (`body` escaped):
    "ok" (a claim holds), "no" (it does not), "why" (why it matters)."""
    icon = {"ok": "✓", "no": "!", "why": "i"}[kind]
    return f'<div class="qk-note {kind}" role="note"><span class="qk-icon" aria-hidden="true">{icon}</span><div>{body}</div></div>'


@byte_cached("quirks.encodings")
def encoded(name: str, text: str, allow_special: bool = False) -> logic.Encoding:
    """A text under one real tokenizer, through the shared bounded cache."""
    return logic.encode_with(name, text, allow_special=allow_special)


def chips(name: str, text: str, spans) -> str:
    """The text as token chips (HTML): the one place this page calls the chip drawing,
    the shared renderer, which draws every tokenizer's spans the same way."""
    return spans_html(text, spans, css=False, scroll=False)


def comparison_html(text: str, *, allow_special: bool = False, names=NAMES) -> str:
    """`text` under every tokenizer, one row each: name, token count, chips (HTML)."""
    rows = []
    for name in names:
        enc = encoded(name, text, allow_special)
        count = f"{enc.count} token{'s' if enc.count != 1 else ''}"
        rows.append(f'<div class="qk-row"><span class="qk-name">{html.escape(PRETRAINED[name].short)}</span>'
                    f'<span class="qk-count">{count}</span>{chips(name, text, enc.spans)}</div>')
    # two columns of tokenizers on a wide screen (one on a phone): every real tokenizer of
    # the registry fits a tab of about three screens
    return f'<div class="qk-rows">{"".join(rows)}</div>'



def comparison(text: str, *, allow_special: bool = False, names=NAMES) -> dict[str, logic.Encoding]:
    """Draw `text` under every tokenizer, one row each: name, token count, chips."""
    st.html(comparison_html(text, allow_special=allow_special, names=names))
    return {n: encoded(n, text, allow_special) for n in names}


def anchor(quirk: logic.Quirk) -> str:
    """The id of a section's heading, the target of its link at the top. Prefixed: the
    browser's sanitizer (DOMPurify) drops an id that names a property of `document`, so
    a bare "scripts" (document.scripts) left the link to "Other scripts cost more" dead.

    >>> anchor(logic.QUIRKS[0])
    'quirk-letters'
    """
    return f"quirk-{quirk.id}"


def page_css(intro: str = "") -> None:
    """The chips' and rows' CSS, once at the top of the page (it applies page-wide):
    repeated in each of the page's drawings it was 180 kB of the 250 kB of HTML the
    browser had to sanitize and apply on a first load. With `intro` (plain text), the
    same block also holds it."""
    head = f'<section class="qk-section">{_p(_esc(intro))}</section>' if intro else ""
    st.html(CHIP_CSS + QUIRKS_CSS + TABLE_CSS + head)


#: the tab of the source texts' worked examples, after the quirks' own tabs
EXAMPLES_TAB = "Worked examples"
#: the query parameter (and session key) that names the open tab: ?quirk=Glitch+tokens
TAB_KEY = "quirk"


def section_tabs() -> None:
    """One tab per quirk and one for the worked examples; only the open tab is drawn.

    The tabs are bound to the `?quirk=` query parameter, so a link opens a section and
    switching tabs updates the address (a copied link opens the same tab). Eleven
    sections drawn one under another were about twenty screens; a tab holds one idea."""
    labels = [q.tab for q in logic.QUIRKS] + [EXAMPLES_TAB]
    tabs = st.tabs(labels, key=TAB_KEY, bind="query-params")
    for quirk, tab in zip(logic.QUIRKS, tabs):
        if tab.open:
            with tab:
                quirk_section(quirk)
    if tabs[-1].open:
        with tabs[-1]:
            worked_examples()


def _label(text: str) -> str:
    """A short text for a caption: whitespace and invisible characters made visible, with
    the marks the chips use (bpe_core.display's one table)."""
    return md_escape(visible_text(text))


def _html_label(text: str) -> str:
    """_label for HTML: whitespace and invisible characters made visible, escaped."""
    return _esc(visible_text(text))


def _claims(quirk: str) -> str:
    """Each source text's claim about this quirk and whether it holds (HTML callouts)."""
    notes = []
    for claim in logic.claims_for(quirk):
        v = logic.check_claim(claim)
        verdict = "holds" if v.holds else "does not hold"
        body = (f"<b>{_esc(logic.SOURCES[claim.source])}</b> says: {_esc(claim.quote)}<br>"
                f"Real result with {_esc(PRETRAINED[claim.tokenizer].short)}: {_esc(v.real)}. "
                f"The claim <b>{verdict}</b>.")
        notes.append(_note("ok" if v.holds else "no", body))
    return "".join(notes)


#: the label of every section's folded try box
#: What the reader typed in a try box, kept while it is folded: `quirks.try.<name>`.
TRY_STORES = KeyFamily("quirks.try.")
#: Every widget key of the page: `quirks_w_<name>`.
WIDGETS = KeyFamily("quirks_w_")
TRY_LABEL = "Try it on your own text"


def open_key(quirk_id: str) -> str:
    """The session key of a section's try box (True while it is open)."""
    return f"quirks_w_open_{quirk_id}"


def try_store(name: str, default: str = "") -> Key[str]:
    """Where a try box's text is kept while its box is folded (or the reader is on
    another page): a widget's own key is dropped by Streamlit when it is not drawn."""
    return TRY_STORES.key(name, default)


def _stored_input(widget, label: str, name: str, default: str = "", **kwargs) -> str:
    return widget(label, **try_store(name, default).widget(f"quirks_w_try_{name}"), **kwargs) or ""


def _try_your_own(quirk: logic.Quirk, default: str, *, area: bool = False) -> str:
    return _stored_input(st.text_area if area else st.text_input, f"Try your own — {quirk.placeholder}",
                         quirk.id, placeholder=default, max_chars=logic.MAX_TRY_CHARS)


def _try_box(quirk: logic.Quirk):
    """The section's try box, folded until the reader opens it (a click reruns the page
    and draws it). Eleven text boxes drawn at every first visit were a third of a
    second of the browser's work (issue 13's 2 s target); folded, each is one line.
    It opens by itself when the reader's text is kept from before (another page, say).
    Returns the expander, or None while it is shut."""
    return folded(TRY_LABEL, open_key(quirk.id), reopen=bool(try_store(quirk.id).get()))


def quirk_section(quirk: logic.Quirk) -> None:
    """One quirk: what it is, the examples under every tokenizer, the claims, why it
    matters (all one st.html block: ~15 elements each were most of the page's first-load
    rendering), then a folded try box whose text box recomputes it, and the quiz."""
    parts = [f'<h2 id="{anchor(quirk)}">{_esc(quirk.title)}</h2>', _p(_esc(quirk.what))]
    for text in quirk.examples:
        parts.append(_p(f"“{_html_label(text)}”", "qk-caption"))
        parts.append(comparison_html(text))
    extra = _EXTRAS.get(quirk.id)
    if extra:
        parts.append(extra(quirk))
    parts.append(_claims(quirk.id))
    parts.append(_note("why", f"<b>Why it matters for a model.</b> {_esc(quirk.why)}"))
    st.html(f'<section class="qk-section">{"".join(parts)}</section>')
    box = _try_box(quirk)
    if box is not None:
        with box:
            if quirk.id in _OWN_TRY:
                _OWN_TRY[quirk.id](quirk)
            else:
                text = _try_your_own(quirk, quirk.examples[0] if quirk.examples else "", area=quirk.id == "code")
                if text:
                    comparison(text)
    for q in questions_for("quirks", quirk.id):
        ask_question(q)


# --- the extras of some sections ----------------------------------------------------------


def _letters(quirk: logic.Quirk) -> str:
    word = "strawberry"
    rows = []
    for name in NAMES:
        enc = encoded(name, word)
        rows.append({"tokenizer": PRETRAINED[name].short, "tokens": enc.count,
                     "tokens holding an r": logic.tokens_with_letter(enc.pieces, "r"),
                     "r's in the word": logic.letter_count(word, "r")})
    return table_html(rows, css=False)


def _letters_try(quirk: logic.Quirk) -> None:
    text = _try_your_own(quirk, "strawberry")
    letter = _stored_input(st.text_input, "Letter to count", "letter", "r", max_chars=1)
    if text:
        comparison(text)
        if letter:
            counts = ", ".join(f"{PRETRAINED[n].short}: {logic.tokens_with_letter(encoded(n, text).pieces, letter)}"
                               for n in NAMES)
            st.markdown(f"“{_label(letter)}” occurs **{logic.letter_count(text, letter)}** times in the text; "
                        f"tokens that hold it: {md_escape(counts)}.")
        st.caption("Backwards, the same word is cut quite differently:")
        comparison(text[::-1])


def _numbers(quirk: logic.Quirk) -> str:
    rows = []
    for text in quirk.examples:
        row = {"text": text}
        for name in NAMES:
            row[PRETRAINED[name].short] = " | ".join(encoded(name, text).pieces)
        rows.append(row)
    out = _p("Digit chunks per tokenizer:", "qk-caption") + table_html(rows, css=False)
    nxt = logic.next_different_split("gpt2", 1234)
    if nxt is not None:
        out += _p(f"GPT-2 cuts 1234 and 1235 the same way, but not every number: the first number after "
                  f"1234 that GPT-2 cuts into chunks of other lengths is <b>{nxt}</b> "
                  f"({_esc(' | '.join(logic.split_of('gpt2', str(nxt))))}).")
    return out


def _numbers_try(quirk: logic.Quirk) -> None:
    text = _try_your_own(quirk, "31415926535")
    if not text:
        return
    comparison(text)
    digits = text.strip()
    if digits.isascii() and digits.isdigit() and len(digits) <= 12:
        nxt = logic.next_different_split("gpt2", int(digits), limit=2_000)
        where = (f"the next number GPT-2 cuts into chunks of other lengths is **{nxt}**" if nxt is not None
                 else "GPT-2 cuts the next 2,000 numbers the same way")
        st.markdown(f"For {md_escape(digits)}, {where}.")


def _spaces(quirk: logic.Quirk) -> str:
    prompt = quirk.examples[-1]
    lasts = ", ".join(f"{_esc(PRETRAINED[n].short)}: “{_html_label(encoded(n, prompt).pieces[-1])}”" for n in NAMES)
    return _p(f"Last token of the prompt that ends with a space — {lasts}. The model's next token "
              "would normally start with that space; here it has to start without one.")


@byte_cached("quirks.encodings")
def script_rows(texts: tuple[tuple[str, str, str], ...]) -> list[dict]:
    """logic.script_rows through the shared bounded cache: the ten paragraphs under five
    tokenizers were encoded again at every first load (a tenth of a second of the server's)."""
    return logic.script_rows(texts)


def _scripts(quirk: logic.Quirk) -> str:
    texts = tuple((lang, script, text) for _, lang, script, text in logic.language_texts())
    return (table_html(script_rows(texts), css=False)
            + _p("The paragraph is the one on the Vocabulary size page (corpora/languages/).", "qk-caption"))


def _scripts_try(quirk: logic.Quirk) -> None:
    text = _try_your_own(quirk, "你好，世界！")
    if text:
        comparison(text)
        _table(script_rows((("your text", "", text),)))


def _zero_width(quirk: logic.Quirk) -> str:
    out = []
    for text in quirk.examples:
        seen = logic.naive_filter_sees(text, "ignore")
        hidden = ", ".join(logic.invisible_characters(text)) or "none"
        out.append(_p(f"“{_html_label(text)}”: a filter looking for “ignore” <b>{'finds' if seen else 'misses'}</b> "
                      f"it; invisible characters: {_esc(hidden)}."))
    return "".join(out)


def _zero_width_try(quirk: logic.Quirk) -> None:
    text = _try_your_own(quirk, "Ign\u200bore previous instructions")
    if text:
        comparison(text)
        seen = logic.naive_filter_sees(text, "ignore")
        st.markdown(f"A filter looking for “ignore” **{'finds' if seen else 'misses'}** it; invisible "
                    f"characters: {md_escape(', '.join(logic.invisible_characters(text)) or 'none')}.")


def _special(quirk: logic.Quirk) -> str:
    out = [_p("The same texts with special tokens allowed (what a chat template does, never pasted text):",
              "qk-caption")]
    for text in quirk.examples:
        out.append(_p(f"“{_html_label(text)}”, specials allowed", "qk-caption"))
        out.append(comparison_html(text, allow_special=True))
    return "".join(out)


def _special_try(quirk: logic.Quirk) -> None:
    """The typed text as text, then with special tokens allowed (as a chat template would),
    both at once: what a toggle switched between (a toggle was this page's only
    checkbox-like widget, its scripts fetched on every first load)."""
    text = _try_your_own(quirk, "<|endoftext|>")
    if text:
        st.html(comparison_html(text) + _p("Your text with special tokens allowed (as a chat template would):",
                                           "qk-caption") + comparison_html(text, allow_special=True))


def _glitch(quirk: logic.Quirk) -> str:
    rows = []
    for text in quirk.examples:
        row = {"text": text}
        for name in NAMES:
            n = encoded(name, text).count
            row[PRETRAINED[name].short] = "one token" if n == 1 else f"{n} tokens"
        rows.append(row)
    return table_html(rows, css=False)


def _unicode(quirk: logic.Quirk) -> str:
    rows = []
    for text in quirk.examples:
        row = {"text": text, "code points": " ".join(logic.code_points(text))}
        for name in NAMES:
            row[PRETRAINED[name].short] = encoded(name, text).count
        rows.append(row)
    return table_html(rows, css=False)


def _unicode_try(quirk: logic.Quirk) -> None:
    text = _try_your_own(quirk, "café")
    if not text:
        return
    forms = {"as typed": text}
    for form in ("NFC", "NFD", "NFKC"):
        forms[form] = unicodedata.normalize(form, text)
    rows = []
    for label, t in forms.items():
        row = {"form": label, "code points": " ".join(logic.code_points(t[:40]))}
        for name in NAMES:
            row[PRETRAINED[name].short] = encoded(name, t).count
        rows.append(row)
    comparison(text)
    _table(rows)


def _structured(quirk: logic.Quirk) -> str:
    rows = []
    text = quirk.examples[0]
    for name in NAMES:
        enc = encoded(name, text)
        rows.append({"tokenizer": PRETRAINED[name].short, "ids": ", ".join(map(str, enc.ids)),
                     "tokens": " | ".join(enc.pieces)})
    return table_html(rows, css=False)


_EXTRAS = {"letters": _letters, "numbers": _numbers, "spaces": _spaces, "scripts": _scripts,
           "zero_width": _zero_width, "special": _special, "glitch": _glitch, "unicode": _unicode,
           "structured": _structured}
_OWN_TRY = {"letters": _letters_try, "numbers": _numbers_try, "scripts": _scripts_try,
            "zero_width": _zero_width_try, "special": _special_try, "unicode": _unicode_try}


# --- worked examples -------------------------------------------------------------------------


def _printed(p: ex.PrintedMerge) -> str:
    return f"{p.left} + {p.right or '␀'} → {p.token}"


def _trace_table(example: ex.WorkedExample) -> str:
    ours = ex.our_trace(example.preset, example.merges)
    same = ex.compare_traces(example.printed, ours)
    restored = ex.compare_traces(example.restored, ours) if example.restored else ()
    rows = []
    for i, r in enumerate(ours):
        p = example.printed[i] if i < len(example.printed) else None
        row = {"step": r.step, "our merge": f"{r.left} + {r.right} → {r.token}", "count": r.count,
               "tied pairs": r.ties, example.printed_label: _printed(p) if p else "",
               "printed count": p.count if p else None, "same": "yes" if i < len(same) and same[i] else "no"}
        if example.restored:
            row["with </w> restored"] = "yes" if restored[i] else "no"
        rows.append(row)
    return table_html(rows, css=False)


def _encoding_table(example: ex.WorkedExample) -> str:
    words = tuple(w for w, _ in example.printed_encodings)
    ours = dict(ex.our_encodings(example.preset, example.merges, words))
    rows = [{"word": w, "printed": " + ".join(p), "ours": " + ".join(ours[w]),
             "same": "yes" if tuple(p) == ours[w] else "no"} for w, p in example.printed_encodings]
    return table_html(rows, css=False)


#: the summary line of a worked example's folded tables
TABLES_SUMMARY = "Show the merges and encodings, ours beside the printed ones"


def _folded_tables(tables: str) -> str:
    """A worked example's tables in a native disclosure (a focusable summary line that
    opens it from the keyboard too): five examples' tables open at once were five screens."""
    return f'<details class="qk-more"><summary>{_esc(TABLES_SUMMARY)}</summary>{tables}</details>'


def _byte_bpe() -> str:
    r = ex.byte_bpe_result()
    facts = [
        ("“the lowest newest 你好” is 24 bytes", r.n_bytes == 24, f"{r.n_bytes} bytes"),
        ("it becomes 12 tokens", r.n_tokens == 12, f"{r.n_tokens} tokens"),
        ("“ lowest” is a single token", r.is_single_token(" lowest"), ""),
        ("“ newest” is a single token", r.is_single_token(" newest"), ""),
        ("“the” stays three bytes", r.tokens[:3] == (b"t", b"h", b"e"), ""),
        ("each Chinese character stays as its 3 raw bytes", all(len(t) == 1 for t in r.tokens[-6:]), ""),
    ]
    items = "".join(f"<li>{_esc(text)}: <b>{'holds' if ok else 'does not hold'}</b>"
                    + (f" ({_esc(real)})" if real else "") + "</li>" for text, ok, real in facts)
    return ('<h3 id="seed000_bytebpe">Byte-level BPE to vocabulary 280</h3>'
            + _p(f"{_esc(logic.SOURCES['000'])}: its ByteBPE code, on its own corpus, with its simplified regex "
                 "(our “simple” pre-tokenizer), 256 bytes + 24 merges.", "qk-caption")
            + chips_html([chip_for(b, False, "") for b in r.tokens], css=False, block=True)
            + _p("The text says, and our run gives:") + f"<ul>{items}</ul>")


def _unknown_letters() -> str:
    byte_tok_run = ex.preset_run(ex.BYTE_BPE_PRESET)
    tok = byte_tok_run.tokenizer(len(byte_tok_run.events))
    pieces = " + ".join(t.decode("utf-8", "replace") for t in map(tok.token_bytes, tok.encode("unknown")))
    return _p(
        "<b>Letters it never saw.</b> The five words hold no u and no k, so a character-level vocabulary "
        "trained on them has no id for either: our engine marks them ⟨u?⟩ and ⟨k?⟩ (the text's code just "
        "passes the strings through, which a real vocabulary cannot do). A byte-level tokenizer has no such "
        f"case: its base vocabulary is all 256 bytes, so the byte-level run above encodes “unknown” as "
        f"{_esc(pieces)}, every piece with an id.")


def worked_examples() -> None:
    """Each source text's worked example: our trace against the printed one, the encodings,
    what is wrong, and a link to step through it on the Train page. Each example's
    headings, tables and notes are one st.html block, then its link."""
    st.html('<section class="qk-section"><h2 id="worked-examples">Worked examples of the source texts</h2>'
            + _p("Each example below is a Train page preset. The tables put our engine's merges next to "
                 "the ones the text prints; “same” is computed row by row.")
            + _byte_bpe() + "</section>")
    st.page_link("views/train.py", label="Step through this run on the Train page",
                 query_params={"preset": ex.BYTE_BPE_PRESET, "step": "24"}, icon=":material/model_training:")
    for example in ex.EXAMPLES:
        parts = [f'<h3 id="{html.escape(example.preset)}">{_esc(example.title)}</h3>',
                 _p(_esc(logic.SOURCES[example.source]), "qk-caption"), _p(_esc(example.note)),
                 _folded_tables(_trace_table(example) + _encoding_table(example))]
        if example.preset == "seed001_five_words":
            parts.append(_unknown_letters())
        st.html(f'<section class="qk-section">{"".join(parts)}</section>')
        st.page_link("views/train.py", label=f"Step through it on the Train page (step {example.merges})",
                     query_params={"preset": example.preset, "step": str(example.merges)},
                     icon=":material/model_training:")
    for q in questions_for("quirks", "examples"):
        ask_question(q)
