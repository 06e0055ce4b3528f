"""The three recipes of docs/architecture.md, done rather than claimed.

Each recipe adds one entry to a registry (tests/recipe_inject.py: a tie rule, a real
tokenizer, a training algorithm) in a fresh pytest process, before anything imports the
registry, as an edit of its source would. That process then runs the tests that are
parametrised over the registry (now including the new entry), an AppTest of every page,
and the recipe's own promises (tests/recipe_checks.py: the command line and the pages
take the new entry). Nothing else is edited, so a recipe that needs more than its entry
fails here. The entries' own checks (every algorithm names a view and a command-line
hook) run in this process.
"""
from __future__ import annotations

import importlib
import os
import subprocess
import sys

import pytest

from bpe_core.algorithms import ALGORITHMS, CommandLine
from tests.conftest import ROOT

#: recipe -> the test files and the -k expression of the registry's parametrised tests
SUITES = {
    "tie-rule": (["tests/test_engine_properties.py", "tests/test_wordpiece.py"], "largest-id"),
    "tokenizer": (["tests/test_chips.py", "tests/test_explore.py", "tests/test_tokenize_page.py"],
                  "mistral-instruct-v3"),
    "algorithm": (["tests/test_algorithms_logic.py", "tests/test_algorithms_page.py"],
                  "characters or registry or only_the_open_tab or every_kind_of_preset"),
}


def _pytest(recipe: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "BPE_RECIPE": recipe, "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [sys.executable, "-m", "pytest", "-p", "tests.recipe_inject", "-p", "no:randomly",
           "-p", "no:xdist", "-q", "-x", "-o", "addopts=-p no:cacheprovider", *args]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)


@pytest.mark.parametrize("recipe", list(SUITES))
def test_the_recipe_needs_only_its_entry(recipe):
    """One process per recipe runs the registry's parametrised tests (`-k`), every page
    (tests/test_app_smoke.py) and the recipe's promises (tests/recipe_checks.py); its
    summary (`-rA`) must show each of them passed, so none is left out unnoticed."""
    files, selected = SUITES[recipe]
    run = _pytest(recipe, "-rA", *files, "tests/test_app_smoke.py", "tests/recipe_checks.py",
                  "-k", f"({selected}) or test_app_smoke.py or recipe_checks.py")
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " failed" not in run.stdout
    passed = [line.split()[1] for line in run.stdout.splitlines() if line.startswith("PASSED ")]
    for path in (*files, "tests/test_app_smoke.py", "tests/recipe_checks.py"):
        assert any(node.startswith(path + "::") for node in passed), f"nothing of {path} passed:\n" + run.stdout[-4000:]
    # the other recipes' checks: this process has only its own entry
    assert any(line.startswith("SKIPPED ") and "recipe_checks.py" in line for line in run.stdout.splitlines()), run.stdout[-4000:]


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_every_algorithm_names_its_view_and_command_line(name):
    algo = ALGORITHMS[name]
    assert callable(importlib.import_module(algo.view).show), f"{algo.view} has no show(trained, corpus)"
    assert isinstance(algo.command_line, CommandLine)
    for hook in ("train", "saved", "event_json", "trace"):
        assert callable(getattr(algo.command_line, hook))
