"""A guard, in the browser, for text the server could never receive.

A JavaScript string may hold half of a surrogate pair (an emoji cut in two by a copy, or
typed with an input method that failed). Such text has no UTF-8 form: when a text box
holding it changes, the browser sends bytes that are not UTF-8, the server drops the
message before the app sees it, and the page goes on showing results for the old text
with no word of why. The engine itself refuses such text with a ValueError (from Python
and the command line), but in the browser it never gets that far.

So every page installs this guard once: it watches the text boxes and, when one holds an
unpaired surrogate, replaces each with U+FFFD (the replacement character �) before
Streamlit reads the value, and says so under the box. The text the page analyses is then
exactly the text the box shows.

How it is installed: one `st.html` with `unsafe_allow_javascript=True` in the sidebar,
so the script runs in the page itself. (It was a `components.html` frame: a second
document and Streamlit's iframe scripts on every first load of every page, and that API
is deprecated.) The script is this module's constant; no user text is ever in it.

What it leaves out: text that reaches the server another way (links, uploads) is checked
there: the engine's ValueError, shown with st.error.
"""
from __future__ import annotations

import json

import streamlit as st

__all__ = ["install_surrogate_guard", "GUARD_SCRIPT", "GUARD_HTML", "NOTE"]

#: What the page says under a box whose text was repaired.
NOTE = ("This text held half of a character pair (for example an emoji cut in two), which "
        "cannot be sent to the server. It was replaced by \u00ab\ufffd\u00bb, so the results below "
        "are for the text as the box now shows it.")

GUARD_SCRIPT = """
<script>
(function () {
  const win = window;
  const doc = win.document;
  if (win.__bpeSurrogateGuard) return;
  win.__bpeSurrogateGuard = true;
  // No "<" followed by "!", "/" or a letter anywhere in this script: st.html's sanitizer
  // (DOMPurify) drops a script whose text holds one, so the lookbehind's "<" is written \\u003c.
  const lone = new RegExp("[\\\\uD800-\\\\uDBFF](?![\\\\uDC00-\\\\uDFFF])|(?\\u003c![\\\\uD800-\\\\uDBFF])[\\\\uDC00-\\\\uDFFF]", "g");
  const NOTE = %s;
  function repair(el) {
    const isArea = el instanceof win.HTMLTextAreaElement;
    if (!isArea && !(el instanceof win.HTMLInputElement)) return;
    lone.lastIndex = 0;
    if (!lone.test(el.value)) return;
    lone.lastIndex = 0;
    const proto = isArea ? win.HTMLTextAreaElement.prototype : win.HTMLInputElement.prototype;
    const setter = Object.getOwnPropertyDescriptor(proto, "value").set;
    setter.call(el, el.value.replace(lone, "\\uFFFD"));
    el.dispatchEvent(new win.Event("input", { bubbles: true }));
    const box = el.closest("[data-testid]") || el.parentElement;
    if (box && !box.parentElement.querySelector(":scope > .bpe-surrogate-note")) {
      const note = doc.createElement("div");
      note.className = "bpe-surrogate-note";
      note.setAttribute("role", "status");
      note.textContent = NOTE;
      note.style.cssText = "font-size:0.9rem;padding:0.3rem 0.6rem;margin:0.2rem 0;" +
        "border-left:4px solid #E69F00;background:rgba(230,159,0,0.12);";
      box.insertAdjacentElement("afterend", note);
    }
  }
  doc.addEventListener("input", (e) => repair(e.target), true);
  doc.addEventListener("paste", (e) => setTimeout(() => repair(e.target), 0), true);
})();
</script>
"""


#: the one script element, built once (the note is a constant, JSON-quoted)
GUARD_HTML = (GUARD_SCRIPT % json.dumps(NOTE)).strip()


def install_surrogate_guard() -> None:
    """Install the guard in the page (once per browser tab; the script draws nothing).
    Its element in the sidebar is hidden, so it takes no room there (SIDEBAR_CSS)."""
    with st.sidebar:
        st.html(GUARD_HTML, unsafe_allow_javascript=True, width="content")
