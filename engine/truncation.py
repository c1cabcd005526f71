"""HF's truncation of encodings: `TruncationParams` (the settings, and their tokenizer.json
object) and `truncate_encodings`, which cuts a sequence and its pair to a length in total.

Mirrors HF tokenizers' utils/truncation.rs. Cutting one encoding (and its overflowing windows)
is `Encoding.truncate` (`engine.encoding`); no padding here (`engine.padding`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from engine.encoding import DIRECTION_FROM_JSON, DIRECTION_TO_JSON, DIRECTIONS, Encoding
from engine.errors import TruncationError
from engine.schema import JsonValue, expect_object, get_choice, get_count

TRUNCATION_STRATEGIES: Final = ("longest_first", "only_first", "only_second")

_STRATEGY_TO_JSON: Final = {
    "longest_first": "LongestFirst",
    "only_first": "OnlyFirst",
    "only_second": "OnlySecond",
}
_STRATEGY_FROM_JSON: Final = {
    "LongestFirst": "longest_first",
    "OnlyFirst": "only_first",
    "OnlySecond": "only_second",
}


@dataclass(frozen=True)
class TruncationParams:
    """HF's TruncationParams, with the Python binding's strings ("longest_first", "right")."""

    max_length: int = 512
    stride: int = 0
    strategy: str = "longest_first"
    direction: str = "right"

    def __post_init__(self) -> None:
        if self.strategy not in TRUNCATION_STRATEGIES:
            raise ValueError(
                f"Unknown `strategy`: `{self.strategy}`. Use one of `longest_first`, `only_first`, "
                "or `only_second`"
            )
        if self.direction not in DIRECTIONS:
            raise ValueError(f"Unknown `direction`: `{self.direction}`. Use one of `left` or `right`.")

    def with_max_length(self, max_length: int) -> TruncationParams:
        return TruncationParams(max_length, self.stride, self.strategy, self.direction)

    def to_python_dict(self) -> dict[str, JsonValue]:
        """What HF's `Tokenizer.truncation` returns."""
        return {
            "max_length": self.max_length,
            "stride": self.stride,
            "strategy": self.strategy,
            "direction": self.direction,
        }

    def to_dict(self) -> dict[str, JsonValue]:
        """The tokenizer.json `"truncation"` object."""
        return {
            "direction": DIRECTION_TO_JSON[self.direction],
            "max_length": self.max_length,
            "strategy": _STRATEGY_TO_JSON[self.strategy],
            "stride": self.stride,
        }

    @staticmethod
    def from_dict(data: object) -> TruncationParams:
        where = "truncation"
        obj = expect_object(data, where)
        return TruncationParams(
            get_count(obj, "max_length", where),
            get_count(obj, "stride", where),
            get_choice(obj, "strategy", where, _STRATEGY_FROM_JSON),
            # HF's default: files written before `direction` existed truncate on the right.
            get_choice(obj, "direction", where, DIRECTION_FROM_JSON, "Right"),
        )


def truncate_encodings(
    encoding: Encoding, pair: Encoding | None, params: TruncationParams
) -> tuple[Encoding, Encoding | None]:
    """Truncate a sequence (and its pair) in place to `params.max_length` tokens in total (HF).

    A negative `max_length` (special tokens outnumbering it) truncates nothing, as HF's wrapped
    unsigned subtraction does.
    """
    max_length = params.max_length
    stride = params.stride
    direction = params.direction
    if max_length < 0:
        return encoding, pair
    if max_length == 0:
        encoding.truncate(0, stride, direction)
        if pair is not None:
            pair.truncate(0, stride, direction)
        return encoding, pair
    total = len(encoding.ids) + (len(pair.ids) if pair is not None else 0)
    if total <= max_length:
        return encoding, pair
    to_remove = total - max_length
    if params.strategy == "longest_first":
        if pair is None:
            encoding.truncate(max_length, stride, direction)
            return encoding, pair
        n1 = len(encoding.ids)
        n2 = len(pair.ids)
        swap = n1 > n2
        if swap:
            n1, n2 = n2, n1
        if n1 > max_length:
            n2 = n1
        else:
            n2 = max(n1, max_length - n1)
        if n1 + n2 > max_length:
            n1 = max_length // 2
            n2 = n1 + max_length % 2
        if swap:
            n1, n2 = n2, n1
        encoding.truncate(n1, stride, direction)
        pair.truncate(n2, stride, direction)
        return encoding, pair
    if params.strategy == "only_first":
        target = encoding
    elif pair is not None:
        target = pair
    else:
        raise TruncationError("Truncation error: Second sequence not provided")
    target_len = len(target.ids)
    if target_len <= to_remove:
        raise TruncationError(
            "Truncation error: Sequence to truncate too short to respect the provided max_length"
        )
    target.truncate(target_len - to_remove, stride, direction)
    return encoding, pair
