"""`VocabTab`: browse the active tokenizer's vocabulary: sort, filter (substring, prefix or
regex), and see how the selected token was built (its merge tree), its bytes and the corpus
words that contain it. Copy or export the visible rows as CSV.

Everything shown comes from the engine (`engine.analysis.vocabulary`); this module only lays it out.
"""

from __future__ import annotations

import time
from typing import Final

from PySide6.QtCore import QItemSelection, Qt
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.errors import EngineError
from engine.formats.files import write_text_atomically
from engine.analysis.vocabulary import MergeNode, TokenStyle, merge_counts, readable, token_bytes, tree_of
from workbench.window.document import ProjectDocument
from workbench.window.guide import HelpLink
from workbench.core.formatting import ERROR_STYLE
from workbench.window.prompts import Prompts
from workbench.core.settings import Settings
from workbench.window.views.vocab_model import COLUMNS, FILTER_MODES, VocabularyModel
from workbench.window.views.when_shown import WhenShown

CSV_FILTER: Final = "CSV files (*.csv)"
# How long after the active tokenizer changed a hidden Vocabulary tab fills its table.
FILL_SOON_MS: Final = 200


class VocabTab(QWidget):
    """The Vocabulary tab."""

    def __init__(self, document: ProjectDocument, settings: Settings, prompts: Prompts) -> None:
        super().__init__()
        self.document = document
        self.prompts = prompts
        self.model = VocabularyModel()
        self.document.glyphs = settings.show_whitespace
        self._style = TokenStyle()

        self.mode = QComboBox()
        self.mode.addItems(list(FILTER_MODES))
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter tokens (Ctrl+F)")
        self.filter.setClearButtonEnabled(True)
        self.match_case = QCheckBox("Match case")
        self.count = QLabel()
        self.filter_error = QLabel()
        self.filter_error.setStyleSheet(ERROR_STYLE)
        copy_button = QPushButton("Copy Rows")
        copy_button.setToolTip("Copy the visible rows as CSV")
        copy_button.clicked.connect(self.copy_rows)
        export_button = QPushButton("Export CSV…")
        export_button.clicked.connect(self.export_csv)

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        for column, width in enumerate((70, 220, 60, 60, 80, 100)):
            self.table.setColumnWidth(column, width)
        self.table.selectionModel().selectionChanged.connect(self._on_table_selection_changed)

        self.title = QLabel()
        big = QFont(self.title.font())
        big.setPointSizeF(big.pointSizeF() * 1.6)
        big.setBold(True)
        self.title.setFont(big)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.facts = QLabel()
        self.facts.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.facts.setWordWrap(True)
        self.hex = QLabel()
        self.hex.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hex.setFont(QFont("Monospace"))
        self.hex.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Token", "Merge rank", "Count"])
        self.tree.header().setStretchLastSection(False)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            self.tree.header().setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.examples = QListWidget()
        details = QWidget()
        form = QFormLayout(details)
        form.addRow(self.title)
        form.addRow(self.facts)
        form.addRow("Bytes", self.hex)
        form.addRow(QLabel("How it was built"))
        form.addRow(self.tree)
        form.addRow(QLabel("Corpus words that contain it"))
        form.addRow(self.examples)

        splitter = QSplitter()
        splitter.addWidget(self.table)
        splitter.addWidget(details)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        self.empty = QLabel()
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(splitter)

        bar = QHBoxLayout()
        bar.addWidget(self.mode)
        bar.addWidget(self.filter, 1)
        bar.addWidget(self.match_case)
        bar.addWidget(self.count)
        bar.addWidget(copy_button)
        bar.addWidget(export_button)
        self.help_link = HelpLink(self.help_section, "the Vocabulary tab")
        bar.addWidget(self.help_link)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.filter_error)
        layout.addWidget(self.stack, 1)
        self.filter_error.hide()

        self.filter.textChanged.connect(self._apply_filter)
        self.mode.currentTextChanged.connect(self._apply_filter)
        self.match_case.toggled.connect(self._apply_filter)
        self.model.modelReset.connect(self._update_count)
        self.model.layoutChanged.connect(self._update_count)
        # (hidden behind another tab, it is filled a moment later, apart from the change that
        # asked, or when shown if sooner: a big vocabulary takes a while)
        self._when_shown = WhenShown(self, self._show_active, soon_ms=FILL_SOON_MS)
        document.active_changed.connect(self._when_shown.request)
        document.view_changed.connect(self._when_shown.request)
        document.changed.connect(self._on_document_changed)
        self.last_filter_seconds = 0.0
        # a token to select once the vocabulary of its tokenizer (an entry) is shown
        self._pending: tuple[object, int] | None = None
        self._show_active()

    # -- what is shown ---------------------------------------------------------------------------

    def _show_active(self) -> None:
        """Show the active tokenizer's vocabulary (or say why there is none)."""
        view = self.document.view()
        entry = self.document.active
        table = view.table(self.document.glyphs) if view is not None else None
        if view is None or table is None or entry is None or not view.ready:
            self.model.set_table_empty()
            self._say_empty()
            self.stack.setCurrentWidget(self.empty)
            self._show_token(-1)
            return
        if self.model.table is table:
            # (drawn already: the rest of the view arrived, such as the merge trees)
            index = self.table.currentIndex()
            self._show_token(self.model.row_of(index) if index.isValid() else -1)
            return
        self._style = view.style
        self.model.set_table(table)
        self._apply_filter()
        self.stack.setCurrentIndex(1)
        self._show_token(-1)
        pending, self._pending = self._pending, None
        if pending is not None and pending[0] is entry:
            self.select_token(pending[1])

    def show_token_of(self, entry: object, token_id: int) -> None:
        """Select `token_id` of the active tokenizer `entry` now, or as soon as its vocabulary is
        shown (the Audit's lists open their tokens here)."""
        view = self.document.view()
        if entry is self.document.active and view is not None and view.ready and self.model.table is view.table(self.document.glyphs):
            self.select_token(token_id)
        else:
            self._pending = (entry, token_id)
            self._when_shown.request()

    def _on_document_changed(self) -> None:
        self._say_empty()  # (a rename)

    def _say_empty(self) -> None:
        entry = self.document.active
        view = self.document.view()
        if entry is not None and entry.is_trained and view is not None and not view.ready:
            self.empty.setText(f"Loading the vocabulary of “{entry.name}”…")
        elif entry is None:
            self.empty.setText("No tokenizer in this project: create one from a preset in the Project panel.")
        elif not entry.is_trained:
            self.empty.setText(f"“{entry.name}” is not trained yet: train it in the Train tab to browse its vocabulary.")
        else:
            self.empty.setText(f"“{entry.name}” cannot be shown: its trained result does not load.")

    def _apply_filter(self) -> None:
        started = time.perf_counter()
        self.model.set_filter(self.filter.text(), self.mode.currentText(), self.match_case.isChecked())
        self.last_filter_seconds = time.perf_counter() - started
        self.filter_error.setText(self.model.filter_error)
        self.filter_error.setVisible(bool(self.model.filter_error))
        self._update_count()

    def _update_count(self) -> None:
        total = len(self.model.table)
        shown = self.model.rowCount()
        self.count.setText(f"{shown:,} of {total:,} tokens" if shown != total else f"{total:,} tokens")

    def _on_table_selection_changed(self, selected: QItemSelection, deselected: QItemSelection) -> None:
        index = self.table.currentIndex()
        self._show_token(self.model.row_of(index) if index.isValid() else -1)

    def select_token(self, token_id: int) -> bool:
        """Select the row of a token id (clearing the filter when it hides it)."""
        self._when_shown.flush()
        ids = self.model.table.ids
        if token_id not in ids:
            return False
        row_in_table = ids.index(token_id)
        rows = list(self.model.order)
        if row_in_table not in rows:
            self.filter.clear()
            rows = list(self.model.order)
        view_row = rows.index(row_in_table)
        index = self.model.index(view_row, 0)
        self.table.setCurrentIndex(index)
        self.table.selectRow(view_row)
        self.table.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
        return True

    def _show_token(self, row: int) -> None:
        view = self.document.view()
        entry = self.document.active
        table = self.model.table
        if row < 0 or view is None or entry is None:
            self.title.setText("Select a token")
            self.facts.setText("")
            self.hex.setText("")
            self.tree.clear()
            self.examples.clear()
            return
        token = table.tokens[row]
        id = table.ids[row]
        self.title.setText(table.shown[row])
        rank = table.merge_ranks[row]
        frequency = table.frequencies[row]
        facts = [f"id {id}", f"kind {table.kinds[row]}", f"raw {token!r}",
                 f"{table.char_lengths[row]} chars, {table.byte_lengths[row]} bytes"]
        if rank >= 0:
            facts.append(f"merge rank {rank:,}")
        if frequency >= 0:
            facts.append(f"{frequency:,} occurrences in the training words")
        self.facts.setText(" · ".join(facts))
        raw = token_bytes(token, self._style) if table.kinds[row] not in ("special", "added") else token.encode("utf-8")
        self.hex.setText(" ".join(f"{b:02X}" for b in raw))
        self.tree.clear()
        # (each merge's count: from the training's steps when they are in memory, else from
        # the history the encoding process read; never parsed here)
        report = entry.result.parsed_report() if entry.result is not None else None
        counts = merge_counts(report.history) if report is not None else (view.history.counts if view.history is not None else {})
        if view.made is not None:
            self.tree.addTopLevelItem(self._tree_item(tree_of(token, view.made, counts)))
            self.tree.expandAll()
        else:
            self.tree.addTopLevelItem(QTreeWidgetItem(["(finding out how it was made…)", "", ""]))
        self.examples.clear()
        for word, count in entry.examples.get(id, []):
            self.examples.addItem(f"{word}    {count:,}")
        if not entry.examples.get(id):
            self.examples.addItem("(no corpus words: imported, or not in the training words)")

    def _tree_item(self, node: MergeNode) -> QTreeWidgetItem:
        shown = readable(node.token, self._style, self.document.glyphs)
        if node.left is not None and node.right is not None:
            left = readable(node.left.token, self._style, self.document.glyphs)
            right = readable(node.right.token, self._style, self.document.glyphs)
            text = f"{shown} = {left} + {right}"
        else:
            text = f"{shown}  (alphabet)" if node.rank < 0 else shown
        item = QTreeWidgetItem([text, f"{node.rank:,}" if node.rank >= 0 else "", f"{node.count:,}" if node.count >= 0 else ""])
        item.setToolTip(0, f"raw: {node.token!r}")
        if node.left is not None:
            item.addChild(self._tree_item(node.left))
        if node.right is not None:
            item.addChild(self._tree_item(node.right))
        return item

    # -- actions --------------------------------------------------------------------------------

    def help_section(self) -> str:
        """The user guide's section on this tab."""
        return "vocabulary"

    def focus_filter(self) -> None:
        self.filter.setFocus()
        self.filter.selectAll()

    def copy_rows(self) -> None:
        QGuiApplication.clipboard().setText(self.model.visible_csv())

    def export_csv(self) -> None:
        entry = self.document.active
        if entry is None or not len(self.model.table):
            return
        path = self.prompts.export_file(f"{entry.name}-vocabulary.csv", CSV_FILTER)
        if not path:
            return
        try:
            write_text_atomically(path, self.model.visible_csv())
        except (EngineError, OSError) as error:
            self.prompts.warn("The vocabulary was not exported", f"{error}\n\nNothing was written at {path}.")

    def set_whitespace_glyphs(self, on: bool) -> None:
        self.document.set_glyphs(on)


__all__ = ["COLUMNS", "VocabTab"]
