"""The post-processing stage's contract: `PostProcessor`, and HF's steps shared by processors.

The default path of a tokenizer without post-processor, merging, framing a sequence with special
tokens. The processors are the package's other modules; truncation is in `engine.truncation`.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod

from librt.vecs import append, extend, vec
from mypy_extensions import i64

from engine.encoding import Encoding
from engine.errors import SchemaError
from engine.schema import JsonValue, as_id, require


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
            for overflowing in current.overflows():
                overflowing.set_sequence_id(index)
            current.set_type_ids(index)
        return merge_encodings(self.process_encodings(encodings, add_special_tokens))

    def __str__(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)


def merge_encodings(encodings: list[Encoding]) -> Encoding:
    """Concatenate without growing offsets (each sequence keeps its own offsets)."""
    if len(encodings) == 1 and not encodings[0].overflows():
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


def surround(
    encoding: Encoding,
    before: tuple[str, int] | None,
    after: tuple[str, int],
    type_ids: list[int],
    sequence_id: int,
    overflowing: list[Encoding],
) -> Encoding:
    """`encoding` between special tokens, its sequence range excluding them (Bert/Roberta).

    [a b] with before ([CLS], 1) and after ([SEP], 2) -> [[CLS] a b [SEP]], range (1, 3).
    """
    n = len(encoding.ids)
    ids: list[int] = []
    tokens: list[str] = []
    words: list[int | None] = []
    spans = vec[i64]()
    mask: list[int] = []
    if before is not None:
        ids.append(before[1])
        tokens.append(before[0])
        words.append(None)
        spans = vec[i64]([0, 0])
        mask.append(1)
    ids.extend(encoding.ids)
    tokens.extend(encoding.tokens)
    words.extend(encoding.word_ids)
    spans = extend(spans, encoding.spans())
    mask.extend([0] * n)
    ids.append(after[1])
    tokens.append(after[0])
    words.append(None)
    spans = append(spans, 0)
    spans = append(spans, 0)
    mask.append(1)
    total = len(ids)
    start = 1 if before is not None else 0
    return Encoding(
        ids, type_ids, tokens, words, None, mask, [1] * total, overflowing, {sequence_id: (start, total - 1)}, spans
    )


def token_pair(value: object, name: str) -> tuple[str, int]:
    """A `(token, id)` argument, as Bert/Roberta take `sep` and `cls`, or a TypeError."""
    if isinstance(value, (tuple, list)) and len(value) == 2:
        token = value[0]
        id = value[1]
        if isinstance(token, str) and isinstance(id, int) and not isinstance(id, bool) and id >= 0:
            return (token, id)
    raise TypeError(f"`{name}` must be a (token, id) pair, got {value!r}")


def token_pair_from_dict(obj: dict[str, object], key: str, where: str) -> tuple[str, int]:
    """A `[token, id]` field of a tokenizer.json object."""
    value = require(obj, key, where)
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str):
        return (value[0], as_id(value[1], f"{where}: the id in '{key}'"))
    raise SchemaError(f"{where}: field '{key}' must be a [token, id] pair, got {value!r}")
