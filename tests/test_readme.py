"""The README stays short, current and true: two set-up commands, links that resolve,
and shell examples that run on a fresh clone (no file they name is missing)."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def test_short_with_exactly_two_commands_first():
    assert len(README.splitlines()) <= 150
    first = _blocks("bash")[0].strip().splitlines()
    assert len(first) == 2 and first[0].startswith("pip install") and "run-tests.sh" in first[1]


def test_every_link_resolves():
    for target in re.findall(r"\]\(([^)#]+)\)", README):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target


def test_the_command_line_examples_run(tmp_path):
    """Each `python -m bpe_core` line of the README, run from a scratch folder holding a
    copy of corpora/ (a saved tokenizer lands there, not in the repository)."""
    (tmp_path / "corpora").symlink_to(ROOT / "corpora")
    lines = [ln for block in _blocks("bash") for ln in block.replace("\\\n", " ").splitlines()
             if ln.startswith("python -m bpe_core")]
    assert len(lines) >= 4
    for line in lines:
        args = shlex.split(line.split("#")[0])[3:]
        done = subprocess.run([sys.executable, "-m", "bpe_core", *args], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        assert done.returncode == 0, (line, done.stderr)


def test_every_real_tokenizer_is_named():
    from bpe_core.pretrained import PRETRAINED

    for name in PRETRAINED:
        assert f"`{name}`" in README, name
