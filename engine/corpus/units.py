"""Training inputs as units of work: every input a `FileSlice` (a byte range of a plain text
file) or a `CorpusSource` read whole, split into shares for several processes at line starts,
and how many processes a corpus is worth. No reading of text beyond finding line starts.
"""

from __future__ import annotations

import multiprocessing
import os
import stat
import sys
import threading
from collections.abc import Sequence
from typing import Final

from engine.corpus.sources import (
    DEFAULT_FIELD,
    CorpusSource,
    expand_inputs,
    source_of,
    special_file_error,
    special_file_kind,
)
from engine.errors import CorpusError

# Files are read in blocks of this size; progress is reported after each block.
BLOCK_SIZE: Final = 1 << 19
# Below this many bytes in total, starting other processes costs more than it saves.
PARALLEL_MIN_BYTES: Final = 4 << 20
# Never more processes than this (each holds its own word counts).
MAX_PROCESSES: Final = 8


class FileSlice:
    """Bytes [start, end) of a training file; both ends are line starts (or the file's ends).

    Reading a corpus always goes through slices: a whole file is `FileSlice(path, 0, size)`.
    `line_start_after` finds a cut that keeps lines whole.
    """

    path: str
    start: int
    end: int

    def __init__(self, path: str, start: int, end: int) -> None:
        if start < 0 or end < start:
            raise ValueError(f"{path}: bad slice [{start}, {end})")
        self.path = path
        self.start = start
        self.end = end

    @property
    def size(self) -> int:
        return self.end - self.start

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FileSlice):
            return NotImplemented
        return (self.path, self.start, self.end) == (other.path, other.start, other.end)

    def __repr__(self) -> str:
        return f"FileSlice({self.path!r}, {self.start}, {self.end})"


def as_slices(files: Sequence[str | FileSlice]) -> list[FileSlice]:
    """Each input as a checked slice: a path becomes its whole file; CorpusError for a file that
    cannot be read and for a slice past the end of its file."""
    slices: list[FileSlice] = []
    for item in files:
        if isinstance(item, FileSlice):
            size = checked_size(item.path)
            if item.end > size:
                raise CorpusError(item.path, f"has {size:,} bytes, fewer than the slice's end at {item.end:,}")
            slices.append(item)
        else:
            slices.append(FileSlice(item, 0, checked_size(item)))
    return slices


def training_inputs(
    files: Sequence[str | FileSlice | CorpusSource],
    field: str = DEFAULT_FIELD,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    skipped: list[str] | None = None,
) -> list[FileSlice | CorpusSource]:
    """Each input as a checked unit of work: folders expanded (`sources.expand_inputs`), plain
    text as a whole-file `FileSlice` (split across processes by byte ranges), every other kind
    (`sources.source_of`: compressed, JSON Lines, Parquet/Arrow, word-count table) a
    `CorpusSource` with its size. CorpusError for an input that cannot be read, and for a
    special file (FIFO, device, socket) named as an input; one found in a folder is left out
    and its path added to `skipped`."""
    units: list[FileSlice | CorpusSource] = []
    for item in files:
        if isinstance(item, FileSlice):
            units.extend(as_slices([item]))
        elif isinstance(item, CorpusSource):
            units.append(_unit_of(item))
        else:
            for path in expand_inputs([item], include, exclude, skipped):
                units.append(_unit_of(source_of(path, field)))
    return units


def _unit_of(source: CorpusSource) -> FileSlice | CorpusSource:
    size = checked_size(source.path)
    if source.is_plain:
        return FileSlice(source.path, 0, size)
    return source.sized(size)


def units_size(units: list[FileSlice | CorpusSource]) -> int:
    total = 0
    for unit in units:
        total += unit.size
    return total


# -- reading -------------------------------------------------------------------------------


def checked_size(path: str) -> int:
    """The size of a training file, or CorpusError saying why it cannot be read."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise CorpusError(path, "file not found") from None
    except OSError as error:
        raise CorpusError(path, f"cannot be read ({error.strerror or error})") from None
    if stat.S_ISDIR(info.st_mode):
        raise CorpusError(path, "is a directory, not a text file")
    special = special_file_kind(path)
    if special:
        raise special_file_error(path, special)
    try:
        with open(path, "rb"):
            pass
    except OSError as error:
        raise CorpusError(path, f"cannot be read ({error.strerror or error})") from None
    return info.st_size


# -- several processes ---------------------------------------------------------------------


def process_count(total: int, requested: int) -> int:
    """How many processes to count with: `requested` (0: as many as pay for `total` bytes, on
    this machine's cores), but only 1 where forking is unavailable."""
    if requested == 1 or not sys.platform.startswith("linux"):
        return 1
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    if requested > 1:
        return min(requested, MAX_PROCESSES)
    # subtle: forking a process that runs other threads can deadlock the child (a lock held by
    # another thread stays locked forever). This sees Python threads only, not native ones
    # (Qt's): the window counts in a child process of its own and passes `processes` itself.
    if threading.active_count() > 1:
        return 1
    if total < PARALLEL_MIN_BYTES:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_PROCESSES, total // (PARALLEL_MIN_BYTES // 2)))


def line_start_after(path: str, offset: int, size: int) -> int:
    """The first line start at or after `offset` in a file of `size` bytes (`size` if no line
    starts there): a cut that keeps lines whole. CorpusError if the file cannot be read."""
    if offset <= 0:
        return 0
    try:
        with open(path, "rb") as stream:
            stream.seek(offset - 1)
            position = offset - 1
            while position < size:
                chunk = stream.read(1 << 16)
                if not chunk:
                    break
                found = chunk.find(b"\n")
                if found >= 0:
                    return min(position + found + 1, size)
                position += len(chunk)
    except OSError as error:
        raise CorpusError(path, f"cannot be read ({error.strerror or error})") from None
    return size


def split_work(slices: list[FileSlice], parts: int) -> list[list[FileSlice]]:
    """Cut the slices, read one after another, into `parts` runs of about equal bytes."""
    units: list[FileSlice | CorpusSource] = list(slices)
    work: list[list[FileSlice]] = []
    for share in split_units(units, parts):
        work.append([unit for unit in share if isinstance(unit, FileSlice)])
    return work


def split_units(units: list[FileSlice | CorpusSource], parts: int) -> list[list[FileSlice | CorpusSource]]:
    """`split_work` over a mix: slices of plain files are cut at line starts, every other
    source goes whole to the part that is filling when it comes."""
    total = units_size(units)
    work: list[list[FileSlice | CorpusSource]] = [[] for _ in range(parts)]
    part = 0
    used = 0  # bytes given to parts before `part`, plus to `part` so far
    for unit in units:
        if isinstance(unit, CorpusSource):
            work[part].append(unit)
            used += unit.size
            while part < parts - 1 and used >= total * (part + 1) // parts:
                part += 1
            continue
        path = unit.path
        start = unit.start
        end = unit.end
        while start < end:
            goal = total * (part + 1) // parts
            if part == parts - 1 or used + (end - start) <= goal:
                work[part].append(FileSlice(path, start, end))
                used += end - start
                start = end
            else:
                cut = line_start_after(path, start + (goal - used), end)
                if cut > start:
                    work[part].append(FileSlice(path, start, cut))
                    used += cut - start
                start = cut
                part += 1
    return [chunk for chunk in work if chunk]
