"""Training inputs beyond plain text files: folders, compressed text, JSON Lines, Parquet/Arrow.

What kind of input a path is (`source_of`; `special_file_kind` for FIFOs and devices, which are
never read), which files a folder contributes (`expand_inputs`), and readers that stream a
source in bounded blocks: whole-line byte blocks (`LineBlocks`, over a plain file's range or
decompressed text; no line, or word between two cuts, longer than MAX_LINE_BYTES) or texts
(`RecordReader` for JSON Lines, `ArrowReader` for Parquet/Arrow).
No word counting here (that is `engine.corpus.counting`); every problem is a CorpusError naming the file.
"""

from __future__ import annotations

import bz2
import fnmatch
import gzip
import io
import json
import lzma
import os
import random
import stat
import zlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, BinaryIO, Final

from mypy_extensions import mypyc_attr

from engine.errors import CorpusError
from engine.schema import json_type

FORMAT_LINES: Final = "lines"
FORMAT_JSONL: Final = "jsonl"
FORMAT_ARROW: Final = "arrow"
FORMAT_COUNTS: Final = "counts"
DEFAULT_FIELD: Final = "text"
# Decompressed text is read in blocks of this size (engine.corpus.counting.BLOCK_SIZE, repeated to keep
# this module free of corpus imports).
READ_SIZE: Final = 1 << 19
# A zstd frame is fed to the decompressor in pieces this big: each piece's output stays small.
ZSTD_FEED: Final = 1 << 13
# Parquet rows per record batch.
ARROW_BATCH_ROWS: Final = 8192
# The longest line `LineBlocks` gathers whole, and, where a line may be cut at spaces, the longest
# text between two cuts (a "word"): past it, CorpusError naming the file and the byte where that
# line or word starts. A .gz of gigabytes of "a" with no line break stops here, not out of memory.
MAX_LINE_BYTES: Final = 64 << 20
PARQUET_EXTRA: Final = "pip install 'tokenizer-workbench[parquet]'"

_COMPRESSIONS: Final = {".gz": "gz", ".bz2": "bz2", ".xz": "xz", ".zst": "zst"}
_COMPRESSION_NAMES: Final = {"gz": "gzip", "bz2": "bzip2", "xz": "xz", "zst": "zstd"}
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


def _cannot_read(path: str, error: OSError) -> CorpusError:
    return CorpusError(path, f"cannot be read ({error.strerror or error})")


# -- decompressed streams ----------------------------------------------------------------------


class _ZstdStream:
    """A zstd file as a stream of decompressed bytes (the `zstandard` package, imported here).

    Raw input is fed in small pieces so no single call returns a huge block; a stream that ends
    inside a frame raises EOFError, as gzip/bz2/lzma readers do.
    """

    raw: BinaryIO
    zstd: Any
    error_type: Any
    decompressor: Any
    output: bytearray
    in_frame: bool
    finished: bool
    broken: bool  # the input ended inside a frame: EOFError once `output` is handed out

    def __init__(self, raw: BinaryIO) -> None:
        import zstandard

        self.raw = raw
        self.zstd = zstandard.ZstdDecompressor()
        self.error_type = zstandard.ZstdError
        self.decompressor = self.zstd.decompressobj()
        self.output = bytearray()
        self.in_frame = False
        self.finished = False
        self.broken = False

    def read(self, size: int) -> bytes:
        while len(self.output) < size and not self.finished:
            piece = self.raw.read(ZSTD_FEED)
            if not piece:
                self.finished = True
                self.broken = self.in_frame
                break
            self._feed(piece)
        if self.broken and not self.output:
            raise EOFError("zstd stream ended inside a frame")
        block = bytes(self.output[:size])
        del self.output[:size]
        return block

    def _feed(self, piece: bytes) -> None:
        while piece:
            self.in_frame = True
            try:
                out = self.decompressor.decompress(piece)
            except self.error_type as error:
                raise ValueError(str(error)) from None
            self.output += out
            if self.decompressor.eof:
                # subtle: a file may hold several frames back to back; each needs a new decompressor.
                piece = self.decompressor.unused_data
                self.decompressor = self.zstd.decompressobj()
                self.in_frame = False
            else:
                piece = b""

    def close(self) -> None:
        pass


class ByteStream(ABC):
    """Bytes read in order: `read(n)` at most n bytes (b"" at the end); `raw_done` is how many
    bytes of the file itself were consumed (the progress of a compressed file)."""

    @abstractmethod
    def read(self, size: int) -> bytes: ...

    @property
    @abstractmethod
    def raw_done(self) -> int: ...

    @abstractmethod
    def close(self) -> None: ...


class FileRange(ByteStream):
    """Bytes [start, end) of a plain file. CorpusError naming the file when it cannot be read."""

    path: str
    stream: BinaryIO
    remaining: int
    consumed: int

    def __init__(self, path: str, start: int, end: int) -> None:
        self.path = path
        special = special_file_kind(path)
        if special:
            raise special_file_error(path, special)
        try:
            self.stream = open(path, "rb")
        except FileNotFoundError:
            raise CorpusError(path, "file not found") from None
        except OSError as error:
            raise _cannot_read(path, error) from None
        try:
            self.stream.seek(start)
        except OSError as error:
            self.stream.close()
            raise _cannot_read(path, error) from None
        self.remaining = end - start
        self.consumed = 0

    @property
    def raw_done(self) -> int:
        return self.consumed

    def read(self, size: int) -> bytes:
        if self.remaining <= 0:
            return b""
        try:
            block = self.stream.read(min(size, self.remaining))
        except OSError as error:
            raise _cannot_read(self.path, error) from None
        if not block:
            self.remaining = 0  # the file shrank while it was read
        self.remaining -= len(block)
        self.consumed += len(block)
        return block

    def close(self) -> None:
        self.stream.close()


class OpenStream(ByteStream):
    """An open buffered binary stream, standard input say, as a ByteStream: `read(n)` gives
    what is there now (`read1`), so that lines typed at a terminal are read as they come."""

    stream: io.BufferedIOBase
    done: int

    def __init__(self, stream: io.BufferedIOBase) -> None:
        self.stream = stream
        self.done = 0

    @property
    def raw_done(self) -> int:
        return self.done

    def read(self, size: int) -> bytes:
        block = self.stream.read1(size)
        self.done += len(block)
        return block

    def close(self) -> None:
        pass  # (not ours to close)


class LineCutter(ABC):
    """Where a line too long for one block may be cut so that its two parts, counted apart,
    give the words the whole line gives (`engine.corpus.chunking` has the cutters)."""

    @abstractmethod
    def cut(self, data: bytes) -> int:
        """A byte index 0 < i <= len(data) to cut `data` (part of a line, no "\\n") at, or 0."""


# Finding where a truncated file's text breaks off reads it again in pieces this small.
_RECOVERY_READ: Final = 1 << 14


def _text_before_break(path: str, compression: str) -> tuple[int, int]:
    """(bytes, line breaks) of the text a truncated compressed file gives before it breaks off.

    subtle: the file readers raise EOFError for the whole read that meets the end, dropping
    what that read had decompressed, so the text is decompressed again here, piece by piece,
    with the bare decompressors (only ever for a broken file)."""
    text = 0
    lines = 0
    try:
        with open(path, "rb") as raw:
            if compression == "zst":
                stream = _ZstdStream(raw)
                while True:
                    block: bytes = stream.read(_RECOVERY_READ)
                    if not block:
                        break
                    text += len(block)
                    lines += block.count(b"\n")
                return text, lines
            decompressor = _decompressor(compression)
            while True:
                piece = raw.read(_RECOVERY_READ)
                if not piece:
                    break
                while piece:
                    out: bytes = decompressor.decompress(piece)
                    text += len(out)
                    lines += out.count(b"\n")
                    piece = b""
                    if decompressor.eof:
                        # (a file of several members or streams: the next one starts here)
                        piece = decompressor.unused_data
                        decompressor = _decompressor(compression)
    except Exception:  # noqa: BLE001 - the break itself, or the file changed since
        pass
    return text, lines


def _decompressor(compression: str) -> Any:
    """A bare decompressor for one gzip member, xz stream or bz2 stream."""
    if compression == "gz":
        return zlib.decompressobj(31)
    if compression == "xz":
        return lzma.LZMADecompressor()
    return bz2.BZ2Decompressor()


class DecompressedStream(ByteStream):
    """A (possibly compressed) file as decompressed bytes: `read(n)` at most n bytes (b"" at the
    end); `raw_done` is how many bytes of the file itself were consumed.

    Raises CorpusError naming the file: truncated data (where the text breaks off, in
    `_truncated`), corrupt data, and a file that cannot be read.
    """

    path: str
    compression: str
    raw: BinaryIO
    reader: Any
    produced: int

    def __init__(self, path: str, compression: str) -> None:
        self.path = path
        self.compression = compression
        self.produced = 0
        special = special_file_kind(path)
        if special:
            raise special_file_error(path, special)
        try:
            self.raw = open(path, "rb")
        except FileNotFoundError:
            raise CorpusError(path, "file not found") from None
        except OSError as error:
            raise _cannot_read(path, error) from None
        try:
            if compression == "gz":
                self.reader = gzip.GzipFile(fileobj=self.raw, mode="rb")
            elif compression == "bz2":
                self.reader = bz2.BZ2File(self.raw, "rb")
            elif compression == "xz":
                self.reader = lzma.LZMAFile(self.raw, "rb")
            elif compression == "zst":
                self.reader = _ZstdStream(self.raw)
            else:
                self.reader = self.raw
        except ImportError:
            self.raw.close()
            raise CorpusError(path, "needs the zstandard package to be read: pip install zstandard") from None

    @property
    def raw_done(self) -> int:
        try:
            return self.raw.tell()
        except (OSError, ValueError):
            return 0

    def read(self, size: int) -> bytes:
        try:
            block: bytes = self.reader.read(size)
        except EOFError:
            raise self._truncated() from None
        except (zlib.error, lzma.LZMAError, ValueError) as error:
            raise self._corrupt(error) from None
        except OSError as error:
            if error.errno is None:  # gzip.BadGzipFile, bz2's "Invalid data stream": the data, not the disk
                raise self._corrupt(error) from None
            raise _cannot_read(self.path, error) from None
        self.produced += len(block)
        return block

    def _truncated(self) -> CorpusError:
        """The error for compressed data that ends early, saying where its text breaks off."""
        text, lines = _text_before_break(self.path, self.compression)
        return CorpusError(
            self.path,
            f"is truncated: the compressed data ends early (at byte {self.raw_done:,} of the file), in line "
            f"{lines + 1:,} of the text, after {max(text, self.produced):,} bytes of text; nothing after that can be read",
        )

    def _corrupt(self, error: Exception) -> CorpusError:
        kind = _COMPRESSION_NAMES.get(self.compression, self.compression)
        return CorpusError(self.path, f"is not valid {kind} data ({error}) after {self.produced:,} bytes of text")

    def close(self) -> None:
        try:
            if self.reader is not self.raw:
                self.reader.close()
        except Exception:  # noqa: BLE001 - closing after an error must not hide it
            pass
        self.raw.close()


class LineBlocks:
    """A byte stream in blocks of whole lines: `next_block()` True while there is one, then
    `data` (bytes from byte `offset` of the text) and `complete` (`data` ends with "\\n").

    Blocks hold about READ_SIZE bytes. A longer line is gathered whole, unless a `cutter` says
    where it may be cut without changing what it counts: then no block holds more than about
    READ_SIZE bytes however long the line, and a cut block is not `complete`. The last line of
    the stream without "\\n" is not complete either. A line gathered whole (or, with a cutter,
    a text between two cuts) of more than `max_line` bytes (its "\\n" not counted; `max_line`
    is at least READ_SIZE: lines within one block are never refused) raises CorpusError naming
    the file and the byte it starts at.
    """

    path: str
    stream: ByteStream
    cutter: LineCutter | None
    max_line: int
    pending: list[bytes]
    pending_size: int
    data: bytes
    offset: int
    complete: bool
    next_offset: int
    done: bool

    def __init__(
        self,
        path: str,
        stream: ByteStream,
        first_offset: int = 0,
        cutter: LineCutter | None = None,
        max_line: int = MAX_LINE_BYTES,
    ) -> None:
        self.path = path
        self.stream = stream
        self.cutter = cutter
        self.max_line = max_line
        self.pending = []
        self.pending_size = 0
        self.data = b""
        self.offset = first_offset
        self.complete = True
        self.next_offset = first_offset
        self.done = False

    @property
    def raw_done(self) -> int:
        return self.stream.raw_done

    def next_block(self) -> bool:
        cutter = self.cutter
        while not self.done:
            block = self.stream.read(READ_SIZE)
            if not block:
                self.done = True
                break
            cut = block.rfind(b"\n") + 1
            if cut == 0 and cutter is not None:
                cut = cutter.cut(block)
            if cut == 0:
                self.pending.append(block)
                self.pending_size += len(block)
                if self.pending_size > self.max_line:
                    raise self._too_long()
                continue
            if self.pending:
                # the line (or word) that the pending bytes began ends at the block's first break
                first = block.find(b"\n")
                if self.pending_size + (first if first >= 0 else cut) > self.max_line:
                    raise self._too_long()
                self.pending.append(block[:cut])
                data = b"".join(self.pending)
            else:
                data = block[:cut] if cut < len(block) else block
            self.pending = [block[cut:]] if cut < len(block) else []
            self.pending_size = len(block) - cut
            self._give(data)
            return True
        if self.pending:
            last = b"".join(self.pending)
            self.pending = []
            if last:
                self._give(last)
                return True
        return False

    def _too_long(self) -> CorpusError:
        """The error for a line (or, with a cutter, a text with no place to cut) past `max_line`."""
        size = f"{self.max_line >> 20} MB" if self.max_line >= 1 << 20 else f"{self.max_line:,} bytes"
        if self.cutter is None:
            what = f"a line longer than {size}, the longest line read whole"
        else:
            what = f"a word longer than {size} (no space or line break to cut it at), the longest word read whole"
        stream = self.stream
        where = " in the decompressed text" if isinstance(stream, DecompressedStream) and stream.compression else ""
        return CorpusError(self.path, f"has {what}; it starts{where}", self.next_offset)

    def _give(self, data: bytes) -> None:
        self.data = data
        self.offset = self.next_offset
        self.complete = data.endswith(b"\n")
        self.next_offset += len(data)

    def close(self) -> None:
        self.stream.close()


def opening_text(source: CorpusSource, max_bytes: int) -> str:
    """The text `source` begins with, about `max_bytes` of it, for a preview or an evaluation
    sample: its first lines (decompressed), or its first records' texts one per line ("" for a
    word-count table). Bytes that are not UTF-8 are replaced; CorpusError as when training."""
    if source.format == FORMAT_COUNTS:
        return ""
    if source.format == FORMAT_LINES:
        stream = DecompressedStream(source.path, source.compression)
        try:
            data = stream.read(max_bytes)
        finally:
            stream.close()
        return data.decode("utf-8", "replace")
    texts = open_texts(source)
    kept: list[str] = []
    size = 0
    try:
        while size < max_bytes:
            batch = texts.next_texts()
            if batch is None:
                break
            for text in batch:
                kept.append(text)
                size += len(text) + 1
                if size >= max_bytes:
                    break
    finally:
        texts.close()
    return "\n".join(kept)


@mypyc_attr(allow_interpreted_subclasses=True)
class TextReader(ABC):
    """A source of whole texts (JSON Lines records, Parquet values), each counted as one text:
    `next_texts()` -> the next batch, or None at the end; `raw_done` raw bytes consumed."""

    @abstractmethod
    def next_texts(self) -> list[str] | None: ...

    @abstractmethod
    def raw_done(self) -> int: ...

    @abstractmethod
    def close(self) -> None: ...


def open_texts(source: CorpusSource) -> TextReader:
    """The reader for a JSON Lines or Arrow source."""
    if source.format == FORMAT_JSONL:
        return RecordReader(source)
    if source.format == FORMAT_ARROW:
        return ArrowReader(source)
    raise ValueError(f"{source.path}: not a source of texts ({source.format})")


class RecordReader(TextReader):
    """JSON Lines: each non-blank line one JSON object; its `field` string is one text.

    `{"text": "a b"}\\n\\n{"text": "c"}\\n` -> ["a b", "c"]. Bad lines raise CorpusError with
    the line number ("line 12: not JSON (...)").
    """

    path: str
    field: str
    compressed: bool
    lines: LineBlocks
    line_number: int

    def __init__(self, source: CorpusSource) -> None:
        self.path = source.path
        self.field = source.field
        self.compressed = source.compression != ""
        self.lines = LineBlocks(source.path, DecompressedStream(source.path, source.compression))
        self.line_number = 0

    def raw_done(self) -> int:
        return self.lines.raw_done

    def next_texts(self) -> list[str] | None:
        reader = self.lines
        if not reader.next_block():
            return None
        text = decode_text(self.path, reader.data, reader.offset, self.compressed)
        lines = text.split("\n")
        if reader.complete:
            lines.pop()  # the empty string after the last "\n"
        texts: list[str] = []
        for line in lines:
            self.line_number += 1
            if not line.strip():
                continue
            texts.append(record_text(line, self.field, self.path, self.line_number))
        return texts

    def close(self) -> None:
        self.lines.close()


def decode_text(path: str, data: bytes, offset: int, decompressed: bool = False) -> str:
    """`data` (from byte `offset` of the file, or of its decompressed text) as UTF-8, or the
    CorpusError that names the file and the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        where = " in the decompressed text" if decompressed else ""
        raise CorpusError(path, f"is not valid UTF-8 ({error.reason}){where}", offset + error.start) from None


def parse_record(line: str, path: str, number: int) -> object:
    """One JSON Lines line parsed, or CorpusError naming the file and line ("line 12: not JSON (...)")."""
    try:
        return json.loads(line)
    except json.JSONDecodeError as error:
        raise CorpusError(path, f"line {number}: not JSON ({error.msg} at column {error.colno})") from None
    except RecursionError:
        raise CorpusError(path, f"line {number}: not JSON (nested too deeply)") from None
    except ValueError as error:
        # subtle: int() under json.loads refuses a number of more than 4,300 digits with a plain ValueError
        raise CorpusError(path, f"line {number}: a JSON value cannot be read ({error})") from None


def record_text(line: str, field: str, path: str, number: int) -> str:
    """The `field` string of one JSON Lines record, or CorpusError naming the file and line."""
    record = parse_record(line, path, number)
    if not isinstance(record, dict):
        raise CorpusError(path, f"line {number}: a JSON {json_type(record)}, not an object with a {field!r} field")
    if field not in record:
        raise CorpusError(path, f"line {number}: no field {field!r} (its fields: {_names(list(record))}); choose one with --field")
    value = record[field]
    if not isinstance(value, str):
        raise CorpusError(path, f"line {number}: field {field!r} is a JSON {json_type(value)}, not a string")
    return value


def _names(names: list[str], limit: int = 5) -> str:
    if not names:
        return "none"
    shown = ", ".join(repr(name) for name in names[:limit])
    return shown if len(names) <= limit else f"{shown}, ... {len(names) - limit} more"


class ArrowReader(TextReader):
    """The `field` column of a Parquet (.parquet) or Arrow IPC (.arrow, .feather) file, read one
    record batch at a time with `pyarrow` (optional); null values are skipped."""

    path: str
    field: str
    size: int
    batches: Any
    rows: int
    rows_done: int
    handle: Any

    def __init__(self, source: CorpusSource) -> None:
        self.path = source.path
        self.field = source.field
        self.size = max(source.size, 0)
        self.rows_done = 0
        self.handle = None
        try:
            import pyarrow
        except ImportError:
            raise CorpusError(self.path, f"is a Parquet/Arrow file, which needs pyarrow: {PARQUET_EXTRA}") from None
        try:
            if self.path.lower().endswith(".parquet"):
                import pyarrow.parquet

                parquet = pyarrow.parquet.ParquetFile(self.path)
                self.handle = parquet
                schema = parquet.schema_arrow
                self._check_column(pyarrow, schema)
                self.rows = int(parquet.metadata.num_rows)
                self.batches = parquet.iter_batches(batch_size=ARROW_BATCH_ROWS, columns=[self.field])
            else:
                self._open_ipc(pyarrow)
        except CorpusError:
            self.close()
            raise
        except FileNotFoundError:
            raise CorpusError(self.path, "file not found") from None
        except Exception as error:  # noqa: BLE001 - pyarrow's errors (ArrowInvalid, OSError) name no file
            self.close()
            raise CorpusError(self.path, f"cannot be read as {self._kind()} ({error})") from None

    def _kind(self) -> str:
        return "Parquet" if self.path.lower().endswith(".parquet") else "an Arrow IPC file"

    def _open_ipc(self, arrow: Any) -> None:
        import pyarrow.ipc as ipc

        mapped = arrow.memory_map(self.path, "r")
        self.handle = mapped
        try:
            reader = ipc.open_file(mapped)
        except arrow.ArrowInvalid:
            # subtle: HF `datasets` caches .arrow files in the IPC *stream* format.
            mapped.seek(0)
            stream = ipc.open_stream(mapped)
            self._check_column(arrow, stream.schema)
            self.rows = -1
            self.batches = iter(stream)
            return
        self._check_column(arrow, reader.schema)
        self.rows = -2
        self.batches = _IpcBatches(reader, int(reader.num_record_batches))

    def _check_column(self, arrow: Any, schema: Any) -> None:
        names = [str(name) for name in schema.names]
        if self.field not in names:
            raise CorpusError(self.path, f"has no column {self.field!r} (its columns: {_names(names, 10)}); choose one with --field")
        kind = schema.field(self.field).type
        types = arrow.types
        is_view = getattr(types, "is_string_view", None)
        if not (types.is_string(kind) or types.is_large_string(kind) or (is_view is not None and is_view(kind))):
            raise CorpusError(self.path, f"column {self.field!r} holds {kind}, not strings")

    def raw_done(self) -> int:
        if self.rows > 0:
            return self.size * self.rows_done // self.rows
        if self.rows == -1 and self.handle is not None:
            try:
                return int(self.handle.tell())
            except Exception:  # noqa: BLE001 - progress only
                return 0
        if isinstance(self.batches, _IpcBatches):
            total = self.batches.count
            return self.size * self.batches.next_index // total if total else 0
        return 0

    def next_texts(self) -> list[str] | None:
        try:
            batch = next(self.batches)
        except StopIteration:
            return None
        except Exception as error:  # noqa: BLE001 - pyarrow's errors name no file
            raise CorpusError(self.path, f"cannot be read as {self._kind()} ({error})") from None
        values = batch.column(self.field).to_pylist()
        self.rows_done += len(values)
        texts: list[str] = []
        for value in values:
            if isinstance(value, str):
                texts.append(value)
        return texts

    def close(self) -> None:
        handle = self.handle
        self.handle = None
        if handle is not None:
            try:
                handle.close()
            except Exception:  # noqa: BLE001
                pass


class _IpcBatches:
    """The record batches of an Arrow IPC file, read one by one."""

    reader: Any
    count: int
    next_index: int

    def __init__(self, reader: Any, count: int) -> None:
        self.reader = reader
        self.count = count
        self.next_index = 0

    def __iter__(self) -> _IpcBatches:
        return self

    def __next__(self) -> Any:
        if self.next_index >= self.count:
            raise StopIteration
        batch = self.reader.get_batch(self.next_index)
        self.next_index += 1
        return batch


# -- sampling ----------------------------------------------------------------------------------


class LineSample:
    """A uniform random sample of at most `size` lines out of all offered (reservoir sampling,
    Algorithm R): deterministic for a seed, memory bounded by `size`.

    `LineSample(2, 0)` offered "a", "b", "c" keeps 2 of them; `seen` == 3.
    """

    size: int
    seen: int
    kept: list[str]
    rng: random.Random

    def __init__(self, size: int, seed: int) -> None:
        if size <= 0:
            raise ValueError(f"a sample needs a positive size, got {size}")
        self.size = size
        self.seen = 0
        self.kept = []
        self.rng = random.Random(seed)

    def offer(self, line: str) -> None:
        seen = self.seen
        self.seen = seen + 1
        if seen < self.size:
            self.kept.append(line)
            return
        slot = self.rng.randrange(seen + 1)
        if slot < self.size:
            self.kept[slot] = line
