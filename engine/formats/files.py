"""Reading and writing the user's files safely: atomic writes and clear errors for bad files.

Every writer in the engine goes through `write_files_atomically` (or its text forms), so a crash or a full disk never
leaves a half-written file where a good one was. No format knowledge here.
"""

from __future__ import annotations

import json
import os
import secrets
import stat
from typing import BinaryIO, Final

from engine.errors import TokenizerFileError

# The largest tokenizer file read whole (a 10-million-line vocab.txt is about 150 MB).
MAX_FILE_BYTES: Final = 1 << 30
# Text goes to files this many chars at a time.
WRITE_CHUNK: Final = 1 << 20


def write_text_atomically(path: str, text: str) -> None:
    """Write `text` as UTF-8 to `path` through a temporary file in the same folder and a rename."""
    write_files_atomically([(path, text)])


def read_bytes(path: str, what: str) -> bytes:
    """The whole content of a small file, or a TokenizerFileError (`what` names the expected
    content in messages: "SentencePiece .model").

    subtle: a FIFO or a device (/dev/zero) would be read forever, and a file past
    MAX_FILE_BYTES would take many times its size in memory: both are refused before reading.
    """
    if os.path.isdir(path):
        raise TokenizerFileError(path, f"is a directory, not a {what} file")
    try:
        # (stat before open: opening a FIFO waits for a writer)
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise TokenizerFileError(path, f"is not a regular file (a pipe or a device), so not a {what} file")
        if info.st_size > MAX_FILE_BYTES:
            raise TokenizerFileError(
                path, f"is {info.st_size:,} bytes: larger than any {what} file this reads ({MAX_FILE_BYTES:,} at most)"
            )
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise TokenizerFileError(path, f"grew past {MAX_FILE_BYTES:,} bytes while it was read")
        return data
    except FileNotFoundError:
        raise TokenizerFileError(path, "no such file") from None
    except OSError as error:
        raise TokenizerFileError(path, f"cannot be read ({error.strerror})") from None


def read_text(path: str, what: str) -> str:
    """The whole UTF-8 text of a small file (a tokenizer, a vocabulary), or a TokenizerFileError.

    `what` names the expected content in messages ("tokenizer.json", "vocab.txt").
    """
    return decode_text(path, read_bytes(path, what), what)


def decode_text(path: str, data: bytes, what: str) -> str:
    """`data`, the content of the file `path`, as UTF-8 text, or `read_text`'s TokenizerFileError."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TokenizerFileError(
            path, f"is not UTF-8 text (invalid byte 0x{data[error.start]:02X} at byte {error.start}); is it really a {what}?"
        ) from None


class JsonDocument:
    """A JSON value to write as a file, streamed: `json.dumps(data, ensure_ascii=False, indent=2)`
    when `pretty`, compact (`","`, `":"`) otherwise, as HF writes tokenizer.json."""

    data: object
    pretty: bool

    def __init__(self, data: object, pretty: bool) -> None:
        self.data = data
        self.pretty = pretty


def write_json_atomically(path: str, data: object, pretty: bool) -> None:
    """Write `data` as a JSON file, atomically, without holding its text in memory: the text of a
    10-million-token vocabulary is 300 MB, and json.dumps with an indent built it from chunks
    taking 1.9 GB more."""
    write_files_atomically([(path, JsonDocument(data, pretty))])


def write_texts_atomically(files: list[tuple[str, str]]) -> None:
    """Write several UTF-8 text files as one change: all of them, or (on any failure) none."""
    write_files_atomically([(path, text) for path, text in files])


def write_files_atomically(files: list[tuple[str, str | bytes | JsonDocument]]) -> None:
    """Write several files (text as UTF-8, or bytes) as one change: all of them, or (on any
    failure) none of them.

    Every text goes to a temporary file beside its target first; only when all are written are
    they renamed over the targets. If a rename fails, the targets already replaced get their old
    content back (kept as hard links, or copies). `[("vocab.json", "{}"), ("merges.txt", "")]`
    """
    temps: list[str] = []
    backups: list[str] = []
    replaced: list[int] = []
    try:
        for path, content in files:
            temps.append(_write_temporary(path, content))
        for index in range(len(files)):
            path = files[index][0]
            backups.append(_backup(path) if os.path.exists(path) else "")
        for index in range(len(files)):
            os.replace(temps[index], files[index][0])
            temps[index] = ""
            replaced.append(index)
    except BaseException:
        for index in replaced:
            try:
                if backups[index]:
                    os.replace(backups[index], files[index][0])
                    backups[index] = ""
                else:
                    os.unlink(files[index][0])
            except OSError:
                pass
        raise
    finally:
        for leftover in temps + backups:
            if leftover:
                try:
                    os.unlink(leftover)
                except OSError:
                    pass


def _temporary_name(path: str, kind: str) -> str:
    folder = os.path.dirname(os.path.abspath(path))
    return os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.{secrets.token_hex(4)}.{kind}")


def _write_temporary(path: str, content: str | bytes | JsonDocument) -> str:
    """`content` written and synced to a new temporary file beside `path` (the mode of `path` if it
    exists). subtle: not tempfile.mkstemp, whose files are 0600; "x" mode creates with the user's
    umask."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise TokenizerFileError(path, "is a directory, not a file")
    if not os.path.isdir(folder):
        raise TokenizerFileError(path, f"folder {folder} does not exist")
    tmp = _temporary_name(path, "part")
    try:
        with open(tmp, "xb") as handle:
            if isinstance(content, JsonDocument):
                _write_json(handle, content)
            elif isinstance(content, str):
                # (in chunks: the encoded copy of a 300 MB text stays small)
                for start in range(0, len(content), WRITE_CHUNK):
                    handle.write(content[start : start + WRITE_CHUNK].encode("utf-8"))
            else:
                handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        if os.path.exists(path):
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
    except OSError as error:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise TokenizerFileError(path, f"cannot be written ({error.strerror})") from None
    except UnicodeEncodeError as error:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        code = ord(error.object[error.start]) if error.start < len(error.object) else 0xD800
        raise TokenizerFileError(
            path, f"cannot be written: it would hold a lone surrogate (U+{code:04X}), which UTF-8 cannot encode"
        ) from None
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return tmp


def _write_json(handle: BinaryIO, document: JsonDocument) -> None:
    """The JSON text of `document`, encoded in batches of the encoder's small chunks."""
    if document.pretty:
        encoder = json.JSONEncoder(ensure_ascii=False, indent=2)
    else:
        encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
    batch: list[str] = []
    size = 0
    for chunk in encoder.iterencode(document.data):
        batch.append(chunk)
        size += len(chunk)
        if size >= WRITE_CHUNK:
            handle.write("".join(batch).encode("utf-8"))
            batch = []
            size = 0
    handle.write("".join(batch).encode("utf-8"))


def _backup(path: str) -> str:
    """A second name for the current content of `path` (a hard link, else a copy), to restore it."""
    backup = _temporary_name(path, "old")
    try:
        os.link(path, backup)
    except OSError:
        with open(path, "rb") as source, open(backup, "xb") as copy:
            copy.write(source.read())
    return backup
