"""The ByteLevel post-processor: trims the spaces byte-level BPE keeps inside tokens out of their
offsets (HF's `process_offsets`, also used by RobertaProcessing). Adds no token.
"""

from __future__ import annotations

from typing import Final

from engine import byte_level
from engine.encoding import Encoding
from engine.processors.base import PostProcessor
from engine.schema import JsonValue
from engine.unicode_chars import WHITESPACE_CHARS

# A token's leading and trailing spaces: whitespace, and the byte-level space "Ġ".
_TRIMMED_CHARS: Final = WHITESPACE_CHARS + byte_level.SPACE


class ByteLevel(PostProcessor):
    """Trims the offsets of byte-level tokens; adds nothing.

    Same fields as the ByteLevel pre-tokenizer (only `trim_offsets`/`add_prefix_space` act here).
    """

    add_prefix_space: bool
    trim_offsets: bool
    use_regex: bool

    def __init__(
        self,
        add_prefix_space: bool | None = None,
        trim_offsets: bool | None = None,
        use_regex: bool | None = None,
    ) -> None:
        self.add_prefix_space = True if add_prefix_space is None else add_prefix_space
        self.trim_offsets = True if trim_offsets is None else trim_offsets
        self.use_regex = True if use_regex is None else use_regex

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        return 0

    def process_encodings(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        if self.trim_offsets:
            trim_all(encodings, self.add_prefix_space)
        for index in range(len(encodings)):
            encodings[index].set_sequence_id(index)
        return encodings

    def to_dict(self) -> dict[str, JsonValue]:
        return byte_level.options_to_dict(self.add_prefix_space, self.trim_offsets, self.use_regex)


def trim_offsets(encoding: Encoding, add_prefix_space: bool) -> None:
    """Drop leading/trailing spaces ("Ġ" or whitespace) of each token from its offsets (HF process_offsets).

    With `add_prefix_space`, one leading space of a first token is kept: the pre-tokenizer added it.
    """
    tokens = encoding.tokens
    for index in range(len(tokens)):
        token = tokens[index]
        leading = len(token) - len(token.lstrip(_TRIMMED_CHARS))
        trailing = len(token) - len(token.rstrip(_TRIMMED_CHARS))
        if leading == 0 and trailing == 0:
            continue
        start, end = encoding.offset(index)
        if leading > 0:
            is_first = index == 0 or start == 0
            if is_first and add_prefix_space and leading == 1:
                leading = 0
            start = min(start + leading, end)
        if trailing > 0 and end >= trailing:
            end = max(end - trailing, start)
        encoding.set_offset(index, start, end)


def trim_all(encodings: list[Encoding], add_prefix_space: bool) -> None:
    for encoding in encodings:
        trim_offsets(encoding, add_prefix_space)
        for overflowing in encoding.overflows():
            trim_offsets(overflowing, add_prefix_space)
