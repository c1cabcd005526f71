"""Checking corpus files off the GUI thread: size, lines, checksum and UTF-8 validity.

`FileChecker.check(paths)` reads the files with `engine.corpus.checks.check_file` on Qt's thread pool
and emits `checked(checks, errors)` on the GUI thread; `check_field(path, field)` checks one
file again with another text field. A folder is searched for corpus files: text (also
compressed), JSON Lines, Parquet/Arrow, word-count tables (`files_in`; the Add Folder dialog
chooses with globs too). `text_fields(path)` lists the
fields a JSON Lines or Parquet/Arrow file offers. No widgets here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Final

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from engine.corpus.checks import FileCheck, check_file
from engine.corpus.records import PARQUET_EXTRA, parse_record
from engine.corpus.sources import DEFAULT_FIELD, FORMAT_ARROW, FORMAT_JSONL, folder_files, source_of, wanted
from engine.corpus.streams import READ_SIZE, DecompressedStream
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
# `text_fields` reads at most this much of a JSON Lines file looking for its first record.
FIRST_RECORD_MAX_BYTES: Final = 64 << 20


def is_corpus_name(name: str) -> bool:
    """Whether a folder's file is a corpus file by its name: "a.txt", "b.jsonl.gz" yes; "c.png", "d.tar.gz" no."""
    stem, suffix = os.path.splitext(name.lower())
    if suffix in COMPRESSED_SUFFIXES:
        stem, suffix = os.path.splitext(stem)
        return suffix in TEXT_SUFFIXES and suffix not in (".parquet", ".arrow", ".feather", ".tsv")
    return suffix in TEXT_SUFFIXES


def files_in(
    paths: list[str], include: Sequence[str] = (), exclude: Sequence[str] = (), corpus_only: bool = True
) -> list[str]:
    """The files behind `paths`: a file as is, a folder's files that `chosen` keeps (sorted)."""
    found: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            for rel in chosen(folder_files(path), include, exclude, corpus_only):
                found.append(os.path.join(path, rel.replace("/", os.sep)))
        else:
            found.append(path)
    return found


def chosen(relative: list[str], include: Sequence[str], exclude: Sequence[str], corpus_only: bool) -> list[str]:
    """The files of a folder (paths inside it) to add: those the globs keep as the command
    line's --include/--exclude do (`engine.corpus.sources.wanted`), and with `corpus_only` only the
    corpus files by name. ["a.txt", "b.png"], no globs -> ["a.txt"] (["a.txt", "b.png"] without
    corpus_only, as the command line takes them)."""
    return [
        rel for rel in relative if wanted(rel, include, exclude) and (not corpus_only or is_corpus_name(os.path.basename(rel)))
    ]


def text_fields(path: str) -> list[str]:
    """The text fields a file's records offer, to train on one: the keys with string values of
    a JSON Lines file's first record (in the record's order; a compressed file is decompressed
    only up to that record), the string columns of a Parquet/Arrow file's schema. [] for any
    other kind of file (plain or compressed text, word-count tables: no fields).

    `{"id": 7, "content": "def f(): ...", "lang": "py"}` -> ["content", "lang"]. CorpusError
    naming the file when it cannot be read, when its first record is not a JSON object, and for
    Parquet/Arrow when pyarrow is not installed.
    """
    source = source_of(path)
    if source.format == FORMAT_JSONL:
        number, line = _first_record(path, source.compression)
        if not line:
            raise CorpusError(path, "has no records")
        record = parse_record(line, path, number)
        if not isinstance(record, dict):
            raise CorpusError(path, f"line {number}: not a JSON object, so it has no fields")
        return [str(key) for key, value in record.items() if isinstance(value, str)]
    if source.format == FORMAT_ARROW:
        return _string_columns(path)
    return []


def _first_record(path: str, compression: str) -> tuple[int, str]:
    """(line number, text) of the first non-blank line of a (compressed) file; (0, "") when none."""
    stream = DecompressedStream(path, compression)
    try:
        pending = bytearray()
        number = 0
        while True:
            block = stream.read(READ_SIZE)
            searched = len(pending)
            pending += block
            cut = pending.find(b"\n", searched)
            while cut >= 0:
                number += 1
                line = bytes(pending[:cut])
                del pending[: cut + 1]
                if line.strip():
                    return number, _decoded(path, line, number)
                cut = pending.find(b"\n")
            if not block:
                if bytes(pending).strip():
                    return number + 1, _decoded(path, bytes(pending), number + 1)
                return 0, ""
            if len(pending) > FIRST_RECORD_MAX_BYTES:
                raise CorpusError(path, f"has no line end in its first {FIRST_RECORD_MAX_BYTES >> 20} MB: is it JSON Lines?")
    finally:
        stream.close()


def _decoded(path: str, line: bytes, number: int) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CorpusError(path, f"line {number}: not valid UTF-8 ({error.reason})") from None


def _string_columns(path: str) -> list[str]:
    """The string columns of a Parquet or Arrow IPC (file or stream format) schema, with pyarrow."""
    try:
        import pyarrow
        import pyarrow.ipc
        import pyarrow.parquet
    except ImportError:
        raise CorpusError(path, f"is a Parquet/Arrow file; listing its columns needs pyarrow: {PARQUET_EXTRA}") from None
    if not os.path.isfile(path):
        raise CorpusError(path, "file not found")
    try:
        if path.lower().endswith(".parquet"):
            schema = pyarrow.parquet.read_schema(path)
        else:
            with pyarrow.memory_map(path, "r") as mapped:
                try:
                    schema = pyarrow.ipc.open_file(mapped).schema
                except pyarrow.ArrowInvalid:
                    mapped.seek(0)  # subtle: HF `datasets` writes the IPC *stream* format
                    schema = pyarrow.ipc.open_stream(mapped).schema
    except Exception as error:  # noqa: BLE001 - pyarrow's errors (ArrowInvalid, OSError) name no file
        raise CorpusError(path, f"cannot be read as Parquet/Arrow ({error})") from None
    types = pyarrow.types
    is_view = getattr(types, "is_string_view", None)
    names: list[str] = []
    for column in schema:
        kind = column.type
        if types.is_string(kind) or types.is_large_string(kind) or (is_view is not None and is_view(kind)):
            names.append(str(column.name))
    return names


class _Signals(QObject):
    done = Signal(list, list)
    field_done = Signal(str, str, object, str)


class _CheckJob(QRunnable):
    def __init__(self, paths: list[str], fields: dict[str, str], signals: _Signals) -> None:
        super().__init__()
        self.paths = paths
        self.fields = fields
        self.signals = signals

    def run(self) -> None:
        checks: list[FileCheck] = []
        errors: list[str] = []
        for path in files_in(self.paths):
            try:
                checks.append(check_file(path, self.fields.get(os.path.abspath(path), DEFAULT_FIELD)))
            except CorpusError as error:
                errors.append(str(error))
        self.signals.done.emit(checks, errors)


class _FieldCheckJob(QRunnable):
    def __init__(self, path: str, field: str, signals: _Signals) -> None:
        super().__init__()
        self.path = path
        self.field = field
        self.signals = signals

    def run(self) -> None:
        try:
            check: FileCheck | None = check_file(self.path, self.field)
            error = ""
        except CorpusError as failure:
            check, error = None, failure.reason
        self.signals.field_done.emit(self.path, self.field, check, error)


class FileChecker(QObject):
    """Checks files in the background; `checked(list[FileCheck], list[str])` when done, and
    `field_checked(path, field, FileCheck | None, error)` for `check_field` (error "" unless
    the file could not be read at all)."""

    checked = Signal(list, list)
    field_checked = Signal(str, str, object, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._signals = _Signals(self)
        self._signals.done.connect(self._on_job_done)
        self._signals.field_done.connect(self._on_field_job_done)
        self._pending = 0

    def check(self, paths: list[str], fields: Mapping[str, str] | None = None) -> None:
        """Check `paths` (folders searched); `fields`: absolute path -> text field, for the files
        whose records are read with another field than "text"."""
        self._pending += 1
        QThreadPool.globalInstance().start(_CheckJob(list(paths), dict(fields or {}), self._signals))

    def check_field(self, path: str, field: str) -> None:
        """Check one file again, reading `field` of its records."""
        self._pending += 1
        QThreadPool.globalInstance().start(_FieldCheckJob(path, field, self._signals))

    def is_busy(self) -> bool:
        return self._pending > 0

    def _on_job_done(self, checks: list[FileCheck], errors: list[str]) -> None:
        self._pending -= 1
        self.checked.emit(checks, errors)

    def _on_field_job_done(self, path: str, field: str, check: FileCheck | None, error: str) -> None:
        self._pending -= 1
        self.field_checked.emit(path, field, check, error)
