"""A pytest plugin (`-p tests.recipe_inject`) that does one recipe of docs/architecture.md
before any test module is imported, as an edit of the registry's source would: the
environment variable BPE_RECIPE names it.

- "tie-rule": a "largest-id" `TieRule` added to `bpe_core.tie_rules.RULES`;
- "tokenizer": Mistral Instruct v3 (its file ships in mistral-common) added to `PRETRAINED`;
- "algorithm": the Characters baseline (tests/recipe_characters.py) added to `ALGORITHMS`.

Only the registry changes; tests/test_recipes.py then runs the parametrised tests and
every page in that process, so anything else the recipe would need shows as a failure.
"""
from __future__ import annotations

import os
from types import MappingProxyType

LARGEST_ID = "largest-id"
MISTRAL_V3 = "mistral-instruct-v3"
MISTRAL_V3_SHA256 = "9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33"


def _tie_rule() -> None:
    import bpe_core
    from bpe_core import tie_rules

    rule = tie_rules.TieRule(
        LARGEST_ID, "ids", True,
        "the pair with the largest ids (the newest tokens first)",
        "the pair with the largest ids (newest tokens first)",
        "because it has the largest ids",
    )
    tie_rules.RULES = (*tie_rules.RULES, rule)
    tie_rules.TIE_RULES = tuple(r.name for r in tie_rules.RULES)
    bpe_core.TIE_RULES = tie_rules.TIE_RULES  # the package's re-export of the same name


def _tokenizer() -> None:
    from bpe_core.pretrained import PRETRAINED, Pretrained

    PRETRAINED[MISTRAL_V3] = Pretrained(
        MISTRAL_V3, "Mistral Instruct v3 (SentencePiece BPE, 32,768 pieces)", "Mistral v3", "sentencepiece",
        32_768, "mistral_common", "data/mistral_instruct_tokenizer_240323.model.v3", MISTRAL_V3_SHA256,
    )


def _algorithm() -> None:
    from bpe_core import algorithms
    from tests.recipe_characters import ENTRY

    algorithms.ALGORITHMS = MappingProxyType({**algorithms.ALGORITHMS, ENTRY.name: ENTRY})


RECIPES = {"tie-rule": _tie_rule, "tokenizer": _tokenizer, "algorithm": _algorithm}

RECIPE = os.environ.get("BPE_RECIPE", "")
if RECIPE:
    RECIPES[RECIPE]()
