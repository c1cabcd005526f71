"""`AuditTab`: what text costs under the project's tokenizers, over the shipped declarations (one per
language, article-aligned), the shipped code samples and the user's own files: a summary per
tokenizer with the embedding's cost, every language's premium over English, the median premium
per script, and every figure of every tokenizer and text in a sortable table; saved as CSV, as
a PNG of a chart, or as the self-contained HTML report `tokenizer-workbench audit --html` writes.

The measuring runs in a child process (`workbench.jobs.children.audit`), which reports each
text as it is done; the tab only draws what comes back.
"""

from __future__ import annotations

import os
import time
from functools import partial
from typing import Final

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QImage, QImageWriter, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableView,
    QTableWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from engine.analysis.audit import COMPRESSION_NOTE, DTYPE_BYTES, EmbeddingCost
from engine.formats.files import write_text_atomically
from workbench.core.audit_report import EMBEDDING_HEADERS, SUMMARY_HEADERS, unicode_section, with_sections
from workbench.core.vocab_reports import CURVE_NOTE, comparison_section, curves_section, health_section
from workbench.core.parallel_text import load_udhr
from workbench.jobs.children.audit import audit_main, audit_payload, warm_up
from workbench.jobs.runners.child_job import ChildJob
from workbench.jobs.runners.encoding import EncodingRunner
from workbench.jobs.runners.saving import Worker
from workbench.window.document import ProjectDocument
from workbench.window.guide import HelpLink
from workbench.window.prompts import Prompts
from workbench.window.views.audit_charts import EmbeddingChart, PremiumChart, ScriptChart
from workbench.window.views.heading import say
from workbench.window.views.audit_table import CostTableModel, fill_table
from workbench.window.views.health_pages import ComparePage, HealthPage
from workbench.window.views.size_page import SizePage
from workbench.window.views.unicode_page import UnicodePage

DEFAULT_HIDDEN: Final = 768
# Pages of the results, in order.
SUMMARY_PAGE, PREMIUM_PAGE, SCRIPT_PAGE, TABLE_PAGE, SIZE_PAGE, HEALTH_PAGE, COMPARE_PAGE, UNICODE_PAGE = range(8)
# The user guide's section on each page, in page order (the Summary: the tab's own, which
# begins with the choices above the pages).
PAGE_SECTIONS: Final = (
    "audit", "premium-per-language", "per-script", "every-text", "vocabulary-size", "vocabulary-health",
    "two-vocabularies", "unicode",
)  # fmt: skip
# How tall one script's row is in the script chart (px), so its name stays readable.
SCRIPT_ROW_PX: Final = 20
NO_RESULT: Final = "Run an audit first."
# How many rows of the table its columns are fitted to.
RESIZE_ROWS: Final = 20
# How long after the tab is shown, or an audit ends, the next audit's process starts (ms).
PRESTART_DELAY_MS: Final = 300


class AuditTab(QWidget):
    """The Audit tab. `ran(seconds)` when an audit's figures are shown; `open_token(tokenizer
    name, id)` when a listed token is to be shown in the Vocabulary tab."""

    ran = Signal(float)
    open_token = Signal(str, int)

    def __init__(self, document: ProjectDocument, prompts: Prompts, service: EncodingRunner) -> None:
        super().__init__()
        self.document = document
        self.prompts = prompts
        self.result: dict[str, object] | None = None
        # the pages not drawn since the result came (`_draw_page`), and whether what the
        # embedding costs is still to draw on the summary
        self._stale: set[int] = set()
        self._chart_due = False
        # the tokenizers (name -> tokenizer.json) the shown result measured
        self._measured: dict[str, str] = {}
        self._started = 0.0
        # the tokenizers the running audit measures; the file being written
        self._pending: dict[str, str] = {}
        self._writing = ""
        self.job = ChildJob("audit", self)
        self.writer = Worker(self)

        # -- what to measure
        self.tokenizers = QListWidget()
        self.tokenizers.setMaximumHeight(90)
        self.tokenizers.setToolTip("The project's trained and imported tokenizers; File ▸ Import Tokenizer adds one from a file.")
        self.languages_box = QCheckBox(f"Declarations of Human Rights in {len(load_udhr())} versions")
        self.languages_box.setChecked(True)
        self.languages = QLineEdit()
        self.languages.setPlaceholderText("every shipped language; or ISO 639-3 codes: eng, hin, jpn, cmn")
        self.languages.setToolTip(
            "Leave empty for every shipped language, or list ISO 639-3 codes (or package keys such as srp_cyrl), "
            "comma-separated. `tokenizer-workbench audit --list-languages` lists them all."
        )
        self.code_box = QCheckBox("Code samples (Python, TypeScript, Rust, JSON)")
        self.code_box.setChecked(True)
        self.files = QListWidget()
        self.files.setMaximumHeight(70)
        self.add_files_button = QPushButton("Add Files…")
        self.add_folder_button = QPushButton("Add Folder…")
        self.remove_file_button = QPushButton("Remove")
        self.hidden = QSpinBox()
        self.hidden.setRange(1, 1_000_000)
        self.hidden.setValue(DEFAULT_HIDDEN)
        self.hidden.setToolTip("The model's hidden size: each token's embedding has this many numbers.")
        self.dtype = QComboBox()
        self.dtype.addItems(list(DTYPE_BYTES))
        self.dtype.setCurrentText("bf16")
        self.untied = QCheckBox("Untied output projection")
        self.untied.setToolTip("The output projection is a matrix of its own, as large as the input embedding (tied: they are one).")
        self.run_button = QPushButton("Run Audit")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.setFormat("")
        self.progress.setValue(0)
        self.status = QLabel("Choose tokenizers and texts, then Run Audit.")
        self.status.setWordWrap(True)
        self.note = QLabel(COMPRESSION_NOTE)
        self.note.setWordWrap(True)
        self.note.setEnabled(False)

        # -- the results
        self.summary = QTableWidget(0, len(SUMMARY_HEADERS))
        self.summary.setHorizontalHeaderLabels(list(SUMMARY_HEADERS))
        self.embedding_note = QLabel()
        self.embedding = QTableWidget(0, len(EMBEDDING_HEADERS))
        self.embedding.setHorizontalHeaderLabels(list(EMBEDDING_HEADERS))
        for table in (self.summary, self.embedding):
            table.setMinimumHeight(60)
            table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
            table.verticalHeader().hide()
            table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.embedding_chart = EmbeddingChart()
        self.premium_chart = PremiumChart()
        self.script_chart = ScriptChart()
        self.script_scroll = QScrollArea()
        self.script_scroll.setWidgetResizable(True)
        self.script_scroll.setWidget(self.script_chart)
        self.table_model = CostTableModel()
        self.table = QTableView()
        self.table.setModel(self.table_model)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)  # (the order measured)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter: a tokenizer, language, ISO code, script or kind")
        self.filter.setClearButtonEnabled(True)
        self.pages = QTabWidget()
        summary_page = QWidget()
        summary_layout = QVBoxLayout(summary_page)
        summary_layout.addWidget(self.summary)
        summary_layout.addWidget(QLabel("<b>What the embedding costs</b>"))
        summary_layout.addWidget(self.embedding_note)
        embedding_row = QHBoxLayout()
        embedding_row.addWidget(self.embedding, 3)
        embedding_row.addWidget(self.embedding_chart, 2)
        summary_layout.addLayout(embedding_row, 1)
        table_page = QWidget()
        table_layout = QVBoxLayout(table_page)
        table_layout.addWidget(self.filter)
        table_layout.addWidget(self.table, 1)
        self.pages.addTab(summary_page, "Summary")
        self.pages.addTab(self.premium_chart, "Premium per Language")
        self.pages.addTab(self.script_scroll, "Per Script")
        self.pages.addTab(table_page, "Every Text")
        self.size_page = SizePage(self.document, self.chosen, self.paths, self.embedding_bytes)
        self.pages.addTab(self.size_page, "Vocabulary Size")
        self.health_page = HealthPage(self.chosen, self.texts_chosen, self._corpus)
        self.compare_page = ComparePage(self.chosen, self.texts_chosen, self._corpus)
        self.pages.addTab(self.health_page, "Vocabulary Health")
        self.pages.addTab(self.compare_page, "Two Vocabularies")
        self.unicode_page = UnicodePage(service, self.chosen, self._corpus)
        self.pages.addTab(self.unicode_page, "Unicode")
        # (at the right end of the pages' tab bar)
        self.help_link = HelpLink(self.help_section, "the Audit tab")
        self.pages.setCornerWidget(self.help_link, Qt.Corner.TopRightCorner)
        self.health_page.open_token.connect(self.open_token)
        self.compare_page.open_token.connect(self.open_token)
        self.csv_button = QPushButton("Export CSV…")
        self.html_button = QPushButton("Export HTML Report…")
        self.png_button = QPushButton("Save Chart as PNG…")

        # -- layout
        choices = QGroupBox("Audit")
        form = QFormLayout(choices)
        form.addRow("Tokenizers", self.tokenizers)
        languages_row = QHBoxLayout()
        languages_row.addWidget(self.languages_box)
        languages_row.addWidget(self.languages, 1)
        form.addRow("Texts", languages_row)
        form.addRow("", self.code_box)
        files_row = QHBoxLayout()
        files_row.addWidget(self.files, 1)
        files_buttons = QVBoxLayout()
        for button in (self.add_files_button, self.add_folder_button, self.remove_file_button):
            files_buttons.addWidget(button)
        files_buttons.addStretch(1)
        files_row.addLayout(files_buttons)
        form.addRow("Your files", files_row)
        embedding_row = QHBoxLayout()
        embedding_row.addWidget(QLabel("hidden size"))
        embedding_row.addWidget(self.hidden)
        embedding_row.addWidget(QLabel("stored in"))
        embedding_row.addWidget(self.dtype)
        embedding_row.addWidget(self.untied)
        embedding_row.addStretch(1)
        form.addRow("Embedding", embedding_row)
        run_row = QHBoxLayout()
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.stop_button)
        run_row.addWidget(self.progress, 1)
        exports = QHBoxLayout()
        exports.addWidget(self.note, 1)
        exports.addWidget(self.csv_button)
        exports.addWidget(self.html_button)
        exports.addWidget(self.png_button)
        # (the choices scroll and the two parts share the height: the window fits small screens)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(choices)
        self.choices_area = QScrollArea()
        self.choices_area.setWidgetResizable(True)
        self.choices_area.setFrameShape(QScrollArea.Shape.NoFrame)
        self.choices_area.setWidget(top)
        bottom = QWidget()
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addLayout(run_row)
        bottom_layout.addWidget(self.status)
        bottom_layout.addWidget(self.pages, 1)
        bottom_layout.addLayout(exports)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.choices_area)
        self.splitter.addWidget(bottom)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.splitter)

        self.run_button.clicked.connect(self.run)
        self.stop_button.clicked.connect(self.stop)
        self.add_files_button.clicked.connect(self.add_files)
        self.add_folder_button.clicked.connect(self.add_folder)
        self.remove_file_button.clicked.connect(self.remove_files)
        self.languages_box.toggled.connect(self._update_buttons)
        self.code_box.toggled.connect(self._update_buttons)
        self.filter.textChanged.connect(self.table_model.set_filter)
        self.csv_button.clicked.connect(partial(self.export_text, "csv"))
        self.html_button.clicked.connect(partial(self.export_text, "html"))
        self.png_button.clicked.connect(self.export_png)
        self.pages.currentChanged.connect(self._draw_page_soon)
        self.pages.currentChanged.connect(self._update_buttons)
        self.tokenizers.itemChanged.connect(self._update_buttons)
        self.tokenizers.itemChanged.connect(self.compare_page.follow)
        self.tokenizers.itemChanged.connect(self.unicode_page.follow)
        self.size_page.drawn.connect(self._update_buttons)
        self.job.progressed.connect(self._on_job_progressed)
        self.job.finished.connect(self._on_job_finished)
        self.job.failed.connect(self._on_job_failed)
        self.writer.finished.connect(self._on_writer_finished)
        self.writer.failed.connect(self._on_writer_failed)
        self.files.itemSelectionChanged.connect(self._update_buttons)
        document.changed.connect(self._follow_project)
        self._follow_project()

    # -- what to measure -----------------------------------------------------------------------

    def _follow_project(self) -> None:
        """The list of tokenizers as the project's are now (those with a result), their checks
        kept by name; a new one checked. A shown result measured with a tokenizer since changed
        says so."""
        checked = {self.tokenizers.item(i).text(): self.tokenizers.item(i).checkState() for i in range(self.tokenizers.count())}
        self.tokenizers.blockSignals(True)
        self.tokenizers.clear()
        for entry in self.document.project.tokenizers:
            if entry.trained_json is None:
                continue
            item = QListWidgetItem(entry.name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(checked.get(entry.name, Qt.CheckState.Checked))
            self.tokenizers.addItem(item)
        self.tokenizers.blockSignals(False)
        self.compare_page.follow()
        self.unicode_page.follow()
        if self.result is not None and not self.job.is_running():
            current = {entry.name: entry.trained_json for entry in self.document.project.tokenizers}
            if any(current.get(name) != text for name, text in self._measured.items()):
                self._say("The project's tokenizers changed since this audit: Run Audit again to measure them as they are now.")
        self._update_buttons()

    def chosen(self) -> list[tuple[str, str]]:
        """The checked tokenizers: (name, tokenizer.json), in the project's order."""
        names = {self.tokenizers.item(i).text() for i in range(self.tokenizers.count()) if self.tokenizers.item(i).checkState() == Qt.CheckState.Checked}
        return [
            (entry.name, entry.trained_json)
            for entry in self.document.project.tokenizers
            if entry.trained_json is not None and entry.name in names
        ]

    def texts_chosen(self) -> dict[str, object]:
        """The texts chosen above, as `audit_payload` has them ("languages", "code", "paths")."""
        return {"languages": self.language_codes(), "code": self.code_box.isChecked(), "paths": self.paths()}

    def _corpus(self) -> list[str]:
        return [item.path for item in self.document.project.corpus]

    def set_chosen(self, names: list[str]) -> None:
        """Check these tokenizers (by name) and no others."""
        for i in range(self.tokenizers.count()):
            item = self.tokenizers.item(i)
            item.setCheckState(Qt.CheckState.Checked if item.text() in names else Qt.CheckState.Unchecked)

    def paths(self) -> list[str]:
        return [self.files.item(i).text() for i in range(self.files.count())]

    def add_paths(self, paths: list[str]) -> None:
        known = set(self.paths())
        for path in paths:
            if path not in known:
                self.files.addItem(path)
                known.add(path)
        self._update_buttons()

    def add_files(self) -> None:
        self.add_paths(self.prompts.corpus_files(self._folder(), "Add files to measure"))

    def add_folder(self) -> None:
        folder = self.prompts.corpus_folder(self._folder(), "Add a folder of files to measure")
        if folder:
            self.add_paths([folder])

    def remove_files(self) -> None:
        for item in self.files.selectedItems():
            self.files.takeItem(self.files.row(item))
        self._update_buttons()

    def _folder(self) -> str:
        if self.files.count():
            return os.path.dirname(self.files.item(self.files.count() - 1).text())
        if self.document.path and not self.document.is_template:
            return os.path.dirname(self.document.path)
        return os.path.expanduser("~")

    def language_codes(self) -> list[str] | None:
        """The shipped languages asked for: None for all, [] for none."""
        if not self.languages_box.isChecked():
            return []
        codes = [code.strip() for code in self.languages.text().replace(";", ",").split(",") if code.strip()]
        return codes or None

    # -- running -------------------------------------------------------------------------------

    def why_not_run(self) -> str:
        """Why Run Audit is unavailable ("" when it is not)."""
        if self.job.is_running():
            return "An audit is running."
        if not self.tokenizers.count():
            return "The project has no trained tokenizer: train one (Train tab) or import one (File ▸ Import Tokenizer)."
        if not self.chosen():
            return "Check at least one tokenizer."
        if not self.languages_box.isChecked() and not self.code_box.isChecked() and not self.files.count():
            return "Choose texts: the declarations, the code samples or files of your own."
        return ""

    def run(self) -> None:
        why = self.why_not_run()
        if why:
            self._say(why, error=True)
            return
        chosen = self.chosen()
        payload = audit_payload(
            chosen, self.language_codes(), self.code_box.isChecked(), self.paths(),
            self.hidden.value(), self.dtype.currentText(), not self.untied.isChecked(), self.document.title,
        )  # fmt: skip
        self._pending = dict(chosen)
        self._started = time.monotonic()
        self.progress.setRange(0, 0)
        self.progress.setFormat("%v of %m texts")
        self._say("Reading the texts…")
        self.job.start(audit_main, payload)
        self._update_buttons()

    def stop(self) -> None:
        if self.job.is_running():
            self.job.kill()
            self._progress_at_rest("stopped")
            self._say("Stopped; the figures shown are the last audit's." if self.result is not None else "Stopped.")
            self._prestart_soon()
        self._update_buttons()

    def shutdown(self) -> None:
        self.job.shutdown()
        for job in (self.size_page.job, self.health_page.job, self.compare_page.job, self.unicode_page.job):
            job.kill()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._prestart_soon()

    def _prestart_soon(self) -> None:
        # (starting a process takes the GUI thread 7-9 ms: after the tab or the figures are drawn)
        QTimer.singleShot(PRESTART_DELAY_MS, self._prestart)

    def _prestart(self) -> None:
        """While the user chooses, the next audit's process starts, reads the shipped texts and
        starts its second process (`warm_up`): Run Audit then measures at once, not a second
        later. Only while the tab is shown and no audit runs."""
        if self.isVisible() and not self.job.is_running():
            self.job.prestart(audit_main, warm_up)

    def is_running(self) -> bool:
        return self.job.is_running()

    def _on_job_progressed(self, record: object) -> None:
        if not isinstance(record, tuple) or len(record) != 3:
            return
        done, total, what = int(record[0]), int(record[1]), str(record[2])
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        elapsed = time.monotonic() - self._started
        left = f"; about {elapsed / done * (total - done):.0f} s left" if done >= 8 and done < total else ""
        self._say(f"Measuring {what} ({done:,} of {total:,} texts{left})")

    def _on_job_finished(self, result: object) -> None:
        if not isinstance(result, dict):
            self._on_job_failed("the audit process sent a result the window cannot read")
            return
        self.show_result(result)
        self._measured = self._pending
        seconds = time.monotonic() - self._started
        texts = int(str(result["texts"]))
        names = list(self._measured)
        self._say(
            f"Measured {texts:,} texts with {len(names)} tokenizer{'s' if len(names) != 1 else ''} in {seconds:.1f} s. "
            "Point at a column's heading for what it means."
        )
        self.ran.emit(seconds)
        self._prestart_soon()

    def _on_job_failed(self, message: str) -> None:
        self._progress_at_rest("")
        self._say(f"The audit stopped: {message}", error=True)
        self._update_buttons()
        self._prestart_soon()

    def show_result(self, result: dict[str, object]) -> None:
        """Draw an audit's figures (`workbench.jobs.children.audit.audit_result`'s): the page
        shown now, each other page when it is first shown (a page drawn and painted takes
        tens of milliseconds; all at once, the hand-over kept the window from answering for
        over 100 ms)."""
        self.result = result
        self._progress_at_rest("done")
        self._stale = {SUMMARY_PAGE, PREMIUM_PAGE, SCRIPT_PAGE, TABLE_PAGE}
        self._draw_page(self.pages.currentIndex())
        self._update_buttons()

    def _draw_page_soon(self, page: int) -> None:
        # (in the event loop's next turn: the page switch paints first; drawn and painted in one
        # turn, the premium and table pages kept the window from answering for up to 60 ms)
        QTimer.singleShot(0, partial(self._draw_page, page))

    def _draw_page(self, page: int) -> None:
        """Draw the result on `page` if it has not been drawn since the result came."""
        result = self.result
        if result is None or page not in self._stale:
            return
        self._stale.discard(page)
        if page == SUMMARY_PAGE:
            fill_table(self.summary, _rows(result["summary"]))
            # (the summary's rows all shown, no more: the embedding gets the rest)
            rows_height = sum(self.summary.rowHeight(r) for r in range(self.summary.rowCount()))
            self.summary.setFixedHeight(self.summary.horizontalHeader().height() + rows_height + 2 * self.summary.frameWidth() + 2)
            # (what the embedding costs in the next turn of the event loop: tables and chart
            # in one kept the window from answering for up to 70 ms at the hand-over)
            self._chart_due = True
            QTimer.singleShot(0, self._draw_embedding)
        elif page == PREMIUM_PAGE:
            order, series = _pair(result["premiums"])
            uncovered = result["uncovered"]
            assert isinstance(uncovered, dict)
            marks = {str(name): [bool(mark) for mark in flags] for name, flags in uncovered.items()}
            self.premium_chart.show_premiums(_strings(order), _series(series), marks)
        elif page == SCRIPT_PAGE:
            scripts, names, medians, languages = _quad(result["scripts"])
            script_list = _strings(scripts)
            self.script_chart.setMinimumHeight(SCRIPT_ROW_PX * len(script_list) + 120)
            self.script_chart.show_scripts(script_list, _strings(names), _medians(medians), _counts(languages))
        elif page == TABLE_PAGE:
            self._fill_table(result)

    def _draw_embedding(self) -> None:
        result = self.result
        if not self._chart_due or result is None:
            return
        self._chart_due = False
        fill_table(self.embedding, _rows(result["embedding"]))
        self.embedding_note.setText(str(result["embedding_note"]))
        points = result["embedding_points"]
        assert isinstance(points, list)
        self.embedding_chart.show_points([(str(label), int(size), int(size_bytes), bool(own)) for label, size, size_bytes, own in points])

    def _fill_table(self, result: dict[str, object]) -> None:
        columns = _strings(result["columns"])
        rows = result["rows"]
        causes = result["causes"]
        assert isinstance(rows, list) and isinstance(causes, list)
        self.table_model.set_rows(columns, rows, causes)
        for index, name in enumerate(columns):
            # (a declaration's text is its language: the CSV keeps both, the table one)
            self.table.setColumnHidden(index, name == "language")
        header = self.table.horizontalHeader()
        if "premium_over_english" in columns and "tokens" in columns:
            # the premium beside the tokens, where it is seen without scrolling
            premium = header.visualIndex(columns.index("premium_over_english"))
            header.moveSection(premium, header.visualIndex(columns.index("tokens")) + 1)
        # subtle: fitted to every one of a thousand rows, the columns took a second of the GUI
        # thread (every cell formatted and measured); the first rows tell the widths as well.
        header.setResizeContentsPrecision(RESIZE_ROWS)
        self.table.resizeColumnsToContents()

    def flush(self) -> None:
        """Draw every page of the shown result now (tests, screenshots)."""
        for page in sorted(self._stale):
            self._draw_page(page)
        self._draw_embedding()
        self.premium_chart.finish()

    def report_sections(self) -> list[str]:
        """The HTML report's sections for the vocabulary pages that have results."""
        return [
            curves_section(self.size_page.curves, self.embedding_bytes(), CURVE_NOTE),
            health_section(self.health_page.results),
            comparison_section(self.compare_page.result),
            unicode_section(self.unicode_page.report, self.unicode_page.corpus_results, self.unicode_page.tokenizer_name()),
        ]

    def embedding_bytes(self) -> int:
        """What one vocabulary entry's embedding costs, as the tab's embedding fields say."""
        return EmbeddingCost(1, self.hidden.value(), self.dtype.currentText(), not self.untied.isChecked()).bytes

    # -- saving --------------------------------------------------------------------------------

    def export_text(self, kind: str) -> None:
        """Save the CSV ("csv") or the HTML report ("html") of the shown audit where the user says."""
        if self.result is None:
            self._say(NO_RESULT, error=True)
            return
        title = "CSV (*.csv);;All files (*)" if kind == "csv" else "HTML report (*.html);;All files (*)"
        path = self.prompts.export_file(os.path.join(self._folder(), f"audit.{kind}"), title)
        if not path:
            return
        text = str(self.result[kind])
        if kind == "html":
            # (with what the other pages have measured since)
            text = with_sections(text, self.report_sections())
        self._say(f"Writing {path}…")
        self._writing = path
        self.writer.start(partial(write_text_atomically, path, text))

    def export_png(self) -> None:
        """Save the chart shown (premium per language, per script, or the size curves) as a PNG."""
        if self.result is None and not (self.pages.currentIndex() == SIZE_PAGE and self.size_page.curves):
            self._say(NO_RESULT, error=True)
            return
        page = self.pages.currentIndex()
        chart: QWidget = {SCRIPT_PAGE: self.script_chart, SIZE_PAGE: self.size_page.chart}.get(page, self.premium_chart)
        name = {SCRIPT_PAGE: "audit-scripts.png", SIZE_PAGE: "vocabulary-size.png"}.get(page, "audit-premiums.png")
        path = self.prompts.export_file(os.path.join(self._folder(), name), "PNG image (*.png);;All files (*)")
        if not path:
            return
        self.flush()  # (a chart drawn over several turns is whole before it is grabbed)
        image = chart.grab().toImage()
        self._say(f"Writing {path}…")
        self._writing = path
        self.writer.start(partial(_save_image, image, path))

    def _on_writer_finished(self, number: int, answer: object) -> None:
        self._say(f"Wrote {self._writing}.")

    def _on_writer_failed(self, number: int, message: str) -> None:
        self._say(f"Could not write {self._writing}: {message}", error=True)

    # -- state ---------------------------------------------------------------------------------

    def _update_buttons(self) -> None:
        running = self.job.is_running()
        why = "" if running else self.why_not_run()
        self.run_button.setEnabled(not running and not why)
        self.run_button.setToolTip(why or "Measure the chosen texts with the checked tokenizers, in a process of its own.")
        self.stop_button.setEnabled(running)
        shown = self.result is not None
        for button in (self.csv_button, self.html_button):
            button.setEnabled(shown)
            button.setToolTip("" if shown else NO_RESULT)
        page = self.pages.currentIndex()
        if page == SIZE_PAGE:
            self.png_button.setEnabled(bool(self.size_page.curves))
            self.png_button.setToolTip("" if self.size_page.curves else "Draw the curves first.")
        else:
            chart = page in (PREMIUM_PAGE, SCRIPT_PAGE)
            self.png_button.setEnabled(shown and chart)
            self.png_button.setToolTip(
                NO_RESULT if not shown else "" if chart else "Show a chart (Premium per Language, Per Script, Vocabulary Size) to save it."
            )
        self.remove_file_button.setEnabled(bool(self.files.selectedItems()))
        self.size_page.follow()
        for widget in (self.tokenizers, self.languages_box, self.code_box, self.files, self.add_files_button, self.add_folder_button, self.hidden, self.dtype, self.untied):
            widget.setEnabled(not running)
        self.languages.setEnabled(not running and self.languages_box.isChecked())

    def _progress_at_rest(self, text: str) -> None:
        """The progress bar when no audit runs: full and saying `text` ("done"), else empty."""
        self.progress.setRange(0, 1)
        self.progress.setValue(1 if text == "done" else 0)
        self.progress.setFormat(text)

    def _say(self, text: str, error: bool = False) -> None:
        say(self.status, text, error)

    def help_section(self) -> str:
        """The user guide's section on the page shown."""
        return PAGE_SECTIONS[self.pages.currentIndex()]

    def apply_palette(self) -> None:
        self.size_page.chart.apply_palette()
        self.embedding_chart.apply_palette()
        self.premium_chart.apply_palette()
        self.script_chart.apply_palette()


def _save_image(image: QImage, path: str) -> None:
    """Write `image` as a PNG to `path` (on the writer's thread: a QImage may be saved off the
    GUI thread); OSError when it cannot be."""
    writer = QImageWriter(path, b"png")
    if not writer.write(image):
        raise OSError(f"{path}: the image could not be written there ({writer.errorString()})")


# -- reading the result's plain lists ---------------------------------------------------------


def _strings(value: object) -> list[str]:
    assert isinstance(value, (list, tuple))
    return [str(item) for item in value]


def _rows(value: object) -> list[list[str]]:
    assert isinstance(value, list)
    return [_strings(row) for row in value]


def _pair(value: object) -> tuple[object, object]:
    assert isinstance(value, tuple) and len(value) == 2
    return value[0], value[1]


def _quad(value: object) -> tuple[object, object, object, object]:
    assert isinstance(value, tuple) and len(value) == 4
    return value[0], value[1], value[2], value[3]


def _series(value: object) -> dict[str, list[float | None]]:
    assert isinstance(value, dict)
    return {str(name): [None if item is None else float(item) for item in values] for name, values in value.items()}


def _medians(value: object) -> dict[str, dict[str, float]]:
    assert isinstance(value, dict)
    return {str(script): {str(name): float(median) for name, median in by_name.items()} for script, by_name in value.items()}


def _counts(value: object) -> dict[str, int]:
    assert isinstance(value, dict)
    return {str(key): int(count) for key, count in value.items()}
