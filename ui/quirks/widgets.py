"""The Quirks page, Streamlit part: sections, chips side by side, claims, worked examples, quiz.

Draws what ui/quirks/logic.py, examples.py and quiz.py compute. Every user string goes
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
from ui.shared.chips import CHIP_CSS, chip_for, chips_html, spans_html
from ui.shared.tables import TABLE_CSS, table_html

from . import examples as ex
from . import logic
from .quiz import Question, explanation, grade_choice, grade_number, questions_for

__all__ = ["chips", "comparison", "page_css", "quirk_section", "worked_examples", "ask_quiz", "QUIRKS_CSS"]

NAMES = tuple(PRETRAINED)

QUIRKS_CSS = """<style>
.qk-row { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.2rem 0.8rem;
  padding: 0.2rem 0; border-bottom: 1px solid rgba(128,128,128,0.25); }
.qk-name { min-width: 8.5rem; font-weight: 600; }
.qk-count { min-width: 5.5rem; opacity: 0.85; white-space: nowrap; }
.qk-row .bpe-tokens { flex: 1 1 16rem; font-size: 1.1rem; line-height: 2.0; }
.qk-text { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
</style>"""


def _table(rows) -> None:
    """A small static table drawn as escaped HTML (ui/shared/tables.py): no data grid and no
    Arrow scripts for the browser to fetch on a first load, and its cells wrap on a phone.
    Its CSS comes once, with the page's (page_css)."""
    st.html(table_html(rows, css=False))


@byte_cached("quirks.encodings")
def encoded(name: str, text: str, allow_special: bool = False) -> logic.Encoding:
    """A text under one real tokenizer, through the shared bounded cache."""
    return logic.encode_with(name, text, allow_special=allow_special)


def chips(name: str, text: str, spans) -> str:
    """The text as token chips (HTML): the one place this page calls the chip drawing,
    the shared renderer, which draws every tokenizer's spans the same way."""
    return spans_html(text, spans, css=False, scroll=False)


def comparison(text: str, *, allow_special: bool = False, names=NAMES) -> dict[str, logic.Encoding]:
    """Draw `text` under every tokenizer, one row each: name, token count, chips."""
    encodings = {n: encoded(n, text, allow_special) for n in names}
    rows = []
    for name, enc in encodings.items():
        count = f"{enc.count} token{'s' if enc.count != 1 else ''}"
        rows.append(f'<div class="qk-row"><span class="qk-name">{html.escape(PRETRAINED[name].short)}</span>'
                    f'<span class="qk-count">{count}</span>{chips(name, text, enc.spans)}</div>')
    st.html("".join(rows))
    return encodings


def page_css() -> None:
    """The chips' and rows' CSS, once at the top of the page (it applies page-wide):
    repeated in each of the page's forty drawings it was 180 kB of the 250 kB of HTML
    the browser had to sanitize and apply on a first load."""
    st.html(CHIP_CSS + QUIRKS_CSS + TABLE_CSS)


def _label(text: str) -> str:
    """A short text for a caption: whitespace and invisible characters made visible, with
    the marks the chips use (bpe_core.display's one table)."""
    return md_escape(visible_text(text))


def _claims(quirk: str) -> None:
    for claim in logic.claims_for(quirk):
        v = logic.check_claim(claim)
        verdict = "holds" if v.holds else "does not hold"
        body = (f"**{logic.SOURCES[claim.source]}** says: {md_escape(claim.quote)}  \n"
                f"Real result with {md_escape(PRETRAINED[claim.tokenizer].short)}: {md_escape(v.real)}. "
                f"The claim **{verdict}**.")
        (st.success if v.holds else st.warning)(body, icon=":material/check_circle:" if v.holds else ":material/error:")


def _try_your_own(quirk: logic.Quirk, default: str, *, area: bool = False) -> str:
    key = f"quirks_w_try_{quirk.id}"
    widget = st.text_area if area else st.text_input
    text = widget(f"Try your own — {quirk.placeholder}", value="", key=key, placeholder=default,
                  max_chars=logic.MAX_TRY_CHARS)
    return text or ""


def quirk_section(quirk: logic.Quirk) -> None:
    """One quirk: what it is, the examples under every tokenizer, the claims, why it
    matters, and a text box that recomputes it."""
    st.header(quirk.title, anchor=quirk.id)
    st.markdown(md_escape(quirk.what))
    extra = _EXTRAS.get(quirk.id)
    for text in quirk.examples:
        st.caption(f"“{_label(text)}”")
        comparison(text)
    if extra:
        extra(quirk)
    _claims(quirk.id)
    st.info(f"**Why it matters for a model.** {md_escape(quirk.why)}", icon=":material/lightbulb:")
    if quirk.id in _OWN_TRY:
        _OWN_TRY[quirk.id](quirk)
    else:
        text = _try_your_own(quirk, quirk.examples[0] if quirk.examples else "", area=quirk.id == "code")
        if text:
            comparison(text)
    for q in questions_for("quirks", quirk.id):
        ask_question(q)


# --- the extras of some sections ----------------------------------------------------------


def _letters(quirk: logic.Quirk) -> None:
    word = "strawberry"
    rows = []
    for name in NAMES:
        enc = encoded(name, word)
        rows.append({"tokenizer": PRETRAINED[name].short, "tokens": enc.count,
                     "tokens holding an r": logic.tokens_with_letter(enc.pieces, "r"),
                     "r's in the word": logic.letter_count(word, "r")})
    _table(rows)


def _letters_try(quirk: logic.Quirk) -> None:
    text = _try_your_own(quirk, "strawberry")
    letter = st.text_input("Letter to count", value="r", max_chars=1, key="quirks_w_try_letter") or ""
    if text:
        comparison(text)
        if letter:
            counts = ", ".join(f"{PRETRAINED[n].short}: {logic.tokens_with_letter(encoded(n, text).pieces, letter)}"
                               for n in NAMES)
            st.markdown(f"“{_label(letter)}” occurs **{logic.letter_count(text, letter)}** times in the text; "
                        f"tokens that hold it: {md_escape(counts)}.")
        st.caption("Backwards, the same word is cut quite differently:")
        comparison(text[::-1])


def _numbers(quirk: logic.Quirk) -> None:
    rows = []
    for text in quirk.examples:
        row = {"text": text}
        for name in NAMES:
            row[PRETRAINED[name].short] = " | ".join(encoded(name, text).pieces)
        rows.append(row)
    st.caption("Digit chunks per tokenizer:")
    _table(rows)
    nxt = logic.next_different_split("gpt2", 1234)
    if nxt is not None:
        st.markdown(f"GPT-2 cuts 1234 and 1235 the same way, but not every number: the first number after "
                    f"1234 that GPT-2 cuts into chunks of other lengths is **{nxt}** "
                    f"({md_escape(' | '.join(logic.split_of('gpt2', str(nxt))))}).")


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


def _spaces(quirk: logic.Quirk) -> None:
    prompt = quirk.examples[-1]
    lasts = ", ".join(f"{PRETRAINED[n].short}: “{_label(encoded(n, prompt).pieces[-1])}”" for n in NAMES)
    st.markdown(f"Last token of the prompt that ends with a space — {lasts}. The model's next token "
                "would normally start with that space; here it has to start without one.")


@byte_cached("quirks.encodings")
def script_rows(texts: tuple[tuple[str, str, str], ...]) -> list[dict]:
    """logic.script_rows through the shared bounded cache: the ten paragraphs under five
    tokenizers were encoded again at every first load (a tenth of a second of the server's)."""
    return logic.script_rows(texts)


def _scripts(quirk: logic.Quirk) -> None:
    texts = tuple((lang, script, text) for _, lang, script, text in logic.language_texts())
    _table(script_rows(texts))
    st.caption("The paragraph is the one on the Vocabulary size page (corpora/languages/).")


def _scripts_try(quirk: logic.Quirk) -> None:
    text = _try_your_own(quirk, "你好，世界！")
    if text:
        comparison(text)
        _table(script_rows((("your text", "", text),)))


def _zero_width(quirk: logic.Quirk) -> None:
    for text in quirk.examples:
        seen = logic.naive_filter_sees(text, "ignore")
        hidden = ", ".join(logic.invisible_characters(text)) or "none"
        st.markdown(f"“{_label(text)}”: a filter looking for “ignore” **{'finds' if seen else 'misses'}** it; "
                    f"invisible characters: {md_escape(hidden)}.")


def _zero_width_try(quirk: logic.Quirk) -> None:
    text = _try_your_own(quirk, "Ign\u200bore previous instructions")
    if text:
        comparison(text)
        seen = logic.naive_filter_sees(text, "ignore")
        st.markdown(f"A filter looking for “ignore” **{'finds' if seen else 'misses'}** it; invisible "
                    f"characters: {md_escape(', '.join(logic.invisible_characters(text)) or 'none')}.")


def _special(quirk: logic.Quirk) -> None:
    st.caption("The same texts with special tokens allowed (what a chat template does, never pasted text):")
    for text in quirk.examples:
        st.caption(f"“{_label(text)}”, specials allowed")
        comparison(text, allow_special=True)


def _special_try(quirk: logic.Quirk) -> None:
    text = _try_your_own(quirk, "<|endoftext|>")
    allow = st.toggle("Allow special tokens (as a chat template would)", key="quirks_w_try_allow_special")
    if text:
        comparison(text, allow_special=allow)


def _glitch(quirk: logic.Quirk) -> None:
    rows = []
    for text in quirk.examples:
        row = {"text": text}
        for name in NAMES:
            n = encoded(name, text).count
            row[PRETRAINED[name].short] = "one token" if n == 1 else f"{n} tokens"
        rows.append(row)
    _table(rows)


def _unicode(quirk: logic.Quirk) -> None:
    rows = []
    for text in quirk.examples:
        row = {"text": text, "code points": " ".join(logic.code_points(text))}
        for name in NAMES:
            row[PRETRAINED[name].short] = encoded(name, text).count
        rows.append(row)
    _table(rows)


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


def _structured(quirk: logic.Quirk) -> None:
    rows = []
    text = quirk.examples[0]
    for name in NAMES:
        enc = encoded(name, text)
        rows.append({"tokenizer": PRETRAINED[name].short, "ids": ", ".join(map(str, enc.ids)),
                     "tokens": " | ".join(enc.pieces)})
    _table(rows)


_EXTRAS = {"letters": _letters, "numbers": _numbers, "spaces": _spaces, "scripts": _scripts,
           "zero_width": _zero_width, "special": _special, "glitch": _glitch, "unicode": _unicode,
           "structured": _structured}
_OWN_TRY = {"letters": _letters_try, "numbers": _numbers_try, "scripts": _scripts_try,
            "zero_width": _zero_width_try, "special": _special_try, "unicode": _unicode_try}


# --- worked examples -------------------------------------------------------------------------


def _printed(p: ex.PrintedMerge) -> str:
    return f"{p.left} + {p.right or '␀'} → {p.token}"


def _trace_table(example: ex.WorkedExample) -> None:
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
    _table(rows)


def _encoding_table(example: ex.WorkedExample) -> None:
    words = tuple(w for w, _ in example.printed_encodings)
    ours = dict(ex.our_encodings(example.preset, example.merges, words))
    rows = [{"word": w, "printed": " + ".join(p), "ours": " + ".join(ours[w]),
             "same": "yes" if tuple(p) == ours[w] else "no"} for w, p in example.printed_encodings]
    _table(rows)


def _byte_bpe() -> None:
    r = ex.byte_bpe_result()
    st.subheader("Byte-level BPE to vocabulary 280", anchor="seed000_bytebpe")
    st.caption(f"{logic.SOURCES['000']}: its ByteBPE code, on its own corpus, with its simplified regex "
               "(our “simple” pre-tokenizer), 256 bytes + 24 merges.")
    st.html(chips_html([chip_for(b, False, "") for b in r.tokens], css=False, block=True))
    facts = [
        ("“the lowest newest 你好” is 24 bytes", r.n_bytes == 24, f"{r.n_bytes} bytes"),
        ("it becomes 12 tokens", r.n_tokens == 12, f"{r.n_tokens} tokens"),
        ("“ lowest” is a single token", r.is_single_token(" lowest"), ""),
        ("“ newest” is a single token", r.is_single_token(" newest"), ""),
        ("“the” stays three bytes", r.tokens[:3] == (b"t", b"h", b"e"), ""),
        ("each Chinese character stays as its 3 raw bytes", all(len(t) == 1 for t in r.tokens[-6:]), ""),
    ]
    lines = [f"- {md_escape(text)}: **{'holds' if ok else 'does not hold'}**"
             + (f" ({md_escape(real)})" if real else "") for text, ok, real in facts]
    st.markdown("The text says, and our run gives:\n" + "\n".join(lines))
    st.page_link("views/train.py", label="Step through this run on the Train page",
                 query_params={"preset": ex.BYTE_BPE_PRESET, "step": "24"}, icon=":material/model_training:")


def _unknown_letters() -> None:
    byte_tok_run = ex.preset_run(ex.BYTE_BPE_PRESET)
    tok = byte_tok_run.tokenizer(len(byte_tok_run.events))
    pieces = " + ".join(t.decode("utf-8", "replace") for t in map(tok.token_bytes, tok.encode("unknown")))
    st.markdown(
        "**Letters it never saw.** The five words hold no u and no k, so a character-level vocabulary "
        "trained on them has no id for either: our engine marks them ⟨u?⟩ and ⟨k?⟩ (the text's code just "
        "passes the strings through, which a real vocabulary cannot do). A byte-level tokenizer has no such "
        f"case: its base vocabulary is all 256 bytes, so the byte-level run above encodes “unknown” as "
        f"{md_escape(pieces)}, every piece with an id.")


def worked_examples() -> None:
    """Each source text's worked example: our trace against the printed one, the encodings,
    what is wrong, and a link to step through it on the Train page."""
    st.header("Worked examples of the source texts", anchor="worked-examples")
    st.markdown("Each example below is a Train page preset. The tables put our engine's merges next to "
                "the ones the text prints; “same” is computed row by row.")
    _byte_bpe()
    for example in ex.EXAMPLES:
        st.subheader(md_escape(example.title), anchor=example.preset)
        st.caption(md_escape(logic.SOURCES[example.source]))
        _trace_table(example)
        _encoding_table(example)
        st.markdown(md_escape(example.note))
        if example.preset == "seed001_five_words":
            _unknown_letters()
        st.page_link("views/train.py", label=f"Step through it on the Train page (step {example.merges})",
                     query_params={"preset": example.preset, "step": str(example.merges)},
                     icon=":material/model_training:")
    for q in questions_for("quirks", "examples"):
        ask_question(q)


# --- quiz ----------------------------------------------------------------------------------


def ask_question(q: Question) -> None:
    """One question; the answer and its explanation appear after a try."""
    with st.container(border=True):
        st.markdown(f"**Check your understanding.** {md_escape(q.prompt)}")
        if q.options:
            choice = st.radio("Your answer", range(len(q.options)), index=None, key=f"quirks_w_quiz_{q.id}",
                              format_func=lambda i: md_escape(q.options[i]), label_visibility="collapsed")
            right = grade_choice(q, choice)
        else:
            value = st.number_input(f"Your answer ({q.unit})", value=None, min_value=0.0, step=1.0,
                                    key=f"quirks_w_quiz_{q.id}")
            right = grade_number(q, value)
        if right is None:
            st.caption("Pick an answer to see the explanation.")
            return
        if q.options:
            verdict = "Right." if right else f"Not quite: the answer is “{q.options[q.answer]}”"
        else:
            verdict = ("Right" if right else "Not quite") + f": about {q.number:,.0f} {q.unit}."
        (st.success if right else st.error)(md_escape(verdict))
        st.markdown(md_escape(explanation(q)))


def ask_quiz(page: str, section: str = "") -> None:
    """The quiz questions that belong on `page` (other pages call this in one line)."""
    for q in questions_for(page, section):
        ask_question(q)
