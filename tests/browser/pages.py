"""The app's pages as the browser tests open them: the address each st.Page in app.py
declares, and the heading each page shows.

tests/browser/test_a11y_browser.py opens every address (both sizes) and checks its
heading and that no "Page not found" dialog comes up: the home page used to declare
url_path="start"; Streamlit serves the default page at "/" whatever its url_path says, so
/start opened a "Page not found" dialog over the home page (and the first-load benchmark
timed that dialog's entrance)."""
from __future__ import annotations

import ast
from pathlib import Path

HEADINGS = {
    "": "Byte-pair encoding, step by step",
    "train-bpe": "Train a BPE tokenizer",
    "tokenize-text": "Tokenize text",
    "vocabulary-size": "Vocabulary size: what it buys, what it costs",
    "algorithms": "Three ways to learn a vocabulary",
    "tokenizer-quirks": "Tokenizer quirks",
    "teach": "Teach a class",
    "vocabulary-explorer": "Vocabulary explorer",
    "join": "Join a class",
}


def declared_paths() -> set[str]:
    """The address each st.Page in app.py declares (its url_path; "" for none), read from
    the source, so the test follows the router: a default page that declares a url_path
    is not served there, and the visit in test_a11y_browser.py finds the dialog."""
    tree = ast.parse((Path(__file__).resolve().parents[2] / "app.py").read_text())
    paths = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "Page":
            kw = {k.arg: k.value for k in node.keywords}
            paths.add(kw["url_path"].value if "url_path" in kw else "")
    return paths
