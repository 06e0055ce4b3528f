"""What every page shares for keyboard, screen-reader and low-vision readers.

- `scroll_box_attrs(label)`: the attributes of a box that scrolls sideways (a wide table
  on a phone). A keyboard reader can only scroll a box it can focus, so the box is a tab
  stop (`tabindex="0"`) and a named region, so a screen reader says what it is entering.
- `A11Y_SCRIPT`, two things the page's own markup cannot do (it runs in the page: st.html
  with `unsafe_allow_javascript`, like ui/shared/guard.py; it holds no user text):
  - one polite live region for the whole page (`#bpe-live`, `aria-live="polite"`,
    visually hidden). Whenever the element marked `data-announce` changes (the Train
    page's step sentence: the attribute holds it in plain words, its chips spelled out;
    an empty attribute means the element's own text), the region gets it and a screen
    reader reads it once the reader is idle. The region is made once and kept: a live
    region that is itself replaced (as Streamlit replaces an st.html at each step) is not
    announced;
  - every box in the page that scrolls (overflow auto or scroll, and more content than
    room) but cannot take the focus is made a tab stop, so the keyboard can scroll it:
    boxes the app's CSS makes scroll (the presentation view's columns, a wide table) and
    Streamlit's own. Checked 150 ms after the page stops changing, and on a resize.
- `A11Y_CSS` (both installed once per page by app.py, `install_a11y`):
  - captions: Streamlit draws them at 60% of the text colour, #828180 on white, a contrast
    of 3.9:1 (WCAG 2.1 AA asks 4.5:1 for text this size). They keep the text colour at
    80% opacity instead (about 6.7:1 on white, and as much on the dark theme);
  - the chosen option of a segmented control: its label was the theme's red on a pale red
    (4.47:1); it keeps the text colour and is bold, so the choice is not told by colour
    alone (its border and tint stay);
  - a visible focus ring on everything the keyboard reaches (buttons, links, scroll boxes),
    drawn only for keyboard focus (`:focus-visible`);
  - `prefers-reduced-motion`: no animation and no smooth scrolling anywhere.
Checked in tests/browser/test_a11y_browser.py with axe-core (docs/accessibility.md).
"""
from __future__ import annotations

import html

__all__ = ["A11Y_CSS", "A11Y_SCRIPT", "install_a11y", "scroll_box_attrs"]

A11Y_CSS = """<style>
.stApp [data-testid="stCaptionContainer"] { color: inherit; opacity: .8; }
.stApp [data-testid="stButtonGroup"] button[data-selected="true"] { color: inherit; }
.stApp [data-testid="stButtonGroup"] button[data-selected="true"] p { font-weight: 700; }
.stApp button:focus-visible, .stApp a:focus-visible, .stApp [tabindex="0"]:focus-visible,
.stApp summary:focus-visible, .stApp [role="slider"]:focus-visible {
  outline: 3px solid #0a66d8; outline-offset: 2px; }
@media (prefers-reduced-motion: reduce) {
  .stApp *, .stApp *::before, .stApp *::after { animation: none !important; transition: none !important;
    scroll-behavior: auto !important; }
}
@media (max-width: 640px) {  /* a page title on one line of a phone, not two */
  .stApp [data-testid="stMain"] h1 { font-size: 1.9rem; }
}
#bpe-live { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap; }
</style>"""

A11Y_SCRIPT = """<script>
(function () {
  const win = window, doc = win.document;
  if (win.__bpeAnnouncer) return;
  win.__bpeAnnouncer = true;
  const region = doc.createElement("div");
  region.id = "bpe-live";
  region.setAttribute("aria-live", "polite");
  region.setAttribute("role", "status");
  doc.body.appendChild(region);
  let said = "", timer = 0;
  const announce = () => {
    const el = doc.querySelector("[data-announce]");
    const text = !el ? "" : (el.getAttribute("data-announce") || el.textContent).replace(/\\s+/g, " ").trim();
    if (text && text !== said) { said = text; region.textContent = text; }
  };
  // sizes first (cheap once laid out), the computed style only of a box that overflows
  const scrolls = (el) => {
    const tall = el.scrollHeight > el.clientHeight + 1, wide = el.scrollWidth > el.clientWidth + 1;
    if (!tall && !wide) return false;
    const cs = win.getComputedStyle(el);
    return (tall && /auto|scroll/.test(cs.overflowY)) || (wide && /auto|scroll/.test(cs.overflowX));
  };
  const reachable = () => {
    const main = doc.querySelector("[data-testid=stMain]");
    if (!main) return;
    for (const el of main.querySelectorAll("div")) {
      if (el.hasAttribute("tabindex") || !el.firstElementChild) continue;
      if (scrolls(el)) el.setAttribute("tabindex", "0");
    }
  };
  const settle = () => { timer = 0; announce(); reachable(); };
  new MutationObserver(() => {
    announce();
    if (!timer) timer = win.setTimeout(settle, 150);
  }).observe(doc.body, {childList: true, subtree: true, characterData: true});
  win.addEventListener("resize", () => { if (!timer) timer = win.setTimeout(settle, 150); });
  settle();
})();
</script>"""


def scroll_box_attrs(label: str) -> str:
    """The attributes of a sideways-scrolling box named `label` (plain text, escaped here).

    >>> scroll_box_attrs('pairs "after"')
    ' tabindex="0" role="region" aria-label="pairs &quot;after&quot;"'
    """
    return f' tabindex="0" role="region" aria-label="{html.escape(label, quote=True)}"'


def install_a11y() -> None:
    """The shared CSS and the announcer, once per page run, in the sidebar like the
    surrogate guard (nothing moves in the page's own flow). Streamlit is imported here:
    pure modules (ui/*/logic.py) use `scroll_box_attrs`."""
    import streamlit as st

    with st.sidebar:
        st.html(A11Y_CSS + A11Y_SCRIPT, unsafe_allow_javascript=True, width="content")
