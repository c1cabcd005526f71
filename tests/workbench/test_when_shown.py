"""A tab hidden behind another waits until it is shown (`workbench.window.views.when_shown`):
once, however many changes came, and before anything of it is read; a tab in front, and a window
never shown, draw at once. And a change the document tells twice is drawn once."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QLabel, QTabWidget
from pytestqt.qtbot import QtBot
from window_support import TRAINING_TIMEOUT_MS, train_and_wait, wait_for_view

from engine.corpus.checks import check_file
from workbench.window.main_window import MainWindow
from workbench.window.views.when_shown import WhenShown, hidden_in_shown_window


def tabs_with_counter(qtbot: QtBot) -> tuple[QTabWidget, QLabel, WhenShown, list[bool]]:
    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    front, behind = QLabel("front"), QLabel("behind")
    tabs.addTab(front, "Front")
    tabs.addTab(behind, "Behind")
    calls: list[bool] = []
    return tabs, behind, WhenShown(behind, lambda: calls.append(behind.isVisible())), calls


def test_a_hidden_tab_refreshes_once_when_shown(qtbot: QtBot) -> None:
    tabs, behind, when_shown, calls = tabs_with_counter(qtbot)
    tabs.show()
    assert hidden_in_shown_window(behind)
    for _ in range(3):
        when_shown.request()
    assert (calls, when_shown.waiting) == ([], True)
    tabs.setCurrentWidget(behind)
    # once, and already visible (what it draws is painted at once)
    assert (calls, when_shown.waiting) == ([True], False)
    when_shown.request()
    assert calls == [True, True]
    # shown again with nothing waiting: nothing to do
    tabs.setCurrentIndex(0)
    tabs.setCurrentWidget(behind)
    assert calls == [True, True]


def test_put_off_and_flush(qtbot: QtBot) -> None:
    tabs, behind, when_shown, calls = tabs_with_counter(qtbot)
    tabs.show()
    assert (when_shown.put_off(), when_shown.waiting, calls) == (True, True, [])
    # something about to read the hidden tab has it refreshed first
    when_shown.flush()
    assert (calls, when_shown.waiting) == ([False], False)
    when_shown.flush()
    assert calls == [False]


def test_soon_refreshes_a_hidden_view_apart_from_the_change(qtbot: QtBot) -> None:
    tabs, behind, _, _ = tabs_with_counter(qtbot)
    calls: list[bool] = []
    soon = WhenShown(behind, lambda: calls.append(behind.isVisible()), soon_ms=10)
    tabs.show()
    soon.request()
    soon.request()
    assert calls == []  # (not in the turn of the change)
    qtbot.waitUntil(lambda: calls == [False], timeout=5_000)
    tabs.setCurrentWidget(behind)
    qtbot.wait(50)
    assert calls == [False]  # (nothing waited any more)


def test_wait_holds_the_refresh_until_shown_and_a_request_runs_it_once(qtbot: QtBot) -> None:
    tabs, behind, when_shown, calls = tabs_with_counter(qtbot)
    when_shown.wait()  # (a window never shown: what the refresh asks for waits for it)
    tabs.show()
    assert calls == []
    tabs.setCurrentWidget(behind)
    assert calls == [True]
    when_shown.wait()
    when_shown.request()  # (seen now: the waiting refresh and the request are one)
    assert (calls, when_shown.waiting) == ([True, True], False)


def test_a_window_never_shown_refreshes_at_once(qtbot: QtBot) -> None:
    tabs, behind, when_shown, calls = tabs_with_counter(qtbot)
    assert not hidden_in_shown_window(behind)
    assert not when_shown.put_off()
    when_shown.request()
    assert calls == [False]


def test_storing_a_result_leaves_the_hidden_tabs_until_shown(qtbot: QtBot, window: MainWindow, small_corpus: Path) -> None:
    window.new_project()
    window.document.add_checked_files([check_file(str(small_corpus))])
    window.document.add_preset("bpe", vocab_size=300)
    window.tabs.setCurrentWidget(window.train_tab)
    assert window.vocab_tab.model.rowCount() == 0
    train_and_wait(qtbot, window)
    view = wait_for_view(qtbot, window)
    # the Encode and Compare tabs have not drawn the new result yet (they would ask the
    # encoding process for what nobody sees)
    assert window.encode_tab.key == "" and not window.encode_tab.is_current()
    assert window.compare_tab.columns[0].choice.findText(window.document.project.tokenizers[0].name) == -1
    # the Vocabulary tab fills its table a moment later, still hidden: showing it only paints
    qtbot.waitUntil(lambda: window.vocab_tab.model.rowCount() == view.tokenizer.get_vocab_size(), timeout=5_000)
    assert not window.vocab_tab.isVisible()
    window.tabs.setCurrentWidget(window.compare_tab)
    assert window.compare_tab.columns[0].choice.findText(window.document.project.tokenizers[0].name) >= 0
    window.tabs.setCurrentWidget(window.encode_tab)
    assert window.encode_tab.key != ""
    qtbot.waitUntil(window.encode_tab.is_current, timeout=20_000)
    assert window.encode_tab.shown_spans()


def test_a_change_told_twice_is_drawn_once(qtbot: QtBot, window: MainWindow, small_corpus: Path) -> None:
    """The document tells `changed` and then `active_changed` for most edits; the Project panel
    rebuilds its list of tokenizers on the second only."""
    window.new_project()
    window.document.add_checked_files([check_file(str(small_corpus))])
    window.document.add_preset("bpe", vocab_size=300)
    rebuilt: list[int] = []
    window.project_panel.tokenizer_list.model().modelReset.connect(lambda: rebuilt.append(1))
    told: list[str] = []
    window.document.changed.connect(lambda: told.append("changed"))
    window.document.active_changed.connect(lambda: told.append("active_changed"))
    window.document.add_preset("gpt2", vocab_size=300)  # (an edit of the active tokenizer)
    assert told == ["changed", "active_changed"] and rebuilt == [1]
    window.document.rename_tokenizer(0, "renamed")  # (`changed` alone)
    assert told[2:] == ["changed"] and rebuilt == [1, 1]
    assert window.project_panel.tokenizer_list.item(0).text().startswith("renamed")


def test_a_hidden_train_tab_shows_the_active_settings_when_shown_or_used(qtbot: QtBot, window: MainWindow, small_corpus: Path) -> None:
    window.new_project()
    window.document.add_checked_files([check_file(str(small_corpus))])
    window.document.add_preset("bpe", vocab_size=300)
    window.document.add_preset("bert", vocab_size=400)
    sizes = window.train_tab.form.trainer.vocab_size
    assert sizes.value() == 400
    window.tabs.setCurrentWidget(window.vocab_tab)
    window.document.set_active(0)
    assert sizes.value() == 400  # (hidden: not redrawn for nobody)
    window.tabs.setCurrentWidget(window.train_tab)
    assert sizes.value() == 300
    # whatever reads the form (Train, from a menu or a retry) reads the active tokenizer's
    window.tabs.setCurrentWidget(window.vocab_tab)
    window.document.set_active(1)
    assert window.train_tab.blocked_reason() == "" and sizes.value() == 400


def test_a_training_that_ends_behind_another_tab_says_how_it_went(qtbot: QtBot, window: MainWindow, small_corpus: Path) -> None:
    window.new_project()
    window.document.add_checked_files([check_file(str(small_corpus))])
    window.document.add_preset("bpe", vocab_size=300)
    tab = window.train_tab
    with qtbot.waitSignal(tab.runner.finished, timeout=TRAINING_TIMEOUT_MS):
        tab.train_button.click()
        window.tabs.setCurrentWidget(window.vocab_tab)
    assert tab.message.text().startswith("Trained in ")
    window.tabs.setCurrentWidget(tab)
    assert tab.message.text().startswith("Trained in ")
    qtbot.waitUntil(tab.runner.is_idle, timeout=20_000)
