"""Training corpora -> word counts: files read as HF does (line by line, strict UTF-8), streamed.

Bad files raise `CorpusError` naming the file (and the byte offset of a bad UTF-8 sequence).
No training here: the counts go to a trainer. Big inputs are counted by several processes.
"""

from __future__ import annotations

import codecs
import gc
import hashlib
import multiprocessing
import os
import stat
import sys
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from multiprocessing.connection import Connection, wait
from typing import BinaryIO, Final

from mypy_extensions import mypyc_attr

from engine.errors import CorpusError, EngineError
from engine.normalizers import Normalizer
from engine.pre_tokenizers import PreTokenizer, words_of
from engine.progress import STAGE_COUNT_WORDS, STAGE_READ, ProgressSink, report, report_every

# Files are read in blocks of this size; progress is reported after each block.
BLOCK_SIZE: Final = 1 << 19
# Below this many bytes in total, starting other processes costs more than it saves.
PARALLEL_MIN_BYTES: Final = 4 << 20
# Never more processes than this (each holds its own word counts).
MAX_PROCESSES: Final = 8
ITERATOR_PATH: Final = "<iterator>"


@mypyc_attr(allow_interpreted_subclasses=True)
class WordSplitter(ABC):
    """Turns one line (with its '\\n') into the words HF's trainer would count for it.

    Must be a pure function of the line: equal lines are split once and counted together.
    """

    @abstractmethod
    def words(self, line: str) -> list[str]: ...


class PipelineWords(WordSplitter):
    """HF's pipeline for training words: normalize the line, then pre-tokenize it.

    No pre-tokenizer: the normalized line is one word. Empty words are never counted.
    """

    normalizer: Normalizer | None
    pre_tokenizer: PreTokenizer | None

    def __init__(self, normalizer: Normalizer | None, pre_tokenizer: PreTokenizer | None) -> None:
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer

    def words(self, line: str) -> list[str]:
        text = line if self.normalizer is None else self.normalizer.normalize_str(line)
        return words_of(self.pre_tokenizer, text)


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
            size = _checked_size(item.path)
            if item.end > size:
                raise CorpusError(item.path, f"has {size:,} bytes, fewer than the slice's end at {item.end:,}")
            slices.append(item)
        else:
            slices.append(FileSlice(item, 0, _checked_size(item)))
    return slices


def count_words(
    files: Sequence[str | FileSlice], splitter: WordSplitter, sink: ProgressSink, processes: int = 0
) -> dict[str, int]:
    """word -> count over every line of every file (or slice of one), as HF's `train(files)`
    feeds its trainer.

    Raises CorpusError for a missing, unreadable or non-UTF-8 file, for a directory, and when
    all the inputs together hold no word; TrainingCancelled when `sink` asks to stop.
    `processes`: 1 counts in this process only; more asks for that many forked processes (on
    Linux; the caller knows whether forking is safe: a process running native threads, such as
    a Qt application, must not fork); 0 chooses: several for big inputs, one when this process
    runs other Python threads.
    """
    if not files:
        raise CorpusError("<no files>", "no training files given")
    slices = as_slices(files)
    total = 0
    for piece in slices:
        total += piece.size
    enabled = gc.isenabled()
    gc.disable()
    try:
        processes = process_count(total, processes)
        if processes > 1:
            counts = _count_in_processes(slices, processes, splitter, sink)
        else:
            counts = {}
            progress = _SinkProgress(sink, total)
            progress.start()
            for piece in slices:
                _count_slice(piece.path, piece.start, piece.end, splitter, counts, progress)
            progress.finish()
    finally:
        if enabled:
            gc.enable()
    if not counts:
        raise CorpusError(", ".join(piece.path for piece in slices), _no_words_reason(total))
    return counts


def count_words_from_iterator(
    texts: Iterable[str], splitter: WordSplitter, sink: ProgressSink, length: int | None = None
) -> dict[str, int]:
    """word -> count over texts, each split whole (HF's `train_from_iterator`: no line splitting).

    `length` (the number of texts, when known) only feeds progress.
    """
    total = length if length is not None and length > 0 else 0
    every = report_every(total) if total > 0 else 1000
    counts: dict[str, int] = {}
    done = 0
    report(sink, STAGE_COUNT_WORDS, 0, total, "sequences")
    enabled = gc.isenabled()
    gc.disable()
    try:
        for text in texts:
            for word in splitter.words(text):
                counts[word] = counts.get(word, 0) + 1
            done += 1
            if done % every == 0:
                report(sink, STAGE_COUNT_WORDS, done, max(total, done), "sequences")
    finally:
        if enabled:
            gc.enable()
    report(sink, STAGE_COUNT_WORDS, done, done, "sequences")
    if not counts:
        raise CorpusError(ITERATOR_PATH, "no words to train on: every text is empty or has no words")
    return counts


class FileCheck:
    """What `check_file` found: size, lines, SHA-256, and the first problem ("" when none)."""

    path: str
    size: int
    lines: int
    sha256: str
    problem: str

    def __init__(self, path: str, size: int, lines: int, sha256: str, problem: str) -> None:
        self.path = path
        self.size = size
        self.lines = lines
        self.sha256 = sha256
        self.problem = problem

    @property
    def ok(self) -> bool:
        return not self.problem

    def __repr__(self) -> str:
        return f"FileCheck({self.path!r}, size={self.size}, lines={self.lines}, problem={self.problem!r})"


def check_file(path: str) -> FileCheck:
    """Read a would-be training file once, in blocks: its size, line count (a last line without
    "\n" counts), SHA-256, and whether it is UTF-8 text (the problem names the first bad byte).

    A file that cannot be read at all raises CorpusError, as training would.
    """
    size = _checked_size(path)
    digest = hashlib.sha256()
    decoder = codecs.getincrementaldecoder("utf-8")()
    lines = 0
    offset = 0
    problem = ""
    last = b""
    try:
        with open(path, "rb") as stream:
            while True:
                block = stream.read(BLOCK_SIZE)
                if not block:
                    break
                digest.update(block)
                lines += block.count(b"\n")
                last = block[-1:]
                if not problem:
                    pending = len(decoder.getstate()[0])
                    try:
                        decoder.decode(block)
                    except UnicodeDecodeError as error:
                        problem = f"is not valid UTF-8 ({error.reason}) at byte {offset - pending + error.start}"
                offset += len(block)
    except OSError as error:
        raise CorpusError(path, f"cannot be read ({error.strerror or error})") from None
    if not problem:
        try:
            decoder.decode(b"", True)
        except UnicodeDecodeError as error:
            problem = f"is not valid UTF-8 ({error.reason}) at byte {offset - len(decoder.getstate()[0]) + error.start}"
    if size > 0 and last != b"\n":
        lines += 1
    if not problem and size == 0:
        problem = "is empty"
    return FileCheck(path, size, lines, digest.hexdigest(), problem)


# -- reading -------------------------------------------------------------------------------


def _checked_size(path: str) -> int:
    """The size of a training file, or CorpusError saying why it cannot be read."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise CorpusError(path, "file not found") from None
    except OSError as error:
        raise CorpusError(path, f"cannot be read ({error.strerror or error})") from None
    if stat.S_ISDIR(info.st_mode):
        raise CorpusError(path, "is a directory, not a text file")
    try:
        with open(path, "rb"):
            pass
    except OSError as error:
        raise CorpusError(path, f"cannot be read ({error.strerror or error})") from None
    return info.st_size


def _no_words_reason(total: int) -> str:
    if total == 0:
        return "no words to train on: every input file is empty"
    return "no words to train on: the input files hold no words after normalization and pre-tokenization"


def _count_slice(
    path: str, start: int, end: int, splitter: WordSplitter, counts: dict[str, int], progress: ByteProgress
) -> None:
    """Count the words of the lines in bytes [start, end) of `path` (start is a line start)."""
    with LineBlocks(path, start, end, progress) as blocks:
        while True:
            block = blocks.next_block()
            if block is None:
                break
            _count_lines(path, block.data, block.offset, block.complete, splitter, counts)


class LineBlock:
    """Whole lines read from a file: `data` starts at byte `offset`; `complete` is False only
    for a last block that does not end with a newline."""

    data: bytes
    offset: int
    complete: bool

    def __init__(self, data: bytes, offset: int, complete: bool) -> None:
        self.data = data
        self.offset = offset
        self.complete = complete


class LineBlocks:
    """Bytes [start, end) of a file (start is a line start) in blocks of whole lines:
    `with LineBlocks(...) as blocks:` then `blocks.next_block()` until None.

    Streams in blocks of BLOCK_SIZE; a line longer than a block is gathered whole (HF reads
    whole lines too). `progress` hears of each block once its lines were handed out. Raises
    CorpusError naming the file when it cannot be read.
    """

    path: str
    stream: BinaryIO
    remaining: int
    offset: int
    pending: list[bytes]
    progress: ByteProgress
    unreported: int

    def __init__(self, path: str, start: int, end: int, progress: ByteProgress) -> None:
        self.path = path
        try:
            self.stream = open(path, "rb")
            self.stream.seek(start)
        except OSError as error:
            raise CorpusError(path, f"cannot be read ({error.strerror or error})") from None
        self.remaining = end - start
        self.offset = start  # absolute offset of the first pending byte
        self.pending = []
        self.progress = progress
        self.unreported = 0

    def __enter__(self) -> LineBlocks:
        return self

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        self.stream.close()

    def next_block(self) -> LineBlock | None:
        if self.unreported:
            self.progress.advance(self.unreported)
            self.unreported = 0
        while self.remaining > 0:
            try:
                block = self.stream.read(min(BLOCK_SIZE, self.remaining))
            except OSError as error:
                raise CorpusError(self.path, f"cannot be read ({error.strerror or error})") from None
            if not block:
                break
            self.remaining -= len(block)
            cut = block.rfind(b"\n") + 1
            if cut == 0:
                self.pending.append(block)
                self.progress.advance(len(block))
                continue
            if self.pending:
                self.pending.append(block[:cut])
                data = b"".join(self.pending)
            else:
                data = block[:cut] if cut < len(block) else block
            self.pending = [block[cut:]] if cut < len(block) else []
            self.unreported = len(block)
            found = LineBlock(data, self.offset, True)
            self.offset += len(data)
            return found
        self.remaining = 0
        if self.pending:
            last = b"".join(self.pending)
            self.pending = []
            if last:
                return LineBlock(last, self.offset, False)
        return None


def _count_lines(
    path: str, data: bytes, offset: int, ends_with_newline: bool, splitter: WordSplitter, counts: dict[str, int]
) -> None:
    """Count the words of the lines in `data` (which starts at byte `offset` of `path`).

    Equal lines are split once: `{"a b\\n": 2}` -> words("a b\\n") counted twice.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CorpusError(path, f"is not valid UTF-8 ({error.reason})", offset + error.start) from None
    lines = text.split("\n")
    # subtle: only '\n' ends a line (a '\r' before it stays in the line, a lone '\r' is no break).
    whole = len(lines) - 1
    seen: dict[str, int] = {}
    for i in range(whole):
        line = lines[i]
        seen[line] = seen.get(line, 0) + 1
    for line, times in seen.items():
        for word in splitter.words(line + "\n"):
            counts[word] = counts.get(word, 0) + times
    if not ends_with_newline and lines[whole]:
        for word in splitter.words(lines[whole]):
            counts[word] = counts.get(word, 0) + 1


# -- progress ------------------------------------------------------------------------------


class ByteProgress(ABC):
    """Where `_count_slice` says how many bytes it has read."""

    @abstractmethod
    def advance(self, count: int) -> None: ...


class _SinkProgress(ByteProgress):
    """Reports read bytes to the sink; also collects child processes' progress messages."""

    sink: ProgressSink
    total: int
    done: int
    children: list[Connection]
    results: list[dict[str, int] | None]
    errors: list[CorpusError | None]
    pending: int

    def __init__(self, sink: ProgressSink, total: int) -> None:
        self.sink = sink
        self.total = total
        self.done = 0
        self.children = []
        self.results = []
        self.errors = []
        self.pending = 0

    def start(self) -> None:
        report(self.sink, STAGE_READ, 0, self.total, "bytes")

    def advance(self, count: int) -> None:
        self.done += count
        if self.children:
            self.poll(0.0)
        self.send()

    def send(self) -> None:
        done = min(self.done, self.total)
        report(self.sink, STAGE_READ, done, self.total, "bytes")

    def finish(self) -> None:
        self.done = self.total
        self.send()

    def poll(self, timeout: float) -> None:
        """Read every message the children have sent (waiting up to `timeout` for the first)."""
        open_ones = [self.children[i] for i in range(len(self.children)) if self.results[i] is None and self.errors[i] is None]
        if not open_ones:
            return
        for ready in wait(open_ones, timeout):
            if not isinstance(ready, Connection):
                continue
            index = self.children.index(ready)
            try:
                message = ready.recv()
            except EOFError:
                raise EngineError("a word-counting process ended without its result") from None
            self._take(index, message)

    def _take(self, index: int, message: object) -> None:
        if not isinstance(message, tuple) or not message:
            raise EngineError("a word-counting process sent an unexpected message")
        kind = message[0]
        if kind == "progress":
            amount = message[1]
            if isinstance(amount, int):
                self.done += amount
        elif kind == "done":
            counts = message[1]
            if not isinstance(counts, dict):
                raise EngineError("a word-counting process sent an unexpected result")
            self.results[index] = counts
            self.pending -= 1
        elif kind == "error":
            path, reason, offset = message[1], message[2], message[3]
            if not isinstance(path, str) or not isinstance(reason, str) or not isinstance(offset, int):
                raise EngineError("a word-counting process sent an unexpected error")
            self.errors[index] = CorpusError(path, reason, offset)
            self.pending -= 1
        else:
            raise EngineError(f"a word-counting process failed: {message[1] if len(message) > 1 else kind}")


class PipeProgress(ByteProgress):
    """A child process's progress: read bytes go to the parent through the pipe."""

    connection: Connection

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def advance(self, count: int) -> None:
        self.connection.send(("progress", count))


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
    total = 0
    for piece in slices:
        total += piece.size
    work: list[list[FileSlice]] = [[] for _ in range(parts)]
    part = 0
    used = 0  # bytes given to parts before `part`, plus to `part` so far
    for piece in slices:
        path = piece.path
        start = piece.start
        end = piece.end
        while start < end:
            goal = total * (part + 1) // parts  # where `part` should end, in the whole stream
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


def _child_main(connection: Connection, slices: list[FileSlice], splitter: WordSplitter) -> None:
    """A child process: count its slices and send the counts (or the error) to the parent."""
    gc.disable()
    try:
        counts: dict[str, int] = {}
        progress = PipeProgress(connection)
        for piece in slices:
            _count_slice(piece.path, piece.start, piece.end, splitter, counts, progress)
        connection.send(("done", counts))
    except CorpusError as error:
        connection.send(("error", error.path, error.reason, error.byte_offset))
    except Exception as error:  # noqa: BLE001 - reported to the parent, which raises it
        connection.send(("failed", f"{type(error).__name__}: {error}"))
    finally:
        connection.close()


def _count_in_processes(
    slices: list[FileSlice], processes: int, splitter: WordSplitter, sink: ProgressSink
) -> dict[str, int]:
    """This process counts the first run of slices while forked children count the others."""
    work = split_work(slices, processes)
    total = 0
    for piece in slices:
        total += piece.size
    progress = _SinkProgress(sink, total)
    progress.start()
    context = multiprocessing.get_context("fork")
    children: list[multiprocessing.process.BaseProcess] = []
    try:
        for slices in work[1:]:
            receiver, sender = context.Pipe(duplex=False)
            child = context.Process(target=_child_main, args=(sender, slices, splitter), daemon=True)
            child.start()
            sender.close()
            children.append(child)
            progress.children.append(receiver)
            progress.results.append(None)
            progress.errors.append(None)
            progress.pending += 1
        counts: dict[str, int] = {}
        for piece in work[0]:
            _count_slice(piece.path, piece.start, piece.end, splitter, counts, progress)
        while progress.pending > 0:
            progress.poll(0.2)
            progress.send()
        for error in progress.errors:
            if error is not None:
                raise error
        for result in progress.results:
            if result is not None:
                if len(result) > len(counts):
                    result, counts = counts, result
                for word, count in result.items():
                    counts[word] = counts.get(word, 0) + count
        progress.finish()
        return counts
    finally:
        for receiver in progress.children:
            receiver.close()
        for process in children:
            if process.is_alive():
                process.terminate()
            process.join()
