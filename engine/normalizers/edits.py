"""The normalizers that edit text by rule: Strip (spaces at either end), Replace (a pattern
by a string) and Prepend (a string before the text).
"""

from __future__ import annotations

from engine import metaspace
from engine.normalizers.normalized import LEADING_SPACES_RE, TRAILING_SPACES_RE, NormalizedString
from engine.normalizers.base import Normalizer
from engine.pattern import Regex, Replacement
from engine.schema import JsonValue


class Strip(Normalizer):
    """Remove leading (`left`) and/or trailing (`right`) whitespace."""

    left: bool
    right: bool

    def __init__(self, left: bool = True, right: bool = True) -> None:
        self.left = left
        self.right = right

    def normalize(self, normalized: NormalizedString) -> None:
        if self.left and self.right:
            normalized.strip()
        elif self.left:
            normalized.lstrip()
        elif self.right:
            normalized.rstrip()

    def normalize_str(self, sequence: str) -> str:
        start = 0
        end = len(sequence)
        if self.left:
            m = LEADING_SPACES_RE.match(sequence)
            if m is not None:
                start = m.end()
        if self.right:
            m = TRAILING_SPACES_RE.search(sequence, start)
            if m is not None:
                end = m.start()
        return sequence[start:end] if start < end else ""

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Strip", "strip_left": self.left, "strip_right": self.right}


class Replace(Normalizer):
    """Replace every match of `pattern` (a literal string or a `Regex`) by `content`."""

    replacement: Replacement

    def __init__(self, pattern: str | Regex, content: str) -> None:
        self.replacement = Replacement(pattern, content)

    def normalize(self, normalized: NormalizedString) -> None:
        normalized.replace_matches(self.replacement.matches(normalized.normalized), self.replacement.content)

    def normalize_str(self, sequence: str) -> str:
        return self.replacement.apply(sequence)

    def normalize_aligned(self, sequence: str) -> str | None:
        one_char = len(self.replacement.content) == 1
        matches = self.replacement.matches(sequence)
        for start, end, is_match in matches:
            if is_match and not (one_char and end - start == 1):
                return None  # a span of another length than its replacement moves alignments
        return self.replacement.apply_matches(sequence, matches)

    def to_dict(self) -> dict[str, JsonValue]:
        return self.replacement.to_dict()


class Prepend(Normalizer):
    """Put `prepend` in front of any non-empty string (its chars align with the first char)."""

    prepend: str

    def __init__(self, prepend: str = metaspace.REPLACEMENT) -> None:
        self.prepend = prepend

    def normalize(self, normalized: NormalizedString) -> None:
        if normalized.normalized:
            normalized.prepend(self.prepend)

    def normalize_str(self, sequence: str) -> str:
        return self.prepend + sequence if sequence else sequence

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Prepend", "prepend": self.prepend}
