"""`TrainTab`: configure the active tokenizer's pipeline, train it in a child process while the
progress, the plots and the merges table follow, or step through it by hand.

Settings of an untrained tokenizer apply as they are edited; a trained one keeps its result
until a new training of the changed settings finishes (cancel or failure change nothing).
"""

from __future__ import annotations

import json
import os
from typing import Final

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from engine.progress import TrainProgress
from engine.project import TokenizerEntry
from engine.schema import JsonValue
from engine.trainers.records import SCORE_COUNT, SCORE_LIKELIHOOD, MergeStep, RoundStep
from engine.vocabulary import TokenStyle
from workbench.document import ProjectDocument
from workbench.formatting import ERROR_STYLE
from workbench.pipeline_form import PipelineForm
from workbench.prompts import Prompts
from workbench.runner import TrainingRunner
from workbench.settings import Settings
from workbench.step_panel import StepPanel
from workbench.training import TrainingJob, TrainingResult
from workbench.training_views import Heading, MergesTable, StageProgress, TrainingPlots

DEFAULT_HELD_OUT_PERCENT: Final = 1.0


def default_processes() -> int:
    """Counting processes for the window's trainings: the cores, at most 4."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, 4))


def score_name_of(trainer: dict[str, JsonValue]) -> str:
    """What ranks the merges of this trainer's run: "likelihood" for WordPiece scored by
    likelihood, else "count" (TrainHistory.score_name)."""
    if trainer.get("type") == "WordPieceTrainer" and trainer.get("scoring", "likelihood") == "likelihood":
        return SCORE_LIKELIHOOD
    return SCORE_COUNT


class TrainTab(QWidget):
    """The Train tab. `state_changed(text)` for the status bar; `trained()` after a result."""

    state_changed = Signal(str)
    trained = Signal()

    def __init__(self, document: ProjectDocument, settings: Settings, prompts: Prompts) -> None:
        super().__init__()
        self.document = document
        self.settings = settings
        self.prompts = prompts
        self.runner = TrainingRunner(self)
        self._job_entry: TokenizerEntry | None = None
        self._job_config: tuple[dict[str, JsonValue], dict[str, JsonValue]] | None = None
        self._style = TokenStyle()
        self._applying = False
        # (entry, steps) whose history the plots already show, drawn live as it trained
        self._plotted: tuple[TokenizerEntry, int] | None = None

        self.form = PipelineForm()
        form_area = QScrollArea()
        form_area.setWidget(self.form)
        form_area.setWidgetResizable(True)
        form_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        form_area.setMinimumWidth(380)

        self.train_button = QPushButton("Train")
        self.train_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel")
        self.revert_button = QPushButton("Revert Settings")
        self.revert_button.setToolTip("Show the settings the current result was trained with")
        self.held_out = QDoubleSpinBox()
        self.held_out.setRange(0.0, 20.0)
        self.held_out.setSingleStep(0.5)
        self.held_out.setSuffix(" %")
        self.held_out.setValue(DEFAULT_HELD_OUT_PERCENT)
        self.held_out.setToolTip(
            "This share of the corpus (the end of the last file, at most 64 KB) is not trained on: "
            "the characters-per-token plot measures it. 0 trains on everything."
        )
        self.processes = QSpinBox()
        self.processes.setRange(1, 16)
        self.processes.setValue(settings.counting_processes or default_processes())
        self.processes.setToolTip("Processes that count words in parallel (large corpora)")
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.pending = QLabel()
        self.pending.setWordWrap(True)

        self.stages = StageProgress()
        self.plots = TrainingPlots()
        self.merges = MergesTable()

        controls = QHBoxLayout()
        controls.addWidget(self.train_button)
        controls.addWidget(self.cancel_button)
        controls.addWidget(self.revert_button)
        controls.addSpacing(16)
        controls.addWidget(QLabel("Hold out"))
        controls.addWidget(self.held_out)
        controls.addWidget(QLabel("Counting processes"))
        controls.addWidget(self.processes)
        controls.addStretch(1)

        live = QWidget()
        live_layout = QVBoxLayout(live)
        live_layout.addLayout(controls)
        live_layout.addWidget(self.pending)
        live_layout.addWidget(self.message)
        live_layout.addWidget(self.stages)
        body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(self.plots)
        self.merges_heading = Heading("Latest merges", self.merges)
        body.addWidget(self.merges_heading)
        body.setStretchFactor(0, 3)
        body.setStretchFactor(1, 2)
        live_layout.addWidget(body, 1)

        self.step_panel = StepPanel()
        self.modes = QTabWidget()
        self.modes.addTab(live, "Training")
        self.modes.addTab(self.step_panel, "Step by Step")

        splitter = QSplitter()
        splitter.addWidget(form_area)
        splitter.addWidget(self.modes)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([420, 980])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

        self.train_button.clicked.connect(self.start_training)
        self.cancel_button.clicked.connect(self.cancel_training)
        self.revert_button.clicked.connect(self._on_revert_clicked)
        self.form.edited.connect(self._on_form_edited)
        self.runner.progressed.connect(self._on_runner_progressed)
        self.runner.stepped.connect(self._on_runner_stepped)
        self.runner.evaluated.connect(self.plots.add_evaluation)
        self.runner.finished.connect(self._on_runner_finished)
        self.runner.cancelled.connect(self._on_runner_cancelled)
        self.runner.failed.connect(self._on_runner_failed)
        self.step_panel.kept.connect(self._on_step_panel_kept)
        self.step_panel.state_changed.connect(self._on_step_panel_state_changed)
        document.active_changed.connect(self._on_document_active_changed)
        document.changed.connect(self._update_controls)
        self._on_document_active_changed()

    # -- training ----------------------------------------------------------------------------

    def is_training(self) -> bool:
        return self.runner.is_running()

    def blocked_reason(self) -> str:
        """Why Train cannot start now ("" when it can)."""
        entry = self.document.active
        if entry is None:
            return "Create a tokenizer from a preset (Project panel, New From Preset) first."
        reason = self.form.trainable_reason()
        if reason:
            return f"This model cannot be trained here: {reason}."
        if self.form.configuration() is None:
            return "Fix the settings marked in red first."
        corpus = self.document.project.corpus
        if not corpus:
            return "Add corpus files (Project panel, Add Files…) to train on."
        missing = [item.name for item in corpus if not item.exists()]
        if missing:
            return f"Corpus files not found: {', '.join(missing)}. Locate or remove them in the Project panel."
        return ""

    def start_training(self) -> None:
        reason = self.blocked_reason()
        entry = self.document.active
        configuration = self.form.configuration()
        if reason or entry is None or configuration is None:
            self._say(reason, error=True)
            return
        pipeline, trainer = configuration
        job = TrainingJob(
            json.dumps(pipeline),
            trainer,
            self.document.corpus_paths(),
            self.held_out.value() / 100.0,
            self.processes.value(),
        )
        self._job_entry = entry
        self._job_config = configuration
        self.stages.clear()
        score_name = score_name_of(trainer)
        rounds = trainer.get("type") == "UnigramTrainer"
        self.plots.clear(score_name, at_once=False, rounds=rounds)
        self.merges.merges.reset([], self._style_of(pipeline), score_name)
        self._name_steps(rounds)
        self._say("Starting the training process…")
        self.runner.start(job)
        self.state_changed.emit("training")
        self._update_controls()

    def cancel_training(self) -> None:
        if self.runner.is_running():
            self.runner.cancel()
            self._say("Cancelling…")

    def shutdown(self) -> None:
        self.step_panel.stop()
        self.runner.shutdown()

    def _on_runner_progressed(self, event: TrainProgress) -> None:
        self.stages.update_stage(event)
        self.state_changed.emit(f"training: {event.stage} {100 * event.fraction:.0f}%")
        self._say(f"{event.stage}…")

    def _on_runner_stepped(self, steps: list[MergeStep | RoundStep]) -> None:
        self.plots.add_steps(steps)
        self.merges.append(steps)

    def _on_runner_finished(self, result: TrainingResult) -> None:
        entry, configuration = self._job_entry, self._job_config
        self._job_entry = None
        if entry is not None and configuration is not None and entry in self.document.project.tokenizers:
            self._plotted = (entry, len(result.report.history))
            self._store(entry, result, configuration)
        report = result.report
        held = f"; {result.held_out_bytes / 1024:,.1f} KB held out" if result.held_out_bytes else ""
        last = result.evaluations[-1][1] if result.evaluations else 0.0
        measured = f", {last:.2f} characters per token on it" if last else ""
        self._say(
            f"Trained in {report.seconds:.1f} s: {len(report.history):,} steps from {report.files} file"
            f"{'s' if report.files != 1 else ''} ({report.total_words:,} words, {report.unique_words:,} distinct){held}{measured}."
        )
        self.state_changed.emit("trained")
        self.trained.emit()
        self._update_controls()

    def _store(self, entry: TokenizerEntry, result: TrainingResult, configuration: tuple[dict[str, JsonValue], dict[str, JsonValue]]) -> None:
        entry.pipeline, entry.trainer = configuration
        entry.source = ""
        self.document.store_result(entry, result)

    def _on_runner_cancelled(self) -> None:
        self._job_entry = None
        self._show_stored()
        self._say("Training cancelled; the project is unchanged.")
        self.state_changed.emit("cancelled")
        self._update_controls()

    def _on_runner_failed(self, message: str) -> None:
        self._job_entry = None
        self._say(f"Training failed: {message}", error=True)
        self.state_changed.emit("failed")
        self._update_controls()

    def _on_step_panel_state_changed(self, state: str) -> None:
        self.state_changed.emit(f"step by step: {state}" if state else self.resting_state())

    def resting_state(self) -> str:
        """The status bar's word for the active tokenizer when nothing runs."""
        entry = self.document.active
        if entry is None:
            return "no tokenizer"
        return "trained" if entry.is_trained else "not trained"

    def _on_step_panel_kept(self, result: TrainingResult, pipeline: dict[str, JsonValue], trainer: dict[str, JsonValue]) -> None:
        entry = self.document.active
        if entry is not None:
            self._store(entry, result, (pipeline, trainer))
            self.trained.emit()

    # -- settings ----------------------------------------------------------------------------

    def _on_document_active_changed(self) -> None:
        entry = self.document.active
        if self._applying:
            self._update_controls()
            return
        if entry is not None:
            self.form.set_configuration(entry.pipeline, entry.trainer)
        else:
            self.form.set_configuration({}, None)
        self.form.setEnabled(entry is not None)
        self.step_panel.set_files(self.document.corpus_paths())
        self.step_panel.set_configuration(self.form.configuration() if entry is not None else None)
        if not self.runner.is_running():
            self._show_stored()
            self.state_changed.emit(self.resting_state())
        self._update_controls()

    def _show_stored(self) -> None:
        """Redraw the plots and the merges from the active tokenizer's stored history."""
        entry = self.document.active
        view = self.document.view()
        history = entry.report.history if entry is not None and entry.report is not None else None
        if self._plotted is None or entry is None or self._plotted[0] is not entry:
            # the stages of a training are shown until another tokenizer is looked at
            self.stages.clear()
        if entry is None or history is None or self._plotted != (entry, len(history)):
            # (the plots of a training that just finished already show its history)
            self.plots.show_history(history, entry.evaluations if entry is not None else [])
        self._plotted = None
        style = view.style if view is not None else TokenStyle()
        self.merges.merges.reset(
            history.merges if history is not None else [],
            style,
            history.score_name if history else "count",
            history.rounds if history is not None else [],
        )
        self._name_steps(history is not None and bool(history.rounds) and not history.merges)
        self.merges.scrollToBottom()
        if entry is not None and entry.report is not None:
            report = entry.report
            self._say(
                f"Last trained in {report.seconds:.1f} s on {report.total_words:,} words "
                f"({report.unique_words:,} distinct): {len(report.history):,} steps."
            )
        elif entry is not None and entry.is_trained:
            self._say("Imported: no training history. Train to retrain this pipeline on the project's corpus.")
        else:
            self._say("Not trained yet.")

    def _on_form_edited(self) -> None:
        configuration = self.form.configuration()
        entry = self.document.active
        self.step_panel.set_configuration(configuration)
        if configuration is not None and entry is not None and not entry.is_trained:
            # subtle: the document tells every view, this form included; the form already shows it.
            self._applying = True
            try:
                self.document.set_configuration(*configuration)
            finally:
                self._applying = False
        self._update_controls()

    def _on_revert_clicked(self) -> None:
        entry = self.document.active
        if entry is not None:
            self.form.set_configuration(entry.pipeline, entry.trainer)
            self.step_panel.set_configuration(self.form.configuration())
        self._update_controls()

    def _has_pending_edits(self) -> bool:
        entry = self.document.active
        if entry is None or not entry.is_trained:
            return False
        configuration = self.form.configuration()
        if configuration is None:
            return True
        return configuration != (entry.pipeline, entry.trainer)

    def _update_controls(self) -> None:
        running = self.runner.is_running()
        reason = "" if running else self.blocked_reason()
        self.train_button.setEnabled(not running and not reason)
        self.train_button.setToolTip(reason or "Train on the project's corpus in a separate process")
        self.cancel_button.setEnabled(running)
        pending = self._has_pending_edits()
        self.revert_button.setVisible(pending and not running)
        self.pending.setText(
            "The settings differ from the ones the current result was trained with: "
            "they take effect when you train (the current result stays until then)." if pending else ""
        )
        self.pending.setVisible(pending)
        if reason and not running:
            self._say(reason, error=True)

    def _name_steps(self, rounds: bool) -> None:
        self.merges_heading.label.setText("Rounds" if rounds else "Latest merges")

    def _say(self, text: str, error: bool = False) -> None:
        self.message.setText(text)
        self.message.setStyleSheet(ERROR_STYLE if error else "")

    def _style_of(self, pipeline: dict[str, JsonValue]) -> TokenStyle:
        view = self.document.view()
        return view.style if view is not None else TokenStyle()

    def apply_palette(self) -> None:
        """Redraw the plots in the colours of the current theme."""
        self.plots.apply_palette()
        self.step_panel.plots.apply_palette()

    def set_whitespace_glyphs(self, on: bool) -> None:
        self.merges.merges.glyphs = on
        self.merges.viewport().update()
