"""Every page at its own address: its heading, and no "Page not found" dialog.

The home page used to declare url_path="start"; Streamlit serves the default page at "/"
whatever its url_path says, so /start opened a "Page not found" dialog over the home page
(and the first-load benchmark timed that dialog's entrance)."""
from __future__ import annotations

import ast
from pathlib import Path

from playwright.sync_api import expect

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
    is not served there, and the visit below finds the dialog."""
    tree = ast.parse((Path(__file__).resolve().parents[2] / "app.py").read_text())
    paths = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "Page":
            kw = {k.arg: k.value for k in node.keywords}
            paths.add(kw["url_path"].value if "url_path" in kw else "")
    return paths


def test_every_page_opens_at_its_address_without_a_not_found_dialog(page, app_url):
    paths = sorted(declared_paths())
    assert set(HEADINGS) <= set(paths) | {""}, paths
    for path in paths:
        heading = HEADINGS.get(path, HEADINGS[""])
        page.goto(f"{app_url}/{path}")
        expect(page.get_by_role("heading", name=heading, exact=True).first).to_be_visible(timeout=60_000)
        page.wait_for_timeout(500)  # the dialog, when there is one, comes with the first run
        assert page.get_by_test_id("stDialog").count() == 0, f"/{path}: {page.get_by_test_id('stDialog').inner_text()}"
        assert page.get_by_text("Page not found").count() == 0
