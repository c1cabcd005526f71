"""`Sequence`: several normalizers applied in order.
"""

from __future__ import annotations

import collections.abc

from engine.normalizers.normalized import NormalizedString
from engine.normalizers.base import Normalizer
from engine.schema import JsonValue


class Sequence(Normalizer):
    """Several normalizers, applied in order."""

    normalizers: list[Normalizer]

    def __init__(self, normalizers: collections.abc.Sequence[Normalizer]) -> None:
        self.normalizers = list(normalizers)

    def __len__(self) -> int:
        return len(self.normalizers)

    def __getitem__(self, index: int) -> Normalizer:
        return self.normalizers[index]

    def __setitem__(self, index: int, value: Normalizer) -> None:
        self.normalizers[index] = value

    def normalize(self, normalized: NormalizedString) -> None:
        for normalizer in self.normalizers:
            normalizer.normalize(normalized)

    def normalize_str(self, sequence: str) -> str:
        text = sequence
        for normalizer in self.normalizers:
            text = normalizer.normalize_str(text)
        return text

    def normalize_for_offsets(self, sequence: str) -> str | NormalizedString:
        # each normalizer on the text while they map it char for char, then each on the
        # NormalizedString the first one that moves chars made (its alignments then compose)
        current: str | NormalizedString = sequence
        for normalizer in self.normalizers:
            if isinstance(current, str):
                current = normalizer.normalize_for_offsets(current)
            else:
                normalizer.normalize(current)
        return current

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Sequence", "normalizers": [n.to_dict() for n in self.normalizers]}
