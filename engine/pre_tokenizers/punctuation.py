"""`Punctuation`: split off punctuation with a behaviour (isolated, removed, merged...), as
HF's `pre_tokenizers/punctuation.rs`.
"""

from __future__ import annotations

from engine.normalizers.normalized import NormalizedString
from engine.pattern import BEHAVIOR_JSON, ISOLATED, check_behavior, cover, split_spans
from engine.pre_tokenizers.base import Cut, PreTokenizer, span_texts
from engine.pre_tokenizers.scanners import PUNCT_PIECES_RE, PUNCT_RE
from engine.schema import JsonValue


class Punctuation(PreTokenizer):
    """Split on punctuation chars, each handled per `behavior` (default "isolated")."""

    behavior: str

    def __init__(self, behavior: str = ISOLATED) -> None:
        self.behavior = check_behavior(behavior)

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        text = piece.normalized
        return piece.split_matches(cover(PUNCT_RE.spans(text), len(text)), self.behavior)

    def split_words(self, sequence: str) -> list[str]:
        if self.behavior == ISOLATED:
            return PUNCT_PIECES_RE.findall(sequence)
        matches = cover(PUNCT_RE.spans(sequence), len(sequence))
        return span_texts(sequence, split_spans(matches, self.behavior))

    def cut(self, text: str) -> Cut | None:
        return Cut.spans(text, split_spans(cover(PUNCT_RE.spans(text), len(text)), self.behavior))

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Punctuation", "behavior": BEHAVIOR_JSON[self.behavior]}
