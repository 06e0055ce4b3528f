"""Every model-cost formula and every published figure the Vocabulary size page shows.

The figures come from issue #5: Llama 3 8B (V = 128,256, d = 4,096: about 525M
parameters per matrix, about 1.05B for both); a 0.6B model with V = 151,936 and
d = 1,024 (about 156M embedding parameters, about 311M output FLOPs per token against
about 1.2 GFLOPs); a 70B model with d = 8,192 and the same V (about 2.5 GFLOPs, under 2%
of about 140 GFLOPs); GPT-2 small (50,257 x 768); doubling V from 64,000 to 128,000
at d = 4,096 untied (about 524M more parameters).
"""
from fractions import Fraction

import pytest

from ui.vocab.model_cost import (
    PRECISIONS,
    PRESETS,
    REAL_VOCABS,
    ModelConfig,
    approx,
    approx_bytes,
    approx_flops,
    check_figure,
    exact,
    model_cost,
    vocab_change,
)


# ---- the formulas ------------------------------------------------------------------------
@pytest.mark.parametrize("tied, matrices", [(True, 1), (False, 2)])
def test_embedding_params_are_v_times_d_per_matrix(tied, matrices):
    cost = model_cost(ModelConfig(1_000, 64, tied, 10_000_000))
    assert cost.params_per_matrix == 64_000
    assert cost.matrices == matrices
    assert cost.embedding_params == 64_000 * matrices


@pytest.mark.parametrize("precision, bytes_per_param", [
    ("fp32", 4), ("bf16", 2), ("fp16", 2), ("int8", 1), ("int4", Fraction(1, 2)),
])
def test_memory_is_params_times_bytes_per_parameter(precision, bytes_per_param):
    assert PRECISIONS[precision] == bytes_per_param
    cost = model_cost(PRESETS["llama3_8b"].config, precision)
    assert cost.embedding_bytes == 1_050_673_152 * bytes_per_param


def test_llama3_memory_at_each_precision_exactly():
    config = PRESETS["llama3_8b"].config
    got = {p: model_cost(config, p).embedding_bytes for p in PRECISIONS}
    assert got == {"fp32": 4_202_692_608, "bf16": 2_101_346_304, "fp16": 2_101_346_304,
                   "int8": 1_050_673_152, "int4": 525_336_576}
    assert approx_bytes(got["bf16"]) == "2.1 GB"


def test_output_flops_are_2dv_and_forward_is_2n():
    cost = model_cost(ModelConfig(50_000, 1_000, True, 1_000_000_000))
    assert cost.output_flops == 2 * 1_000 * 50_000 == 100_000_000
    assert cost.forward_flops == 2_000_000_000
    assert cost.output_share == Fraction(1, 20)  # dV / N
    assert cost.param_share == Fraction(1, 20)


def test_output_flops_do_not_depend_on_tying():
    tied = model_cost(ModelConfig(32_000, 4_096, True, 7_000_000_000))
    untied = model_cost(ModelConfig(32_000, 4_096, False, 7_000_000_000))
    assert tied.output_flops == untied.output_flops == 262_144_000
    assert untied.embedding_params == 2 * tied.embedding_params


def test_vocab_change_grows_n_with_the_embeddings():
    ch = vocab_change(ModelConfig(10, 4, False, 1_000), 20, "fp32")
    assert ch.params == 80  # 10 more rows x 4 x 2 matrices
    assert ch.after.config.total_params == 1_080
    assert ch.bytes == 320
    assert ch.output_flops == 2 * 4 * 10
    shrink = vocab_change(ModelConfig(20, 4, True, 1_000), 10)
    assert shrink.params == -40


# ---- the published figures, exactly --------------------------------------------------------
def test_llama3_8b():
    cost = model_cost(PRESETS["llama3_8b"].config)
    assert (cost.params_per_matrix, cost.embedding_params) == (525_336_576, 1_050_673_152)
    assert approx(cost.params_per_matrix) == "525M"
    assert approx(cost.embedding_params) == "1.05B"


def test_qwen_sized_0_6b_model():
    cost = model_cost(PRESETS["qwen3_0_6b"].config)
    assert cost.config.vocab_size == 151_936 and cost.config.hidden_size == 1_024
    assert cost.embedding_params == 155_582_464 and approx(cost.embedding_params) == "156M"
    assert cost.output_flops == 311_164_928 and approx(cost.output_flops) == "311M"
    assert cost.forward_flops == 1_200_000_000 and approx_flops(cost.forward_flops, 2) == "1.2 GFLOPs"
    assert f"{float(cost.output_share):.1%}" == "25.9%"


def test_70b_model_with_d_8192_and_the_same_v():
    cost = model_cost(PRESETS["d8192_70b"].config)
    assert cost.config.vocab_size == 151_936 and cost.config.hidden_size == 8_192
    assert cost.output_flops == 2_489_319_424
    assert approx_flops(cost.output_flops, 2) == "2.5 GFLOPs"
    assert cost.forward_flops == 140_000_000_000 and approx_flops(cost.forward_flops) == "140 GFLOPs"
    assert cost.output_share < Fraction(2, 100)
    assert f"{float(cost.output_share):.2%}" == "1.78%"


def test_gpt2_small():
    cost = model_cost(PRESETS["gpt2_small"].config)
    assert (cost.config.vocab_size, cost.config.hidden_size, cost.config.tied) == (50_257, 768, True)
    assert cost.embedding_params == 38_597_376
    assert cost.output_flops == 77_194_752
    assert approx(cost.embedding_params) == "38.6M"


def test_doubling_v_from_64000_to_128000_at_d_4096_untied():
    preset = PRESETS["double_v"]
    assert (preset.config.vocab_size, preset.compare_to, preset.config.hidden_size, preset.config.tied) == (
        64_000, 128_000, 4_096, False)
    ch = vocab_change(preset.config, preset.compare_to)
    assert ch.params == 524_288_000
    assert approx(ch.params) == "524M"


@pytest.mark.parametrize("key", list(PRESETS))
def test_every_preset_reproduces_its_published_figures(key):
    preset = PRESETS[key]
    assert preset.figures, f"{key} states no figures"
    for figure in preset.figures:
        computed, ok = check_figure(preset, figure)
        assert ok, f"{preset.title}: {figure.text!r} but computed {computed}"


def test_check_figure_reports_a_mismatch():
    from dataclasses import replace

    preset = PRESETS["llama3_8b"]
    wrong = replace(preset, config=replace(preset.config, hidden_size=2_048))
    assert check_figure(wrong, preset.figures[0]) == ("263M", False)


# ---- real vocabulary sizes -------------------------------------------------------------------
def test_real_vocab_sizes_as_the_issue_lists_them():
    got = {r.name: (r.size, r.label) for r in REAL_VOCABS}
    assert got == {
        "Llama 2": (32_000, "32K"),
        "GPT-2": (50_257, "50K"),
        "GPT-4 (cl100k)": (100_277, "100K"),
        "Llama 3": (128_256, "128K"),
        "Qwen": (151_936, "152K"),
        "GPT-4o (o200k)": (200_019, "200K"),
        "Gemma 3": (262_144, "262K"),
    }
    assert [r.size for r in REAL_VOCABS] == sorted(r.size for r in REAL_VOCABS)
    assert all(r.source for r in REAL_VOCABS)


@pytest.mark.parametrize("name, real", [("gpt2", "GPT-2"), ("cl100k_base", "GPT-4 (cl100k)"),
                                        ("o200k_base", "GPT-4o (o200k)")])
def test_openai_sizes_match_the_files_the_app_loads(name, real):
    """tiktoken's n_vocab is the largest id + 1 (special tokens included)."""
    from bpe_core.pretrained import openai_tokenizer

    tok = openai_tokenizer(name)
    n_vocab = max([*tok.tokens, *tok.special_tokens.values()]) + 1
    assert n_vocab == next(r.size for r in REAL_VOCABS if r.name == real)


def test_presets_match_real_vocab_sizes():
    sizes = {r.name: r.size for r in REAL_VOCABS}
    assert PRESETS["llama3_8b"].config.vocab_size == sizes["Llama 3"]
    assert PRESETS["qwen3_0_6b"].config.vocab_size == sizes["Qwen"]
    assert PRESETS["gpt2_small"].config.vocab_size == sizes["GPT-2"]


# ---- input checks and formatting -------------------------------------------------------------
@pytest.mark.parametrize("bad", [0, -5, 1.5, True, None])
def test_config_rejects_bad_numbers(bad):
    with pytest.raises(ValueError, match="whole number of at least 1"):
        ModelConfig(bad, 768, True, 100)


def test_unknown_precision_names_the_choices():
    with pytest.raises(ValueError, match="Unknown precision 'fp8'. Choose one of: fp32, bf16"):
        model_cost(PRESETS["gpt2_small"].config, "fp8")


@pytest.mark.parametrize("value, digits, text", [
    (525_336_576, 3, "525M"), (1_050_673_152, 3, "1.05B"), (155_582_464, 3, "156M"),
    (2_489_319_424, 2, "2.5B"), (999, 3, "999"), (999_600, 3, "1M"), (38_597_376, 3, "38.6M"),
    (0, 3, "0"), (-524_288_000, 3, "-524M"), (1_500_000_000_000, 3, "1.5T"),
])
def test_approx(value, digits, text):
    assert approx(value, digits) == text


@pytest.mark.parametrize("value, text", [
    (512, "512 bytes"), (966_144, "966 kB"), (154_389_504, "154 MB"), (2_101_346_304, "2.1 GB"),
    (Fraction(1, 2), "0.5 bytes"),
])
def test_approx_bytes(value, text):
    assert approx_bytes(value) == text


def test_exact_uses_thousands_separators():
    assert exact(1_050_673_152) == "1,050,673,152"
    assert exact(Fraction(5, 2)) == "2.5"


def test_the_docs_quote_the_same_figures(repo_root):
    """docs/vocab_size_page.md states every preset's and every real model's numbers."""
    doc = (repo_root / "docs" / "vocab_size_page.md").read_text(encoding="utf-8")
    for r in REAL_VOCABS:
        assert f"{r.size:,}" in doc, r.name
    for key, preset in PRESETS.items():
        cost = model_cost(preset.config, preset.precision)
        assert f"{preset.config.vocab_size:,}" in doc and f"{preset.config.hidden_size:,}" in doc, key
        for figure in preset.figures:
            if figure.quantity != "delta_params":
                value = getattr(cost, figure.quantity)
                if figure.fmt != "below":
                    assert exact(value) in doc, (key, figure.text)
    assert "524,288,000" in doc
