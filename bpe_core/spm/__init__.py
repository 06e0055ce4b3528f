"""SentencePiece models: read `.model` files and encode with our own code.

- `proto.py`: a small reader of the protobuf wire format for `ModelProto`;
- `normalizer.py`: SentencePiece's normalizer (identity or a precompiled character
  map, extra spaces, dummy prefix, `▁` for spaces), with offsets into the original text;
- `segment.py`: BPE by piece score and Unigram by Viterbi;
- `tokenizer.py`: `SentencePieceTokenizer` (encode, decode, token_spans);
- `shipped.py`: Mistral 7B's model from the `mistral-common` package, hash-checked.

>>> from bpe_core.spm import shipped_tokenizer
>>> tok = shipped_tokenizer("mistral-7b-v1")
>>> tok.encode_pieces("Hello world\\n")
['▁Hello', '▁world', '<0x0A>']
>>> tok.decode(tok.encode("Hello world\\n"))
'Hello world\\n'
"""
from .proto import ModelPiece, ModelProto, NormalizerSpec, TrainerSpec, read_model
from .shipped import SHIPPED_MODELS, shipped_model_path, shipped_tokenizer
from .tokenizer import SentencePieceSpan, SentencePieceTokenizer, looks_like_sentencepiece

__all__ = [
    "ModelPiece",
    "ModelProto",
    "NormalizerSpec",
    "TrainerSpec",
    "read_model",
    "SHIPPED_MODELS",
    "shipped_model_path",
    "shipped_tokenizer",
    "SentencePieceSpan",
    "SentencePieceTokenizer",
    "looks_like_sentencepiece",
]
