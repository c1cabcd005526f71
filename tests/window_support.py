"""Helpers for the window's tests (importable as `window_support`)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from support import ROOT
from workbench.main_window import MainWindow

SAMPLE = ROOT / "resources" / "sample" / "shakespeare.txt"
TRAINING_TIMEOUT_MS = 180_000


def train_and_wait(qtbot: QtBot, window: MainWindow) -> None:
    """Press Train and wait for the result to be stored and the training process to be gone."""
    tab = window.train_tab
    with qtbot.waitSignal(tab.runner.finished, timeout=TRAINING_TIMEOUT_MS):
        tab.train_button.click()
    qtbot.waitUntil(tab.runner.is_idle, timeout=20_000)
