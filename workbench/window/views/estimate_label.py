"""`EstimateLabel`: what a training is expected to cost (time, peak memory), made in a child
process a moment after the last change to what it depends on, and shown beside Train.

The label asks its owner what to estimate (`EstimateRequest`); it never reads the corpus
itself. A new request stops the child still making an older one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QWidget

from engine.analysis.estimate import TrainingEstimate
from workbench.jobs.children.estimate import estimate_from_fields, estimate_main
from workbench.jobs.runners.child_job import ChildJob

# How long after the last change the estimate is made (a burst of edits makes one).
ESTIMATE_DELAY_MS: Final = 300

# What to estimate: (a key naming everything the estimate depends on, the child's payload);
# an empty key, or no payload, when no training could start (nothing is shown then).
EstimateRequest = Callable[[], tuple[str, dict[str, object] | None]]


class EstimateLabel(QLabel):
    """`Estimate: ~40 s, 1.2 GB` (its tooltip says how it was made); `estimate` is the one
    shown, None while a new one is made."""

    def __init__(self, request: EstimateRequest, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._request = request
        self.estimate: TrainingEstimate | None = None
        # what the estimate shown (or on its way) was asked for
        self.wanted = ""
        # (a child process: the estimate runs the pipeline's regexes on the corpus)
        self.job = ChildJob("estimate", self)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(ESTIMATE_DELAY_MS)
        self._timer.timeout.connect(self.start_now)
        self.job.finished.connect(self._on_job_finished)
        self.job.failed.connect(self._on_job_failed)

    def refresh(self) -> None:
        """Remake the estimate soon (after the last of a burst of changes)."""
        self._timer.start()

    def current(self, key: str) -> TrainingEstimate | None:
        """The estimate shown, if it was made for `key`."""
        return self.estimate if key and key == self.wanted else None

    def stop(self) -> None:
        self._timer.stop()
        self.job.kill()  # (its answer is dropped, and its counting processes stopped)

    def start_now(self) -> None:
        """Make the estimate now (unless the one shown, or on its way, is for the same request)."""
        key, payload = self._request()
        if key == self.wanted:
            return  # asked for already (answered, or on its way)
        self.wanted = key
        self.estimate = None
        self.job.kill()  # (an answer still on its way is for other settings)
        if not key or payload is None:
            self._show(None, "")
            return
        self.setText("Estimate: …")
        self.setToolTip("Estimating the time and memory of a training from a sample of the corpus")
        self.job.start(estimate_main, payload)

    def _on_job_finished(self, fields: object) -> None:
        try:
            estimate = estimate_from_fields(fields)
        except ValueError:
            self._show(None, "the estimate could not be read")
            return
        self._show(estimate, "")

    def _on_job_failed(self, message: str) -> None:
        self._show(None, message)

    def _show(self, estimate: TrainingEstimate | None, problem: str) -> None:
        self.estimate = estimate
        if estimate is not None:
            self.setText(f"Estimate: {estimate.short()}")
            self.setToolTip(
                f"A training is expected to take {estimate.describe()}.\n"
                f"Made by {estimate.method}; expect up to about twice or half of it."
            )
        else:
            self.setText("Estimate: not available" if problem else "")
            self.setToolTip(problem)
