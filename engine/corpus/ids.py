"""Whole corpora -> token ids on disk, the step before training a model: `.bin`, `.npy` or `.jsonl`.

One document per input line (the line ending stripped; an empty line is an empty document), files
in the order given, lines in file order, each encoded with `Tokenizer.encode_ids` (special tokens
added as `encode` adds them; a line too long to hold whole is read and encoded in pieces where
that gives the same ids: `engine.corpus.long_lines`). Several forked processes encode slices of the input into part files
that are joined in order, so the output never depends on the process count. Everything is written
to temporary files beside the output and renamed only when complete. Reading ids back is the
reader's business (numpy, or the sidecar's description); no decoding here.

Output formats, chosen by the output's suffix:
- `.bin` (nanoGPT style): the ids as raw little-endian unsigned integers, `uint16` when every id
  of the tokenizer fits (largest id < 65,536), else `uint32`; no header. With a separator token,
  its id follows every document; without one, documents run together. A JSON sidecar `<out>.json`
  says how to read it: {"dtype", "byte_order": "little", "tokens", "documents", "separator_id",
  "tokenizer", "files"}; `numpy.fromfile(path, dtype="<u2")` reads it.
- `.npy`: the same ids as a 1-D NumPy array (NPY format 1.0: `numpy.load` reads it), written here.
- `.jsonl`: one JSON array of ids per document (per line), nothing else; a separator id, when
  given, ends every array.
"""

from __future__ import annotations

import functools
import json
import os
import secrets
import shutil
import stat
import sys
import time
from array import array
from dataclasses import dataclass
from typing import BinaryIO, Final

from engine.collector import PausedCollector
from engine.corpus.forked import ByteProgress, Children
from engine.corpus.long_lines import DocumentSink, LineEncoder, long_line_cutter
from engine.corpus.sources import special_file_kind
from engine.corpus.streams import FileRange, LineBlocks
from engine.corpus.units import BLOCK_SIZE, FileSlice, as_slices, process_count, split_work
from engine.encoding import Encoding
from engine.errors import CorpusError, EngineError, FileError
from engine.progress import ProgressSink, SilentProgress, report
from engine.tokenizer import Tokenizer

KIND_BIN: Final = ".bin"
KIND_NPY: Final = ".npy"
KIND_JSONL: Final = ".jsonl"
# The output suffixes `encode_files` writes.
KINDS: Final = (KIND_BIN, KIND_NPY, KIND_JSONL)
STAGE_ENCODE: Final = "Encode documents"
# Ids below this fit in uint16.
UINT16_LIMIT: Final = 1 << 16
# The .npy header is padded to this many bytes, whatever the final shape: data starts at 128.
NPY_HEADER_SIZE: Final = 128
NPY_MAGIC: Final = b"\x93NUMPY\x01\x00"
# array typecodes of exactly 2 and 4 bytes (C `unsigned int` is 4 bytes on every platform we ship)
_U16: Final = "H"
_U32: Final = "I" if array("I").itemsize == 4 else "L"
COPY_BUFFER: Final = 1 << 20


@dataclass(frozen=True)
class IdsSummary:
    """What `encode_files` wrote: documents, ids (separators included), their dtype ("uint16",
    "uint32"; "json" for .jsonl), wall time, and the files (the output, and its sidecar for .bin)."""

    documents: int
    tokens: int
    dtype: str
    seconds: float
    paths: tuple[str, ...]
    separator_id: int | None
    processes: int
    bytes_read: int

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 else 0.0


def output_kind(output: str) -> str:
    """The format an output path asks for, from its suffix: "ids.bin" -> ".bin"; ValueError for
    any other suffix."""
    suffix = os.path.splitext(output)[1].lower()
    if suffix not in KINDS:
        raise ValueError(f"{output}: unknown output format {suffix or '(no suffix)'!r}; use one of {', '.join(KINDS)}")
    return suffix


def written_paths(output: str) -> list[str]:
    """The files `encode_files` writes for `output`: "ids.bin" -> ["ids.bin", "ids.bin.json"]."""
    if output_kind(output) == KIND_BIN:
        return [output, output + ".json"]
    return [output]


def ids_dtype(tokenizer: Tokenizer) -> str:
    """"uint16" when every id of the tokenizer (added tokens included) is below 65,536, else "uint32"."""
    largest = tokenizer.get_vocab_size(True) - 1
    for value in tokenizer.get_vocab(True).values():
        largest = max(largest, value)
    return "uint16" if largest < UINT16_LIMIT else "uint32"


def separator_id(tokenizer: Tokenizer, separator: str | None) -> int | None:
    """The id of the separator token (None for none); ValueError when the tokenizer lacks it."""
    if separator is None:
        return None
    found = tokenizer.token_to_id(separator)
    if found is None:
        raise ValueError(f"separator token {separator!r} is not in the tokenizer's vocabulary")
    return found


def encode_files(
    tokenizer: Tokenizer,
    files: list[str],
    output: str,
    separator: str | None = None,
    processes: int = 0,
    progress: ProgressSink | None = None,
    tokenizer_path: str | None = None,
) -> IdsSummary:
    """Encode every line of `files` and write the ids to `output` (.bin, .npy or .jsonl).

    `separator`: a token whose id follows every document. `processes`: 0 chooses by input size
    (1 for small inputs, or when this process runs other threads), N asks for N forked processes
    (Linux; as with `corpus.count_words`, the caller knows whether forking is safe).
    `tokenizer_path` is only recorded in the .bin sidecar. Replaces an existing `output` (callers
    ask first). Raises ValueError (unknown suffix or separator), CorpusError (a missing,
    unreadable or non-UTF-8 input: the message names the file, the line and the byte), FileError
    (the output cannot be written), TrainingCancelled (the sink asked to stop); then `output` is
    as it was and no temporary file remains.
    """
    started = time.monotonic()
    kind = output_kind(output)
    sep = separator_id(tokenizer, separator)
    if processes < 0:
        raise ValueError(f"processes must be 0 (choose) or more, got {processes}")
    if not files:
        raise CorpusError("<no files>", "no input files given")
    slices = as_slices(files)
    targets = written_paths(output)
    _check_targets(targets, slices)
    dtype = ids_dtype(tokenizer) if kind != KIND_JSONL else "json"
    total = 0
    for piece in slices:
        total += piece.size
    count = process_count(total, processes)
    runs = split_work(slices, count) if count > 1 else [slices]
    if not runs:
        runs = [[]]
    job = _Job(tokenizer, output, kind, dtype, -1 if sep is None else sep, total, progress or SilentProgress())
    with PausedCollector():
        try:
            job.run(runs)
            if kind == KIND_BIN:
                job.write_sidecar(tokenizer_path, files)
            job.commit(targets)
        finally:
            job.clean_up()
    return IdsSummary(
        job.documents, job.tokens, dtype, time.monotonic() - started, tuple(targets), sep, len(runs), total
    )


def npy_header(descr: str, length: int) -> bytes:
    """An NPY 1.0 header for a 1-D array of `length` items, always NPY_HEADER_SIZE bytes:
    ("<u2", 3) -> b"\\x93NUMPY\\x01\\x00v\\x00{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }   ...\\n"."""
    room = NPY_HEADER_SIZE - len(NPY_MAGIC) - 2
    text = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + str(length) + ",), }"
    if len(text) + 1 > room:
        raise ValueError(f"{length} items do not fit an NPY header of {NPY_HEADER_SIZE} bytes")
    # subtle: numpy requires the header to end with '\n' and lets spaces pad it.
    return NPY_MAGIC + room.to_bytes(2, "little") + (text.ljust(room - 1) + "\n").encode("ascii")


# -- writing ids ---------------------------------------------------------------------------


class _PartWriter(DocumentSink):
    """Appends documents' ids to an open file in the output's layout (a .npy header excluded).

    `add` collects the ids of the current document (a long line's come in several calls),
    `end` closes it; `flush` writes what was collected (once per block of lines).
    """

    stream: BinaryIO
    output: str
    as_json: bool
    typecode: str
    separator_id: int  # -1: none
    documents: int
    tokens: int
    ids: list[int]
    chunks: list[str]  # .jsonl text not yet written
    started: bool  # the current document has ids written to `chunks` (.jsonl)

    def __init__(self, stream: BinaryIO, output: str, dtype: str, separator_id: int) -> None:
        self.stream = stream
        self.output = output
        self.as_json = dtype == "json"
        self.typecode = _U16 if dtype == "uint16" else _U32
        self.separator_id = separator_id
        self.documents = 0
        self.tokens = 0
        self.ids = []
        self.chunks = []
        self.started = False

    def add(self, ids: list[int], encoding: Encoding | None, shift: int) -> None:
        if not self.as_json:
            self.ids.extend(ids)
            return
        if not ids:
            return
        self.tokens += len(ids)
        text = json.dumps(ids, separators=(",", ":"))
        # subtle: "[1,2]" then "[3]" -> "[1,2" + ",3": one JSON array per document however many calls
        self.chunks.append(text[:-1] if not self.started else "," + text[1:-1])
        self.started = True

    def end(self) -> None:
        self.documents += 1
        if not self.as_json:
            if self.separator_id >= 0:
                self.ids.append(self.separator_id)
            return
        if self.separator_id >= 0:
            self.add([self.separator_id], None, 0)
        self.chunks.append("]\n" if self.started else "[]\n")
        self.started = False

    def flush(self) -> None:
        if self.as_json:
            if not self.chunks:
                return
            data = "".join(self.chunks).encode("ascii")
            self.chunks = []
        else:
            if not self.ids:
                return
            try:
                packed = array(self.typecode, self.ids)
            except OverflowError:
                raise EngineError(f"{self.output}: an id does not fit the file's {self._dtype()} (ids {min(self.ids)}..{max(self.ids)})") from None
            if sys.byteorder == "big":
                packed.byteswap()
            self.tokens += len(self.ids)
            self.ids = []
            data = packed.tobytes()
        try:
            self.stream.write(data)
        except OSError as error:
            raise FileError(self.output, f"cannot be written ({error.strerror or error})") from None

    def _dtype(self) -> str:
        return "uint16" if self.typecode == _U16 else "uint32"


def _encode_slice(tokenizer: Tokenizer, piece: FileSlice, writer: _PartWriter, progress: ByteProgress) -> None:
    """Encode the lines in bytes [start, end) of a file (start is a line start), block by block;
    a line too long for a block in pieces, where the pipeline allows (`engine.corpus.long_lines`)."""
    cutter = long_line_cutter(tokenizer, with_offsets=False)
    blocks = LineBlocks(piece.path, FileRange(piece.path, piece.start, piece.end), piece.start, cutter)
    lines = LineEncoder(tokenizer, writer, ids_only=True)
    reported = 0
    try:
        while blocks.next_block():
            text = _decoded(piece.path, blocks.data, blocks.offset)
            lines.feed(text, blocks.complete)
            writer.flush()
            progress.advance(blocks.raw_done - reported)
            reported = blocks.raw_done
        lines.finish()
        writer.flush()
    finally:
        blocks.close()


def _decoded(path: str, data: bytes, offset: int) -> str:
    """`data` (bytes from `offset` of `path`) as UTF-8, or the CorpusError naming the line and byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        where = offset + error.start
        raise CorpusError(
            path, f"line {_line_number(path, where)}: byte 0x{data[error.start]:02x} is not UTF-8 ({error.reason})", where
        ) from None


def _line_number(path: str, offset: int) -> int:
    """The 1-based number of the line holding byte `offset` of `path` (read again: errors only)."""
    newlines = 0
    done = 0
    try:
        with open(path, "rb") as stream:
            while done < offset:
                block = stream.read(min(BLOCK_SIZE, offset - done))
                if not block:
                    break
                newlines += block.count(b"\n")
                done += len(block)
    except OSError:
        pass
    return newlines + 1


# -- one job: processes, part files, the atomic commit -------------------------------------


class _Job:
    """Encodes runs of slices (this process the first, forked children the others) into temporary
    files beside the output, joins them in order and renames the result over the output."""

    tokenizer: Tokenizer
    output: str
    kind: str
    dtype: str
    separator_id: int
    sink: ProgressSink
    total: int
    done: int
    documents: int
    tokens: int
    base: str
    data_path: str
    sidecar_path: str
    parts: list[str]
    temporary: list[str]
    children: Children  # each returns [documents, tokens] of its part

    def __init__(
        self, tokenizer: Tokenizer, output: str, kind: str, dtype: str, separator_id: int, total: int, sink: ProgressSink
    ) -> None:
        self.tokenizer = tokenizer
        self.output = output
        self.kind = kind
        self.dtype = dtype
        self.separator_id = separator_id
        self.sink = sink
        self.total = total
        self.done = 0
        self.documents = 0
        self.tokens = 0
        folder = os.path.dirname(os.path.abspath(output))
        self.base = os.path.join(folder, f".{os.path.basename(output)}.{os.getpid()}.{secrets.token_hex(4)}")
        self.data_path = self.base + ".tmp"
        self.sidecar_path = self.base + ".json.tmp"
        self.parts = []
        self.temporary = []
        self.children = Children("encoding")

    def run(self, runs: list[list[FileSlice]]) -> None:
        if len(runs) > 1:
            self._start_children(runs[1:])
        # subtle: the first report comes after the fork: a progress bar may start a thread.
        report(self.sink, STAGE_ENCODE, 0, self.total, "bytes")
        self.temporary.append(self.data_path)
        try:
            stream = open(self.data_path, "x+b")
        except OSError as error:
            raise FileError(self.output, f"cannot be written ({error.strerror or error})") from None
        with stream:
            writer = _PartWriter(stream, self.output, self.dtype, self.separator_id)
            if self.kind == KIND_NPY:
                self._write(stream, npy_header(self._descr(), 0))
            progress = _JobProgress(self)
            for piece in runs[0]:
                _encode_slice(self.tokenizer, piece, writer, progress)
            self.documents = writer.documents
            self.tokens = writer.tokens
            while self.children.pending > 0:
                self.poll(0.2)
                self.send()
            for index in range(len(self.parts)):
                self._append_part(stream, index)
            if self.kind == KIND_NPY:
                self._seek(stream, 0)
                self._write(stream, npy_header(self._descr(), self.tokens))
            try:
                stream.flush()
                os.fsync(stream.fileno())
            except OSError as error:
                raise FileError(self.output, f"cannot be written ({error.strerror or error})") from None
        self.done = self.total
        self.send()

    def write_sidecar(self, tokenizer_path: str | None, files: list[str]) -> None:
        """The .bin's description, to a temporary file committed with the data."""
        description = {
            "dtype": self.dtype,
            "byte_order": "little",
            "tokens": self.tokens,
            "documents": self.documents,
            "separator_id": self.separator_id if self.separator_id >= 0 else None,
            "tokenizer": _shown_path(tokenizer_path) if tokenizer_path is not None else None,
            "files": [_shown_path(path) for path in files],
        }
        self.temporary.append(self.sidecar_path)
        try:
            with open(self.sidecar_path, "x", encoding="utf-8") as stream:
                stream.write(json.dumps(description, indent=2, ensure_ascii=False) + "\n")
                stream.flush()
                os.fsync(stream.fileno())
        except OSError as error:
            raise FileError(self.output + ".json", f"cannot be written ({error.strerror or error})") from None

    def commit(self, targets: list[str]) -> None:
        """Rename the temporary files over the targets (data first; the sidecar after it)."""
        sources = [self.data_path, self.sidecar_path][: len(targets)]
        for index in range(len(targets)):
            target = targets[index]
            try:
                if os.path.isfile(target):
                    os.chmod(sources[index], stat.S_IMODE(os.stat(target).st_mode))
                os.replace(sources[index], target)
            except OSError as error:
                if index > 0:
                    # subtle: the data is already in place but its description is not: take it away.
                    _remove(targets[0])
                raise FileError(target, f"cannot be written ({error.strerror or error})") from None
            self.temporary.remove(sources[index])

    def clean_up(self) -> None:
        """Stop and reap the children, close the pipes, remove every temporary file left."""
        self.children.stop()
        for path in self.temporary + self.parts:
            _remove(path)

    # -- children ------------------------------------------------------------------------

    def _start_children(self, runs: list[list[FileSlice]]) -> None:
        for index in range(len(runs)):
            part = f"{self.base}.part{index + 1}"
            self.parts.append(part)
            self.children.start(
                functools.partial(
                    _encode_part, self.tokenizer, runs[index], part, self.output, self.dtype, self.separator_id
                )
            )

    def poll(self, timeout: float) -> None:
        """Take every message the children have sent (waiting up to `timeout` for the first);
        raise a child's error at once."""
        self.children.poll(timeout)
        error = self.children.first_error()
        if error is not None:
            raise error

    def send(self) -> None:
        done = self.done + self.children.read
        report(self.sink, STAGE_ENCODE, min(done, self.total), self.total, "bytes")

    def _append_part(self, stream: BinaryIO, index: int) -> None:
        part = self.parts[index]
        try:
            with open(part, "rb") as source:
                shutil.copyfileobj(source, stream, COPY_BUFFER)
        except OSError as error:
            raise FileError(self.output, f"cannot be written ({error.strerror or error})") from None
        _remove(part)
        result = self.children.results[index]
        if not isinstance(result, list) or len(result) != 2:
            raise EngineError("an encoding process sent an unexpected result")
        self.documents += result[0]
        self.tokens += result[1]

    # -- helpers -------------------------------------------------------------------------

    def _descr(self) -> str:
        return "<u2" if self.dtype == "uint16" else "<u4"

    def _write(self, stream: BinaryIO, data: bytes) -> None:
        try:
            stream.write(data)
        except OSError as error:
            raise FileError(self.output, f"cannot be written ({error.strerror or error})") from None

    def _seek(self, stream: BinaryIO, position: int) -> None:
        try:
            stream.seek(position)
        except OSError as error:
            raise FileError(self.output, f"cannot be written ({error.strerror or error})") from None


class _JobProgress(ByteProgress):
    """This process's own reading: counts bytes, takes the children's messages, reports."""

    job: _Job

    def __init__(self, job: _Job) -> None:
        self.job = job

    def advance(self, count: int) -> None:
        self.job.done += count
        if self.job.children.pending > 0:
            self.job.poll(0.0)
        self.job.send()


def _encode_part(
    tokenizer: Tokenizer,
    slices: list[FileSlice],
    part: str,
    output: str,
    dtype: str,
    separator_id: int,
    progress: ByteProgress,
) -> list[int]:
    """A forked child's share: encode its slices into `part`; [documents, tokens] written."""
    try:
        stream = open(part, "xb")
    except OSError as error:
        raise FileError(output, f"cannot be written ({error.strerror or error})") from None
    with stream:
        writer = _PartWriter(stream, output, dtype, separator_id)
        for piece in slices:
            _encode_slice(tokenizer, piece, writer, progress)
        try:
            stream.flush()
        except OSError as error:
            raise FileError(output, f"cannot be written ({error.strerror or error})") from None
    return [writer.documents, writer.tokens]


# -- checks --------------------------------------------------------------------------------


def _check_targets(targets: list[str], slices: list[FileSlice]) -> None:
    """FileError when a target is a folder or a special file, sits in a missing folder, or is
    one of the inputs."""
    for target in targets:
        if os.path.isdir(target):
            raise FileError(target, "is a directory; give the file to write")
        special = special_file_kind(target)
        if special:
            # (the rename would put a regular file in its place: /dev/null, for one)
            raise FileError(target, f"is {special}; give a regular file to write")
        folder = os.path.dirname(os.path.abspath(target))
        if not os.path.isdir(folder):
            raise FileError(target, f"folder {folder} does not exist")
        if not os.path.exists(target):
            continue
        for piece in slices:
            try:
                same = os.path.samefile(piece.path, target)
            except OSError:
                same = False
            if same:
                raise FileError(target, "is also an input file; writing there would destroy it")


def _shown_path(path: str) -> str:
    """A path as UTF-8 text: the bytes of a name that is not UTF-8 (lone surrogates, as Python
    reads them) as escapes, "caf\\udce9.txt" -> "caf\\\\xe9.txt" (the sidecar must be UTF-8)."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
