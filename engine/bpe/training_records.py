"""What a BPE training run reports: `MergeStep` (one merge), `PairCandidate` (a pair in the
queue) and `MergeHistory` (per-merge numbers for plots and project files). No training here.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import SchemaError
from engine.model import JsonValue


@dataclass(frozen=True)
class MergeStep:
    """One merge: `left` + `right` became `new_token` (id `new_id`); the pair was seen `count` times.

    `vocab_size` is the size after the merge; `words_touched` the distinct words it changed.
    """

    index: int
    left: str
    right: str
    new_token: str
    new_id: int
    count: int
    vocab_size: int
    words_touched: int


@dataclass(frozen=True)
class PairCandidate:
    """A pair competing for the next merge, with its current count."""

    left: str
    right: str
    count: int


class MergeHistory:
    """Per-merge numbers for plots, one column each: `counts[i]` is merge i's pair count,
    `words_touched[i]` the words it changed, `vocab_sizes[i]` the vocabulary size after it."""

    counts: list[int]
    words_touched: list[int]
    vocab_sizes: list[int]

    def __init__(self, counts: list[int], words_touched: list[int], vocab_sizes: list[int]) -> None:
        self.counts = counts
        self.words_touched = words_touched
        self.vocab_sizes = vocab_sizes

    def __len__(self) -> int:
        return len(self.counts)

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "counts": list[JsonValue](self.counts),
            "words_touched": list[JsonValue](self.words_touched),
            "vocab_sizes": list[JsonValue](self.vocab_sizes),
        }

    @staticmethod
    def from_dict(data: object) -> MergeHistory:
        if not isinstance(data, dict):
            raise SchemaError("merge history: expected an object")
        columns: list[list[int]] = []
        for name in ("counts", "words_touched", "vocab_sizes"):
            column = data.get(name)
            if not isinstance(column, list):
                raise SchemaError(f"merge history: missing field '{name}'")
            values: list[int] = []
            for value in column:
                if isinstance(value, bool) or not isinstance(value, int):
                    raise SchemaError(f"merge history: '{name}' must hold integers")
                values.append(value)
            columns.append(values)
        if len(columns[1]) != len(columns[0]) or len(columns[2]) != len(columns[0]):
            raise SchemaError("merge history: columns of different lengths")
        return MergeHistory(columns[0], columns[1], columns[2])
