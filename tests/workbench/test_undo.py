"""Every project edit can be undone and redone (Edit ▸ Undo, Ctrl+Z), and whatever replaces a
trained result asks first: keep as result, train again, continue, Open Recent over changes."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

import engine
from engine.project.project_file import Project
from workbench.window.main_window import MainWindow
from workbench.window.prompts import ScriptedPrompts

from window_support import shown_vocabulary, step_and_wait, train_and_wait, wait_for_view


def names(window: MainWindow) -> list[str]:
    return [entry.name for entry in window.document.project.tokenizers]


def dirty(window: MainWindow) -> bool:
    """(a call: an assert on `window.document.dirty` would fix its value for mypy past an undo)"""
    return window.document.dirty


def test_every_project_edit_undoes_and_redoes(window: MainWindow, small_corpus: Path, tmp_path: Path) -> None:
    document = window.document
    document.replace(Project("edits"), None)
    stack = document.undo_stack
    other = tmp_path / "other.txt"
    other.write_text("more words here\n", encoding="utf-8")
    document.add_checked_files([engine.corpus.checks.check_file(str(small_corpus))])
    document.add_checked_files([engine.corpus.checks.check_file(str(other))])
    first = document.add_preset("bpe", vocab_size=500)
    document.add_preset("wordlevel", vocab_size=300)
    document.rename_tokenizer(0, "mine")
    document.remove_files([1])
    document.remove_tokenizer(1)
    assert names(window) == ["mine"] and [item.name for item in document.project.corpus] == ["small.txt"]
    assert stack.undoText() == "Remove “WordLevel 300”"
    stack.undo()
    assert names(window) == ["mine", "WordLevel 300"]
    stack.undo()
    assert [item.name for item in document.project.corpus] == ["small.txt", "other.txt"]
    stack.undo()
    assert names(window) == ["BPE 500", "WordLevel 300"] and document.project.tokenizers[0] is first
    while stack.canUndo():
        stack.undo()
    assert names(window) == [] and document.project.corpus == [] and not document.dirty
    while stack.canRedo():
        stack.redo()
    assert names(window) == ["mine"] and [item.name for item in document.project.corpus] == ["small.txt"]
    # the menu's actions are the stack's, with its texts and the usual shortcuts
    assert window.undo_action.text() == "&Undo Remove “WordLevel 300”"
    assert window.undo_action.shortcut().toString() == "Ctrl+Z"
    assert window.redo_action.shortcut().toString() == "Ctrl+Shift+Z"


def test_consecutive_settings_edits_undo_as_one(window: MainWindow, small_corpus: Path) -> None:
    document = window.document
    document.replace(Project("settings"), None)
    document.add_preset("bpe", vocab_size=500)
    form = window.train_tab.form
    for size in (510, 520, 530):
        form.trainer.vocab_size.setValue(size)
        form.trainer.vocab_size.editingFinished.emit()
    entry = document.active
    assert entry is not None and entry.trainer is not None and entry.trainer["vocab_size"] == 530
    document.undo_stack.undo()
    undone = entry.trainer  # (a local: mypy would keep entry.trainer["vocab_size"] at 530 past the undo)
    assert undone is not None and undone["vocab_size"] == 500
    assert form.trainer.vocab_size.value() == 500  # (the form shows the settings undone)


def test_undo_back_to_the_saved_state_is_clean(window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path) -> None:
    window.open_sample()
    prompts.answers["save_project"] = str(tmp_path / "s.tokproj")
    assert window.save()
    window.document.add_preset("gpt2")
    assert dirty(window) and window.windowTitle().endswith("*")
    window.document.undo_stack.undo()
    assert not dirty(window) and not window.windowTitle().endswith("*")
    window.document.undo_stack.redo()
    assert dirty(window)


def test_keep_as_result_over_a_trained_result_asks_and_can_be_undone(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, small_corpus: Path
) -> None:
    window.document.replace(Project("keep"), None)
    window.document.add_checked_files([engine.corpus.checks.check_file(str(small_corpus))])
    entry = window.document.add_preset("bpe", vocab_size=600)
    train_and_wait(qtbot, window)
    trained = entry.trained_json
    view = window.document.view()
    assert view is not None and view.vocab_size == 600
    panel = window.train_tab.step_panel
    panel.text.setPlainText("low lower lowest\nnew newer newest\n")
    panel.start()
    step_and_wait(qtbot, panel, 5)
    panel.keep()  # asked, and told no: nothing changes
    qtbot.waitUntil(lambda: bool(prompts.questions("confirm")), timeout=30_000)
    [question] = prompts.questions("confirm")
    assert "“BPE 600” has a trained result (600 tokens)" in question and "Keep the step-by-step result (5 merges)" in question
    assert "Edit ▸ Undo" in question
    assert entry.trained_json == trained and "Not kept" in panel.status.text()
    prompts.answers["confirm"] = True
    panel.keep()  # (made in the Step by Step process)
    qtbot.waitUntil(lambda: entry.trained_json != trained, timeout=30_000)
    kept = wait_for_view(qtbot, window)
    assert 0 < kept.vocab_size < 600
    # the settings say the size of what was kept, as the form does
    assert entry.trainer is not None and entry.trainer["vocab_size"] == kept.vocab_size
    assert window.train_tab.form.trainer.vocab_size.value() == kept.vocab_size
    window.document.undo_stack.undo()
    assert entry.trained_json == trained and entry.trainer is not None and entry.trainer["vocab_size"] == 600
    wait_for_view(qtbot, window)
    assert shown_vocabulary(window).rowCount() == 600


def test_training_a_trained_tokenizer_again_asks_first(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, small_corpus: Path
) -> None:
    window.document.replace(Project("again"), None)
    window.document.add_checked_files([engine.corpus.checks.check_file(str(small_corpus))])
    entry = window.document.add_preset("bpe", vocab_size=500)
    train_and_wait(qtbot, window)
    first = entry.result
    tab = window.train_tab
    tab.start_training()
    assert not tab.runner.is_running() and "Train again and replace it" in prompts.questions("confirm")[-1]
    prompts.answers["confirm"] = True
    train_and_wait(qtbot, window)
    assert entry.result is not first
    window.document.undo_stack.undo()
    assert entry.result is first


def test_open_recent_over_unsaved_changes_asks(window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path) -> None:
    window.open_sample()
    prompts.answers["save_project"] = str(tmp_path / "r.tokproj")
    assert window.save()
    window.document.add_preset("gpt2")
    prompts.answers["save_changes"] = "cancel"
    assert not window.open_recent(str(tmp_path / "r.tokproj"))
    assert prompts.questions("save_changes") == ["r"] and window.document.dirty
    assert [entry.preset for entry in window.document.project.tokenizers] == ["bpe", "gpt2"]
    # the menu's entries go through the same question
    window.menus.fill_recent()
    action = window.menus.recent.actions()[0]
    assert action.text() == str(tmp_path / "r.tokproj")
    action.trigger()
    assert prompts.questions("save_changes") == ["r", "r"] and window.document.dirty
