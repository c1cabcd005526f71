"""Training inputs beyond plain text files: what kind of input a path is (`source_of`: text,
compressed text, JSON Lines, Parquet/Arrow, word-count tables; `special_file_kind` for FIFOs and
devices, which are never read) and which files a folder contributes (`expand_inputs`, `wanted`).

Reading them is `streams`'s (bytes and whole lines) and `records`'s (texts); counting words is
`engine.corpus.counting`'s. Every problem is a CorpusError naming the file.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Sequence
from typing import Final

from engine.errors import CorpusError

FORMAT_LINES: Final = "lines"
FORMAT_JSONL: Final = "jsonl"
FORMAT_ARROW: Final = "arrow"
FORMAT_COUNTS: Final = "counts"
DEFAULT_FIELD: Final = "text"

_COMPRESSIONS: Final = {".gz": "gz", ".bz2": "bz2", ".xz": "xz", ".zst": "zst"}
COMPRESSION_NAMES: Final = {"gz": "gzip", "bz2": "bzip2", "xz": "xz", "zst": "zstd"}
_ARROW_SUFFIXES: Final = (".parquet", ".arrow", ".feather")


class CorpusSource:
    """One training input that is read whole: `format` "lines" | "jsonl" | "arrow" | "counts",
    `compression` "" | "gz" | "bz2" | "xz" | "zst", `field` the text field (JSON Lines, Parquet),
    `size` the raw file's bytes (-1 until known).

    `source_of("a.jsonl.gz")` -> CorpusSource("a.jsonl.gz", "jsonl", "gz", "text").
    """

    path: str
    format: str
    compression: str
    field: str
    size: int

    def __init__(self, path: str, format: str, compression: str = "", field: str = DEFAULT_FIELD, size: int = -1) -> None:
        self.path = path
        self.format = format
        self.compression = compression
        self.field = field
        self.size = size

    @property
    def is_plain(self) -> bool:
        """Uncompressed text read line by line: split across processes as `FileSlice`s."""
        return self.format == FORMAT_LINES and not self.compression

    def sized(self, size: int) -> CorpusSource:
        return CorpusSource(self.path, self.format, self.compression, self.field, size)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CorpusSource):
            return NotImplemented
        return (self.path, self.format, self.compression, self.field) == (
            other.path,
            other.format,
            other.compression,
            other.field,
        )

    def __hash__(self) -> int:
        return hash((self.path, self.format, self.compression, self.field))

    def __repr__(self) -> str:
        return f"CorpusSource({self.path!r}, {self.format!r}, {self.compression!r}, {self.field!r})"


def source_of(path: str, field: str = DEFAULT_FIELD) -> CorpusSource:
    """The kind of input `path` is, from its suffix after an optional compression suffix:
    .jsonl -> JSON Lines, .parquet/.arrow/.feather -> Arrow, .tsv -> word-count table, else text.

    CorpusError for a compressed Parquet/Arrow file or word-count table (not supported).
    """
    name = os.path.basename(path).lower()
    compression = ""
    stem, suffix = os.path.splitext(name)
    if suffix in _COMPRESSIONS:
        compression = _COMPRESSIONS[suffix]
        name = stem
    kind = os.path.splitext(name)[1]
    if kind == ".jsonl":
        return CorpusSource(path, FORMAT_JSONL, compression, field)
    if kind in _ARROW_SUFFIXES or kind == ".tsv":
        if compression:
            what = "word-count table" if kind == ".tsv" else f"{kind[1:]} file"
            raise CorpusError(path, f"is a compressed {what}; decompress it first (only text and JSON Lines are read compressed)")
        return CorpusSource(path, FORMAT_COUNTS if kind == ".tsv" else FORMAT_ARROW, "", field)
    return CorpusSource(path, FORMAT_LINES, compression, field)


def special_file_kind(path: str) -> str:
    """What `path` is when it is neither a regular file nor a folder, as a phrase for messages:
    a FIFO -> "a named pipe (FIFO)", /dev/zero -> "a character device"; "" for a regular file,
    a folder, or a path that cannot be looked at (opening it says why).

    Such files are never read: a FIFO without a writer blocks forever, /dev/zero never ends."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return ""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return ""
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def special_file_error(path: str, kind: str) -> CorpusError:
    """The error for a special file named as an input (`special_file_kind` gave `kind`)."""
    return CorpusError(path, f"is {kind}, not a regular file; only regular files are read (save the data to a file first)")


def expand_inputs(
    paths: Sequence[str], include: Sequence[str] = (), exclude: Sequence[str] = (), skipped: list[str] | None = None
) -> list[str]:
    """The files behind `paths`: a file as is; a folder's files (`folder_files`) that `wanted`
    keeps. CorpusError for a folder with no matching file. A folder's special files (FIFOs,
    devices, sockets) that the globs keep are left out and their paths added to `skipped`.

    `expand_inputs(["data"], include=["*.txt"], exclude=["build/*"])` -> ["data/a.txt", "data/sub/b.txt"]
    """
    found: list[str] = []
    for path in paths:
        if not os.path.isdir(path):
            found.append(path)
            continue
        specials: list[str] = []
        relative = [rel for rel in folder_files(path, specials) if wanted(rel, include, exclude)]
        if skipped is not None:
            for rel in specials:
                if wanted(rel, include, exclude):
                    skipped.append(os.path.join(path, rel.replace("/", os.sep)))
        if not relative:
            raise CorpusError(path, f"is a directory with no training file in it{_globs_text(include, exclude)}")
        for rel in relative:
            found.append(os.path.join(path, rel.replace("/", os.sep)))
    return found


def folder_files(folder: str, specials: list[str] | None = None) -> list[str]:
    """Every file in `folder`, recursively, as its path relative to the folder with "/"
    separators, sorted; hidden files and folders (a leading ".") are skipped, and so are
    special files (FIFOs, devices, sockets: `special_file_kind`), whose relative paths go to
    `specials` (sorted)."""
    relative: list[str] = []
    for parent, subfolders, names in os.walk(folder):
        subfolders[:] = [name for name in subfolders if not name.startswith(".")]
        for name in names:
            if not name.startswith("."):
                full = os.path.join(parent, name)
                rel = os.path.relpath(full, folder).replace(os.sep, "/")
                if special_file_kind(full):
                    if specials is not None:
                        specials.append(rel)
                    continue
                relative.append(rel)
    relative.sort()
    if specials is not None:
        specials.sort()
    return relative


def wanted(relative: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    """Whether a folder's file (its path inside the folder) matches an `include` glob (any file
    when none) and no `exclude` glob. fnmatch, so `*` also matches "/"; a `**/` may also match
    no folder, as in git: "**/*.txt" keeps "a.txt" and "sub/b.txt", "sub/**/*.txt" "sub/b.txt"."""
    if include:
        hit = False
        for pattern in include:
            if _glob_matches(relative, pattern):
                hit = True
                break
        if not hit:
            return False
    for pattern in exclude:
        if _glob_matches(relative, pattern):
            return False
    return True


def _glob_matches(relative: str, pattern: str) -> bool:
    if fnmatch.fnmatch(relative, pattern):
        return True
    # a "**/" starting the pattern or one of its folders may stand for no folder at all
    at = pattern.find("**/")
    while at >= 0:
        if (at == 0 or pattern[at - 1] == "/") and _glob_matches(relative, pattern[:at] + pattern[at + 3 :]):
            return True
        at = pattern.find("**/", at + 1)
    return False


def _globs_text(include: Sequence[str], exclude: Sequence[str]) -> str:
    parts: list[str] = []
    if include:
        parts.append("matching " + " or ".join(repr(p) for p in include))
    if exclude:
        parts.append("not matching " + " or ".join(repr(p) for p in exclude))
    return (" " + " and ".join(parts)) if parts else " (hidden files are skipped)"


def cannot_read(path: str, error: OSError) -> CorpusError:
    return CorpusError(path, f"cannot be read ({error.strerror or error})")
