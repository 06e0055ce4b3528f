"""The parts of a Hugging Face tokenizer.json, one module per stage as the library's
own crate splits them: `normalizers`, `pre_tokenizers`, `models` (bpe, wordpiece,
unigram), `decoders`; `oniguruma` for patterns read and written the library's way.
`formats.hf_json` reads a whole file with them and writes one."""
from .decoders import DECODERS
from .models import MODELS
from .normalizers import NORMALIZERS
from .pre_tokenizers import PRE_TOKENIZERS

__all__ = ["NORMALIZERS", "PRE_TOKENIZERS", "MODELS", "DECODERS"]
