// Chips that open something: a click on a chip, or Enter or Space on a focused chip (chips
// drawn with tap=True are focusable), inside the keyed container `data.scope`, in a run
// matching `data.runs`, sends the trigger "pick" = {i: the chip's place in its run,
// run: the run's place among the scope's runs}. One listener on the document serves every
// scope; each mount records its scope's sender (the latest mount's).
export default function ({ data, parentElement, setTriggerValue }) {
  const doc = parentElement.ownerDocument || document;
  const scopes = window.__bpeChipPick || (window.__bpeChipPick = {});
  scopes[data.scope] = { send: setTriggerValue, runs: data.runs };
  // a mark that this scope's chips answer (browser tests wait for it before a click)
  const root = doc.documentElement;
  const ready = new Set((root.dataset.bpeChipPick || "").split(" ").filter(Boolean));
  ready.add(data.scope);
  root.dataset.bpeChipPick = [...ready].join(" ");
  if (window.__bpeChipPickBound) return;
  window.__bpeChipPickBound = true;
  const CHIPS = ":scope > span, :scope > .bpe-block > span";
  const pick = (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const run = target && target.closest(".bpe-tokens");
    if (!run) return false;
    let i = -1;
    for (let el = target; el && el !== run; el = el.parentElement) {
      if (el.tagName === "SPAN" && (el.parentElement === run || el.parentElement.parentElement === run)
          && !el.classList.contains("mk")) { i = [...run.querySelectorAll(CHIPS)].indexOf(el); break; }
    }
    if (i < 0) return false;
    for (const [scope, { send, runs }] of Object.entries(scopes)) {
      const box = run.closest(`.st-key-${scope}`);
      if (!box || !run.matches(runs)) continue;
      send("pick", { i, run: [...box.querySelectorAll(runs)].indexOf(run) });
      return true;
    }
    return false;
  };
  doc.addEventListener("click", pick);
  doc.addEventListener("keydown", (event) => {
    if ((event.key === "Enter" || event.key === " ") && pick(event)) event.preventDefault();
  });
}
