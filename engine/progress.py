"""How long work reports progress: small immutable records sent to a sink, which may ask to stop.

Trainers and the corpus reader call `sink.report(...)` at stage changes and about every 1% of
the work, never per pair. No printing here except the optional plain-text sink for scripts.
"""

from __future__ import annotations

import sys
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Final, TextIO

from mypy_extensions import mypyc_attr

# Stage names, as HF's progress bars and JSON lines call them.
STAGE_READ: Final = "Pre-processing files"
STAGE_TOKENIZE_WORDS: Final = "Tokenize words"
STAGE_COUNT_PAIRS: Final = "Count pairs"
STAGE_COMPUTE_MERGES: Final = "Compute merges"
STAGE_COUNT_WORDS: Final = "Count words"


@dataclass(frozen=True)
class TrainProgress:
    """Where a long job stands: `current` of `total` units of `stage` (`unit` says what they are)."""

    stage: str
    current: int
    total: int
    unit: str = ""
    detail: str = ""

    @property
    def fraction(self) -> float:
        return self.current / self.total if self.total > 0 else 0.0


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
