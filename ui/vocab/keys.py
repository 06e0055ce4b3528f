"""The Vocabulary size page's session state: every key it keeps, declared once
(ui.shared.state.Key). Values live in `vocab.*` stores and are kept in their widgets
(`vocab_w_*`) with `Key.widget`."""
from __future__ import annotations

from typing import Any

from ui.shared.state import Key, KeyFamily

#: Every widget key of the page: `vocab_w_<name>`.
WIDGETS = KeyFamily("vocab_w_")

SOURCE: Key[str | None] = Key("vocab.source")     # the run the curves are drawn from
UNITS: Key[str] = Key("vocab.units", "byte")      # characters or bytes
CURVES: Key[Any] = Key("vocab.curves")            # the chart's pick (the curves chart's selection, set by Streamlit)
INTERACTIVE: Key[bool] = Key("vocab.interactive", False)  # interactive charts instead of pictures
#: Merges to learn, per source: `vocab.merges.<source>`
MERGES = KeyFamily("vocab.merges.")
#: The chosen vocabulary size, per run: `vocab.chosen.<run key>`
CHOSEN = KeyFamily("vocab.chosen.")
#: The calculator: the model its inputs came from ("chart": the chosen vocabulary in a
#: GPT-2-small-sized model, or a preset's name) and its six inputs, by field.
COST_PRESET: Key[str] = Key("vocab.cost.preset", "chart")
COST: dict[str, Key[Any]] = {
    "vocab": Key("vocab.cost.vocab", None),  # follows the slider while the preset is "chart"
    "hidden": Key("vocab.cost.hidden", 768),
    "total": Key("vocab.cost.total", 124_439_808),
    "tied": Key("vocab.cost.tied", "tied"),
    "precision": Key("vocab.cost.precision", "bf16"),
    "compare": Key("vocab.cost.compare", 0),
}
