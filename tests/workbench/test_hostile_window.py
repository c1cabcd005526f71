"""Files are data, never code: a tokenizer file someone sent, with a regex that backtracks for
ever or a structure that cannot be read, never stops the window. Its regexes run in the encoding
process under the engine's bound; its reading runs in a child process."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QTimer
from pytestqt.qtbot import QtBot

from engine import Regex, Tokenizer, models, pre_tokenizers
from workbench.window.main_window import MainWindow
from workbench.window.prompts import ScriptedPrompts

HOSTILE = "(a|a)+$"


def hostile_file(folder: Path) -> Path:
    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0, "a": 1, "b": 2}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(HOSTILE), "isolated")
    path = folder / "hostile.json"
    tokenizer.save(str(path))
    return path


def test_a_hostile_regex_in_the_encode_tab_ends_in_a_message_naming_it(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    assert window.open_file(str(hostile_file(tmp_path)))
    tab = window.encode_tab
    window.tabs.setCurrentWidget(tab)
    # the window's event loop turns while the regex runs in the encoding process
    turns: list[bool] = []
    timer = QTimer()
    timer.setInterval(20)
    timer.timeout.connect(lambda: turns.append("backtracks" not in tab.status.text()))
    timer.start()
    tab.editor.set_text("a" * 40 + "b")
    qtbot.waitUntil(lambda: "backtracks catastrophically" in tab.status.text(), timeout=60_000)
    timer.stop()
    assert HOSTILE in tab.status.text() and "color" in tab.status.styleSheet()
    assert turns.count(True) >= 5
    # and the process still serves the next text
    tab.editor.set_text("ab")
    qtbot.waitUntil(tab.is_current, timeout=30_000)


def test_a_tokenizer_file_that_cannot_be_read_is_refused_with_its_name(window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path) -> None:
    window.open_sample()
    deep = tmp_path / "deep.json"
    deep.write_text('{"model": ' + "[" * 2000 + "]" * 2000 + "}", encoding="utf-8")
    surrogate = tmp_path / "surrogate.json"
    data = json.loads(Tokenizer(models.WordLevel({"a": 0}, unk_token="a")).to_str())
    text = json.dumps(data).replace('"a": 0', '"\\ud800": 0')
    surrogate.write_text(text, encoding="utf-8")
    empty = tmp_path / "empty.tiktoken"
    empty.write_text("", encoding="utf-8")
    for path, fragment in ((deep, "nested more than 127 levels deep"), (surrogate, "surrogate"), (empty, "holds no tokens")):
        assert not window.open_file(str(path))
        message = prompts.questions("warn")[-1]
        assert str(path) in message and fragment in message, message
        assert window.document.title == "Sample: Shakespeare"
