"""The ByteLevel normalizer: every byte of the UTF-8 text as one of GPT-2's 256 printable
characters (`engine.byte_level`), alignments kept per byte.
"""

from __future__ import annotations

from engine import byte_level
from engine.normalizers.normalized import NormalizedString
from engine.normalizers.base import Normalizer
from engine.schema import JsonValue


class ByteLevel(Normalizer):
    """Replace each UTF-8 byte by its GPT-2 byte-level char (`"é"` -> `"Ã©"`)."""

    @staticmethod
    def alphabet() -> list[str]:
        return list(byte_level.BYTES_TO_UNICODE)

    def normalize(self, normalized: NormalizedString) -> None:
        byte_level_transform(normalized)

    def normalize_str(self, sequence: str) -> str:
        return byte_level.to_chars(sequence)

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "ByteLevel"}


def byte_level_transform(normalized: NormalizedString) -> None:
    """Each char becomes the byte-level chars of its UTF-8 bytes; extra bytes align with their char."""
    text = normalized.normalized
    if not text:
        return
    if text.isascii():
        normalized.map_chars(byte_level.to_chars(text))
        return
    dest: list[str] = []
    changes: list[int] = []
    for c in text:
        mapped = byte_level.to_chars(c)
        for i in range(len(mapped)):
            dest.append(mapped[i])
            changes.append(1 if i > 0 else 0)
    normalized.transform(dest, changes, 0)
