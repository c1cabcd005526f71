"""`Sequence`: post-processors run one after the other (HF sequence.rs)."""

from __future__ import annotations

import collections.abc

from engine.encoding import Encoding
from engine.processors.base import PostProcessor
from engine.schema import JsonValue


class Sequence(PostProcessor):
    """Runs post-processors one after the other (nested Sequences are flattened, as HF's binding)."""

    processors: list[PostProcessor]

    def __init__(self, processors: collections.abc.Sequence[PostProcessor]) -> None:
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
