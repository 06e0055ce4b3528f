"""requirements-lock.txt holds every pin of requirements.txt and requirements-dev.txt, at
the same version, with hashes: a fresh clone installs what CI tested. Its header says
how to make it again after a requirement changes."""
from __future__ import annotations

import re

from tests.conftest import ROOT

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.\-]*)==([^\s;#\\]+)", re.M)


def _pins(name: str) -> dict[str, str]:
    text = (ROOT / name).read_text(encoding="utf-8")
    return {n.lower().replace("_", "-"): v for n, v in PIN.findall(text)}


def test_every_requirement_is_locked_at_its_version_with_hashes():
    lock = _pins("requirements-lock.txt")
    wanted = _pins("requirements.txt") | _pins("requirements-dev.txt")
    assert len(wanted) > 10
    stale = {n: (v, lock.get(n)) for n, v in wanted.items() if lock.get(n) != v}
    assert not stale, f"requirements-lock.txt is out of date {stale}: make it again (its header says how)"
    entries = re.split(r"\n(?=[A-Za-z0-9])", (ROOT / "requirements-lock.txt").read_text(encoding="utf-8"))
    assert all("--hash=sha256:" in e for e in entries if PIN.match(e)), "every locked package has its hashes"
