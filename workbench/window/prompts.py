"""Every question the window asks the user, in one injectable object.

The window never opens a dialog directly: it asks its `Prompts`. The real one shows Qt dialogs;
the tests give the window one that answers from a script, so no test ever waits on a dialog.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QWidget

from workbench.jobs.runners.file_checks import CORPUS_FILTER, files_in
from workbench.window.folder_dialog import FolderDialog

PROJECT_FILTER = "Tokenizer Workbench projects (*.tokproj)"
# Every file `engine.formats.convert.load` reads, together and one format at a time.
TOKENIZER_FILTER = (
    "Tokenizer files (*.json *.model *.tiktoken *.txt);;"
    "HF tokenizer.json (*.json);;"
    "SentencePiece model (*.model);;"
    "tiktoken ranks (*.tiktoken);;"
    "BERT vocab.txt (*.txt);;"
    "GPT-2 vocab.json + merges.txt (*.json *.txt);;"
    "All files (*)"
)
# What the save dialog of each export format offers (keys: `convert.FORMATS`).
EXPORT_FILTERS = {
    "hf": "HF tokenizer.json (*.json);;All files (*)",
    "sentencepiece": "SentencePiece model (*.model);;All files (*)",
    "tiktoken": "tiktoken ranks (*.tiktoken);;All files (*)",
    "bert-vocab": "BERT vocab.txt (*.txt);;All files (*)",
    "gpt2": "GPT-2 vocab.json, merges.txt beside it (*.json);;All files (*)",
}


class Prompts:
    """Qt dialogs, parented to `parent`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        self.parent = parent

    def save_changes(self, name: str) -> str:
        """"save", "discard" or "cancel" for unsaved changes to project `name`."""
        answer = QMessageBox.question(
            self.parent,
            "Unsaved changes",
            f"Save the changes to “{name}” first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return "save"
        if answer == QMessageBox.StandardButton.Discard:
            return "discard"
        return "cancel"

    def confirm(self, title: str, text: str) -> bool:
        box = self.box("confirm", title, text)
        return box.exec() == QMessageBox.StandardButton.Yes

    def warn(self, title: str, text: str) -> None:
        self.box("warn", title, text).exec()

    def choose(self, title: str, text: str, choices: list[str]) -> str:
        """One of `choices` (the buttons' texts, the first the default), or "" when the dialog
        is closed without one."""
        box = self.box("choose", title, text, choices)
        box.exec()
        clicked = box.clickedButton()
        for button in box.buttons():
            if clicked is button:
                return button.text()
        return ""

    def box(self, kind: str, title: str, text: str, choices: list[str] | None = None) -> QMessageBox:
        """The dialog a question of `kind` ("confirm", "warn", "inform", "choose") shows, not
        yet shown: what the questions run, and what the screenshots draw."""
        icons = {"confirm": QMessageBox.Icon.Question, "choose": QMessageBox.Icon.Question, "warn": QMessageBox.Icon.Warning}
        box = QMessageBox(icons.get(kind, QMessageBox.Icon.Information), title, text, QMessageBox.StandardButton.NoButton, self.parent)
        if kind == "confirm":
            box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
            box.setDefaultButton(QMessageBox.StandardButton.Yes)
        elif kind == "choose":
            buttons = [box.addButton(choice, QMessageBox.ButtonRole.ActionRole) for choice in choices or []]
            if buttons:
                box.setDefaultButton(buttons[0])
        else:
            box.setStandardButtons(QMessageBox.StandardButton.Ok)
        if kind == "report":
            box.setTextFormat(Qt.TextFormat.RichText)
            box.setText(report_html(text))
            box.setStyleSheet("QLabel#qt_msgbox_label { min-width: 640px; }")
        return box

    def inform(self, title: str, text: str) -> None:
        self.box("inform", title, text).exec()

    def report(self, title: str, text: str) -> None:
        """A result to read (an export's certificate): paragraphs, and indented lines (tokens
        and ids side by side) kept aligned in a fixed-width font."""
        self.box("report", title, text).exec()

    def open_project(self, folder: str = "") -> str | None:
        path, _ = QFileDialog.getOpenFileName(
            self.parent, "Open project or tokenizer", folder, f"{PROJECT_FILTER};;{TOKENIZER_FILTER}"
        )
        return path or None

    def save_project(self, suggested: str) -> str | None:
        path, _ = QFileDialog.getSaveFileName(self.parent, "Save project", suggested, PROJECT_FILTER)
        if path and not path.endswith(".tokproj"):
            path += ".tokproj"
        return path or None

    def corpus_files(self, folder: str = "", title: str = "Add corpus files") -> list[str]:
        paths, _ = QFileDialog.getOpenFileNames(self.parent, title, folder, CORPUS_FILTER)
        return list(paths)

    def corpus_folder(self, folder: str = "", title: str = "Add a folder of corpus files") -> str | None:
        path = QFileDialog.getExistingDirectory(self.parent, title, folder)
        return path or None

    def folder_files(self, folder: str) -> list[str] | None:
        """Which files of `folder` to add to the corpus (the Add Folder dialog's globs); None
        when cancelled."""
        dialog = FolderDialog(folder, self.parent)
        if dialog.exec() != FolderDialog.DialogCode.Accepted:
            return None
        return dialog.files()

    def tokenizer_file(self, folder: str = "") -> str | None:
        path, _ = QFileDialog.getOpenFileName(self.parent, "Import tokenizer", folder, TOKENIZER_FILTER)
        return path or None

    def export_file(self, suggested: str, file_filter: str) -> str | None:
        path, _ = QFileDialog.getSaveFileName(self.parent, "Export", suggested, file_filter)
        return path or None

    def locate(self, name: str, folder: str = "") -> str | None:
        path, _ = QFileDialog.getOpenFileName(self.parent, f"Where is {name}?", folder, "All files (*)")
        return path or None

    def text(self, title: str, label: str, value: str) -> str | None:
        text, ok = QInputDialog.getText(self.parent, title, label, text=value)
        return text if ok else None


def report_html(text: str) -> str:
    """`Prompts.report`'s text as rich text: each run of lines indented by four spaces or more
    in a <pre> block, the other lines as they are (escaped), paragraphs kept apart.

    "a\n    1 x\n    2 y\nb" -> "a<pre ...>1 x\n2 y</pre>b"
    """
    parts: list[str] = []
    block: list[str] = []
    previous_text = False
    for line in text.split("\n") + [""]:
        if line.startswith("    "):
            block.append(html.escape(line[4:]))
            continue
        if block:
            parts.append("<pre style='margin: 0 0 0 1em'>" + "\n".join(block) + "</pre>")
            block = []
            previous_text = False
        # (a run of spaces, as in an excerpt of "   ", is not collapsed)
        parts.append(("<br>" if previous_text else "") + html.escape(line).replace("  ", "&nbsp; "))
        previous_text = True
    return "".join(parts)


class ScriptedPrompts(Prompts):
    """Answers from a script instead of dialogs, and remembers what was asked: for tests and the
    offscreen screenshots. Unscripted questions get a safe answer (cancel, no, nothing chosen)."""

    def __init__(self, **answers: object) -> None:
        super().__init__(None)
        self.answers: dict[str, object] = dict(answers)
        self.asked: list[tuple[str, str]] = []
        # every message box asked for: (kind, title, text, choices), to draw them (screenshots)
        self.dialogs: list[tuple[str, str, str, list[str]]] = []

    def _answer(self, kind: str, detail: str, default: object) -> object:
        self.asked.append((kind, detail))
        queued = self.answers.get(kind, default)
        if isinstance(queued, list) and kind not in ("corpus_files",):
            return queued.pop(0) if queued else default
        return queued

    def save_changes(self, name: str) -> str:
        return str(self._answer("save_changes", name, "cancel"))

    def confirm(self, title: str, text: str) -> bool:
        self.dialogs.append(("confirm", title, text, []))
        return bool(self._answer("confirm", f"{title}: {text}", False))

    def warn(self, title: str, text: str) -> None:
        self.dialogs.append(("warn", title, text, []))
        self._answer("warn", f"{title}: {text}", None)

    def choose(self, title: str, text: str, choices: list[str]) -> str:
        """Scripted: the queued answer (a choice's text); unscripted, "" (closed)."""
        self.dialogs.append(("choose", title, text, list(choices)))
        return str(self._answer("choose", f"{title}: {text}", ""))

    def inform(self, title: str, text: str) -> None:
        self.dialogs.append(("inform", title, text, []))
        self._answer("inform", f"{title}: {text}", None)

    def report(self, title: str, text: str) -> None:
        self.dialogs.append(("report", title, text, []))
        self._answer("report", f"{title}: {text}", None)

    def open_project(self, folder: str = "") -> str | None:
        return _path(self._answer("open_project", folder, None))

    def save_project(self, suggested: str) -> str | None:
        return _path(self._answer("save_project", suggested, None))

    def corpus_files(self, folder: str = "", title: str = "Add corpus files") -> list[str]:
        found = self._answer("corpus_files", folder, [])
        return [str(item) for item in found] if isinstance(found, list) else []

    def corpus_folder(self, folder: str = "", title: str = "Add a folder of corpus files") -> str | None:
        return _path(self._answer("corpus_folder", folder, None))

    def folder_files(self, folder: str) -> list[str] | None:
        """Scripted: a dict of the dialog's choice ("include", "exclude": lists of globs,
        "corpus_only"), or None to cancel; unscripted, the dialog's defaults accepted."""
        choice = self._answer("folder_files", folder, {})
        if not isinstance(choice, dict):
            return None
        return files_in(
            [folder], list(choice.get("include", [])), list(choice.get("exclude", [])), bool(choice.get("corpus_only", True))
        )

    def tokenizer_file(self, folder: str = "") -> str | None:
        return _path(self._answer("tokenizer_file", folder, None))

    def export_file(self, suggested: str, file_filter: str) -> str | None:
        return _path(self._answer("export_file", suggested, None))

    def locate(self, name: str, folder: str = "") -> str | None:
        return _path(self._answer("locate", name, None))

    def text(self, title: str, label: str, value: str) -> str | None:
        return _path(self._answer("text", title, None))

    def questions(self, kind: str) -> list[str]:
        return [detail for asked, detail in self.asked if asked == kind]


def _path(value: object) -> str | None:
    return None if value is None else str(value)
