"""`FixedLength`: pieces of a fixed number of characters, as HF's `FixedLength`.
"""

from __future__ import annotations

from engine.errors import EngineError
from engine.normalizers.normalized import NormalizedString
from engine.pre_tokenizers.base import Cut, PreTokenizer, piece_slices, span_texts
from engine.schema import JsonValue


class FixedLength(PreTokenizer):
    """Chunks of `length` chars."""

    length: int

    def __init__(self, length: int = 5) -> None:
        self.length = length

    def _spans(self, text: str) -> list[tuple[int, int]]:
        if self.length <= 0:
            raise EngineError("FixedLength: length must be at least 1")
        out: list[tuple[int, int]] = []
        for start in range(0, len(text), self.length):
            out.append((start, min(start + self.length, len(text))))
        return out

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        return piece_slices(piece, self._spans(piece.normalized))

    def split_words(self, sequence: str) -> list[str]:
        return span_texts(sequence, self._spans(sequence))

    def cut(self, text: str) -> Cut | None:
        return Cut.spans(text, self._spans(text))

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "FixedLength", "length": self.length}
