"""`EncodeStepper`: the Encode tab's Step Through page. It follows the editor's cursor and shows,
one step at a time, how the model cuts the word under it: WordPiece's lookups, BPE's merges in
rank order, Unigram's lattice with its n-best paths and sampled segmentations. A toy vocabulary
typed in the page (`workbench.core.toy_models`) can stand in for the project's tokenizer.

The steps are worked out in the encoding process (`EncodingRunner.steps`, a short while after
the cursor stops; a newer request supersedes an older one); this page holds the buttons and the
step counter and draws the step it is at (`workbench.window.views.step_drawings`).
"""

from __future__ import annotations

import html
from typing import Final

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.analysis.encode_steps import row_after
from engine.analysis.lattice_steps import ALPHA, MAX_PATHS, NBEST, SAMPLES, SEED
from engine.analysis.steps import BACK, END, FILL, LOOKUP, MERGE, quoted
from workbench.core.formatting import ERROR_COLOR
from workbench.core.toy_models import EXAMPLES, KINDS, SYNTAX
from workbench.jobs.runners.encoding import EncodingRunner
from workbench.window.views.heading import Heading, say
from workbench.window.views.step_drawings import FOUND_EDGE, LatticeDrawing, SymbolRows, WordWindow, monospace, shown, theme
from workbench.window.views.token_view import TokenTextEdit, is_dark
from workbench.window.views.when_shown import WhenShown

# How long after the cursor (or a toy vocabulary) last moved the steps are asked for, in ms.
DEBOUNCE_MS: Final = 150
# Run shows one step this often, in ms.
RUN_MS: Final = 300
# The drawings' pages: a message, WordPiece, BPE, Unigram.
MESSAGE_PAGE, WORDPIECE_PAGE, BPE_PAGE, UNIGRAM_PAGE = 0, 1, 2, 3
PAGES: Final = {"wordpiece": WORDPIECE_PAGE, "bpe": BPE_PAGE, "unigram": UNIGRAM_PAGE}
# The share of the page a drawing and a table split between them, in pixels of one share.
PAIR_WIDTH: Final = 300
START_MESSAGE: Final = "Put the cursor in a word of the text: how the model cuts it is shown here, step by step."

Token = tuple[int, str, int, int]
Node = tuple[int, int, int, str, float, bool]


def table(headers: list[str]) -> QTableWidget:
    """A read-only table of rows, its last column stretched."""
    widget = QTableWidget(0, len(headers))
    widget.setHorizontalHeaderLabels(headers)
    widget.verticalHeader().hide()
    widget.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    widget.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    widget.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    widget.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    widget.horizontalHeader().setStretchLastSection(True)
    widget.verticalHeader().setDefaultSectionSize(widget.fontMetrics().height() + 6)
    return widget


def fill(widget: QTableWidget, rows: list[list[str]], colors: list[QColor | None] | None = None) -> None:
    """Put `rows` in `widget` (a row's text in `colors[i]`, when given)."""
    widget.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            item = QTableWidgetItem(text)
            if c == 0 or text.lstrip("-").replace(".", "").replace(",", "").isdigit():
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            color = colors[r] if colors is not None and r < len(colors) else None
            if color is not None:
                item.setForeground(color)
            widget.setItem(r, c, item)


def scrolled(drawing: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidget(drawing)
    area.setWidgetResizable(True)
    area.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    return area


def tokens_of(value: object) -> list[Token]:
    assert isinstance(value, list)
    return [(int(t[0]), str(t[1]), int(t[2]), int(t[3])) for t in value]


def dicts(value: object) -> list[dict[str, object]]:
    assert isinstance(value, list)
    return [item for item in value if isinstance(item, dict)]


class EncodeStepper(QWidget):
    """The Step Through page: the word under `editor`'s cursor cut by the active tokenizer's model
    (`set_key`) or by the toy vocabulary, a step at a time (Back, Step, Run)."""

    def __init__(self, service: EncodingRunner, editor: TokenTextEdit) -> None:
        super().__init__()
        self.service = service
        self.editor = editor
        self.key = ""
        self.wire: dict[str, object] = {}
        self.steps: list[dict[str, object]] = []
        self.position = 0
        self._latest = 0
        self._shown_id = 0
        self._identity: tuple[object, ...] = ()

        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.heading.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.back_button = QPushButton("Back")
        self.step_button = QPushButton("Step")
        self.run_button = QPushButton("Run")
        self.run_button.setToolTip("Play the steps to the end (click again to stop)")
        self.counter = QLabel()
        self.description = QLabel(START_MESSAGE)
        self.description.setWordWrap(True)
        self.description.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.description.setMinimumHeight(3 * self.fontMetrics().height())
        self.description.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)

        # the toy vocabulary
        self.toy = QCheckBox("Toy vocabulary")
        self.toy.setChecked(False)
        self.toy.setToolTip("Step through a vocabulary you type instead of the project's tokenizer")
        self.toy_kind = QComboBox()
        for kind, name in KINDS:
            self.toy_kind.addItem(name, kind)
        self.toy_word = QLineEdit(EXAMPLES[KINDS[0][0]][1])
        self.toy_word.setPlaceholderText("empty: the word under the cursor")
        self.toy_text = QPlainTextEdit(EXAMPLES[KINDS[0][0]][0])
        self.toy_text.setFont(monospace(self.font()))
        self.toy_text.setTabChangesFocus(False)
        self.toy_syntax = QLabel(SYNTAX[KINDS[0][0]])
        self.toy_syntax.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Model", self.toy_kind)
        form.addRow("Word", self.toy_word)
        # (unticked, the box is only its title: the drawings get the width)
        self.toy_fields = QWidget()
        fields_layout = QVBoxLayout(self.toy_fields)
        fields_layout.setContentsMargins(0, 0, 0, 0)
        fields_layout.addLayout(form)
        fields_layout.addWidget(self.toy_text, 1)
        fields_layout.addWidget(self.toy_syntax)
        self.toy_fields.setFixedWidth(self.fontMetrics().horizontalAdvance("M") * 24)
        self.toy_fields.hide()
        toy_box = QVBoxLayout()
        toy_box.addWidget(self.toy)
        toy_box.addWidget(self.toy_fields, 1)
        toy_box.addStretch(1)
        self._toy_box = toy_box

        # WordPiece: the word and its lookups
        self.word_window = WordWindow()
        self.lookups = table(["#", "Looked up", "Characters", "In the vocabulary"])
        self.window_area = scrolled(self.word_window)
        wordpiece_page = QWidget()
        wordpiece_layout = QVBoxLayout(wordpiece_page)
        wordpiece_layout.setContentsMargins(0, 0, 0, 0)
        wordpiece_layout.addWidget(self.window_area)
        wordpiece_layout.addWidget(Heading("Lookups, in order", self.lookups), 1)
        # BPE: the rows of symbols and the merges
        self.symbol_rows = SymbolRows()
        self.rows_area = scrolled(self.symbol_rows)
        self.merges = table(["#", "Pair", "Rank", "Makes", "Id"])
        bpe_page = QSplitter(Qt.Orientation.Horizontal)
        bpe_page.addWidget(self.rows_area)
        bpe_page.addWidget(Heading("Merges applied, in order", self.merges))
        bpe_page.setStretchFactor(0, 3)
        bpe_page.setStretchFactor(1, 2)
        bpe_page.setSizes([3 * PAIR_WIDTH, 2 * PAIR_WIDTH])
        # Unigram: the lattice, the n best paths and sampled segmentations
        self.lattice = LatticeDrawing()
        self.nbest_count = QSpinBox()
        self.nbest_count.setRange(1, MAX_PATHS)
        self.nbest_count.setValue(NBEST)
        self.alpha = QDoubleSpinBox()
        self.alpha.setRange(0.0, 10.0)
        self.alpha.setSingleStep(0.05)
        self.alpha.setDecimals(2)
        self.alpha.setValue(ALPHA)
        self.alpha.setToolTip(
            "Sampling draws a segmentation with probability proportional to exp(α × its score): "
            "α = 0 draws every segmentation alike, a large α almost always the best one"
        )
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setValue(SEED)
        self.seed.setToolTip("The same seed draws the same segmentations")
        self.sample_count = QSpinBox()
        self.sample_count.setRange(1, MAX_PATHS)
        self.sample_count.setValue(SAMPLES)
        self.nbest = table(["#", "Pieces", "Score", "P"])
        self.samples = table(["#", "Pieces", "Score"])
        for listing in (self.lookups, self.merges, self.nbest, self.samples):
            listing.setFont(monospace(self.font()))  # (so "▁c at s" and "▁c a t s" read apart)
        self.nbest_heading = Heading("The best segmentations (n-best)", self.nbest)
        self.samples_heading = Heading("Sampled segmentations", self.samples)
        for heading in (self.nbest_heading, self.samples_heading):
            heading.label.setWordWrap(True)  # (a long heading must not widen the tables)
        choices = QHBoxLayout()
        for label, widget in (("n-best", self.nbest_count), ("samples", self.sample_count), ("α", self.alpha), ("seed", self.seed)):
            choices.addWidget(QLabel(label))
            choices.addWidget(widget)
        choices.addStretch(1)
        self.seed.setMaximumWidth(self.fontMetrics().horizontalAdvance("0" * 12))
        paths = QSplitter(Qt.Orientation.Vertical)
        paths.addWidget(self.nbest_heading)
        paths.addWidget(self.samples_heading)
        paths_box = QWidget()
        paths_layout = QVBoxLayout(paths_box)
        paths_layout.setContentsMargins(0, 0, 0, 0)
        paths_layout.addLayout(choices)
        paths_layout.addWidget(paths, 1)
        unigram_page = QSplitter(Qt.Orientation.Horizontal)
        unigram_page.addWidget(scrolled(self.lattice))
        unigram_page.addWidget(paths_box)
        unigram_page.setStretchFactor(0, 3)
        unigram_page.setStretchFactor(1, 1)
        unigram_page.setSizes([3 * PAIR_WIDTH, PAIR_WIDTH])  # (the lattice is the page)

        self.message = QLabel(START_MESSAGE)
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.drawings = QStackedWidget()
        for page in (self.message, wordpiece_page, bpe_page, unigram_page):
            self.drawings.addWidget(page)

        buttons = QHBoxLayout()
        for button in (self.back_button, self.step_button, self.run_button):
            buttons.addWidget(button)
        buttons.addWidget(self.counter)
        buttons.addStretch(1)
        stepper = QWidget()
        stepper_layout = QVBoxLayout(stepper)
        stepper_layout.setContentsMargins(0, 0, 0, 0)
        stepper_layout.addWidget(self.heading)
        stepper_layout.addLayout(buttons)
        stepper_layout.addWidget(self.description)
        stepper_layout.addWidget(self.drawings, 1)
        layout = QHBoxLayout(self)
        layout.addWidget(stepper, 1)
        layout.addLayout(toy_box, 0)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._run_timer = QTimer(self)
        self._run_timer.setInterval(RUN_MS)
        self._when_shown = WhenShown(self, self.request)
        self._debounce.timeout.connect(self._when_shown.request)
        self._run_timer.timeout.connect(self._on_run_timer_timeout)
        self.back_button.clicked.connect(self.back)
        self.step_button.clicked.connect(self.step)
        self.run_button.clicked.connect(self._on_run_button_clicked)
        editor.cursorPositionChanged.connect(self._debounce.start)
        editor.edited.connect(self._debounce.start)
        self.toy.toggled.connect(self._on_toy_toggled)
        self.toy_kind.currentIndexChanged.connect(self._on_toy_kind_changed)
        self.toy_word.textChanged.connect(self._debounce.start)
        self.toy_text.textChanged.connect(self._debounce.start)
        for spin in (self.nbest_count, self.seed, self.sample_count):
            spin.valueChanged.connect(self._debounce.start)
        self.alpha.valueChanged.connect(self._debounce.start)
        service.stepped.connect(self._on_service_stepped)
        service.failed.connect(self._on_service_failed)
        self._show_step()
        self._debounce.start()  # (with no tokenizer yet, the page says so once it is seen)

    # -- requests ------------------------------------------------------------------------------

    def set_key(self, key: str) -> None:
        """Follow the tokenizer known to the encoding process as `key` ("" when none)."""
        if key != self.key:
            self.key = key
            self._debounce.start()

    def request(self) -> None:
        """Ask for the steps of the word under the cursor now (normally a while after it moved)."""
        options: dict[str, object] = {
            "nbest": self.nbest_count.value(),
            "alpha": self.alpha.value(),
            "seed": self.seed.value(),
            "samples": self.sample_count.value(),
        }
        key: str | None = self.key
        if self.toy.isChecked():
            options["toy"] = (str(self.toy_kind.currentData()), self.toy_text.toPlainText(), self.toy_word.text())
            key = None
        elif not self.key:
            self._latest = 0
            self._show_wire({"kind": "none", "message": "No trained tokenizer: train one, or tick Toy vocabulary and type one."})
            return
        self._latest = self.service.steps(key, self.editor.text(), self.editor.cursor_character(), options)

    def is_current(self) -> bool:
        """Whether the steps shown are of the cursor's word as it is now (nothing pending)."""
        return not self._debounce.isActive() and not self._when_shown.waiting and self._latest > 0 and self._shown_id == self._latest

    def _on_service_stepped(self, request_id: int, wire: dict[str, object]) -> None:
        if request_id != self._latest:
            return
        self._shown_id = request_id
        self._show_wire(wire)

    def _on_service_failed(self, request_id: int, message: str) -> None:
        if request_id != self._latest or request_id <= 0:
            return
        self._shown_id = request_id
        self._show_wire({"kind": "none", "message": message, "error": True})

    def _on_toy_toggled(self, on: bool) -> None:
        self.toy_fields.setVisible(on)
        # (ticked, the vocabulary takes the page's height; unticked, the box is its check box)
        self._toy_box.setStretch(2, 0 if on else 1)
        self._debounce.start()

    def _on_toy_kind_changed(self) -> None:
        kind = str(self.toy_kind.currentData())
        self.toy_syntax.setText(SYNTAX[kind])
        # a vocabulary or word still as one of the examples gives way to this kind's example
        examples = {text for text, _ in EXAMPLES.values()}
        words = {word for _, word in EXAMPLES.values()}
        if self.toy_text.toPlainText() in examples or not self.toy_text.toPlainText().strip():
            self.toy_text.setPlainText(EXAMPLES[kind][0])
        if self.toy_word.text() in words:
            self.toy_word.setText(EXAMPLES[kind][1])
        self._debounce.start()

    # -- steps ---------------------------------------------------------------------------------

    def _show_wire(self, wire: dict[str, object]) -> None:
        identity = (wire.get("source"), wire.get("kind"), wire.get("word"), wire.get("model"))
        same = identity == self._identity and wire.get("kind") != "none"
        self._identity = identity
        self.wire = wire
        self.steps = dicts(wire.get("steps", []))
        self.position = min(self.position, len(self.steps) - 1) if same else 0
        self.position = max(self.position, 0)
        if not same:
            self._stop_running()
        self._show_heading()
        if self.wire.get("kind") == "unigram":
            self._fill_paths()
        self._show_step()

    def _show_heading(self) -> None:
        wire = self.wire
        if wire.get("kind") in PAGES:
            word = str(wire["word"])
            span = wire["span"]
            assert isinstance(span, (tuple, list))
            where = (
                "typed in the toy's Word box" if wire.get("typed")
                else f"characters {span[0]}–{span[1]} of the text, {quoted(str(wire['original']))}"
            )  # fmt: skip
            source = "toy vocabulary" if wire.get("source") == "toy" else "the active tokenizer"
            text = f"<b>{_escaped(quoted(word))}</b>: {_escaped(where)} · {_escaped(str(wire['model']))} ({source})"
            if wire.get("note"):
                text += f"<br>{_escaped(str(wire['note']))}"
            self.heading.setText(text)
        else:
            self.heading.setText("")

    def back(self) -> None:
        """One step back."""
        self._stop_running()
        if self.position > 0:
            self.position -= 1
            self._show_step()

    def step(self) -> None:
        """One step on."""
        if self.position < len(self.steps) - 1:
            self.position += 1
            self._show_step()

    def run(self) -> None:
        """Play the steps to the end, one every RUN_MS."""
        if self.position >= len(self.steps) - 1:
            self.position = 0
            self._show_step()
        self._run_timer.start()
        self.run_button.setText("Stop")

    def at_end(self) -> bool:
        return bool(self.steps) and self.position == len(self.steps) - 1

    def _on_run_button_clicked(self) -> None:
        if self._run_timer.isActive():
            self._stop_running()
        else:
            self.run()

    def _on_run_timer_timeout(self) -> None:
        self.step()
        if self.at_end():
            self._stop_running()

    def _stop_running(self) -> None:
        self._run_timer.stop()
        self.run_button.setText("Run")

    def _show_step(self) -> None:
        kind = str(self.wire.get("kind", "none"))
        has_steps = bool(self.steps)
        self.back_button.setEnabled(has_steps and self.position > 0)
        self.step_button.setEnabled(has_steps and self.position < len(self.steps) - 1)
        self.run_button.setEnabled(has_steps and (self._run_timer.isActive() or len(self.steps) > 1))
        if kind not in PAGES or not has_steps:
            message = str(self.wire.get("message", START_MESSAGE))
            say(self.message, message, bool(self.wire.get("error")))
            self.description.setText("")
            self.counter.setText("")
            self.drawings.setCurrentIndex(MESSAGE_PAGE)
            return
        step = self.steps[self.position]
        self.counter.setText(f"Step {self.position + 1} of {len(self.steps)}")
        self.description.setText(str(step["text"]))
        phase, index = str(step["phase"]), int(str(step["index"]))
        self.drawings.setCurrentIndex(PAGES[kind])
        if kind == "wordpiece":
            self._show_wordpiece(phase, index)
        elif kind == "bpe":
            self._show_bpe(phase, index)
        else:
            self._show_unigram(phase, index)

    def _show_wordpiece(self, phase: str, index: int) -> None:
        wire = self.wire
        lookups = wire["lookups"]
        assert isinstance(lookups, list)
        word = str(wire["word"])
        prefix = str(wire["prefix"])
        shown_lookups = len(lookups) if phase == END else index + 1 if phase == LOOKUP else 0
        found: list[Token] = []
        for start, end, piece, id in lookups[:shown_lookups]:
            if id >= 0:
                found.append((id, piece, start, end))
        unknown = phase == END and bool(wire["unknown"])
        tokens = tokens_of(wire["tokens"]) if phase == END else found
        window: tuple[int, int, str, int] | None = None
        if phase == LOOKUP:
            start, end, piece, id = lookups[index]
            window = (int(start), int(end), str(piece), int(id))
        self.word_window.show_state(word, window, tokens, unknown)
        bar = self.window_area.horizontalScrollBar().sizeHint().height()
        self.window_area.setFixedHeight(self.word_window.sizeHint().height() + bar + 4)
        dark = is_dark()
        rows: list[list[str]] = []
        colors: list[QColor | None] = []
        for number, (start, end, piece, id) in enumerate(lookups[:shown_lookups], start=1):
            rows.append([str(number), shown(piece), f"{start}–{end}", f"yes: id {id}" if id >= 0 else "no"])
            colors.append(theme(FOUND_EDGE, dark) if id >= 0 else QColor(ERROR_COLOR))
        fill(self.lookups, rows, colors)
        if rows:
            self.lookups.selectRow(len(rows) - 1)
            self.lookups.scrollToBottom()
        self.lookups.setToolTip(f"Pieces inside the word are looked up with {quoted(prefix)} in front")

    def _show_bpe(self, phase: str, index: int) -> None:
        wire = self.wire
        merges = dicts(wire["merges"])
        symbols = tokens_of(wire["symbols"])
        applied = len(merges) if phase == END else index + 1 if phase == MERGE else 0
        made = [(int(str(m["position"])), int(str(m["made_id"])), str(m["made"])) for m in merges]
        rows = [row_after(symbols, made, count) for count in range(applied + 1)]
        merged = [(int(str(m["position"])), int(str(m["rank"]))) for m in merges[:applied]]
        self.symbol_rows.show_state(rows, merged, phase == END)
        self.rows_area.ensureVisible(0, self.symbol_rows.row_top(len(rows)) + 40, 0, 40)
        fill(self.merges, [
            [str(number), f"{shown(str(m['left']))} + {shown(str(m['right']))}", f"{int(str(m['rank'])):,}", shown(str(m["made"])), str(m["made_id"])]
            for number, m in enumerate(merges[:applied], start=1)
        ])  # fmt: skip
        if applied:
            self.merges.selectRow(applied - 1)
            self.merges.scrollToBottom()

    def _show_unigram(self, phase: str, index: int) -> None:
        wire = self.wire
        word = str(wire["word"])
        path = [int(str(node)) for node in _items(wire["path"])]
        size = len(word)
        filled, current, lit = 0, -1, 0
        if phase == FILL:
            filled, current = index, index
        elif phase == BACK:
            filled, lit = size, index
        elif phase == END:
            filled, lit = size, len(path)
        self.lattice.show_state(
            word, self._nodes(), [float(str(b)) for b in _items(wire["best"])], [int(str(b)) for b in _items(wire["back"])],
            path, filled, current, lit,
        )  # fmt: skip

    def _nodes(self) -> list[Node]:
        return [
            (int(n[0]), int(n[1]), int(n[2]), str(n[3]), float(n[4]), bool(n[5]))
            for n in _items(self.wire["nodes"]) if isinstance(n, (tuple, list))
        ]  # fmt: skip

    def _fill_paths(self) -> None:
        wire = self.wire
        nodes = self._nodes()
        alpha = float(str(wire["alpha"]))

        def pieces(path: object) -> str:
            return " ".join(shown(nodes[int(str(node))][3]) for node in _items(path))

        nbest = [item for item in _items(wire["nbest"]) if isinstance(item, (tuple, list))]
        fill(self.nbest, [[str(rank), pieces(p), f"{float(s):.2f}", f"{float(q):.4f}"] for rank, (p, s, q) in enumerate(nbest, start=1)])
        self.nbest.setHorizontalHeaderLabels(["#", "Pieces", "Score", f"P at α {alpha:g}"])
        self.nbest_heading.label.setText(f"The {len(nbest)} best segmentations (n-best), and how often sampling draws each")
        samples = [item for item in _items(wire["samples"]) if isinstance(item, (tuple, list))]
        fill(self.samples, [[str(number), pieces(p), f"{float(s):.2f}"] for number, (p, s) in enumerate(samples, start=1)])
        self.samples_heading.label.setText(f"{len(samples)} segmentations sampled with α {alpha:g}, seed {wire['seed']}")


def _items(value: object) -> list[object]:
    assert isinstance(value, (list, tuple))
    return list(value)


def _escaped(text: str) -> str:
    """`text` for a rich-text label (quotes stay as they are: the steps quote pieces)."""
    return html.escape(text, quote=False)
