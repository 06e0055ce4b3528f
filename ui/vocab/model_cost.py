"""What a vocabulary costs a model: embedding parameters, their memory, output FLOPs.

Pure functions and frozen dataclasses (no Streamlit), so every figure the Vocabulary
size page shows can be checked by a test or a doctest.

The formulas, for a vocabulary of V tokens and a hidden size (model width) d:

- one embedding matrix has V x d parameters. The input embedding maps a token id to
  a d-vector; the output layer ("LM head", "unembedding") maps the last d-vector back
  to V scores. Tied embeddings use one matrix for both; untied use two, so 2 x V x d.
- memory = parameters x bytes per parameter at a precision (fp32 4, bf16/fp16 2,
  int8 1, int4 0.5).
- the output layer is a (1 x d) @ (d x V) product per token: V x d multiply-adds,
  which is 2 x d x V FLOPs. The input lookup costs no FLOPs.
- a forward pass costs about 2N FLOPs per token for a model of N parameters (each
  weight is used once, in one multiply-add; Kaplan et al. 2020, "Scaling Laws for
  Neural Language Models", section 2.1). That ignores attention over the context, so
  the output layer's share, 2dV / 2N = dV / N, is an estimate for short contexts.

What this module leaves out: attention FLOPs (they grow with context length), the
backward pass (about twice the forward), activations and the KV cache in memory.

>>> llama = PRESETS["llama3_8b"].config
>>> cost = model_cost(llama, "bf16")
>>> cost.params_per_matrix, cost.embedding_params
(525336576, 1050673152)
>>> approx(cost.params_per_matrix), approx(cost.embedding_params)
('525M', '1.05B')
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

__all__ = [
    "PRECISIONS",
    "ModelConfig",
    "ModelCost",
    "VocabChange",
    "Figure",
    "ModelPreset",
    "PRESETS",
    "check_figure",
    "RealVocab",
    "REAL_VOCABS",
    "model_cost",
    "vocab_change",
    "approx",
    "approx_flops",
    "approx_bytes",
    "exact",
]

#: bytes per parameter at each precision (int4 packs two weights in a byte)
PRECISIONS: dict[str, Fraction] = {
    "fp32": Fraction(4),
    "bf16": Fraction(2),
    "fp16": Fraction(2),
    "int8": Fraction(1),
    "int4": Fraction(1, 2),
}

PRECISION_NOTES: dict[str, str] = {
    "fp32": "32-bit float, 4 bytes a weight (training master copies)",
    "bf16": "bfloat16, 2 bytes a weight (how most models are shipped)",
    "fp16": "16-bit float, 2 bytes a weight",
    "int8": "8-bit integers, 1 byte a weight (quantised)",
    "int4": "4-bit integers, half a byte a weight (quantised; scales add a little)",
}


@dataclass(frozen=True)
class ModelConfig:
    """A model's shape as far as its vocabulary is concerned.

    vocab_size V, hidden_size d, tied (one matrix for input and output embeddings)
    and total_params N (all of the model's parameters, embeddings included).
    """

    vocab_size: int
    hidden_size: int
    tied: bool
    total_params: int

    def __post_init__(self) -> None:
        for name in ("vocab_size", "hidden_size", "total_params"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(
                    f"The {name.replace('_', ' ')} must be a whole number of at least 1, "
                    f"not {value!r}."
                )


@dataclass(frozen=True)
class ModelCost:
    """The vocabulary's share of a model, for one configuration and precision."""

    config: ModelConfig
    precision: str
    params_per_matrix: int      # V x d
    matrices: int               # 1 tied, 2 untied
    embedding_params: int       # V x d x matrices
    embedding_bytes: Fraction   # embedding_params x bytes per parameter
    output_flops: int           # 2 x d x V per token
    forward_flops: int          # about 2 x N per token

    @property
    def output_share(self) -> Fraction:
        """The output layer's share of the forward pass: 2dV / 2N."""
        return Fraction(self.output_flops, self.forward_flops)

    @property
    def param_share(self) -> Fraction:
        """The embeddings' share of all parameters (can exceed 1 if N is too small)."""
        return Fraction(self.embedding_params, self.config.total_params)


def model_cost(config: ModelConfig, precision: str = "bf16") -> ModelCost:
    """Embedding parameters, memory and output-layer FLOPs of a configuration.

    GPT-2 small (tied): 50,257 x 768 = 38,597,376 parameters, 77,194,752 output FLOPs
    per token, 31% of about 2N = 248,879,616.

    >>> c = model_cost(PRESETS["gpt2_small"].config, "fp32")
    >>> c.embedding_params, c.output_flops, c.forward_flops, f"{float(c.output_share):.0%}"
    (38597376, 77194752, 248879616, '31%')
    >>> approx_bytes(c.embedding_bytes)
    '154 MB'
    """
    if precision not in PRECISIONS:
        raise ValueError(
            f"Unknown precision {precision!r}. Choose one of: {', '.join(PRECISIONS)}."
        )
    per_matrix = config.vocab_size * config.hidden_size
    matrices = 1 if config.tied else 2
    params = per_matrix * matrices
    return ModelCost(
        config=config,
        precision=precision,
        params_per_matrix=per_matrix,
        matrices=matrices,
        embedding_params=params,
        embedding_bytes=params * PRECISIONS[precision],
        output_flops=2 * config.hidden_size * config.vocab_size,
        forward_flops=2 * config.total_params,
    )


@dataclass(frozen=True)
class VocabChange:
    """What changing V alone (same d, tied or not) adds or saves."""

    before: ModelCost
    after: ModelCost

    @property
    def params(self) -> int:
        return self.after.embedding_params - self.before.embedding_params

    @property
    def bytes(self) -> Fraction:
        return self.after.embedding_bytes - self.before.embedding_bytes

    @property
    def output_flops(self) -> int:
        return self.after.output_flops - self.before.output_flops


def vocab_change(config: ModelConfig, new_vocab_size: int, precision: str = "bf16") -> VocabChange:
    """The cost of moving from config.vocab_size to new_vocab_size (N grows with it).

    Doubling V from 64,000 to 128,000 at d = 4,096, untied: 64,000 x 4,096 x 2 more.

    >>> ch = vocab_change(ModelConfig(64_000, 4096, False, 8_000_000_000), 128_000)
    >>> ch.params, approx(ch.params)
    (524288000, '524M')
    """
    after_config = replace(
        config,
        vocab_size=new_vocab_size,
        total_params=config.total_params
        + (new_vocab_size - config.vocab_size) * config.hidden_size * (1 if config.tied else 2),
    )
    return VocabChange(model_cost(config, precision), model_cost(after_config, precision))


@dataclass(frozen=True)
class Figure:
    """A published statement about a preset and how to check it.

    `quantity` names a ModelCost attribute (or `delta_params` for the preset's
    comparison); `expected` is the statement's number as `fmt` writes it: "count"
    (approx), "flops" (approx_flops), "exact" (thousands separators) or "below" (the
    quantity, a fraction, is under `expected` as a percentage such as "2%").
    """

    text: str
    quantity: str
    expected: str
    fmt: str = "count"
    digits: int = 3


@dataclass(frozen=True)
class ModelPreset:
    """A published model shape and the figures the page must reproduce from it.

    `compare_to` (optional) is a second vocabulary size for a what-if comparison.
    `figures` are the published statements, in words, that the tests check.
    """

    title: str
    config: ModelConfig
    source: str
    figures: tuple[Figure, ...] = ()
    compare_to: int | None = None
    precision: str = "bf16"
    note: str = ""


# Sources: each model's config.json on its official model page (vocab_size,
# hidden_size, tie_word_embeddings) and its paper or model card for N.
PRESETS: dict[str, ModelPreset] = {
    "llama3_8b": ModelPreset(
        title="Llama 3 8B",
        # Meta-Llama-3-8B config.json: vocab_size 128256, hidden_size 4096,
        # tie_word_embeddings false; 8.03B parameters (model card).
        config=ModelConfig(128_256, 4_096, False, 8_030_261_248),
        source="Meta, Llama 3 model card and config.json (Dubey et al. 2024, The Llama 3 Herd of Models)",
        figures=(
            Figure("about 525M parameters per matrix", "params_per_matrix", "525M"),
            Figure("about 1.05B for both", "embedding_params", "1.05B"),
        ),
    ),
    "qwen3_0_6b": ModelPreset(
        title="A 0.6B model (V = 151,936, d = 1,024, tied)",
        # Qwen3-0.6B config.json: vocab_size 151936, hidden_size 1024,
        # tie_word_embeddings true; 0.6B parameters (model card).
        config=ModelConfig(151_936, 1_024, True, 600_000_000),
        source="Qwen3-0.6B model card and config.json (Qwen team, 2025)",
        figures=(
            Figure("about 156M embedding parameters", "embedding_params", "156M"),
            Figure("about 311M output FLOPs per token", "output_flops", "311M"),
            Figure("against about 1.2 GFLOPs in all", "forward_flops", "1.2 GFLOPs", "flops", 2),
        ),
    ),
    "d8192_70b": ModelPreset(
        title="A 70B model (d = 8,192, same V = 151,936)",
        # The width of Llama-2/3-70B and Qwen2-72B (hidden_size 8192) with the 0.6B
        # model's vocabulary: the output layer's share shrinks as the model grows.
        config=ModelConfig(151_936, 8_192, False, 70_000_000_000),
        source="hidden size 8,192 as in Llama 3 70B and Qwen2-72B config.json; N = 70B",
        figures=(
            Figure("about 2.5 GFLOPs in the output layer", "output_flops", "2.5 GFLOPs", "flops", 2),
            Figure("under 2%", "output_share", "2%", "below"),
            Figure("of about 140 GFLOPs", "forward_flops", "140 GFLOPs", "flops"),
        ),
    ),
    "gpt2_small": ModelPreset(
        title="GPT-2 small (50,257 x 768, tied)",
        # Radford et al. 2019: vocabulary 50,257, d_model 768 for the smallest model;
        # 124,439,808 parameters as counted by the released checkpoint (the paper
        # says 117M).
        config=ModelConfig(50_257, 768, True, 124_439_808),
        source="Radford et al. 2019, Language Models are Unsupervised Multitask Learners; the released gpt2 checkpoint",
        figures=(
            Figure("50,257 x 768 = 38,597,376 parameters in its one (tied) matrix", "embedding_params",
                   "38,597,376", "exact"),
        ),
        precision="fp32",
    ),
    "double_v": ModelPreset(
        title="Doubling V: 64,000 -> 128,000 at d = 4,096, untied",
        config=ModelConfig(64_000, 4_096, False, 8_000_000_000),
        source="arithmetic: (128,000 - 64,000) x 4,096 x 2 matrices",
        figures=(Figure("about 524M more parameters", "delta_params", "524M"),),
        compare_to=128_000,
        note="N = 8B is an assumption for the shares; the added parameters do not depend on it.",
    ),
}


@dataclass(frozen=True)
class RealVocab:
    """A real tokenizer's vocabulary size, with where the figure comes from."""

    name: str
    size: int
    label: str
    source: str = field(repr=False)


# Sizes as the models' embedding matrices have them (specials included).
REAL_VOCABS: tuple[RealVocab, ...] = (
    # Touvron et al. 2023, Llama 2 paper, section 2.1: "The total vocabulary size is 32k tokens";
    # config.json vocab_size 32000.
    RealVocab("Llama 2", 32_000, "32K", "Touvron et al. 2023, Llama 2 paper; config.json vocab_size 32000"),
    # Radford et al. 2019, section 2.2: "The vocabulary is expanded to 50,257".
    RealVocab("GPT-2", 50_257, "50K", "Radford et al. 2019, GPT-2 paper, section 2.2"),
    # tiktoken cl100k_base: 100,256 ranks + special tokens, n_vocab 100,277 (the file
    # this app loads).
    RealVocab("GPT-4 (cl100k)", 100_277, "100K", "tiktoken cl100k_base, n_vocab 100,277"),
    # Dubey et al. 2024, Llama 3 Herd of Models: "a vocabulary with 128K tokens";
    # config.json vocab_size 128256.
    RealVocab("Llama 3", 128_256, "128K", "Dubey et al. 2024; Meta-Llama-3-8B config.json vocab_size 128256"),
    # Qwen2/2.5/3 config.json vocab_size 151936 (151,643 regular tokens + specials + padding).
    RealVocab("Qwen", 151_936, "152K", "Qwen2 technical report (Yang et al. 2024); config.json vocab_size 151936"),
    # tiktoken o200k_base: n_vocab 200,019 (the file this app loads).
    RealVocab("GPT-4o (o200k)", 200_019, "200K", "tiktoken o200k_base, n_vocab 200,019"),
    # Gemma Team 2025, Gemma 3 Technical Report: "the same tokenizer as Gemini 2.0 ...
    # 262k entries"; gemma-3-1b config.json vocab_size 262144.
    RealVocab("Gemma 3", 262_144, "262K", "Gemma Team 2025, Gemma 3 Technical Report; config.json vocab_size 262144"),
)


def check_figure(preset: ModelPreset, figure: Figure) -> tuple[str, bool]:
    """(the computed value written the way the figure is, whether it matches).

    >>> p = PRESETS["d8192_70b"]
    >>> [check_figure(p, f) for f in p.figures]
    [('2.5 GFLOPs', True), ('1.78%', True), ('140 GFLOPs', True)]
    """
    if figure.quantity == "delta_params":
        if preset.compare_to is None:
            raise ValueError(f"{preset.title!r} has no comparison, so {figure.text!r} cannot be checked.")
        value = vocab_change(preset.config, preset.compare_to, preset.precision).params
    else:
        value = getattr(model_cost(preset.config, preset.precision), figure.quantity)
    if figure.fmt == "below":
        limit = Fraction(figure.expected.rstrip("%")) / 100
        return f"{float(value):.2%}", value < limit
    if figure.fmt == "exact":
        text = exact(value)
    elif figure.fmt == "flops":
        text = approx_flops(value, figure.digits)
    else:
        text = approx(value, figure.digits)
    return text, text == figure.expected


# ---- formatting --------------------------------------------------------------------------
_SUFFIXES = ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K"))


def approx(value: int | float | Fraction, digits: int = 3) -> str:
    """A count in short form with `digits` significant digits: 525M, 1.05B, 38.6M.

    >>> approx(525_336_576), approx(1_050_673_152), approx(2_489_319_424, 2)
    ('525M', '1.05B', '2.5B')
    >>> approx(999), approx(0), approx(-524_288_000)
    ('999', '0', '-524M')
    """
    value = float(value)
    if value < 0:
        return "-" + approx(-value, digits)
    for scale, suffix in _SUFFIXES:
        if value >= scale * (1 - 0.5 * 10 ** -digits):
            return _sig(value / scale, digits) + suffix
    return _sig(value, digits)


def _sig(x: float, digits: int) -> str:
    text = f"{x:.{digits}g}"
    if "e" in text:  # e.g. 1e+03 when rounding reaches the next power of ten
        text = f"{float(text):.0f}"
    return text


def approx_flops(n: int | float | Fraction, digits: int = 3) -> str:
    """FLOPs with an SI prefix: 311 MFLOPs, 1.2 GFLOPs, 140 GFLOPs.

    >>> approx_flops(311_164_928), approx_flops(1_200_000_000, 2), approx_flops(140_000_000_000)
    ('311 MFLOPs', '1.2 GFLOPs', '140 GFLOPs')
    """
    n = float(n)
    for scale, prefix in ((10**12, "T"), (10**9, "G"), (10**6, "M"), (10**3, "k")):
        if n >= scale * (1 - 0.5 * 10 ** -digits):
            return f"{_sig(n / scale, digits)} {prefix}FLOPs"
    return f"{_sig(n, digits)} FLOPs"


def approx_bytes(n: int | float | Fraction) -> str:
    """Bytes in decimal units (kB, MB, GB), three significant digits.

    >>> approx_bytes(2 * 1_050_673_152), approx_bytes(512), approx_bytes(Fraction(3, 2))
    ('2.1 GB', '512 bytes', '1.5 bytes')
    """
    n = float(n)
    for scale, unit in ((10**12, "TB"), (10**9, "GB"), (10**6, "MB"), (10**3, "kB")):
        if n >= scale:
            return f"{_sig(n / scale, 3)} {unit}"
    return f"{_sig(n, 3)} bytes"


def exact(n: int | Fraction) -> str:
    """An exact figure with thousands separators (a half byte shows as .5).

    >>> exact(525336576), exact(Fraction(77, 2))
    ('525,336,576', '38.5')
    """
    if isinstance(n, Fraction) and n.denominator != 1:
        return f"{float(n):,.1f}"
    return f"{int(n):,}"
