"""The Project panel's corpus table: `CorpusModel`, the project's corpus files as rows (name, text
field, size, lines, the check's verdict); `FieldDelegate`, the Field cell's list of a file's
text fields; and `CorpusView`, the table that takes dropped files and folders.

The table only: the panel around it adds, checks, locates and removes files, and the project
changes through `ProjectDocument`.
"""

from __future__ import annotations

import os
from typing import Final

from PySide6.QtCore import QAbstractItemModel, QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QComboBox, QStyledItemDelegate, QStyleOptionViewItem, QTableView, QWidget

from engine.errors import CorpusError
from engine.project.facts import CorpusFile
from workbench.core.corpus_text import window_problem
from workbench.core.formatting import ERROR_COLOR, human_size
from workbench.jobs.runners.file_checks import text_fields
from workbench.window.document import ProjectDocument

CORPUS_COLUMNS: Final = ("File", "Field", "Size", "Lines", "Check")
FILE_COLUMN: Final = 0
FIELD_COLUMN: Final = 1
SIZE_COLUMN: Final = 2
LINES_COLUMN: Final = 3
CHECK_COLUMN: Final = 4
# The absolute path of a row's file (any column).
PATH_ROLE: Final = int(Qt.ItemDataRole.UserRole)
Index = QModelIndex | QPersistentModelIndex


class CorpusModel(QAbstractTableModel):
    """The project's corpus files: name, text field (JSON Lines and Parquet/Arrow files; blank
    for the others), size, lines, and the check's verdict. Editing a Field cell emits
    `field_chosen(row, field)`; the project changes elsewhere. `checking` maps the files being
    checked again to the field they are checked with."""

    field_chosen = Signal(int, str)

    def __init__(self, document: ProjectDocument) -> None:
        super().__init__()
        self.document = document
        self.checking: dict[str, str] = {}
        # what the table shows of each file, as of its last reset
        self._shown: list[tuple[str, str, int, int, str, str]] = []
        document.changed.connect(self._on_document_changed)

    def has_fields(self) -> bool:
        """Whether any file has a text field to show (else the Field column is hidden)."""
        return any(item.takes_field for item in self.document.project.corpus)

    def flags(self, index: Index) -> Qt.ItemFlag:
        flags = super().flags(index)
        if index.isValid() and index.column() == FIELD_COLUMN and self.document.project.corpus[index.row()].takes_field:
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def setData(self, index: Index, value: object, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        if not index.isValid() or index.column() != FIELD_COLUMN or role != Qt.ItemDataRole.EditRole:
            return False
        field = str(value).strip() if value is not None else ""
        if not field:
            return False
        self.field_chosen.emit(index.row(), field)
        return True

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.document.project.corpus)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(CORPUS_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> object:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return CORPUS_COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        item = self.document.project.corpus[index.row()]
        column = index.column()
        if role == PATH_ROLE:
            return item.path
        if column == FIELD_COLUMN:
            return self._field_data(item, role)
        # (whether the file is still there is asked only where it is shown: a cell is asked
        # about seven roles each time it is painted)
        checking = item.path in self.checking
        if role == Qt.ItemDataRole.DisplayRole:
            if column == FILE_COLUMN:
                return item.name
            if column == SIZE_COLUMN:
                return human_size(item.size)
            if column == LINES_COLUMN:
                return f"{item.lines:,}"
            if checking:
                return "checking…"
            return "missing" if not item.exists() else ("UTF-8 ✓" if not item.problem else "problem")
        if role == Qt.ItemDataRole.ToolTipRole:
            if not item.exists():
                return f"{item.path}\nThis file is not there any more: right-click to locate it."
            return f"{item.path}\n{window_problem(item.problem) or 'valid UTF-8 text'}\nSHA-256 {item.sha256}"
        if (
            role == Qt.ItemDataRole.ForegroundRole
            and column in (FILE_COLUMN, CHECK_COLUMN)
            and not checking
            and (item.problem or not item.exists())
        ):
            return QColor(ERROR_COLOR)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (SIZE_COLUMN, LINES_COLUMN):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _field_data(self, item: CorpusFile, role: int) -> object:
        if not item.takes_field:
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return item.field
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"Each record's “{item.field}” text is trained on.\nDouble-click (or right-click, Text Field…) to choose another field."
        return None

    def refresh(self) -> None:
        """Redraw every cell (the files being checked changed)."""
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, self.columnCount() - 1))

    def _on_document_changed(self) -> None:
        """A new table when the files changed; another change of the project (a training's result,
        a rename) keeps the table, its selection, and the window unrepainted."""
        shown = [(item.path, item.field, item.size, item.lines, item.sha256, item.problem) for item in self.document.project.corpus]
        if shown == self._shown:
            return
        self._shown = shown
        self.beginResetModel()
        self.endResetModel()


class FieldDelegate(QStyledItemDelegate):
    """The Field cell's editor: a list of the file's text fields (`workbench.jobs.runners.file_checks.text_fields`),
    the current one selected; a choice is committed at once. When the fields cannot be listed
    (pyarrow missing, an unreadable first record) the field's name is typed instead, and
    `failed(reason)` says why."""

    failed = Signal(str)

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: Index) -> QWidget:  # noqa: N802
        combo = QComboBox(parent)
        path = str(index.data(PATH_ROLE))
        try:
            choices = text_fields(path)
            reason = "" if choices else "its first record has no text field"
        except CorpusError as error:
            choices, reason = [], error.reason
        combo.addItems(choices)
        if reason:
            combo.setEditable(True)
            combo.setToolTip(f"{os.path.basename(path)}: {reason}. Type the field's name.")
            self.failed.emit(f"{os.path.basename(path)}: {reason}. Type the field's name and press Enter.")
        else:
            combo.setPlaceholderText(str(index.data(Qt.ItemDataRole.EditRole) or ""))  # a field the file lacks
            combo.activated.connect(lambda _row: self._commit(combo))
            QTimer.singleShot(0, combo, combo.showPopup)  # one double-click opens the list
        return combo

    def setEditorData(self, editor: QWidget, index: Index) -> None:  # noqa: N802
        if not isinstance(editor, QComboBox):
            return
        current = str(index.data(Qt.ItemDataRole.EditRole) or "")
        if editor.isEditable():
            editor.setEditText(current)
        else:
            editor.setCurrentIndex(editor.findText(current, Qt.MatchFlag.MatchExactly))

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: Index) -> None:  # noqa: N802
        if isinstance(editor, QComboBox) and editor.currentText().strip():
            model.setData(index, editor.currentText(), Qt.ItemDataRole.EditRole)

    def _commit(self, combo: QComboBox) -> None:
        self.commitData.emit(combo)
        self.closeEditor.emit(combo, QStyledItemDelegate.EndEditHint.NoHint)


class CorpusView(QTableView):
    """The corpus table; files and folders dropped on it are added."""

    dropped = Signal(list)

    def __init__(self) -> None:
        super().__init__()
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(True)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        paths = [url.toLocalFile() for url in event.mimeData().urls() if url.isLocalFile()]
        if paths:
            self.dropped.emit(paths)
            event.acceptProposedAction()
