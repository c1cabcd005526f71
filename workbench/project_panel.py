"""`ProjectPanel`, the left dock: the corpus files (added by button or drag and drop, checked
in the background) and the tokenizers (from presets, or imported), one of them active.

A preset the engine cannot train yet is listed, disabled, with the reason. Widgets only: the
project changes through `ProjectDocument`.
"""

from __future__ import annotations

import os
from typing import Final

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QPoint, QSize, Qt, Signal
from PySide6.QtGui import QColor, QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.corpus import FileCheck, check_file
from engine.errors import CorpusError, EngineError
from engine.project import CorpusFile, TokenizerEntry
from workbench import presets
from workbench.document import ProjectDocument
from workbench.file_checks import FileChecker
from workbench.formatting import ERROR_COLOR, ERROR_STYLE, human_size
from workbench.prompts import Prompts

CORPUS_COLUMNS: Final = ("File", "Size", "Lines", "Check")
Index = QModelIndex | QPersistentModelIndex


class CorpusModel(QAbstractTableModel):
    """The project's corpus files: name, size, lines, and the check's verdict."""

    def __init__(self, document: ProjectDocument) -> None:
        super().__init__()
        self.document = document
        document.changed.connect(self._on_document_changed)

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
        missing = not item.exists()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return item.name
            if column == 1:
                return human_size(item.size)
            if column == 2:
                return f"{item.lines:,}"
            return "missing" if missing else ("UTF-8 ✓" if not item.problem else "problem")
        if role == Qt.ItemDataRole.ToolTipRole:
            if missing:
                return f"{item.path}\nThis file is not there any more: right-click to locate it."
            return f"{item.path}\n{item.problem or 'valid UTF-8 text'}\nSHA-256 {item.sha256}"
        if role == Qt.ItemDataRole.ForegroundRole and (missing or item.problem) and column in (0, 3):
            return QColor(ERROR_COLOR)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (1, 2):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _on_document_changed(self) -> None:
        self.beginResetModel()
        self.endResetModel()


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


class ProjectPanel(QWidget):
    """Corpus files and tokenizers of the open project."""

    def __init__(self, document: ProjectDocument, prompts: Prompts, checker: FileChecker) -> None:
        super().__init__()
        self.document = document
        self.prompts = prompts
        self.checker = checker
        checker.checked.connect(self._on_checker_checked)

        self.corpus_model = CorpusModel(document)
        self.corpus_view = CorpusView()
        self.corpus_view.setModel(self.corpus_model)
        self.corpus_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.corpus_view.verticalHeader().hide()
        self.corpus_view.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            self.corpus_view.horizontalHeader().setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.corpus_view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.corpus_view.customContextMenuRequested.connect(self._on_corpus_view_menu)
        self.corpus_view.dropped.connect(self.add_paths)
        self.corpus_status = QLabel()
        self.corpus_status.setWordWrap(True)

        add_files = QPushButton("Add Files…")
        add_files.clicked.connect(self.choose_files)
        add_folder = QPushButton("Add Folder…")
        add_folder.clicked.connect(self.choose_folder)
        self.remove_files_button = QPushButton("Remove")
        self.remove_files_button.clicked.connect(self.remove_selected_files)

        self.tokenizer_list = QListWidget()
        self.tokenizer_list.setIconSize(QSize(0, 0))
        self.tokenizer_list.currentRowChanged.connect(self._on_tokenizer_list_row_changed)
        self.tokenizer_list.itemDoubleClicked.connect(self._on_tokenizer_list_double_clicked)
        self.new_button = QToolButton()
        self.new_button.setText("New From Preset")
        self.new_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.preset_menu = QMenu(self)
        for item in presets.PRESETS:
            action = self.preset_menu.addAction(item.title if item.available else f"{item.title} — not yet available")
            action.setToolTip(item.description if item.available else item.reason)
            action.setStatusTip(item.description if item.available else item.reason)
            action.setEnabled(item.available)
            action.triggered.connect(lambda checked=False, key=item.key: self.add_preset(key))
        self.preset_menu.setToolTipsVisible(True)
        self.new_button.setMenu(self.preset_menu)
        import_button = QPushButton("Import…")
        import_button.clicked.connect(self.import_tokenizer)
        self.remove_tokenizer_button = QPushButton("Remove")
        self.remove_tokenizer_button.clicked.connect(self.remove_active_tokenizer)

        layout = QVBoxLayout(self)
        layout.addWidget(_heading("Corpus"))
        layout.addWidget(self.corpus_view, 3)
        row = QHBoxLayout()
        for button in (add_files, add_folder, self.remove_files_button):
            row.addWidget(button)
        layout.addLayout(row)
        layout.addWidget(self.corpus_status)
        layout.addWidget(_heading("Tokenizers"))
        layout.addWidget(self.tokenizer_list, 2)
        row = QHBoxLayout()
        row.addWidget(self.new_button)
        row.addWidget(import_button)
        row.addWidget(self.remove_tokenizer_button)
        layout.addLayout(row)

        document.changed.connect(self._on_document_changed)
        document.active_changed.connect(self._on_document_changed)
        self._on_document_changed()

    # -- corpus ------------------------------------------------------------------------------

    def choose_files(self) -> None:
        paths = self.prompts.corpus_files(self._folder())
        if paths:
            self.add_paths(paths)

    def choose_folder(self) -> None:
        path = self.prompts.corpus_folder(self._folder())
        if path:
            self.add_paths([path])

    def add_paths(self, paths: list[str]) -> None:
        """Check the files (in the background) and add them; folders add their corpus files
        (text, also compressed; JSON Lines; Parquet/Arrow; word-count tables)."""
        self.corpus_status.setText(f"Checking {len(paths)} item{'s' if len(paths) != 1 else ''}…")
        self.checker.check(paths)

    def _on_checker_checked(self, checks: list[FileCheck], errors: list[str]) -> None:
        if checks:
            self.document.add_checked_files(checks)
        problems = [f"{os.path.basename(check.path)} {check.problem}" for check in checks if check.problem]
        lines = errors + problems
        if not checks and not errors:
            lines = ["No corpus files found there (text, .jsonl, .parquet, .tsv, also .gz/.bz2/.xz/.zst)."]
        self.corpus_status.setText("\n".join(lines) if lines else f"Added {len(checks)} file{'s' if len(checks) != 1 else ''}.")
        self.corpus_status.setStyleSheet(ERROR_STYLE if lines else "")

    def remove_selected_files(self) -> None:
        rows = sorted({index.row() for index in self.corpus_view.selectionModel().selectedRows()})
        if rows:
            self.document.remove_files(rows)

    def show_missing(self, missing: list[CorpusFile]) -> None:
        names = ", ".join(item.name for item in missing)
        self.corpus_status.setText(
            f"Not found: {names}. Right-click a missing file to locate it; training needs every file."
        )
        self.corpus_status.setStyleSheet(ERROR_STYLE)

    def locate(self, row: int) -> None:
        item = self.document.project.corpus[row]
        path = self.prompts.locate(item.name, os.path.dirname(item.path))
        if not path:
            return
        try:
            check = check_file(path)
        except CorpusError as error:
            self.prompts.warn("That file cannot be used", str(error))
            return
        if item.sha256 and check.sha256 != item.sha256:
            if not self.prompts.confirm(
                "A different file?",
                f"{os.path.basename(path)} is not the file the project knew ({item.name}, {human_size(item.size)}): "
                "its contents differ. Use it anyway?",
            ):
                return
        self.document.relocate_file(row, check)
        self.corpus_status.setText(f"{item.name} is now {path}.")
        self.corpus_status.setStyleSheet("")

    def _on_corpus_view_menu(self, position: QPoint) -> None:
        # subtle: an item view reports the position in its viewport's coordinates.
        index = self.corpus_view.indexAt(position)
        menu = QMenu(self)
        if index.isValid():
            row = index.row()
            locate = menu.addAction("Locate…")
            locate.triggered.connect(lambda: self.locate(row))
            remove = menu.addAction("Remove")
            remove.triggered.connect(self.remove_selected_files)
        menu.addAction("Add Files…").triggered.connect(self.choose_files)
        menu.exec(self.corpus_view.viewport().mapToGlobal(position))

    # -- tokenizers --------------------------------------------------------------------------

    def add_preset(self, key: str) -> None:
        self.document.add_preset(key)

    def import_tokenizer(self) -> None:
        path = self.prompts.tokenizer_file(self._folder())
        if not path:
            return
        try:
            self.document.import_tokenizer(path)
        except EngineError as error:
            self.prompts.warn("The tokenizer cannot be imported", str(error))

    def remove_active_tokenizer(self) -> None:
        entry = self.document.active
        if entry is None:
            return
        if entry.is_trained and not self.prompts.confirm("Remove tokenizer", f"Remove “{entry.name}” and its trained result?"):
            return
        self.document.remove_tokenizer(self.document.project.active)

    def _on_tokenizer_list_row_changed(self, row: int) -> None:
        if row >= 0:
            self.document.set_active(row)

    def _on_tokenizer_list_double_clicked(self, item: QListWidgetItem) -> None:
        row = self.tokenizer_list.row(item)
        entry = self.document.project.tokenizers[row]
        name = self.prompts.text("Rename tokenizer", "Name:", entry.name)
        if name:
            self.document.rename_tokenizer(row, name)

    def _on_document_changed(self) -> None:
        project = self.document.project
        self.tokenizer_list.blockSignals(True)
        self.tokenizer_list.clear()
        for entry in project.tokenizers:
            if entry.is_trained:
                size = _trained_size(entry)
                state = f"trained{f', {size:,} tokens' if size else ''}" if entry.preset != "imported" else "imported"
            else:
                state = "not trained"
            item = QListWidgetItem(f"{entry.name}\n    {state}")
            item.setToolTip(entry.source or entry.name)
            self.tokenizer_list.addItem(item)
        self.tokenizer_list.setCurrentRow(project.active)
        self.tokenizer_list.blockSignals(False)
        self.remove_tokenizer_button.setEnabled(project.active >= 0)
        self.remove_files_button.setEnabled(bool(project.corpus))

    def _folder(self) -> str:
        corpus = self.document.project.corpus
        if corpus:
            return os.path.dirname(corpus[-1].path)
        if self.document.path and not self.document.is_template:
            return os.path.dirname(self.document.path)
        return os.path.expanduser("~")


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    return label


def _trained_size(entry: TokenizerEntry) -> int:
    """The vocabulary size the last step of its training reported (a merge or a round; 0 when
    there is no history)."""
    history = entry.report.history if entry.report is not None else None
    if history is None:
        return 0
    if history.merges:
        return history.merges[-1].vocab_size
    return history.rounds[-1].vocab_size if history.rounds else 0
