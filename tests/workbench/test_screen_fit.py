"""The window at 150 % scaling on a 1600×1000 screen (1067×667 device-independent pixels): it
opens within the screen's available area, and every button of the Train tab is in sight or
reachable by a scroll bar. The screen is the offscreen platform's, so each case runs in a child
Python (a QApplication's screens are fixed when it starts)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TypedDict

from PySide6.QtCore import QRect, QSize

from support import ROOT
from workbench.window.screen import fitted_size

PROBE = r'''
import json, sys
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QAbstractButton, QScrollArea
from workbench.window.app import application
app = application()
from workbench.window.main_window import MainWindow
from workbench.window.prompts import ScriptedPrompts
from workbench.core.settings import Settings

window = MainWindow(Settings(), ScriptedPrompts(save_changes="discard"))
window.show()
window.open_sample()
window.tabs.setCurrentWidget(window.train_tab)
app.processEvents()
area = window.screen().availableGeometry()
found = {"area": [area.width(), area.height()], "frame": window.frameGeometry().getRect(), "size": [window.width(), window.height()], "unreachable": [], "buttons": 0}
for page in range(window.train_tab.modes.count()):
    window.train_tab.modes.setCurrentIndex(page)
    app.processEvents()
    for button in window.train_tab.findChildren(QAbstractButton):
        if not button.isVisibleTo(window) or button.parent().metaObject().className() == "QTabBar":
            continue
        found["buttons"] += 1
        # scroll every scroll area it is in to it, innermost first
        parent = button.parentWidget()
        while parent is not None:
            if isinstance(parent, QScrollArea):
                parent.ensureWidgetVisible(button, 0, 0)
                app.processEvents()
            parent = parent.parentWidget()
        shown = button.visibleRegion().boundingRect()
        where = QRect(button.mapTo(window, QPoint(0, 0)), button.size())
        if shown != button.rect() or not window.rect().contains(where):
            found["unreachable"].append(f"{button.text() or button.objectName()} on page {page}: shows {shown.getRect()} of {button.rect().getRect()}")
window.shutdown()
print(json.dumps(found))
'''


class Found(TypedDict):
    """What PROBE prints: the available area, the window's frame (x, y, width, height) and size,
    the Train tab's buttons out of reach and how many buttons there are."""

    area: list[int]
    frame: list[int]
    size: list[int]
    unreachable: list[str]
    buttons: int


def probe(tmp_path: Path, width: int, height: int, scale: str) -> Found:
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"screens": [{"name": "probe", "x": 0, "y": 0, "width": width, "height": height, "logicalDpi": 96, "dpr": 1}]}))
    environment = dict(os.environ)
    environment.update({
        "QT_QPA_PLATFORM": f"offscreen:configfile={config}",
        "QT_SCALE_FACTOR": scale,
        "TOKENIZER_WORKBENCH_HOME": str(tmp_path / "home"),
    })
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=environment, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    found: Found = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def test_the_window_fits_a_small_screen_at_150_percent_and_the_train_tab_scrolls(tmp_path: Path) -> None:
    found = probe(tmp_path, 1600, 1000, "1.5")
    assert found["area"] == [1067, 667]
    x, y, width, height = found["frame"]
    assert 0 <= x and 0 <= y and x + width <= 1067 and y + height <= 667
    assert found["size"] == [1051, 627]
    assert found["unreachable"] == [] and found["buttons"] >= 8, found


def test_the_window_keeps_its_size_on_a_large_screen(tmp_path: Path) -> None:
    found = probe(tmp_path, 2560, 1440, "1")
    assert found["size"] == [1400, 900] and found["unreachable"] == []


def test_fitted_size_keeps_room_for_the_frame() -> None:
    assert fitted_size(QSize(1400, 900), QRect(0, 0, 1067, 667)) == QSize(1051, 627)
    assert fitted_size(QSize(1400, 900), QRect(0, 0, 2560, 1400)) == QSize(1400, 900)
