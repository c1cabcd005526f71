"""`ProjectDocument`: the open project, where it is saved, whether it changed, and the engine
objects the views draw (built once per tokenizer and cached).

Every change to the project goes through here, so that the title's `*`, the autosave and the
views follow it: views listen to `changed` (lists of files and tokenizers), `active_changed`
(the tokenizer every tab shows) and `dirty_changed`. No widgets here; the undo command is
`ProjectEdit` (`project_edit`) and what the tabs draw of the active tokenizer is an
`ActiveView` (`active_view`).
"""

from __future__ import annotations

import os
from typing import Final

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from engine import trainers
from engine.analysis.vocabulary import TokenStyle
from engine.corpus.checks import FileCheck
from engine.corpus.sources import DEFAULT_FIELD, CorpusSource
from engine.errors import EngineError
from engine.formats import convert
from engine.project.entry import TokenizerEntry
from engine.project.facts import CorpusFile
from engine.project.project_file import Project
from engine.project.result import TrainedResult
from engine.schema import JsonValue
from engine.trainers.base import Trainer
from workbench.core import presets
from workbench.core.formatting import short_size
from workbench.core.packed import VocabularyColumns
from workbench.jobs.children.files import imported
from workbench.jobs.children.training import inputs_with_fields
from workbench.jobs.runners.encoding import EncodingRunner
from workbench.window.active_view import ActiveView
from workbench.window.project_edit import ProjectEdit, ProjectState
from workbench.core.presets import Configuration

DEFAULT_VOCAB_SIZE = 8000
# How often a view is asked of the encoding process when the process stops while building it.
VIEW_ATTEMPTS: Final = 2
# How many edits Undo can go back (each may keep a replaced trained result alive).
UNDO_LIMIT: Final = 100


class ProjectDocument(QObject):
    """The open project and its state. `path` is None until it is saved; `is_template` marks a
    project opened from the shipped sample, which is never written in place.

    Every edit of the project is a `ProjectEdit` on `undo_stack` (Edit ▸ Undo, Ctrl+Z): the
    corpus files, the tokenizers, their names, settings and results. The project is dirty while
    the stack is away from where it was saved, or after a change that is not an edit (another
    active tokenizer, a file's check)."""

    changed = Signal()
    active_changed = Signal()
    dirty_changed = Signal(bool)
    path_changed = Signal()
    # the paths of corpus files the user just added
    files_added = Signal(list)
    # the active tokenizer's view was built (or failed): `view()` says what it is now
    view_changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project = Project()
        self.path: str | None = None
        self.is_template = False
        self._unsaved = False
        self._was_dirty = False
        # counts every change (edits, undo, redo, other changes): a save or an autosave knows
        # whether it wrote the project as it is now
        self.generation = 0
        self._view: ActiveView | None = None
        self._viewer: EncodingRunner | None = None
        # True while `changed` is emitted with `active_changed` to follow at once: a view that
        # redraws on both leaves the work to the second (storing a big result redrew twice)
        self.active_follows = False
        self.glyphs = True
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setUndoLimit(UNDO_LIMIT)
        self.undo_stack.cleanChanged.connect(self._on_undo_stack_clean_changed)

    # -- state -------------------------------------------------------------------------------

    @property
    def dirty(self) -> bool:
        return self._unsaved or not self.undo_stack.isClean()

    @property
    def title(self) -> str:
        """The project's name as the title bar shows it."""
        if self.path is not None and not self.is_template:
            return os.path.splitext(os.path.basename(self.path))[0]
        return self.project.name

    def mark_dirty(self) -> None:
        """A change that is not an undoable edit (another active tokenizer, a file checked)."""
        self.generation += 1
        self._unsaved = True
        self._tell_dirty()

    def mark_saved(self, path: str, generation: int | None = None) -> None:
        """The project was written to `path` as it was at `generation` (now, when None): clean
        if nothing changed since, else still dirty (the changes since are not in the file)."""
        self.path = os.path.abspath(path)
        self.is_template = False
        if generation is None or generation == self.generation:
            self._unsaved = False
            self.undo_stack.setClean()
        self._tell_dirty()
        self.path_changed.emit()

    def replace(self, project: Project, path: str | None, is_template: bool = False, dirty: bool = False) -> None:
        """Show another project (a new, opened or recovered one); the undo history starts again."""
        self.project = project
        self.path = os.path.abspath(path) if path is not None else None
        self.is_template = is_template
        self.undo_stack.clear()
        self.generation += 1
        self._unsaved = dirty
        self._view = None
        if self.project.active < 0 and self.project.tokenizers:
            self.project.active = 0
        self._tell_changes()
        self._was_dirty = not dirty  # (always tell)
        self._tell_dirty()
        self.path_changed.emit()

    def _tell_changes(self) -> None:
        """`changed`, then `active_changed`: the project and its active tokenizer both changed."""
        self.active_follows = True
        try:
            self.changed.emit()
        finally:
            self.active_follows = False
        self.active_changed.emit()

    def _on_undo_stack_clean_changed(self, clean: bool) -> None:
        self._tell_dirty()

    def _tell_dirty(self) -> None:
        dirty = self.dirty
        if dirty != self._was_dirty:
            self._was_dirty = dirty
            self.dirty_changed.emit(dirty)

    # -- edits and undo ----------------------------------------------------------------------

    def state(self) -> ProjectState:
        """What an edit can change, as it is now (see `ProjectState`)."""
        project = self.project
        return (
            project.name,
            [item.copy() for item in project.corpus],
            [(entry, entry.state()) for entry in project.tokenizers],
            project.active_entry,
        )

    def restore(self, state: ProjectState) -> None:
        """Put back a state `state()` gave (undo and redo)."""
        name, corpus, tokenizers, active = state
        project = self.project
        project.name = name
        project.corpus = [item.copy() for item in corpus]
        project.tokenizers = [entry for entry, _ in tokenizers]
        for entry, entry_state in tokenizers:
            entry.restore(entry_state)
        project.active = project.tokenizers.index(active) if active in project.tokenizers else (0 if project.tokenizers else -1)
        self.generation += 1
        self._view = None
        self._tell_changes()

    def _edited(self, text: str, before: ProjectState, merge_key: object = None) -> None:
        """Record an edit just made (the project was `before` it) and tell the views."""
        self.generation += 1
        self.undo_stack.push(ProjectEdit(self, text, before, merge_key))
        self._tell_dirty()

    # -- the active tokenizer ------------------------------------------------------------------

    @property
    def active(self) -> TokenizerEntry | None:
        return self.project.active_entry

    def set_active(self, index: int) -> None:
        if index != self.project.active and -1 <= index < len(self.project.tokenizers):
            self.project.active = index
            self._view = None
            self.active_changed.emit()
            self.mark_dirty()

    def set_viewer(self, service: EncodingRunner) -> None:
        """Build the views of trained tokenizers in `service`'s process from now on (without one,
        they are built here, as scripts and some tests do)."""
        self._viewer = service
        service.viewed.connect(self._on_viewer_viewed)
        service.history_read.connect(self._on_viewer_history_read)
        service.checked.connect(self._on_viewer_checked)
        service.failed.connect(self._on_viewer_failed)

    def view(self) -> ActiveView | None:
        """What the tabs draw of the active tokenizer (None when there is none, or it cannot be
        loaded). A trained tokenizer's view is built in the encoding process: until `ready`,
        the tabs say it is loading, and `view_changed` tells them when it is."""
        entry = self.active
        if entry is None:
            return None
        view = self._view
        if view is None or view.entry is not entry or view.result is not entry.result:
            view = ActiveView(entry)
            self._view = view
            self._start_view(view)
        if view.problem:
            return None
        return view

    def _start_view(self, view: ActiveView) -> None:
        result = view.entry.result
        if result is None:
            return
        viewer = self._viewer
        if viewer is None:
            try:
                view.build_here(self.glyphs)
            except EngineError as error:
                view.problem = str(error)
            return
        key = viewer.add_tokenizer(result.tokenizer_json)
        # (a history not parsed yet is drawn from what the encoding process makes of it)
        history = b""
        if result.parsed_report() is None and view.history is None:
            part = result.history_part()
            history = part.content if part is not None else b""
        view.request = viewer.view(key, result.vocabulary_data(), self.glyphs, view.table(self.glyphs) is None)
        view.history_ready = not history
        view.history_request = viewer.read_history(history) if history else 0
        view.export_request = viewer.check_exports(key)

    def _on_viewer_viewed(self, request: int, wire: object) -> None:
        view = self._view
        if view is None or view.request != request:
            return  # (a view no longer shown)
        try:
            view.fill(wire)
        except (KeyError, IndexError, TypeError, ValueError) as error:
            view.problem = f"its vocabulary could not be read ({error})"
        self.view_changed.emit()

    def _on_viewer_history_read(self, request: int, wire: object) -> None:
        view = self._view
        if view is None or view.history_request != request:
            return
        try:
            view.fill_history(wire)
        except (KeyError, IndexError, TypeError, ValueError) as error:
            view.history_problem = f"it could not be read ({error})"
            view.history_ready = True
        self.view_changed.emit()

    def _on_viewer_checked(self, request: int, reasons: object) -> None:
        view = self._view
        if view is None or view.export_request != request or not isinstance(reasons, dict):
            return
        view.export_reasons = dict(reasons)
        self.view_changed.emit()

    def _on_viewer_failed(self, request: int, message: str) -> None:
        view = self._view
        if view is None or (view.ready and view.history_ready):
            return
        if request == -1 and view.attempts < VIEW_ATTEMPTS:
            # the encoding process stopped (it starts again with the next request): what has
            # not arrived is asked for once more
            view.attempts += 1
            self._start_view(view)
            return
        told = False
        if not view.history_ready and request in (view.history_request, -1):
            view.history_problem = message
            view.history_ready = told = True
        if not view.ready and request in (view.request, -1):
            view.problem = message
            told = True
        if told:
            self.view_changed.emit()

    def set_glyphs(self, glyphs: bool) -> None:
        """Show whitespace as glyphs (·, →, ↵) or as spaces and escapes in the views."""
        if glyphs != self.glyphs:
            self.glyphs = glyphs
            self._view = None
            self.active_changed.emit()

    # -- corpus ------------------------------------------------------------------------------

    def corpus_paths(self) -> list[str]:
        return [item.path for item in self.project.corpus]

    def add_checked_files(self, checks: list[FileCheck]) -> None:
        """Add files that `engine.corpus.checks.check_file` looked at (a file already there is updated)."""
        before = self.state()
        known = {item.path: item for item in self.project.corpus}
        added = 0
        for check in checks:
            path = os.path.abspath(check.path)
            item = known.get(path)
            if item is None:
                item = CorpusFile(path)
                self.project.corpus.append(item)
                known[path] = item
                added += 1
            _take_check(item, check)
        self.changed.emit()
        names = os.path.basename(checks[0].path) if len(checks) == 1 else f"{len(checks)} files"
        self._edited(f"Add {names}" if added else f"Check {names} again", before)
        self.files_added.emit([os.path.abspath(check.path) for check in checks])

    def corpus_fields(self) -> dict[str, str]:
        """path -> text field of the corpus files read with another field than "text"
        (JSON Lines, Parquet/Arrow); what a training job and a re-check need."""
        fields: dict[str, str] = {}
        for item in self.project.corpus:
            if item.field != DEFAULT_FIELD and item.takes_field:
                fields[item.path] = item.field
        return fields

    def training_inputs(self) -> list[str | CorpusSource]:
        """The corpus files as a training reads them: a file with its own text field as its
        `CorpusSource` (as `TrainingJob.inputs` builds them in the training process)."""
        return inputs_with_fields(self.corpus_paths(), self.corpus_fields())

    def set_field(self, row: int, field: str) -> bool:
        """Read the records of corpus file `row` from `field` from now on; its check still says
        what it said, until `apply_field_check` brings the new one. False when nothing changed."""
        field = field.strip()
        if not field or not 0 <= row < len(self.project.corpus):
            return False
        item = self.project.corpus[row]
        if item.field == field or not item.takes_field:
            return False
        before = self.state()
        item.field = field
        self.changed.emit()
        self._edited(f"Read {item.name} from field “{field}”", before)
        return True

    def apply_field_check(self, path: str, field: str, check: FileCheck | None, error: str = "") -> bool:
        """The check of corpus file `path` read with `field` (`check` None and `error` the
        reason when it could not be read at all). Dropped (False) when the file is gone from
        the project or has another field by now. Not an edit: what the file is, found out."""
        item = next((item for item in self.project.corpus if item.path == os.path.abspath(path)), None)
        if item is None or item.field != field:
            return False
        if check is not None:
            _take_check(item, check)
        else:
            item.problem = error or "cannot be read"
        self.changed.emit()
        self.mark_dirty()
        return True

    def remove_files(self, rows: list[int]) -> None:
        rows = [row for row in sorted(set(rows), reverse=True) if 0 <= row < len(self.project.corpus)]
        if not rows:
            return
        before = self.state()
        names = self.project.corpus[rows[0]].name if len(rows) == 1 else f"{len(rows)} files"
        for row in rows:
            del self.project.corpus[row]
        self.changed.emit()
        self._edited(f"Remove {names}", before)

    def relocate_file(self, row: int, check: FileCheck) -> None:
        """A missing corpus file found elsewhere by the user."""
        before = self.state()
        item = self.project.corpus[row]
        item.path = os.path.abspath(check.path)
        _take_check(item, check)
        self.changed.emit()
        self._edited(f"Locate {item.name}", before)

    # -- tokenizers --------------------------------------------------------------------------

    def add_preset(self, key: str, vocab_size: int = DEFAULT_VOCAB_SIZE) -> TokenizerEntry:
        """A new, untrained tokenizer from a preset, made the active one."""
        chosen = presets.preset(key)
        tokenizer, trainer = presets.build(key, vocab_size)
        entry = TokenizerEntry(
            self.project.unique_name(f"{chosen.title} {short_size(vocab_size)}"),
            key,
            presets.pipeline_json(tokenizer),
            trainer.to_dict(),
        )
        return self._append(entry, f"New tokenizer “{entry.name}”")

    def import_tokenizer(self, path: str) -> TokenizerEntry:
        """A tokenizer read here from a file in any format `convert.load` reads (tokenizer.json,
        SentencePiece .model, .tiktoken, BERT vocab.txt, GPT-2 vocab.json + merges.txt);
        raises EngineError (naming the file) when it cannot be read. The window reads files in
        a child process (`workbench.jobs.children.files.load_main`) and calls `add_loaded`."""
        found = convert.load_noted(path)
        # (as the window keeps them: a vocab.txt's case is said when it is chosen, not kept)
        notes = found.notes if convert.detect(path) != convert.BERT_VOCAB else []
        return self.add_loaded(path, imported(found.tokenizer), notes)

    def add_loaded(
        self,
        path: str,
        loaded: tuple[str, dict[str, JsonValue], dict[str, JsonValue] | None, int],
        notes: list[str] | None = None,
    ) -> TokenizerEntry:
        """The tokenizer read from the file `path`, as `workbench.jobs.children.files.imported` gives it, as a new
        tokenizer of the project; `notes`: what the reading chose that the file does not say."""
        tokenizer_json, pipeline, trainer, size = loaded
        result = TrainedResult(tokenizer_json)
        result.vocab_size = size
        entry = TokenizerEntry(
            self.project.unique_name(os.path.basename(path)),
            "imported",
            pipeline,
            trainer,
            source=os.path.abspath(path),
            result=result,
            notes=list(notes) if notes is not None else [],
        )
        return self._append(entry, f"Import “{entry.name}”")

    def _append(self, entry: TokenizerEntry, text: str) -> TokenizerEntry:
        before = self.state()
        self.project.tokenizers.append(entry)
        self.project.active = len(self.project.tokenizers) - 1
        self._view = None
        self._tell_changes()
        self._edited(text, before)
        return entry

    def remove_tokenizer(self, index: int) -> None:
        if not 0 <= index < len(self.project.tokenizers):
            return
        before = self.state()
        removed = self.project.tokenizers.pop(index)
        active = self.project.active
        if active >= len(self.project.tokenizers) or active > index:
            active -= 1
        self.project.active = max(active, 0) if self.project.tokenizers else -1
        self._view = None
        self._tell_changes()
        self._edited(f"Remove “{removed.name}”", before)

    def rename_tokenizer(self, index: int, name: str) -> None:
        name = name.strip()
        if name and 0 <= index < len(self.project.tokenizers) and self.project.tokenizers[index].name != name:
            before = self.state()
            entry = self.project.tokenizers[index]
            old = entry.name
            entry.name = self.project.unique_name(name)
            self.changed.emit()
            self._edited(f"Rename “{old}” to “{entry.name}”", before)

    def set_configuration(self, pipeline: dict[str, JsonValue], trainer: dict[str, JsonValue]) -> None:
        """New settings for the active tokenizer; a result trained with other settings is dropped
        (undo brings it back). Consecutive edits of one tokenizer's settings undo as one."""
        entry = self.active
        if entry is None or (entry.pipeline == pipeline and entry.trainer == trainer):
            return
        before = self.state()
        entry.pipeline = pipeline
        entry.trainer = trainer
        if entry.is_trained:
            entry.forget_result()
            entry.source = ""
            entry.notes = []
        self._view = None
        self._tell_changes()
        self._edited(f"Change the settings of “{entry.name}”", before, merge_key=id(entry))

    def store_result(
        self,
        entry: TokenizerEntry,
        result: TrainedResult,
        configuration: Configuration | None = None,
        shown: tuple[VocabularyColumns, TokenStyle] | None = None,
        text: str = "",
    ) -> None:
        """A finished training's result (with the settings it was trained with), kept in the
        project as one undoable edit. `shown`: the vocabulary table and token style a training
        process built, used as they are (building them here would stall the window at the end
        of a big training)."""
        before = self.state()
        if configuration is not None:
            entry.pipeline, entry.trainer = configuration
        entry.source = ""
        entry.notes = []
        entry.result = result
        if entry is self.active:
            self._view = None
            if shown is not None:
                # (the table a training process built: the rest is asked of the encoding process)
                self._view = ActiveView(entry, shown[0], shown[1])
                self._start_view(self._view)
        self._tell_changes()
        self._edited(text or f"Train “{entry.name}”", before)

    def trainer_of(self, entry: TokenizerEntry) -> Trainer | None:
        if entry.trainer is None:
            return None
        try:
            return trainers.from_dict(entry.trainer)
        except EngineError:
            return None


def _take_check(item: CorpusFile, check: FileCheck) -> None:
    """What `check` found out about the file `item`, with its modification time now."""
    item.size, item.lines, item.sha256, item.problem = check.size, check.lines, check.sha256, check.problem
    try:
        item.mtime = os.stat(item.path).st_mtime
    except OSError:
        item.mtime = 0.0
