"""BertProcessing: `[CLS] A [SEP]` and `[CLS] A [SEP] B [SEP]`, with BERT's type ids (HF bert.rs)."""

from __future__ import annotations

from engine.encoding import Encoding
from engine.processors.base import PostProcessor, surround, token_pair
from engine.schema import JsonValue


class BertProcessing(PostProcessor):
    """[CLS] A [SEP] (B [SEP]), type ids 0 for A's part and 1 for B's."""

    sep: tuple[str, int]
    cls: tuple[str, int]

    def __init__(self, sep: tuple[str, int], cls_token: tuple[str, int]) -> None:
        self.sep = token_pair(sep, "sep")
        self.cls = token_pair(cls_token, "cls")

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
                for part in encoding.overflows():
                    overflowing.append(surround(part, self.cls, self.sep, [0] + part.type_ids + [0], 0, []))
                result.append(
                    surround(encoding, self.cls, self.sep, [0] + encoding.type_ids + [0], 0, overflowing)
                )
            else:
                for part in encoding.overflows():
                    overflowing.append(surround(part, None, self.sep, part.type_ids + [1], 1, []))
                result.append(surround(encoding, None, self.sep, encoding.type_ids + [1], 1, overflowing))
        return result

    def to_dict(self) -> dict[str, JsonValue]:
        return {"type": "BertProcessing", "sep": [self.sep[0], self.sep[1]], "cls": [self.cls[0], self.cls[1]]}
