"""`EncodeTab`: type a text (and a pair), see every token over the original characters, the token
table, the ids (and decode ids typed back), the text after each stage of the pipeline,
whether decoding gives the text back, and how the model cuts the word under the cursor, step by
step (the Step Through page, `workbench.window.views.encode_stepper`).

Encoding happens in the encoding process (`EncodingRunner`), a short while after the last
keystroke, so typing never waits for it; replies older than the newest request are dropped.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from typing import Final

from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QColor, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from engine.analysis.inspection import ADVICE, Counts, shared_spans
from engine.analysis.vocabulary import visible_text
from workbench.window.document import ProjectDocument
from workbench.window.guide import HelpLink
from workbench.jobs.runners.encoding import EncodingRunner, ints, spans, strs
from workbench.jobs.children.encoding import SPECIAL, UNKNOWN
from workbench.core.formatting import ERROR_COLOR, ERROR_STYLE
from workbench.core.settings import Settings
from workbench.window.views.encode_stepper import EncodeStepper
from workbench.window.views.token_view import SPECIAL_COLOR, UNKNOWN_COLOR, Spans, TokenTextEdit, is_dark, quoted, token_color
from workbench.window.views.when_shown import WhenShown

DEBOUNCE_MS: Final = 60
# The pages below the editor: the pipeline and the round trip are drawn from a trace of the text.
PIPELINE_PAGE, ROUND_TRIP_PAGE, STEP_PAGE = 1, 2, 3
# The user guide's section on each page, in page order (the Tokens page: the tab's own).
PAGE_SECTIONS: Final = ("encode", "pipeline", "round-trip", "step-through")
NOTES_LIMIT: Final = 60  # differences listed one by one in the round trip
# backgrounds (light theme, dark theme) of a character the normalizer changed, of a difference
CHANGED: Final = ("#f9e79f", "#7d6608")
DIFFERENT: Final = ("#f5b7b1", "#78281f")
# The pipeline view draws at most this much text (a 10,000-character text stays quick to type in).
PIPELINE_LIMIT: Final = 3000
SAMPLE_TEXT: Final = (
    "Tokenizers cut text into pieces: \"naïve café\", 1,234.56 kg, don't, e.g. Dr. Smith.\n"
    "日本語のテキスト, emoji 😀 and 👩‍💻, tabs\tand  double  spaces.\n"
)
TABLE_COLUMNS: Final = ("#", "Token", "ID", "Seq", "Start", "End", "Text")
# One row of the Tokens table: readable token, id, sequence, start, end, source text, kind, raw token.
TokenRow = tuple[str, int, int | None, int, int, str, int, str]
Index = QModelIndex | QPersistentModelIndex


class TokenTable(QAbstractTableModel):
    """The tokens of one encoding: index, readable token, id, sequence, offsets, source text
    (and, on hover over a token, the token as the vocabulary writes it)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[TokenRow] = []

    def reset(self, rows: list[TokenRow]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(TABLE_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> object:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return TABLE_COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        shown, id, sequence, start, end, source, kind, raw = self.rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (str(index.row()), shown, str(id), "" if sequence is None else str(sequence), str(start), str(end), visible_text(source, names=True))[column]
        if role == Qt.ItemDataRole.ToolTipRole and column == 1 and kind == UNKNOWN:
            return f"The unknown token: characters the model has no token for (HF's Encoding.tokens writes it as {quoted(raw)})"
        if role == Qt.ItemDataRole.ToolTipRole and column == 1 and raw != shown:
            return f"{quoted(raw)} in the vocabulary (as tokenizer.json and HF's Encoding.tokens write it)"
        if role == Qt.ItemDataRole.ForegroundRole and column == 1 and kind in (SPECIAL, UNKNOWN):
            return QColor(SPECIAL_COLOR if kind == SPECIAL else ERROR_COLOR)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (0, 2, 3, 4, 5):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class EncodeTab(QWidget):
    """The Encode tab."""

    def __init__(self, document: ProjectDocument, settings: Settings, service: EncodingRunner) -> None:
        super().__init__()
        self.document = document
        self.service = service
        self.key = ""
        self._latest = 0
        self._shown_id = 0
        self._latest_trace = 0
        self._latest_decode = 0
        self._encoding: dict[str, object] = {}
        self._trace: dict[str, object] = {}
        # token index -> (editor, span index) and back
        self._painted: list[tuple[int, int]] = []

        self.tokenizer_label = QLabel()
        self.add_special = QCheckBox("Add special tokens")
        self.add_special.setChecked(True)
        self.pair_box = QCheckBox("Pair (second sequence)")
        self.counts = QLabel()
        self.counts.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.editor = TokenTextEdit()
        self.editor.set_text(SAMPLE_TEXT)
        self.pair_editor = TokenTextEdit()
        self.pair_editor.set_text("A second sequence, for pair encoding.")
        self.pair_editor.hide()
        self.status = QLabel()
        self.status.setWordWrap(True)

        self.table_model = TokenTable()
        self.table = QTableView()
        self.table.setModel(self.table_model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for column, width in enumerate((50, 160, 80, 40, 60, 60)):
            self.table.setColumnWidth(column, width)
        self.ids = QLineEdit()
        self.ids.setReadOnly(True)
        copy_ids = QPushButton("Copy IDs")
        copy_ids.clicked.connect(self.copy_ids)
        self.decode_input = QLineEdit()
        self.decode_input.setPlaceholderText("Type or paste ids to decode, e.g. 101, 7592, 102")
        self.decoded = QLabel()
        self.decoded.setWordWrap(True)
        self.decoded.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        tokens_page = QWidget()
        tokens_layout = QVBoxLayout(tokens_page)
        tokens_layout.addWidget(self.table, 1)
        row = QHBoxLayout()
        row.addWidget(QLabel("IDs"))
        row.addWidget(self.ids, 1)
        row.addWidget(copy_ids)
        tokens_layout.addLayout(row)
        row = QHBoxLayout()
        row.addWidget(QLabel("Decode"))
        row.addWidget(self.decode_input, 1)
        tokens_layout.addLayout(row)
        tokens_layout.addWidget(self.decoded)

        self.pipeline = QTextBrowser()
        self.verdict = QLabel()
        self.verdict.setWordWrap(True)
        self.round_trip = QTextBrowser()
        round_page = QWidget()
        round_layout = QVBoxLayout(round_page)
        round_layout.addWidget(self.verdict)
        round_layout.addWidget(self.round_trip, 1)

        self.stepper = EncodeStepper(service, self.editor)
        self.pages = QTabWidget()
        self.pages.addTab(tokens_page, "Tokens")
        self.pages.addTab(self.pipeline, "Pipeline")
        self.pages.addTab(round_page, "Round Trip")
        self.pages.addTab(self.stepper, "Step Through")
        self.pages.setTabToolTip(STEP_PAGE, "How the model cuts the word under the cursor, step by step")

        top = QHBoxLayout()
        top.addWidget(self.tokenizer_label)
        top.addStretch(1)
        top.addWidget(self.pair_box)
        top.addWidget(self.add_special)
        self.help_link = HelpLink(self.help_section, "the Encode tab")
        top.addWidget(self.help_link)
        editors = QWidget()
        editors_layout = QVBoxLayout(editors)
        editors_layout.setContentsMargins(0, 0, 0, 0)
        editors_layout.addLayout(top)
        editors_layout.addWidget(self.editor, 3)
        editors_layout.addWidget(self.pair_editor, 1)
        editors_layout.addWidget(self.counts)
        editors_layout.addWidget(self.status)
        self.splitter = splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(editors)
        splitter.addWidget(self.pages)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.request_encoding)
        self._decode_debounce = QTimer(self)
        self._decode_debounce.setSingleShot(True)
        self._decode_debounce.setInterval(DEBOUNCE_MS)
        self._decode_debounce.timeout.connect(self._request_decode)

        self.editor.edited.connect(self._debounce.start)
        self.pair_editor.edited.connect(self._debounce.start)
        self.add_special.toggled.connect(self._debounce.start)
        self.pair_box.toggled.connect(self._on_pair_box_toggled)
        self.editor.token_clicked.connect(lambda index: self._on_span_clicked(0, index))
        self.pair_editor.token_clicked.connect(lambda index: self._on_span_clicked(1, index))
        self.table.selectionModel().currentRowChanged.connect(self._on_table_row_changed)
        self.decode_input.textChanged.connect(self._decode_debounce.start)
        self.pages.currentChanged.connect(self._on_page_changed)
        service.encoded.connect(self._on_service_encoded)
        service.traced.connect(self._on_service_traced)
        service.decoded.connect(self._on_service_decoded)
        service.failed.connect(self._on_service_failed)
        # (hidden behind another tab, it forgets the old tokenizer when shown)
        self._when_shown = WhenShown(self, self._show_active)
        document.active_changed.connect(self._when_shown.request)
        document.changed.connect(self._on_document_changed)
        self.set_whitespace_glyphs(settings.show_whitespace)
        self._show_header()

    # -- requests ------------------------------------------------------------------------------

    def _show_active(self) -> None:
        """Another tokenizer (or a new result of this one): nothing shown of the old one stays;
        replies still on their way for it are dropped, the ids typed to decode are decoded again."""
        entry = self.document.active
        self.key = ""
        self._latest = self._latest_trace = self._latest_decode = 0
        self._show_header()
        if entry is not None and entry.trained_json is not None:
            if self.isVisible():
                self.key = self.service.add_tokenizer(entry.trained_json)
            else:
                self._when_shown.wait()  # (the encoding process is asked once the tab is seen)
        self._clear()
        self.stepper.set_key(self.key)
        self._debounce.start()
        self._request_decode()

    def _on_document_changed(self) -> None:
        self._show_header()  # (a rename)

    def _show_header(self) -> None:
        entry = self.document.active
        if entry is None:
            self.tokenizer_label.setText("No tokenizer: create one in the Project panel.")
        elif entry.trained_json is None:
            self.tokenizer_label.setText(f"“{entry.name}” is not trained yet: train it to encode with it.")
        else:
            self.tokenizer_label.setText(f"Tokenizer: {entry.name}")

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._draw_trace()  # its colours follow the theme

    def request_encoding(self) -> None:
        """Encode the text now (normally a short while after the last keystroke)."""
        if not self.key or self._when_shown.put_off():
            return  # (a hidden tab asks when it is shown)
        pair = self.pair_editor.text() if self.pair_box.isChecked() else None
        self._latest = self.service.encode(self.key, self.editor.text(), pair, self.add_special.isChecked())
        if self.pages.currentIndex() in (PIPELINE_PAGE, ROUND_TRIP_PAGE):
            self._request_trace()

    def _request_trace(self) -> None:
        if self.key:
            text = self.editor.text()
            self._latest_trace = self.service.trace(self.key, text[:PIPELINE_LIMIT], self.add_special.isChecked())

    def _request_decode(self) -> None:
        numbers = re.findall(r"-?\d+", self.decode_input.text())
        if not self.key or not numbers:
            self._latest_decode = 0  # (a reply still on its way is not for what is shown now)
            self.decoded.setText("")
            self.decoded.setStyleSheet("")
            return
        self._latest_decode = self.service.decode(self.key, [int(n) for n in numbers])

    # -- replies -------------------------------------------------------------------------------

    def _on_service_encoded(self, request_id: int, encoding: dict[str, object]) -> None:
        if request_id != self._latest:
            return
        self._shown_id = request_id
        self._encoding = encoding
        ids = ints(encoding["ids"])
        tokens = strs(encoding["tokens"])
        offsets = spans(encoding["offsets"])
        sequences = encoding["sequences"]
        kinds = ints(encoding["kinds"])
        shown = strs(encoding["shown"])
        hexes = strs(encoding["hex"])
        assert isinstance(sequences, list)
        texts = (self.editor.text(), self.pair_editor.text())
        painted: list[Spans] = [Spans(), Spans()]
        self._painted = []
        rows: list[TokenRow] = []
        for index in range(len(ids)):
            sequence = sequences[index]
            start, end = offsets[index]
            target = 1 if sequence == 1 else 0
            source = texts[target][start:end] if end > start else ""
            rows.append((shown[index], ids[index], sequence, start, end, source, kinds[index], tokens[index]))
            if end > start:
                data = painted[target]
                self._painted.append((target, len(data.spans)))
                data.spans.append((start, end))
                data.kinds.append(kinds[index])
                data.keys.append(ids[index])
                data.labels.append(shown[index])
                data.raw.append(tokens[index])
                data.hexes.append(hexes[index])
            else:
                self._painted.append((-1, -1))
        for data in painted:
            data.shared = {start for start, _, _ in shared_spans(data.spans)}
        self.editor.set_spans(painted[0])
        self.pair_editor.set_spans(painted[1])
        self.table_model.reset(rows)
        self.ids.setText("[" + ", ".join(str(i) for i in ids) + "]")
        total = Counts(*ints(encoding["counts"]))
        self.counts.setText(counts_text(total, len(ids), int(str(encoding["specials"])), int(str(encoding["padding"])), kinds.count(UNKNOWN)))
        self.status.setText("")

    def _on_service_traced(self, request_id: int, trace: dict[str, object]) -> None:
        if request_id != self._latest_trace:
            return
        self._trace = trace
        self._draw_trace()

    def _on_service_decoded(self, request_id: int, result: dict[str, object]) -> None:
        if request_id != self._latest_decode:
            return
        text = html.escape(visible_text(str(result["text"])))
        unknown = ints(result["unknown"])
        if unknown:
            listed = ", ".join(str(i) for i in unknown[:10]) + (", …" if len(unknown) > 10 else "")
            self.decoded.setText(f"Decoded: {text}<br>Not in the vocabulary (decode skips them): {listed}")
            self.decoded.setStyleSheet(ERROR_STYLE)
        else:
            self.decoded.setText(f"Decoded: {text}")
            self.decoded.setStyleSheet("")

    def _on_service_failed(self, request_id: int, message: str) -> None:
        if request_id == self._latest_decode:
            self.decoded.setText(message)
            self.decoded.setStyleSheet(ERROR_STYLE)
        elif request_id in (self._latest, self._latest_trace, -1):
            self.status.setText(message)
            self.status.setStyleSheet(ERROR_STYLE)

    # -- the pipeline and the round trip -------------------------------------------------------------

    def _on_page_changed(self, index: int) -> None:
        if index in (PIPELINE_PAGE, ROUND_TRIP_PAGE):
            self._request_trace()

    def _draw_trace(self) -> None:
        trace = self._trace
        if not trace:
            return
        text = self.editor.text()[:PIPELINE_LIMIT]
        cut = len(self.editor.text()) > PIPELINE_LIMIT
        scope = f" (checked on the first {PIPELINE_LIMIT:,} characters)" if cut else ""
        dark = is_dark()
        self.pipeline.setHtml(pipeline_html(text, trace, cut, dark))
        decoded = str(trace["decoded"])
        differences = trace["differences"]
        causes = strs(trace["causes"])
        assert isinstance(differences, list)
        if not differences:
            self.verdict.setText(f"<b>Exact:</b> decoding gives the text back, character for character{scope}.")
        else:
            places = Counter(str(item[4]) for item in differences if isinstance(item, (list, tuple)))
            listing = "".join(
                f"<li>{html.escape(cause)} ({places[cause]} place{'s' if places[cause] != 1 else ''})"
                + (f"<br><i>What to do:</i> {html.escape(ADVICE[cause])}" if cause in ADVICE else "")
                + "</li>"
                for cause in causes
            )
            self.verdict.setText(
                f"<b>Not exact:</b> {len(differences)} place{'s' if len(differences) != 1 else ''} differ"
                f"{'s' if len(differences) == 1 else ''}{scope}. Why:<ul>{listing}</ul>"
            )
        self.round_trip.setHtml(round_trip_html(text, decoded, differences, dark))

    # -- selection -----------------------------------------------------------------------------

    def _on_span_clicked(self, editor: int, span: int) -> None:
        for index, (target, position) in enumerate(self._painted):
            if target == editor and position == span:
                self.table.selectRow(index)
                return

    def _on_table_row_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        if not current.isValid() or current.row() >= len(self._painted):
            return
        target, span = self._painted[current.row()]
        self.editor.select_token(span if target == 0 else -1)
        self.pair_editor.select_token(span if target == 1 else -1)

    def _on_pair_box_toggled(self, on: bool) -> None:
        self.pair_editor.setVisible(on)
        self._debounce.start()

    def help_section(self) -> str:
        """The user guide's section on the page shown."""
        return PAGE_SECTIONS[self.pages.currentIndex()]

    def copy_ids(self) -> None:
        QGuiApplication.clipboard().setText(self.ids.text())

    def set_whitespace_glyphs(self, on: bool) -> None:
        self.editor.set_whitespace_glyphs(on)
        self.pair_editor.set_whitespace_glyphs(on)

    def _clear(self) -> None:
        self.editor.set_spans(Spans())
        self.pair_editor.set_spans(Spans())
        self.table_model.reset([])
        self.ids.setText("")
        self.counts.setText("")
        self.pipeline.setHtml("")
        self.round_trip.setHtml("")
        self.verdict.setText("")
        self.status.setText("")
        self._encoding = {}
        self._trace = {}
        self._painted = []

    def shown_spans(self) -> list[tuple[int, int]]:
        """The spans painted over the first text (for tests)."""
        return list(self.editor.highlighter.data.spans)

    def is_current(self) -> bool:
        """Whether the painted encoding is of the text as it is now (no request pending)."""
        return not self._when_shown.waiting and not self._debounce.isActive() and self._latest > 0 and self._shown_id == self._latest


def counts_text(total: Counts, ids: int, specials: int, padding: int, unknown: int) -> str:
    """The counts line; its numbers add up: "12 characters · 12 bytes · 3 words · 5 ids: 3 tokens
    + 2 special · 4.00 characters per token · 1.00 tokens per word · 1 unknown"."""
    tokens = counted(total.tokens, "token")
    if specials or padding:
        parts = [tokens] + ([f"{specials:,} special"] if specials else []) + ([f"{padding:,} padding"] if padding else [])
        tokens = f"{ids:,} ids: " + " + ".join(parts)
    return (
        f"{counted(total.characters, 'character')} · {counted(total.bytes, 'byte')} · {counted(total.words, 'word')} · {tokens} · "
        f"{total.characters_per_token:.2f} characters per token · {total.tokens_per_word:.2f} tokens per word"
        + (f" · {unknown:,} unknown" if unknown else "")
    )


def counted(number: int, thing: str) -> str:
    """"1 token", "2 tokens", "1,000 tokens"."""
    return f"{number:,} {thing}{'' if number == 1 else 's'}"


def chip(text: str, key: int, position: int, dark: bool, kind: int = 0) -> str:
    """One token as an HTML chip: its colour as in the text view."""
    color = token_color(key, position, dark).name()
    style = f"background-color:{color};"
    if kind == SPECIAL:
        style += f"color:{SPECIAL_COLOR};font-weight:bold;"
    elif kind == UNKNOWN:
        style = f"background-color:{UNKNOWN_COLOR};color:#ffffff;"
    return f'<span style="{style}">{html.escape(text)}</span>'


def pipeline_html(text: str, trace: dict[str, object], cut: bool, dark: bool) -> str:
    """The text after each stage, as HTML: normalized (changed characters marked), the
    pre-tokenizer's pieces, the model's tokens per piece, the final tokens, the decoded text."""
    normalized = str(trace["normalized"])
    alignments = spans(trace["alignments"])
    parts: list[str] = ['<div style="font-family:monospace">']
    if cut:
        parts.append(f"<p><i>The first {PIPELINE_LIMIT:,} characters of the text.</i></p>")
    parts.append("<h4>Original</h4><p>" + html.escape(visible_text(text)) + "</p>")
    changes: list[str] = []
    marked: list[str] = []
    for index in range(len(normalized)):
        char = normalized[index]
        start, end = alignments[index] if index < len(alignments) else (0, 0)
        source = text[start:end]
        if source != char:
            marked.append(f'<span style="background-color:{CHANGED[dark]}">{html.escape(visible_text(char))}</span>')
            if len(changes) < 40:
                changes.append(f"{html.escape(visible_text(source) or '∅')} → {html.escape(visible_text(char))} (characters {start}–{end})")
        else:
            marked.append(html.escape(visible_text(char)))
    parts.append("<h4>Normalized</h4><p>" + "".join(marked) + "</p>")
    if changes:
        parts.append("<p><small>" + "; ".join(changes) + ("; …" if len(changes) == 40 else "") + "</small></p>")
    elif normalized == text:
        parts.append("<p><small>unchanged</small></p>")
    if len(normalized) != len(text):
        parts.append(f"<p><small>{len(normalized) - len(text):+,} characters (the normalizer removed or added some)</small></p>")
    pieces = trace["pieces"]
    pieces_shown = strs(trace["pieces_shown"])
    assert isinstance(pieces, list)
    parts.append("<h4>Pre-tokenized</h4><p>" + " ".join(chip(pieces_shown[i], i, i, dark) for i in range(len(pieces))) + "</p>")
    model_tokens = trace["model_tokens"]
    model_shown = trace["model_shown"]
    assert isinstance(model_tokens, list) and isinstance(model_shown, list)
    groups: list[str] = []
    for piece_index in range(len(model_tokens)):
        tokens = model_tokens[piece_index]
        shown = model_shown[piece_index]
        groups.append("".join(chip(str(shown[j]), int(tokens[j][0]), j, dark) for j in range(len(tokens))))
    parts.append("<h4>Model tokens (per piece)</h4><p>" + " │ ".join(groups) + "</p>")
    ids = ints(trace["ids"])
    shown_final = strs(trace["shown"])
    kinds = ints(trace["kinds"])
    parts.append(
        "<h4>Post-processed</h4><p>" + "".join(chip(shown_final[i], ids[i], i, dark, kinds[i]) for i in range(len(ids))) + "</p>"
    )
    parts.append("<h4>Decoded</h4><p>" + html.escape(visible_text(str(trace["decoded"]))) + "</p>")
    parts.append("</div>")
    return "".join(parts)


def round_trip_html(text: str, decoded: str, differences: list[object], dark: bool) -> str:
    """The decoded text with the places that differ from the original marked, and the original
    pieces they replaced."""
    parts: list[str] = ['<div style="font-family:monospace"><h4>Decoded</h4><p>']
    position = 0
    notes: list[str] = []
    for item in differences:
        assert isinstance(item, (list, tuple))
        start, end, decoded_start, decoded_end, cause = int(item[0]), int(item[1]), int(item[2]), int(item[3]), str(item[4])
        parts.append(html.escape(visible_text(decoded[position:decoded_start])))
        piece = decoded[decoded_start:decoded_end]
        parts.append(f'<span style="background-color:{DIFFERENT[dark]}">{html.escape(visible_text(piece)) or "∅"}</span>')
        position = decoded_end
        if len(notes) < NOTES_LIMIT:
            where = f"characters {start}–{end}" if end > start else f"at character {start}"
            notes.append(
                f"<li>{html.escape(visible_text(text[start:end]) or '∅')} → {html.escape(visible_text(piece) or '∅')}"
                f" ({where}): {html.escape(cause)}</li>"
            )
    parts.append(html.escape(visible_text(decoded[position:])))
    parts.append("</p>")
    if notes:
        more = len(differences) - len(notes)
        parts.append("<h4>Differences</h4><ul>" + "".join(notes) + (f"<li>… and {more:,} more</li>" if more else "") + "</ul>")
    parts.append("</div>")
    return "".join(parts)
