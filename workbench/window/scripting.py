"""The window driven by a script instead of a user (the screenshots, the self-test): run its
event loop until something is ready, or for a while so that it redraws."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QApplication


def run_until(ready: Callable[[], bool], timeout_s: float) -> bool:
    """Let the window run until `ready()`; False when `timeout_s` passed first."""
    end = time.monotonic() + timeout_s
    while not ready():
        if time.monotonic() > end:
            return False
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        time.sleep(0.01)
    return True


def settle(seconds: float) -> None:
    """Let the window run for `seconds` (plots redraw on a timer)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        time.sleep(0.02)
