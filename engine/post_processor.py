"""The post-processing stage's contract: `PostProcessor`, and HF's steps shared by processors.

The default path of a tokenizer without post-processor, merging, offset trimming. The concrete
processors live in `engine.processors` (and `engine.template`); truncation in `engine.encoding`.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from typing import Final

from engine.encoding import Encoding
from engine.model import JsonValue
from engine.vocab_io import RUST_WHITESPACE

# The GPT-2 byte-level character of the space byte ("Ġ"), trimmed like whitespace.
_BYTE_LEVEL_SPACE: Final = "\u0120"
_TRIMMED_CHARS: Final = RUST_WHITESPACE + _BYTE_LEVEL_SPACE


class PostProcessor(ABC):
    """Adds special tokens (and may fix offsets) once the sequences are encoded."""

    @abstractmethod
    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        """How many special tokens `process` adds to a single sequence or a pair."""

    @abstractmethod
    def process_encodings(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        """HF's `process_encodings`: may change the given encodings; returns those to merge."""

    @abstractmethod
    def to_dict(self) -> dict[str, JsonValue]:
        """The tokenizer.json "post_processor" object."""

    def process(
        self, encoding: Encoding, pair: Encoding | None = None, add_special_tokens: bool = True
    ) -> Encoding:
        """The final encoding; `encoding` and `pair` are left untouched (HF's Python API)."""
        return self.process_owned(
            encoding.copy(), pair.copy() if pair is not None else None, add_special_tokens
        )

    def process_owned(self, encoding: Encoding, pair: Encoding | None, add_special_tokens: bool) -> Encoding:
        """`process` without the defensive copies: the inputs may be changed (the Tokenizer's path)."""
        encodings = [encoding] if pair is None else [encoding, pair]
        for index in range(len(encodings)):
            current = encodings[index]
            current.set_sequence_id(index)
            for overflowing in current.overflowing:
                overflowing.set_sequence_id(index)
            current.type_ids = [index] * len(current.ids)
        return merge_encodings(self.process_encodings(encodings, add_special_tokens))

    def __str__(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)


def merge_encodings(encodings: list[Encoding]) -> Encoding:
    """Concatenate without growing offsets (each sequence keeps its own offsets)."""
    if len(encodings) == 1 and not encodings[0].overflowing:
        return encodings[0]
    result = Encoding()
    for encoding in encodings:
        result.merge_with(encoding, False)
    return result


def default_process(encoding: Encoding, pair: Encoding | None, add_special_tokens: bool = True) -> Encoding:
    """HF's path when a tokenizer has no post-processor: a pair is merged with sequence ids set."""
    if pair is None:
        return encoding
    final = Encoding()
    encoding.set_sequence_id(0)
    final.merge_with(encoding, False)
    pair.set_sequence_id(1)
    final.merge_with(pair, False)
    return final


# -- offset trimming (ByteLevel, RobertaProcessing) -------------------------------------------


def trim_offsets(encoding: Encoding, add_prefix_space: bool) -> None:
    """Drop leading/trailing spaces ("Ġ" or whitespace) of each token from its offsets (HF process_offsets).

    With `add_prefix_space`, one leading space of a first token is kept: the pre-tokenizer added it.
    """
    tokens = encoding.tokens
    offsets = encoding.offsets
    for index in range(len(offsets)):
        token = tokens[index]
        leading = len(token) - len(token.lstrip(_TRIMMED_CHARS))
        trailing = len(token) - len(token.rstrip(_TRIMMED_CHARS))
        if leading == 0 and trailing == 0:
            continue
        start, end = offsets[index]
        if leading > 0:
            is_first = index == 0 or start == 0
            if is_first and add_prefix_space and leading == 1:
                leading = 0
            start = min(start + leading, end)
        if trailing > 0 and end >= trailing:
            end = max(end - trailing, start)
        offsets[index] = (start, end)


def trim_all(encodings: list[Encoding], add_prefix_space: bool) -> None:
    for encoding in encodings:
        trim_offsets(encoding, add_prefix_space)
        for overflowing in encoding.overflowing:
            trim_offsets(overflowing, add_prefix_space)
