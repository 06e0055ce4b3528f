"""Train page: the run at the current step in the formats other libraries read.

One download per format (`bpe_core.formats.EXPORT_FORMATS`: a Hugging Face
tokenizer.json, tiktoken ranks, subword-nmt codes, GPT-2's vocab.json + merges.txt as a
zip), made by `bpe_core.formats.export_bytes` only when the button is pressed. Where a
format cannot express the run's settings, the reason is shown instead of a button, so no
file is ever written that would encode differently.

What it leaves out: the files themselves are made by the engine; this module only asks
which formats can hold the run and offers them.
"""
from __future__ import annotations

import streamlit as st

from bpe_core.formats import EXPORT_FORMATS, export_bytes, export_problem
from ui.shared.markdown import md_error
from ui.train import state
from ui.train.step_cache import format_problems_cached

#: format -> (button label, what the file is for)
FORMAT_LABELS: dict[str, tuple[str, str]] = {
    "hf": ("Hugging Face tokenizer.json", "`Tokenizer.from_file(\"tokenizer.json\")`"),
    "tiktoken": ("tiktoken ranks (.tiktoken)",
                 "`tiktoken.load.load_tiktoken_bpe(path)`, with the pattern you trained with; a rank file "
                 "holds tokens and ranks only, and tiktoken rebuilds each merge from the ranks"),
    "subword-nmt": ("subword-nmt codes", "`subword-nmt apply-bpe -c codes.txt`"),
    "gpt2": ("GPT-2 vocab.json + merges.txt (zip)", "GPT-2 style loaders (`tokenizers`' `ByteLevelBPETokenizer`)"),
}
_MEMO = state.EXPORT_PROBLEMS


@format_problems_cached
def format_problems(run, n: int) -> dict[str, str | None]:
    """Why each format cannot hold the first n merges of `run` (None where it can).

    Kept per session for the last run and step, since the tiktoken check replays the
    ranks and the page reruns on every click.
    """
    memo = _MEMO.get()
    if memo is not None and memo[0] is run and memo[1] == n:
        return memo[2]
    tok = run.tokenizer(n)
    problems = {fmt: export_problem(tok, fmt) for fmt in EXPORT_FORMATS}
    _MEMO.set((run, n, problems))
    return problems


def show(run, n: int, stem: str) -> None:
    """The per-format downloads for the first n merges, in the Download and share area."""
    st.markdown("**Use it elsewhere**: the same tokenizer in the files other libraries read.")
    problems = format_problems(run, n)
    columns = st.columns(2)
    for i, fmt in enumerate(EXPORT_FORMATS):
        label, use = FORMAT_LABELS[fmt]
        with columns[i % 2]:
            problem = problems[fmt]
            if problem:
                st.markdown(f"**{label}**")
                st.caption(f"Not available: {md_error(problem)}.")
                continue
            name = export_name(fmt, stem)
            st.download_button(label, data=lambda fmt=fmt: export_bytes(run.tokenizer(n), fmt)[1],
                               file_name=name, on_click="ignore", key=f"train_w_dl_fmt_{fmt}",
                               mime="application/zip" if fmt == "gpt2" else "application/octet-stream",
                               help=f"Load it with {use}.")


def export_name(fmt: str, stem: str) -> str:
    """The download's file name: the stem, then the format's own name.

    >>> export_name("hf", "bpe-5-merges"), export_name("gpt2", "bpe-5-merges")
    ('bpe-5-merges-tokenizer.json', 'bpe-5-merges-gpt2_tokenizer.zip')
    """
    default = {"hf": "tokenizer.json", "tiktoken": "tokenizer.tiktoken", "subword-nmt": "codes.txt",
               "gpt2": "gpt2_tokenizer.zip"}[fmt]
    return f"{stem}-{default}"
