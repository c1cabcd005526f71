"""`ProjectPanel`, the left dock: the corpus files (added by button or drag and drop, checked
in the background; the text field of JSON Lines and Parquet/Arrow files chosen in place) and
the tokenizers (from presets, or imported), one of them active.

A preset the engine cannot train yet is listed, disabled, with the reason. Widgets only: the
project changes through `ProjectDocument`; the corpus table's model, Field editor and view are
`corpus_table`, and what the panel says about the files is `workbench.core.corpus_text`.
"""

from __future__ import annotations

import os
from typing import Final

from PySide6.QtCore import QPoint, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.corpus.checks import FileCheck, check_file
from engine.errors import CorpusError
from engine.project.entry import TokenizerEntry
from engine.project.facts import CorpusFile
from engine.schema import JsonValue
from workbench.core import presets
from workbench.core.corpus_text import corpus_problems
from workbench.core.formatting import ERROR_STYLE, human_size
from workbench.jobs.children.files import load_main, load_payload
from workbench.jobs.runners.child_job import ChildJob
from workbench.jobs.runners.file_checks import FileChecker
from workbench.window.corpus_table import (
    CHECK_COLUMN,
    FIELD_COLUMN,
    FILE_COLUMN,
    LINES_COLUMN,
    SIZE_COLUMN,
    CorpusModel,
    CorpusView,
    FieldDelegate,
)
from workbench.window.document import ProjectDocument
from workbench.window.prompts import Prompts

# While the Field column shows, the corpus table keeps room for about this many letters of a name.
FILE_NAME_CHARS: Final = 16


# An imported tokenizer's list entry and the notes of its reading, one a line.
Loaded = tuple[tuple[str, dict[str, JsonValue], dict[str, JsonValue] | None, int], list[str]]


class ProjectPanel(QWidget):
    """Corpus files and tokenizers of the open project."""

    # what the reading of an imported tokenizer file chose that the file does not say, as one
    # line ("cl100k_base.tiktoken: recognized as OpenAI's cl100k_base by its SHA-256: ..."),
    # for the status bar
    noted = Signal(str)

    def __init__(self, document: ProjectDocument, prompts: Prompts, checker: FileChecker) -> None:
        super().__init__()
        self.document = document
        self.prompts = prompts
        self.checker = checker
        # reads the tokenizer files the user imports, in a child process
        self._loader = ChildJob("import", self)
        checker.checked.connect(self._on_checker_checked)
        checker.field_checked.connect(self._on_checker_field_checked)

        self.corpus_model = CorpusModel(document)
        # subtle: queued, so the editor that chose the field is closed before the model resets
        self.corpus_model.field_chosen.connect(self.set_field, Qt.ConnectionType.QueuedConnection)
        self.corpus_view = CorpusView()
        self.corpus_view.setModel(self.corpus_model)
        self.field_delegate = FieldDelegate(self)
        self.field_delegate.failed.connect(self._on_field_delegate_failed)
        self.corpus_view.setItemDelegateForColumn(FIELD_COLUMN, self.field_delegate)
        self.corpus_view.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        self.corpus_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.corpus_view.verticalHeader().hide()
        # one line a file, its name shortened in the middle: the kind (".jsonl.gz") stays in sight
        self.corpus_view.setWordWrap(False)
        self.corpus_view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.corpus_view.horizontalHeader().setSectionResizeMode(FILE_COLUMN, QHeaderView.ResizeMode.Stretch)
        for column in (FIELD_COLUMN, SIZE_COLUMN, LINES_COLUMN, CHECK_COLUMN):
            self.corpus_view.horizontalHeader().setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.corpus_view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.corpus_view.customContextMenuRequested.connect(self._on_corpus_view_menu)
        self.corpus_view.dropped.connect(self.add_dropped)
        # the corpus status: what the last action did (`_note`, about the file `_note_path` when
        # it names one), then the problems the project's files have now, drawn from the project
        self.corpus_status = QLabel()
        self.corpus_status.setWordWrap(True)
        self._note = ""
        self._note_error = False
        self._note_path = ""
        self._project = document.project

        add_files = QPushButton("Add Files…")
        add_files.clicked.connect(self.choose_files)
        add_folder = QPushButton("Add Folder…")
        add_folder.clicked.connect(self.choose_folder)
        self.remove_files_button = QPushButton("Remove")
        self.remove_files_button.clicked.connect(self.remove_selected_files)

        self.tokenizer_list = QListWidget()
        self.tokenizer_list.setIconSize(QSize(0, 0))
        self.tokenizer_list.currentRowChanged.connect(self._on_tokenizer_list_row_changed)
        self.tokenizer_list.itemDoubleClicked.connect(self._on_tokenizer_list_double_clicked)
        self.new_button = QToolButton()
        self.new_button.setText("New From Preset")
        self.new_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.preset_menu = QMenu(self)
        for item in presets.PRESETS:
            action = self.preset_menu.addAction(item.title if item.available else f"{item.title} — not yet available")
            action.setToolTip(item.description if item.available else item.reason)
            action.setStatusTip(item.description if item.available else item.reason)
            action.setEnabled(item.available)
            action.triggered.connect(lambda checked=False, key=item.key: self.add_preset(key))
        self.preset_menu.setToolTipsVisible(True)
        self.new_button.setMenu(self.preset_menu)
        import_button = QPushButton("Import…")
        import_button.clicked.connect(self.import_tokenizer)
        self.remove_tokenizer_button = QPushButton("Remove")
        self.remove_tokenizer_button.clicked.connect(self.remove_active_tokenizer)

        layout = QVBoxLayout(self)
        layout.addWidget(_heading("Corpus"))
        layout.addWidget(self.corpus_view, 3)
        row = QHBoxLayout()
        for button in (add_files, add_folder, self.remove_files_button):
            row.addWidget(button)
        layout.addLayout(row)
        layout.addWidget(self.corpus_status)
        layout.addWidget(_heading("Tokenizers"))
        layout.addWidget(self.tokenizer_list, 2)
        row = QHBoxLayout()
        row.addWidget(self.new_button)
        row.addWidget(import_button)
        row.addWidget(self.remove_tokenizer_button)
        layout.addLayout(row)

        document.changed.connect(self._on_document_changed)
        document.changed.connect(self._on_document_changed_status)
        document.active_changed.connect(self._show_tokenizers)
        self._show_tokenizers()
        self._show_status()

    # -- corpus ------------------------------------------------------------------------------

    def choose_files(self) -> None:
        paths = self.prompts.corpus_files(self._folder())
        if paths:
            self.add_paths(paths)

    def choose_folder(self) -> None:
        path = self.prompts.corpus_folder(self._folder())
        if path:
            self.add_dropped([path])

    def add_dropped(self, paths: list[str]) -> None:
        """Add files as they are and, for each folder, the files chosen in the Add Folder
        dialog (its globs); a cancelled dialog adds nothing of that folder."""
        files: list[str] = []
        for path in paths:
            if not os.path.isdir(path):
                files.append(path)
                continue
            chosen = self.prompts.folder_files(path)
            if chosen:
                files.extend(chosen)
        if files:
            self.add_paths(files)

    def add_paths(self, paths: list[str]) -> None:
        """Check the files (in the background) and add them; folders add their corpus files
        (text, also compressed; JSON Lines; Parquet/Arrow; word-count tables)."""
        self._say(f"Checking {len(paths)} item{'s' if len(paths) != 1 else ''}…")
        # a file added again is checked with the field it has
        self.checker.check(paths, self.document.corpus_fields())

    def _on_checker_checked(self, checks: list[FileCheck], errors: list[str]) -> None:
        if checks:
            self.document.add_checked_files(checks)
        # (the problems of the files added are the project's now: `corpus_problems` lists them)
        if errors:
            self._say("\n".join(errors), error=True)
        elif not checks:
            self._say("No corpus files found there (text, .jsonl, .parquet, .tsv, also .gz/.bz2/.xz/.zst).", error=True)
        else:
            self._say(f"Added {len(checks)} file{'s' if len(checks) != 1 else ''}.")

    def set_field(self, row: int, field: str) -> None:
        """Read the records of corpus file `row` from `field`, and check the file again with it
        (in the background; its Check cell says "checking…" meanwhile)."""
        if not self.document.set_field(row, field):
            return
        item = self.document.project.corpus[row]
        self.corpus_model.checking[item.path] = item.field
        self.corpus_model.refresh()
        self._say(f"Checking {item.name} with the field “{item.field}”…", path=item.path)
        self.checker.check_field(item.path, item.field)

    def choose_field(self, row: int) -> None:
        """Open the Field cell's list of fields for corpus file `row`."""
        self.corpus_view.edit(self.corpus_model.index(row, FIELD_COLUMN))

    def _on_checker_field_checked(self, path: str, field: str, check: FileCheck | None, error: str) -> None:
        if self.corpus_model.checking.get(path) == field:
            del self.corpus_model.checking[path]
        if not self.document.apply_field_check(path, field, check, error):
            self.corpus_model.refresh()
            self._show_status()
            return  # the field was changed again meanwhile, or the file removed
        name = os.path.basename(path)
        if check is not None and not check.problem:
            records = f": {check.lines:,} records" if check.lines else ""
            self._say(f"{name} is read from the field “{field}”{records}.", path=os.path.abspath(path))
        else:
            self._say("")  # (its problem is the file's now: listed below)

    def _on_field_delegate_failed(self, reason: str) -> None:
        self._say(reason, error=True)

    # -- the corpus status -----------------------------------------------------------------------

    def _say(self, note: str, error: bool = False, path: str = "") -> None:
        self._note, self._note_error, self._note_path = note, error, path
        self._show_status()

    def _show_status(self) -> None:
        problems = corpus_problems(self.document.project.corpus, set(self.corpus_model.checking))
        lines = ([self._note] if self._note else []) + problems
        self.corpus_status.setText("\n".join(lines))
        self.corpus_status.setStyleSheet(ERROR_STYLE if problems or self._note_error else "")

    def _on_document_changed_status(self) -> None:
        """Problems follow the project: a file removed, relocated or checked again takes its
        problem with it, and another project starts with no note."""
        project = self.document.project
        if project is not self._project:
            self._project = project
            self._note, self._note_error, self._note_path = "", False, ""
        elif self._note_path and self._note_path not in {item.path for item in project.corpus}:
            self._note, self._note_error, self._note_path = "", False, ""
        self._show_status()

    def remove_selected_files(self) -> None:
        rows = sorted({index.row() for index in self.corpus_view.selectionModel().selectedRows()})
        if rows:
            self.document.remove_files(rows)

    def show_missing(self, missing: list[CorpusFile]) -> None:
        """Say which corpus files are missing (they are listed while they are)."""
        self._show_status()

    def locate(self, row: int) -> None:
        item = self.document.project.corpus[row]
        path = self.prompts.locate(item.name, os.path.dirname(item.path))
        if not path:
            return
        try:
            check = check_file(path, item.field)
        except CorpusError as error:
            self.prompts.warn("That file cannot be used", str(error))
            return
        if item.sha256 and check.sha256 != item.sha256:
            if not self.prompts.confirm(
                "A different file?",
                f"{os.path.basename(path)} is not the file the project knew ({item.name}, {human_size(item.size)}): "
                "its contents differ. Use it anyway?",
            ):
                return
        name = item.name
        self.document.relocate_file(row, check)
        self._say(f"{name} is now {path}.", path=item.path)

    def _on_corpus_view_menu(self, position: QPoint) -> None:
        # subtle: an item view reports the position in its viewport's coordinates.
        index = self.corpus_view.indexAt(position)
        menu = QMenu(self)
        if index.isValid():
            row = index.row()
            locate = menu.addAction("Locate…")
            locate.triggered.connect(lambda: self.locate(row))
            if self.document.project.corpus[row].takes_field:
                field = menu.addAction("Text Field…")
                field.setStatusTip("Choose which field of each record is trained on")
                field.triggered.connect(lambda: self.choose_field(row))
            remove = menu.addAction("Remove")
            remove.triggered.connect(self.remove_selected_files)
        menu.addAction("Add Files…").triggered.connect(self.choose_files)
        menu.exec(self.corpus_view.viewport().mapToGlobal(position))

    # -- tokenizers --------------------------------------------------------------------------

    def add_preset(self, key: str) -> None:
        self.document.add_preset(key)

    def import_tokenizer(self) -> None:
        """Read a tokenizer file the user chooses (in a child process: the window draws
        meanwhile) and add it to the project."""
        path = self.prompts.tokenizer_file(self._folder())
        if not path:
            return
        loaded = self.read_tokenizer(path, "The tokenizer cannot be imported")
        if loaded is not None:
            self.add_read(path, loaded)

    def add_read(self, path: str, loaded: Loaded) -> None:
        """The tokenizer `read_tokenizer` read from `path` added to the project (made the active
        one), its notes said in the status bar (`noted`) and kept in its entry's tooltip."""
        self.document.add_loaded(path, loaded[0], loaded[1])
        if loaded[1]:
            self.noted.emit(f"{os.path.basename(path)}: {'; '.join(loaded[1])}")

    def read_tokenizer(self, path: str, failure: str = "", hint: str = "") -> Loaded | None:
        """The tokenizer file `path` read in a child process, as `add_read` takes it: its entry
        and the notes of its reading (a .tiktoken file's pattern and special tokens); None when it
        cannot be read (said, under the title `failure` and with `hint` after the reason, unless
        `failure` is "").

        A BERT vocab.txt does not say whether its model lowercases the text: what its tokens
        show is chosen, said, and the user may read it the other way (its note is said then, in
        the question, and not kept)."""
        ok, loaded = self._loader.run(load_main, load_payload(path))
        if ok and isinstance(loaded, tuple) and loaded[5] is not None:
            lowercase = bool(loaded[5])
            other = "Read It as Cased" if lowercase else "Read It as Uncased"
            choice = self.prompts.choose(
                "Cased or uncased?",
                f"{os.path.basename(path)}: {loaded[4][0]}.\n\nA vocab.txt does not say whether its model "
                "lowercases the text before it looks tokens up; its tokens tell: a cased model has tokens "
                f"with capitals. It was read as {'uncased (lowercasing)' if lowercase else 'cased (text kept as typed)'}.",
                ["Keep It", other],
            )
            if choice == other:
                ok, loaded = self._loader.run(load_main, load_payload(path, not lowercase))
        if not ok or not isinstance(loaded, tuple):
            if failure:
                self.prompts.warn(failure, f"{loaded}{hint}")
            return None
        notes = [str(note) for note in loaded[4]] if loaded[5] is None else []
        return (loaded[0], loaded[1], loaded[2], int(loaded[3])), notes

    def remove_active_tokenizer(self) -> None:
        entry = self.document.active
        if entry is None:
            return
        if entry.is_trained and not self.prompts.confirm("Remove tokenizer", f"Remove “{entry.name}” and its trained result?"):
            return
        self.document.remove_tokenizer(self.document.project.active)

    def _on_tokenizer_list_row_changed(self, row: int) -> None:
        if row >= 0:
            self.document.set_active(row)

    def _on_tokenizer_list_double_clicked(self, item: QListWidgetItem) -> None:
        row = self.tokenizer_list.row(item)
        entry = self.document.project.tokenizers[row]
        name = self.prompts.text("Rename tokenizer", "Name:", entry.name)
        if name:
            self.document.rename_tokenizer(row, name)

    def _on_document_changed(self) -> None:
        if not self.document.active_follows:
            self._show_tokenizers()

    def _show_tokenizers(self) -> None:
        """The project's tokenizers, each with its state, and the buttons that act on them."""
        project = self.document.project
        self.tokenizer_list.blockSignals(True)
        self.tokenizer_list.clear()
        for entry in project.tokenizers:
            if entry.is_trained:
                size = _trained_size(entry)
                state = f"trained{f', {size:,} tokens' if size else ''}" if entry.preset != "imported" else "imported"
            else:
                state = "not trained"
            item = QListWidgetItem(f"{entry.name}\n    {state}")
            item.setToolTip("\n".join([entry.source or entry.name, *entry.notes]))
            self.tokenizer_list.addItem(item)
        self.tokenizer_list.setCurrentRow(project.active)
        self.tokenizer_list.blockSignals(False)
        self.remove_tokenizer_button.setEnabled(project.active >= 0)
        self.remove_files_button.setEnabled(bool(project.corpus))
        self._show_field_column(self.corpus_model.has_fields())

    def _show_field_column(self, shown: bool) -> None:
        """The Field column only while a file has a field; the table then keeps room for
        FILE_NAME_CHARS of a file's name beside it (the dock widens once, if it must)."""
        view = self.corpus_view
        view.setColumnHidden(FIELD_COLUMN, not shown)
        if not shown:
            view.setMinimumWidth(0)
            return
        header = view.horizontalHeader()
        columns = 0
        for column in (FIELD_COLUMN, SIZE_COLUMN, LINES_COLUMN, CHECK_COLUMN):
            columns += max(header.sectionSizeHint(column), view.sizeHintForColumn(column))
        name = view.fontMetrics().averageCharWidth() * FILE_NAME_CHARS
        frame = 2 * view.frameWidth() + view.verticalScrollBar().sizeHint().width()
        view.setMinimumWidth(columns + name + frame)

    def _folder(self) -> str:
        corpus = self.document.project.corpus
        if corpus:
            return os.path.dirname(corpus[-1].path)
        if self.document.path and not self.document.is_template:
            return os.path.dirname(self.document.path)
        return os.path.expanduser("~")



def _heading(text: str) -> QLabel:
    label = QLabel(text)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    return label


def _trained_size(entry: TokenizerEntry) -> int:
    """The size of its trained vocabulary as far as it is known without parsing anything (0
    when not known): a project with five trained tokenizers opens without reading their
    histories."""
    return entry.result.size() if entry.result is not None else 0
