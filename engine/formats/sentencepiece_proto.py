"""SentencePiece's `ModelProto` (the `.model` file) as typed classes over our protobuf wire code.

Pieces, TrainerSpec and NormalizerSpec are read by field number; every field we do not interpret
is kept as raw wire bytes, so a file read and serialized unchanged is byte-identical. No pipeline
here (`engine.formats.sentencepiece` turns a model into a `Tokenizer` and back).
"""

from __future__ import annotations

import struct
from typing import Final

from engine.errors import SchemaError, TokenizerFileError
from engine.formats.files import read_bytes
from engine.formats import protobuf as pb
from engine.formats.protobuf import Field

# ModelProto.SentencePiece.Type
NORMAL: Final = 1
UNKNOWN: Final = 2
CONTROL: Final = 3
USER_DEFINED: Final = 4
UNUSED: Final = 5
BYTE: Final = 6
TYPE_NAMES: Final = {1: "NORMAL", 2: "UNKNOWN", 3: "CONTROL", 4: "USER_DEFINED", 5: "UNUSED", 6: "BYTE"}
# TrainerSpec.ModelType
UNIGRAM: Final = 1
BPE_TYPE: Final = 2
WORD: Final = 3
CHAR: Final = 4
MODEL_TYPE_NAMES: Final = {1: "UNIGRAM", 2: "BPE", 3: "WORD", 4: "CHAR"}
DEFAULT_UNK_SURFACE: Final = " \u2047 "

# Field kinds, for validation and typed access.
K_INT32: Final = 0
K_INT64: Final = 1
K_BOOL: Final = 2
K_STRING: Final = 3
K_BYTES: Final = 4
K_FLOAT: Final = 5
K_MESSAGE: Final = 6

# TrainerSpec field numbers (sentencepiece_model.proto) that the engine reads or writes.
T_MODEL_TYPE: Final = 3
T_VOCAB_SIZE: Final = 4
T_SPLIT_BY_WHITESPACE: Final = 22
T_TREAT_WHITESPACE_AS_SUFFIX: Final = 24
T_SPLIT_DIGITS: Final = 25
T_ALLOW_WHITESPACE_ONLY_PIECES: Final = 26
T_CONTROL_SYMBOLS: Final = 30
T_USER_DEFINED_SYMBOLS: Final = 31
T_BYTE_FALLBACK: Final = 35
T_UNK_ID: Final = 40
T_BOS_ID: Final = 41
T_EOS_ID: Final = 42
T_PAD_ID: Final = 43
T_UNK_SURFACE: Final = 44
T_UNK_PIECE: Final = 45
T_BOS_PIECE: Final = 46
T_EOS_PIECE: Final = 47
T_PAD_PIECE: Final = 48

# Every TrainerSpec field of sentencepiece 0.2: number -> (name, kind). Unknown numbers are kept raw.
TRAINER_FIELDS: Final[dict[int, tuple[str, int]]] = {
    1: ("input", K_STRING), 2: ("model_prefix", K_STRING), 3: ("model_type", K_INT32),
    4: ("vocab_size", K_INT32), 5: ("accept_language", K_STRING), 6: ("self_test_sample_size", K_INT32),
    7: ("input_format", K_STRING), 10: ("character_coverage", K_FLOAT), 11: ("input_sentence_size", K_INT64),
    12: ("mining_sentence_size", K_INT32), 13: ("training_sentence_size", K_INT32),
    14: ("seed_sentencepiece_size", K_INT32), 15: ("shrinking_factor", K_FLOAT), 16: ("num_threads", K_INT32),
    17: ("num_sub_iterations", K_INT32), 18: ("max_sentence_length", K_INT32),
    19: ("shuffle_input_sentence", K_BOOL), 20: ("max_sentencepiece_length", K_INT32),
    21: ("split_by_unicode_script", K_BOOL), 22: ("split_by_whitespace", K_BOOL),
    23: ("split_by_number", K_BOOL), 24: ("treat_whitespace_as_suffix", K_BOOL), 25: ("split_digits", K_BOOL),
    26: ("allow_whitespace_only_pieces", K_BOOL), 30: ("control_symbols", K_STRING),
    31: ("user_defined_symbols", K_STRING), 32: ("vocabulary_output_piece_score", K_BOOL),
    33: ("hard_vocab_limit", K_BOOL), 34: ("use_all_vocab", K_BOOL), 35: ("byte_fallback", K_BOOL),
    36: ("required_chars", K_STRING), 40: ("unk_id", K_INT32), 41: ("bos_id", K_INT32), 42: ("eos_id", K_INT32),
    43: ("pad_id", K_INT32), 44: ("unk_surface", K_STRING), 45: ("unk_piece", K_STRING),
    46: ("bos_piece", K_STRING), 47: ("eos_piece", K_STRING), 48: ("pad_piece", K_STRING),
    49: ("train_extremely_large_corpus", K_BOOL), 50: ("enable_differential_privacy", K_BOOL),
    51: ("differential_privacy_noise_level", K_FLOAT), 52: ("differential_privacy_clipping_threshold", K_INT64),
    53: ("pretokenization_delimiter", K_STRING), 54: ("seed_sentencepieces_file", K_STRING),
    55: ("auto_character_coverage", K_BOOL),
}
N_NAME: Final = 1
N_PRECOMPILED_CHARSMAP: Final = 2
N_ADD_DUMMY_PREFIX: Final = 3
N_REMOVE_EXTRA_WHITESPACES: Final = 4
N_ESCAPE_WHITESPACES: Final = 5
N_NORMALIZATION_RULE_TSV: Final = 6
NORMALIZER_FIELDS: Final[dict[int, tuple[str, int]]] = {
    1: ("name", K_STRING), 2: ("precompiled_charsmap", K_BYTES), 3: ("add_dummy_prefix", K_BOOL),
    4: ("remove_extra_whitespaces", K_BOOL), 5: ("escape_whitespaces", K_BOOL),
    6: ("normalization_rule_tsv", K_STRING),
}
# ModelProto
M_PIECES: Final = 1
M_TRAINER_SPEC: Final = 2
M_NORMALIZER_SPEC: Final = 3
M_SELF_TEST_DATA: Final = 4
M_DENORMALIZER_SPEC: Final = 5
# SentencePiece
P_PIECE: Final = 1
P_SCORE: Final = 2
P_TYPE: Final = 3

WIRE_OF_KIND: Final = (pb.VARINT, pb.VARINT, pb.VARINT, pb.LEN, pb.LEN, pb.I32, pb.LEN)


def float_bits(value: float) -> int:
    """The IEEE single bits of `value` as proto's `float` stores them (1.0 -> 0x3F800000)."""
    try:
        return int.from_bytes(struct.pack("<f", value), "little")
    except OverflowError:
        return -1


class SentencePiece:
    """One entry of `ModelProto.pieces`: the piece, its score and its type (id = list position).

    Keeps the bytes it was read from and re-emits them while piece, score and type are unchanged.
    """

    piece: str
    score: float
    type: int
    extra: list[Field]
    _raw: bytes
    _raw_piece: str
    _raw_score_bits: int
    _raw_type: int

    def __init__(self, piece: str, score: float = 0.0, type: int = NORMAL) -> None:
        self.piece = piece
        self.score = score
        self.type = type
        self.extra = []
        self._raw = b""
        self._raw_piece = ""
        self._raw_score_bits = -1
        self._raw_type = 0

    def encode(self) -> bytes:
        """The message bytes (without the key/length that frame it in ModelProto)."""
        if (
            self._raw
            and self.piece == self._raw_piece
            and self.type == self._raw_type
            and float_bits(self.score) == self._raw_score_bits
        ):
            return self._raw
        fields = [pb.string_field(P_PIECE, self.piece), pb.float_field(P_SCORE, self.score)]
        if self.type != NORMAL:
            fields.append(pb.varint_field(P_TYPE, self.type))
        return pb.serialize(fields + self.extra)

    @staticmethod
    def decode(data: bytes, where: str) -> SentencePiece:
        piece = ""
        score = 0.0
        type = NORMAL
        extra: list[Field] = []
        for field in pb.parse(data, where):
            if field.number == P_PIECE:
                piece = pb.as_text(field, f"{where}.piece (1)")
            elif field.number == P_SCORE:
                pb.expect_wire(field, pb.I32, f"{where}.score (2)")
                score = pb.as_float(field.value)
            elif field.number == P_TYPE:
                pb.expect_wire(field, pb.VARINT, f"{where}.type (3)")
                type = pb.as_int32(field.value)
                if type not in TYPE_NAMES:
                    raise SchemaError(f"{where}.type (3): unknown piece type {type}")
            else:
                extra.append(field)
        result = SentencePiece(piece, score, type)
        result.extra = extra
        result._raw = data
        result._raw_piece = piece
        result._raw_score_bits = float_bits(score)
        result._raw_type = type
        return result

    def __repr__(self) -> str:
        return f"SentencePiece({self.piece!r}, {self.score!r}, {TYPE_NAMES.get(self.type, self.type)})"


class Spec:
    """A TrainerSpec or NormalizerSpec: its fields in file order, read and changed by number.

    An optional field that appears twice takes its last value (proto2); setting a field to the
    value it already has (explicitly or by default) changes nothing, so untouched bytes stay.
    """

    fields: list[Field]
    where: str
    present: bool
    schema: dict[int, tuple[str, int]]

    def __init__(self, where: str, schema: dict[int, tuple[str, int]]) -> None:
        self.fields = []
        self.where = where
        self.present = False
        self.schema = schema

    def load(self, data: bytes) -> None:
        """Parse `data` into this spec, checking the wire type of every known field."""
        self.fields = pb.parse(data, self.where)
        self.present = True
        for field in self.fields:
            known = self.schema.get(field.number)
            if known is None:
                continue
            name, kind = known
            what = f"{self.where}.{name} ({field.number})"
            pb.expect_wire(field, WIRE_OF_KIND[kind], what)
            if kind == K_STRING:
                pb.as_text(field, what)

    def encode(self) -> bytes:
        return pb.serialize(self.fields)

    def _last(self, number: int) -> Field | None:
        found: Field | None = None
        for field in self.fields:
            if field.number == number:
                found = field
        return found

    def get_int(self, number: int, default: int) -> int:
        field = self._last(number)
        return default if field is None else pb.as_int32(field.value)

    def get_bool(self, number: int, default: bool) -> bool:
        field = self._last(number)
        return default if field is None else field.value != 0

    def get_bytes(self, number: int) -> bytes:
        field = self._last(number)
        return b"" if field is None else field.data

    def get_str(self, number: int, default: str) -> str:
        field = self._last(number)
        return default if field is None else field.data.decode("utf-8")

    def get_strings(self, number: int) -> list[str]:
        return [field.data.decode("utf-8") for field in self.fields if field.number == number]

    def set_int(self, number: int, value: int, default: int) -> None:
        if self.get_int(number, default) != value:
            self._put(pb.varint_field(number, value))

    def set_bool(self, number: int, value: bool, default: bool) -> None:
        if self.get_bool(number, default) != value:
            self._put(pb.varint_field(number, 1 if value else 0))

    def set_str(self, number: int, value: str, default: str) -> None:
        if self.get_str(number, default) != value:
            self._put(pb.string_field(number, value))

    def set_bytes(self, number: int, value: bytes) -> None:
        if self.get_bytes(number) != value:
            self._put(pb.bytes_field(number, value))

    def set_strings(self, number: int, values: list[str]) -> None:
        if self.get_strings(number) == values:
            return
        kept = [field for field in self.fields if field.number != number]
        at = _insert_at(kept, number)
        self.fields = kept[:at] + [pb.string_field(number, v) for v in values] + kept[at:]
        self.present = True

    def _put(self, new: Field) -> None:
        """Replace the field's last occurrence (dropping earlier ones), or insert it in number order."""
        kept: list[Field] = []
        place = -1
        for field in self.fields:
            if field.number == new.number:
                place = len(kept)
            else:
                kept.append(field)
        if place < 0:
            place = _insert_at(kept, new.number)
        kept.insert(place, new)
        self.fields = kept
        self.present = True


def _insert_at(fields: list[Field], number: int) -> int:
    """Where a new field goes to keep field-number order: before the first larger number."""
    for index in range(len(fields)):
        if fields[index].number > number:
            return index
    return len(fields)


class TrainerSpec(Spec):
    """`ModelProto.trainer_spec`: the training options; only a few matter to encoding."""

    def __init__(self) -> None:
        super().__init__("trainer_spec", TRAINER_FIELDS)

    @property
    def model_type(self) -> int:
        return self.get_int(T_MODEL_TYPE, UNIGRAM)

    @property
    def vocab_size(self) -> int:
        return self.get_int(T_VOCAB_SIZE, 8000)

    @property
    def byte_fallback(self) -> bool:
        return self.get_bool(T_BYTE_FALLBACK, False)

    @property
    def split_digits(self) -> bool:
        return self.get_bool(T_SPLIT_DIGITS, False)

    @property
    def treat_whitespace_as_suffix(self) -> bool:
        return self.get_bool(T_TREAT_WHITESPACE_AS_SUFFIX, False)

    @property
    def unk_surface(self) -> str:
        return self.get_str(T_UNK_SURFACE, DEFAULT_UNK_SURFACE)

    @property
    def control_symbols(self) -> list[str]:
        return self.get_strings(T_CONTROL_SYMBOLS)

    @property
    def user_defined_symbols(self) -> list[str]:
        return self.get_strings(T_USER_DEFINED_SYMBOLS)


class NormalizerSpec(Spec):
    """`ModelProto.normalizer_spec` (or `denormalizer_spec`): the charsmap and whitespace rules."""

    def __init__(self, where: str = "normalizer_spec") -> None:
        super().__init__(where, NORMALIZER_FIELDS)

    @property
    def name(self) -> str:
        return self.get_str(N_NAME, "")

    @property
    def precompiled_charsmap(self) -> bytes:
        return self.get_bytes(N_PRECOMPILED_CHARSMAP)

    @property
    def add_dummy_prefix(self) -> bool:
        return self.get_bool(N_ADD_DUMMY_PREFIX, True)

    @property
    def remove_extra_whitespaces(self) -> bool:
        return self.get_bool(N_REMOVE_EXTRA_WHITESPACES, True)

    @property
    def escape_whitespaces(self) -> bool:
        return self.get_bool(N_ESCAPE_WHITESPACES, True)


class SentencePieceModel:
    """A `ModelProto`: pieces (id = position), trainer and normalizer specs, the rest kept raw."""

    pieces: list[SentencePiece]
    trainer_spec: TrainerSpec
    normalizer_spec: NormalizerSpec
    denormalizer_spec: NormalizerSpec
    # self_test_data, extensions and fields unknown to us, in file order
    other: list[Field]
    source: str

    def __init__(self, source: str = "<model>") -> None:
        self.pieces = []
        self.trainer_spec = TrainerSpec()
        self.normalizer_spec = NormalizerSpec()
        self.denormalizer_spec = NormalizerSpec("denormalizer_spec")
        self.other = []
        self.source = source

    def __repr__(self) -> str:
        kind = MODEL_TYPE_NAMES.get(self.trainer_spec.model_type, str(self.trainer_spec.model_type))
        return f"SentencePieceModel({kind}, pieces={len(self.pieces)}, source={self.source!r})"


# -- bytes <-> SentencePieceModel ----------------------------------------------------------------


def parse(data: bytes, source: str) -> SentencePieceModel:
    """A `ModelProto` from its bytes; `source` names the file in every TokenizerFileError."""
    if not data:
        raise TokenizerFileError(source, "is empty, not a SentencePiece model")
    try:
        return _parse(data, source)
    except SchemaError as error:
        hint = ""
        if data[:1] in (b"{", b"[") or data[:3] == b"\xef\xbb\xbf":
            hint = " (it looks like a text/JSON file)"
        raise TokenizerFileError(source, f"is not a valid SentencePiece model{hint}: {error}") from None


def _parse(data: bytes, source: str) -> SentencePieceModel:
    model = SentencePieceModel(source)
    for field in pb.parse(data, "model"):
        number = field.number
        if number == M_PIECES:
            where = f"field pieces[{len(model.pieces)}]"
            pb.expect_wire(field, pb.LEN, where)
            model.pieces.append(SentencePiece.decode(field.data, where))
        elif number == M_TRAINER_SPEC:
            pb.expect_wire(field, pb.LEN, "field trainer_spec (2)")
            model.trainer_spec.where = "field trainer_spec"
            model.trainer_spec.load(field.data)
        elif number == M_NORMALIZER_SPEC:
            pb.expect_wire(field, pb.LEN, "field normalizer_spec (3)")
            model.normalizer_spec.where = "field normalizer_spec"
            model.normalizer_spec.load(field.data)
        elif number == M_DENORMALIZER_SPEC:
            pb.expect_wire(field, pb.LEN, "field denormalizer_spec (5)")
            model.denormalizer_spec.where = "field denormalizer_spec"
            model.denormalizer_spec.load(field.data)
        else:
            if number == M_SELF_TEST_DATA:
                pb.expect_wire(field, pb.LEN, "field self_test_data (4)")
            model.other.append(field)
    model.trainer_spec.where = "trainer_spec"
    model.normalizer_spec.where = "normalizer_spec"
    model.denormalizer_spec.where = "denormalizer_spec"
    if not model.pieces:
        raise SchemaError("field pieces (1): the model has no pieces")
    for index in range(len(model.pieces)):
        if not model.pieces[index].piece:
            raise SchemaError(f"field pieces[{index}].piece (1): empty piece")
    return model


def serialize(model: SentencePieceModel) -> bytes:
    """The `ModelProto` bytes, fields in field-number order as protobuf's C++ writer puts them
    (so a file sentencepiece wrote comes back byte-identical)."""
    parts: list[tuple[int, bytes]] = []
    for piece in model.pieces:
        parts.append((M_PIECES, pb.bytes_field(M_PIECES, piece.encode()).raw))
    if model.trainer_spec.present or model.trainer_spec.fields:
        parts.append((M_TRAINER_SPEC, pb.bytes_field(M_TRAINER_SPEC, model.trainer_spec.encode()).raw))
    if model.normalizer_spec.present or model.normalizer_spec.fields:
        parts.append((M_NORMALIZER_SPEC, pb.bytes_field(M_NORMALIZER_SPEC, model.normalizer_spec.encode()).raw))
    if model.denormalizer_spec.present or model.denormalizer_spec.fields:
        parts.append(
            (M_DENORMALIZER_SPEC, pb.bytes_field(M_DENORMALIZER_SPEC, model.denormalizer_spec.encode()).raw)
        )
    for field in model.other:
        parts.append((field.number, field.raw))
    # subtle: a stable sort keeps repeated pieces and same-numbered unknown fields in their order.
    parts.sort(key=_part_number)
    return b"".join([raw for _, raw in parts])


def _part_number(part: tuple[int, bytes]) -> int:
    return part[0]


def read(path: str) -> SentencePieceModel:
    """Read a `.model` file; TokenizerFileError names the file and the bad field."""
    data = read_bytes(path, "SentencePiece .model")
    return parse(data, path)
