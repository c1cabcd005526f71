"""`Sequence`: several pre-tokenizers applied in order.
"""

from __future__ import annotations

import collections.abc

from engine import metaspace
from engine.normalizers.normalized import NormalizedString
from engine.pre_tokenizers.base import Cut, PreTokenizer
from engine.pre_tokenizers.metaspace import Metaspace
from engine.pre_tokenizers.pretokenized import PreTokenizedString
from engine.schema import JsonValue


class Sequence(PreTokenizer):
    """Several pre-tokenizers, applied in order."""

    pre_tokenizers: list[PreTokenizer]

    def __init__(self, pre_tokenizers: collections.abc.Sequence[PreTokenizer]) -> None:
        self.pre_tokenizers = list(pre_tokenizers)

    def __len__(self) -> int:
        return len(self.pre_tokenizers)

    def __getitem__(self, index: int) -> PreTokenizer:
        return self.pre_tokenizers[index]

    def __setitem__(self, index: int, value: PreTokenizer) -> None:
        self.pre_tokenizers[index] = value

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        return self._split_with_all(piece)

    def pre_tokenize(self, pretok: PreTokenizedString) -> None:
        for pretokenizer in self.pre_tokenizers:
            pretokenizer.pre_tokenize(pretok)

    def _offset_free(self) -> bool:
        # Only Metaspace(prepend_scheme="first") looks at where a piece starts in the input.
        for pretokenizer in self.pre_tokenizers:
            if isinstance(pretokenizer, Metaspace) and pretokenizer.prepend_scheme == metaspace.FIRST:
                return False
            if isinstance(pretokenizer, Sequence) and not pretokenizer._offset_free():
                return False
        return True

    def split_words(self, sequence: str) -> list[str]:
        if not self._offset_free():
            return PreTokenizer.split_words(self, sequence)
        words = [sequence] if sequence else []
        for pretokenizer in self.pre_tokenizers:
            next_words: list[str] = []
            for word in words:
                next_words.extend(pretokenizer.split_words(word))
            words = next_words
        return words

    def cut(self, text: str) -> Cut | None:
        current = Cut.covering([text] if text else [])
        last = len(self.pre_tokenizers) - 1
        for k in range(len(self.pre_tokenizers)):
            pretokenizer = self.pre_tokenizers[k]
            if k < last and pretokenizer.maps_bytes():
                return None  # later parts would cut byte-level chars
            following = Cut()
            for i in range(len(current.words)):
                pieces = pretokenizer.cut(current.words[i])
                if pieces is None or pieces.prefixed:
                    return None  # an inserted char inside the text needs alignments
                following.extend(pieces, current.starts[i])
            current = following
        return current

    def maps_bytes(self) -> bool:
        return bool(self.pre_tokenizers) and self.pre_tokenizers[-1].maps_bytes()

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "Sequence", "pretokenizers": [p.to_dict() for p in self.pre_tokenizers]}
