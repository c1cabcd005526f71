"""The Train tab: the pipeline form (validated by the engine), training from the window, cancel,
presets that cannot be trained yet, and step mode, which is the same trainer as a full training."""

from __future__ import annotations

import json
from pathlib import Path

import numpy
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from window_support import TRAINING_TIMEOUT_MS, cell_text, shown_vocabulary, step_and_wait, train_and_wait, wait_for_view

from engine import Tokenizer
from engine.corpus.checks import check_file
from workbench.core import presets
from workbench.window.main_window import MainWindow


def project_with(window: MainWindow, corpus: Path, key: str = "bpe", vocab_size: int = 600) -> None:
    window.new_project()
    window.document.add_checked_files([check_file(str(corpus))])
    window.document.add_preset(key, vocab_size=vocab_size)


def test_training_from_the_window_stores_the_result_everywhere(qtbot: QtBot, window: MainWindow, small_corpus: Path) -> None:
    project_with(window, small_corpus, "gpt2", 500)
    window.train_tab.held_out.setValue(0.0)
    train_and_wait(qtbot, window)
    entry = window.document.active
    assert entry is not None and entry.is_trained and entry.report is not None
    expected, trainer = presets.build("gpt2", 500)
    expected.train([str(small_corpus)], trainer, processes=1)
    assert entry.trained == json.loads(expected.to_str())
    # every other view follows: the vocabulary, the status bar, the tokenizer list
    model = shown_vocabulary(window)
    assert model.rowCount() == expected.get_vocab_size()
    assert sorted(model.table.ids) == sorted(expected.get_vocab().values())
    assert "vocabulary 500" in window._size_label.text()
    assert "trained" in window.project_panel.tokenizer_list.item(0).text()
    assert window.document.dirty


def test_cancel_from_the_window_leaves_the_project_unchanged(qtbot: QtBot, window: MainWindow, corpora: Path) -> None:
    project_with(window, corpora / "shakespeare.txt", "bpe", 30_000)
    before = window.document.project.to_json("/")
    tab = window.train_tab
    with qtbot.waitSignal(tab.runner.progressed, timeout=TRAINING_TIMEOUT_MS):
        tab.train_button.click()
    assert tab.cancel_button.isEnabled() and not tab.train_button.isEnabled()
    with qtbot.waitSignal(tab.runner.cancelled, timeout=30_000):
        tab.cancel_button.click()
    qtbot.waitUntil(tab.runner.is_idle, timeout=20_000)
    assert window.document.project.to_json("/") == before
    assert "cancelled" in tab.message.text() and "unchanged" in tab.message.text()
    assert tab.train_button.isEnabled()


def test_train_is_disabled_with_the_reason(window: MainWindow, small_corpus: Path) -> None:
    window.new_project()
    tab = window.train_tab
    assert not tab.train_button.isEnabled() and "preset" in tab.train_button.toolTip()
    window.document.add_preset("bpe")
    assert not tab.train_button.isEnabled() and "Add corpus files" in tab.train_button.toolTip()
    window.document.add_checked_files([check_file(str(small_corpus))])
    assert tab.train_button.isEnabled()


def test_invalid_settings_are_explained_next_to_the_field(qtbot: QtBot, window: MainWindow, small_corpus: Path) -> None:
    project_with(window, small_corpus)
    form = window.train_tab.form
    form.pre_tokenizer.combo.setCurrentText("Split")
    form.pre_tokenizer.options.setText('{"pattern": {"Regex": "("}, "behavior": "Removed", "invert": false}')
    form.pre_tokenizer.options.editingFinished.emit()
    assert form.configuration() is None
    assert not form.pre_tokenizer.error.isHidden() and "regex" in form.pre_tokenizer.error.text()
    assert not window.train_tab.train_button.isEnabled()
    form.pre_tokenizer.options.setText("not json")
    form.pre_tokenizer.options.editingFinished.emit()
    assert "not valid JSON" in form.pre_tokenizer.error.text()
    form.pre_tokenizer.combo.setCurrentText("Whitespace")
    assert form.configuration() is not None and form.pre_tokenizer.error.isHidden()
    form.trainer.special_tokens.setText("[UNK]")
    form.trainer.vocab_size.setValue(50)
    form.trainer.vocab_size.editingFinished.emit()
    assert window.document.active is not None and window.document.active.trainer is not None
    assert window.document.active.trainer["vocab_size"] == 50  # untrained: applied at once


def test_the_form_round_trips_every_preset(window: MainWindow) -> None:
    window.new_project()
    for item in presets.PRESETS:
        if not item.available:
            continue
        entry = window.document.add_preset(item.key, vocab_size=1234)
        form = window.train_tab.form
        configuration = form.configuration()
        assert configuration is not None, item.key
        pipeline, trainer = configuration
        assert Tokenizer.from_str(json.dumps(pipeline)).to_dict() == Tokenizer.from_str(json.dumps(entry.pipeline)).to_dict()
        assert entry.trainer is not None
        assert trainer["vocab_size"] == 1234 and trainer["type"] == entry.trainer["type"]


def test_normalizers_are_ticked_and_ordered(window: MainWindow, small_corpus: Path) -> None:
    project_with(window, small_corpus)
    form = window.train_tab.form
    items = form.normalizers.list
    rows = {items.item(row).text(): row for row in range(items.count())}
    items.item(rows["Lowercase"]).setCheckState(Qt.CheckState.Checked)
    items.item(rows["NFD"]).setCheckState(Qt.CheckState.Checked)
    configuration = form.configuration()
    assert configuration is not None
    normalizer = configuration[0]["normalizer"]
    assert normalizer == {"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "Lowercase"}]}


def test_a_trained_tokenizer_keeps_its_result_until_changed_settings_are_trained(qtbot: QtBot, window: MainWindow, small_corpus: Path) -> None:
    project_with(window, small_corpus, "bpe", 400)
    train_and_wait(qtbot, window)
    entry = window.document.active
    assert entry is not None
    trained = entry.trained
    tab = window.train_tab
    tab.form.trainer.vocab_size.setValue(450)
    tab.form.trainer.vocab_size.editingFinished.emit()
    assert entry.trained == trained
    assert tab.pending.isVisibleTo(tab) and not tab.revert_button.isHidden()
    tab.revert_button.click()
    assert tab.form.trainer.vocab_size.value() == 400 and tab.pending.isHidden()


def test_presets_the_engine_cannot_train_are_shown_disabled_with_the_reason(window: MainWindow) -> None:
    actions = {action.text(): action for action in window.project_panel.preset_menu.actions()}
    for item in presets.PRESETS:
        title = item.title if item.available else f"{item.title} — not yet available"
        assert actions[title].isEnabled() == item.available
        if not item.available:
            assert "not in the engine yet" in actions[title].toolTip()


def test_step_mode_merges_equal_a_full_trainings(qtbot: QtBot, window: MainWindow, small_corpus: Path) -> None:
    project_with(window, small_corpus, "bpe", 500)
    tab = window.train_tab
    tab.held_out.setValue(0.0)
    panel = tab.step_panel
    panel.set_files([str(small_corpus)])
    panel.source.setCurrentIndex(1)
    step_and_wait(qtbot, panel)
    candidates = cell_text(panel.candidates, 0, 0), cell_text(panel.candidates, 0, 1)
    step_and_wait(qtbot, panel, 1)
    first = panel.merges.merges.steps[0]
    assert (first.left, first.right) == candidates
    step_and_wait(qtbot, panel, 10)
    panel.run_to_end()
    assert panel.end_button.text() == "Pause" and not panel.step_button.isEnabled()
    qtbot.waitUntil(lambda: not panel.is_stepping(), timeout=60_000)
    stepped = list(panel.merges.merges.steps)
    assert panel.plots.point_counts() == (len(stepped), panel.plots.point_counts()[1])
    assert panel.plots.point_counts()[1] >= 3  # the compression of the text, measured as it went
    train_and_wait(qtbot, window)
    entry = window.document.active
    assert entry is not None and entry.report is not None
    assert [(s.left, s.right, s.count) for s in stepped] == [(s.left, s.right, s.count) for s in entry.report.history.merges]


def test_step_mode_counts_and_steps_outside_the_window(qtbot: QtBot, window: MainWindow, small_corpus: Path) -> None:
    """Start, Step and Run to End only send requests: the Step by Step process counts and steps,
    and the panel draws its answers (the window never waits for a Unigram round)."""
    project_with(window, small_corpus, "bpe", 500)
    panel = window.train_tab.step_panel
    panel.advance(3)  # (no session yet: Start first, then the steps)
    assert panel.is_counting() and panel.is_stepping() and panel.started is None
    assert not panel.step_button.isEnabled() and not panel.keep_button.isEnabled()
    qtbot.waitUntil(lambda: panel.started is not None and not panel.is_stepping(), timeout=60_000)
    assert len(panel.merges.merges.steps) == 3 and "3 merges" in panel.status.text()
    panel.advance(2)
    assert len(panel.merges.merges.steps) == 3 and panel.is_stepping()  # (asked, not made here)
    step_and_wait(qtbot, panel)
    assert len(panel.merges.merges.steps) == 5
    # Run to End turns into Pause; pressed, no slice is asked for after the one under way
    panel.run_to_end()
    assert panel.end_button.text() == "Pause" and panel.end_button.isEnabled()
    panel.run_to_end()
    assert panel.end_button.text() == "Run to End"
    qtbot.waitUntil(lambda: not panel.is_stepping(), timeout=60_000)
    made = len(panel.merges.merges.steps)
    qtbot.wait(300)
    assert len(panel.merges.merges.steps) == made
    # a session whose process has stopped keeps nothing (and starts nothing)
    panel._stepper.kill()
    panel.keep()
    assert not panel.is_stepping() and "Nothing kept" in panel.status.text()
    assert window.document.active is not None and not window.document.active.is_trained
    # Reset stops the process and forgets the run
    panel.reset()
    assert panel.started is None and not panel.is_stepping() and panel.merges.merges.rowCount() == 0


def test_step_mode_keeps_its_result_in_the_project(qtbot: QtBot, window: MainWindow, small_corpus: Path) -> None:
    project_with(window, small_corpus, "bpe", 500)
    panel = window.train_tab.step_panel
    panel.text.setPlainText("low lower lowest\nnew newer newest\n")
    tab = window.train_tab
    tab.modes.setCurrentIndex(1)  # (Step by Step shows; the Training page is behind it)
    panel.start()
    step_and_wait(qtbot, panel, 5)
    assert "5 merges" in panel.status.text()
    assert panel.words.rowCount() > 0 and cell_text(panel.words, 0, 0).startswith("[")
    panel.keep()
    qtbot.waitUntil(lambda: not panel.is_stepping(), timeout=30_000)
    entry = window.document.active
    assert entry is not None and entry.is_trained and entry.report is not None
    assert len(entry.report.history) == 5
    # the Training page draws the kept history when it shows (not while it is hidden)
    tab.modes.setCurrentIndex(0)
    assert tab.merges.merges.rowCount() == 5 and tab.plots.point_counts()[0] == 5
    wait_for_view(qtbot, window)
    assert shown_vocabulary(window).rowCount() == Tokenizer.from_str(json.dumps(entry.trained)).get_vocab_size()


def test_a_killed_training_process_is_reported_and_the_project_kept(qtbot: QtBot, window: MainWindow, corpora: Path) -> None:
    import os
    import signal

    project_with(window, corpora / "shakespeare.txt", "bpe", 30_000)
    before = window.document.project.to_json("/")
    tab = window.train_tab
    with qtbot.waitSignal(tab.runner.progressed, timeout=TRAINING_TIMEOUT_MS):
        tab.train_button.click()
    pid = tab.runner.pid
    assert pid is not None
    with qtbot.waitSignal(tab.runner.failed, timeout=30_000):
        os.kill(pid, signal.SIGKILL)
    qtbot.waitUntil(tab.runner.is_idle, timeout=20_000)
    assert window.document.project.to_json("/") == before
    assert "stopped unexpectedly" in tab.message.text() and "unchanged" in tab.message.text()
    assert tab.train_button.isEnabled()


def test_switching_the_theme_recolours_the_plots(window: MainWindow) -> None:
    window.set_theme("dark")
    dark = window.train_tab.plots.score.backgroundBrush().color().name()
    window.set_theme("light")
    light = window.train_tab.plots.score.backgroundBrush().color().name()
    assert dark != light


def test_the_step_panel_s_plots_are_built_when_it_is_first_shown(qtbot: QtBot, window: MainWindow) -> None:
    # (pyqtgraph's plots of a panel nobody has opened took 40-50 ms of the window's start-up)
    tab = window.train_tab
    place = tab.step_panel.plots_place
    tab.step_panel.plots_place.clear("score", rounds=True)
    window.set_theme("dark")  # (nothing to recolour yet)
    assert not place.built()
    tab.modes.setCurrentIndex(1)
    assert place.built() and tab.step_panel.plots.isVisible()
    # as cleared before they were built: a round-based run's (labelled as they are next painted)
    plots = tab.step_panel.plots
    qtbot.waitUntil(lambda: plots.growth.getPlotItem().titleLabel.text == "Pieces removed per round")
    assert plots.score.getPlotItem().titleLabel.text == "Log-likelihood per round"
    # given their room by the panel's splitter, as if they had been there from the start
    window.resize(1600, 1000)
    body = place.parentWidget()
    assert body is not None
    qtbot.waitUntil(lambda: place.height() >= body.height() // 4)


def test_a_live_training_s_plots_grow_in_steps_and_a_view_the_user_moved_stays(qtbot: QtBot) -> None:
    from engine.trainers.records import MergeStep
    from workbench.window.views.training_plots import TrainingPlots

    plots = TrainingPlots()
    qtbot.addWidget(plots)
    plots.resize(1200, 400)
    plots.show()
    plots.clear("count", at_once=False, growing=True)
    boxes = [plot.getPlotItem().getViewBox() for plot in (plots.score, plots.growth, plots.compression)]
    changes = [0, 0, 0]
    for index, box in enumerate(boxes):
        box.sigRangeChanged.connect(lambda *_, index=index: changes.__setitem__(index, changes[index] + 1))
    done = 0
    for batch in range(200):
        steps = [
            MergeStep(n, "a", "b", "ab", 300 + n, 1_000_000 // (n + 1) + 2, 300 + n, 10, seconds=n / 1000)
            for n in range(done, done + 150)
        ]  # fmt: skip
        done += 150
        plots.add_steps(list(steps))
        if batch % 20 == 0:
            plots.add_evaluation(done, 3.0 + done / 30_000)
        plots.redraw()
        # every point is in view, the score's log axis spans whole decades
        shown = [(plots._ranks, plots._values), (plots._seconds, plots._sizes), (plots._evaluated_at, plots._evaluations)]
        for index, box in enumerate(boxes):
            assert not any(box.autoRangeEnabled())
            (left, right), (bottom, top) = box.viewRange()
            x, y = numpy.array(shown[index][0]), numpy.array(shown[index][1])
            if index == 0:
                y = numpy.log10(y)  # (a log axis's view is in powers of ten)
                assert bottom == int(bottom) and top == int(top)
            assert left <= x.min() and x.max() <= right and bottom <= y.min() and y.max() <= top
            assert index == 0 or bottom >= 0  # (no negative sizes or compression on an axis)
    # 30,000 merges: each range changed a few dozen times, not at each of the 200 redraws
    assert all(0 < count < 60 for count in changes), changes

    # a view the user moved stays where they put it
    boxes[1].setRange(xRange=(0, 5), yRange=(0, 100), padding=0)
    boxes[1].sigRangeChangedManually.emit(boxes[1].state["mouseEnabled"])
    plots.add_steps([MergeStep(done, "a", "b", "ab", 300 + done, 5, 300 + done, 10, seconds=100.0)])
    plots.redraw()
    assert boxes[1].viewRange()[0] == [0, 5]

