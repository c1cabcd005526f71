"""The application: `QApplication` set-up (style, theme, font) and `run_window`, what
`tokenizer-workbench [FILE]` and `python -m workbench` run.

What opens: FILE when given (a project, or a tokenizer file to inspect), else the project the
user had open last, else the sample project shipped in resources/ (so a newcomer can press Train
at once). An autosaved project left by a crash is offered back first.
"""

from __future__ import annotations

import gc
import multiprocessing
import sys
from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from workbench.settings import Settings

APP_TITLE: Final = "Tokenizer Workbench"
ORGANIZATION: Final = "tokenizer-workbench"


def application(argv: list[str] | None = None) -> QApplication:
    """The process's QApplication, made once with the workbench's name and style."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName(APP_TITLE)
    app.setApplicationDisplayName(APP_TITLE)
    app.setOrganizationName(ORGANIZATION)
    app.setStyle("Fusion")
    return app


# (role, light colour, dark colour) of the palettes the View menu's Light and Dark choose.
PALETTE: Final = (
    (QPalette.ColorRole.Window, "#efefef", "#2b2b2b"),
    (QPalette.ColorRole.WindowText, "#1e1e1e", "#e6e6e6"),
    # subtle: Fusion draws a check box's frame a little darker than the window; a base darker
    # than that would hide unticked boxes in the dark palette.
    (QPalette.ColorRole.Base, "#ffffff", "#363636"),
    (QPalette.ColorRole.AlternateBase, "#f5f5f5", "#3d3d3d"),
    (QPalette.ColorRole.Text, "#1e1e1e", "#e6e6e6"),
    (QPalette.ColorRole.Button, "#efefef", "#353535"),
    (QPalette.ColorRole.ButtonText, "#1e1e1e", "#e6e6e6"),
    (QPalette.ColorRole.ToolTipBase, "#ffffdc", "#3c3c3c"),
    (QPalette.ColorRole.ToolTipText, "#1e1e1e", "#e6e6e6"),
    (QPalette.ColorRole.PlaceholderText, "#7f7f7f", "#8a8a8a"),
    (QPalette.ColorRole.Highlight, "#308cc6", "#2f7fbf"),
    (QPalette.ColorRole.HighlightedText, "#ffffff", "#ffffff"),
    (QPalette.ColorRole.Link, "#0b62c4", "#6cb4ff"),
)


def theme_palette(dark: bool) -> QPalette:
    """The Light or Dark palette (disabled text greyed in both)."""
    palette = QPalette()
    for role, light, dim in PALETTE:
        palette.setColor(role, QColor(dim if dark else light))
    grey = QColor("#7f7f7f")
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, grey)
    return palette


def apply_appearance(settings: Settings) -> None:
    """The theme (light, dark, or the system's) and the font size from `settings`.

    The system's choice is followed through Qt's colour scheme; an explicit Light or Dark also
    sets the palette, as not every platform applies a colour scheme by itself.
    """
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return
    scheme = {
        "light": Qt.ColorScheme.Light,
        "dark": Qt.ColorScheme.Dark,
    }.get(settings.theme, Qt.ColorScheme.Unknown)
    QGuiApplication.styleHints().setColorScheme(scheme)
    if settings.theme in ("light", "dark"):
        app.setPalette(theme_palette(settings.theme == "dark"))
    else:
        app.setPalette(app.style().standardPalette())
    font = QFont(app.font())
    base = _platform_point_size()
    font.setPointSizeF(float(settings.font_size) if settings.font_size > 0 else base)
    app.setFont(font)


_BASE_POINT_SIZE: list[float] = []


def _platform_point_size() -> float:
    # The size the platform gave us before any change, remembered once.
    if not _BASE_POINT_SIZE:
        size = QApplication.font().pointSizeF()
        _BASE_POINT_SIZE.append(size if size > 0 else 10.0)
    return _BASE_POINT_SIZE[0]


def run_window(path: str | None = None) -> int:
    """Open the main window (on `path` when given) and run until it closes."""
    multiprocessing.freeze_support()
    app = application()
    settings = Settings.load()
    apply_appearance(settings)
    from workbench.main_window import MainWindow

    window = MainWindow(settings)
    window.encode_service.start()  # (it imports the engine while the window is drawn)
    window.show()
    window.open_at_start(path)
    settle_memory()
    return app.exec()


def settle_memory() -> None:
    """Exclude everything made at start-up (Qt wrappers, modules, the window) from the cyclic
    garbage collector's scans: a full scan of them during a training would pause the window
    for tens of milliseconds, and they live as long as the window anyway."""
    gc.collect()
    gc.freeze()
