"""A real tokenizer cut to its first k ranks (ui/vocab/real_sizes.py) and its charts.

The reference for truncation is tiktoken itself, built offline from the same rank file
with only the ranks below k: a tokenizer of size k in tiktoken's own terms. Cut to its
full size our truncation must be the real tokenizer's encoding; cut to 256 ranks it must
be the text's UTF-8 bytes, one token each.
"""
from __future__ import annotations

import pytest
import tiktoken

from bpe_core import Tokenizer
from bpe_core.pretrained import PRETRAINED, openai_tokenizer
from bpe_core.pretrained.openai_files import load_openai_encoding
from stress_strings import stress_strings
from ui.vocab.charts import truncation_chart, truncation_cost_chart
from ui.vocab.curves import LANGUAGES
from ui.vocab.model_cost import ModelConfig, model_cost
from ui.vocab.real_sizes import (
    TRUNCATION_SIZES,
    cost_at_sizes,
    real_model_sizes,
    size_marks,
    truncated_encode,
    truncation_table,
)
from ui.vocab.sources import language_texts

TEXTS = language_texts()
NAMES = {code: name for code, (name, _) in LANGUAGES.items()}
STRESS = stress_strings()[::20]  # about a hundred strings of every family


@pytest.fixture(scope="module", params=["gpt2", "o200k_base"])
def tokenizer(request) -> Tokenizer:
    return openai_tokenizer(request.param)


@pytest.fixture(scope="module")
def o200k() -> Tokenizer:
    return openai_tokenizer("o200k_base")


@pytest.fixture(scope="module")
def table(o200k):
    return truncation_table(o200k, TEXTS, [*TRUNCATION_SIZES, len(o200k.ranks)], names=NAMES)


def _tiktoken_cut(name: str, k: int) -> tiktoken.Encoding:
    f = load_openai_encoding(name)
    ranks = {b: r for b, r in f.mergeable_ranks.items() if r < k}
    return tiktoken.Encoding(f"{name}-{k}", pat_str=f.pattern, mergeable_ranks=ranks, special_tokens={})


def test_the_whole_table_is_the_real_tokenizer(tokenizer):
    full = len(tokenizer.ranks)
    for text in [*TEXTS.values(), *STRESS]:
        assert truncated_encode(tokenizer, text, full) == tokenizer.encode(text), text


def test_256_ranks_are_one_token_per_byte(tokenizer):
    for text in [*TEXTS.values(), *STRESS]:
        assert truncated_encode(tokenizer, text, 256) == [tokenizer.ranks[bytes([b])] for b in text.encode("utf-8")]


@pytest.mark.parametrize("k", [300, 1000, 2**12, 5000, 2**15, 100_000])
def test_a_cut_table_encodes_as_tiktoken_with_only_those_ranks(k):
    """tiktoken given only the ranks below k is the independent definition of the cut."""
    ours, ref = openai_tokenizer("o200k_base"), _tiktoken_cut("o200k_base", k)
    for text in [*TEXTS.values(), *STRESS]:
        ids = truncated_encode(ours, text, k)
        assert ids == ref.encode_ordinary(text), (k, text)
        assert max(ids, default=0) < k


def test_characters_per_token_grow_with_every_doubling(table):
    """On the ten-language paragraph, at the drawn sizes, every language and all of them
    together need fewer tokens (or as many) each time the table doubles. (Not a law
    of BPE in general: one more merge can, rarely, lengthen a text; these texts and
    sizes are what the page draws.)"""
    for code, part in table.groupby("code"):
        tokens = part.sort_values("size")["tokens"].tolist()
        assert all(a >= b for a, b in zip(tokens, tokens[1:])), (code, tokens)
        cpt = part.sort_values("size")["chars_per_token"].tolist()
        assert all(a <= b for a, b in zip(cpt, cpt[1:])), code
    together = table[table["code"] == "all"].sort_values("size")
    assert together["tokens"].iloc[0] > 3 * together["tokens"].iloc[-1]


def test_the_all_row_adds_up(table):
    for size, part in table.groupby("size"):
        each = part[part["code"] != "all"]
        total = part[part["code"] == "all"].iloc[0]
        assert total["tokens"] == each["tokens"].sum() and total["chars"] == sum(len(t) for t in TEXTS.values())
        assert total["chars_per_token"] == pytest.approx(total["chars"] / total["tokens"])


def test_sizes_below_the_bytes_and_tokenizers_without_ranks_are_refused(o200k):
    with pytest.raises(ValueError, match="k >= 256"):
        truncated_encode(o200k, "abc", 255)
    with pytest.raises(TypeError, match="must be an int"):
        truncated_encode(o200k, "abc", 1024.0)
    from bpe_core import TrainerSettings, WordTable, train

    trained = train(WordTable.from_text("low lower lowest", "gpt2"), TrainerSettings(units="byte", merges=2))
    with pytest.raises(ValueError, match="no rank table"):
        truncated_encode(trained.tokenizer(), "low", 300)


def test_real_model_marks_come_from_the_registry_and_merge_close_sizes():
    sizes = real_model_sizes()
    assert all(sizes[p.short] == p.vocab_size for p in PRETRAINED.values())
    assert sizes["GPT-2"] == 50_257 and sizes["Mistral Tekken"] == 131_072 and sizes["Llama 3"] == 128_256
    marks = size_marks(sizes)
    assert [m.size for m in marks] == sorted(m.size for m in marks)
    assert all(sum(name in m.label for m in marks) == 1 for name in sizes)  # every model named once
    llama = next(m for m in marks if "Llama 3" in m.label)
    assert llama.size == 128_256 and "Mistral Tekken" in llama.label  # 131,072 is within a few percent
    assert len(marks) < len(sizes)


def test_cost_at_sizes_is_the_calculators_cost():
    cost = cost_at_sizes([256, 2**17], hidden_size=4096, tied=False, total_params=8_030_261_248)
    for row in cost.itertuples():
        expected = model_cost(ModelConfig(row.size, 4096, False, 8_030_261_248))
        assert row.embedding_params == expected.embedding_params == 2 * row.size * 4096
        assert row.output_flops == expected.output_flops == 2 * 4096 * row.size


def _marks_frame():
    import pandas as pd

    return pd.DataFrame([dict(size=m.size, label=m.label) for m in size_marks(real_model_sizes())])


def test_truncation_chart_spec(table):
    spec = truncation_chart(table, _marks_frame()).to_dict()
    assert spec["width"] == "container"  # stretches to a phone or a projector
    assert "o200k cut to its first k tokens" in spec["title"]["text"]
    layers = spec["layer"]
    x = layers[0]["encoding"]["x"]
    assert x["scale"]["type"] == "log" and x["scale"]["base"] == 2 and x["axis"]["labelOverlap"] == "greedy"
    assert x["axis"]["values"][0] == 256 and x["axis"]["values"][-1] == 199_998
    names = layers[1]  # the models' names, each on a row of its own, ending at its rule
    assert names["mark"]["type"] == "text" and names["mark"]["align"] == "right"
    rows = [(row["top"], row["size"]) for row in spec["datasets"][names["data"]["name"]]]
    assert len({top for top, _ in rows}) == len(rows) == len(size_marks(real_model_sizes()))
    # the largest size on the top row: each rule starts at its name's row, and a name
    # reaches left over smaller sizes only, whose rules start on rows below it
    assert [size for _, size in sorted(rows)] == sorted((size for _, size in rows), reverse=True)
    colors = [layer["encoding"].get("color", {}) for layer in layers]
    assert any(c.get("field") == "language" and c["legend"]["columns"] == 3 for c in colors)
    tooltips = [t["title"] for t in layers[2]["encoding"]["tooltip"]]
    assert "Characters per token" in tooltips and "Ranks kept" in tooltips
    assert spec["config"]["axis"]["labelFontSize"] >= 14


def test_language_ratio_names_are_written_upwards_and_the_legend_sits_below():
    import pandas as pd

    rows = [dict(tokenizer=t, code=c, language=c, script="", tokens=10, unknown=0, chars=10, bytes=10,
                 bytes_per_char=1.0, chars_per_token=1.0, ratio=1.0) for t in ("GPT-2 (50K)", "a, V = 9") for c in "ab"]
    from ui.vocab.charts import language_ratio_chart

    spec = language_ratio_chart(pd.DataFrame(rows)).to_dict()
    axis = spec["layer"][0]["encoding"]["x"]["axis"]
    assert axis["labelAngle"] == 270 and axis["labelOverlap"] is False
    assert spec["layer"][0]["encoding"]["color"]["legend"]["orient"] == "bottom"


def test_truncation_cost_chart_spec():
    cost = cost_at_sizes([256, 1024, 2**17], hidden_size=768, tied=True, total_params=124_439_808)
    spec = truncation_cost_chart(cost, _marks_frame(), model="d = 768, tied").to_dict()
    assert spec["width"] == "container" and spec["title"]["subtitle"] == "d = 768, tied"
    line = spec["layer"][-1]
    assert line["encoding"]["color"]["scale"]["domain"] == ["Embedding parameters", "Output-layer FLOPs per token (2dV)"]
    assert "'G', 'B'" in line["encoding"]["y"]["axis"]["labelExpr"]  # 1.2B, not 1.2G
