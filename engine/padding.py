"""HF's padding of encodings: `PaddingParams` (the settings, and their tokenizer.json object)
and `pad_encodings`, which pads a batch to a fixed length or to its longest encoding.

Mirrors HF tokenizers' utils/padding.rs. Padding one encoding (and its overflowing windows) is
`Encoding.pad` (`engine.encoding`); no truncation here (`engine.truncation`).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.encoding import DIRECTION_FROM_JSON, DIRECTION_TO_JSON, DIRECTIONS, Encoding
from engine.errors import SchemaError
from engine.schema import JsonValue, as_count, expect_object, get_choice, get_count, get_str, require


@dataclass(frozen=True)
class PaddingParams:
    """HF's PaddingParams; `length=None` is the BatchLongest strategy, a number is Fixed(length)."""

    direction: str = "right"
    pad_id: int = 0
    pad_type_id: int = 0
    pad_token: str = "[PAD]"
    length: int | None = None
    pad_to_multiple_of: int | None = None

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise ValueError(f"Unknown `direction`: `{self.direction}`. Use one of `left` or `right`")

    def to_python_dict(self) -> dict[str, JsonValue]:
        """What HF's `Tokenizer.padding` returns."""
        return {
            "length": self.length,
            "pad_to_multiple_of": self.pad_to_multiple_of,
            "pad_id": self.pad_id,
            "pad_token": self.pad_token,
            "pad_type_id": self.pad_type_id,
            "direction": self.direction,
        }

    def to_dict(self) -> dict[str, JsonValue]:
        """The tokenizer.json `"padding"` object."""
        strategy: JsonValue = "BatchLongest" if self.length is None else {"Fixed": self.length}
        return {
            "strategy": strategy,
            "direction": DIRECTION_TO_JSON[self.direction],
            "pad_to_multiple_of": self.pad_to_multiple_of,
            "pad_id": self.pad_id,
            "pad_type_id": self.pad_type_id,
            "pad_token": self.pad_token,
        }

    @staticmethod
    def from_dict(data: object) -> PaddingParams:
        where = "padding"
        obj = expect_object(data, where)
        strategy = require(obj, "strategy", where)
        length: int | None = None
        if isinstance(strategy, dict) and len(strategy) == 1 and "Fixed" in strategy:
            length = as_count(strategy["Fixed"], f"{where}: the 'Fixed' length")
        elif strategy != "BatchLongest":
            raise SchemaError(f"{where}: unknown strategy {strategy!r} (expected 'BatchLongest' or {{'Fixed': n}})")
        multiple = obj.get("pad_to_multiple_of")
        return PaddingParams(
            get_choice(obj, "direction", where, DIRECTION_FROM_JSON),
            get_count(obj, "pad_id", where),
            get_count(obj, "pad_type_id", where),
            get_str(obj, "pad_token", where),
            length,
            as_count(multiple, f"{where}: field 'pad_to_multiple_of'") if multiple is not None else None,
        )


def pad_encodings(encodings: list[Encoding], params: PaddingParams) -> None:
    """Pad every encoding in place to the fixed length or the batch's longest (HF pad_encodings)."""
    if not encodings:
        return
    if params.length is not None:
        target = params.length
    else:
        target = 0
        for encoding in encodings:
            if len(encoding.ids) > target:
                target = len(encoding.ids)
    multiple = params.pad_to_multiple_of
    if multiple is not None and multiple > 0 and target % multiple > 0:
        target += multiple - target % multiple
    for encoding in encodings:
        encoding.pad(target, params.direction, params.pad_id, params.pad_type_id, params.pad_token)
