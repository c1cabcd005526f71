"""`TrainingPage`: the Train tab's page for a full training: Train, Pause, Cancel, Retry and
the estimate; the hold-out, counting-process and sample options; Continue to a larger
vocabulary; the message; the stage bars, the plots and the latest merges.

Widgets, and how they show a state they are told: the Train tab (`workbench.window.tabs.train`)
connects them and decides what they show.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QPushButton, QSpinBox, QSplitter, QVBoxLayout, QWidget

from engine.schema import JsonValue
from workbench.core.trainer_counting import trainer_sample_lines
from workbench.jobs.runners.training import CAN_PAUSE
from workbench.window.views.estimate_label import EstimateLabel, EstimateRequest
from workbench.window.views.heading import Heading, say
from workbench.window.views.merges_table import MergesTable
from workbench.window.views.stage_progress import StageProgress
from workbench.window.views.training_plots import TrainingPlots

DEFAULT_HELD_OUT_PERCENT: Final = 1.0
CONTINUE_HINT: Final = (
    "Continues from the saved counts (no recounting); merges are recomputed from the start "
    "(a SentencePiece Unigram's rounds run again from the seed), identical to one run to the larger size."
)
SAMPLE_HINT: Final = (
    "input_sentence_size, as in SentencePiece: train on a uniform random sample of this many "
    "lines (and records) of the corpus, to bound memory on a big corpus; the summary says how "
    "many were sampled. Sampling reads every line in one process, and keeps no word counts to "
    "continue from. All lines: off."
)
# The Sample field while the trainer sets the sample itself (`follow_trainer`).
SAMPLE_SET_BY_TRAINER: Final = (
    "Set by the trainer's input_sentence_size ({lines:,} lines): training samples that many lines, "
    "in one process, and keeps no counts to continue from. Set it to 0 in the trainer's settings "
    "to choose the sample here."
)


class TrainingPage(QWidget):
    """The widgets of a full training, laid out; `clock` gives the running training's seconds
    (for the stage bars), `processes` the counting processes shown first."""

    def __init__(self, estimate_request: EstimateRequest, clock: Callable[[], float], processes: int) -> None:
        super().__init__()
        self.train_button = QPushButton("Train")
        self.train_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel")
        self.retry_button = QPushButton("Retry")
        self.retry_button.setToolTip("Start the training that failed again, with the same settings")
        self.retry_button.hide()
        self.pause_button = QPushButton("Pause")
        self.pause_button.setToolTip("Stop the training process where it is; Resume continues it")
        # POSIX only: Windows has no SIGSTOP, and there the button is not shown at all
        self.pause_button.setVisible(CAN_PAUSE)
        self.estimate_label = EstimateLabel(estimate_request)
        self.continue_size = QSpinBox()
        self.continue_size.setRange(1, 10_000_000)
        self.continue_size.setSingleStep(1000)
        self.continue_size.setGroupSeparatorShown(True)  # (16,000, as the vocabulary sizes elsewhere)
        self.continue_size.setToolTip(CONTINUE_HINT)
        self.continue_button = QPushButton("Continue")
        self.continue_button.setToolTip(CONTINUE_HINT)
        self.continue_box = QWidget()
        continue_row = QHBoxLayout(self.continue_box)
        continue_row.setContentsMargins(0, 0, 0, 0)
        continue_row.addWidget(QLabel("Continue to vocabulary"))
        continue_row.addWidget(self.continue_size)
        continue_row.addWidget(self.continue_button)
        continue_row.addStretch(1)
        self.continue_box.setToolTip(CONTINUE_HINT)
        # (its row stays when it is hidden: the stages and plots below do not move, and the plots
        # are not redrawn at a new size, when a training starts or ends)
        keep = self.continue_box.sizePolicy()
        keep.setRetainSizeWhenHidden(True)
        self.continue_box.setSizePolicy(keep)
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
        self.processes.setValue(processes)
        self.processes.setToolTip("Processes that count words in parallel (large corpora)")
        self.sample_lines = QSpinBox()
        self.sample_lines.setRange(0, 2_000_000_000)
        self.sample_lines.setSingleStep(100_000)
        self.sample_lines.setGroupSeparatorShown(True)
        self.sample_lines.setSpecialValueText("all lines")
        self.sample_lines.setToolTip(SAMPLE_HINT)
        # the user's own sample while the trainer's input_sentence_size is shown instead (None: not)
        self._own_sample: int | None = None
        self.message = QLabel()
        self.message.setWordWrap(True)
        # (two lines held for it: a summary that wraps does not move the plots below)
        self.message.setMinimumHeight(2 * self.message.fontMetrics().lineSpacing())
        self.message.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.pending = QLabel()
        self.pending.setWordWrap(True)

        self.stages = StageProgress(clock=clock)
        self.plots = TrainingPlots()
        self.merges = MergesTable()

        controls = QHBoxLayout()
        controls.addWidget(self.train_button)
        controls.addWidget(self.pause_button)
        controls.addWidget(self.cancel_button)
        controls.addWidget(self.retry_button)
        controls.addWidget(self.estimate_label)
        controls.addWidget(self.revert_button)
        controls.addStretch(1)
        # (a row of their own: beside the buttons they made the window wider than the screen)
        options = QHBoxLayout()
        options.addWidget(QLabel("Hold out"))
        options.addWidget(self.held_out)
        options.addSpacing(12)
        options.addWidget(QLabel("Counting processes"))
        options.addWidget(self.processes)
        options.addSpacing(12)
        options.addWidget(QLabel("Sample"))
        options.addWidget(self.sample_lines)
        options.addStretch(1)

        live_layout = QVBoxLayout(self)
        live_layout.addLayout(controls)
        live_layout.addLayout(options)
        live_layout.addWidget(self.continue_box)
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
        self.sample_lines.valueChanged.connect(self._on_sample_lines_changed)

    def show_controls(self, running: bool, paused: bool, cancelling: bool, reason: str, continue_from: int | None, pending: bool) -> None:
        """The buttons for the state: a training `running` (`paused`, or `cancelling`); `reason`
        why Train cannot start ("": it can); `continue_from`, the vocabulary size Continue goes
        on from (None: it cannot); `pending`, settings that differ from the result's."""
        self.train_button.setEnabled(not running and not reason)
        self.train_button.setToolTip(reason or "Train on the project's corpus in a separate process")
        self.cancel_button.setEnabled(running)
        self.continue_box.setVisible(continue_from is not None)
        if continue_from is not None and self.continue_size.value() <= continue_from:
            self.continue_size.setValue(continue_from * 2)
        self.pause_button.setEnabled(running and not cancelling)
        self.pause_button.setText("Resume" if paused else "Pause")
        self.revert_button.setVisible(pending and not running)
        self.pending.setText(
            "The settings differ from the ones the current result was trained with: "
            "they take effect when you train (the current result stays until then)." if pending else ""
        )
        self.pending.setVisible(pending)

    def say(self, text: str, error: bool = False) -> None:
        """The message under the buttons (red for an `error`)."""
        say(self.message, text, error)

    def name_steps(self, rounds: bool) -> None:
        """Head the steps table for Unigram's `rounds`, else for merges."""
        self.merges_heading.label.setText("Rounds" if rounds else "Latest merges")

    def follow_trainer(self, trainer: dict[str, JsonValue] | None) -> None:
        """Show the sample the trainer of these settings sets itself (a SentencePieceTrainer's
        input_sentence_size > 0, which the training uses: `sample_lines_for`) in the Sample
        field, disabled, and give the user's own value back once it sets none. None (settings
        with errors): left as it is."""
        if trainer is None:
            return
        own = trainer_sample_lines(trainer)
        if own > 0:
            if self._own_sample is None:
                self._own_sample = self.sample_lines.value()
            self.sample_lines.setValue(own)
            self.sample_lines.setEnabled(False)
            self.sample_lines.setToolTip(SAMPLE_SET_BY_TRAINER.format(lines=own))
        elif self._own_sample is not None:
            self.sample_lines.setValue(self._own_sample)
            self._own_sample = None
            self.sample_lines.setEnabled(True)
            self.sample_lines.setToolTip(SAMPLE_HINT)

    def _on_sample_lines_changed(self, lines: int) -> None:
        # sampling reads every line in one process: the processes setting does not apply then
        self.processes.setEnabled(lines == 0)
        self.processes.setToolTip(
            "Processes that count words in parallel (large corpora)"
            if lines == 0
            else "Not used while sampling lines: the sample is drawn from every line in one process"
        )
