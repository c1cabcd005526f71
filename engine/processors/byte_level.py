"""The ByteLevel post-processor: trims the spaces byte-level BPE keeps inside tokens out of their
offsets (HF's `process_offsets`, also used by RobertaProcessing). Adds no token.
"""

from __future__ import annotations

from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64

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


class _Trims:
    """Each id's token's leading and trailing spaces (`_spaces`), for one vocabulary's tokens
    by id (`Encoding.unmade_names`)."""

    names: list[str]
    spaces: vec[i64]

    def __init__(self, names: list[str]) -> None:
        self.names = names
        spaces = vec[i64](capacity=len(names))
        for token in names:
            spaces = append(spaces, _spaces(token))
        self.spaces = spaces


class _LastTrims:
    """The `_Trims` of the vocabulary last trimmed (replaced whole: threads may share it)."""

    found: _Trims | None

    def __init__(self) -> None:
        self.found = None

    def of(self, names: list[str]) -> _Trims:
        found = self.found
        if found is None or found.names is not names:
            found = _Trims(names)
            self.found = found
        return found


_LAST_TRIMS: Final = _LastTrims()


def _spaces(token: str) -> i64:
    """A token's leading spaces ("Ġ" or whitespace), and its trailing ones << 32."""
    leading: i64 = len(token) - len(token.lstrip(_TRIMMED_CHARS))
    trailing: i64 = len(token) - len(token.rstrip(_TRIMMED_CHARS))
    return leading | (trailing << 32)


def trim_offsets(encoding: Encoding, add_prefix_space: bool) -> None:
    """Drop leading/trailing spaces ("Ġ" or whitespace) of each token from its offsets (HF process_offsets).

    With `add_prefix_space`, one leading space of a first token is kept: the pre-tokenizer added it.
    An encoding whose tokens are still to be made from its ids (the encode fast path's) is
    trimmed by id, from a table of its vocabulary's tokens: no token is made (issue 25).
    """
    names = encoding.unmade_names()
    trims = _LAST_TRIMS.of(names).spaces if names is not None else vec[i64]()
    ids = encoding.unmade_ids()
    tokens: list[str] = encoding.tokens if names is None else []
    spans = encoding.spans()
    for index in range(len(encoding)):
        packed = trims[ids[index]] if names is not None else _spaces(tokens[index])
        if packed == 0:
            continue
        leading = packed & 0xFFFFFFFF
        trailing = packed >> 32
        start = spans[2 * index]
        end = spans[2 * index + 1]
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
