"""The Train tab with a vocabulary smaller than the alphabet needs (issue 23): the training stops
before any merge, and one line says how large the vocabulary must be, beneath the field and in
the tab's message; the project, the form and a trained result stay as they were, and the next
training that succeeds takes the line away."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from engine.corpus.checks import check_file
from window_support import TRAINING_TIMEOUT_MS, train_and_wait
from workbench.window.main_window import MainWindow
from workbench.window.prompts import ScriptedPrompts

# "ab ba" lines: the characters a and b, and the BPE preset's [UNK]
TOO_SMALL = (
    "vocab_size 2 is smaller than the 3 tokens the alphabet needs (2 characters + 1 special token): "
    "choose at least 3, or keep fewer characters with limit_alphabet"
)


@pytest.fixture
def prompts() -> ScriptedPrompts:
    # (training again over a trained result asks first: yes)
    return ScriptedPrompts(save_changes="discard", confirm=True)


def project_on_ab(window: MainWindow, folder: Path, vocab_size: int) -> None:
    corpus = folder / "ab.txt"
    corpus.write_text("ab ba\n" * 50, encoding="utf-8")
    window.new_project()
    window.document.add_checked_files([check_file(str(corpus))])
    window.document.add_preset("bpe", vocab_size=vocab_size)
    window.train_tab.held_out.setValue(0.0)  # (every line trained on: the alphabet is a and b)


def set_vocab_size(window: MainWindow, size: int) -> None:
    field = window.train_tab.form.trainer.vocab_size
    field.setValue(size)
    field.editingFinished.emit()


def refused(qtbot: QtBot, window: MainWindow) -> tuple[str, str]:
    tab = window.train_tab
    with qtbot.waitSignal(tab.runner.refused, timeout=TRAINING_TIMEOUT_MS) as blocker:
        tab.train_button.click()
    qtbot.waitUntil(tab.runner.is_idle, timeout=20_000)
    option, message = blocker.args if blocker.args is not None else ("", "")
    return str(option), str(message)


def test_a_vocabulary_below_the_alphabet_is_refused_beneath_the_field(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    project_on_ab(window, tmp_path, 2)
    tab = window.train_tab
    fields = tab.form.trainer
    before = window.document.project.to_json("/")
    assert not fields.vocab_size_error.isVisibleTo(tab)
    states: list[str] = []
    tab.state_changed.connect(states.append)  # (what the status bar shows)
    assert refused(qtbot, window) == ("vocab_size", TOO_SMALL)
    # beneath the field, in the tab's message and the status bar; no Retry (it would be refused again)
    assert fields.vocab_size_error.isVisibleTo(tab) and fields.vocab_size_error.text() == TOO_SMALL
    assert tab.message.text() == f"Not trained: {TOO_SMALL}."
    assert states[-1] == "vocabulary too small"
    assert not tab.retry_button.isVisibleTo(tab)
    # nothing changed: the project, the field's value; Train can start again
    assert window.document.project.to_json("/") == before
    entry = window.document.active
    assert entry is not None and not entry.is_trained
    assert fields.vocab_size.value() == 2 and tab.train_button.isEnabled()
    # the size it names trains, and takes the line away
    set_vocab_size(window, 3)
    assert fields.vocab_size_error.isVisibleTo(tab)  # (until a training succeeds)
    train_and_wait(qtbot, window)
    result = entry.result
    assert result is not None and result.size() == 3
    assert not fields.vocab_size_error.isVisibleTo(tab) and TOO_SMALL not in tab.message.text()


def test_a_refused_retraining_keeps_the_trained_result(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    project_on_ab(window, tmp_path, 4)
    train_and_wait(qtbot, window)
    entry = window.document.active
    assert entry is not None and entry.result is not None
    trained = entry.trained
    set_vocab_size(window, 2)
    assert refused(qtbot, window)[1] == TOO_SMALL
    tab = window.train_tab
    assert entry.trained == trained and entry.trainer is not None and entry.trainer["vocab_size"] == 4
    assert tab.form.trainer.vocab_size.value() == 2 and tab.form.trainer.vocab_size_error.text() == TOO_SMALL
    # another tokenizer's settings do not show the line; coming back shows it again
    window.document.add_preset("wordlevel", vocab_size=2)
    assert not tab.form.trainer.vocab_size_error.isVisibleTo(tab)
    window.document.set_active(window.document.project.tokenizers.index(entry))
    qtbot.waitUntil(lambda: tab.form.trainer.vocab_size_error.isVisibleTo(tab), timeout=5_000)


def test_step_by_step_refuses_it_too(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    # (a Unigram run would raise at its seed round; a BPE run would have no merge to step)
    project_on_ab(window, tmp_path, 2)
    panel = window.train_tab.step_panel
    panel.text.setPlainText("ab ba\n")
    panel.start()
    qtbot.waitUntil(lambda: not panel.is_stepping(), timeout=30_000)
    assert panel.started is None
    assert panel.status.text() == f"Cannot start: {TOO_SMALL}"
