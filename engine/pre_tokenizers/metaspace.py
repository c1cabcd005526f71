"""The Metaspace pre-tokenizer: spaces as "▁" and a split before each, as HF's
`pre_tokenizers/metaspace.rs` (the convention itself is `engine.metaspace`'s).
"""

from __future__ import annotations

from typing import Final

import regex

from engine import metaspace
from engine.normalizers.normalized import NormalizedString
from engine.pattern import find_matches_compiled
from engine.pre_tokenizers.base import Cut, PreTokenizer, match_spans, piece_slices
from engine.schema import JsonValue

# One space, which Metaspace replaces (HF replaces ' ' only, not other whitespace).
SPACE_RE: Final = regex.compile(" ")


class Metaspace(PreTokenizer):
    """SentencePiece's: spaces become `replacement`, which is prepended (per `prepend_scheme`) and
    starts every piece when `split`. "first" prepends only to a split that starts the input."""

    replacement: str
    prepend_scheme: str
    split: bool
    pieces_re: regex.Pattern[str]

    def __init__(
        self, replacement: str = metaspace.REPLACEMENT, prepend_scheme: str = metaspace.ALWAYS, split: bool = True
    ) -> None:
        self.replacement = metaspace.check_replacement(replacement)
        self.prepend_scheme = metaspace.check_prepend_scheme(prepend_scheme)
        self.split = split
        rep = regex.escape(replacement)
        self.pieces_re = regex.compile(f"{rep}[^{rep}]*|[^{rep}]+")

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        rep = self.replacement
        if " " in piece.normalized:
            piece.replace_matches(find_matches_compiled(SPACE_RE, piece.normalized), rep)
        if not piece.normalized.startswith(rep):
            if self.prepend_scheme == metaspace.ALWAYS or (
                self.prepend_scheme == metaspace.FIRST and piece.original_shift == 0
            ):
                piece.prepend(rep)
        if not self.split:
            return [piece]
        return piece_slices(piece, match_spans(self.pieces_re, piece.normalized))

    def split_words(self, sequence: str) -> list[str]:
        rep = self.replacement
        text = sequence.replace(" ", rep)
        # A fresh input is one split starting at offset 0, so "first" prepends like "always".
        if text and self.prepend_scheme != metaspace.NEVER and not text.startswith(rep):
            text = rep + text
        if not self.split:
            return [text] if text else []
        return metaspace_pieces(text, rep)

    def cut(self, text: str) -> Cut | None:
        rep = self.replacement
        mapped = text.replace(" ", rep)
        prefixed = bool(mapped) and not mapped.startswith(rep) and self.prepend_scheme != metaspace.NEVER
        if prefixed:
            mapped = rep + mapped
        if not self.split:
            found = Cut.covering([mapped] if mapped else [])
        else:
            found = Cut.covering(metaspace_pieces(mapped, rep))
        return found.drop_prefix() if prefixed else found

    def to_dict(self) -> dict[str, JsonValue]:
        return metaspace.options_to_dict(self.replacement, self.prepend_scheme, self.split)


def metaspace_pieces(text: str, rep: str) -> list[str]:
    """`pieces_re`'s matches (each `rep` starts a piece, a `rep` before another stands alone),
    by `str.split`: "a▁▁b▁" -> a|▁|▁b|▁ (the regex took a twentieth of an audit)."""
    parts = text.split(rep)
    out: list[str] = [parts[0]] if parts[0] else []
    for k in range(1, len(parts)):
        out.append(rep + parts[k])
    return out
