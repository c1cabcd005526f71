"""Bytes and lines out of a training input: a file or a range of it, compressed text
decompressed as it streams (.gz, .bz2, .xz, .zst), and blocks of whole lines cut where a line
ends (or, for a line too long to hold, where it can be cut). No records, no counting.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zlib
from abc import ABC, abstractmethod
from typing import Any, BinaryIO, Final

from engine.corpus.sources import COMPRESSION_NAMES, cannot_read, special_file_error, special_file_kind
from engine.errors import CorpusError

# Decompressed text is read in blocks of this size (engine.corpus.units.BLOCK_SIZE, repeated to keep
# this module free of corpus imports).
READ_SIZE: Final = 1 << 19
# A zstd frame is fed to the decompressor in pieces this big: each piece's output stays small.
ZSTD_FEED: Final = 1 << 13
# The longest line `LineBlocks` gathers whole, and, where a line may be cut at spaces, the longest
# text between two cuts (a "word"): past it, CorpusError naming the file and the byte where that
# line or word starts. A .gz of gigabytes of "a" with no line break stops here, not out of memory.
MAX_LINE_BYTES: Final = 64 << 20


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
            raise cannot_read(path, error) from None
        try:
            self.stream.seek(start)
        except OSError as error:
            self.stream.close()
            raise cannot_read(path, error) from None
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
            raise cannot_read(self.path, error) from None
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
            raise cannot_read(path, error) from None
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
            raise cannot_read(self.path, error) from None
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
        kind = COMPRESSION_NAMES.get(self.compression, self.compression)
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
