"""`CompareTab`: one text under two to four tokenizers side by side (trained and imported ones),
with the rule-based baselines (characters, UTF-8 bytes, words, sentences) available as columns.

Each column paints its pieces over the text and gives its counts; a token boundary that another
tokenizer column does not have is underlined in red (baselines are references: they are shown,
not compared). The work happens in the encoding process.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from engine.analysis import baselines
from engine.analysis.inspection import Counts
from workbench.window.document import ProjectDocument
from workbench.window.guide import HelpLink
from workbench.jobs.runners.encoding import EncodingRunner, ints, spans, strs
from workbench.window.tabs.encode import SAMPLE_TEXT
from workbench.jobs.children.encoding import UNKNOWN
from workbench.core.formatting import ERROR_COLOR, ERROR_STYLE
from workbench.core.settings import Settings
from workbench.window.views.token_view import Spans, TokenTextEdit
from workbench.window.views.when_shown import WhenShown

DEBOUNCE_MS: Final = 80
MAX_COLUMNS: Final = 4
MIN_COLUMNS: Final = 2
BASELINE: Final = "baseline"
TOKENIZER: Final = "tokenizer"


class Column(QWidget):
    """One column: what it shows (a tokenizer of the project or a baseline), its counts, and
    the text with its pieces."""

    def __init__(self) -> None:
        super().__init__()
        self.choice = QComboBox()
        self.counts = QLabel()
        self.counts.setWordWrap(True)
        self.view = TokenTextEdit(read_only=True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 0, 2, 0)
        layout.addWidget(self.choice)
        layout.addWidget(self.counts)
        layout.addWidget(self.view, 1)


class CompareTab(QWidget):
    """The Compare tab."""

    def __init__(self, document: ProjectDocument, settings: Settings, service: EncodingRunner) -> None:
        super().__init__()
        self.document = document
        self.service = service
        self._latest = 0
        self._shown_id = 0
        # what each column shows: (source, key or baseline name, title)
        self._sources: list[tuple[str, str, str]] = []
        # the columns of the latest request, in the order of its results
        self._compared: list[Column] = []
        self.text = TokenTextEdit()
        self.text.set_text(SAMPLE_TEXT)
        self.text.setMaximumHeight(110)
        self.add_button = QPushButton("Add Column")
        self.remove_button = QPushButton("Remove Column")
        self.legend = QLabel(
            "Red underline: a token boundary another tokenizer column does not have. "
            "Wavy underline: characters several tokens share (the bytes of one character). "
            "Baselines: words are runs of letters and digits, or one other character; "
            "sentences end at . ! ? (not after Dr., e.g. and other abbreviations)."
        )
        self.legend.setWordWrap(True)
        self.legend.setEnabled(False)
        self.status = QLabel()
        self.columns: list[Column] = []
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Text"))
        bar.addStretch(1)
        bar.addWidget(self.add_button)
        bar.addWidget(self.remove_button)
        self.help_link = HelpLink(self.help_section, "the Compare tab")
        bar.addWidget(self.help_link)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.text)
        layout.addWidget(self.legend)
        layout.addWidget(self.status)
        layout.addWidget(self.splitter, 1)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.request_comparison)
        self.text.edited.connect(self._debounce.start)
        self.add_button.clicked.connect(self.add_column)
        self.remove_button.clicked.connect(self.remove_column)
        service.compared.connect(self._on_service_compared)
        service.failed.connect(self._on_service_failed)
        # (hidden behind another tab, its choices follow the project when it is shown)
        self._when_shown = WhenShown(self, self._follow_project)
        document.changed.connect(self._on_document_changed)
        document.active_changed.connect(self._when_shown.request)
        for _ in range(3):
            self.add_column()
        self.set_whitespace_glyphs(settings.show_whitespace)
        self._follow_project()

    # -- the columns ---------------------------------------------------------------------------

    def available(self) -> list[tuple[str, str, str]]:
        """What a column can show: the project's tokenizers that have a result, then the baselines."""
        return [(source, value, title) for source, value, title, _ in self._options()]

    def _options(self) -> list[tuple[str, str, str, object]]:
        """`available`, each with what identifies it across renames and retraining: the
        project's entry for a tokenizer, the name for a baseline."""
        found: list[tuple[str, str, str, object]] = []
        for entry in self.document.project.tokenizers:
            if entry.trained_json is not None:
                found.append((TOKENIZER, entry.trained_json, entry.name, entry))
        for name in baselines.BASELINES:
            found.append((BASELINE, name, f"{name} (baseline)", name))
        return found

    def add_column(self) -> None:
        if len(self.columns) >= MAX_COLUMNS:
            return
        column = Column()
        column.choice.currentIndexChanged.connect(self._debounce.start)
        self.columns.append(column)
        self.splitter.addWidget(column)
        self._fill_choices(column, len(self.columns) - 1)
        self._update_buttons()
        self._debounce.start()

    def remove_column(self) -> None:
        if len(self.columns) <= MIN_COLUMNS:
            return
        column = self.columns.pop()
        column.setParent(None)
        column.deleteLater()
        self._update_buttons()
        self._debounce.start()

    def _update_buttons(self) -> None:
        self.add_button.setEnabled(len(self.columns) < MAX_COLUMNS)
        self.remove_button.setEnabled(len(self.columns) > MIN_COLUMNS)

    def _fill_choices(self, column: Column, position: int) -> None:
        """The choices of a column, keeping its current choice when it is still there (under its
        new name after a rename); a new column takes the next tokenizer not shown yet, else the
        words baseline."""
        current = column.choice.currentData()
        options = self._options()
        column.choice.blockSignals(True)
        column.choice.clear()
        for _, _, title, identity in options:
            column.choice.addItem(title, identity)
        kept = [i for i, option in enumerate(options) if current is not None and _same(option[3], current)]
        if kept:
            column.choice.setCurrentIndex(kept[0])
        else:
            taken = [other.choice.currentData() for other in self.columns if other is not column]
            tokenizers = [
                i for i, option in enumerate(options) if option[0] == TOKENIZER and not any(_same(option[3], other) for other in taken)
            ]
            words = [i for i, option in enumerate(options) if option[2] == "words (baseline)"]
            column.choice.setCurrentIndex(tokenizers[0] if tokenizers else words[0])
        column.choice.blockSignals(False)

    def _on_document_changed(self) -> None:
        if not self.document.active_follows:
            self._when_shown.request()

    def _follow_project(self) -> None:
        """The columns' choices as the project's tokenizers are now; then compare again."""
        for position, column in enumerate(self.columns):
            self._fill_choices(column, position)
        self._debounce.start()

    # -- comparing -----------------------------------------------------------------------------

    def request_comparison(self) -> None:
        if self._when_shown.put_off():
            return  # (a hidden tab compares when it is shown)
        options = self._options()
        request: list[tuple[str, str]] = []
        self._compared = []
        self._sources = []
        for column in self.columns:
            current = column.choice.currentData()
            found = [option for option in options if current is not None and _same(option[3], current)]
            if not found:
                self._clear_column(column)
                continue
            source, value = found[0][0], found[0][1]
            name = self.service.add_tokenizer(value) if source == TOKENIZER else value
            request.append((source, name))
            self._compared.append(column)
            self._sources.append((source, name, column.choice.currentText()))
        if request:
            self._latest = self.service.compare(request, self.text.text())

    def _clear_column(self, column: Column) -> None:
        column.view.set_spans(Spans())
        column.counts.setText("")

    def _on_service_compared(self, request_id: int, results: list[dict[str, object]]) -> None:
        if request_id != self._latest:
            return
        self._shown_id = request_id
        # (the columns asked about, in order: a column without a choice was not)
        for column, result in zip(self._compared, results):
            if column not in self.columns:
                continue  # removed meanwhile
            pieces = spans(result["spans"])
            labels = strs(result["labels"])
            ids = ints(result["ids"])
            kinds = ints(result["kinds"])
            data = Spans(
                pieces,
                kinds,
                ids,
                labels,
                raw=strs(result["tokens"]),
                hexes=strs(result["hex"]),
                shared={start for start, _, _ in _shared(result["shared"])},
                marked=set(ints(result["unshared"])),
                ids=result["source"] == TOKENIZER,
            )
            if column.view.text() != self.text.text():
                column.view.set_text(self.text.text())
            column.view.set_spans(data)
            column.counts.setText(column_counts(Counts(*ints(result["counts"])), len(ints(result["unshared"])), kinds.count(UNKNOWN)))
        self.status.setText("")

    def _on_service_failed(self, request_id: int, message: str) -> None:
        if request_id in (self._latest, -1):
            self.status.setText(message)
            self.status.setStyleSheet(ERROR_STYLE)

    def help_section(self) -> str:
        """The user guide's section on this tab."""
        return "compare"

    def is_current(self) -> bool:
        return not self._when_shown.waiting and not self._debounce.isActive() and self._latest > 0 and self._shown_id == self._latest

    def set_whitespace_glyphs(self, on: bool) -> None:
        for column in self.columns:
            column.view.set_whitespace_glyphs(on)

    def choose(self, titles: list[str]) -> None:
        """Show these columns (by their titles in the choices), adding or removing columns."""
        self._when_shown.flush()
        while len(self.columns) < min(len(titles), MAX_COLUMNS):
            self.add_column()
        while len(self.columns) > max(len(titles), MIN_COLUMNS):
            self.remove_column()
        for column, title in zip(self.columns, titles):
            column.choice.setCurrentText(title)
        self.request_comparison()


def column_counts(total: Counts, unshared: int, unknown: int) -> str:
    """A column's counts line: "<b>3</b> pieces · 3.67 characters per piece · 3.00 per word ·
    1 boundary not shared · 1 unknown" (pieces: tokens, or a baseline's pieces)."""
    return (
        f"<b>{total.tokens:,}</b> piece{'s' if total.tokens != 1 else ''} · {total.characters_per_token:.2f} characters per piece"
        + (f" · {total.tokens_per_word:.2f} per word" if total.words else "")
        + (f" · <span style='color:{ERROR_COLOR}'>{unshared:,} boundar{'ies' if unshared != 1 else 'y'} not shared</span>" if unshared else "")
        + (f" · <span style='color:{ERROR_COLOR}'>{unknown:,} unknown</span>" if unknown else "")
    )


def _same(choice: object, other: object) -> bool:
    """Whether two choices are one: a tokenizer is its project entry (whatever its name), a
    baseline its name (a choice's data comes back from Qt as an equal string, not the same one)."""
    return choice is other or (isinstance(choice, str) and choice == other)


def _shared(value: object) -> list[tuple[int, int, object]]:
    assert isinstance(value, (list, tuple))
    result: list[tuple[int, int, object]] = []
    for item in value:
        assert isinstance(item, (list, tuple))
        result.append((int(item[0]), int(item[1]), item[2]))
    return result
