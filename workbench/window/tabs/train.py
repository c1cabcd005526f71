"""`TrainTab`: configure the active tokenizer's pipeline, train it in a child process while the
progress, the plots and the merges table follow, or step through it by hand.

Settings of an untrained tokenizer apply as they are edited; a trained one keeps its result
until a new training of the changed settings finishes (cancel or failure change nothing).

What a training runs, and what its result is stored with, is worked out from the project by
`workbench.jobs.runners.training_plans`; the page's widgets are `TrainingPage`'s. Beside the
Train button, an estimate of the training's time and peak memory (`engine.analysis.estimate`),
made in a child process (`workbench.jobs.children.estimate`) whenever the corpus or the
settings change. Pause stops the training process where it is (POSIX only: on Windows the
button is not shown).
"""

from __future__ import annotations

import json
from typing import Final

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from engine.analysis.estimate import TrainingEstimate
from engine.progress import TrainProgress
from engine.project.entry import TokenizerEntry
from engine.schema import JsonValue
from engine.trainers.records import MergeStep, RoundStep
from engine.analysis.vocabulary import TokenStyle
from workbench.core.components import trainer_algorithm
from workbench.window.active_view import ActiveView
from workbench.window.document import ProjectDocument
from workbench.window.guide import HelpLink
from workbench.jobs.children.estimate import estimate_payload
from workbench.core.history import HistoryColumns
from workbench.core.presets import Configuration
from workbench.window.views.pipeline_form import PipelineForm
from workbench.window.prompts import Prompts
from workbench.jobs.runners.training import TrainingRunner
from workbench.jobs.runners.training_plans import (
    TrainingPlan,
    continue_reason,
    estimate_key,
    plan_continuation,
    plan_training,
    score_name_of,
)
from workbench.core.settings import Settings
from workbench.window.tabs.step_by_step import StepPanel
from workbench.window.tabs.training_page import TrainingPage
from workbench.jobs.children.training import FINISH_STEPS, STAGE_FINISH, VOCAB_SIZE, TrainingResult
from workbench.core.trainer_counting import counts_sentences
from workbench.core.training_text import finished_text, steps_text, stored_text
from workbench.window.views.when_shown import WhenShown

# How often the elapsed time is redrawn while a training runs (ms).
CLOCK_INTERVAL_MS: Final = 500
# The Train tab's pages: the training and its plots, and Step by Step.
TRAINING_PAGE: Final = 0
# The user guide's section on each page, in page order.
PAGE_SECTIONS: Final = ("train", "step-by-step")


def result_size(entry: TokenizerEntry, view: ActiveView | None) -> int:
    """The size of `entry`'s trained vocabulary as far as it is known without parsing it: the
    view's, else the training's last step's (0 when neither knows)."""
    if view is not None and view.entry is entry and view.vocab_size > 0:
        return view.vocab_size
    return entry.result.size() if entry.result is not None else 0


class TrainTab(QWidget):
    """The Train tab. `state_changed(text)` for the status bar; `counts_kept(path)` when a
    training kept its word counts in a table."""

    state_changed = Signal(str)
    # the path of a word-counts table a training just kept
    counts_kept = Signal(str)

    def __init__(self, document: ProjectDocument, settings: Settings, prompts: Prompts) -> None:
        super().__init__()
        self.document = document
        self.settings = settings
        self.prompts = prompts
        self.runner = TrainingRunner(self)
        # the training running, and then what it is stored with
        self._plan: TrainingPlan | None = None
        self._style = TokenStyle()
        self._applying = False
        # (entry, steps) whose history the plots already show, drawn live as it trained
        self._plotted: tuple[TokenizerEntry, int] | None = None
        self._job_estimate: TrainingEstimate | None = None
        # the message says why Train cannot start (replaced once the reason is gone), and the
        # corpus changes since the training it names
        self._saying_reason = False
        self._shown_changes: list[str] = []
        # the stored history the plots and the merges show (None: a training's, or none)
        self._shown_history: HistoryColumns | None = None
        # hidden behind another tab, it shows the project's changes when shown (`_refresh`):
        # the active tokenizer's settings and result wait there while the user switches
        # tokenizers on the Vocabulary tab
        self._when_shown = WhenShown(self, self._refresh)
        self._stale_form = self._stale_stored = False
        self._clock = QTimer(self)
        self._clock.setInterval(CLOCK_INTERVAL_MS)
        self._stage_text = ""

        self.form = PipelineForm()
        self.form_area = form_area = QScrollArea()
        form_area.setWidget(self.form)
        form_area.setWidgetResizable(True)
        form_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        form_area.setMinimumWidth(380)

        # (the page of a full training: its buttons, options, progress, plots and merges)
        self.training_page = page = TrainingPage(
            self._estimate_request, self.runner.elapsed_seconds, settings.processes()
        )
        self.cancel_button = page.cancel_button
        self.continue_box = page.continue_box
        self.continue_button = page.continue_button
        self.continue_size = page.continue_size
        self.estimate_label = page.estimate_label
        self.held_out = page.held_out
        self.merges = page.merges
        self.merges_heading = page.merges_heading
        self.message = page.message
        self.pause_button = page.pause_button
        self.pending = page.pending
        self.plots = page.plots
        self.processes = page.processes
        self.retry_button = page.retry_button
        self.revert_button = page.revert_button
        self.sample_lines = page.sample_lines
        self.stages = page.stages
        self.train_button = page.train_button
        # the training or continuation to retry
        self._retry: TrainingPlan | None = None
        # the last training's refusal of a setting: (its tokenizer, the option, the message),
        # shown beneath the option's field while that tokenizer's settings are shown
        self._refusal: tuple[TokenizerEntry, str, str] | None = None

        self.step_panel = StepPanel()
        self.modes = QTabWidget()
        # each page scrolls where the window is smaller than it (150 % scaling on a small screen)
        for shown, title in ((page, "Training"), (self.step_panel, "Step by Step")):
            area = QScrollArea()
            area.setWidget(shown)
            area.setWidgetResizable(True)
            area.setFrameShape(QScrollArea.Shape.NoFrame)
            self.modes.addTab(area, title)
        self.modes.currentChanged.connect(self._on_modes_current_changed)
        # (at the right end of the pages' tab bar: the top right of the tab)
        self.help_link = HelpLink(self.help_section, "the Train tab")
        self.modes.setCornerWidget(self.help_link, Qt.Corner.TopRightCorner)

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
        self.retry_button.clicked.connect(self.retry)
        self.pause_button.clicked.connect(self._on_pause_clicked)
        self.continue_button.clicked.connect(self._on_continue_clicked)
        self._clock.timeout.connect(self._show_running_state)
        self.processes.valueChanged.connect(self.refresh_estimate)
        self.sample_lines.valueChanged.connect(self.refresh_estimate)
        self.revert_button.clicked.connect(self._on_revert_clicked)
        self.form.edited.connect(self._on_form_edited)
        self.runner.progressed.connect(self._on_runner_progressed)
        self.runner.stepped.connect(self._on_runner_stepped)
        self.runner.evaluated.connect(self.plots.add_evaluation)
        self.runner.finished.connect(self._on_runner_finished)
        self.runner.cancelled.connect(self._on_runner_cancelled)
        self.runner.failed.connect(self._on_runner_failed)
        self.runner.refused.connect(self._on_runner_refused)
        self.step_panel.kept.connect(self._on_step_panel_kept)
        self.step_panel.state_changed.connect(self._on_step_panel_state_changed)
        document.active_changed.connect(self._on_document_active_changed)
        document.view_changed.connect(self._on_document_view_changed)
        document.changed.connect(self._on_document_changed)
        self._on_document_active_changed()

    # -- training ----------------------------------------------------------------------------

    def is_training(self) -> bool:
        return self.runner.is_running()

    def blocked_reason(self) -> str:
        """Why Train cannot start now ("" when it can)."""
        self._when_shown.flush()  # (the form shows the active tokenizer's settings)
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

    def start_training(self, confirmed: bool = False) -> None:
        """Train the active tokenizer with the form's settings (asking first when that replaces
        a trained result, unless `confirmed`)."""
        reason = self.blocked_reason()
        entry = self.document.active
        configuration = self.form.configuration()
        if reason or entry is None or configuration is None:
            self._say(reason, error=True)
            return
        if not confirmed and not self.confirm_replacing(entry, "Train again"):
            return
        # (the counts go beside the project when it is saved; a template, the sample project,
        # is not the user's to write beside)
        path = self.document.path
        folder = path if path is not None and not self.document.is_template else None
        self._run(
            plan_training(
                self.document.project, self.document.corpus_fields(), folder, entry, configuration,
                self.held_out.value() / 100.0, self.processes.value(), self.sample_lines.value(),
            )  # fmt: skip
        )

    def confirm_replacing(self, entry: TokenizerEntry, action: str, replacement: str = "") -> bool:
        """Before a trained result is replaced: True when `entry` has none, or the user agrees."""
        if not entry.is_trained:
            return True
        size = f" ({result_size(entry, self.document.view()):,} tokens)" if result_size(entry, self.document.view()) > 0 else ""
        return self.prompts.confirm(
            f"Replace the trained “{entry.name}”?",
            f"“{entry.name}” has a trained result{size}. {action} and replace it{replacement}?\n\n"
            "Edit ▸ Undo (Ctrl+Z) brings the current result back.",
        )

    def continue_training(self, vocab_size: int | None = None, confirmed: bool = False) -> None:
        """Train the active BPE tokenizer again to `vocab_size` (the Continue field's value)
        from the word counts its last training kept: no recounting, the same merges as one run."""
        self._when_shown.flush()
        entry = self.document.active
        reason = self.continue_reason()
        if reason or entry is None or entry.trainer is None:
            self._say(reason or "Nothing to continue.", error=True)
            return
        target = vocab_size if vocab_size is not None else self.continue_size.value()
        if not confirmed and not self.confirm_replacing(entry, f"Continue it to {target:,} tokens", " when the training finishes"):
            return
        self._run(plan_continuation(self.document.project, self.document.corpus_fields(), entry, target))

    def continue_reason(self) -> str:
        """Why the active tokenizer cannot be continued ("" when it can)."""
        return continue_reason(self.document.project, self.document.corpus_fields(), self.document.active)

    def _on_continue_clicked(self) -> None:
        self.continue_training()

    def _run(self, plan: TrainingPlan) -> None:
        pipeline, trainer = plan.configuration
        self._plan = self._retry = plan
        # (a continuation skips the counting the estimate includes: it has none)
        self._job_estimate = self.estimate_label.current(self._estimate_key(self.form.configuration())) if not plan.job.counts_in else None
        self.stages.clear()
        score_name = score_name_of(trainer)
        rounds = trainer_algorithm(trainer) == "Unigram"
        self.plots.clear(score_name, at_once=False, rounds=rounds, growing=True)
        self.merges.merges.reset([], self._style_of(pipeline), score_name)
        self.training_page.name_steps(rounds)
        self._say("Starting the training process…")
        self._stage_text = "Starting the training process"
        self.runner.start(plan.job)
        self._clock.start()
        self.state_changed.emit("training")
        self._update_controls()

    def cancel_training(self) -> None:
        if self.runner.is_running():
            self.runner.cancel()  # resumes a paused process first
            self._say("Cancelling…")
            self._update_controls()

    def pause_training(self) -> None:
        if self.runner.pause():
            self._show_running_state()
            self.state_changed.emit("paused")
            self._update_controls()

    def resume_training(self) -> None:
        if self.runner.is_paused():
            self.runner.resume()
            self._show_running_state()
            self.state_changed.emit("training")
            self._update_controls()

    def _on_pause_clicked(self) -> None:
        if self.runner.is_paused():
            self.resume_training()
        else:
            self.pause_training()

    def shutdown(self) -> None:
        self.step_panel.stop()
        self._clock.stop()
        self.estimate_label.stop()
        self.runner.shutdown()

    def _show_running_state(self) -> None:
        """The status line while a training runs: its stage and the time it has run, paused
        time left out (frozen while paused)."""
        if not self.runner.is_running():
            self._clock.stop()
            return
        elapsed = self.runner.elapsed_seconds()
        if self.runner.is_paused():
            self._say(f"Paused after {elapsed:.1f} s ({self._stage_text}); Resume continues, Cancel stops it.")
        else:
            self._say(f"{self._stage_text}… {elapsed:.0f} s")

    def _on_runner_progressed(self, event: TrainProgress) -> None:
        self.stages.update_stage(event)
        self.state_changed.emit(f"training: {event.stage} {100 * event.fraction:.0f}%")
        self._stage_text = event.stage
        self._show_running_state()

    # -- the estimate ------------------------------------------------------------------------

    @property
    def estimate(self) -> TrainingEstimate | None:
        """The estimate shown beside Train (None while a new one is made)."""
        return self.estimate_label.estimate

    def refresh_estimate(self) -> None:
        """Remake the estimate soon (after the last of a burst of changes)."""
        self.estimate_label.refresh()

    def _estimate_key(self, configuration: Configuration | None) -> str:
        """What an estimate of the form's `configuration` depends on (`estimate_key`)."""
        return estimate_key(
            self.document.project, self.document.corpus_fields(), configuration, self.processes.value(), self.sample_lines.value()
        )

    def _estimate_request(self) -> tuple[str, dict[str, object] | None]:
        """The estimate's key (`_estimate_key`) and payload; no payload when Train could not start."""
        configuration = self.form.configuration()
        key = self._estimate_key(configuration)
        if configuration is None or self.blocked_reason():
            return key, None
        pipeline, trainer = configuration
        payload = estimate_payload(
            json.dumps(pipeline), trainer, self.document.corpus_paths(), self.document.corpus_fields(),
            self.processes.value(), self.sample_lines.value(),
        )  # fmt: skip
        return key, payload

    def _on_runner_stepped(self, steps: list[MergeStep | RoundStep]) -> None:
        self.plots.add_steps(steps)
        self.merges.append(steps)

    def _on_runner_finished(self, result: TrainingResult) -> None:
        plan, self._plan = self._plan, None
        self._clock.stop()
        self._show_refusal(None)
        self.stages.update_stage(TrainProgress(STAGE_FINISH, FINISH_STEPS, FINISH_STEPS, "steps", "stored in the project"))
        estimate = self._job_estimate
        if estimate is not None:
            result.report = result.report.with_costs(result.report.peak_bytes, estimate.seconds, estimate.peak_bytes)
        trained_on = plan.trained_on if plan is not None else None
        if plan is not None and plan.entry in self.document.project.tokenizers:
            self._plotted = (plan.entry, len(result.report.history))
            counts = (result.counts_file, plan.counts_key if result.counts_file else "", plan.held_out)
            stored, shown = result.stored_result(counts, trained_on)
            self.document.store_result(plan.entry, stored, plan.configuration, shown, plan.text)
            # (a tab hidden meanwhile shows the result now: what follows says how it was made)
            self._when_shown.flush()
            if result.counts_file:
                self.counts_kept.emit(result.counts_file)
        unit = "lines" if plan is not None and counts_sentences(plan.configuration[1]) else "words"
        self._say(finished_text(result.report, result.held_out_bytes, result.evaluations, trained_on, unit))
        self._shown_changes = self._corpus_changes()
        self.state_changed.emit("trained")
        self._update_controls()

    def _on_runner_cancelled(self) -> None:
        self._plan = None
        self._clock.stop()
        self._show_stored()
        self._say("Training cancelled; the project is unchanged.")
        self.state_changed.emit("cancelled")
        self._update_controls()

    def _on_runner_failed(self, message: str) -> None:
        self._plan = None
        self._clock.stop()
        self._say(f"Training failed: {message}. Retry starts it again.", error=True)
        self.state_changed.emit("failed")
        self._update_controls()
        self.retry_button.setVisible(self._retry is not None and self._retry.entry is self.document.active)

    def _on_runner_refused(self, option: str, message: str) -> None:
        """The settings cannot train on this corpus (a vocabulary smaller than its alphabet):
        the one line beneath the field and in the message, the project and the form as they
        were, the stored result's plots back; no Retry (it would be refused again)."""
        plan, self._plan = self._plan, None
        self._clock.stop()
        self._show_stored()
        if plan is not None and plan.target <= 0:
            # (a continuation's size is the Continue field's, not the form's)
            self._show_refusal((plan.entry, option, message))
        self._say(f"Not trained: {message}.", error=True)
        self.state_changed.emit("vocabulary too small" if option == VOCAB_SIZE else "refused")
        self._update_controls()

    def _show_refusal(self, refusal: tuple[TokenizerEntry, str, str] | None) -> None:
        """Keep `refusal` (None: the last one is over) and show it beneath its field while its
        tokenizer is the one the form shows."""
        self._refusal = refusal
        if refusal is not None and refusal[0] is self.document.active:
            self.form.trainer.show_refusal(refusal[1], refusal[2])
        else:
            self.form.trainer.show_refusal("", "")

    def retry(self) -> None:
        """Start the training that failed again (it was asked about already)."""
        retry, self._retry = self._retry, None
        self.retry_button.hide()
        if retry is None or retry.entry is not self.document.active:
            return
        if retry.target > 0:
            self.continue_training(retry.target, confirmed=True)
        else:
            self.start_training(confirmed=True)

    def help_section(self) -> str:
        """The user guide's section on the page shown."""
        return PAGE_SECTIONS[self.modes.currentIndex()]

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
        if entry is None:
            return
        steps = steps_text(result.report.history)
        if not self.confirm_replacing(entry, f"Keep the step-by-step result ({steps}) instead", ""):
            self.step_panel.status.setText("Not kept: the project's tokenizer is unchanged.")
            return
        stored, shown = result.stored_result()
        self.document.store_result(entry, stored, (pipeline, trainer), shown, f"Keep the step-by-step result as “{entry.name}”")
        self.step_panel.status.setText("Kept: the project's tokenizer is now this result (see the Vocabulary tab; Edit ▸ Undo takes it back).")

    # -- settings ----------------------------------------------------------------------------

    def _offer_step_files(self) -> None:
        """Step by Step offers the corpus files as they are now (with their text fields)."""
        self.step_panel.set_files(self.document.training_inputs())

    def _on_document_changed(self) -> None:
        """The project changed (its files, a name): what Train depends on. When the active
        tokenizer changed too, `_on_document_active_changed` (next) does all this."""
        if not self.document.active_follows:
            self._when_shown.request()

    def _on_document_active_changed(self) -> None:
        if self._applying:
            self._update_controls()
            return
        if not self.runner.is_running():
            self.state_changed.emit(self.resting_state())  # (the status bar's, at once)
        self._stale_form = self._stale_stored = True
        self._when_shown.request()

    def _on_document_view_changed(self) -> None:
        """The active tokenizer's view arrived: its style (the merges table shows its tokens
        readably) and, for a stored history, the plots and the merges."""
        view = self.document.view()
        if view is None or self.runner.is_running():
            return
        if view.history is not None and self._shown_history is not view.history:
            if self._when_shown.put_off() or self.modes.currentIndex() != TRAINING_PAGE:
                self._stale_stored = True
            else:
                self._show_stored()
        else:
            self.merges.merges.set_style(view.style)

    def _refresh(self) -> None:
        """Show the project as it is now: the active tokenizer's settings and stored result
        when they changed, the estimate, the files Step by Step offers, the controls."""
        entry = self.document.active
        if self._stale_form:
            self._stale_form = False
            if entry is not None:
                self.form.set_configuration(entry.pipeline, entry.trainer)
            else:
                self.form.set_configuration({}, None)
            self._show_refusal(self._refusal)  # (shown again for its tokenizer only)
            self.form.setEnabled(entry is not None)
            self.step_panel.set_configuration(self.form.configuration() if entry is not None else None)
        if self._stale_stored and self.modes.currentIndex() == TRAINING_PAGE:
            # (behind Step by Step, the Training page is drawn when it shows: keeping a run
            # of 8,000 merges then redraws no hidden plots)
            self._stale_stored = False
            if not self.runner.is_running():
                self._show_stored()
        self.refresh_estimate()
        self._offer_step_files()
        self._update_controls()

    def _on_modes_current_changed(self, index: int) -> None:
        if index == TRAINING_PAGE and self._stale_stored:
            self._stale_stored = False
            if not self.runner.is_running():
                self._show_stored()

    def _show_stored(self) -> None:
        """Redraw the plots and the merges from the active tokenizer's stored history: the
        training's steps when they are in memory, else the arrays the encoding process made of
        the project's history part (never parsed here; until they arrive the plots say so)."""
        entry = self.document.active
        view = self.document.view()
        result = entry.result if entry is not None else None
        report = result.parsed_report() if result is not None else None
        stored = view.history if view is not None and report is None else None
        if self._plotted is None or entry is None or self._plotted[0] is not entry:
            # the stages of a training are shown until another tokenizer is looked at
            self.stages.clear()
        evaluations = entry.evaluations if entry is not None else []
        style = view.style if view is not None else TokenStyle()
        self._shown_history = stored
        if report is not None or result is None:
            history = report.history if report is not None else None
            if entry is None or history is None or self._plotted != (entry, len(history)):
                # (the plots of a training that just finished already show its history)
                self.plots.show_history(history, evaluations)
            self.merges.merges.reset(
                history.merges if history is not None else [], style,
                history.score_name if history else "count", history.rounds if history is not None else [],
            )  # fmt: skip
            self.training_page.name_steps(history is not None and bool(history.rounds) and not history.merges)
        elif stored is not None:
            self.plots.show_columns(stored, evaluations)
            self.merges.merges.reset(stored.merges, style, stored.score_name, stored.rounds)
            self.training_page.name_steps(bool(stored.rounds) and not stored.merges)
        else:
            problem = view.history_problem if view is not None else ""
            self.plots.clear(note=f"The training history cannot be shown: {problem}" if problem else "Reading the training history…")
            self.merges.merges.reset([], style)
        self._plotted = None
        self.merges.scrollToBottom()
        self._show_stored_message()

    def _corpus_changes(self) -> list[str]:
        """How the corpus differs from what the active tokenizer was trained on ([] when the same)."""
        entry = self.document.active
        trained_on = entry.trained_on if entry is not None else None
        return trained_on.differences(self.document.project.corpus) if trained_on is not None else []

    def _show_stored_message(self) -> None:
        """What the active tokenizer's result is: how it was trained, on what, and whether the
        project's corpus is still what it was trained on."""
        entry = self.document.active
        changed = self._corpus_changes()
        self._shown_changes = changed
        facts = entry.result.facts() if entry is not None and entry.result is not None else None
        if entry is not None and facts is not None:
            unit = "lines" if counts_sentences(entry.trainer) else "words"
            self._say(stored_text(facts, entry.trained_on, changed, unit), error=bool(changed))
        elif entry is not None and entry.is_trained:
            self._say("Imported: no training history. Train to retrain this pipeline on the project's corpus.")
        else:
            self._say("Not trained yet.")

    def _on_form_edited(self) -> None:
        configuration = self.form.configuration()
        entry = self.document.active
        self.step_panel.set_configuration(configuration)
        self.refresh_estimate()
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
        entry = self.document.active
        continue_from: int | None = None
        if not running and not self.continue_reason() and entry is not None and entry.trainer is not None:
            current = entry.trainer.get("vocab_size")
            continue_from = current if isinstance(current, int) else 0
        runner = self.runner
        # (the Sample field shows a SentencePiece trainer's own input_sentence_size, disabled)
        configuration = self.form.configuration()
        self.training_page.follow_trainer(configuration[1] if configuration is not None else None)
        self.training_page.show_controls(running, runner.is_paused(), runner.cancelling(), reason, continue_from, self._has_pending_edits())
        if reason and not running:
            self._say(reason, error=True)
            self._saying_reason = True
        elif self._saying_reason and not running:
            # the reason is gone (files added, settings fixed): say what is so now
            self._saying_reason = False
            self._show_stored_message()
        elif not running and self._corpus_changes() != self._shown_changes:
            self._show_stored_message()  # (files added, removed or changed since the training)

    def _say(self, text: str, error: bool = False) -> None:
        self._saying_reason = False
        self.training_page.say(text, error)

    def _style_of(self, pipeline: dict[str, JsonValue]) -> TokenStyle:
        view = self.document.view()
        return view.style if view is not None else TokenStyle()

    def apply_palette(self) -> None:
        """Redraw the plots in the colours of the current theme."""
        self.plots.apply_palette()
        self.step_panel.plots_place.apply_palette()

    def set_whitespace_glyphs(self, on: bool) -> None:
        self.step_panel.glyphs = on
        self.merges.merges.glyphs = on
        self.merges.viewport().update()
