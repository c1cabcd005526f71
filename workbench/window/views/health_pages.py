"""The Audit tab's vocabulary pages: **Vocabulary Health** (per tokenizer, the tokens that are dead,
rare, unreachable, not UTF-8 on their own, only ever inside longer merges, never formed, that
collide under the normalizer, the longest) and **Two Vocabularies** (tokens in both, in one only,
the same string under different ids, and the share of boundaries the two agree on). The figures
are `engine.analysis.vocab_health`'s, worked out in a child process
(`workbench.jobs.children.vocab_health`); a listed token double-clicked opens in the Vocabulary
tab (`open_token(tokenizer name, id)`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableView,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from workbench.core.vocab_reports import CATEGORIES, LISTED
from workbench.jobs.children.vocab_health import CHOSEN_TEXTS, CORPUS, compare_main, health_main, health_payload
from workbench.jobs.runners.child_job import ChildJob
from workbench.window.views.audit_table import RowsModel, fill_table
from workbench.window.views.heading import say

# What each category means (the counts table's headings say so on hover).
MEANINGS: Final = {
    "dead": "Never produced on the text: an embedding row that will not be trained on it.",
    "rare": "Produced fewer times than the bound: embeddings that will be under-trained.",
    "unreachable": "Encoding the token's own string never gives it (common in WordPiece): the model can never see it.",
    "invalid_utf8": "Byte-level tokens whose bytes are not whole UTF-8 characters on their own.",
    "intermediate_only": "BPE: made by a merge, never produced here, used by a later merge: a step on the way to longer tokens.",
    "unformable": "BPE: made by a merge that the model never applies to the token's own string, so it never forms in any text.",
    "collisions": "Tokens that become the same string under the tokenizer's normalizer: at most one of each group can be produced.",
    "longest": "The tokens with the most characters.",
    "unchecked": "Tokens no reachability check covers (byte tokens, a lone ▁, BPE pieces with a prefix or without a suffix).",
    "special": "Special and added tokens, and the unknown token: left out of the other lists.",
}
# Which list of two vocabularies the table shows: (key, choice's text).
COMPARE_LISTS: Final = (
    ("only_a", "only in A"), ("only_b", "only in B"), ("different_ids", "the same string, different ids"), ("both", "in both"),
)  # fmt: skip
TEXT_CHOICES: Final = (("the texts chosen above", CHOSEN_TEXTS), ("the project's corpus (its first 20 MB)", CORPUS))

Chosen = Callable[[], list[tuple[str, str]]]
Texts = Callable[[], dict[str, object]]
Corpus = Callable[[], list[str]]


def _text_choice() -> QComboBox:
    choice = QComboBox()
    for text, key in TEXT_CHOICES:
        choice.addItem(text, key)
    choice.setToolTip("The text the tokens are counted on: the languages, code and files chosen above, or the project's corpus files.")
    return choice


def _list_view(model: RowsModel) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.setSortingEnabled(True)
    view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.verticalHeader().hide()
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.horizontalHeader().setStretchLastSection(True)
    view.setToolTip("Double-click a token to open it in the Vocabulary tab.")
    return view


class HealthPage(QWidget):
    """Vocabulary Health: `check()` measures the checked tokenizers; the counts table has a row
    per tokenizer and a column per category; the cell chosen lists its tokens."""

    open_token = Signal(str, int)

    def __init__(self, chosen: Chosen, texts: Texts, corpus: Corpus) -> None:
        super().__init__()
        self._chosen, self._texts, self._corpus = chosen, texts, corpus
        self.job = ChildJob("vocabulary check", self)
        self.results: list[dict[str, object]] = []
        self._started = 0.0
        # the tokenizer and category listed
        self._listed = ("", "")
        self.source = _text_choice()
        self.rare_below = QSpinBox()
        self.rare_below.setRange(2, 1_000_000)
        self.rare_below.setValue(10)
        self.rare_below.setToolTip("A token produced fewer times than this is rare.")
        self.check_button = QPushButton("Check Vocabularies")
        self.status = QLabel("Counts every token of the checked tokenizers on a text, and checks each token's own string.")
        self.status.setWordWrap(True)
        self.counts = QTableWidget(0, len(CATEGORIES) + 2)
        self.counts.setHorizontalHeaderLabels(["tokenizer", "tokens produced"] + [title for _, title in CATEGORIES])
        for column, (key, _) in enumerate(CATEGORIES, start=2):
            header = self.counts.horizontalHeaderItem(column)
            if header is not None:
                header.setToolTip(MEANINGS[key])
        self.counts.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.counts.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.counts.verticalHeader().hide()
        self.counts.setMaximumHeight(140)
        self.listed = QLabel()
        self.listed.setWordWrap(True)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter the tokens listed")
        self.filter.setClearButtonEnabled(True)
        self.model = RowsModel({"id": "id", "token": "token", "frequency": "frequency on the text", "group": "group"})
        self.view = _list_view(self.model)
        row = QHBoxLayout()
        row.addWidget(QLabel("Count on"))
        row.addWidget(self.source)
        row.addWidget(QLabel("rare below"))
        row.addWidget(self.rare_below)
        row.addWidget(self.check_button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addWidget(self.counts)
        layout.addWidget(self.listed)
        layout.addWidget(self.filter)
        layout.addWidget(self.view, 1)
        self.check_button.clicked.connect(self.check)
        self.counts.currentCellChanged.connect(self._on_cell_changed)
        self.filter.textChanged.connect(self.model.set_filter)
        self.view.doubleClicked.connect(self._on_double_clicked)
        self.job.progressed.connect(self._on_progressed)
        self.job.finished.connect(self._on_finished)
        self.job.failed.connect(self._on_failed)

    def check(self) -> None:
        chosen = self._chosen()
        if not chosen:
            say(self.status, "Check at least one tokenizer above.", error=True)
            return
        payload = health_payload(chosen, str(self.source.currentData()), self._texts(), self._corpus(), self.rare_below.value())
        self._started = time.monotonic()
        say(self.status, "Counting…")
        self.check_button.setEnabled(False)
        self.job.start(health_main, payload)

    def _on_progressed(self, record: object) -> None:
        if isinstance(record, tuple) and len(record) == 3:
            say(self.status, f"Checking {record[2]} ({int(record[0]) + 1} of {int(record[1])})…")

    def _on_finished(self, answer: object) -> None:
        self.check_button.setEnabled(True)
        assert isinstance(answer, list)
        self.show_results([item for item in answer if isinstance(item, dict)])
        seconds = time.monotonic() - self._started
        text = str(self.results[0]["text"]) if self.results else ""
        say(self.status, f"Checked {len(self.results)} vocabular{'ies' if len(self.results) != 1 else 'y'} on {text} in {seconds:.1f} s. "
             "Choose a cell to list its tokens; point at a heading for what it means.")  # fmt: skip

    def _on_failed(self, message: str) -> None:
        self.check_button.setEnabled(True)
        say(self.status, f"The check stopped: {message}", error=True)

    def show_results(self, results: list[dict[str, object]]) -> None:
        self.results = results
        rows: list[list[str]] = []
        for result in results:
            counts = result["counts"]
            assert isinstance(counts, dict)
            rows.append([str(result["name"]), f"{int(str(result['tokens'])):,}"] + [f"{int(counts[key]):,}" for key, _ in CATEGORIES])
        fill_table(self.counts, rows)
        if results:
            self.counts.setCurrentCell(0, 2)

    def list_category(self, row: int, key: str) -> None:
        """List tokenizer `row`'s tokens of category `key`."""
        if not 0 <= row < len(self.results):
            return
        result = self.results[row]
        rows = result["rows"]
        counts = result["counts"]
        assert isinstance(rows, dict) and isinstance(counts, dict)
        listed = rows[key]
        assert isinstance(listed, list)
        self.model.set_rows(["id", "token", "frequency", "group"], [list(item) for item in listed])
        self.view.setColumnHidden(3, key != "collisions")
        self.view.resizeColumnsToContents()
        title = dict(CATEGORIES)[key]
        total = int(counts[key])
        more = f" (the first {LISTED:,} listed)" if total > LISTED else ""
        self.listed.setText(f"<b>{result['name']}: {total:,} {title}</b>{more}. {MEANINGS[key]}")
        self._listed = (str(result["name"]), key)

    def _on_cell_changed(self, row: int, column: int, previous_row: int, previous_column: int) -> None:
        if row >= 0 and column >= 2:
            self.list_category(row, CATEGORIES[column - 2][0])

    def _on_double_clicked(self, index: QModelIndex) -> None:
        name = self._listed[0]
        if name and index.isValid():
            self.open_token.emit(name, int(str(self.model.value(index.row(), "id"))))


class ComparePage(QWidget):
    """Two Vocabularies: A and B from the checked tokenizers, compared on a text; the counts, the
    boundary agreement, and the list chosen."""

    open_token = Signal(str, int)

    def __init__(self, chosen: Chosen, texts: Texts, corpus: Corpus) -> None:
        super().__init__()
        self._chosen, self._texts, self._corpus = chosen, texts, corpus
        self.job = ChildJob("vocabulary comparison", self)
        self.result: dict[str, object] | None = None
        self._started = 0.0
        self.a = QComboBox()
        self.b = QComboBox()
        self.source = _text_choice()
        self.compare_button = QPushButton("Compare")
        self.status = QLabel("Tokens in both vocabularies (Ġx, ▁x and a whole word x are one form; ##x is x inside a word), in one only, "
                             "and how often the two cut the same text at the same places.")  # fmt: skip
        self.status.setWordWrap(True)
        self.which = QComboBox()
        for key, text in COMPARE_LISTS:
            self.which.addItem(text, key)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter the tokens listed")
        self.filter.setClearButtonEnabled(True)
        self.model = RowsModel({"form": "token", "id_a": "id in A", "id_b": "id in B"})
        self.view = _list_view(self.model)
        row = QHBoxLayout()
        row.addWidget(QLabel("A"))
        row.addWidget(self.a, 1)
        row.addWidget(QLabel("B"))
        row.addWidget(self.b, 1)
        row.addWidget(QLabel("cutting"))
        row.addWidget(self.source)
        row.addWidget(self.compare_button)
        lists = QHBoxLayout()
        lists.addWidget(QLabel("List the tokens"))
        lists.addWidget(self.which)
        lists.addWidget(self.filter, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addLayout(lists)
        layout.addWidget(self.view, 1)
        self.compare_button.clicked.connect(self.compare)
        self.which.currentIndexChanged.connect(self._show_list)
        self.filter.textChanged.connect(self.model.set_filter)
        self.view.doubleClicked.connect(self._on_double_clicked)
        self.job.finished.connect(self._on_finished)
        self.job.failed.connect(self._on_failed)
        self.follow()

    def follow(self) -> None:
        """A and B offer the checked tokenizers (kept where they still are; B the second)."""
        names = [name for name, _ in self._chosen()]
        for position, box in enumerate((self.a, self.b)):
            current = box.currentText()
            box.blockSignals(True)
            box.clear()
            box.addItems(names)
            if current in names:
                box.setCurrentText(current)
            elif len(names) > position:
                box.setCurrentIndex(position)
            box.blockSignals(False)
        if self.a.currentText() == self.b.currentText() and len(names) >= 2:
            # (B offered alone at first took the one name there was: it takes another now)
            self.b.setCurrentText(next(name for name in names if name != self.a.currentText()))
        self.compare_button.setEnabled(len(names) >= 2 and not self.job.is_running())
        self.compare_button.setToolTip("" if len(names) >= 2 else "Check two tokenizers above to compare them.")

    def compare(self) -> None:
        chosen = dict(self._chosen())
        a, b = self.a.currentText(), self.b.currentText()
        if a not in chosen or b not in chosen or a == b:
            say(self.status, "Choose two different tokenizers as A and B.", error=True)
            return
        payload = health_payload([(a, chosen[a]), (b, chosen[b])], str(self.source.currentData()), self._texts(), self._corpus(), 2)
        self._started = time.monotonic()
        say(self.status, "Comparing…")
        self.compare_button.setEnabled(False)
        self.job.start(compare_main, payload)

    def _on_finished(self, answer: object) -> None:
        assert isinstance(answer, dict)
        self.show_result(answer)
        self.follow()

    def _on_failed(self, message: str) -> None:
        say(self.status, f"The comparison stopped: {message}", error=True)
        self.follow()

    def show_result(self, result: dict[str, object]) -> None:
        self.result = result
        names = result["names"]
        counts = result["counts"]
        boundaries = result["boundaries"]
        assert isinstance(names, tuple) and isinstance(counts, dict) and isinstance(boundaries, tuple)
        a, b = names
        agreed, only_a, only_b = boundaries
        seconds = time.monotonic() - self._started
        say(
            self.status,
            f"<b>A</b> {a} · <b>B</b> {b}: {int(counts['both']):,} tokens in both, {int(counts['only_a']):,} only in A, "
            f"{int(counts['only_b']):,} only in B, {int(counts['different_ids']):,} with the same string under different ids. "
            f"Cutting {result['text']}, they agree on <b>{float(str(result['agreement'])):.1%}</b> of the token boundaries "
            f"({agreed:,} shared; {only_a:,} only A's, {only_b:,} only B's; F1 {float(str(result['f1'])):.3f}). {seconds:.1f} s.",
        )
        self._show_list()

    def _show_list(self) -> None:
        result = self.result
        if result is None:
            return
        key = str(self.which.currentData())
        listed = result[key]
        assert isinstance(listed, list)
        if key in ("only_a", "only_b"):
            self.model.set_rows(["id", "form"], [[number, form] for number, form in listed])
        else:
            self.model.set_rows(["form", "id_a", "id_b"], [list(item) for item in listed])
        self.view.resizeColumnsToContents()

    def _on_double_clicked(self, index: QModelIndex) -> None:
        result = self.result
        if result is None or not index.isValid():
            return
        names = result["names"]
        assert isinstance(names, tuple)
        key = str(self.which.currentData())
        if key == "only_b":
            self.open_token.emit(str(names[1]), int(str(self.model.value(index.row(), "id"))))
        elif key == "only_a":
            self.open_token.emit(str(names[0]), int(str(self.model.value(index.row(), "id"))))
        else:
            column = "id_b" if self.model.columns[index.column()] == "id_b" else "id_a"
            self.open_token.emit(str(names[1 if column == "id_b" else 0]), int(str(self.model.value(index.row(), column))))
