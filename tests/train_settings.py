"""For AppTests of the Train page: open "Corpus and settings" (its widgets are drawn only
while it is open, and stepping after an edit folds it again)."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ui.train.panels import SETTINGS_KEY


def open_settings(at: AppTest) -> AppTest:
    """Open the box as a click on it does: a rerun that draws its widgets."""
    if SETTINGS_KEY not in at.session_state or not at.session_state[SETTINGS_KEY]:
        at.session_state[SETTINGS_KEY] = True
        at.run()
    return at
