"""The window's menu bar: File (recent projects, export), Edit (undo, copy, find), View
(whitespace glyphs, font size, theme) and Help (the user guide, its list of shortcuts, About),
each action wired to what the window does.

The actions the window updates (export, undo and redo, whitespace glyphs) are kept here by name.
"""

from __future__ import annotations

import os
from typing import Final, Protocol

from PySide6.QtGui import QAction, QActionGroup, QKeySequence, QUndoStack
from PySide6.QtWidgets import QMainWindow, QMenu

from engine.formats import convert
from workbench.core.settings import Settings

# File ▸ Export's formats besides tokenizer.json, as the menu names them.
EXPORT_TITLES: Final = {
    convert.BERT_VOCAB: "BERT vocab.txt…",
    convert.GPT2: "GPT-2 vocab.json + merges.txt…",
    convert.SENTENCEPIECE: "SentencePiece .model…",
    convert.TIKTOKEN: "tiktoken .tiktoken…",
}


class Importer(Protocol):
    def import_tokenizer(self) -> None: ...


class Undoable(Protocol):
    @property
    def undo_stack(self) -> QUndoStack: ...


class MenuTarget(Protocol):
    """What the menus ask of the window (`MainWindow` is one): its settings, its undo stack,
    and one method per action. The menus never import the window."""

    @property
    def settings(self) -> Settings: ...
    @property
    def document(self) -> Undoable: ...
    @property
    def project_panel(self) -> Importer: ...
    def new_project(self) -> None: ...
    def choose_and_open(self) -> None: ...
    def open_recent(self, path: str) -> bool: ...
    def save(self) -> bool: ...
    def save_as(self) -> bool: ...
    def export_tokenizer_json(self) -> bool: ...
    def export_as(self, kind: str) -> bool: ...
    def update_export_actions(self) -> None: ...
    def copy_selection(self) -> None: ...
    def find_token(self) -> None: ...
    def show_whitespace_glyphs(self, checked: bool) -> None: ...
    def change_font_size(self, delta: int) -> None: ...
    def set_theme(self, theme: str) -> None: ...
    def show_guide(self) -> None: ...
    def show_shortcuts(self) -> None: ...
    def show_about(self) -> None: ...


class MenuBar:
    """The menus of `window`'s menu bar (`target` is the same window: what the actions call),
    built once."""

    def __init__(self, window: QMainWindow, target: MenuTarget) -> None:
        self._target = target
        self.recent = QMenu("Open &Recent", window)
        menu = window.menuBar().addMenu("&File")
        self._action(menu, "&New Project", target.new_project, QKeySequence.StandardKey.New)
        self._action(menu, "&Open…", target.choose_and_open, QKeySequence.StandardKey.Open)
        menu.addMenu(self.recent)
        self.recent.aboutToShow.connect(self.fill_recent)
        menu.addSeparator()
        self._action(menu, "&Save", target.save, QKeySequence.StandardKey.Save)
        self._action(menu, "Save &As…", target.save_as, QKeySequence.StandardKey.SaveAs)
        menu.addSeparator()
        self._action(menu, "&Import Tokenizer…", target.project_panel.import_tokenizer, "Ctrl+I")
        export = menu.addMenu("&Export")
        export.setToolTipsVisible(True)
        self.export = export
        self.export_json = self._action(export, "Tokenizer (tokenizer.json)…", target.export_tokenizer_json, "Ctrl+E")
        self.export_actions: dict[str, QAction] = {}
        for kind, title in EXPORT_TITLES.items():
            action = export.addAction(title)
            action.triggered.connect(lambda checked=False, kind=kind: target.export_as(kind))
            self.export_actions[kind] = action
        export.aboutToShow.connect(target.update_export_actions)
        menu.addSeparator()
        self._action(menu, "&Quit", window.close, QKeySequence.StandardKey.Quit)

        menu = window.menuBar().addMenu("&Edit")
        self.undo_action = target.document.undo_stack.createUndoAction(window, "&Undo")
        self.undo_action.setShortcuts(QKeySequence.StandardKey.Undo)
        self.redo_action = target.document.undo_stack.createRedoAction(window, "&Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        # (their text names the edit they undo; the list of shortcuts names them by their icon text)
        self.undo_action.setIconText("Undo")
        self.redo_action.setIconText("Redo")
        menu.addAction(self.undo_action)
        menu.addAction(self.redo_action)
        menu.addSeparator()
        self._action(menu, "&Copy", target.copy_selection, QKeySequence.StandardKey.Copy)
        self._action(menu, "&Find", target.find_token, QKeySequence.StandardKey.Find)

        menu = window.menuBar().addMenu("&View")
        glyphs = self._action(menu, "Show &Whitespace Glyphs", target.show_whitespace_glyphs, "Ctrl+Shift+W")
        glyphs.setCheckable(True)
        glyphs.setChecked(target.settings.show_whitespace)
        self.whitespace_action = glyphs
        size = menu.addMenu("&Font Size")
        self._action(size, "&Bigger", lambda: target.change_font_size(1), QKeySequence.StandardKey.ZoomIn)
        self._action(size, "&Smaller", lambda: target.change_font_size(-1), QKeySequence.StandardKey.ZoomOut)
        self._action(size, "&Reset", lambda: target.change_font_size(0), "Ctrl+0")
        theme = menu.addMenu("&Theme")
        group = QActionGroup(window)
        for key, title in (("system", "Follow the &System"), ("light", "&Light"), ("dark", "&Dark")):
            action = theme.addAction(title)
            action.setCheckable(True)
            action.setChecked(target.settings.theme == key)
            action.triggered.connect(lambda checked=False, key=key: target.set_theme(key))
            group.addAction(action)

        menu = window.menuBar().addMenu("&Help")
        # (F1, or the system's key for help: at the section of the tab in front)
        self.guide_action = self._action(menu, "&User Guide", target.show_guide, QKeySequence.StandardKey.HelpContents)
        self.shortcuts_action = self._action(menu, "&Keyboard Shortcuts", target.show_shortcuts)
        menu.addSeparator()
        self._action(menu, "&About Tokenizer Workbench", target.show_about)

    def _action(self, menu: QMenu, title: str, slot: object, shortcut: object = None) -> QAction:
        action = menu.addAction(title)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))  # type: ignore[call-overload]
        action.triggered.connect(slot)
        return action

    def fill_recent(self) -> None:
        """File ▸ Open Recent, filled as it opens: missing files shown, not offered."""
        self.recent.clear()
        if not self._target.settings.recent_projects:
            self.recent.addAction("No recent projects").setEnabled(False)
            return
        for path in self._target.settings.recent_projects:
            action = self.recent.addAction(path)
            if os.path.isfile(path):
                action.triggered.connect(lambda checked=False, path=path: self._target.open_recent(path))
            else:
                action.setText(f"{path} (missing)")
                action.setEnabled(False)
        self.recent.addSeparator()
        self.recent.addAction("Clear the List").triggered.connect(self.clear_recent)

    def clear_recent(self) -> None:
        self._target.settings.recent_projects = []
        self._target.settings.save()
