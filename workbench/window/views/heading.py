"""`Heading`: a bold title over a widget (the plots and tables of the Train and Step by Step
tabs).
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget


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
