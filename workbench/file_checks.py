"""Checking corpus files off the GUI thread: size, lines, checksum and UTF-8 validity.

`FileChecker.check(paths)` reads the files with `engine.corpus.check_file` on Qt's thread pool
and emits `checked(checks, errors)` on the GUI thread. A folder is searched for corpus files:
text (also compressed), JSON Lines, Parquet/Arrow, word-count tables.
"""

from __future__ import annotations

import os
from typing import Final

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from engine.corpus import FileCheck, check_file
from engine.errors import CorpusError

# What a folder contributes: files with these endings (and files without an ending), also
# compressed (COMPRESSED_SUFFIXES after one of them: "a.txt.gz", "b.jsonl.zst").
TEXT_SUFFIXES: Final = (
    ".txt", ".text", ".md", ".rst", ".csv", ".tsv", ".json", ".jsonl", ".py", ".log", "",
    ".parquet", ".arrow", ".feather",
)  # fmt: skip
COMPRESSED_SUFFIXES: Final = (".gz", ".bz2", ".xz", ".zst")
# The Add Files dialog's filter.
CORPUS_FILTER: Final = (
    "Corpus files (*.txt *.text *.md *.jsonl *.tsv *.parquet *.arrow *.feather *.gz *.bz2 *.xz *.zst);;All files (*)"
)


def is_corpus_name(name: str) -> bool:
    """Whether a folder's file is a corpus file by its name: "a.txt", "b.jsonl.gz" yes; "c.png", "d.tar.gz" no."""
    stem, suffix = os.path.splitext(name.lower())
    if suffix in COMPRESSED_SUFFIXES:
        stem, suffix = os.path.splitext(stem)
        return suffix in TEXT_SUFFIXES and suffix not in (".parquet", ".arrow", ".feather", ".tsv")
    return suffix in TEXT_SUFFIXES


def files_in(paths: list[str]) -> list[str]:
    """The files behind `paths`: a file as is, a folder's text files (recursively, sorted)."""
    found: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            for folder, subfolders, names in os.walk(path):
                subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
                for name in sorted(names):
                    if not name.startswith(".") and is_corpus_name(name):
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
