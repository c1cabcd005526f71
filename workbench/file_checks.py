"""Checking corpus files off the GUI thread: size, lines, checksum and UTF-8 validity.

`FileChecker.check(paths)` reads the files with `engine.corpus.check_file` on Qt's thread pool
and emits `checked(checks, errors)` on the GUI thread. A folder is searched for text files.
"""

from __future__ import annotations

import os
from typing import Final

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from engine.corpus import FileCheck, check_file
from engine.errors import CorpusError

# What a folder contributes: files with these endings (and files without an ending).
TEXT_SUFFIXES: Final = (".txt", ".text", ".md", ".rst", ".csv", ".tsv", ".json", ".jsonl", ".py", ".log", "")


def files_in(paths: list[str]) -> list[str]:
    """The files behind `paths`: a file as is, a folder's text files (recursively, sorted)."""
    found: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            for folder, subfolders, names in os.walk(path):
                subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
                for name in sorted(names):
                    if not name.startswith(".") and os.path.splitext(name)[1].lower() in TEXT_SUFFIXES:
                        found.append(os.path.join(folder, name))
        else:
            found.append(path)
    return found


class _Signals(QObject):
    done = Signal(list, list)


class _CheckJob(QRunnable):
    def __init__(self, paths: list[str], signals: _Signals) -> None:
        super().__init__()
        self.paths = paths
        self.signals = signals

    def run(self) -> None:
        checks: list[FileCheck] = []
        errors: list[str] = []
        for path in files_in(self.paths):
            try:
                checks.append(check_file(path))
            except CorpusError as error:
                errors.append(str(error))
        self.signals.done.emit(checks, errors)


class FileChecker(QObject):
    """Checks files in the background; `checked(list[FileCheck], list[str])` when done."""

    checked = Signal(list, list)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._signals = _Signals(self)
        self._signals.done.connect(self._on_job_done)
        self._pending = 0

    def check(self, paths: list[str]) -> None:
        self._pending += 1
        QThreadPool.globalInstance().start(_CheckJob(list(paths), self._signals))

    def is_busy(self) -> bool:
        return self._pending > 0

    def _on_job_done(self, checks: list[FileCheck], errors: list[str]) -> None:
        self._pending -= 1
        self.checked.emit(checks, errors)
