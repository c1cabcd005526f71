"""`StepPanel`: train step by step on a small text, and watch each merge win: the words are counted
in a child process (a file, or a long text), the run stepped in this process, one click at a
time.

It is the same trainer as a full training, driven through a `StepSession` (Qt-free): one merge
per step, the pairs competing for the next, and the most frequent words as their current
tokens: the view every tokenizer tutorial draws by hand. "Run to end" steps in short slices so
the window stays live. The panel draws the session and holds its buttons, timer and counter.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Final

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont
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

from engine.errors import CorpusError, EngineError
from engine.corpus.sources import CorpusSource, source_of
from engine.trainers.records import SCORE_COUNT, SCORE_LIKELIHOOD, MergeStep, RoundStep
from engine.analysis.vocabulary import TokenStyle, readable
from workbench.core.components import trainer_algorithm
from workbench.core.formatting import score
from workbench.jobs.runners.child_job import ChildJob
from workbench.core.step_session import TIE_RULES, StepSession, count_typed, tie_text, tied_with_first
from workbench.core.trainer_counting import counts_sentences
from workbench.jobs.children.step_counts import count_main, count_payload
from workbench.window.views.heading import Heading
from workbench.window.views.merges_table import MergesTable
from workbench.core.training_text import rounds_text
from workbench.window.views.training_plots import PlotsWhenShown, TrainingPlots
from workbench.core.presets import Configuration

# Step mode is for small corpora: a file above this size is not offered.
MAX_STEP_BYTES: Final = 5 * 1024 * 1024
# A typed text up to this long is counted at once in the window; a longer one, or a file, is
# counted in a child process.
IN_PROCESS_CHARS: Final = 20_000
# "Run to end" works in slices of this many seconds between two redraws.
SLICE_SECONDS: Final = 0.02
TYPED_TEXT: Final = "typed text"
PAIR_HEADINGS: Final = ("Pairs competing for the next merge", "Pieces the next prune would remove first")
DEFAULT_TEXT: Final = (
    "the cat sat on the mat\n"
    "the dog sat on the log\n"
    "the cat and the dog ate the food\n"
    "a hat on a cat that sat\n"
)


class StepPanel(QWidget):
    """Step mode. `kept(TrainedResult, pipeline, trainer)` when the user keeps the result (the
    trainer's vocab_size set to the size kept)."""

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
        self.status = QLabel("Press Start: the words of the text are counted with the pipeline on the left.")
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

        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._on_timer_timeout)
        # counts a file's words in a child process (never in the window's)
        self._counter = ChildJob("word counting", self)
        self._counter.finished.connect(self._on_counter_finished)
        self._counter.failed.connect(self._on_counter_failed)
        self.session: StepSession | None = None
        self._config: Configuration | None = None
        self._files: dict[str, CorpusSource] = {}  # label -> the file as it is read
        self._counting_file = False
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
            likelihood = self._algorithm == "WordPiece" and trainer.get("scoring", "likelihood") == "likelihood"
            self._score_name = SCORE_LIKELIHOOD if likelihood else SCORE_COUNT
            self._label_tables(self._algorithm, self._score_name)
        self.reset()

    def start(self) -> None:
        """Count the words of the source and start a run (nothing is merged yet)."""
        self.reset()
        if self._config is None:
            self.status.setText("The settings on the left have errors: fix them to start.")
            return
        pipeline, trainer = self._config
        sentences = counts_sentences(trainer)  # (sentencepiece's trainer reads whole lines)
        source = self._files.get(self.source.currentText())
        text = self.text.toPlainText()
        if source is None and len(text) <= IN_PROCESS_CHARS:
            # a few typed sentences: counted here, at once
            try:
                counts = count_typed(pipeline, text, sentences)
            except EngineError as error:
                self.status.setText(f"Cannot start: {error}")
                return
            self._begin(counts, text, from_file=False)
            return
        # a file (or a long text): counted in a child process, the window drawing meanwhile
        self._counting_file = source is not None
        what = os.path.basename(source.path) if source is not None else "the text"
        self.status.setText(f"Counting the words of {what} with the pipeline on the left…")
        self._counter.start(count_main, count_payload(json.dumps(pipeline), source, text, sentences))
        self._update_buttons()
        self.state_changed.emit("counting")

    def is_counting(self) -> bool:
        return self._counter.is_running()

    def _on_counter_finished(self, answer: object) -> None:
        if not isinstance(answer, tuple) or len(answer) != 2 or not isinstance(answer[0], dict):
            self._on_counter_failed("the count sent something else")
            return
        self._begin(answer[0], str(answer[1]), from_file=self._counting_file)

    def _on_counter_failed(self, message: str) -> None:
        self.status.setText(f"Cannot start: {message}")
        self._update_buttons()
        self.state_changed.emit("")

    def _begin(self, counts: dict[str, int], sample: str, from_file: bool) -> None:
        """Start a session on the words counted (nothing is merged yet)."""
        if self._config is None:
            return
        try:
            session = StepSession(self._config, counts, sample, from_file)
        except (EngineError, OSError) as error:
            self.status.setText(f"Cannot start: {error}")
            self._update_buttons()
            return
        self.session = session
        self._style = session.style
        self._algorithm = session.algorithm
        self._label_tables(session.algorithm, session.score_name)
        self.merges.merges.reset([], self._style, session.score_name)
        self.plots.clear(session.score_name, rounds=session.rounds)
        self._evaluate(force=True)
        self._show()
        self.state_changed.emit("stepping")

    def advance(self, count: int) -> None:
        """Make up to `count` steps and show where the run stands."""
        session = self.session
        if session is None:
            if self.is_counting():
                return  # (the words are being counted: the run starts when they are)
            self.start()
            session = self.session
            if session is None:
                return
        self._record(session.step(count))
        self._evaluate(force=True)
        self._show()

    def run_to_end(self) -> None:
        if self.session is None and not self.is_counting():
            self.start()
        if self.session is not None and not self.session.done:
            self._timer.start()
            self._update_buttons()

    def reset(self) -> None:
        self._timer.stop()
        self._counter.kill()
        self.session = None
        self.candidates.setRowCount(0)
        self.words.setRowCount(0)
        self.merges.merges.reset([], self._style, self._score_name)
        self.plots_place.clear(self._score_name, rounds=self._algorithm == "Unigram")
        self.status.setText("Press Start: the words of the text are counted with the pipeline on the left.")
        self._update_buttons()
        self.state_changed.emit("")

    def keep(self) -> None:
        """Turn the run, where it stands, into the tokenizer's result."""
        if self.session is None:
            return
        self._timer.stop()
        result, pipeline, trainer_settings = self.session.keep()
        self.kept.emit(result, pipeline, trainer_settings)

    def is_stepping(self) -> bool:
        return self._timer.isActive()

    def stop(self) -> None:
        self._timer.stop()
        self._counter.kill()
        self._update_buttons()

    def _on_timer_timeout(self) -> None:
        session = self.session
        if session is None:
            self._timer.stop()
            return
        self._record(session.step_for(SLICE_SECONDS))
        self._evaluate(force=session.done)
        if session.done:
            self._timer.stop()
            self._show()

    def _evaluate(self, force: bool) -> None:
        """Characters per token of the training text under the vocabulary made so far."""
        value = self.session.characters_per_token(force) if self.session is not None else None
        if value is not None:
            model = self.merges.merges
            # (after n merges; at the latest round's number, the seed being round 0)
            self.plots.add_evaluation(len(model.rounds) - 1 if model.shows_rounds else len(model.steps), value)

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
                "count(ab) / (count(a) × count(b)): the highest is merged next",
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

    def _record(self, made: list[MergeStep | RoundStep]) -> None:
        self.merges.append(made)
        self.plots.add_steps(made)

    def _show(self) -> None:
        session = self.session
        if session is None:
            return
        run = session.run
        candidates = session.candidates()
        tied = set(tied_with_first(candidates, self._algorithm, session.score_name)) if not run.done else set()
        tie = tie_text(candidates, self._algorithm, session.score_name) if not run.done else ""
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
                if row == 0 and not run.done:
                    item.setFont(bold)
                    item.setToolTip(
                        "the next prune removes this piece first" if self._algorithm == "Unigram"
                        else f"the next step merges this pair ({tie})" if tie else "the next step merges this pair"
                    )
                elif row in tied:
                    # (a tie with the pair merged next: the same count or score, put after it by the rule)
                    item.setBackground(self.palette().alternateBase())
                    item.setToolTip(f"tied with the first pair; {TIE_RULES.get(session.score_name, '')}")
                self.candidates.setItem(row, column, item)
        words = session.words()
        self.words.setRowCount(len(words))
        for row, (pieces, count) in enumerate(words):
            shown = "".join(f"[{readable(piece, self._style)}]" for piece in pieces) if pieces else "(not a token yet)"
            self.words.setItem(row, 0, QTableWidgetItem(shown))
            self.words.setItem(row, 1, QTableWidgetItem(f"{count:,}"))
        size = len(run.vocab)
        if self._algorithm == "Unigram":
            rounds = self.merges.merges.rounds
            steps = rounds_text(rounds)
            upcoming = run.top_candidates(1)
            state = (
                "done: the vocabulary is final" if run.done
                else f"last round: {rounds[-1].phase}" + (", the next prune removes the pieces above first" if upcoming else "")
                if rounds else "next: the seed round (frequent substrings)"
            )
        else:
            merged = len(self.merges.merges.steps)
            steps = f"{merged:,} merge{'' if merged == 1 else 's'}"
            state = "done: nothing more to merge" if run.done else "next: the first pair above"
            if tie:
                state += f", {tie}"
        units = "lines" if counts_sentences(session.configuration[1]) else "words"
        self.status.setText(f"{steps} · vocabulary {size:,} · {len(session.counts):,} distinct {units} · {state}")
        self._update_buttons()
        if run.done:
            self.state_changed.emit("done")

    def _update_buttons(self) -> None:
        running = self.session is not None
        busy = self._timer.isActive() or self._counter.is_running()
        done = self.session is not None and self.session.done
        for button in (self.step_button, self.ten_button, self.hundred_button, self.end_button):
            button.setEnabled(not busy and not done and self._config is not None)
        self.start_button.setEnabled(not busy and self._config is not None)
        self.reset_button.setEnabled(running or self._counter.is_running())
        self.keep_button.setEnabled(running and not busy)


def _count(value: int | None) -> str:
    return f"{value:,}" if value is not None else "?"
