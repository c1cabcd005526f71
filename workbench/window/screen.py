"""Where a window opens: within the screen's available area (taskbars and docks left out), at
any scaling (at 150 % a 1600×1000 screen has 1067×667 device-independent pixels).

`fit_to_screen(window, 1400, 900)` sizes and centres a top-level window; no Qt object is kept.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QWidget

# Room kept for the window frame (title bar, borders) that the window manager adds around the
# window: before the window is shown, Qt cannot know it.
FRAME_ROOM: Final = QSize(16, 40)


def fitted_size(wanted: QSize, area: QRect, frame: QSize = FRAME_ROOM) -> QSize:
    """`wanted`, made smaller where the area (less the frame) is smaller:
    1400×900 in a 1067×667 area -> 1051×627."""
    return QSize(min(wanted.width(), area.width() - frame.width()), min(wanted.height(), area.height() - frame.height()))


def fit_to_screen(window: QWidget, width: int, height: int) -> None:
    """Size `window` to width×height, or less where its screen's available area is smaller,
    and centre it there. The window's minimum size wins over the screen: its widgets must
    scroll or wrap to let it shrink (see TrainTab)."""
    area = window.screen().availableGeometry()  # (the primary screen until the window is shown)
    size = fitted_size(QSize(width, height), area)
    window.resize(size)
    frame = FRAME_ROOM
    left = area.x() + max((area.width() - size.width() - frame.width()) // 2, 0)
    top = area.y() + max((area.height() - size.height() - frame.height()) // 2, 0)
    window.move(left, top)
