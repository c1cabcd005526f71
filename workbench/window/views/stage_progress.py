"""A training's progress as the Train tab shows it: one bar per stage (counting, merging, EM
rounds...) with its rate and time left, drawn from the engine's `TrainProgress` records.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QGridLayout, QLabel, QProgressBar, QSizePolicy, QStyle, QStyleOptionProgressBar, QWidget

from engine.progress import TrainProgress
from workbench.core.formatting import BYTE_UNITS, duration, quantity


class StageBar(QWidget):
    """A progress bar drawn as the style draws QProgressBar, that only ever asks for a repaint.

    subtle: QProgressBar.setValue repaints at once (to look smooth), and an immediate repaint
    also paints whatever else waits to be painted, the plots included: 100 updates a stage made
    the window stall for up to a second. This one is painted with the next frame."""

    def __init__(self) -> None:
        super().__init__()
        self.permille = 0
        self.text = "0%"
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(200, BAR_HEIGHT[0] if BAR_HEIGHT else QProgressBar().sizeHint().height())

    def set_progress(self, permille: int, text: str) -> None:
        if permille != self.permille or text != self.text:
            self.permille, self.text = permille, text
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        option = QStyleOptionProgressBar()
        option.initFrom(self)
        option.minimum, option.maximum, option.progress = 0, 1000, self.permille
        option.text, option.textVisible = self.text, True
        option.textAlignment = Qt.AlignmentFlag.AlignCenter
        painter = QPainter(self)
        self.style().drawControl(QStyle.ControlElement.CE_ProgressBar, option, painter, self)
        painter.end()


# The height of a progress bar in the style in use (measured once, on first use).
BAR_HEIGHT: list[int] = []


class _StageRow:
    def __init__(self, stage: str, now: float) -> None:
        self.label = QLabel(stage)
        self.bar = StageBar()
        self.detail = QLabel()
        # (a longer text must not lay the tab out again, plots and all: it is cut instead)
        self.detail.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.first_time = now
        self.first_current = -1
        self.last: TrainProgress | None = None


# Room is kept for this many stages, so a new stage never resizes (and repaints) the plots below.
STAGE_ROWS: Final = 7


class StageProgress(QWidget):
    """One progress bar per stage, in the order stages start: "Compute merges 45% · 3,400 /
    7,500 merges · 1,200/s · 3 s left · ing".

    `clock` gives the seconds that rates and times are measured in: the training runner's, which
    stand still while a training is paused (time.monotonic by default)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.clock = clock
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setColumnStretch(1, 1)
        self.grid.setRowStretch(STAGE_ROWS, 1)
        if not BAR_HEIGHT:
            BAR_HEIGHT.append(QProgressBar().sizeHint().height())
        row_height = max(BAR_HEIGHT[0], self.fontMetrics().height()) + self.grid.verticalSpacing() + 2
        self.setFixedHeight(STAGE_ROWS * row_height)
        self.rows: dict[str, _StageRow] = {}
        self.hint = QLabel("The progress of each stage of a training shows here: reading, counting, merging.")
        self.hint.setEnabled(False)
        self.grid.addWidget(self.hint, 0, 0, 1, 3)

    def clear(self) -> None:
        for row in self.rows.values():
            for widget in (row.label, row.bar, row.detail):
                self.grid.removeWidget(widget)
                widget.deleteLater()
        self.rows = {}
        self.hint.show()

    def update_stage(self, event: TrainProgress) -> None:
        now = self.clock()
        row = self.rows.get(event.stage)
        if row is None:
            row = _StageRow(event.stage, now)
            index = len(self.rows)
            self.grid.addWidget(row.label, index, 0)
            self.grid.addWidget(row.bar, index, 1)
            self.grid.addWidget(row.detail, index, 2)
            self.rows[event.stage] = row
            self.hint.hide()
        if row.first_current < 0:
            row.first_current = event.current
            row.first_time = now
        row.last = event
        total = max(event.total, 1)
        row.bar.set_progress(int(1000 * min(event.current, total) / total), f"{100 * event.fraction:.0f}%")
        parts = [f"{quantity(event.current, event.unit)} / {quantity(event.total, event.unit)} {'' if event.unit in BYTE_UNITS else event.unit}".rstrip()]
        elapsed = now - row.first_time
        done = event.current - row.first_current
        if elapsed > 0.2 and done > 0 and event.current < event.total:
            rate = done / elapsed
            parts.append(f"{quantity(rate, event.unit)}/s")
            parts.append(f"{duration((event.total - event.current) / rate)} left")
        elif event.total > 0 and event.current >= event.total:
            parts.append(f"done in {duration(max(elapsed, 0.0), tenths=True)}")
        if event.detail:
            # (a merge's detail is the newest token; another stage's says what it is doing)
            parts.append(f"newest: {event.detail!r}" if event.unit == "merges" else event.detail)
        row.detail.setText(" · ".join(parts))

    def stages(self) -> list[str]:
        return list(self.rows)
