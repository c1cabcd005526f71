"""The post-processing stage, as HF's `tokenizers.processors`: special tokens and offset trimming.

BertProcessing, RobertaProcessing, ByteLevel, Sequence and `from_dict`; TemplateProcessing
(`engine.template`) and the contract with HF's default path (`engine.post_processor`) are
re-exported here. Truncation and padding live in `engine.encoding`.
"""

from __future__ import annotations

from engine.encoding import Encoding
from engine.errors import SchemaError
from engine.model import JsonValue
from engine.post_processor import PostProcessor, default_process, merge_encodings, trim_all, trim_offsets
from engine.schema import as_count, expect_object, get_bool, get_list, require, type_tag
from engine.template import Piece, SpecialToken, TemplateProcessing, template_from_dict

__all__ = [
    "BertProcessing",
    "ByteLevel",
    "Piece",
    "PostProcessor",
    "RobertaProcessing",
    "Sequence",
    "SpecialToken",
    "TemplateProcessing",
    "default_process",
    "from_dict",
    "merge_encodings",
    "trim_offsets",
]


def _surround(
    encoding: Encoding,
    before: tuple[str, int] | None,
    after: tuple[str, int],
    type_ids: list[int],
    sequence_id: int,
    overflowing: list[Encoding],
) -> Encoding:
    """`encoding` between special tokens, its sequence range excluding them (Bert/Roberta)."""
    n = len(encoding.ids)
    ids: list[int] = []
    tokens: list[str] = []
    words: list[int | None] = []
    offsets: list[tuple[int, int]] = []
    mask: list[int] = []
    if before is not None:
        ids.append(before[1])
        tokens.append(before[0])
        words.append(None)
        offsets.append((0, 0))
        mask.append(1)
    ids.extend(encoding.ids)
    tokens.extend(encoding.tokens)
    words.extend(encoding.word_ids)
    offsets.extend(encoding.offsets)
    mask.extend([0] * n)
    ids.append(after[1])
    tokens.append(after[0])
    words.append(None)
    offsets.append((0, 0))
    mask.append(1)
    total = len(ids)
    start = 1 if before is not None else 0
    return Encoding(
        ids, type_ids, tokens, words, offsets, mask, [1] * total, overflowing, {sequence_id: (start, total - 1)}
    )


# -- BertProcessing ---------------------------------------------------------------------------


class BertProcessing(PostProcessor):
    """[CLS] A [SEP] (B [SEP]), type ids 0 for A's part and 1 for B's."""

    sep: tuple[str, int]
    cls: tuple[str, int]

    def __init__(self, sep: tuple[str, int], cls_token: tuple[str, int]) -> None:
        self.sep = _token_pair(sep, "sep")
        self.cls = _token_pair(cls_token, "cls")

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        return 3 if is_pair else 2

    def process_encodings(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        if not add_special_tokens:
            return encodings
        result: list[Encoding] = []
        for index in range(len(encodings)):
            encoding = encodings[index]
            overflowing: list[Encoding] = []
            if index == 0:
                for part in encoding.overflowing:
                    overflowing.append(_surround(part, self.cls, self.sep, [0] + part.type_ids + [0], 0, []))
                result.append(
                    _surround(encoding, self.cls, self.sep, [0] + encoding.type_ids + [0], 0, overflowing)
                )
            else:
                for part in encoding.overflowing:
                    overflowing.append(_surround(part, None, self.sep, part.type_ids + [1], 1, []))
                result.append(_surround(encoding, None, self.sep, encoding.type_ids + [1], 1, overflowing))
        return result

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "BertProcessing", "sep": [self.sep[0], self.sep[1]], "cls": [self.cls[0], self.cls[1]]}


# -- RobertaProcessing ------------------------------------------------------------------------


class RobertaProcessing(PostProcessor):
    """<s> A </s> (</s> B </s>), every type id 0, offsets trimmed like ByteLevel."""

    sep: tuple[str, int]
    cls: tuple[str, int]
    trim_offsets: bool
    add_prefix_space: bool

    def __init__(
        self,
        sep: tuple[str, int],
        cls_token: tuple[str, int],
        trim_offsets: bool = True,
        add_prefix_space: bool = True,
    ) -> None:
        self.sep = _token_pair(sep, "sep")
        self.cls = _token_pair(cls_token, "cls")
        self.trim_offsets = trim_offsets
        self.add_prefix_space = add_prefix_space

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        return 4 if is_pair else 2

    def process_encodings(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        if self.trim_offsets:
            trim_all(encodings, self.add_prefix_space)
        # subtle: Roberta sets every type id to 0, but not in the overflowing parts (HF).
        for encoding in encodings:
            encoding.type_ids = [0] * len(encoding.ids)
        if not add_special_tokens:
            return encodings
        result: list[Encoding] = []
        for index in range(len(encodings)):
            encoding = encodings[index]
            before = self.cls if index == 0 else self.sep
            overflowing: list[Encoding] = []
            for part in encoding.overflowing:
                overflowing.append(_surround(part, before, self.sep, [0] * (len(part.ids) + 2), index, []))
            result.append(
                _surround(encoding, before, self.sep, [0] * (len(encoding.ids) + 2), index, overflowing)
            )
        return result

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "type": "RobertaProcessing",
            "sep": [self.sep[0], self.sep[1]],
            "cls": [self.cls[0], self.cls[1]],
            "trim_offsets": self.trim_offsets,
            "add_prefix_space": self.add_prefix_space,
        }


# -- ByteLevel --------------------------------------------------------------------------------


class ByteLevel(PostProcessor):
    """Trims the spaces byte-level BPE keeps inside tokens out of their offsets; adds nothing.

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
        return {
            "type": "ByteLevel",
            "add_prefix_space": self.add_prefix_space,
            "trim_offsets": self.trim_offsets,
            "use_regex": self.use_regex,
        }


def _token_pair(value: object, name: str) -> tuple[str, int]:
    if isinstance(value, (tuple, list)) and len(value) == 2:
        token = value[0]
        id = value[1]
        if isinstance(token, str) and isinstance(id, int) and not isinstance(id, bool) and id >= 0:
            return (token, id)
    raise TypeError(f"`{name}` must be a (token, id) pair, got {value!r}")


# -- Sequence ---------------------------------------------------------------------------------


class Sequence(PostProcessor):
    """Runs post-processors one after the other (nested Sequences are flattened, as HF's binding)."""

    processors: list[PostProcessor]

    def __init__(self, processors: list[PostProcessor]) -> None:
        flat: list[PostProcessor] = []
        for processor in processors:
            if isinstance(processor, Sequence):
                flat.extend(processor.processors)
            elif isinstance(processor, PostProcessor):
                flat.append(processor)
            else:
                raise TypeError(f"expected a PostProcessor, got {type(processor).__name__}")
        self.processors = flat

    def __getitem__(self, index: int) -> PostProcessor:
        return self.processors[index]

    def __setitem__(self, index: int, value: PostProcessor) -> None:
        if isinstance(value, Sequence):
            raise TypeError("processor should not be a sequence")
        self.processors[index] = value

    def __len__(self) -> int:
        return len(self.processors)

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        total = 0
        for processor in self.processors:
            total += processor.num_special_tokens_to_add(is_pair)
        return total

    def process_encodings(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        for processor in self.processors:
            encodings = processor.process_encodings(encodings, add_special_tokens)
        return encodings

    def to_dict(self) -> dict[str, JsonValue]:
        processors: list[JsonValue] = []
        for processor in self.processors:
            processors.append(processor.to_dict())
        return {"type": "Sequence", "processors": processors}


# -- tokenizer.json ---------------------------------------------------------------------------


def from_dict(data: object) -> PostProcessor:
    """A post-processor from its tokenizer.json object (Bert/Roberta objects may omit "type", as in HF)."""
    obj = expect_object(data, "post_processor")
    tag = type_tag(obj, "post_processor")
    if tag is None:
        if all(key in obj for key in ("sep", "cls", "trim_offsets", "add_prefix_space")):
            tag = "RobertaProcessing"
        elif "sep" in obj and "cls" in obj:
            tag = "BertProcessing"
        else:
            raise SchemaError("post_processor: missing field 'type'")
    if tag == "BertProcessing":
        return BertProcessing(_json_token_pair(obj, "sep", tag), _json_token_pair(obj, "cls", tag))
    if tag == "RobertaProcessing":
        return RobertaProcessing(
            _json_token_pair(obj, "sep", tag),
            _json_token_pair(obj, "cls", tag),
            get_bool(obj, "trim_offsets", tag),
            get_bool(obj, "add_prefix_space", tag),
        )
    if tag == "ByteLevel":
        return ByteLevel(
            get_bool(obj, "add_prefix_space", tag),
            get_bool(obj, "trim_offsets", tag),
            get_bool(obj, "use_regex", tag, True),
        )
    if tag == "TemplateProcessing":
        return template_from_dict(obj)
    if tag == "Sequence":
        processors: list[PostProcessor] = []
        for item in get_list(obj, "processors", tag):
            processors.append(from_dict(item))
        return Sequence(processors)
    raise SchemaError(f"unknown post-processor type {tag!r}")


def _json_token_pair(obj: dict[str, object], key: str, where: str) -> tuple[str, int]:
    value = require(obj, key, where)
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str):
        return (value[0], as_count(value[1], f"{where}: the id in '{key}'"))
    raise SchemaError(f"{where}: field '{key}' must be a [token, id] pair, got {value!r}")


