"""`ProjectEdit`: one undoable edit of the project, as `ProjectDocument` pushes it on its undo
stack, and `ProjectState`, everything an edit can change (what undo and redo swap).

Only the command: the document makes each edit, says what it was, and takes and restores
the state (`Restorable`); the command keeps the other side and swaps. No widgets here.
"""

from __future__ import annotations

from typing import Final, Protocol

from PySide6.QtGui import QUndoCommand

from engine.project.entry import EntryState, TokenizerEntry
from engine.project.facts import CorpusFile

# The undo command id of settings edits: consecutive edits of one tokenizer's settings are one step.
SETTINGS_EDIT: Final = 1


# Everything an edit can change, to put back (`ProjectDocument.state`): the project's name, copies
# of its corpus files, its tokenizers with their states (the entries themselves are kept, so views
# and jobs holding one still find it), and the active one.
ProjectState = tuple[str, list[CorpusFile], list[tuple[TokenizerEntry, EntryState]], TokenizerEntry | None]


class Restorable(Protocol):
    """What an edit asks of the document (`ProjectDocument` is one): the state as it is now,
    and to put back another. The edits never import the document."""

    def state(self) -> ProjectState: ...
    def restore(self, state: ProjectState) -> None: ...


class ProjectEdit(QUndoCommand):
    """One undoable edit of the project. It keeps the state on the other side of the edit and
    swaps it with the current one on undo and on redo, so that changes that are not edits (a
    file's check arriving late) survive an undo and a redo."""

    def __init__(self, document: Restorable, text: str, before: ProjectState, merge_key: object = None) -> None:
        super().__init__(text)
        self.document = document
        self.other = before
        self.merge_key = merge_key
        self._pushed = False

    def id(self) -> int:
        return SETTINGS_EDIT if self.merge_key is not None else -1

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt's name
        # subtle: a settings edit that follows one of the same tokenizer becomes part of it: the
        # state before the first is what undo goes back to.
        return isinstance(other, ProjectEdit) and other.merge_key is not None and other.merge_key == self.merge_key

    def redo(self) -> None:
        if not self._pushed:
            self._pushed = True  # QUndoStack.push runs redo() once: the edit is already made
            return
        self._swap()

    def undo(self) -> None:
        self._swap()

    def _swap(self) -> None:
        current = self.document.state()
        self.document.restore(self.other)
        self.other = current
