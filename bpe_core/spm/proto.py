"""Read a SentencePiece `.model` file: a serialized `ModelProto` (protocol buffers, proto2).

Only the protobuf wire format is needed, so this is a small reader of it rather than a
dependency on `protobuf` or `sentencepiece`. It knows the fields a tokenizer needs:

- `pieces`: each piece's text, score and type (normal, unknown, control, user-defined,
  unused, byte);
- `trainer_spec`: model type (unigram or BPE), byte fallback, the unk/bos/eos/pad ids
  and pieces, the unknown surface, whitespace-as-suffix, vocabulary size;
- `normalizer_spec` (and `denormalizer_spec`): the rule name, the precompiled
  character map, add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces.

Every other field is skipped, as protobuf itself skips unknown fields. The schema is
fixed and at most three levels deep, so no input can make the reader recurse further.
Anything that is not a well-formed model (not protobuf, truncated, a known field with
the wrong wire type, a string that is not UTF-8, a model SentencePiece itself would
refuse) raises one ValueError that says what is wrong.

Left out: writing models, groups (wire types 3 and 4, which SentencePiece never
writes), the self-test data and the training-only fields.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Iterator, NamedTuple

__all__ = [
    "PIECE_TYPES",
    "MODEL_TYPES",
    "ModelPiece",
    "TrainerSpec",
    "NormalizerSpec",
    "ModelProto",
    "read_model",
    "read_varint",
    "iter_fields",
]

#: SentencePiece's piece types by their protobuf enum value.
PIECE_TYPES = {1: "normal", 2: "unknown", 3: "control", 4: "user_defined", 5: "unused", 6: "byte"}
#: Model types by enum value (SentencePiece's TrainerSpec.ModelType).
MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}

_VARINT, _FIXED64, _LEN, _FIXED32 = 0, 1, 2, 5
_WIRE_NAMES = {0: "varint", 1: "64-bit", 2: "length-delimited", 3: "start-group",
               4: "end-group", 5: "32-bit"}
_MAX_VARINT_BYTES = 10


class _Malformed(Exception):
    """Raised inside the reader; `read_model` turns it into one ValueError."""


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """A base-128 varint at `pos`: (value, position after it).

    >>> read_varint(bytes([0x96, 0x01]), 0)
    (150, 2)
    """
    value = shift = 0
    for i in range(pos, min(len(data), pos + _MAX_VARINT_BYTES)):
        byte = data[i]
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, i + 1
        shift += 7
    if len(data) - pos >= _MAX_VARINT_BYTES:
        raise _Malformed(f"a varint at byte {pos} is longer than 10 bytes")
    raise _Malformed(f"the data ends inside a varint at byte {pos} (truncated)")


def iter_fields(data: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """(field number, wire type, value) for each field of one message, in file order.

    Varints and fixed-width values come as ints (fixed-width as their raw little-endian
    bits), length-delimited ones as bytes.

    >>> list(iter_fields(bytes([0x08, 0x96, 0x01, 0x12, 0x02, 0x68, 0x69])))
    [(1, 0, 150), (2, 2, b'hi')]
    """
    pos, end = 0, len(data)
    value: int | bytes
    while pos < end:
        key, pos = read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise _Malformed(f"field number 0 at byte {pos} (protobuf numbers start at 1)")
        if wire == _VARINT:
            value, pos = read_varint(data, pos)
        elif wire == _LEN:
            size, pos = read_varint(data, pos)
            if size > end - pos:
                raise _Malformed(
                    f"field {number} says it holds {size} bytes but only {end - pos} are left (truncated)"
                )
            value, pos = data[pos : pos + size], pos + size
        elif wire in (_FIXED32, _FIXED64):
            width = 4 if wire == _FIXED32 else 8
            if width > end - pos:
                raise _Malformed(f"the data ends inside field {number} (truncated)")
            value, pos = int.from_bytes(data[pos : pos + width], "little"), pos + width
        else:
            raise _Malformed(f"field {number} has wire type {wire} ({_WIRE_NAMES.get(wire, 'invalid')})")
        yield number, wire, value


# ---- the schema: field number -> (name, kind, repeated) --------------------------------

_PIECE_FIELDS = {1: ("piece", "string", False), 2: ("score", "float", False), 3: ("type", "enum", False)}
_TRAINER_FIELDS = {
    3: ("model_type", "enum", False),
    4: ("vocab_size", "int32", False),
    24: ("treat_whitespace_as_suffix", "bool", False),
    26: ("allow_whitespace_only_pieces", "bool", False),
    25: ("split_digits", "bool", False),
    35: ("byte_fallback", "bool", False),
    40: ("unk_id", "int32", False),
    41: ("bos_id", "int32", False),
    42: ("eos_id", "int32", False),
    43: ("pad_id", "int32", False),
    44: ("unk_surface", "string", False),
    45: ("unk_piece", "string", False),
    46: ("bos_piece", "string", False),
    47: ("eos_piece", "string", False),
    48: ("pad_piece", "string", False),
}
_NORMALIZER_FIELDS = {
    1: ("name", "string", False),
    2: ("precompiled_charsmap", "bytes", False),
    3: ("add_dummy_prefix", "bool", False),
    4: ("remove_extra_whitespaces", "bool", False),
    5: ("escape_whitespaces", "bool", False),
}
_MODEL_FIELDS = {
    1: ("pieces", "message", True),
    2: ("trainer_spec", "message", False),
    3: ("normalizer_spec", "message", False),
    5: ("denormalizer_spec", "message", False),
}
_WIRE_OF = {"string": _LEN, "bytes": _LEN, "message": _LEN, "float": _FIXED32,
            "enum": _VARINT, "int32": _VARINT, "bool": _VARINT}


def _scalar(kind: str, value: int | bytes, where: str) -> object:
    if isinstance(value, bytes):  # the wire type was checked against the kind
        if kind == "string":
            try:
                return value.decode("utf-8")
            except UnicodeDecodeError:
                raise _Malformed(f"{where} is not valid UTF-8 text") from None
        return value  # bytes, message
    if kind == "float":
        return struct.unpack("<f", value.to_bytes(4, "little"))[0]
    if kind == "bool":
        return value != 0
    if kind in ("int32", "enum"):
        value &= (1 << 64) - 1
        if value >= 1 << 63:
            value -= 1 << 64  # negative numbers are written as 64-bit two's complement
        if not -(1 << 31) <= value < 1 << 31:
            raise _Malformed(f"{where} = {value} does not fit in 32 bits")
        return value
    return value


def _read_message(data: bytes, schema: dict, where: str) -> dict[str, Any]:
    """Known fields by name: the last value for a single field, a list for a repeated one.
    A single sub-message given twice is merged, as protobuf does (its bytes joined)."""
    out: dict[str, Any] = {}
    for number, wire, raw in iter_fields(data):
        spec = schema.get(number)
        if spec is None:
            continue  # unknown or unneeded field: skipped, as protobuf does
        name, kind, repeated = spec
        if wire != _WIRE_OF[kind]:
            raise _Malformed(
                f"{where}.{name} (field {number}) has wire type {wire} "
                f"({_WIRE_NAMES.get(wire)}), but a {kind} needs {_WIRE_NAMES[_WIRE_OF[kind]]}"
            )
        value = _scalar(kind, raw, f"{where}.{name}")
        if repeated:
            out.setdefault(name, []).append(value)
        elif kind == "message" and name in out:
            out[name] += value
        else:
            out[name] = value
    return out


# ---- the model ------------------------------------------------------------------------

class ModelPiece(NamedTuple):
    """One vocabulary entry: its text, its score, its type (a name from PIECE_TYPES).
    A named tuple: a model has tens of thousands, made in a loop that a dataclass's
    `__init__` would slow down threefold."""

    piece: str
    score: float
    type: str


@dataclass(frozen=True)
class TrainerSpec:
    """The trainer settings a tokenizer needs (proto2 defaults where a field is absent)."""

    model_type: str = "unigram"
    vocab_size: int = 8000
    byte_fallback: bool = False
    treat_whitespace_as_suffix: bool = False
    allow_whitespace_only_pieces: bool = False
    split_digits: bool = False
    unk_id: int = 0
    bos_id: int = 1
    eos_id: int = 2
    pad_id: int = -1
    unk_piece: str = "<unk>"
    bos_piece: str = "<s>"
    eos_piece: str = "</s>"
    pad_piece: str = "<pad>"
    unk_surface: str = " \u2047 "


@dataclass(frozen=True)
class NormalizerSpec:
    """How text is normalized before encoding (proto2 defaults where absent)."""

    name: str = ""
    precompiled_charsmap: bytes = b""
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True


@dataclass(frozen=True)
class ModelProto:
    """A parsed `.model` file."""

    pieces: tuple[ModelPiece, ...]
    trainer_spec: TrainerSpec
    normalizer_spec: NormalizerSpec
    denormalizer_spec: NormalizerSpec | None


def _piece(data: bytes, index: int) -> ModelPiece:
    fields = _read_message(data, _PIECE_FIELDS, f"pieces[{index}]")
    type_value = fields.get("type", 1)
    if type_value not in PIECE_TYPES:
        raise _Malformed(f"pieces[{index}] has type {type_value}; SentencePiece knows types 1 to 6")
    return ModelPiece(fields.get("piece", ""), fields.get("score", 0.0), PIECE_TYPES[type_value])


def _trainer_spec(data: bytes) -> TrainerSpec:
    fields = _read_message(data, _TRAINER_FIELDS, "trainer_spec")
    model_type = fields.pop("model_type", 1)
    if model_type not in MODEL_TYPES:
        raise _Malformed(f"trainer_spec.model_type is {model_type}; SentencePiece knows 1 to 4")
    return TrainerSpec(model_type=MODEL_TYPES[model_type], **fields)


_FLOAT = struct.Struct("<f").unpack_from
_TYPE_NAMES = (None, *PIECE_TYPES.values())  # enum value -> name (1 to 6)


def _leading_pieces(data: bytes) -> tuple[list[ModelPiece], int]:
    """The pieces at the start of a model as SentencePiece writes them, read without the
    general reader's per-field calls, and where the first field it left starts.

    A piece is taken here when it is laid out as SentencePiece writes one: field 1 of the
    model (a message under 128 bytes) holding its text (under 128 bytes), then its score
    and type if present, in that order, nothing else. The first field that is not such a
    piece (any other layout, text that is not UTF-8, an unknown type, the trainer spec)
    is left, with everything after it, to the general reader, so the result is the same.
    """
    pieces: list[ModelPiece] = []
    append = pieces.append
    pos, end = 0, len(data)
    float_of = _FLOAT
    names = _TYPE_NAMES
    new = tuple.__new__
    while pos + 4 <= end and data[pos] == 0x0A and data[pos + 1] < 0x80 and data[pos + 2] == 0x0A:
        stop = pos + 2 + data[pos + 1]
        size = data[pos + 3]
        at = pos + 4 + size
        if size >= 0x80 or stop > end or at > stop:
            break
        score, kind = 0.0, 1
        if at < stop and data[at] == 0x15:
            if at + 5 > stop:
                break
            score = float_of(data, at + 1)[0]
            at += 5
        if at < stop and data[at] == 0x18:
            if at + 2 > stop or not 1 <= data[at + 1] <= 6:
                break
            kind = data[at + 1]
            at += 2
        if at != stop:
            break
        try:
            text = data[pos + 4 : pos + 4 + size].decode("utf-8")
        except UnicodeDecodeError:
            break
        append(new(ModelPiece, (text, score, names[kind])))  # ModelPiece(...) without its Python __new__
        pos = stop
    return pieces, pos


def _parse(data: bytes) -> ModelProto:
    leading, start = _leading_pieces(data)
    fields = _read_message(data[start:] if start else data, _MODEL_FIELDS, "model")
    if not leading and not fields.get("pieces"):
        raise _Malformed("it has no pieces (a SentencePiece model lists its vocabulary first)")
    for part in ("trainer_spec", "normalizer_spec"):
        if part not in fields:
            raise _Malformed(f"it has no {part} (SentencePiece writes it after the pieces; is the file truncated?)")
    pieces = (*leading, *(_piece(p, i) for i, p in enumerate(fields.get("pieces", []), start=len(leading))))
    trainer = _trainer_spec(fields.get("trainer_spec", b""))
    normalizer = NormalizerSpec(**_read_message(fields.get("normalizer_spec", b""), _NORMALIZER_FIELDS, "normalizer_spec"))
    denormalizer = None
    if "denormalizer_spec" in fields:
        denormalizer = NormalizerSpec(
            **_read_message(fields["denormalizer_spec"], _NORMALIZER_FIELDS, "denormalizer_spec")
        )
    return ModelProto(pieces, trainer, normalizer, denormalizer)


def byte_of_piece(piece: str) -> int | None:
    """The byte a `<0xAB>` piece stands for, else None.

    >>> byte_of_piece("<0x0A>"), byte_of_piece("<0x0a>"), byte_of_piece("a")
    (10, None, None)
    """
    if len(piece) == 6 and piece.startswith("<0x") and piece.endswith(">"):
        digits = piece[3:5]
        if all(c in "0123456789ABCDEF" for c in digits):
            return int(digits, 16)
    return None


def _fine(model: ModelProto) -> bool:
    """Whether `_check` has nothing to say, found in C-level passes: no empty or repeated
    piece text at all, one unknown piece, and with byte fallback 256 byte pieces that
    are the 256 bytes (without it, none)."""
    texts, _, types = zip(*model.pieces)
    if "" in texts or len(set(texts)) != len(texts) or types.count("unknown") != 1:
        return False
    bytes_ = [byte_of_piece(texts[i]) for i in range(len(types)) if types[i] == "byte"] if "byte" in types else []
    if not model.trainer_spec.byte_fallback:
        return not bytes_
    return None not in bytes_ and len(set(bytes_)) == len(bytes_) == 256


def _check(model: ModelProto) -> None:
    """The checks SentencePiece makes when it loads a model, in its order."""
    if _fine(model):
        return
    seen: set[tuple[bool, str]] = set()
    unknown = [i for i, p in enumerate(model.pieces) if p.type == "unknown"]
    byte_found = set()
    for i, p in enumerate(model.pieces):
        if not p.piece:
            raise _Malformed(f"pieces[{i}] is empty")
        key = (p.type in ("normal", "user_defined", "unused"), p.piece)
        if key in seen:
            raise _Malformed(f"the piece {p.piece!r} (pieces[{i}]) is defined twice")
        seen.add(key)
        if p.type == "byte":
            if not model.trainer_spec.byte_fallback:
                raise _Malformed(f"byte piece {p.piece!r} is present although byte_fallback is off")
            byte = byte_of_piece(p.piece)
            if byte is None:
                raise _Malformed(f"byte piece {p.piece!r} is not of the form <0xAB>")
            byte_found.add(byte)
    if len(unknown) != 1:
        raise _Malformed("it defines no unknown piece" if not unknown else "it defines more than one unknown piece")
    if model.trainer_spec.byte_fallback and len(byte_found) != 256:
        raise _Malformed(f"byte_fallback is on but only {len(byte_found)} of the 256 byte pieces are present")


def read_model(data: bytes, *, name: str = "the file") -> ModelProto:
    """Parse and check the bytes of a SentencePiece `.model` file.

    Raises ValueError naming what is wrong with a file that is not a model, is
    truncated, or is one SentencePiece itself would refuse to load.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    data = bytes(data)
    try:
        model = _parse(data)
        _check(model)
    except _Malformed as exc:
        raise ValueError(
            f"{name} is not a valid SentencePiece model: {exc}. "
            "Use the .model file SentencePiece wrote (binary protobuf), complete and unchanged."
        ) from None
    return model
