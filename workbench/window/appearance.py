"""The window's appearance: the QApplication with the workbench's name, icon and style
(`application`), and the theme and font size the View menu chooses (`apply_appearance`).
Both the window (`workbench.window.app`, `main_window`) and the screenshots use them."""

from __future__ import annotations

import sys
from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QApplication

from workbench.core import desktop_entry, shipped
from workbench.core.settings import Settings

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
    app.setDesktopFileName(desktop_entry.NAME)  # (ties the window to its entry and icon)
    app.setWindowIcon(application_icon())
    app.setStyle("Fusion")
    return app


def application_icon() -> QIcon:
    """The workbench's icon, every size shipped (the title bar, the task switcher and About
    pick the one they need)."""
    icon = QIcon()
    for size in desktop_entry.ICON_SIZES:
        icon.addFile(str(shipped.resource("icons", f"{desktop_entry.NAME}-{size}.png")))
    return icon


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
