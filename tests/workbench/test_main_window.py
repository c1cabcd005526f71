"""The main window: what opens at start, menus, title, projects saved and reopened, autosave and
recovery, closing with unsaved changes, bad files. Dialogs are answered by ScriptedPrompts."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMenu
from pytestqt.qtbot import QtBot

import engine
from workbench.core.build_info import build_info
from engine.errors import ProjectFileError
from engine.project.project_file import Project
from workbench.jobs.runners import saving
from workbench.window import main_window
from workbench.window.app import start_window
from workbench.window.main_window import MainWindow
from workbench.window.prompts import ScriptedPrompts
from workbench.jobs.runners.saving import ReadAhead, recovery_folder
from workbench.core.settings import Settings

from window_support import SAMPLE, train_and_wait, wait_for_view


def menu_titles(window: MainWindow) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for action in window.menuBar().actions():
        menu = action.menu()
        if isinstance(menu, QMenu):  # (typed as a QObject)
            found[action.text().replace("&", "")] = [a.text().replace("&", "") for a in menu.actions() if a.text()]
    return found


def test_first_start_opens_the_sample_project_ready_to_train(qtbot: QtBot, window: MainWindow) -> None:
    window.open_at_start(None)
    document = window.document
    assert document.is_template and not document.dirty
    # (Qt adds " — Tokenizer Workbench", the application's display name, in the title bar)
    assert window.windowTitle() == "Sample: Shakespeare"
    assert [item.name for item in document.project.corpus] == ["shakespeare.txt"]
    assert document.project.corpus[0].exists()
    assert [entry.name for entry in document.project.tokenizers] == ["BPE 8k"]
    assert window.train_tab.train_button.isEnabled(), window.train_tab.blocked_reason()


def test_menus_have_what_users_expect(window: MainWindow) -> None:
    menus = menu_titles(window)
    assert menus["File"][:8] == ["New Project", "Open…", "Open Recent", "Save", "Save As…", "Import Tokenizer…", "Export", "Quit"]
    assert menus["Edit"][:2] == ["Undo", "Redo"] and menus["Edit"][2:] == ["Copy", "Find"]
    assert menus["View"] == ["Show Whitespace Glyphs", "Font Size", "Theme"]
    assert menus["Help"] == ["User Guide", "Keyboard Shortcuts", "About Tokenizer Workbench"]


def test_about_names_the_versions_and_whether_the_engine_is_compiled(window: MainWindow) -> None:
    text = window.about_text()
    assert engine.__version__ in text and "Qt " in text and "PySide6" in text
    assert ("compiled with mypyc" in text) == engine.COMPILED
    assert build_info().describe() in text  # (the build's kind, date and commit)


def test_the_title_marks_unsaved_changes(window: MainWindow) -> None:
    window.open_sample()
    assert not window.windowTitle().endswith("*")
    window.document.add_preset("gpt2")
    assert window.windowTitle().endswith("*")


def test_the_sample_is_never_written_in_place(window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path) -> None:
    window.open_sample()
    sample_file = window.document.path
    assert sample_file is not None
    before = Path(sample_file).read_bytes()
    target = tmp_path / "mine.tokproj"
    prompts.answers["save_project"] = str(target)
    window.document.add_preset("wordlevel")
    assert window.save()
    assert Path(sample_file).read_bytes() == before
    assert target.is_file() and window.document.path == str(target) and not window.document.is_template
    assert window.windowTitle() == "mine"


def test_a_saved_project_reopens_to_the_same_state_with_its_history(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, small_corpus: Path, tmp_path: Path
) -> None:
    window.new_project()
    window.document.add_checked_files([engine.corpus.checks.check_file(str(small_corpus))])
    entry = window.document.add_preset("bpe", vocab_size=600)
    train_and_wait(qtbot, window)
    assert entry.is_trained and entry.report is not None
    steps, evaluations = window.train_tab.plots.point_counts()
    assert steps == len(entry.report.history) > 0 and evaluations > 0
    path = tmp_path / "project.tokproj"
    prompts.answers["save_project"] = str(path)
    assert window.save_as()

    # (the first window still has it open: the second is told, and opens it when told to)
    asked = ScriptedPrompts(confirm=True)
    again = MainWindow(Settings(), asked)
    qtbot.addWidget(again)
    assert again.open_file(str(path))
    assert asked.questions("confirm") and "open in another Tokenizer Workbench window" in asked.questions("confirm")[0]
    reopened = again.document.active
    assert reopened is not None and reopened.is_trained and reopened.report is not None
    assert reopened.report.history == entry.report.history
    assert reopened.trained == entry.trained and reopened.frequencies == entry.frequencies
    view = wait_for_view(qtbot, again)
    assert again.train_tab.plots.point_counts() == (steps, evaluations)
    assert again.vocab_tab.model.rowCount() == view.tokenizer.get_vocab_size()
    assert [c.path for c in again.document.project.corpus] == [str(small_corpus)]
    again.shutdown()


def test_saving_is_atomic_and_a_failed_save_keeps_the_old_file(window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path) -> None:
    window.open_sample()
    path = tmp_path / "p.tokproj"
    prompts.answers["save_project"] = str(path)
    assert window.save()
    good = path.read_bytes()
    prompts.answers["save_project"] = str(tmp_path / "missing-folder" / "p.tokproj")
    window.document.add_preset("gpt2")
    assert not window.save_as()
    assert "was not saved" in prompts.questions("warn")[-1]
    assert path.read_bytes() == good
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_a_bad_project_file_is_reported_and_the_open_project_kept(window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path) -> None:
    window.open_sample()
    for name, text, fragment in (
        ("truncated.tokproj", '{"format": "tokenizer-workbench project", "format_version": 1, "corpus": [', "truncated"),
        ("other.tokproj", '{"hello": 1}', "not a Tokenizer Workbench project"),
        ("newer.tokproj", '{"format": "tokenizer-workbench project", "format_version": 99}', "newer"),
    ):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        assert not window.open_file(str(path))
        message = prompts.questions("warn")[-1]
        assert str(path) in message and fragment in message
        assert window.document.title == "Sample: Shakespeare"


def test_a_tokenizer_file_opens_for_inspection(qtbot: QtBot, window: MainWindow, tmp_path: Path, prompts: ScriptedPrompts) -> None:
    tokenizer = engine.Tokenizer(engine.models.WordLevel({"a": 0, "b": 1, "[UNK]": 2}, unk_token="[UNK]"))
    tokenizer.add_special_tokens(["<s>"])
    path = tmp_path / "tokenizer.json"
    tokenizer.save(str(path))
    assert window.open_file(str(path))
    entry = window.document.active
    assert entry is not None and entry.preset == "imported" and entry.is_trained
    assert window.tabs.currentWidget() is window.vocab_tab
    wait_for_view(qtbot, window)
    assert window.vocab_tab.model.rowCount() == 4
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    assert not window.open_file(str(bad))
    assert str(bad) in prompts.questions("warn")[-1]
    assert window.document.active is entry


def test_closing_with_unsaved_changes_asks(qtbot: QtBot) -> None:
    prompts = ScriptedPrompts(save_changes=["cancel", "discard"])
    window = MainWindow(Settings(), prompts)
    qtbot.addWidget(window)
    window.show()
    window.open_sample()
    window.document.add_preset("gpt2")
    assert not window.close()
    assert window.isVisible()
    assert window.close()
    assert prompts.questions("save_changes") == ["Sample: Shakespeare", "Sample: Shakespeare"]


def recovery_copies() -> list[Path]:
    folder = recovery_folder()
    return sorted(folder.glob("*.tokproj")) if folder.is_dir() else []


def test_autosave_and_recovery_after_a_crash(qtbot: QtBot, window: MainWindow) -> None:
    window.open_sample()
    window.document.add_preset("wordlevel")
    window.autosave()
    qtbot.waitUntil(lambda: not window.worker.busy())
    [copy] = recovery_copies()
    assert copy == Path(window.recovery.path)
    # a crash: the window's lock on its copy is gone, the copy stays
    window.recovery.release()
    prompts = ScriptedPrompts(choose="Restore")
    again = MainWindow(Settings(), prompts)
    qtbot.addWidget(again)
    again.open_at_start(None)
    [question] = prompts.questions("choose")
    assert "did not close properly" in question and "“Sample: Shakespeare” (never saved)" in question
    assert again.document.dirty
    assert [entry.preset for entry in again.document.project.tokenizers] == ["bpe", "wordlevel"]
    # the copy is kept (now the new window's own) until the project is saved
    assert recovery_copies() == [Path(again.recovery.path)]
    again.shutdown()
    window.recovery.hold()


def test_a_clean_close_leaves_no_recovery_file(qtbot: QtBot, window: MainWindow) -> None:
    window.open_sample()
    window.document.add_preset("wordlevel")
    window.autosave()
    qtbot.waitUntil(lambda: not window.worker.busy())
    assert recovery_copies()
    window.close()
    assert not recovery_copies()


def test_a_moved_corpus_file_is_reported_and_can_be_located(
    window: MainWindow, prompts: ScriptedPrompts, small_corpus: Path, tmp_path: Path
) -> None:
    project = Project("moved")
    window.document.replace(project, None)
    window.document.add_checked_files([engine.corpus.checks.check_file(str(small_corpus))])
    window.document.add_preset("bpe", vocab_size=500)
    path = tmp_path / "moved.tokproj"
    window.document.project.save(str(path))
    moved = tmp_path / "elsewhere.txt"
    small_corpus.rename(moved)
    assert window.open_file(str(path))
    assert "Not found: small.txt" in window.project_panel.corpus_status.text()
    assert "Corpus files not found" in window.train_tab.blocked_reason()
    prompts.answers["locate"] = str(moved)
    window.project_panel.locate(0)
    assert window.document.project.corpus[0].path == str(moved)
    assert "Corpus files not found" not in window.train_tab.blocked_reason()


def test_settings_and_recent_projects_live_in_the_private_home(window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path, private_home: Path) -> None:
    window.open_sample()
    prompts.answers["save_project"] = str(tmp_path / "r.tokproj")
    window.save()
    window.worker.wait_all()  # (the settings are written on the writing thread)
    stored = json.loads((private_home / "config" / "settings.json").read_text(encoding="utf-8"))
    assert stored["recent_projects"] == [str(tmp_path / "r.tokproj")]
    assert Settings.load().recent_projects == [str(tmp_path / "r.tokproj")]


def test_settings_are_written_off_the_gui_thread_and_a_failed_write_is_said(
    qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    import workbench.core.settings as settings_module

    threads: list[int] = []

    def refuse(path: str, text: str) -> None:
        threads.append(threading.get_ident())
        raise OSError(28, "No space left on device", path)

    monkeypatch.setattr(settings_module, "write_text_atomically", refuse)
    window.settings.theme = "dark"
    window.save_settings()
    qtbot.waitUntil(lambda: "The settings were not saved" in window.statusBar().currentMessage(), timeout=10_000)
    assert "No space left on device" in window.statusBar().currentMessage()
    assert threads and threads[0] != threading.main_thread().ident
    assert not window.worker.busy()


def test_a_damaged_settings_file_is_set_aside(private_home: Path) -> None:
    folder = private_home / "config"
    folder.mkdir(parents=True)
    (folder / "settings.json").write_text("{not json", encoding="utf-8")
    assert Settings.load() == Settings()
    assert (folder / "settings.json.bad").is_file()


def test_the_next_start_reopens_the_last_project(qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path) -> None:
    window.open_sample()
    prompts.answers["save_project"] = str(tmp_path / "last.tokproj")
    window.save()
    window.shutdown()  # (closed: its lock on the project is gone)
    again = MainWindow(Settings.load(), ScriptedPrompts())
    qtbot.addWidget(again)
    again.open_at_start(None)
    assert again.document.path == str(tmp_path / "last.tokproj")
    again.shutdown()


def test_the_start_reads_the_project_while_the_window_is_built(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window.open_sample()
    path = str(tmp_path / "last.tokproj")
    prompts.answers["save_project"] = path
    window.save()
    window.shutdown()
    reads: list[str] = []
    real = saving.read_project

    def counted(read: str) -> Project:
        reads.append(read)
        return real(read)

    monkeypatch.setattr(saving, "read_project", counted)
    monkeypatch.setattr(main_window, "read_project", counted)
    again = start_window(None, ScriptedPrompts())
    qtbot.addWidget(again)
    assert again.document.path == path and again.isVisible()
    assert reads == [path]  # once, from the start: the open took the read-ahead's answer
    again.shutdown()


def test_a_read_ahead_gives_what_the_file_holds_when_it_is_opened(tmp_path: Path) -> None:
    path = tmp_path / "p.tokproj"
    Project("first").save(str(path))
    ahead = ReadAhead(str(path))
    assert ahead.work_for(str(tmp_path / "other.tokproj")) is None
    work = ahead.work_for(str(path))
    assert work is not None and ahead.work_for(str(path)) is None  # (taken once)
    time.sleep(0.05)
    Project("second").save(str(path))  # (saved again while the window was being built)
    assert work().name == "second"
    (tmp_path / "bad.tokproj").write_bytes(b"PK\x03\x04 not a project")
    bad = ReadAhead(str(tmp_path / "bad.tokproj")).work_for(str(tmp_path / "bad.tokproj"))
    assert bad is not None
    with pytest.raises(ProjectFileError, match="bad.tokproj"):
        bad()


@pytest.mark.parametrize("theme", ["dark", "light", "system"])
def test_view_settings_apply_and_persist(window: MainWindow, theme: str) -> None:
    window.set_theme(theme)
    window.change_font_size(+2)
    window.worker.wait_all()  # (the settings are written on the writing thread)
    assert Settings.load().theme == theme and Settings.load().font_size > 0
    window.change_font_size(0)
    window.worker.wait_all()
    assert Settings.load().font_size == 0


def test_export_writes_tokenizer_json_that_loads(qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, small_corpus: Path, tmp_path: Path) -> None:
    window.new_project()
    window.document.add_checked_files([engine.corpus.checks.check_file(str(small_corpus))])
    window.document.add_preset("gpt2", vocab_size=400)
    train_and_wait(qtbot, window)
    target = tmp_path / "out.json"
    prompts.answers["export_file"] = str(target)
    window.export_tokenizer_json()
    loaded = engine.Tokenizer.from_file(str(target))
    view = window.document.view()
    assert view is not None
    assert loaded.encode("To be, or not").ids == view.tokenizer.encode("To be, or not").ids
    assert SAMPLE.is_file()
