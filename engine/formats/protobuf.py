"""A tiny proto2 wire-format reader and writer, enough for SentencePiece's `ModelProto`.

A message is a list of `Field`s in file order; each field keeps its exact bytes, so a message
read and written back unchanged is byte-identical, unknown fields and extensions included.
Not a protobuf library: no schemas, no code generation, no packed-repeated or map helpers.
Bad bytes raise `SchemaError` naming the field ("field 3: declared length 900 bytes, 12 remain").
"""

from __future__ import annotations

import struct
from typing import Final

from engine.errors import SchemaError

VARINT: Final = 0
I64: Final = 1
LEN: Final = 2
SGROUP: Final = 3
EGROUP: Final = 4
I32: Final = 5
WIRE_NAMES: Final = ("varint", "fixed64", "length-delimited", "group start", "group end", "fixed32", "type 6", "type 7")
MASK64: Final = (1 << 64) - 1
MAX_FIELD_NUMBER: Final = (1 << 29) - 1
# Nested groups deeper than this are refused rather than followed (no recursion on hostile input).
MAX_GROUP_DEPTH: Final = 100


class Field:
    """One field of a message: its number, wire type and value, plus the exact bytes it was read from.

    `value` is the varint (unsigned 64-bit) or the raw little-endian fixed32/fixed64 bits;
    `data` is the payload of a length-delimited field (or a group's inner bytes).
    """

    number: int
    wire_type: int
    value: int
    data: bytes
    raw: bytes

    def __init__(self, number: int, wire_type: int, value: int, data: bytes, raw: bytes) -> None:
        self.number = number
        self.wire_type = wire_type
        self.value = value
        self.data = data
        self.raw = raw

    def __repr__(self) -> str:
        shown = repr(self.data[:20]) if self.wire_type == LEN else str(self.value)
        return f"Field({self.number}, {WIRE_NAMES[self.wire_type]}, {shown})"


# -- encoding --------------------------------------------------------------------------------


def encode_varint(value: int) -> bytes:
    """A base-128 varint; negative values are taken as 64-bit two's complement (10 bytes).

    300 -> b"\\xac\\x02"; -1 -> b"\\xff" * 9 + b"\\x01"
    """
    n = value & MASK64
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    """The key of a field: `(number << 3) | wire_type` as a varint (field 1, LEN -> b"\\x0a")."""
    if not 1 <= number <= MAX_FIELD_NUMBER:
        raise ValueError(f"field number {number} is outside 1..{MAX_FIELD_NUMBER}")
    return encode_varint((number << 3) | wire_type)


def varint_field(number: int, value: int) -> Field:
    """A varint field (int32/int64/uint/bool/enum); negative ints are sign-extended to 10 bytes."""
    return Field(number, VARINT, value & MASK64, b"", tag(number, VARINT) + encode_varint(value))


def bytes_field(number: int, data: bytes) -> Field:
    """A length-delimited field (string, bytes or an embedded message)."""
    return Field(number, LEN, 0, data, tag(number, LEN) + encode_varint(len(data)) + data)


def string_field(number: int, text: str) -> Field:
    """A string field, UTF-8 encoded."""
    return bytes_field(number, text.encode("utf-8"))


def float_field(number: int, value: float) -> Field:
    """A fixed32 float field (rounded to single precision, as proto's `float`)."""
    packed = struct.pack("<f", value)
    return Field(number, I32, int.from_bytes(packed, "little"), b"", tag(number, I32) + packed)


def serialize(fields: list[Field]) -> bytes:
    """The wire bytes of a message: each field's bytes, in list order."""
    out = bytearray()
    for field in fields:
        out += field.raw
    return bytes(out)


# -- decoding --------------------------------------------------------------------------------


class _Reader:
    """A cursor over a buffer; every read checks the end, so nothing is ever sliced short."""

    data: bytes
    pos: int
    end: int

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.end = len(data)

    def varint(self, what: str) -> int:
        data = self.data
        result = 0
        shift = 0
        start = self.pos
        while True:
            if self.pos >= self.end:
                raise SchemaError(f"{what}: the data ends inside a varint (at byte {start}); truncated?")
            byte = data[self.pos]
            self.pos += 1
            # subtle: the 10th byte may only carry bit 63; more (or a continuation) is invalid.
            if shift == 63 and byte > 1:
                raise SchemaError(f"{what}: varint at byte {start} overflows 64 bits (or is longer than 10 bytes)")
            result |= (byte & 0x7F) << shift
            if byte < 0x80:
                return result
            shift += 7

    def take(self, size: int, what: str) -> bytes:
        remaining = self.end - self.pos
        if size > remaining:
            raise SchemaError(
                f"{what}: declared length {size} bytes at byte {self.pos}, but only {remaining} remain; truncated?"
            )
        chunk = self.data[self.pos : self.pos + size]
        self.pos += size
        return chunk


def parse(data: bytes, where: str = "message") -> list[Field]:
    """The fields of one message, in order. `where` prefixes errors ("trainer_spec").

    b"\\x08\\x96\\x01" -> [Field(1, varint, 150)]
    """
    reader = _Reader(data)
    fields: list[Field] = []
    while reader.pos < reader.end:
        fields.append(_read_field(reader, where, 0))
    return fields


def _read_field(reader: _Reader, where: str, depth: int) -> Field:
    start = reader.pos
    key = reader.varint(f"{where}: field key")
    number = key >> 3
    wire_type = key & 7
    what = f"{where}: field {number}"
    if number == 0 or number > MAX_FIELD_NUMBER:
        raise SchemaError(f"{where}: invalid field number {number} at byte {start}; is this really a protobuf?")
    value = 0
    data = b""
    if wire_type == VARINT:
        value = reader.varint(what)
    elif wire_type == I64:
        value = int.from_bytes(reader.take(8, what), "little")
    elif wire_type == LEN:
        size = reader.varint(what)
        data = reader.take(size, what)
    elif wire_type == I32:
        value = int.from_bytes(reader.take(4, what), "little")
    elif wire_type == SGROUP:
        data = _skip_group(reader, number, what, depth)
    else:
        # EGROUP without a start, or wire types 6 and 7.
        raise SchemaError(f"{what}: unexpected wire type {WIRE_NAMES[wire_type]} at byte {start}; is this really a protobuf?")
    return Field(number, wire_type, value, data, reader.data[start : reader.pos])


def _skip_group(reader: _Reader, number: int, what: str, depth: int) -> bytes:
    """The inner bytes of a (deprecated) group, up to its matching end tag."""
    if depth >= MAX_GROUP_DEPTH:
        raise SchemaError(f"{what}: groups nested more than {MAX_GROUP_DEPTH} deep")
    inner_start = reader.pos
    while True:
        if reader.pos >= reader.end:
            raise SchemaError(f"{what}: group has no end tag; truncated?")
        before = reader.pos
        key = reader.varint(what)
        if key & 7 == EGROUP:
            if key >> 3 != number:
                raise SchemaError(f"{what}: group ends with the end tag of field {key >> 3}")
            return reader.data[inner_start:before]
        reader.pos = before
        _read_field(reader, what, depth + 1)


# -- typed access ----------------------------------------------------------------------------


def expect_wire(field: Field, wire_type: int, what: str) -> None:
    """Raise SchemaError unless `field` has `wire_type` ("field unk_id (40): expected varint ...")."""
    if field.wire_type != wire_type:
        raise SchemaError(
            f"{what}: expected {WIRE_NAMES[wire_type]}, found {WIRE_NAMES[field.wire_type]}"
        )


def as_int32(value: int) -> int:
    """A varint read as proto int32 (C++ truncates to the low 32 bits): 2**64 - 1 -> -1."""
    low = value & 0xFFFFFFFF
    return low - (1 << 32) if low >= 1 << 31 else low


def as_float(bits: int) -> float:
    """A fixed32 read as an IEEE single: 0x3F800000 -> 1.0."""
    result: float = struct.unpack("<f", bits.to_bytes(4, "little"))[0]
    return result


def as_text(field: Field, what: str) -> str:
    """A string field's text; invalid UTF-8 is a SchemaError (proto2 C++ only logs it, we refuse)."""
    expect_wire(field, LEN, what)
    try:
        return field.data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SchemaError(f"{what}: string is not UTF-8 (invalid byte at {error.start})") from None
