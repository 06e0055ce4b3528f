// Apply a Streamlit text area as the user types: after a pause in typing (at once after
// a paste or drop) it presses Ctrl+Enter for them, which is how Streamlit's own text
// area applies its value, so the text area, its state and its paste path stay Streamlit's.
// Until the page has redrawn from the new text, the output box carries
// `data-bpe-stale` (the page's CSS dims it and says "Updating…").
// Called again after every run (its data changes): listeners are bound once per
// text area element, and the stale mark is cleared when the run drew the text the box holds.
export default function ({ data, parentElement }) {
  const doc = parentElement.ownerDocument || document;
  const box = doc.querySelector(`.st-key-${data.input} textarea`);
  if (!box) return;
  const mark = (on) => {
    const out = doc.querySelector(`.st-key-${data.output}`);
    if (!out) return;
    if (on) out.setAttribute("data-bpe-stale", "");
    else out.removeAttribute("data-bpe-stale");
  };
  const live = box.__bpeLive || (box.__bpeLive = { timer: 0, last: null });
  // a run has drawn a text of data.length UTF-16 units (data.run changes at every run)
  if (box.value.length === data.length) live.last = box.value;
  if (!live.timer && box.value === live.last) mark(false);
  if (live.bound) return;
  live.bound = true;
  const apply = () => {
    live.timer = 0;
    if (box.value === live.last) { mark(false); return; }  // typed and undone: nothing to apply
    box.dispatchEvent(new KeyboardEvent("keydown", {
      key: "Enter", code: "Enter", keyCode: 13, ctrlKey: true, bubbles: true, cancelable: true,
    }));
  };
  box.addEventListener("input", (event) => {
    clearTimeout(live.timer);
    mark(true);
    // React reads the new value in its own input handler, after this one: apply on a later
    // task; a large paste (20 kB and more) needs about a frame more before Ctrl+Enter takes it
    const pasted = event.inputType === "insertFromPaste" || event.inputType === "insertFromDrop";
    const wait = pasted ? 100 : Math.min(data.maxDelay, data.delay + box.value.length / 100);
    live.timer = setTimeout(apply, wait);
  });
  box.addEventListener("blur", () => {  // Streamlit applies on blur itself
    clearTimeout(live.timer);
    live.timer = 0;
  });
}
