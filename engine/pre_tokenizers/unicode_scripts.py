"""`UnicodeScripts`: split where the script changes (SentencePiece's rule, as HF's
`pre_tokenizers/unicode_scripts`).
"""

from __future__ import annotations

from engine.normalizers.normalized import NormalizedString
from engine.pre_tokenizers.base import Cut, PreTokenizer, piece_slices, span_texts
from engine.pre_tokenizers.scanners import script_spans
from engine.schema import JsonValue


class UnicodeScripts(PreTokenizer):
    """Split where the Unicode script changes (SentencePiece's rule: kana count as Han)."""

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        return piece_slices(piece, script_spans(piece.normalized))

    def split_words(self, sequence: str) -> list[str]:
        return span_texts(sequence, script_spans(sequence))

    def cut(self, text: str) -> Cut | None:
        return Cut.spans(text, script_spans(text))

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "UnicodeScripts"}
