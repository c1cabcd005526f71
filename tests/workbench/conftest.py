"""Fixtures for the window's tests: a main window with scripted dialogs, and a small corpus."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from window_support import SAMPLE
from workbench.window.main_window import MainWindow
from workbench.window.prompts import ScriptedPrompts
from workbench.core.settings import Settings


@pytest.fixture
def prompts() -> ScriptedPrompts:
    return ScriptedPrompts(save_changes="discard")


@pytest.fixture
def window(qtbot: QtBot, prompts: ScriptedPrompts) -> Iterator[MainWindow]:
    """A main window on an empty project; dialogs answered by `prompts`."""
    main = MainWindow(Settings(), prompts)
    qtbot.addWidget(main)
    main.show()  # offscreen: the tabs that work only while visible (Encode, Compare) do
    yield main
    main.shutdown()
    qtbot.waitUntil(main.train_tab.runner.is_idle, timeout=20_000)


@pytest.fixture
def small_corpus(tmp_path: Path) -> Path:
    """The first 2,000 lines of the shipped sample: trains in about a second."""
    path = tmp_path / "small.txt"
    lines = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)[:2000]
    path.write_text("".join(lines), encoding="utf-8")
    return path
