"""The Algorithms page's session state, declared once (ui.shared.state.Key): the corpus
choice, its own text, and every widget value `widgets.kept` keeps, under
`algo.<name>[.<scope>]` for the widget `algo_w_<name>`."""
from __future__ import annotations

from ui.shared.state import Key, KeyFamily

#: Every widget key of the page: `algo_w_<name>`.
WIDGETS = KeyFamily("algo_w_")

CORPUS: Key[str] = Key("algo.corpus")   # a preset's name, or the reader's own text
TEXT: Key[str] = Key("algo.text")       # the reader's own text
#: What `widgets.kept` keeps, named after the widget: `algo.<widget name>[.<scope>]` (the
#: open tab `algo.tab`, dropout, lattice, sampling), `algo.extra.<corpus>` and the steppers'
#: `algo.<name>.step`. (A family over the page's whole namespace: these names are made from
#: the widgets' keys.)
KEPT = KeyFamily("algo.")
