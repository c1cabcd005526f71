r"""Whitespace (`\w+|[^\w\s]+`) and WhitespaceSplit (on whitespace only), as HF's
`pre_tokenizers/whitespace.rs`.
"""

from __future__ import annotations

from engine.normalizers.normalized import NormalizedString
from engine.pre_tokenizers.base import Cut, PreTokenizer, piece_slices
from engine.pre_tokenizers.scanners import NOT_SPACES_RE, NOT_SPACES_RUNS, WHITESPACE_RE, WHITESPACE_RUNS
from engine.schema import JsonValue


class Whitespace(PreTokenizer):
    """Words and runs of other non-space chars: `\\w+|[^\\w\\s]+` ("Let's" -> Let, ', s)."""

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        return piece_slices(piece, WHITESPACE_RE.spans(piece.normalized))

    def split_words(self, sequence: str) -> list[str]:
        return WHITESPACE_RUNS.words(sequence)

    def cut(self, text: str) -> Cut | None:
        return WHITESPACE_RUNS.cut(text)

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Whitespace"}


class WhitespaceSplit(PreTokenizer):
    """Split on whitespace (Unicode White_Space), dropping it."""

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        return piece_slices(piece, NOT_SPACES_RE.spans(piece.normalized))

    def split_words(self, sequence: str) -> list[str]:
        return NOT_SPACES_RUNS.words(sequence)

    def cut(self, text: str) -> Cut | None:
        return NOT_SPACES_RUNS.cut(text)

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "WhitespaceSplit"}
