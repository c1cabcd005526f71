"""`Heading`: a bold title over a widget (the plots and tables of the Train and Step by Step
tabs); `say`: a status line's text, red when it tells of an error.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from workbench.core.formatting import ERROR_STYLE


def say(label: QLabel, text: str, error: bool = False) -> None:
    """Put `text` on a status line, in the error colour for an `error`."""
    label.setText(text)
    label.setStyleSheet(ERROR_STYLE if error else "")


class Heading(QWidget):
    """A bold title over a widget (plots and tables of the Train tab)."""

    def __init__(self, title: str, body: QWidget) -> None:
        super().__init__()
        self.label = label = QLabel(title)
        font = label.font()
        font.setBold(True)
        label.setFont(font)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(label)
        layout.addWidget(body)
