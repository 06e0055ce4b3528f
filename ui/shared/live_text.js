// Apply a Streamlit text area as the user types: after a pause in typing (soon after a
// paste or drop) it presses Ctrl+Enter for them, which is how Streamlit's own text area
// applies its value, so the text area, its state and its paste path stay Streamlit's.
// Until the page has redrawn from the new text, the output box carries
// `data-bpe-stale` (the page's CSS dims it and says "Updating…").
//
// Called again after every run (its data changes). The listeners sit on the document, once
// per text area key, and find the text area when an event comes: Streamlit may replace the
// <textarea> element between runs, and a listener on the element would be lost with it.
// A run that draws the text the box holds clears the stale mark; a press that no run
// followed (a large paste can reach React's state after the key press) is made again.
export default function ({ data, parentElement }) {
  const doc = parentElement.ownerDocument || document;
  const registry = doc.__bpeLive || (doc.__bpeLive = {});
  const live = registry[data.input] || (registry[data.input] = { timer: 0, last: null, run: 0, bound: false });
  live.data = data;
  live.run = data.run;
  const sel = `.st-key-${data.input} textarea`;
  const mark = (on) => {
    const out = doc.querySelector(`.st-key-${live.data.output}`);
    if (!out) return;
    if (on) out.setAttribute("data-bpe-stale", "");
    else out.removeAttribute("data-bpe-stale");
  };
  const box = doc.querySelector(sel);
  // this run has drawn a text of data.length UTF-16 units
  if (box && box.value.length === data.length) live.last = box.value;
  if (box && box.value === live.last && !live.typing) {
    clearTimeout(live.timer);
    live.timer = 0;
    mark(false);
  }
  if (live.bound) return;
  live.bound = true;
  const apply = (tries) => {
    live.timer = 0;
    live.typing = false;
    const el = doc.querySelector(sel);
    if (!el || el !== doc.activeElement) return;  // left the box: Streamlit applied on blur
    if (el.value === live.last) { mark(false); return; }  // typed and undone, or drawn: done
    const pressed = live.run;
    el.dispatchEvent(new KeyboardEvent("keydown", {
      key: "Enter", code: "Enter", keyCode: 13, ctrlKey: true, bubbles: true, cancelable: true,
    }));
    // no run since the press after a while: press again (harmless once applied), twice at most
    if (tries > 1) {
      live.timer = setTimeout(() => {
        live.timer = 0;
        if (live.run === pressed) apply(tries - 1);
      }, 1500);
    }
  };
  doc.addEventListener("input", (event) => {
    const el = event.target;
    if (!(el instanceof Element) || !el.matches(sel)) return;
    clearTimeout(live.timer);
    mark(true);
    // React reads the new value in its own input handler: apply on a later task; a large
    // paste (20 kB and more) needs about a frame more before Ctrl+Enter takes it
    const pasted = event.inputType === "insertFromPaste" || event.inputType === "insertFromDrop";
    const d = live.data;
    const wait = pasted ? 100 : Math.min(d.maxDelay, d.delay + el.value.length / 100);
    live.typing = !pasted;
    live.timer = setTimeout(() => apply(3), wait);
  });
  doc.addEventListener("focusout", (event) => {  // Streamlit applies on blur itself
    const el = event.target;
    if (!(el instanceof Element) || !el.matches(sel)) return;
    clearTimeout(live.timer);
    live.timer = 0;
    live.typing = false;
  });
}
