"""`Normalizer`, the contract of the normalize stage: edit a `NormalizedString` in place
(keeping alignments), or a plain string through `normalize_str` with the same result. No
component here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Final

from mypy_extensions import mypyc_attr

from engine import unicode_chars as uc
from engine.normalizers.normalized import NormalizedString
from engine.schema import JsonValue

ONE_OF: Final = "[" + uc.slot(0) + "]"


@mypyc_attr(allow_interpreted_subclasses=True)
class Normalizer(ABC):
    """Base class of the normalizers: `normalize` edits in place, `normalize_str` returns the text."""

    @abstractmethod
    def normalize(self, normalized: NormalizedString) -> None:
        """Normalize `normalized` in place, keeping its alignments."""

    def normalize_str(self, sequence: str) -> str:
        """The normalized text of `sequence` (same text as `normalize` on a fresh NormalizedString)."""
        normalized = NormalizedString(sequence)
        self.normalize(normalized)
        return normalized.normalized

    def normalize_aligned(self, sequence: str) -> str | None:
        """The normalized text when it maps `sequence` char for char (normalized char i comes
        from original char i, so offsets need no alignment), else None. The encode fast path
        asks this first; None sends the text through `normalize`."""
        return None

    def normalize_mapped(self, sequence: str) -> NormalizedString:
        """`sequence` normalized, with the original span each normalized char comes from: what
        `normalize` makes of a fresh NormalizedString."""
        normalized = NormalizedString(sequence)
        self.normalize(normalized)
        return normalized

    def normalize_for_offsets(self, sequence: str) -> str | NormalizedString:
        """What the encode fast path asks, once per text: the normalized text when it maps
        `sequence` char for char (`normalize_aligned`), else a NormalizedString whose alignments
        give the original span of each normalized char (`normalize_mapped`). A normalizer that
        finds both in one pass says so here."""
        aligned = self.normalize_aligned(sequence)
        return aligned if aligned is not None else self.normalize_mapped(sequence)

    @abstractmethod
    def to_dict(self) -> dict[str, JsonValue]:
        """The tokenizer.json object of this normalizer, keys in HF's order."""

    def __repr__(self) -> str:
        fields = self.to_dict()
        name = str(fields.pop("type"))
        return name + "(" + ", ".join(f"{k}={v!r}" for k, v in fields.items()) + ")"
