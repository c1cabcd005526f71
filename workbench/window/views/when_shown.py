"""`WhenShown`: a view's refresh, run now when the view can be seen, else once when it is next
shown. It does not decide what a refresh draws, nor delay a view that can be seen.

A tab hidden behind another in a window that is shown then costs nothing while the project
changes: storing a big training's result no longer redraws four tabs in the same moment (the
hand-over's longest pause was 47-72 ms, most of it tabs nobody saw).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget


def hidden_in_shown_window(widget: QWidget) -> bool:
    """Whether nobody can see `widget` although its window is shown (another tab is in front).
    A window never shown (a script, a test) draws everything at once."""
    return not widget.isVisible() and widget.window().isVisible()


class WhenShown(QObject):
    """`request()` runs `refresh` at once unless `view` is hidden in a shown window; then it runs
    once, just before the view is next painted, however many requests came meanwhile. Work that
    the refresh would redo anyway asks `put_off()` first.

    `soon_ms`: a refresh that waits also runs that long after the last request, in a turn of the
    event loop of its own, so that showing the view then only paints it. For a refresh that asks
    nothing of another process (filling a table the window holds already)."""

    def __init__(self, view: QWidget, refresh: Callable[[], None], soon_ms: int | None = None) -> None:
        super().__init__(view)
        self._view = view
        self._refresh = refresh
        self.waiting = False
        self._soon: QTimer | None = None
        if soon_ms is not None:
            self._soon = QTimer(self)
            self._soon.setSingleShot(True)
            self._soon.setInterval(soon_ms)
            self._soon.timeout.connect(self.flush)
        view.installEventFilter(self)

    def request(self) -> None:
        if hidden_in_shown_window(self._view):
            self._wait()
            return
        self._stop_waiting()
        self._refresh()

    def put_off(self) -> bool:
        """Whether work for the view waits until it is shown (the refresh then runs, once);
        a refresh that waits for a view now seen runs first."""
        if hidden_in_shown_window(self._view):
            self._wait()
            return True
        self.flush()
        return False

    def wait(self) -> None:
        """Run the refresh when the view is next shown, whatever its window (what the refresh
        asks for is wanted only once the view is seen)."""
        self.waiting = True

    def flush(self) -> None:
        """Run a refresh that waits now (before something reads what the view shows)."""
        if self.waiting:
            self._stop_waiting()
            self._refresh()

    def _wait(self) -> None:
        self.waiting = True
        if self._soon is not None:
            self._soon.start()

    def _stop_waiting(self) -> None:
        self.waiting = False
        if self._soon is not None:
            self._soon.stop()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if watched is self._view and event.type() == QEvent.Type.Show:
            self.flush()
        return False
