"""`Digits`: split digits off, one by one or in runs, as HF's `pre_tokenizers/digits.rs`.
"""

from __future__ import annotations

from engine.normalizers.normalized import NormalizedString
from engine.pre_tokenizers.base import Cut, PreTokenizer, piece_slices
from engine.pre_tokenizers.scanners import DIGITS_CONTIGUOUS_RE, DIGITS_INDIVIDUAL_RE
from engine.schema import JsonValue


class Digits(PreTokenizer):
    """Split digits (Rust `is_numeric`) from the rest, one by one if `individual_digits`."""

    individual_digits: bool

    def __init__(self, individual_digits: bool = False) -> None:
        self.individual_digits = individual_digits

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        dual = DIGITS_INDIVIDUAL_RE if self.individual_digits else DIGITS_CONTIGUOUS_RE
        return piece_slices(piece, dual.spans(piece.normalized))

    def split_words(self, sequence: str) -> list[str]:
        dual = DIGITS_INDIVIDUAL_RE if self.individual_digits else DIGITS_CONTIGUOUS_RE
        return dual.findall(sequence)

    def cut(self, text: str) -> Cut | None:
        dual = DIGITS_INDIVIDUAL_RE if self.individual_digits else DIGITS_CONTIGUOUS_RE
        return Cut.covering(dual.findall(text))

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Digits", "individual_digits": self.individual_digits}
