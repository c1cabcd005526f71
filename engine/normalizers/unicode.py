"""The Unicode normalizers: NFD, NFKD, NFC, NFKC, Lowercase and StripAccents, as HF's
`normalizers/unicode.rs` and `utils.rs` (combining marks from the measured tables).
"""

from __future__ import annotations

from typing import Final

from engine import unicode_chars as uc
from engine import unicode_tables as tables
from engine.normalizers.normalized import NormalizedString
from engine.normalizers.base import ONE_OF, Normalizer
from engine.schema import JsonValue

COMBINING_MARK_RE: Final = uc.DualPattern(ONE_OF, [("\\p{M}", tables.COMBINING_MARK)], ascii=True)
NONSPACING_MARK_RE: Final = uc.DualPattern(
    ONE_OF, [("\\p{Mn}", tables.NONSPACING_MARK)], ascii=True
)


class NFD(Normalizer):
    """Canonical decomposition (`"é"` -> `"e\\u0301"`)."""

    def normalize(self, normalized: NormalizedString) -> None:
        normalized.nfd()

    def normalize_str(self, sequence: str) -> str:
        return uc.normalize_str(sequence, "NFD")

    def normalize_aligned(self, sequence: str) -> str | None:
        return None if uc.needs_normalization(sequence, "NFD") else sequence

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "NFD"}


class NFKD(Normalizer):
    """Compatibility decomposition (`"ﬁ"` -> `"fi"`)."""

    def normalize(self, normalized: NormalizedString) -> None:
        normalized.nfkd()

    def normalize_str(self, sequence: str) -> str:
        return uc.normalize_str(sequence, "NFKD")

    def normalize_aligned(self, sequence: str) -> str | None:
        return None if uc.needs_normalization(sequence, "NFKD") else sequence

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "NFKD"}


class NFC(Normalizer):
    """Canonical decomposition then composition (`"e\\u0301"` -> `"é"`)."""

    def normalize(self, normalized: NormalizedString) -> None:
        normalized.nfc()

    def normalize_str(self, sequence: str) -> str:
        return uc.normalize_str(sequence, "NFC")

    def normalize_aligned(self, sequence: str) -> str | None:
        return None if uc.needs_normalization(sequence, "NFC") else sequence

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "NFC"}


class NFKC(Normalizer):
    """Compatibility decomposition then canonical composition."""

    def normalize(self, normalized: NormalizedString) -> None:
        normalized.nfkc()

    def normalize_str(self, sequence: str) -> str:
        return uc.normalize_str(sequence, "NFKC")

    def normalize_aligned(self, sequence: str) -> str | None:
        return None if uc.needs_normalization(sequence, "NFKC") else sequence

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "NFKC"}


class Lowercase(Normalizer):
    """Lowercase char by char (Rust semantics: no final sigma, `"İ"` -> `"i̇"`)."""

    def normalize(self, normalized: NormalizedString) -> None:
        normalized.lowercase()

    def normalize_str(self, sequence: str) -> str:
        return uc.lower_str(sequence)

    def normalize_aligned(self, sequence: str) -> str | None:
        # subtle: Rust never lowers a char to nothing, so an equal length means one for one.
        lowered = uc.lower_str(sequence)
        return lowered if len(lowered) == len(sequence) else None

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Lowercase"}


class StripAccents(Normalizer):
    """Remove combining marks (Unicode 9.0 `M*`); meant to follow NFD/NFKD."""

    def normalize(self, normalized: NormalizedString) -> None:
        normalized.remove_matching(COMBINING_MARK_RE)

    def normalize_str(self, sequence: str) -> str:
        return COMBINING_MARK_RE.sub("", sequence)

    def normalize_aligned(self, sequence: str) -> str | None:
        return sequence if sequence.isascii() else None

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "StripAccents"}
