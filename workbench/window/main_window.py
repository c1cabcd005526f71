"""`MainWindow`: menus, the project dock, the tabs, the status bar, and the project's life cycle
(new, open, save, autosave and recovery, close).

Widgets draw the project; every change goes through `ProjectDocument`. Dialogs go through an
injected `Prompts`, so tests drive the window without ever blocking on one. File ▸ Export is
`window.exporting`'s; the question about a sent project's files outside its folder is
`window.outside_files`'; the user guide's window is `window.guide`'s.
"""

from __future__ import annotations

import os
import platform
import time
from functools import partial
from typing import Final

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, QTimer, qVersion
from PySide6.QtGui import QCloseEvent, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDockWidget,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QTabWidget,
)

import engine
from engine.errors import ProjectFileError
from engine.formats import convert
from engine.project.archive import Part
from engine.project.project_file import SUFFIX, Project
from workbench.core import shipped
from workbench.core.build_info import build_info
from workbench.core.settings import Settings
from workbench.jobs.runners.encoding import EncodingRunner
from workbench.jobs.runners.file_checks import FileChecker
from workbench.jobs.runners.saving import (
    RECOVERY_NOTE,
    ProjectLock,
    ReadAhead,
    RecoveryCopy,
    RecoveryNote,
    Worker,
    orphaned_copies,
    read_project,
    read_recovery,
    set_aside,
    write_project,
)
from workbench.window.appearance import APP_TITLE, apply_appearance
from workbench.window.document import ProjectDocument
from workbench.window.exporting import Exporter
from workbench.window.guide import SHORTCUTS, START, GuideWindow
from workbench.window.menus import MenuBar
from workbench.window.project_panel import ProjectPanel
from workbench.window.outside_files import approve_outside_files
from workbench.window.prompts import Prompts
from workbench.window.screen import fit_to_screen
from workbench.window.tabs.audit import AuditTab
from workbench.window.tabs.compare import CompareTab
from workbench.window.tabs.encode import EncodeTab
from workbench.window.tabs.train import TrainTab
from workbench.window.tabs.vocabulary import VocabTab

SAMPLE_PROJECT: Final = ("sample", "sample.tokproj")
AUTOSAVE_INTERVAL_MS: Final = 60_000
READABLE: Final = "a tokenizer file (tokenizer.json, SentencePiece .model, .tiktoken, BERT vocab.txt, GPT-2 vocab.json + merges.txt)"


class MainWindow(QMainWindow):
    """The workbench window."""

    def __init__(self, settings: Settings, prompts: Prompts | None = None, read_ahead: ReadAhead | None = None) -> None:
        super().__init__()
        self.settings = settings
        self._read_ahead = read_ahead  # (the project that opens at start, read meanwhile)
        self.prompts = prompts if prompts is not None else Prompts(self)
        self.document = ProjectDocument(self)
        self.file_checker = FileChecker(self)

        self.project_panel = ProjectPanel(self.document, self.prompts, self.file_checker)
        self.project_panel.noted.connect(self._on_project_panel_noted)
        dock = QDockWidget("Project", self)
        dock.setObjectName("project-dock")
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        dock.setWidget(self.project_panel)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)

        self.encoding_runner = EncodingRunner(self)
        # trained tokenizers' views are built in the encoding process, never on this thread
        self.document.set_viewer(self.encoding_runner)
        self.train_tab = TrainTab(self.document, self.settings, self.prompts)
        self.vocab_tab = VocabTab(self.document, self.settings, self.prompts)
        self.encode_tab = EncodeTab(self.document, self.settings, self.encoding_runner)
        self.compare_tab = CompareTab(self.document, self.settings, self.encoding_runner)
        self.audit_tab = AuditTab(self.document, self.prompts, self.encoding_runner)
        self.audit_tab.open_token.connect(self.show_token)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.train_tab, "Train")
        self.tabs.addTab(self.vocab_tab, "Vocabulary")
        self.tabs.addTab(self.encode_tab, "Encode")
        self.tabs.addTab(self.compare_tab, "Compare")
        self.tabs.addTab(self.audit_tab, "Audit")
        self.setCentralWidget(self.tabs)

        self._tokenizer_label = QLabel()
        self._size_label = QLabel()
        self._state_label = QLabel("idle")
        for label in (self._tokenizer_label, self._size_label, self._state_label):
            label.setContentsMargins(6, 0, 6, 0)
            self.statusBar().addPermanentWidget(label)

        self.exporter = Exporter(self.document, self.prompts, self._folder, self._set_busy, self.statusBar().showMessage, self)
        self.menus = MenuBar(self, self)
        self.export_actions = self.menus.export_actions
        self.undo_action = self.menus.undo_action
        self.redo_action = self.menus.redo_action
        self.whitespace_action = self.menus.whitespace_action
        # the user guide's window, made the first time it is asked for
        self.guide: GuideWindow | None = None
        for tab in (self.train_tab, self.vocab_tab, self.encode_tab, self.compare_tab, self.audit_tab):
            tab.help_link.asked.connect(self.show_guide_at)

        self.document.dirty_changed.connect(self._on_document_dirty_changed)
        self.document.path_changed.connect(self._update_title)
        self.document.active_changed.connect(self._on_document_active_changed)
        self.document.changed.connect(self._on_document_changed)
        self.document.view_changed.connect(self._on_document_view_changed)
        self.train_tab.state_changed.connect(self._on_train_tab_state_changed)

        self.worker = Worker(self)
        self.worker.finished.connect(self._on_worker_finished)
        self.worker.failed.connect(self._on_worker_failed)
        self.recovery = RecoveryCopy()
        self.recovery.hold()
        self.project_lock = ProjectLock()
        self._autosaving: tuple[int, int] = (0, 0)  # (task number, generation it writes)
        self._settings_writes: set[int] = set()  # (task numbers)
        self._autosaved_generation = -1
        # word-counts tables this window made, or its project named when it was opened; and
        # those the project file on disk names (see `_forget_project_files`)
        self._owned_counts: set[str] = set()
        self._saved_counts: set[str] = set()
        self.train_tab.counts_kept.connect(self._on_train_tab_counts_kept)
        self.document.files_added.connect(self._on_document_files_added)
        self._autosave = QTimer(self)
        self._autosave.setInterval(AUTOSAVE_INTERVAL_MS)
        self._autosave.timeout.connect(self.autosave)
        self._autosave.start()

        fit_to_screen(self, 1400, 900)
        self._update_title()
        self._on_document_active_changed()

    # -- opening -----------------------------------------------------------------------------

    def open_at_start(self, path: str | None) -> None:
        """What opens with the window: a recovered project, `path`, the last project, or the sample."""
        try:
            if self.offer_recovery():
                return
            if path is not None:
                if self.open_file(path):
                    return
            for recent in self.settings.recent_projects:
                if os.path.isfile(recent) and self.open_file(recent, quiet=True):
                    return
            self.open_sample()
        finally:
            self._read_ahead = None

    def open_sample(self) -> None:
        """The sample project shipped in resources/, opened as a template (Save asks where)."""
        path = str(shipped.resource(*SAMPLE_PROJECT))
        try:
            project = Project.load(path)
        except ProjectFileError as error:
            self.prompts.warn("The sample project cannot be opened", str(error))
            return
        self._show_project(project, path, is_template=True)

    def choose_and_open(self) -> None:
        if not self.ask_to_keep_changes():
            return
        path = self.prompts.open_project(self._folder())
        if path:
            self.open_file(path)

    def open_recent(self, path: str) -> bool:
        """File ▸ Open Recent: asks about unsaved changes first, as Open does."""
        if not self.ask_to_keep_changes():
            return False
        return self.open_file(path)

    def open_file(self, path: str, quiet: bool = False) -> bool:
        """Open a project, or a tokenizer file for inspection; False (and a message unless
        `quiet`) when it cannot be read: the open project is then kept. A project is read on
        another thread while the window keeps drawing."""
        if path.endswith(SUFFIX):
            self._set_busy(f"Opening {path}…")
            try:
                ahead = self._read_ahead.work_for(path) if self._read_ahead is not None else None
                ok, answer = self.worker.wait(self.worker.start(ahead or partial(read_project, path)))
            finally:
                self._set_busy("")
            if not ok or not isinstance(answer, Project):
                if not quiet:
                    self.prompts.warn("The project cannot be opened", f"{answer}\n\nThe project you had open is unchanged.")
                return False
            lock = ProjectLock()
            free, who = (True, "") if os.path.abspath(path) == self.project_lock.path else lock.acquire(path)
            if not free and not self.prompts.confirm(
                "The project is open elsewhere",
                f"{os.path.basename(path)} is open in another Tokenizer Workbench window ({who}). If both "
                "windows save it, one overwrites the other's changes.\n\nOpen it here too?",
            ):
                return False
            approved = approve_outside_files(self.prompts, self.settings, answer, path)
            if approved is None:
                lock.release()
                return False
            # (a file removed on opening is a change the project file does not have yet)
            self._show_project(answer, path, dirty=not approved, lock=lock)
            self.settings.add_recent(path)
            self.save_settings()
            self.report_missing_files()
            changed = [item.path for item in answer.corpus if item.exists() and item.changed_on_disk()]
            if changed:
                # (a file edited since the project last saw it: its check, and whether the
                # trained tokenizers were trained on it, are found out again)
                self.file_checker.check(changed, self.document.corpus_fields())
            return True
        self._set_busy(f"Reading {path}…")
        try:
            loaded = self.project_panel.read_tokenizer(
                path, "" if quiet else "The file cannot be opened", f"\n\nOpen a .tokproj project or {READABLE}."
            )
        finally:
            self._set_busy("")
        if loaded is None:
            return False
        self._show_project(Project(f"Inspect {os.path.basename(path)}"), None)
        self.project_panel.add_read(path, loaded)
        self.document.undo_stack.clear()  # (an inspection starts with nothing to undo or save)
        self.tabs.setCurrentWidget(self.vocab_tab)
        return True

    def _show_project(self, project: Project, path: str | None, is_template: bool = False, dirty: bool = False, lock: ProjectLock | None = None) -> None:
        """Replace the open project (its counts tables no longer needed are removed, its lock let
        go) with `project`."""
        self._forget_project_files()
        if lock is None or lock.path or path is None or os.path.abspath(path) != self.project_lock.path:
            self.project_lock.release()
            if lock is not None:
                self.project_lock = lock
        # (else the project opened again is the one this window holds the lock on: kept)
        self.document.replace(project, path, is_template=is_template, dirty=dirty)
        self._saved_counts = _counts_files(project)
        self._owned_counts = set(self._saved_counts)
        self._autosaved_generation = -1

    def report_missing_files(self) -> None:
        """Say which corpus files moved, and let the user point at their new place."""
        missing = self.document.project.missing_files()
        if missing:
            self.project_panel.show_missing(missing)

    def new_project(self) -> None:
        if not self.ask_to_keep_changes():
            return
        self._show_project(Project("Untitled"), None)

    # -- saving ------------------------------------------------------------------------------

    def save(self) -> bool:
        if self.document.path is None or self.document.is_template:
            return self.save_as()
        return self._write(self.document.path)

    def save_as(self) -> bool:
        suggested = self.document.path if self.document.path and not self.document.is_template else ""
        if not suggested:
            suggested = os.path.join(self._folder(), self.document.title + SUFFIX)
        path = self.prompts.save_project(suggested)
        if not path:
            return False
        if os.path.abspath(path) != self.project_lock.path:
            lock = ProjectLock()
            free, who = (True, "") if os.path.abspath(path) == self.project_lock.path else lock.acquire(path)
            if not free and not self.prompts.confirm(
                "The project is open elsewhere",
                f"{os.path.basename(path)} is open in another Tokenizer Workbench window ({who}). Saving here "
                "replaces it under that window.\n\nSave anyway?",
            ):
                return False
            if not self._write(path):
                lock.release()
                return False
            self.project_lock.release()
            self.project_lock = lock
            return True
        return self._write(path)

    def _write(self, path: str) -> bool:
        """Write the project to `path` on the writing thread (the window keeps drawing); the
        previous file is kept as `<path>.bak`. False, with a message, when it failed: the
        project stays open and unsaved, and nothing at `path` changed."""
        generation = self.document.generation
        members = self.document.project.snapshot(os.path.dirname(os.path.abspath(path)))
        self._set_busy(f"Saving {path}…")
        try:
            ok, answer = self.worker.wait(self.worker.start(partial(write_project, path, members)))
        finally:
            self._set_busy("")
        if not ok:
            self.prompts.warn(
                "The project was not saved",
                f"{answer}\n\nNothing was written at {path}; the project is still open with its changes. "
                "Choose another folder with File ▸ Save As, or free some space and save again.",
            )
            return False
        self.document.mark_saved(path, generation)
        self._saved_counts = _counts_files(self.document.project)
        self._owned_counts |= self._saved_counts
        self.settings.add_recent(path)
        # (the files of a project the user saved are theirs: its next opening does not ask)
        self.settings.add_known_files(self.document.corpus_paths())
        self.save_settings()
        if not self.document.dirty:
            self.recovery.remove()
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    def ask_to_keep_changes(self) -> bool:
        """Before the project is replaced or the window closes: False when the user cancels."""
        if not self.document.dirty:
            return True
        answer = self.prompts.save_changes(self.document.title)
        if answer == "save":
            return self.save()
        return answer == "discard"

    def save_settings(self) -> None:
        """Write the settings as they are now, on the writing thread (in order with the project's
        writes; closing the window waits for them)."""
        self._settings_writes.add(self.worker.start(self.settings.saver()))

    def _set_busy(self, text: str) -> None:
        """While a project is read or written: say so in the status bar."""
        self._state_label.setText(text if text else self.train_tab.resting_state())

    def _forget_project_files(self) -> None:
        """The open project is going: remove the word-counts tables this window made or its
        project named that the project file on disk does not name (undo could no longer bring
        back a result that needs them). Files the user made are never touched."""
        for path in sorted(self._owned_counts - self._saved_counts):
            try:
                os.remove(path)
            except OSError:
                pass
        self._owned_counts = set()
        self._saved_counts = set()

    def _on_document_files_added(self, paths: list[str]) -> None:
        self.settings.add_known_files(paths)
        self.save_settings()

    def _on_train_tab_counts_kept(self, path: str) -> None:
        self._owned_counts.add(os.path.abspath(path))

    # -- autosave and recovery ---------------------------------------------------------------

    def autosave(self) -> None:
        """Write the unsaved project to this window's recovery copy on the writing thread
        (nothing when it has no changes, or none since the last autosave)."""
        writing = self.worker.busy(besides=self._settings_writes)  # (a save, or the last autosave)
        if not self.document.dirty or self.document.generation == self._autosaved_generation or writing:
            return
        original = self.document.path if self.document.path is not None and not self.document.is_template else ""
        note = RecoveryNote(self.document.title, original, time.time(), os.getpid())
        folder = os.path.dirname(self.document.path) if self.document.path else str(self.recovery.folder)
        members = self.document.project.snapshot(folder)
        members.append((RECOVERY_NOTE, Part(note.to_bytes())))
        self._autosaving = (self.worker.start(partial(write_project, self.recovery.path, members, False)), self.document.generation)

    def _on_worker_finished(self, number: int, answer: object) -> None:
        self._settings_writes.discard(number)
        if number == self._autosaving[0]:
            self._autosaved_generation = self._autosaving[1]

    def _on_worker_failed(self, number: int, message: str) -> None:
        if number == self._autosaving[0]:
            self.statusBar().showMessage(f"Autosave failed: {message}", 10000)
        elif number in self._settings_writes:
            self._settings_writes.discard(number)
            self.statusBar().showMessage(f"The settings were not saved: {message}", 10000)

    def _on_project_panel_noted(self, text: str) -> None:
        # (an imported file's notes are long: shown until the next message, and kept in the
        # tokenizer's tooltip in the project panel)
        self.statusBar().showMessage(text)

    def offer_recovery(self) -> bool:
        """After a crash: offer back every autosaved copy no living window holds, newest first.
        True when one was restored. A copy that cannot be read is set aside (never deleted)."""
        for path, lock in orphaned_copies(self.recovery.folder):
            try:
                project, note = read_recovery(path)
            except Exception as error:  # noqa: BLE001 - a damaged copy must never stop the window from opening
                kept = set_aside(path)
                lock.unlock()
                reason = str(error) if isinstance(error, ProjectFileError) else f"{path}: {type(error).__name__}: {error}"
                self.prompts.warn(
                    "An autosaved project cannot be restored",
                    "Tokenizer Workbench did not close properly, and the copy of the unsaved work it autosaved "
                    f"cannot be read:\n{reason}\n\n"
                    + (f"It was kept as {kept}, in case you want to look at it; it is not offered again." if kept else ""),
                )
                continue
            trained = sum(1 for entry in project.tokenizers if entry.is_trained)
            choice = self.prompts.choose(
                "Restore unsaved work?",
                f"Tokenizer Workbench did not close properly. The project {note.describe()} has changes that were "
                f"never saved ({len(project.corpus)} corpus files, {len(project.tokenizers)} tokenizers, {trained} trained).\n\n"
                "Restore it now? Later keeps it for the next start; Discard deletes it.",
                ["Restore", "Later", "Discard"],
            )
            if choice == "Restore":
                original = note.path if note.path else None
                lock_file = ProjectLock()
                if original is not None:
                    lock_file.acquire(original)
                adopted = self.recovery.adopt(path)
                lock.unlock()
                self._show_project(project, original, dirty=True, lock=lock_file)
                if adopted:
                    # (the copy on disk is this state: it stays until the project is saved)
                    self._autosaved_generation = self.document.generation
                return True
            if choice == "Discard":
                try:
                    os.unlink(path)
                except OSError:
                    pass
            lock.unlock()
        return False

    # -- export ------------------------------------------------------------------------------

    def export_tokenizer_json(self) -> bool:
        """File ▸ Export ▸ Tokenizer (tokenizer.json), which keeps the whole pipeline."""
        return self.exporter.export_as(convert.HF)

    def export_as(self, kind: str) -> bool:
        """File ▸ Export ▸ a format of `convert.FORMATS` (`Exporter.export_as`)."""
        return self.exporter.export_as(kind)

    def update_export_actions(self) -> None:
        """The Export menu's formats, enabled where they can hold the active tokenizer."""
        self.exporter.update_actions(self.export_actions)

    # -- edit, view, help ----------------------------------------------------------------------

    def copy_selection(self) -> None:
        """Copy what is selected in the focused view: table rows as tab-separated lines."""
        widget = QApplication.focusWidget()
        if isinstance(widget, (QLineEdit, QPlainTextEdit)):
            widget.copy()
            return
        if isinstance(widget, QAbstractItemView):
            text = selected_text(widget)
            if text:
                QGuiApplication.clipboard().setText(text)

    def find_token(self) -> None:
        self.tabs.setCurrentWidget(self.vocab_tab)
        self.vocab_tab.focus_filter()

    def show_whitespace_glyphs(self, checked: bool) -> None:
        """View ▸ Show Whitespace Glyphs: in every tab, and kept in the settings."""
        self.settings.show_whitespace = bool(checked)
        self.save_settings()
        self.vocab_tab.set_whitespace_glyphs(self.settings.show_whitespace)
        self.train_tab.set_whitespace_glyphs(self.settings.show_whitespace)
        self.encode_tab.set_whitespace_glyphs(self.settings.show_whitespace)
        self.compare_tab.set_whitespace_glyphs(self.settings.show_whitespace)

    def change_font_size(self, delta: int) -> None:
        app = QApplication.instance()
        if not isinstance(app, QApplication):
            return
        if delta == 0:
            self.settings.font_size = 0
        else:
            current = self.settings.font_size or round(app.font().pointSizeF())
            self.settings.font_size = max(6, min(32, current + delta))
        self.save_settings()
        apply_appearance(self.settings)

    def set_theme(self, theme: str) -> None:
        self.settings.theme = theme
        self.save_settings()
        apply_appearance(self.settings)
        self.train_tab.apply_palette()
        self.audit_tab.apply_palette()

    def help_section(self) -> str:
        """The guide's section on the tab in front, at the page it shows (the guide's start while
        the window has no tab in front)."""
        current = self.tabs.currentWidget()
        for tab in (self.train_tab, self.vocab_tab, self.encode_tab, self.compare_tab, self.audit_tab):
            if tab is current:
                return tab.help_section()
        return START

    def show_guide(self) -> None:
        """Help ▸ User Guide (F1): the guide at the section on what the user is looking at."""
        self.show_guide_at(self.help_section())

    def show_shortcuts(self) -> None:
        """Help ▸ Keyboard Shortcuts: the guide's list of them, read from the menus."""
        self.show_guide_at(SHORTCUTS)

    def show_guide_at(self, section: str) -> None:
        """The user guide's window, in front, at the section `section` (made the first time)."""
        if self.guide is None:
            self.guide = GuideWindow(self.menuBar(), self)
        self.guide.show_section(section)

    def show_token(self, name: str, token_id: int) -> None:
        """Show token `token_id` of the project's tokenizer `name` in the Vocabulary tab (making
        it the active one)."""
        for index, entry in enumerate(self.document.project.tokenizers):
            if entry.name == name:
                self.document.set_active(index)
                self.tabs.setCurrentWidget(self.vocab_tab)
                self.vocab_tab.show_token_of(entry, token_id)
                return

    def about_text(self) -> str:
        build = "compiled with mypyc" if engine.COMPILED else "pure Python (not compiled)"
        return (
            f"<h3>{APP_TITLE} {engine.__version__}</h3>"
            "<p>Train, inspect and compare subword tokenizers.</p>"
            f"<p>Version {engine.__version__}: {build_info().describe()}<br>"
            f"Engine {engine.__version__}: {build}<br>"
            f"Qt {qVersion()} (PySide6 {pyside_version})<br>"
            f"Python {platform.python_version()} on {platform.system()}</p>"
        )

    def show_about(self) -> None:
        QMessageBox.about(self, f"About {APP_TITLE}", self.about_text())

    # -- state shown around the tabs -----------------------------------------------------------

    def _update_title(self) -> None:
        star = "*" if self.document.dirty else ""
        # (the title bar shows "Sample: Shakespeare* — Tokenizer Workbench": Qt appends the
        # application's display name on X11, Wayland and Windows)
        self.setWindowTitle(f"{self.document.title}{star}")

    def _on_document_dirty_changed(self, dirty: bool) -> None:
        self._update_title()

    def _on_document_changed(self) -> None:
        if not self.document.active_follows:
            self._on_document_active_changed()  # (a rename)

    def _on_document_active_changed(self) -> None:
        entry = self.document.active
        view = self.document.view()
        if entry is None:
            self._tokenizer_label.setText("no tokenizer")
            self._size_label.setText("")
        else:
            self._tokenizer_label.setText(entry.name)
            if view is not None and entry.is_trained:
                size = view.vocab_size if view.vocab_size >= 0 else (entry.result.vocab_size if entry.result is not None else 0)
                self._size_label.setText(f"vocabulary {size:,}" if size > 0 else "vocabulary …")
            elif entry.is_trained:
                self._size_label.setText("cannot be loaded")
            else:
                self._size_label.setText("not trained")
        self.menus.export_json.setEnabled(entry is not None and entry.is_trained)
        for kind, action in self.export_actions.items():
            # the formats are checked when the menu opens; until then, only "is it trained"
            action.setEnabled(entry is not None and entry.is_trained)
            action.setToolTip(convert.DESCRIPTIONS[kind])

    def _on_document_view_changed(self) -> None:
        self._on_document_active_changed()
        if self.menus.export.isVisible():
            self.update_export_actions()

    def _on_train_tab_state_changed(self, state: str) -> None:
        self._state_label.setText(state)

    def _folder(self) -> str:
        if self.document.path and not self.document.is_template:
            return os.path.dirname(self.document.path)
        return os.path.expanduser("~")

    # -- closing -----------------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        if self.train_tab.is_training() and not self.prompts.confirm(
            "Training is running", "Stop the training and close? The project keeps its last result."
        ):
            event.ignore()
            return
        if not self.ask_to_keep_changes():
            event.ignore()
            return
        self.shutdown()
        event.accept()

    def shutdown(self) -> None:
        """Stop every job, finish writing, and remove the recovery copy: the window is closing
        cleanly (the user saved, or chose to discard the changes)."""
        self._autosave.stop()
        self.train_tab.shutdown()
        self.audit_tab.shutdown()
        self.encoding_runner.shutdown()
        self.worker.wait_all()
        self._forget_project_files()
        self.recovery.remove()
        self.recovery.release()
        self.project_lock.release()


def selected_text(view: QAbstractItemView) -> str:
    """The selected cells of `view` as tab-separated rows, in row order."""
    model = view.model()
    rows: dict[int, dict[int, str]] = {}
    for index in view.selectedIndexes():
        rows.setdefault(index.row(), {})[index.column()] = str(model.data(index) or "")
    lines: list[str] = []
    for row in sorted(rows):
        cells = rows[row]
        lines.append("\t".join(cells[column] for column in sorted(cells)))
    return "\n".join(lines)


def _counts_files(project: Project) -> set[str]:
    """The word-counts tables the project's tokenizers name."""
    return {os.path.abspath(entry.counts_file) for entry in project.tokenizers if entry.counts_file}
