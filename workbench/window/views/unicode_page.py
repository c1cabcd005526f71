"""The Audit tab's **Unicode** page: a text's code points (name, category, script, the normal forms
that change it, flags), the text under NFC, NFD, NFKC and NFKD side by side with the ids a
tokenizer gives each form, so that `café` typed two ways or the `ﬁ` ligature is seen to get other
ids without the right normalizer; and over the project's corpus, how many lines each normal form
changes and each flag marks. The figures are `engine.analysis.unicode_report`'s, worked out in
the encoding process (the text, as it is typed) and in a child process (the corpus).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Final

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.analysis.unicode_report import FLAGS, FORMS
from workbench.core.formatting import ERROR_COLOR, MB
from workbench.jobs.children.unicode_corpus import corpus_forms_main
from workbench.jobs.runners.child_job import ChildJob
from workbench.jobs.runners.encoding import EncodingRunner
from workbench.window.views.audit_table import RowsModel, fill_table
from workbench.window.views.heading import say

# What the page starts with: each thing it is for, once.
SAMPLE: Final = (
    "café and cafe\u0301 · the ﬁ ligature in ﬁle · H₂O, x², ½, Ⅻ\n"
    "pаypal.com (a Cyrillic а) · zero\u200bwidth space · no\u00a0break · \u202eRTL override\u202c · 👩\u200d💻"
)
DEBOUNCE_MS: Final = 200
NO_TOKENIZER: Final = "(no tokenizer: forms only)"
POINT_COLUMNS: Final = ["offset", "character", "code", "name", "category", "script", "changes", "flags"]
POINT_TITLES: Final = {
    "offset": "offset", "character": "character", "code": "code point", "name": "name", "category": "category",
    "script": "script", "changes": "changed by", "flags": "flags",
}  # fmt: skip
FORM_HEADERS: Final = ("form", "same text", "same ids", "tokens", "its tokens", "ids", "code points", "text")
# How wide a column of the forms table may grow (px): the text and its tokens are long.
FORM_COLUMN_PX: Final = 320
FLAG_MEANINGS: Final = {
    "zero-width": "draws nothing (ZWSP, ZWJ, ZWNJ, word joiner, BOM, soft hyphen...)",
    "bidi-control": "changes the direction text is shown in (LRM, RLM, RLO, isolates...)",
    "unusual-space": "a space other than U+0020 (no-break, em, thin, ideographic...)",
    "control": "a control character other than tab, line feed and carriage return",
    "private-use": "private use: means what a font or program says",
    "unassigned": "not assigned in Unicode",
    "surrogate": "half of a UTF-16 pair on its own",
    "confusable:Latin": "looks like a Latin letter (Cyrillic а for a) in a Latin-looking word",
    "mixed-script-word": "a word mixing Latin, Cyrillic and Greek letters",
}


class UnicodePage(QWidget):
    """The Unicode page. `chosen()` gives the checked tokenizers (name, tokenizer.json), `corpus()`
    the project's corpus files."""

    def __init__(self, service: EncodingRunner, chosen: Callable[[], list[tuple[str, str]]], corpus: Callable[[], list[str]]) -> None:
        super().__init__()
        self.service = service
        self._chosen = chosen
        self._corpus = corpus
        self._latest = 0
        self._shown = 0  # (the request whose report is shown)
        self.report: dict[str, object] | None = None
        self.corpus_results: list[dict[str, object]] = []
        self._started = 0.0
        self.tokenizer = QComboBox()
        self.tokenizer.setToolTip("The tokenizer each normal form is encoded with.")
        self.text = QPlainTextEdit(SAMPLE)
        self.text.setMaximumHeight(70)
        self.flags = QLabel()
        self.flags.setWordWrap(True)
        self.forms = QTableWidget(0, len(FORM_HEADERS))
        self.forms.setHorizontalHeaderLabels(list(FORM_HEADERS))
        self.forms.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.forms.verticalHeader().hide()
        self.forms.setMinimumHeight(120)
        self.forms.setWordWrap(False)
        self.forms.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.points_model = RowsModel(POINT_TITLES)
        self.points = QTableView()
        self.points.setModel(self.points_model)
        self.points.setSortingEnabled(True)
        self.points.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.points.verticalHeader().hide()
        self.points.horizontalHeader().setStretchLastSection(True)
        self.corpus_button = QPushButton("Count the Corpus's Lines")
        self.corpus_button.setToolTip("How many lines of each of the project's plain text files each normal form changes, and each flag marks.")
        self.corpus_stop = QPushButton("Stop")
        self.corpus_stop.setEnabled(False)
        self.corpus_stop.setToolTip("Stop counting (the counts shown are kept).")
        self.corpus_status = QLabel()
        self.corpus_status.setWordWrap(True)
        self.corpus_table = QTableWidget(0, 2 + len(FORMS) + len(FLAGS))
        self.corpus_table.setHorizontalHeaderLabels(["file", "lines", *FORMS, *FLAGS])
        self.corpus_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.corpus_table.verticalHeader().hide()
        self.examples = QPlainTextEdit()
        self.examples.setReadOnly(True)
        self.examples.setPlaceholderText("Choose a count to see the first lines it counts.")
        self.job = ChildJob("Unicode count", self)

        row = QHBoxLayout()
        row.addWidget(QLabel("Text (type or paste); encoded with"))
        row.addWidget(self.tokenizer, 1)
        text_part = QWidget()
        text_layout = QVBoxLayout(text_part)
        text_layout.setContentsMargins(0, 0, 0, 0)
        text_layout.addLayout(row)
        text_layout.addWidget(self.text)
        text_layout.addWidget(self.flags)
        text_layout.addWidget(self.forms)
        text_layout.addWidget(self.points, 1)
        corpus_part = QWidget()
        corpus_layout = QVBoxLayout(corpus_part)
        corpus_layout.setContentsMargins(0, 0, 0, 0)
        corpus_row = QHBoxLayout()
        corpus_row.addWidget(self.corpus_button)
        corpus_row.addWidget(self.corpus_stop)
        corpus_row.addWidget(self.corpus_status, 1)
        corpus_layout.addLayout(corpus_row)
        corpus_layout.addWidget(self.corpus_table)
        corpus_layout.addWidget(self.examples)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(text_part)
        splitter.addWidget(corpus_part)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.request)
        self.text.textChanged.connect(self._debounce.start)
        self.tokenizer.currentIndexChanged.connect(self._debounce.start)
        self.corpus_button.clicked.connect(self.count_corpus)
        self.corpus_stop.clicked.connect(self.stop_counting)
        self.corpus_table.currentCellChanged.connect(self._on_corpus_cell_changed)
        service.unicoded.connect(self._on_unicoded)
        service.failed.connect(self._on_service_failed)
        self.job.progressed.connect(self._on_job_progressed)
        self.job.finished.connect(self._on_job_finished)
        self.job.failed.connect(self._on_job_failed)
        self.follow()

    # -- the text ------------------------------------------------------------------------------

    def follow(self) -> None:
        """The tokenizer choice offers the checked tokenizers (keeping the one chosen)."""
        current = self.tokenizer.currentText()
        names = [name for name, _ in self._chosen()]
        self.tokenizer.blockSignals(True)
        self.tokenizer.clear()
        self.tokenizer.addItems(names + [NO_TOKENIZER])
        self.tokenizer.setCurrentText(current if current in names else (names[0] if names else NO_TOKENIZER))
        self.tokenizer.blockSignals(False)
        if self.isVisible():
            self._debounce.start()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self.report is None:
            self._debounce.start()

    def tokenizer_name(self) -> str:
        """The tokenizer the shown forms were encoded with ("" for none)."""
        name = self.tokenizer.currentText()
        return "" if name == NO_TOKENIZER else name

    def request(self) -> None:
        """Ask the encoding process about the text as it is now."""
        chosen = dict(self._chosen())
        name = self.tokenizer.currentText()
        key = self.service.add_tokenizer(chosen[name]) if name in chosen else None
        self._latest = self.service.unicode(key, self.text.toPlainText())

    def is_current(self) -> bool:
        return not self._debounce.isActive() and self.report is not None and self._shown == self._latest

    def _on_unicoded(self, request_id: int, report: object) -> None:
        if request_id != self._latest or not isinstance(report, dict):
            return
        self._shown = request_id
        self.show_report(report)

    def _on_service_failed(self, request_id: int, message: str) -> None:
        if request_id == self._latest:
            say(self.flags, message, error=True)

    def show_report(self, report: dict[str, object]) -> None:
        self.report = report
        points = report["points"]
        forms = report["forms"]
        flags = report["flags"]
        assert isinstance(points, list) and isinstance(forms, list) and isinstance(flags, dict)
        rows: list[list[str | int | float | None]] = []
        for point in points:
            assert isinstance(point, dict)
            character = str(point["character"])
            rows.append([
                int(point["offset"]), character if character.isprintable() and not point["flags"] else " ",
                str(point["code"]), str(point["name"]), f"{point['category']} ({point['category_name']})", str(point["script"]),
                ", ".join(str(form) for form in point["changes"]), ", ".join(str(flag) for flag in point["flags"]),
            ])  # fmt: skip
        self.points_model.set_rows(POINT_COLUMNS, rows)
        self.points.resizeColumnsToContents()
        self.forms.setRowCount(len(forms))
        for r, form in enumerate(forms):
            assert isinstance(form, dict)
            shown = form.get("shown")
            ids = form["ids"]
            same_ids = form["same_ids"]
            cells = [
                str(form["form"]), "yes" if form["equals_original"] else "no",
                "—" if same_ids is None else ("yes" if same_ids else "no"),
                str(len(ids)) if isinstance(ids, list) else "—",
                " · ".join(str(token) for token in shown) if isinstance(shown, list) else "",
                ", ".join(str(i) for i in ids) if isinstance(ids, list) else "",
                str(form["code_points"]), _visible(str(form["text"])),
            ]  # fmt: skip
            for c, value in enumerate(cells):
                item = QTableWidgetItem(value)
                if c in (1, 2) and value == "no":
                    item.setForeground(QColor(ERROR_COLOR))
                if c in (4, 5, 7):
                    item.setToolTip(value)
                self.forms.setItem(r, c, item)
        self.forms.resizeColumnsToContents()
        for c in range(self.forms.columnCount()):
            self.forms.setColumnWidth(c, min(self.forms.columnWidth(c), FORM_COLUMN_PX))
        counts = flags["counts"]
        assert isinstance(counts, dict)
        found = [(flag, int(counts.get(flag, 0))) for flag in FLAGS if int(counts.get(flag, 0))]
        if found:
            self.flags.setText("Flagged: " + "; ".join(f"<b>{count} {flag}</b> ({FLAG_MEANINGS.get(flag, '')})" for flag, count in found))
            self.flags.setStyleSheet(f"color: {ERROR_COLOR}")
        else:
            self.flags.setText("Nothing flagged: no zero-width or bidi characters, unusual spaces, controls or look-alikes.")
            self.flags.setStyleSheet("")

    # -- the corpus ----------------------------------------------------------------------------

    def count_corpus(self) -> None:
        self._started = time.monotonic()
        say(self.corpus_status, "Counting…")
        self._counting(True)
        self.job.start(corpus_forms_main, {"files": self._corpus()})

    def stop_counting(self) -> None:
        if self.job.is_running():
            self.job.kill()
            say(self.corpus_status, "Stopped; the counts shown are the last count's." if self.corpus_results else "Stopped.")
        self._counting(False)

    def _counting(self, running: bool) -> None:
        self.corpus_button.setEnabled(not running)
        self.corpus_stop.setEnabled(running)

    def _on_job_progressed(self, record: object) -> None:
        if isinstance(record, tuple) and len(record) == 5:
            position, total, path, read, size = record
            done = f", {int(read) / MB:,.1f} of {int(size) / MB:,.1f} MB" if int(size) >= MB else ""
            self.corpus_status.setText(f"Counting {os.path.basename(str(path))} ({int(position) + 1} of {int(total)}{done})…")

    def _on_job_finished(self, answer: object) -> None:
        self._counting(False)
        assert isinstance(answer, list)
        self.show_corpus([item for item in answer if isinstance(item, dict)])
        lines = sum(int(str(item["lines"])) for item in self.corpus_results)
        self.corpus_status.setText(f"{len(self.corpus_results)} file{'s' if len(self.corpus_results) != 1 else ''}, {lines:,} lines, in {time.monotonic() - self._started:.1f} s. Choose a count for its first lines.")

    def _on_job_failed(self, message: str) -> None:
        self._counting(False)
        say(self.corpus_status, f"The count stopped: {message}", error=True)

    def show_corpus(self, results: list[dict[str, object]]) -> None:
        self.corpus_results = results
        rows: list[list[str]] = []
        for result in results:
            changed = result["changed"]
            flagged = result["flagged"]
            assert isinstance(changed, dict) and isinstance(flagged, dict)
            cells = [os.path.basename(str(result["source"])), f"{int(str(result['lines'])):,}"]
            cells += [f"{int(changed.get(form, 0)):,}" for form in FORMS] + [f"{int(flagged.get(flag, 0)):,}" for flag in FLAGS]
            rows.append(cells)
        fill_table(self.corpus_table, rows)
        for r, result in enumerate(results):
            item = self.corpus_table.item(r, 0)
            if item is not None:
                item.setToolTip(str(result["source"]))  # (the whole path)

    def _on_corpus_cell_changed(self, row: int, column: int, previous_row: int, previous_column: int) -> None:
        if not 0 <= row < len(self.corpus_results) or column < 2:
            return
        result = self.corpus_results[row]
        key: str = FORMS[column - 2] if column < 2 + len(FORMS) else FLAGS[column - 2 - len(FORMS)]
        examples = result["form_examples"] if column < 2 + len(FORMS) else result["flag_examples"]
        assert isinstance(examples, dict)
        lines: list[str] = []
        for example in examples.get(key, []):
            assert isinstance(example, dict)
            lines.append(f"line {example['line_number']}: {_visible(str(example['text']))}")
            if example.get("form_text"):
                lines.append(f"   {key}: {_visible(str(example['form_text']))}")
        self.examples.setPlainText("\n".join(lines) if lines else f"No line of {result['source']} is counted under {key}.")


def _visible(text: str) -> str:
    """`text` with the characters that draw nothing shown by their code (⟨U+200B⟩), line breaks as ⏎."""
    shown: list[str] = []
    for character in text:
        if character == "\n":
            shown.append("⏎")
        elif not character.isprintable() or character in "\u200b\u200c\u200d\u2060\ufeff\u00ad\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f":
            shown.append(f"⟨U+{ord(character):04X}⟩")
        else:
            shown.append(character)
    return "".join(shown)
