"""`Split` (a pattern and a behaviour) and `CharDelimiterSplit` (one character), as HF's
`pre_tokenizers/split.rs` and `delimiter.rs`.
"""

from __future__ import annotations

from engine.normalizers.normalized import NormalizedString
from engine.pattern import BEHAVIOR_JSON, Regex, as_regex, check_behavior, pattern_to_dict, split_spans
from engine.pre_tokenizers.base import Cut, PreTokenizer, piece_slices, span_texts
from engine.schema import JsonValue


class Split(PreTokenizer):
    """Split on a literal string or a `Regex`, per `behavior`; `invert` splits on what does NOT match."""

    pattern: str | Regex
    behavior: str
    invert: bool
    matcher: Regex

    def __init__(self, pattern: str | Regex, behavior: str, invert: bool = False) -> None:
        self.pattern = pattern
        self.behavior = check_behavior(behavior)
        self.invert = invert
        self.matcher = as_regex(pattern)

    def _matches(self, text: str) -> list[tuple[int, int, bool]]:
        matches = self.matcher.find_matches(text, "Split")
        if self.invert:
            flipped: list[tuple[int, int, bool]] = []
            for start, end, is_match in matches:
                flipped.append((start, end, not is_match))
            return flipped
        return matches

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        return piece.split_matches(self._matches(piece.normalized), self.behavior)

    def split_words(self, sequence: str) -> list[str]:
        return span_texts(sequence, split_spans(self._matches(sequence), self.behavior))

    def cut(self, text: str) -> Cut | None:
        return Cut.spans(text, split_spans(self._matches(text), self.behavior))

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "type": "Split",
            "pattern": pattern_to_dict(self.pattern),
            "behavior": BEHAVIOR_JSON[self.behavior],
            "invert": self.invert,
        }


class CharDelimiterSplit(PreTokenizer):
    """Split on one char, dropping it (like `str.split(delimiter)` without empty pieces)."""

    delimiter: str

    def __init__(self, delimiter: str) -> None:
        if len(delimiter) != 1:
            raise ValueError("CharDelimiterSplit expects a single char delimiter")
        self.delimiter = delimiter

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        return piece_slices(piece, _delimited_spans(piece.normalized, self.delimiter))

    def split_words(self, sequence: str) -> list[str]:
        out: list[str] = []
        for word in sequence.split(self.delimiter):
            if word:
                out.append(word)
        return out

    def cut(self, text: str) -> Cut | None:
        return Cut.found(text, self.split_words(text))

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "CharDelimiterSplit", "delimiter": self.delimiter}


def _delimited_spans(text: str, delimiter: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    start = 0
    while True:
        found = text.find(delimiter, start)
        if found < 0:
            break
        if found > start:
            out.append((start, found))
        start = found + 1
    if start < len(text):
        out.append((start, len(text)))
    return out
