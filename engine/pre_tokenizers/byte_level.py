"""The ByteLevel pre-tokenizer: GPT-2's split and its bytes as printable characters, as HF's
`pre_tokenizers/byte_level.rs` (the convention itself is `engine.byte_level`'s).
"""

from __future__ import annotations

from engine import byte_level
from engine.normalizers import byte_level_transform
from engine.normalizers.normalized import NormalizedString
from engine.pre_tokenizers.base import Cut, PreTokenizer, piece_slices
from engine.pre_tokenizers.scanners import GPT2_RE, gpt2_ascii_words
from engine.pre_tokenizers.pretokenized import PreTokenizedString
from engine.schema import JsonValue


class ByteLevel(PreTokenizer):
    """GPT-2's: optional leading space, the GPT-2 regex split, then every byte as a printable char.

    `trim_offsets` is only used by the ByteLevel post-processor; it is kept for serialization.
    """

    add_prefix_space: bool
    trim_offsets: bool
    use_regex: bool

    def __init__(
        self, add_prefix_space: bool = True, trim_offsets: bool = True, use_regex: bool = True
    ) -> None:
        self.add_prefix_space = add_prefix_space
        self.trim_offsets = trim_offsets
        self.use_regex = use_regex

    @staticmethod
    def alphabet() -> list[str]:
        """The 256 chars bytes map to (HF returns them in hash order; these are in byte order)."""
        return list(byte_level.BYTES_TO_UNICODE)

    def split_piece(self, index: int, piece: NormalizedString) -> list[NormalizedString]:
        if self.add_prefix_space and not piece.normalized.startswith(" "):
            piece.prepend(" ")
        if not self.use_regex:
            return [piece]
        return piece_slices(piece, GPT2_RE.spans(piece.normalized))

    def pre_tokenize(self, pretok: PreTokenizedString) -> None:
        pretok.split(self)
        for current in pretok.splits:
            if current.tokens is None:
                byte_level_transform(current.normalized)

    def split_words(self, sequence: str) -> list[str]:
        text = sequence
        if self.add_prefix_space and text and not text.startswith(" "):
            text = " " + text
        if not self.use_regex:
            return [byte_level.to_chars(text)] if text else []
        if text.isascii():
            # subtle: an ASCII line maps char for char, so map it first and split the mapped text.
            return gpt2_ascii_words(text, byte_level.ascii_to_chars(text))
        words = GPT2_RE.findall(text)
        for i in range(len(words)):
            words[i] = byte_level.to_chars(words[i])
        return words

    def cut(self, text: str) -> Cut | None:
        if self.add_prefix_space and text and not text.startswith(" "):
            return None  # the inserted space needs an alignment of its own
        if not self.use_regex:
            return Cut.covering([text] if text else []).to_byte_level()
        if text.isascii():
            # subtle: ASCII maps char for char, so cut the mapped text (split_words does too).
            return Cut.covering(gpt2_ascii_words(text, byte_level.ascii_to_chars(text)))
        return Cut.covering(GPT2_RE.findall(text)).to_byte_level()

    def maps_bytes(self) -> bool:
        return True

    def to_dict(self) -> dict[str, JsonValue]:
        return byte_level.options_to_dict(self.add_prefix_space, self.trim_offsets, self.use_regex)
