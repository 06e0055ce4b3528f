"""The Vocabulary explorer's logic, without widgets: choices, URL state, shared indexes.

- `CHOICES`: every built-in tokenizer (`bpe_core.pretrained.PRETRAINED`, in its order),
  then the Train page's run (`YOURS`) and the Tokenize page's uploaded file (`UPLOADED`).
- `builtin_index(name)`: a built-in vocabulary's index, built once per process and shared
  by every session through the byte-bounded cache `explorer.index`; the overview, odd
  tokens and comparisons of built-ins go through `explorer.views` and `explorer.odd`.
  A trained or uploaded tokenizer's index stays in its session (never shared).
- `read_url` / `url_for`: the `tokenizer`, `id` and `q` query parameters.
- `corpus_texts()`: the built-in corpora and the ten-language paragraph, encoded to find
  the tokens they never produce.

What it leaves out: drawing (ui/explorer/html.py, charts.py, widgets.py).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Callable, Mapping

from bpe_core import explore
from bpe_core.explore import Comparison, Overview, VocabIndex
from bpe_core.pretrained import PRETRAINED, load_pretrained
from ui.shared.cache import byte_cached, cache_named

__all__ = ["REAL_NAMES", "YOURS", "UPLOADED", "CHOICES", "DEFAULT", "PER_PAGE", "URL_TEXT_LIMIT",
           "builtin_index", "builtin_index_ready", "builtin_overview", "builtin_compare", "builtin_unreachable", "builtin_never",
           "corpus_texts", "read_url", "url_for", "label_of"]

REAL_NAMES: tuple[str, ...] = tuple(PRETRAINED)
YOURS = "yours"
UPLOADED = "upload"
CHOICES: tuple[str, ...] = REAL_NAMES + (YOURS, UPLOADED)
DEFAULT = "gpt2" if "gpt2" in PRETRAINED else REAL_NAMES[0]
#: Search results per page.
PER_PAGE = 25
#: A search text in the URL is cut to this many characters.
URL_TEXT_LIMIT = 200
CORPORA = Path(__file__).resolve().parents[2] / "corpora"


def label_of(name: str) -> str:
    """A choice's label for the tokenizer menu."""
    if name == YOURS:
        return "Your tokenizer (from the Train page)"
    if name == UPLOADED:
        return "Your file (uploaded on the Tokenize page)"
    return PRETRAINED[name].title


@byte_cached("explorer.index")
def builtin_index(name: str) -> VocabIndex:
    """A built-in tokenizer's index (loaded and built once per process, then shared)."""
    return VocabIndex.build(load_pretrained(name), name=name)


def builtin_index_ready(name: str) -> bool:
    """Whether this process holds the built-in's index already (a first visit builds it)."""
    return cache_named("explorer.index").get((builtin_index.__qualname__, (("name", name),))) is not None


@byte_cached("explorer.views")
def builtin_overview(name: str) -> Overview:
    return explore.overview(builtin_index(name))


@byte_cached("explorer.views")
def builtin_compare(a: str, b: str) -> Comparison:
    return explore.compare(builtin_index(a), builtin_index(b))


@byte_cached("explorer.odd")
def builtin_unreachable(name: str, _progress: Callable[[int, int], None] | None = None) -> tuple[int, ...]:
    return explore.unreachable(builtin_index(name), load_pretrained(name), progress=_progress)


@byte_cached("explorer.odd")
def builtin_never(name: str, _progress: Callable[[int, int], None] | None = None) -> tuple[int, ...]:
    return explore.never_produced(builtin_index(name), load_pretrained(name), corpus_texts(), progress=_progress)


@lru_cache(maxsize=1)
def corpus_texts() -> tuple[str, ...]:
    """The built-in corpora (corpora/*.txt) and the ten-language paragraph (corpora/languages)."""
    return tuple(explore.corpus_texts(CORPORA).values())


def _whole(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isdigit() and len(text) < 10 else None


def read_url(params: Mapping[str, str]) -> tuple[dict, list[str]]:
    """Query parameters -> (settings found, warnings). Only known tokenizer names and
    whole ids are taken; a search text is cut to URL_TEXT_LIMIT characters.

    >>> read_url({"tokenizer": "gpt2", "id": "50256", "q": "SolidGoldMagikarp"})
    ({'tokenizer': 'gpt2', 'id': 50256, 'q': 'SolidGoldMagikarp'}, [])
    >>> read_url({"tokenizer": "bert-base-klingon", "id": "x"})[1][0]
    "The link names a tokenizer this page does not have ('bert-base-klingon'); showing gpt2 instead."
    """
    found: dict = {}
    warnings: list[str] = []
    name = params.get("tokenizer")
    if name is not None:
        if name in CHOICES:
            found["tokenizer"] = name
        else:
            warnings.append(f"The link names a tokenizer this page does not have ({name[:80]!r}); "
                            f"showing {DEFAULT} instead.")
    if "id" in params:
        token_id = _whole(params["id"])
        if token_id is None:
            warnings.append(f"The link's id {params['id'][:40]!r} is not a whole number; it is ignored.")
        else:
            found["id"] = token_id
    if params.get("q"):
        found["q"] = params["q"][:URL_TEXT_LIMIT]
    return found, warnings


def url_for(*, tokenizer: str, token_id: int | None, q: str) -> dict[str, str]:
    """The query parameters for a view (a trained or uploaded tokenizer is not in a link:
    another session does not have it).

    >>> url_for(tokenizer="gpt2", token_id=43453, q="")
    {'tokenizer': 'gpt2', 'id': '43453'}
    """
    params = {"tokenizer": tokenizer}
    if token_id is not None:
        params["id"] = str(token_id)
    if q:
        params["q"] = q[:URL_TEXT_LIMIT]
    return params
