"""Helpers for the window's tests (importable as `window_support`)."""

from __future__ import annotations

from PySide6.QtWidgets import QTableWidget
from pytestqt.qtbot import QtBot

from support import ROOT
from workbench.window.active_view import ActiveView
from workbench.window.main_window import MainWindow
from workbench.window.tabs.step_by_step import StepPanel
from workbench.window.views.vocab_model import VocabularyModel

SAMPLE = ROOT / "resources" / "sample" / "shakespeare.txt"
TRAINING_TIMEOUT_MS = 180_000


def train_and_wait(qtbot: QtBot, window: MainWindow) -> None:
    """Press Train and wait for the result to be stored, the training process to be gone and
    the rest of the view (merge trees, export checks) to come from the encoding process."""
    tab = window.train_tab
    with qtbot.waitSignal(tab.runner.finished, timeout=TRAINING_TIMEOUT_MS):
        tab.train_button.click()
    qtbot.waitUntil(tab.runner.is_idle, timeout=20_000)
    wait_for_view(qtbot, window)


def wait_for_view(qtbot: QtBot, window: MainWindow) -> ActiveView:
    """The active tokenizer's view, once the encoding process has built it (and read its
    stored history, and checked the export formats)."""

    def built() -> bool:
        view = window.document.view()
        return (
            view is not None
            and view.ready
            and view.history_ready
            and (not view.entry.is_trained or view.export_reasons is not None)
        )

    qtbot.waitUntil(built, timeout=60_000)
    view = window.document.view()
    assert view is not None
    return view


def shown_vocabulary(window: MainWindow) -> VocabularyModel:
    """The Vocabulary tab's table, as a user sees it on going there (a hidden tab is filled
    when shown); the tab that was in front comes back."""
    front = window.tabs.currentWidget()
    window.tabs.setCurrentWidget(window.vocab_tab)
    window.tabs.setCurrentWidget(front)
    return window.vocab_tab.model


def cell_text(table: QTableWidget, row: int, column: int) -> str:
    """The text of a cell the table must have (`item` is None where there is none)."""
    item = table.item(row, column)
    assert item is not None, f"no cell at row {row}, column {column}"
    return item.text()


def header_text(table: QTableWidget, column: int) -> str:
    """The text of a column header the table must have."""
    item = table.horizontalHeaderItem(column)
    assert item is not None, f"no header for column {column}"
    return item.text()


def step_and_wait(qtbot: QtBot, panel: StepPanel, count: int = 0) -> None:
    """Start the Step by Step session when there is none, make `count` steps, and wait until the
    Step by Step process has answered (it counts and steps outside the window)."""
    if count:
        panel.advance(count)
    elif panel.started is None and not panel.is_stepping():
        panel.start()
    qtbot.waitUntil(lambda: panel.started is not None and not panel.is_stepping(), timeout=60_000)
