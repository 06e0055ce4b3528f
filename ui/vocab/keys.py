"""The Vocabulary size page's session state: every key it keeps, declared once
(ui.shared.state.Key). Values live in `vocab.*` stores and are copied into their widgets
(`vocab_w_*`) each run."""
from __future__ import annotations

from ui.shared.state import Key, KeyFamily

#: Every widget key of the page: `vocab_w_<name>`.
WIDGETS = KeyFamily("vocab_w_")

SOURCE: Key[str] = Key("vocab.source")            # the run the curves are drawn from
UNITS: Key[str] = Key("vocab.units", "byte")      # characters or bytes
CURVES: Key[str] = Key("vocab.curves")            # the chart's pick (chart.py's selection)
INTERACTIVE: Key[bool] = Key("vocab.interactive", False)  # interactive charts instead of pictures
#: Merges to learn, per source: `vocab.merges.<source>`
MERGES = KeyFamily("vocab.merges.")
#: The chosen vocabulary size, per run: `vocab.chosen.<run key>`
CHOSEN = KeyFamily("vocab.chosen.")
#: The calculator's inputs: `vocab.cost.<field>` (vocab, hidden, total, tied, precision,
#: compare) and `vocab.cost.preset` (the model they came from)
COST = KeyFamily("vocab.cost.")
