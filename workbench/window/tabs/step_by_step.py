"""`StepPanel`: train step by step on a small text, and watch each merge win. The words are
counted, and the run is made and stepped, in the Step by Step process
(`workbench.jobs.children.stepping`); the panel sends it the clicks and draws what it answers.

It is the same trainer as a full training, driven through a `StepSession` (Qt-free): one merge
per step, the pairs competing for the next, and the most frequent words as their current
tokens: the view every tokenizer tutorial draws by hand. "Run to End" asks for slice after slice
of steps, drawing each as it comes, until the run ends or Pause is pressed; the window never
waits for a step (a Unigram round on a 5 MB file takes seconds).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Final

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.errors import CorpusError
from engine.corpus.sources import CorpusSource, source_of
from engine.trainers.records import SCORE_COUNT, SCORE_LIKELIHOOD, SCORE_LIKELIHOOD_GAIN, PairCandidate
from engine.analysis.vocabulary import TokenStyle, readable
from workbench.core.components import trainer_algorithm
from workbench.core.formatting import score
from workbench.jobs.runners.child_job import ChildJob
from workbench.core.step_session import TIE_RULES, StepStart, StepView, tie_text, tied_with_first
from workbench.jobs.children.stepping import step_main, step_payload
from workbench.jobs.children.training import TrainingResult
from workbench.jobs.runners.training_plans import score_name_of
from workbench.window.views.heading import Heading
from workbench.window.views.merges_table import MergesTable
from workbench.core.training_text import rounds_text
from workbench.window.views.training_plots import PlotsWhenShown, TrainingPlots
from workbench.core.presets import Configuration

# Step mode is for small corpora: a file above this size is not offered.
MAX_STEP_BYTES: Final = 5 * 1024 * 1024
# "Run to End" asks the process for steps for this long at a time (s), drawing each answer.
RUN_SLICE_SECONDS: Final = 0.1
# The process of the next Start is started this long after the panel shows or is reset (ms).
PRESTART_DELAY_MS: Final = 300
TYPED_TEXT: Final = "typed text"
PAIR_HEADINGS: Final = ("Pairs competing for the next merge", "Pieces the next prune would remove first")
# What a WordPiece pair's score is, by the run's score name (the score column's tooltip).
SCORE_TIPS: Final = {
    SCORE_LIKELIHOOD: "count(ab) / (count(a) × count(b)), as the HF course teaches: the highest is merged next",
    SCORE_LIKELIHOOD_GAIN: "how much merging the pair raises the words' log-likelihood under a unigram model of "
    "their symbols (nats), as the WordPiece paper picks units: the highest is merged next",
}
PRESS_START: Final = "Press Start: the words of the text are counted with the pipeline on the left."
DEFAULT_TEXT: Final = (
    "the cat sat on the mat\n"
    "the dog sat on the log\n"
    "the cat and the dog ate the food\n"
    "a hat on a cat that sat\n"
)


class StepPanel(QWidget):
    """Step mode. `kept(TrainingResult, pipeline, trainer)` when the user keeps the result (the
    trainer's vocab_size set to the size kept; built, packed and tabled in the process, as a
    training's result is)."""

    kept = Signal(object, dict, dict)
    state_changed = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.source = QComboBox()
        self.text = QPlainTextEdit(DEFAULT_TEXT)
        typed_tip = (
            "Type or paste a few sentences to train on, or a word<TAB>count table as textbooks give "
            "their corpora (hug<TAB>10 on each line)"
        )
        self.text.setPlaceholderText(typed_tip)
        self.text.setToolTip(typed_tip)
        self.text.setMaximumHeight(120)
        self.start_button = QPushButton("Start")
        self.step_button = QPushButton("Step")
        self.ten_button = QPushButton("×10")
        self.hundred_button = QPushButton("×100")
        self.end_button = QPushButton("Run to End")
        self.reset_button = QPushButton("Reset")
        self.keep_button = QPushButton("Keep as Result")
        self.keep_button.setToolTip("Store this vocabulary and its history in the project, as a full training would")
        self.status = QLabel(PRESS_START)
        self.status.setWordWrap(True)

        self.candidates = QTableWidget(0, 4)
        self.words = QTableWidget(0, 2)
        self.words.setHorizontalHeaderLabels(["Word, as tokens", "Count"])
        for table in (self.candidates, self.words):
            table.verticalHeader().hide()
            table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
            table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
            table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.merges = MergesTable()
        self.plots_place = PlotsWhenShown(by_time=False, compression_title="Compression of the text")

        buttons = QHBoxLayout()
        for button in (self.start_button, self.step_button, self.ten_button, self.hundred_button, self.end_button, self.reset_button, self.keep_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        source_row = QHBoxLayout()
        source_row.addWidget(QLabel("Train on"))
        source_row.addWidget(self.source, 1)

        tables = QSplitter()
        self.candidates_heading = Heading(PAIR_HEADINGS[0], self.candidates)
        tables.addWidget(self.candidates_heading)
        tables.addWidget(Heading("Most frequent words", self.words))
        self.merges_heading = Heading("Merges so far", self.merges)
        tables.addWidget(self.merges_heading)
        layout = QVBoxLayout(self)
        layout.addLayout(source_row)
        layout.addWidget(self.text)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        body = QSplitter()
        body.setOrientation(Qt.Orientation.Vertical)
        body.addWidget(tables)
        body.addWidget(self.plots_place)
        body.setStretchFactor(0, 3)
        body.setStretchFactor(1, 2)
        layout.addWidget(body, 1)

        self.start_button.clicked.connect(self.start)
        self.step_button.clicked.connect(lambda: self.advance(1))
        self.ten_button.clicked.connect(lambda: self.advance(10))
        self.hundred_button.clicked.connect(lambda: self.advance(100))
        self.end_button.clicked.connect(self.run_to_end)
        self.reset_button.clicked.connect(self.reset)
        self.keep_button.clicked.connect(self.keep)
        self.source.currentTextChanged.connect(self._on_source_changed)

        # counts, holds and steps the run in a process of its own (never in the window's)
        self._stepper = ChildJob("Step by Step", self, talks=True)
        self._stepper.progressed.connect(self._on_stepper_progressed)
        self._stepper.failed.connect(self._on_stepper_failed)
        # what the process said of the session (None: no session) and where the run stands
        self.started: StepStart | None = None
        self._view: StepView | None = None
        self._asked = False  # (a request is out: the next one waits for its answer)
        self._waiting: list[tuple[object, ...]] = []  # (requests to send, in order)
        self._running = False  # ("Run to End": a slice is asked for after each answer)
        self.glyphs = True  # (whitespace shown as glyphs in the vocabulary table a kept run makes)
        self._config: Configuration | None = None
        self._files: dict[str, CorpusSource] = {}  # label -> the file as it is read
        self._style = TokenStyle()
        # the model the trainer trains ("BPE"...), which says what a step is
        self._algorithm = "BPE"
        self._score_name = SCORE_COUNT
        self._label_tables(self._algorithm, SCORE_COUNT)
        self.set_files([])
        self._update_buttons()

    # -- sources -----------------------------------------------------------------------------

    @property
    def plots(self) -> TrainingPlots:
        """The plots (built the first time they are needed: `PlotsWhenShown`)."""
        return self.plots_place.plots

    def set_files(self, inputs: Sequence[str | CorpusSource]) -> None:
        """Offer the small corpus files (up to 5 MB) besides typed text: paths, or sources that
        read another text field (`ProjectDocument.training_inputs`)."""
        current = self.source.currentText()
        self.source.blockSignals(True)
        self.source.clear()
        self.source.addItem(TYPED_TEXT)
        self._files = {}
        for item in inputs:
            try:
                source = item if isinstance(item, CorpusSource) else source_of(item)
                size = os.path.getsize(source.path)
            except (OSError, CorpusError):
                continue  # gone, or a kind never read (the corpus list says why)
            if size <= MAX_STEP_BYTES:
                label = f"{os.path.basename(source.path)} ({size / 1024:,.0f} KB)"
                self._files[label] = source
                self.source.addItem(label)
        if current in self._files or current == TYPED_TEXT:
            self.source.setCurrentText(current)
        self.source.blockSignals(False)
        self.text.setVisible(self.source.currentText() == TYPED_TEXT)

    def _on_source_changed(self, label: str) -> None:
        self.text.setVisible(label == TYPED_TEXT)
        self.reset()

    # -- driving the run -----------------------------------------------------------------------

    def set_configuration(self, configuration: Configuration | None) -> None:
        """The pipeline and trainer to step with (None: the form has errors); resets the run,
        and names the tables and plots after what this trainer's steps will be."""
        self._config = configuration
        if configuration is not None:
            trainer = configuration[1]
            self._algorithm = trainer_algorithm(trainer)
            self._score_name = score_name_of(trainer)
            self._label_tables(self._algorithm, self._score_name)
        self.reset()

    def start(self) -> None:
        """Count the words of the source and start a run (nothing is merged yet), in the Step by
        Step process; the window draws meanwhile."""
        self._clear()
        if self._config is None:
            self.status.setText("The settings on the left have errors: fix them to start.")
            return
        source = self._files.get(self.source.currentText())
        what = os.path.basename(source.path) if source is not None else "the text"
        self.status.setText(f"Counting the words of {what} with the pipeline on the left…")
        self._stepper.start(step_main, step_payload(self._config, source, self.text.toPlainText()))
        self._asked = True  # (the session itself is the first answer)
        self._update_buttons()
        self.state_changed.emit("counting")

    def is_counting(self) -> bool:
        """Whether the words are being counted (the session is not made yet)."""
        return self._stepper.is_running() and self.started is None

    def is_stepping(self) -> bool:
        """Whether the process is at work for the panel: counting, stepping, running or keeping."""
        return self._stepper.is_running() and (self._asked or self._running or bool(self._waiting))

    def advance(self, count: int) -> None:
        """Make up to `count` steps (starting the session first when there is none) and show
        where the run stands when the process answers."""
        self._ask(("step", count))

    def run_to_end(self) -> None:
        """Step until the run ends, drawing as it goes; pressed again (Pause), stop after the
        slice under way."""
        if self._running:
            self._running = False
            self._update_buttons()
            return
        if self._view is not None and self._view.done:
            return
        self._running = True
        self._ask(None)

    def keep(self) -> None:
        """Turn the run, where it stands, into the tokenizer's result (`kept` once the process
        has made it; after the steps asked for before it)."""
        if not self._stepper.is_running():
            # (no session, none starting, or its process stopped: there is no run to keep, and
            # starting one here would keep an empty one)
            if self.started is not None:
                self.status.setText("Nothing kept: the Step by Step process has stopped. Start again to make a run to keep.")
            return
        self._running = False
        self._ask(("keep", self.glyphs), start=False)

    def reset(self) -> None:
        """Forget the session (its process is stopped) and clear the view; the process of the
        next Start is started meanwhile."""
        self._clear()
        # (the next Start a second sooner; a moment later, not in the event that reset it)
        QTimer.singleShot(PRESTART_DELAY_MS, self._prestart)

    def _clear(self) -> None:
        self._stepper.kill()
        self.started = None
        self._view = None
        self._asked = False
        self._waiting = []
        self._running = False
        self.candidates.setRowCount(0)
        self.words.setRowCount(0)
        self.merges.merges.reset([], self._style, self._score_name)
        self.plots_place.clear(self._score_name, rounds=self._algorithm == "Unigram")
        self.status.setText(PRESS_START)
        self._update_buttons()
        self.state_changed.emit("")

    def stop(self) -> None:
        """Stop the process for good (the window is closing)."""
        self._running = False
        self._stepper.shutdown()
        self._update_buttons()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        QTimer.singleShot(PRESTART_DELAY_MS, self._prestart)

    def _prestart(self) -> None:
        """Start the process of the next Start ahead, while the panel shows and none runs."""
        if self.isVisible() and not self._stepper.is_running():
            self._stepper.prestart(step_main)

    def _ask(self, request: tuple[object, ...] | None, start: bool = True) -> None:
        """Send `request` when the process is free (else after the requests before it); with
        None, only send what waits (or the next slice of a run). Unless told not to (`start`),
        starts a session first when there is none."""
        if request is not None:
            self._waiting.append(request)
        if not self._stepper.is_running():
            if not start or self._config is None:
                self._waiting = []
                self._running = False
                return
            waiting, running = self._waiting, self._running
            self.start()  # (which forgets the requests: they are for the session it starts)
            self._waiting, self._running = waiting, running
            self._update_buttons()
            return
        if self._asked or self.started is None:
            return  # (sent when the answer before comes)
        if self._waiting:
            next_request = self._waiting.pop(0)
        elif self._running and not (self._view is not None and self._view.done):
            next_request = ("run", RUN_SLICE_SECONDS)
        else:
            self._running = False
            self._update_buttons()
            return
        self._asked = self._stepper.ask(next_request)
        self._update_buttons()

    def _on_stepper_progressed(self, record: object) -> None:
        """An answer of the process: the session started, steps made, or the result kept."""
        if not (isinstance(record, tuple) and len(record) == 2):
            return
        self._asked = False
        kind, body = record
        if kind == "started" and isinstance(body, tuple):
            start, view = body
            self._begin(start, view)
        elif kind == "stepped" and isinstance(body, StepView):
            self._take(body)
        elif kind == "kept" and isinstance(body, tuple):
            result, pipeline, trainer_settings = body
            if isinstance(result, TrainingResult):
                self.kept.emit(result, pipeline, trainer_settings)
        self._ask(None, start=False)  # (a kept result may have reset the panel: nothing more then)

    def _on_stepper_failed(self, message: str) -> None:
        started = self.started is not None
        self._asked = False
        self._waiting = []
        self._running = False
        self.status.setText(f"Step by Step stopped: {message}" if started else f"Cannot start: {message}")
        self._update_buttons()
        self.state_changed.emit("")

    def _begin(self, start: StepStart, view: StepView) -> None:
        """The session is made (nothing is merged yet): name the tables after its steps."""
        self.started = start
        self._style = start.style
        self._algorithm = start.algorithm
        self._score_name = start.score_name
        self._label_tables(start.algorithm, start.score_name)
        self.merges.merges.reset([], self._style, start.score_name)
        self.plots.clear(start.score_name, rounds=start.rounds)
        self._take(view)
        self.state_changed.emit("stepping")

    def _take(self, view: StepView) -> None:
        """Record the steps of an answer, and draw where the run stands."""
        self.merges.append(view.steps)
        self.plots.add_steps(view.steps)
        if view.compression is not None and view.compression > 0:
            model = self.merges.merges
            # (after n merges; at the latest round's number, the seed being round 0)
            self.plots.add_evaluation(len(model.rounds) - 1 if model.shows_rounds else len(model.steps), view.compression)
        looked = view.candidates is not None
        if not looked and self._view is not None:
            view.candidates, view.words = self._view.candidates, self._view.words
        self._view = view
        self._show(tables=looked)

    # -- drawing -------------------------------------------------------------------------------

    def _label_tables(self, algorithm: str, score_name: str) -> None:
        """Name the tables' columns after what the steps of a trainer of this `algorithm` are."""
        unigram = algorithm == "Unigram"
        # (short headers, so four columns fit; the tooltips say the rest)
        if unigram:
            labels = ["Piece", "Split into", "Uses", "Loss"]
            tips = [
                "a piece of the vocabulary",
                "the pieces its occurrences would become if it were removed",
                "how often the best segmentations use it",
                "how much the corpus log-likelihood would drop without it (smallest goes first)",
            ]
        elif score_name != SCORE_COUNT:
            labels = ["Left", "Right", score_name.capitalize(), "ab · a · b"]
            tips = [
                "the left symbol",
                "the right symbol",
                SCORE_TIPS.get(score_name, "the pair's score: the highest is merged next"),
                "how often the pair, the left symbol and the right symbol occur",
            ]
        else:
            labels = ["Left", "Right", "Count", ""]
            tips = ["the left symbol", "the right symbol", "how often the pair occurs: the highest is merged next", ""]
        self.candidates.setHorizontalHeaderLabels(labels)
        for column in range(len(labels)):
            header = self.candidates.horizontalHeaderItem(column)
            if header is not None:
                header.setToolTip(tips[column])
        self.candidates.setColumnHidden(3, not labels[3])
        self.candidates_heading.label.setText(PAIR_HEADINGS[1] if unigram else PAIR_HEADINGS[0])
        self.merges_heading.label.setText("Rounds so far" if unigram else "Merges so far")

    def _show(self, tables: bool = True) -> None:
        """Draw where the run stands: the status line, and (`tables`) the candidates and words."""
        start, view = self.started, self._view
        if start is None or view is None:
            return
        candidates = view.candidates or []
        tie = tie_text(candidates, self._algorithm, start.score_name) if not view.done else ""
        if tables:
            self._show_candidates(candidates, start.score_name, view.done, tie)
            words = view.words or []
            self.words.setRowCount(len(words))
            for row, (pieces, count) in enumerate(words):
                shown = "".join(f"[{readable(piece, self._style)}]" for piece in pieces) if pieces else "(not a token yet)"
                self.words.setItem(row, 0, QTableWidgetItem(shown))
                self.words.setItem(row, 1, QTableWidgetItem(f"{count:,}"))
        if self._algorithm == "Unigram":
            rounds = self.merges.merges.rounds
            steps = rounds_text(rounds)
            state = (
                "done: the vocabulary is final" if view.done
                else f"last round: {rounds[-1].phase}" + (", the next prune removes the pieces above first" if candidates else "")
                if rounds else "next: the seed round (frequent substrings)"
            )
        else:
            merged = len(self.merges.merges.steps)
            steps = f"{merged:,} merge{'' if merged == 1 else 's'}"
            state = "done: nothing more to merge" if view.done else "next: the first pair above"
            if tie:
                state += f", {tie}"
        if self._running and not view.done:
            state = "running (Pause stops after the steps under way)"
        self.status.setText(f"{steps} · vocabulary {view.vocab_size:,} · {start.distinct:,} distinct {start.units} · {state}")
        self._update_buttons()
        if view.done:
            self.state_changed.emit("done")

    def _show_candidates(self, candidates: list[PairCandidate], score_name: str, done: bool, tie: str) -> None:
        """The pairs (or pieces) competing for the next step, the next one in bold and the pairs
        tied with it marked."""
        tied = set(tied_with_first(candidates, self._algorithm, score_name)) if not done else set()
        bold = QFont(self.candidates.font())
        bold.setBold(True)
        self.candidates.setRowCount(len(candidates))
        for row, candidate in enumerate(candidates):
            left, right = candidate.left, candidate.right
            if self._algorithm == "Unigram":
                shown_right = " ".join(readable(piece, self._style) for piece in right.split(" "))
                cells = (readable(left, self._style), shown_right, f"{candidate.count:,}", score(candidate.score or 0.0))
            elif candidate.score is not None:
                counts = f"{candidate.count:,} · {_count(candidate.left_count)} · {_count(candidate.right_count)}"
                cells = (readable(left, self._style), readable(right, self._style), score(candidate.score), counts)
            else:
                cells = (readable(left, self._style), readable(right, self._style), f"{candidate.count:,}", "")
            if tie and (row == 0 or row in tied):
                cells = (*cells[:2], f"{cells[2]} (tie)", *cells[3:])
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column < 2:
                    item.setToolTip(f"raw: {(left, right)[column]!r}")
                if row == 0 and not done:
                    item.setFont(bold)
                    item.setToolTip(
                        "the next prune removes this piece first" if self._algorithm == "Unigram"
                        else f"the next step merges this pair ({tie})" if tie else "the next step merges this pair"
                    )
                elif row in tied:
                    # (a tie with the pair merged next: the same count or score, put after it by the rule)
                    item.setBackground(self.palette().alternateBase())
                    item.setToolTip(f"tied with the first pair; {TIE_RULES.get(score_name, '')}")
                self.candidates.setItem(row, column, item)

    def _update_buttons(self) -> None:
        started = self.started is not None
        busy = self.is_stepping()
        done = self._view is not None and self._view.done
        ready = self._config is not None and not done
        for button in (self.step_button, self.ten_button, self.hundred_button):
            button.setEnabled(ready and not busy)
        # Run to End turns into Pause while it runs
        self.end_button.setText("Pause" if self._running else "Run to End")
        self.end_button.setEnabled(self._running or (ready and not busy))
        self.start_button.setEnabled(not busy and self._config is not None)
        self.reset_button.setEnabled(started or self._stepper.is_running())
        self.keep_button.setEnabled(started and not busy)


def _count(value: int | None) -> str:
    return f"{value:,}" if value is not None else "?"
