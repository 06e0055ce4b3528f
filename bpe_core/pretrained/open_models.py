"""What the open models' rank files leave out: their pre-tokenizer pattern and special
tokens, as each model's own tokenizer code declares them (the carrier packages hold the
rank files; `PRETRAINED` names them).

Qwen's tokenizers (Qwen 1 to 3 share one vocabulary; Qwen 3.5 and 3.6 another) are
tiktoken rank files plus a pattern that splits digits one by one, with their special
tokens numbered from just past the last rank. Llama 3's tokenizer.model is a rank file
too, with GPT-4's pattern and 256 special tokens from 128,000. BERT's vocabularies
(read from Bling Fire's `.i2w` lists) leave out whether the model lowercases.
"""
from __future__ import annotations

from ..pretokenize import MODEL_PATTERNS

#: Qwen (1, 2, 2.5, 3): cl100k's pattern with single digits; Qwen 3.5 / 3.6: combining
#: marks (\p{M}) join letters. Kept in `pretokenize.MODEL_PATTERNS` (trusted patterns).
QWEN_PATTERN = MODEL_PATTERNS["qwen"]
QWEN35_PATTERN = MODEL_PATTERNS["qwen3.5"]

QWEN_SPECIALS: dict[str, int] = {
    text: 151_643 + i
    for i, text in enumerate(("<|endoftext|>", "<|im_start|>", "<|im_end|>", *(f"<|extra_{k}|>" for k in range(205))))
}
QWEN35_SPECIALS: dict[str, int] = {
    text: 248_044 + i
    for i, text in enumerate((
        "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
        "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>",
        "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>", "</tool_call>", "<|fim_prefix|>",
        "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>", "<tool_response>",
        "</tool_response>", "<think>", "</think>", "<|audio_start|>", "<|audio_end|>", "<tts_pad>",
        "<tts_text_bos>", "<tts_text_eod>", "<tts_text_bos_single>", "<|audio_pad|>",
    ))
}

#: Llama 3 (3.1, 3.2, 3.3): digits in threes, as GPT-4's pattern.
LLAMA3_PATTERN = MODEL_PATTERNS["llama3"]
_LLAMA3_NAMED = ("<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
                 "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|step_id|>", "<|start_header_id|>",
                 "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>", "<|python_tag|>", "<|image|>")
LLAMA3_SPECIALS: dict[str, int] = {
    text: 128_000 + i
    for i, text in enumerate((*_LLAMA3_NAMED,
                              *(f"<|reserved_special_token_{2 + k}|>" for k in range(256 - len(_LLAMA3_NAMED)))))
}

#: entry name -> (pattern, special tokens) for the rank-file entries of kind "tiktoken"
RANK_FILE_SETTINGS: dict[str, tuple[str, dict[str, int]]] = {
    "llama3": (LLAMA3_PATTERN, LLAMA3_SPECIALS),
    "qwen2.5": (QWEN_PATTERN, QWEN_SPECIALS),
    "qwen3.6": (QWEN35_PATTERN, QWEN35_SPECIALS),
}

#: entry name -> whether its BERT model lowercases and strips accents (kind "bert-i2w"),
#: as BERT's own release and Hugging Face's tokenizer.json for it set `do_lower_case`
BERT_LOWERCASE: dict[str, bool] = {
    "bert-base-uncased": True,
    "bert-base-cased": False,
    "bert-base-multilingual-cased": False,
}
