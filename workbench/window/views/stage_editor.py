"""`StageEditor` and `NormalizerList`: the editors of one stage of the pipeline in the Train
tab's form, a choice of component (or, for the normalizers, a ticked and ordered list of them)
and its options as the JSON fields tokenizer.json gives them, with the engine's objection under.

One stage each: the form that holds the stages and checks them together is `PipelineForm`; the
trainer's fields are `TrainerFields`.
"""

from __future__ import annotations

import json
from typing import Final

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from engine.schema import JsonValue
from workbench.core.components import NORMALIZERS
from workbench.core.formatting import ERROR_STYLE

NONE: Final = "(none)"


class OptionsEdit(QPlainTextEdit):
    """A component's options as JSON: wraps over up to three lines; `editingFinished` when it
    loses the focus after a change (a QLineEdit would hide most of a model's options)."""

    editingFinished = Signal()

    def __init__(self, placeholder: str) -> None:
        super().__init__()
        self.setPlaceholderText(placeholder)
        self.setTabChangesFocus(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        lines = 3
        height = self.fontMetrics().lineSpacing() * lines + 2 * (self.frameWidth() + int(self.document().documentMargin()))
        self.setFixedHeight(height)
        self._changed = False
        self.textChanged.connect(self._on_text_changed)

    def text(self) -> str:
        return self.toPlainText()

    def setText(self, text: str) -> None:  # noqa: N802 - QLineEdit's name, so both read alike
        self.blockSignals(True)
        self.setPlainText(text)
        self.blockSignals(False)
        self._changed = False

    def _on_text_changed(self) -> None:
        self._changed = True

    def focusOutEvent(self, event: QFocusEvent) -> None:  # noqa: N802
        super().focusOutEvent(event)
        if self._changed:
            self._changed = False
            self.editingFinished.emit()


def error_label() -> QLabel:
    """Where the engine's objection to a stage's settings is shown (hidden while there is none)."""
    label = QLabel()
    label.setWordWrap(True)
    label.setStyleSheet(ERROR_STYLE)
    label.hide()
    return label


def options_text(data: dict[str, JsonValue]) -> str:
    """A component's fields other than "type", as one line of JSON."""
    return json.dumps({k: v for k, v in data.items() if k != "type"}, ensure_ascii=False)


class StageEditor(QWidget):
    """One stage: which component, and its options as JSON; an error line under them."""

    edited = Signal()

    def __init__(self, catalogue: dict[str, dict[str, JsonValue]], allow_none: bool = True) -> None:
        super().__init__()
        self.catalogue = dict(catalogue)
        self.combo = QComboBox()
        self.allow_none = allow_none
        if allow_none:
            self.combo.addItem(NONE)
        for name in self.catalogue:
            self.combo.addItem(name)
        self.options = OptionsEdit("options (JSON)")
        self.error = error_label()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.combo)
        layout.addWidget(self.options)
        layout.addWidget(self.error)
        self.combo.currentTextChanged.connect(self._on_combo_changed)
        self.options.editingFinished.connect(self.edited.emit)

    def set_component(self, data: object) -> None:
        """Show `data` (a tokenizer.json object or None); an unknown type joins the choices."""
        self.combo.blockSignals(True)
        if not isinstance(data, dict):
            self.combo.setCurrentText(NONE if self.allow_none else self.combo.itemText(0))
            self.options.setText("")
        else:
            kind = str(data.get("type", "?"))
            if kind not in self.catalogue:
                self.catalogue[kind] = data
                self.combo.addItem(kind)
            self.combo.setCurrentText(kind)
            self.options.setText(options_text(data))
        self._enable_options()
        self.combo.blockSignals(False)

    def component(self) -> dict[str, JsonValue] | None:
        """The chosen component's object; ValueError when the options are not a JSON object."""
        kind = self.combo.currentText()
        if kind == NONE:
            return None
        text = self.options.text().strip() or "{}"
        try:
            fields = json.loads(text)
        except ValueError as error:
            raise ValueError(f"the options are not valid JSON: {error}") from None
        if not isinstance(fields, dict):
            raise ValueError('the options must be a JSON object, like {"lowercase": true}')
        data: dict[str, JsonValue] = {"type": kind}
        data.update(fields)
        return data

    def show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.setVisible(bool(message))

    def _on_combo_changed(self, kind: str) -> None:
        data = self.catalogue.get(kind)
        self.options.setText(options_text(data) if data is not None else "")
        self._enable_options()
        self.edited.emit()

    def _enable_options(self) -> None:
        """Options to edit only for a component that has some."""
        data = self.catalogue.get(self.combo.currentText())
        has_options = data is not None and len(data) > 1
        self.options.setEnabled(has_options)
        self.options.setPlaceholderText("options (JSON)" if has_options else "no options")
        if not has_options:
            self.options.setText("")


class NormalizerList(QWidget):
    """The normalizers, in order: tick the ones to use, drag to reorder; the selected one's
    options below."""

    edited = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.list = QListWidget()
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.list.setFixedHeight(self.list.fontMetrics().height() * 8)
        self.options = OptionsEdit("options of the selected normalizer (JSON)")
        self.error = error_label()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        hint = QLabel("Tick to use; drag to reorder.")
        hint.setEnabled(False)
        layout.addWidget(hint)
        layout.addWidget(self.list)
        layout.addWidget(self.options)
        layout.addWidget(self.error)
        self.list.itemChanged.connect(self._on_list_item_changed)
        self.list.currentItemChanged.connect(self._on_list_current_changed)
        self.list.model().rowsMoved.connect(self._on_list_rows_moved)
        self.options.editingFinished.connect(self._on_options_edited)

    def set_normalizer(self, data: object) -> None:
        used: list[dict[str, JsonValue]] = []
        if isinstance(data, dict):
            if data.get("type") == "Sequence" and isinstance(data.get("normalizers"), list):
                listed = data["normalizers"]
                used = [item for item in listed if isinstance(item, dict)] if isinstance(listed, list) else []
            else:
                used = [data]
        self.list.blockSignals(True)
        self.list.clear()
        seen: set[str] = set()
        for item in used:
            self._add(item, True)
            seen.add(str(item.get("type")))
        for kind, default in NORMALIZERS.items():
            if kind not in seen:
                self._add(default, False)
        self.list.blockSignals(False)
        self.list.setCurrentRow(-1)
        self.options.setText("")
        self.options.setEnabled(False)

    def _add(self, data: dict[str, JsonValue], checked: bool) -> None:
        item = QListWidgetItem(str(data.get("type")))
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsDragEnabled)
        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsDropEnabled)
        item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        item.setData(Qt.ItemDataRole.UserRole, json.dumps(data, ensure_ascii=False))
        self.list.addItem(item)

    def normalizer(self) -> dict[str, JsonValue] | None:
        used: list[JsonValue] = []
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item.checkState() == Qt.CheckState.Checked:
                used.append(json.loads(item.data(Qt.ItemDataRole.UserRole)))
        if not used:
            return None
        if len(used) == 1 and isinstance(used[0], dict):
            return used[0]
        return {"type": "Sequence", "normalizers": used}

    def show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.setVisible(bool(message))

    def _on_list_current_changed(self, current: QListWidgetItem | None, previous: QListWidgetItem | None) -> None:
        if current is None:
            self.options.setText("")
            return
        data = json.loads(current.data(Qt.ItemDataRole.UserRole))
        self.options.setText(options_text(data))
        self.options.setEnabled(len(data) > 1)

    def _on_options_edited(self) -> None:
        item: QListWidgetItem | None = self.list.currentItem()
        if item is None:
            return
        try:
            fields = json.loads(self.options.text().strip() or "{}")
            if not isinstance(fields, dict):
                raise ValueError("the options must be a JSON object")
        except ValueError as error:
            self.show_error(f"{item.text()}: {error}")
            return
        data: dict[str, JsonValue] = {"type": item.text()}
        data.update(fields)
        item.setData(Qt.ItemDataRole.UserRole, json.dumps(data, ensure_ascii=False))
        self.edited.emit()

    def _on_list_item_changed(self, item: QListWidgetItem) -> None:
        self.edited.emit()

    def _on_list_rows_moved(self) -> None:
        self.edited.emit()
