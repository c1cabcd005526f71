"""Checking a corpus file before it is trained on: its size, lines, checksum and whether it is
UTF-8 (`check_file`), and why a file would give no words. Nothing is counted here.
"""

from __future__ import annotations

import codecs
import hashlib

from engine.corpus.records import ArrowReader, open_texts
from engine.corpus.sources import DEFAULT_FIELD, FORMAT_ARROW, FORMAT_COUNTS, FORMAT_LINES, CorpusSource, source_of
from engine.corpus.streams import DecompressedStream
from engine.corpus.units import BLOCK_SIZE, checked_size
from engine.corpus.word_counts import read_counts
from engine.errors import CorpusError


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


def check_file(path: str, field: str = DEFAULT_FIELD) -> FileCheck:
    """Read a would-be training file once, in blocks: its size, line count (a last line without
    "\n" counts), SHA-256, and whether it is UTF-8 text (the problem names the first bad byte).

    Other kinds (`sources.source_of`) are checked as far as is cheap and certain: compressed
    text decompressed whole (lines, UTF-8, truncation), every JSON Lines record parsed (its
    `field` a string; `lines` counts records), a word-count table read (`lines` = its words),
    a Parquet/Arrow file's `field` column found (`lines` = its rows, when the file says).
    A file that cannot be read at all raises CorpusError, as training would.
    """
    source = source_of(path, field)
    if not source.is_plain:
        return _check_source(source.sized(checked_size(path)))
    size = checked_size(path)
    digest = hashlib.sha256()
    scan = _TextScan("")
    try:
        with open(path, "rb") as stream:
            while True:
                block = stream.read(BLOCK_SIZE)
                if not block:
                    break
                digest.update(block)
                scan.feed(block)
    except OSError as error:
        raise CorpusError(path, f"cannot be read ({error.strerror or error})") from None
    scan.finish()
    problem = scan.problem
    if not problem and size == 0:
        problem = "is empty"
    return FileCheck(path, size, scan.lines, digest.hexdigest(), problem)


class _TextScan:
    """The lines of a text read in blocks cut anywhere (a last line without "\n" counts), and
    its first UTF-8 problem (`where` tells what the byte offset is in)."""

    where: str
    decoder: codecs.IncrementalDecoder
    lines: int
    offset: int
    last: bytes
    problem: str

    def __init__(self, where: str) -> None:
        self.where = where
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.lines = 0
        self.offset = 0
        self.last = b""
        self.problem = ""

    def feed(self, block: bytes) -> None:
        self.lines += block.count(b"\n")
        self.last = block[-1:]
        if not self.problem:
            pending = len(self.decoder.getstate()[0])
            try:
                self.decoder.decode(block)
            except UnicodeDecodeError as error:
                self._bad(error, self.offset - pending)
        self.offset += len(block)

    def finish(self) -> None:
        if not self.problem:
            pending = len(self.decoder.getstate()[0])
            try:
                self.decoder.decode(b"", True)
            except UnicodeDecodeError as error:
                self._bad(error, self.offset - pending)
        if self.offset > 0 and self.last != b"\n":
            self.lines += 1

    def _bad(self, error: UnicodeDecodeError, start: int) -> None:
        self.problem = f"is not valid UTF-8 ({error.reason}){self.where} at byte {start + error.start}"


def _check_source(source: CorpusSource) -> FileCheck:
    path = source.path
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as stream:
            while True:
                block = stream.read(BLOCK_SIZE)
                if not block:
                    break
                digest.update(block)
    except OSError as error:
        raise CorpusError(path, f"cannot be read ({error.strerror or error})") from None
    lines = 0
    problem = ""
    try:
        if source.format == FORMAT_LINES:
            text = DecompressedStream(path, source.compression)
            scan = _TextScan(" in the decompressed text")
            try:
                while True:
                    block = text.read(BLOCK_SIZE)
                    if not block:
                        break
                    scan.feed(block)
            finally:
                text.close()
            scan.finish()
            lines = scan.lines
            problem = scan.problem
        elif source.format == FORMAT_COUNTS:
            lines = len(read_counts(path))
        elif source.format == FORMAT_ARROW:
            arrow = ArrowReader(source)
            lines = max(arrow.rows, 0)
            arrow.close()
        else:
            texts = open_texts(source)
            try:
                while True:
                    batch = texts.next_texts()
                    if batch is None:
                        break
                    lines += len(batch)
            finally:
                texts.close()
    except CorpusError as error:
        where = f" at byte {error.byte_offset}" if error.byte_offset >= 0 else ""
        problem = error.reason + where
    if not problem and lines == 0 and source.format != FORMAT_ARROW:
        problem = "is empty" if source.format == FORMAT_LINES else "has no records"
    return FileCheck(path, source.size, lines, digest.hexdigest(), problem)


def no_words_reason(total: int) -> str:
    if total == 0:
        return "no words to train on: every input file is empty"
    return "no words to train on: the input files hold no words after normalization and pre-tokenization"
