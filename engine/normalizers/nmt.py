"""`Nmt`: SentencePiece's NMT clean-up, control characters removed and odd spaces made
plain, as HF's `Nmt` normalizer.
"""

from __future__ import annotations

from typing import Final

import regex

from engine import unicode_chars as uc
from engine.normalizers.normalized import NormalizedString
from engine.normalizers.base import ONE_OF, Normalizer
from engine.schema import JsonValue

# Nmt: control chars it deletes, and chars it turns into a space.
NMT_REMOVED_RE: Final = uc.DualPattern(
    ONE_OF, [("\\x01-\\x08\\x0b\\x0e-\\x1f\\x7f\\x8f\\x9f", "1-8 b e-1f 7f 8f 9f")], ascii=True
)
NMT_SPACES_RE: Final = regex.compile(
    "[\t\n\x0c\r\u1680\u200b-\u200f\u2028\u2029\u2581\ufeff\ufffd]"
)


class Nmt(Normalizer):
    """SentencePiece's NMT cleanup: drop some controls, turn other spaces/separators into ' '."""

    def normalize(self, normalized: NormalizedString) -> None:
        normalized.remove_matching(NMT_REMOVED_RE)
        normalized.map_chars(NMT_SPACES_RE.sub(" ", normalized.normalized))

    def normalize_str(self, sequence: str) -> str:
        return NMT_SPACES_RE.sub(" ", NMT_REMOVED_RE.sub("", sequence))

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Nmt"}
