"""RobertaProcessing: `<s> A </s>` and `<s> A </s></s> B </s>`, offsets trimmed like ByteLevel's
(HF roberta.rs)."""

from __future__ import annotations

from engine.encoding import Encoding
from engine.processors.base import PostProcessor, surround, token_pair
from engine.processors.byte_level import trim_all
from engine.schema import JsonValue


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
        self.sep = token_pair(sep, "sep")
        self.cls = token_pair(cls_token, "cls")
        self.trim_offsets = trim_offsets
        self.add_prefix_space = add_prefix_space

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        return 4 if is_pair else 2

    def process_encodings(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        if self.trim_offsets:
            trim_all(encodings, self.add_prefix_space)
        # subtle: Roberta sets every type id to 0, but not in the overflowing parts (HF).
        for encoding in encodings:
            encoding.set_type_ids(0)
        if not add_special_tokens:
            return encodings
        result: list[Encoding] = []
        for index in range(len(encodings)):
            encoding = encodings[index]
            before = self.cls if index == 0 else self.sep
            overflowing: list[Encoding] = []
            for part in encoding.overflows():
                overflowing.append(surround(part, before, self.sep, [0] * (len(part.ids) + 2), index, []))
            result.append(
                surround(encoding, before, self.sep, [0] * (len(encoding.ids) + 2), index, overflowing)
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
