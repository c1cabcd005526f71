"""How long work reports progress: `TrainProgress` records sent to a sink, which may ask to stop.

Trainers and the corpus reader call `report(sink, ...)` at stage changes and about every 1% of
the work (`report_every`), never per pair. No printing here except the plain-text sink for scripts.
"""

from __future__ import annotations

import sys
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Final, TextIO

from mypy_extensions import mypyc_attr

from engine.errors import TrainingCancelled
from engine.schema import JsonValue, expect_object, get_count, get_str

# Stage names, as HF's progress bars and JSON lines call them.
STAGE_READ: Final = "Pre-processing files"
STAGE_TOKENIZE_WORDS: Final = "Tokenize words"
STAGE_COUNT_PAIRS: Final = "Count pairs"
STAGE_COMPUTE_MERGES: Final = "Compute merges"
STAGE_COUNT_WORDS: Final = "Count words"
STAGE_SORT_WORDS: Final = "Sort words"

# Long stages report about this many times.
REPORTS_PER_STAGE: Final = 100


@dataclass(frozen=True)
class TrainProgress:
    """Where a long job stands: `current` of `total` units of `stage` (`unit` says what they are).

    `detail` is free text for a human (BPE: the newest token). `to_dict()` is its wire form.
    """

    stage: str
    current: int
    total: int
    unit: str = ""
    detail: str = ""

    @property
    def fraction(self) -> float:
        return self.current / self.total if self.total > 0 else 0.0

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "stage": self.stage,
            "current": self.current,
            "total": self.total,
            "unit": self.unit,
            "detail": self.detail,
        }

    @staticmethod
    def from_dict(data: object) -> TrainProgress:
        where = "progress"
        obj = expect_object(data, where)
        return TrainProgress(
            get_str(obj, "stage", where),
            get_count(obj, "current", where),
            get_count(obj, "total", where),
            get_str(obj, "unit", where, ""),
            get_str(obj, "detail", where, ""),
        )

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # subtle: mypyc-compiled frozen dataclasses do not unpickle through pickle's default
        # path (it sets fields one by one); rebuilding through the constructor does.
        return (TrainProgress, (self.stage, self.current, self.total, self.unit, self.detail))


@mypyc_attr(allow_interpreted_subclasses=True)
class ProgressSink(ABC):
    """Receives progress records. `report` returns False to ask the job to stop."""

    @abstractmethod
    def report(self, event: TrainProgress) -> bool: ...


class SilentProgress(ProgressSink):
    """Ignores everything and never stops the job."""

    def report(self, event: TrainProgress) -> bool:
        return True


class TextProgress(ProgressSink):
    """A plain-text progress line on a stream (stderr by default) for scripts without a UI."""

    stream: TextIO
    started: float
    stage: str

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.started = time.monotonic()
        self.stage = ""

    def report(self, event: TrainProgress) -> bool:
        if event.stage != self.stage and self.stage:
            self.stream.write("\n")
        self.stage = event.stage
        elapsed = time.monotonic() - self.started
        self.stream.write(
            f"\r[{elapsed:7.1f}s] {event.stage:<22} {event.current:>10,}/{event.total:<10,} {event.unit}"
        )
        if event.total > 0 and event.current >= event.total:
            self.stream.write("\n")
            self.stage = ""
        self.stream.flush()
        return True


def report(sink: ProgressSink, stage: str, current: int, total: int, unit: str, detail: str = "") -> None:
    """Send one progress record; raise TrainingCancelled when the sink asks to stop."""
    if not sink.report(TrainProgress(stage, current, total, unit, detail)):
        raise TrainingCancelled(f"cancelled during '{stage}'")


def report_every(total: int) -> int:
    """How many units between two reports so that a stage reports about 100 times: 1000 -> 10."""
    every = (total + REPORTS_PER_STAGE - 1) // REPORTS_PER_STAGE
    return every if every > 0 else 1
