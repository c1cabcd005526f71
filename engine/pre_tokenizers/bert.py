"""`BertPreTokenizer`: split on whitespace and isolate every punctuation character, as HF's
`pre_tokenizers/bert.rs`.
"""

from __future__ import annotations

from engine.normalizers.normalized import NormalizedString
from engine.pre_tokenizers.base import Cut, PreTokenizer, piece_slices
from engine.pre_tokenizers.scanners import BERT_RE, BERT_RUNS
from engine.schema import JsonValue


class BertPreTokenizer(PreTokenizer):
    """BERT's: split on whitespace (dropped), then isolate every punctuation char."""

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        return piece_slices(piece, BERT_RE.spans(piece.normalized))

    def split_words(self, sequence: str) -> list[str]:
        return BERT_RUNS.words(sequence)

    def cut(self, text: str) -> Cut | None:
        return BERT_RUNS.cut(text)

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "BertPreTokenizer"}
