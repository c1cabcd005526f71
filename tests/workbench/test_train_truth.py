"""The Train tab says only what is so: a reason that is gone is no longer shown, step mode and
the plots follow the trainer they show, every stage after the last merge is named, the time is
the time waited, each result says what it was trained on and whether the corpus still is, and a
training that dies says why and can be retried. Regexes from a file never run in the window."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QTableWidget
from pytestqt.qtbot import QtBot
from window_support import TRAINING_TIMEOUT_MS, header_text, train_and_wait

from engine.corpus.checks import check_file
from engine.trainers.records import MergeStep
from workbench.jobs.children.training import FINISH_STEPS, STAGE_FINISH, TrainingResult
from workbench.jobs.runners.child_job import exit_reason
from workbench.jobs.runners.training import _descendants
from workbench.window.main_window import MainWindow
from workbench.window.prompts import ScriptedPrompts
from workbench.window.tabs.train import TrainTab
from workbench.window.views.training_plots import TrainingPlots


def project_with(window: MainWindow, files: list[Path], key: str = "bpe", vocab_size: int = 600) -> None:
    window.new_project()
    if files:
        window.document.add_checked_files([check_file(str(path)) for path in files])
    window.document.add_preset(key, vocab_size=vocab_size)


def test_a_reason_not_to_train_goes_with_its_cause(window: MainWindow, small_corpus: Path) -> None:
    project_with(window, [], "bpe", 500)
    tab = window.train_tab
    assert tab.message.text().startswith("Add corpus files") and "color" in tab.message.styleSheet()
    window.document.add_checked_files([check_file(str(small_corpus))])
    assert tab.message.text() == "Not trained yet." and tab.message.styleSheet() == ""


def test_step_mode_names_its_tables_after_the_trainer_it_will_step(window: MainWindow) -> None:
    project_with(window, [], "bert", 500)
    # (the BERT preset scores by likelihood gain; the course's ratio is "likelihood")
    panel = window.train_tab.step_panel
    assert header_text(panel.candidates, 2) == "Likelihood gain" and panel.plots.score_name == "likelihood gain"
    assert "log-likelihood under a unigram model" in header_tip(panel.candidates, 2)
    fields = window.train_tab.form.trainer
    fields.scoring.setCurrentIndex(fields.scoring.findData("likelihood"))
    assert header_text(panel.candidates, 2) == "Likelihood"
    assert panel.plots.score_name == "likelihood" and "count(ab) / (count(a) × count(b))" in header_tip(panel.candidates, 2)
    window.document.add_preset("sentencepiece-unigram", vocab_size=300)
    assert header_text(panel.candidates, 0) == "Piece" and panel.merges_heading.label.text() == "Rounds so far"
    window.document.add_preset("bpe", vocab_size=300)
    assert header_text(panel.candidates, 2) == "Count" and panel.merges_heading.label.text() == "Merges so far"
    assert panel.plots.score_name == "count" and not panel.plots._rounds


def test_wordlevel_shows_no_rounds_plots(qtbot: QtBot, window: MainWindow, small_corpus: Path) -> None:
    project_with(window, [small_corpus], "wordlevel", 300)
    train_and_wait(qtbot, window)
    plots = window.train_tab.plots
    assert plots.note.isVisibleTo(window.train_tab) and "no merges or rounds to plot" in plots.note.text()
    assert not plots.score.isVisibleTo(window.train_tab)
    window.document.add_preset("bpe", vocab_size=300)
    assert plots.score.isVisibleTo(window.train_tab) and not plots.note.isVisibleTo(window.train_tab)


def test_plots_cleared_for_a_note_wait_to_be_drawn(qtbot: QtBot) -> None:
    """A note instead of the plots ("Reading the training history…") empties them without
    drawing them; the next clear shows them, empty, with a plain range and new labels."""
    plots = TrainingPlots()
    qtbot.addWidget(plots)
    plots.show()
    plots.clear("likelihood")
    plots.add_steps([MergeStep(index=0, left="a", right="b", new_token="ab", new_id=5, count=9, vocab_size=6, words_touched=2, score=0.5)])
    plots.redraw()
    plots.clear("count", note="Reading the training history…")
    assert plots.note.isVisibleTo(plots) and plots.note.text() == "Reading the training history…"
    assert not plots.score.isVisibleTo(plots) and plots.point_counts() == (0, 0)
    plots.clear("count")
    assert plots.score.isVisibleTo(plots) and not plots.note.isVisibleTo(plots)
    assert plots.score.getPlotItem().getViewBox().viewRange() == [[0.0, 10.0], [0.0, 1.0]]
    assert plots.score.getPlotItem().getAxis("left").labelText.startswith("count")


def test_the_end_of_a_training_is_named_and_its_time_is_the_time_waited(
    qtbot: QtBot, window: MainWindow, small_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own: list[float] = []  # the training process's own clock, as its report arrives
    from_wire = TrainingResult.from_wire

    def recorded(*args: Any) -> TrainingResult:
        result = from_wire(*args)
        own.append(result.report.seconds)
        return result

    monkeypatch.setattr(TrainingResult, "from_wire", staticmethod(recorded))
    project_with(window, [small_corpus], "bpe", 500)
    tab = window.train_tab
    began = time.monotonic()
    train_and_wait(qtbot, window)
    waited = time.monotonic() - began
    entry = window.document.active
    assert entry is not None and entry.report is not None
    assert STAGE_FINISH in tab.stages.stages() and "Count tokens" in tab.stages.stages()
    finish = tab.stages.rows[STAGE_FINISH].last
    assert finish is not None and finish.current == finish.total == FINISH_STEPS and finish.detail == "stored in the project"
    # from pressing Train to the result: not the child's own clock, which misses its start and end
    assert own[0] < entry.report.seconds <= waited
    assert f"Trained in {entry.report.seconds:.1f} s" in tab.message.text()


def test_a_result_says_what_it_was_trained_on_and_when_the_corpus_changed(
    qtbot: QtBot, window: MainWindow, small_corpus: Path, tmp_path: Path
) -> None:
    project_with(window, [small_corpus], "bpe", 500)
    train_and_wait(qtbot, window)
    entry = window.document.active
    assert entry is not None and entry.trained_on is not None
    [file] = entry.trained_on.files
    assert (file.path, file.sha256) == (str(small_corpus), check_file(str(small_corpus)).sha256)
    tab = window.train_tab
    window.document.set_active(0)  # (the stored result's message)
    window.document.add_preset("wordlevel")
    window.document.set_active(0)
    assert "from small.txt:" in tab.message.text() and tab.message.styleSheet() == ""
    other = tmp_path / "other.txt"
    other.write_text("new words\n", encoding="utf-8")
    window.document.add_checked_files([check_file(str(other))])
    assert "no longer what it was trained on: other.txt added" in tab.message.text()
    assert "color" in tab.message.styleSheet()
    window.document.undo_stack.undo()
    assert "no longer" not in tab.message.text()


def test_a_killed_training_says_why_and_can_be_retried(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, corpora: Path
) -> None:
    project_with(window, [corpora / "shakespeare.txt"], "bpe", 30_000)
    tab = window.train_tab
    with qtbot.waitSignal(tab.runner.progressed, timeout=TRAINING_TIMEOUT_MS):
        tab.train_button.click()
    pid = tab.runner.pid
    assert pid is not None
    with qtbot.waitSignal(tab.runner.failed, timeout=30_000):
        os.kill(pid, signal.SIGKILL)
    qtbot.waitUntil(tab.runner.is_idle, timeout=20_000)
    assert "killed (SIGKILL) by another program, or by the system when it ran out of memory" in tab.message.text()
    assert "the project is unchanged" in tab.message.text()
    assert tab.retry_button.isVisibleTo(tab)
    entry = window.document.active
    assert entry is not None
    tab.form.trainer.vocab_size.setValue(600)  # (a quicker retry of the same tokenizer)
    tab.form.trainer.vocab_size.editingFinished.emit()
    with qtbot.waitSignal(tab.runner.finished, timeout=TRAINING_TIMEOUT_MS):
        tab.retry_button.click()
    qtbot.waitUntil(tab.runner.is_idle, timeout=20_000)
    assert entry.is_trained and not tab.retry_button.isVisibleTo(tab)
    assert prompts.questions("confirm") == []  # (nothing was replaced: nothing to ask)


def test_exit_reasons() -> None:
    assert exit_reason(-9) == "killed (SIGKILL)"
    assert exit_reason(-11) == "crashed (segmentation fault)"
    assert exit_reason(3) == "exit code 3"


HOSTILE = "(a|a)+$"


def hostile_project(window: MainWindow, folder: Path) -> Path:
    """A BPE whose pre-tokenizer splits on a regex that backtracks for ever on a line of a's."""
    corpus = folder / "aaaa.txt"
    corpus.write_text(("a" * 40 + "b\n") * 200, encoding="utf-8")
    window.new_project()
    window.document.add_checked_files([check_file(str(corpus))])
    entry = window.document.add_preset("bpe", vocab_size=300)
    pipeline = dict(entry.pipeline)
    pipeline["pre_tokenizer"] = {"type": "Split", "pattern": {"Regex": HOSTILE}, "behavior": "Isolated", "invert": False}
    assert entry.trainer is not None
    window.document.set_configuration(pipeline, entry.trainer)
    window.train_tab.form.set_configuration(pipeline, entry.trainer)
    return corpus


def test_the_estimate_never_runs_a_files_regex_in_the_window(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    hostile_project(window, tmp_path)
    tab = window.train_tab
    qtbot.waitUntil(tab.estimate_label.job.is_running, timeout=10_000)
    # the window's own event loop keeps turning while the estimate runs (it is stuck in the regex
    # for seconds of another process's time)
    turns: list[bool] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: turns.append(tab.estimate_label.job.is_running()))
    timer.start()
    qtbot.waitUntil(lambda: turns.count(True) >= 10, timeout=60_000)
    timer.stop()
    # closing stops it, and nothing is left running (the fixture checks)
    tab.shutdown()
    assert not tab.estimate_label.job.is_running()


def start_hostile_training(qtbot: QtBot, window: MainWindow, folder: Path) -> TrainTab:
    """The Train tab, its training of `hostile_project` started with two counting processes."""
    hostile_project(window, folder)
    tab = window.train_tab
    tab.processes.setValue(2)
    tab.start_training()
    qtbot.waitUntil(lambda: tab.runner.pid is not None, timeout=10_000)
    return tab


def test_a_training_stuck_in_a_regex_ends_with_a_message_naming_the_pattern(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    tab = start_hostile_training(qtbot, window, tmp_path)
    with qtbot.waitSignal(tab.runner.failed, timeout=TRAINING_TIMEOUT_MS) as blocker:
        pass
    message = str(blocker.args[0]) if blocker.args else ""
    assert HOSTILE in message and "backtracks catastrophically" in message
    assert HOSTILE in tab.message.text() and tab.retry_button.isVisibleTo(tab)
    assert not window.document.project.tokenizers[-1].is_trained


def test_cancelling_a_training_that_does_not_answer_stops_it_and_its_counting_processes(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    tab = start_hostile_training(qtbot, window, tmp_path)
    pid = tab.runner.pid
    assert pid is not None
    # the child and its counting processes, frozen from outside: none of them can hear the request
    qtbot.waitUntil(lambda: len(_descendants(pid)) >= 1, timeout=10_000)
    family = [pid, *_descendants(pid)]
    for member in family:
        os.kill(member, signal.SIGSTOP)
    with qtbot.waitSignal(tab.runner.cancelled, timeout=30_000):
        tab.cancel_training()
    qtbot.waitUntil(tab.runner.is_idle, timeout=20_000)

    def family_gone() -> None:
        for member in family:
            assert not _alive(member), f"process {member} of the training is still running"

    # (SIGKILL is delivered at once, but a busy machine may take a moment to end a process)
    qtbot.waitUntil(family_gone, timeout=10_000)
    assert tab.message.text() != "Cancelling…"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


def header_tip(table: QTableWidget, column: int) -> str:
    item = table.horizontalHeaderItem(column)
    return item.toolTip() if item is not None else ""
