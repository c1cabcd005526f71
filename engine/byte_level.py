"""GPT-2's byte-level convention, shared by the ByteLevel normalizer, pre-tokenizer, post-processor
and decoder: the reversible map between the 256 byte values and 256 printable chars, and the
three options (`add_prefix_space`, `trim_offsets`, `use_regex`) their tokenizer.json objects carry.

`to_chars("é ")` -> `"Ã©Ġ"` (each UTF-8 byte becomes one char); `to_bytes` goes back. No splitting here.
"""

from __future__ import annotations

from typing import Final

from engine.schema import JsonValue, get_bool


def _bytes_to_unicode() -> list[str]:
    # Printable Latin-1 bytes map to themselves; the 68 others to U+0100 onwards, in byte order.
    printable = list(range(ord("!"), ord("~") + 1))
    printable += list(range(0xA1, 0xAC + 1))
    printable += list(range(0xAE, 0xFF + 1))
    out = [""] * 256
    n = 0
    for b in range(256):
        if b in printable:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + n)
            n += 1
    return out


# BYTES_TO_UNICODE[b] is the char standing for byte b (BYTES_TO_UNICODE[32] == "Ġ").
BYTES_TO_UNICODE: Final[list[str]] = _bytes_to_unicode()
UNICODE_TO_BYTES: Final[dict[str, int]] = {c: b for b, c in enumerate(BYTES_TO_UNICODE)}
# For str.translate on UTF-8 bytes decoded as Latin-1 (code point i == byte i).
LATIN1_TO_CHARS: Final[dict[int, str]] = {b: c for b, c in enumerate(BYTES_TO_UNICODE)}
# The char of the space byte, "Ġ": it starts every word after a space.
SPACE: Final = BYTES_TO_UNICODE[0x20]


def to_chars(text: str) -> str:
    """The byte-level form of `text`: one map char per UTF-8 byte (`"é"` -> `"Ã©"`)."""
    if text.isascii():
        return ascii_to_chars(text)
    return text.encode("utf-8").decode("latin-1").translate(LATIN1_TO_CHARS)


def ascii_to_chars(text: str) -> str:
    """`to_chars` of an ASCII text. Printable ASCII maps to itself except the space, so one
    `replace` does it (measured 50 ns against 900 ns for `translate` on a 60-char line)."""
    if text.isprintable():
        return text.replace(" ", SPACE)
    return text.translate(LATIN1_TO_CHARS)


def bytes_to_chars(data: bytes) -> str:
    """`to_chars` of the text whose UTF-8 bytes are `data` (any bytes: one char a byte)."""
    return data.decode("latin-1").translate(LATIN1_TO_CHARS)


def to_bytes(text: str) -> bytes | None:
    """The bytes a byte-level string stands for (`"Ã©"` -> `b"\\xc3\\xa9"`), or None if a char
    is not in the map."""
    out = bytearray()
    for c in text:
        b = UNICODE_TO_BYTES.get(c)
        if b is None:
            return None
        out.append(b)
    return bytes(out)


def decode_tokens(tokens: list[str]) -> str:
    """HF's ByteLevel decoder on a token list: map every token back to bytes (a token holding a char
    outside the map contributes its own UTF-8 bytes), then decode lossily (bad bytes -> U+FFFD)."""
    out = bytearray()
    for token in tokens:
        raw = to_bytes(token)
        out += raw if raw is not None else token.encode("utf-8")
    return out.decode("utf-8", errors="replace")


# -- the options every ByteLevel component serializes ----------------------------------------


def options_to_dict(add_prefix_space: bool, trim_offsets: bool, use_regex: bool) -> dict[str, JsonValue]:
    """The tokenizer.json object of any ByteLevel component, keys in HF's order."""
    return {
        "type": "ByteLevel",
        "add_prefix_space": add_prefix_space,
        "trim_offsets": trim_offsets,
        "use_regex": use_regex,
    }


def options_from_dict(data: dict[str, object]) -> tuple[bool, bool, bool]:
    """(add_prefix_space, trim_offsets, use_regex) of a ByteLevel object; HF requires the first
    two and defaults `use_regex` to true (files older than 0.14 lack it)."""
    return (
        get_bool(data, "add_prefix_space", "ByteLevel"),
        get_bool(data, "trim_offsets", "ByteLevel"),
        get_bool(data, "use_regex", "ByteLevel", True),
    )
