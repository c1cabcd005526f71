"""The exceptions the engine raises: one base class, and one subclass per kind of bad input.

Callers (the CLI, the GUI) catch `EngineError` and show `str(error)`, which always names the file
(when there is one) and the problem in one line. Nothing here does I/O.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class CorpusError(EngineError):
    """A training file cannot be used: missing, a directory, not UTF-8, empty, unreadable.

    `path` is the file; `byte_offset` is where the problem is, when it has a place (-1 when not).
    """

    path: str
    byte_offset: int
    reason: str

    def __init__(self, path: str, reason: str, byte_offset: int = -1) -> None:
        where = f" at byte {byte_offset}" if byte_offset >= 0 else ""
        super().__init__(f"{path}: {reason}{where}")
        self.path = path
        self.reason = reason
        self.byte_offset = byte_offset


class FileError(EngineError):
    """A file the user pointed at cannot be read or written: "<path>: <reason>"."""

    path: str
    reason: str

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class TokenizerFileError(FileError):
    """A tokenizer file (tokenizer.json, vocab.txt, ...) cannot be read or written.

    Truncated or foreign JSON, an unknown component type, a newer `version`, a missing field.
    """


class TrainerMismatchError(EngineError):
    """A trainer was given a model of another kind (a BpeTrainer with a WordPiece model...)."""


class TrainingCancelled(EngineError):
    """The progress sink asked a training run to stop; the tokenizer was left unchanged."""


class SchemaError(EngineError):
    """A serialized component (a tokenizer.json object) does not match the schema.

    Raised by the stages' `from_dict` functions, which do not know the file; the file readers
    in `engine.formats` turn it into a `TokenizerFileError` that names the file.
    """


class ProjectFileError(FileError):
    """A project file (*.tokproj) cannot be read or written: not JSON, not a project, a newer
    format version, a damaged entry."""


class RegexTimeoutError(EngineError):
    """A user's regex (a Split or Replace pattern) took longer than its bound on one text: it
    backtracks catastrophically. The message names the pattern and the text (shortened)."""


class TruncationError(EngineError):
    """Truncation cannot honour its parameters (HF's TruncationError, and its stride panic)."""


class VocabularyTooSmallError(EngineError, ValueError):
    """A `vocab_size` smaller than the tokens the words' alphabet needs (`engine.trainers.base.
    AlphabetNeed`): `requested` is the vocab_size, `required` the smallest one that holds them,
    `detail` what they are ("3,086 characters + 1 special token"), `hint` another way out, or "".

    Also a ValueError, as the engine's Unigram trainer always raised (HF's raises a plain
    Exception, "The vocabulary is not large enough to contain all chars"). One line:
    "vocab_size 2,000 is smaller than the 3,087 tokens the alphabet needs (3,086 characters +
    1 special token): choose at least 3,087".
    """

    requested: int
    required: int
    detail: str
    hint: str

    def __init__(self, requested: int, required: int, detail: str, hint: str = "") -> None:
        super().__init__(vocabulary_too_small_text("vocab_size", requested, required, detail, hint))
        self.requested = requested
        self.required = required
        self.detail = detail
        self.hint = hint

    def message(self, name: str, with_hint: bool = True) -> str:
        """The line with the option called `name` (the command line's "--vocab-size"), and
        without the hint where that way out is not offered."""
        return vocabulary_too_small_text(name, self.requested, self.required, self.detail, self.hint if with_hint else "")

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # (the default would call __init__ with the message alone)
        return (VocabularyTooSmallError, (self.requested, self.required, self.detail, self.hint))


def vocabulary_too_small_text(name: str, requested: int, required: int, detail: str, hint: str) -> str:
    """The line of a `VocabularyTooSmallError`: ("vocab_size", 5, 14, "13 characters + 1 special
    token", "") -> "vocab_size 5 is smaller than the 14 tokens the alphabet needs (13 characters
    + 1 special token): choose at least 14"; a hint follows after ", or "."""
    other = f", or {hint}" if hint else ""
    return (
        f"{name} {requested:,} is smaller than the {required:,} tokens the alphabet needs ({detail}): "
        f"choose at least {required:,}{other}"
    )
