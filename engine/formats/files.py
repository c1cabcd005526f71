"""Reading and writing the user's files safely: atomic writes and clear errors for bad files.

Every writer in the engine goes through `write_text_atomically`, so a crash or a full disk never
leaves a half-written file where a good one was. No format knowledge here.
"""

from __future__ import annotations

import os
import secrets
import stat

from engine.errors import TokenizerFileError


def write_text_atomically(path: str, text: str) -> None:
    """Write `text` as UTF-8 to `path` through a temporary file in the same folder and a rename."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise TokenizerFileError(path, "is a directory, not a file")
    if not os.path.isdir(folder):
        raise TokenizerFileError(path, f"folder {folder} does not exist")
    # subtle: not tempfile.mkstemp, whose files are 0600; "x" mode creates with the user's umask,
    # and a replaced file keeps its own mode.
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.{secrets.token_hex(4)}.part")
    try:
        with open(tmp, "x", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if os.path.exists(path):
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_text(path: str, what: str) -> str:
    """The whole UTF-8 text of a small file (a tokenizer, a vocabulary), or a TokenizerFileError.

    `what` names the expected content in messages ("tokenizer.json", "vocab.txt").
    """
    if os.path.isdir(path):
        raise TokenizerFileError(path, f"is a directory, not a {what} file")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise TokenizerFileError(path, "no such file") from None
    except OSError as error:
        raise TokenizerFileError(path, f"cannot be read ({error.strerror})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TokenizerFileError(
            path, f"is not UTF-8 text (invalid byte 0x{data[error.start]:02X} at byte {error.start}); is it really a {what}?"
        ) from None
