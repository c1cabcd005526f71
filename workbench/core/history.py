"""A stored training history as the window draws it: the arrays the encoding process makes of a
project's history part (`workbench.jobs.children.encoding.history_wire`), its merges made into `MergeStep`s only
when a table row shows one. No Qt here.
"""

from __future__ import annotations

import math
from typing import Any

from engine.trainers.records import MergeStep, RoundStep, TrainHistory
from workbench.core.packed import OnDemand


class ColumnSteps(OnDemand[MergeStep]):
    """A stored history's merges as a sequence, each `MergeStep` made when it is read: a table
    of 30,000 merges shows a screenful, so only those are ever made."""

    def __init__(self, columns: dict[str, Any]) -> None:
        self.columns = columns
        self._length = len(columns["index"]) if columns else 0

    def __len__(self) -> int:
        return self._length

    def _item(self, index: int) -> MergeStep:
        c = self.columns
        score = float(c["score"][index])
        left_count, right_count = int(c["left_count"][index]), int(c["right_count"][index])
        return MergeStep(
            int(c["index"][index]), c["left"][index], c["right"][index], c["new_token"][index], int(c["new_id"][index]),
            int(c["count"][index]), int(c["vocab_size"][index]), int(c["words_touched"][index]),
            None if math.isnan(score) else score, None if left_count < 0 else left_count,
            None if right_count < 0 else right_count, float(c["seconds"][index]),
        )  # fmt: skip


class HistoryColumns:
    """A stored history as the encoding process sends it (`workbench.jobs.children.encoding.history_wire`):
    arrays to plot, merges read on demand (`ColumnSteps`), rounds as records, and each merged
    token's count (`counts`, for the merge trees)."""

    def __init__(self, wire: dict[str, Any]) -> None:
        self.algorithm = str(wire.get("algorithm") or "unknown")
        self.score_name = str(wire.get("score_name") or "count")
        self.arrays: dict[str, Any] = dict(wire.get("merges") or {})
        self.merges = ColumnSteps(self.arrays)
        rounds = wire.get("rounds")
        self.rounds: list[RoundStep] = (
            TrainHistory.from_dict({"algorithm": self.algorithm, "rounds": rounds}).rounds if isinstance(rounds, dict) else []
        )
        self._counts: dict[str, int] | None = None

    @property
    def counts(self) -> dict[str, int]:
        """How often the pair that made each token occurred when it was merged (the last merge
        that made it; made when first asked for: a merge tree)."""
        if self._counts is None:
            arrays = self.arrays
            tokens, counts = arrays.get("new_token", ()), arrays.get("count", ())
            self._counts = {token: int(count) for token, count in zip(tokens, counts)}
        return self._counts
