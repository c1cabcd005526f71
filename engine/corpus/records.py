"""Texts out of a training input: the lines of text files, the `--field` string of JSON Lines
records, the text column of Parquet/Arrow files (in record batches), and a uniform sample of
lines. Streams are `streams`'s; what a path is, `sources`'s.
"""

from __future__ import annotations

import json
import random
from abc import ABC, abstractmethod
from typing import Any, Final

from mypy_extensions import mypyc_attr

from engine.corpus.sources import FORMAT_ARROW, FORMAT_COUNTS, FORMAT_JSONL, FORMAT_LINES, CorpusSource
from engine.corpus.streams import DecompressedStream, LineBlocks
from engine.errors import CorpusError
from engine.schema import json_type

# Parquet rows per record batch.
ARROW_BATCH_ROWS: Final = 8192
PARQUET_EXTRA: Final = "pip install 'tokenizer-workbench[parquet]'"


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


def in_decompressed(error: CorpusError) -> CorpusError:
    """A UTF-8 error of decompressed text: its offset is in the text, not in the file."""
    return CorpusError(error.path, error.reason + " in the decompressed text", error.byte_offset)


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
