"""`python -m bpe_core vocab`: one token, a search, unreachable tokens and an overview,
as users run it (a subprocess from the repository root)."""
from __future__ import annotations

import base64
import json

from tests.test_cli import fails, ok


def test_one_token_text_and_json():
    out = ok("vocab", "--tokenizer", "gpt2", "--id", "43453")
    assert out.startswith("id 43453: ·SolidGoldMagikarp") and "written as: ĠSolidGoldMagikarp" in out
    assert "rank: 43453" in out and "    ·Solid  id 15831" in out
    rec = json.loads(ok("vocab", "--tokenizer", "gpt2", "--id", "50256", "--json"))
    assert rec["text"] == "<|endoftext|>" and rec["special"] is True and rec["tree"] is None
    tree = json.loads(ok("vocab", "--tokenizer", "gpt2", "--id", "43453", "--json"))["tree"]
    assert [p["id"] for p in tree["parts"]] == [15831, 42202]


def test_search_text_and_json():
    assert ok("vocab", "--tokenizer", "gpt2", "--search", "SolidGoldMagikarp") == "43453\t·SolidGoldMagikarp\n1 token\n"
    found = json.loads(ok("vocab", "--tokenizer", "cl100k_base", "--search", "^[0-9]{3}$", "--mode", "pattern",
                          "--limit", "5", "--json"))
    assert found["total"] == 1000 and len(found["tokens"]) == 5
    longest = ok("vocab", "--tokenizer", "gpt2", "--search", "=", "--sort", "length", "--limit", "1")
    assert longest.splitlines()[0].startswith("38093\t")


def test_unreachable_on_a_rank_file(tmp_path):
    ranks = [bytes([b]) for b in range(256)] + [b"ab", b"a b"]
    path = tmp_path / "toy.tiktoken"
    path.write_text("".join(f"{base64.b64encode(t).decode()} {i}\n" for i, t in enumerate(ranks)))
    out = ok("vocab", "--tokenizer", str(path), "--pattern", r"\S+|\s+", "--unreachable")
    assert out == "257\ta·b\n1 token\n"


def test_overview_and_errors():
    out = ok("vocab", "--tokenizer", "cl100k_base")
    assert "3 digits 1,000 of 1,000" in out and out.startswith("cl100k_base: 100,261 tokens")
    summary = json.loads(ok("vocab", "--tokenizer", "gpt2", "--json"))
    assert summary["size"] == 50_257 and summary["special"] == 1
    assert "is not in the gpt2 vocabulary" in fails("vocab", "--tokenizer", "gpt2", "--id", "99999")
    assert "not a valid regular expression" in fails("vocab", "--tokenizer", "gpt2", "--search", "(", "--mode", "pattern")
