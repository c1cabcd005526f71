"""Nothing the user had is lost: saving keeps a backup and fails with a message that loses
nothing, autosave writes off the GUI thread to a recovery copy of this window's own, a recovery
copy survives until its project is saved, damaged copies are set aside (never fatal), a project
open in another window is told, and files outside a project's folder are shown and asked about."""

from __future__ import annotations

import json
import os
import stat
import threading
import time
import zipfile
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from pytestqt.qtbot import QtBot

import engine
from engine.project.facts import CorpusFile
from engine.project.project_file import BACKUP_SUFFIX, Project, write_archive
from workbench.window.main_window import MainWindow
from workbench.window.prompts import ScriptedPrompts
from workbench.jobs.runners.saving import RecoveryCopy, recovery_folder
from workbench.core.settings import Settings


def copies() -> list[Path]:
    folder = recovery_folder()
    return sorted(folder.glob("*.tokproj")) if folder.is_dir() else []


def crash(window: MainWindow) -> None:
    """What a crash leaves: the window's recovery copy, nobody holding it."""
    window.recovery.release()


def autosaved(qtbot: QtBot, window: MainWindow) -> None:
    window.autosave()
    qtbot.waitUntil(lambda: not window.worker.busy(), timeout=20_000)


def test_saving_writes_off_the_gui_thread_and_keeps_one_backup(
    window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import workbench.jobs.runners.saving as saving

    window.open_sample()
    path = tmp_path / "p.tokproj"
    prompts.answers["save_project"] = str(path)
    threads: list[int] = []
    writer = write_archive  # (what saving imported)

    def spy(target: str, data: bytes, backup: bool = True) -> None:
        threads.append(threading.get_ident())  # (not current_thread(): it would register the pool's thread)
        writer(target, data, backup)

    monkeypatch.setattr(saving, "write_archive", spy)
    assert window.save()
    first = path.read_bytes()
    window.document.add_preset("gpt2")
    assert window.save()
    assert len(threads) == 2 and threading.main_thread().ident not in threads
    assert (tmp_path / ("p.tokproj" + BACKUP_SUFFIX)).read_bytes() == first
    assert zipfile.is_zipfile(path) and not window.document.dirty


@pytest.mark.skipif(os.geteuid() == 0, reason="permissions do not stop root")
def test_a_read_only_folder_fails_with_a_message_and_loses_nothing(window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path) -> None:
    window.open_sample()
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    prompts.answers["save_project"] = str(folder / "p.tokproj")
    window.document.add_preset("gpt2")
    try:
        assert not window.save_as()
    finally:
        folder.chmod(stat.S_IRWXU)
    assert "was not saved" in prompts.questions("warn")[-1] and "Save As" in prompts.questions("warn")[-1]
    assert window.document.dirty and [e.preset for e in window.document.project.tokenizers] == ["bpe", "gpt2"]
    assert list(folder.iterdir()) == []


def test_a_full_disk_fails_with_a_message_and_keeps_the_old_file(window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    window.open_sample()
    path = tmp_path / "p.tokproj"
    prompts.answers["save_project"] = str(path)
    assert window.save()
    good = path.read_bytes()
    window.document.add_preset("gpt2")

    def full(handle: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)  # (the fsync engine.formats.files calls)
    assert not window.save()
    monkeypatch.undo()
    message = prompts.questions("warn")[-1]
    assert "No space left on device" in message and str(path) in message
    assert path.read_bytes() == good and window.document.dirty
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_a_save_made_while_the_project_changed_leaves_it_dirty(window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path) -> None:
    window.open_sample()
    path = tmp_path / "p.tokproj"
    prompts.answers["save_project"] = str(path)
    generation = window.document.generation
    window.document.add_preset("gpt2")  # (a change after the snapshot was taken)
    window.document.mark_saved(str(path), generation)
    assert window.document.dirty and window.document.path == str(path)


def test_each_window_autosaves_its_own_copy_and_closing_one_keeps_the_others(qtbot: QtBot, window: MainWindow) -> None:
    window.open_sample()
    window.document.add_preset("wordlevel")
    autosaved(qtbot, window)
    other = MainWindow(Settings(), ScriptedPrompts(save_changes="discard"))
    qtbot.addWidget(other)
    other.open_sample()
    other.document.add_preset("gpt2")
    autosaved(qtbot, other)
    assert copies() == sorted([Path(window.recovery.path), Path(other.recovery.path)])
    other.close()
    assert copies() == [Path(window.recovery.path)]
    # nothing changed since the last autosave: nothing is written again
    before = os.path.getmtime(window.recovery.path)
    window.autosave()
    assert not window.worker.busy() and os.path.getmtime(window.recovery.path) == before


def test_a_living_windows_copy_is_never_offered(qtbot: QtBot, window: MainWindow) -> None:
    window.open_sample()
    window.document.add_preset("wordlevel")
    autosaved(qtbot, window)
    prompts = ScriptedPrompts(choose="Restore")
    again = MainWindow(Settings(), prompts)
    qtbot.addWidget(again)
    assert not again.offer_recovery() and prompts.questions("choose") == []
    again.shutdown()


def test_a_restored_copy_survives_a_second_crash_until_the_project_is_saved(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    window.open_sample()
    window.document.add_preset("wordlevel")
    autosaved(qtbot, window)
    crash(window)
    first = MainWindow(Settings(), ScriptedPrompts(choose="Restore"))
    qtbot.addWidget(first)
    assert first.offer_recovery()
    crash(first)  # a crash seconds after restoring: the work is still there
    prompts = ScriptedPrompts(choose="Restore", save_project=str(tmp_path / "saved.tokproj"))
    second = MainWindow(Settings(), prompts)
    qtbot.addWidget(second)
    assert second.offer_recovery()
    assert [entry.preset for entry in second.document.project.tokenizers] == ["bpe", "wordlevel"]
    assert copies() == [Path(second.recovery.path)]
    assert second.save()
    assert copies() == []
    second.shutdown()
    first.shutdown()
    window.recovery.hold()


def test_later_keeps_a_copy_and_discard_deletes_it(qtbot: QtBot, window: MainWindow) -> None:
    window.open_sample()
    window.document.add_preset("wordlevel")
    autosaved(qtbot, window)
    crash(window)
    later = MainWindow(Settings(), ScriptedPrompts(choose="Later"))
    qtbot.addWidget(later)
    assert not later.offer_recovery() and len(copies()) == 1
    later.shutdown()
    discard = MainWindow(Settings(), ScriptedPrompts(choose="Discard"))
    qtbot.addWidget(discard)
    assert not discard.offer_recovery() and copies() == []
    discard.shutdown()
    window.recovery.hold()


@pytest.mark.parametrize(
    ("damage", "fragment"),
    [
        (lambda data: data[: len(data) // 2], "damaged or truncated"),
        (lambda data: b"PK\x03\x04" + b"\x00" * 64, "damaged or truncated"),
        (lambda data: b"{not json", "not valid JSON"),
    ],
)
def test_a_damaged_recovery_copy_is_set_aside_with_a_word_and_never_stops_the_window(
    qtbot: QtBot, window: MainWindow, damage: object, fragment: str
) -> None:
    window.open_sample()
    window.document.add_preset("wordlevel")
    autosaved(qtbot, window)
    crash(window)
    copy = Path(window.recovery.path)
    assert callable(damage)
    copy.write_bytes(damage(copy.read_bytes()))
    prompts = ScriptedPrompts(choose="Restore")
    again = MainWindow(Settings(), prompts)
    qtbot.addWidget(again)
    again.open_at_start(None)  # (no crash, no traceback: the sample opens)
    [warning] = prompts.questions("warn")
    assert fragment in warning and str(copy) in warning and ".damaged" in warning
    assert copies() == [] and Path(str(copy) + ".damaged").is_file()
    assert again.document.is_template
    # set aside: never offered again
    third = MainWindow(Settings(), ScriptedPrompts(choose="Restore"))
    qtbot.addWidget(third)
    assert not third.offer_recovery()
    for other in (again, third):
        other.shutdown()
    window.recovery.hold()


def test_a_copys_name_and_origin_are_in_the_question(qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path) -> None:
    window.open_sample()
    prompts.answers["save_project"] = str(tmp_path / "named.tokproj")
    assert window.save()
    window.document.add_preset("wordlevel")
    autosaved(qtbot, window)
    crash(window)
    asked = ScriptedPrompts(choose="Restore")
    again = MainWindow(Settings(), asked)
    qtbot.addWidget(again)
    assert again.offer_recovery()
    [question] = asked.questions("choose")
    assert f"“named” (from {tmp_path / 'named.tokproj'})" in question and "2 tokenizers" in question
    assert again.document.path == str(tmp_path / "named.tokproj") and again.document.dirty
    again.shutdown()
    window.recovery.hold()


def test_a_recovery_copy_is_only_removed_by_its_own_window(tmp_path: Path) -> None:
    mine, theirs = RecoveryCopy(tmp_path), RecoveryCopy(tmp_path)
    assert mine.hold() and theirs.hold() and mine.path != theirs.path
    Path(theirs.path).write_bytes(b"PK")
    mine.remove()
    assert Path(theirs.path).exists()
    mine.release()
    theirs.release()


def test_a_project_open_in_another_window_is_told(qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path) -> None:
    window.open_sample()
    path = tmp_path / "shared.tokproj"
    prompts.answers["save_project"] = str(path)
    assert window.save()
    asked = ScriptedPrompts()
    other = MainWindow(Settings(), asked)
    qtbot.addWidget(other)
    assert not other.open_file(str(path))  # told, and answered no
    [question] = asked.questions("confirm")
    assert "shared.tokproj is open in another Tokenizer Workbench window (process" in question
    window.new_project()  # the first window lets go of it
    assert other.open_file(str(path)) and len(asked.questions("confirm")) == 1
    other.shutdown()


def test_corpus_files_outside_the_projects_folder_are_shown_and_asked_about(
    window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path
) -> None:
    secret = tmp_path / "elsewhere" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("private words\n", encoding="utf-8")
    inside = tmp_path / "sent" / "corpus.txt"
    inside.parent.mkdir()
    inside.write_text("words\n", encoding="utf-8")
    project = Project("sent")
    project.corpus = [CorpusFile(str(inside)), CorpusFile(str(secret))]
    path = tmp_path / "sent" / "sent.tokproj"
    project.save(str(path))
    data = path.read_bytes()
    # what someone sent: the relative reference reaches out of the project's folder
    assert b"../elsewhere/secret.txt" in zipfile.ZipFile(path).read("project.json")
    prompts.answers["choose"] = ["Cancel", "Remove Them", "Keep Them"]
    assert not window.open_file(str(path))
    question = prompts.questions("choose")[-1]
    assert str(secret) in question and str(inside) not in question
    assert window.open_file(str(path))
    assert [item.path for item in window.document.project.corpus] == [str(inside)]
    window.new_project()
    assert window.open_file(str(path))
    assert [item.path for item in window.document.project.corpus] == [str(inside), str(secret)]
    # approved once: not asked again
    window.new_project()
    assert window.open_file(str(path)) and len(prompts.questions("choose")) == 3
    assert path.read_bytes() == data


def test_a_file_changed_since_the_project_saw_it_is_checked_again(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, small_corpus: Path, tmp_path: Path
) -> None:
    window.document.replace(Project("changed"), None)
    window.document.add_checked_files([engine.corpus.checks.check_file(str(small_corpus))])
    prompts.answers["save_project"] = str(tmp_path / "c.tokproj")
    assert window.save_as()
    old = window.document.project.corpus[0].sha256
    with small_corpus.open("a", encoding="utf-8") as stream:
        stream.write("one more line\n")
    window.new_project()
    assert window.open_file(str(tmp_path / "c.tokproj"))
    qtbot.waitUntil(lambda: window.document.project.corpus[0].sha256 != old, timeout=20_000)
    assert window.document.project.corpus[0].size == small_corpus.stat().st_size


def v1_project(tokenizers: list[object]) -> dict[str, object]:
    return {"format": "tokenizer-workbench project", "format_version": 1, "name": "sent", "corpus": [], "tokenizers": tokenizers, "active": 0}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"format": "tokenizer-workbench project", "format_version": 1, "name": "n", "active": ' + "9" * 5000 + "}", "is out of range"),
        ("", "not valid JSON"),
        ('{"format": "tokenizer-workbench project", "format_version": 1, "x": ' + "[" * 1000 + "]" * 1000 + "}", "nested more than 127 levels deep"),
    ],
)
def test_a_hostile_project_file_is_refused_with_its_name_and_the_window_keeps_its_project(
    window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path, text: str, fragment: str
) -> None:
    window.open_sample()
    path = tmp_path / "hostile.tokproj"
    path.write_text(text, encoding="utf-8")
    assert not window.open_file(str(path))
    message = prompts.questions("warn")[-1]
    assert str(path) in message and fragment in message and "unchanged" in message
    assert window.document.title == "Sample: Shakespeare"


def test_a_superscript_digit_is_not_a_token_id(window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path) -> None:
    entry = {
        "name": "t", "preset": "imported", "pipeline": {}, "trainer": None,
        "trained": {"model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"}},
        "examples": {"²": [["a", 1]]},
    }  # fmt: skip
    path = tmp_path / "sup.tokproj"
    path.write_text(json.dumps(v1_project([entry])), encoding="utf-8")
    assert not window.open_file(str(path))
    assert "'²' is not a token id" in prompts.questions("warn")[-1]


def test_a_big_old_project_is_read_while_the_window_keeps_drawing(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    from engine import Tokenizer, models

    tokenizer = Tokenizer(models.WordLevel({"a": 0, "b": 1}, unk_token="a"))
    entry = {
        "name": "big", "preset": "imported", "pipeline": json.loads(tokenizer.to_str()), "trainer": None,
        "trained": json.loads(tokenizer.to_str()), "frequencies": [7] * 1_500_000,
    }  # fmt: skip
    path = tmp_path / "big.tokproj"
    path.write_text(json.dumps(v1_project([entry])), encoding="utf-8")
    assert path.stat().st_size > 4 << 20  # (parsed in a child process: see saving.read_project)
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start()
    assert window.open_file(str(path))
    timer.stop()
    result = window.document.project.tokenizers[0].result
    assert result is not None and result.frequencies[:3] == [7, 7, 7] and len(result.frequencies) == 1_500_000
    assert len(ticks) > 3


def test_opening_a_project_never_builds_its_tokenizers_in_the_window(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, small_corpus: Path, tmp_path: Path
) -> None:
    from window_support import train_and_wait, wait_for_view

    window.new_project()
    window.document.add_checked_files([engine.corpus.checks.check_file(str(small_corpus))])
    window.document.add_preset("bpe", vocab_size=500)
    train_and_wait(qtbot, window)
    prompts.answers["save_project"] = str(tmp_path / "v.tokproj")
    assert window.save_as()
    window.new_project()
    window.tabs.setCurrentWidget(window.vocab_tab)
    assert window.open_file(str(tmp_path / "v.tokproj"))
    # drawn at once, while the encoding process builds the vocabulary view
    assert window.vocab_tab.empty.text() == "Loading the vocabulary of “BPE 500”…"
    assert window._size_label.text() == "vocabulary 500"  # (kept in project.json: nothing parsed)
    view = wait_for_view(qtbot, window)
    assert window.vocab_tab.model.rowCount() == 500 and window._size_label.text() == "vocabulary 500"
    assert view._tokenizer is None  # (the window parsed no tokenizer: the encoding process did)
    result = window.document.project.tokenizers[0].result
    assert result is not None and result._frequencies is None  # (nor its vocabulary part)
    # a token's merge tree comes with the view
    table = view.table(True)
    assert table is not None
    window.vocab_tab.select_token(table.ids[-1])
    root = window.vocab_tab.tree.topLevelItem(0)
    assert root is not None and root.text(0).count("=") == 1
    assert view._tokenizer is None


def test_opening_the_open_project_again_is_not_another_window(window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path) -> None:
    window.open_sample()
    path = tmp_path / "again.tokproj"
    prompts.answers["save_project"] = str(path)
    assert window.save()
    assert window.open_file(str(path)) and prompts.questions("confirm") == []
    assert window.project_lock.path == str(path)
    other = MainWindow(Settings(), ScriptedPrompts())
    assert not other.open_file(str(path))  # (still locked by the first window)
    other.shutdown()
