"""The project file (`*.tokproj`): corpus file references, tokenizer configurations, their trained
results with what each was trained on, and their training histories, written atomically.

Format 2 (written now) is a zip archive, so that a project with several trained tokenizers stays
a few MB and opens at once: `project.json` holds the corpus references, every tokenizer's
settings and a summary of its result; each trained tokenizer's big parts are members of their
own (`tokenizers/<n>/tokenizer.json`, `history.json`, `vocabulary.json`), compressed, read only
when a view asks for them, and written from bytes made once per result. Format 1 (one JSON file
holding everything, what `Project.to_json` gives) is still read. Corpus paths are kept relative
to the project's folder where they can be, so a project folder can move. Nothing here trains or
draws.
"""

from __future__ import annotations

import json
import os
from typing import Final

from engine.errors import ProjectFileError, SchemaError, TokenizerFileError
from engine.formats.files import read_bytes, write_files_atomically
from engine.formats.safe_json import parse_json
from engine.project.archive import ZIP_MAGIC, Part, pack, unpack
from engine.project.entry import TokenizerEntry
from engine.project.facts import CorpusFile
from engine.project.fields import INDEX_MEMBER
from engine.schema import JsonValue, expect_object, get_list, get_str

FORMAT: Final = "tokenizer-workbench project"
FORMAT_VERSION: Final = 2
SUFFIX: Final = ".tokproj"
BACKUP_SUFFIX: Final = ".bak"


class Project:
    """Corpus files and tokenizers; `active` is the index of the tokenizer every view shows."""

    name: str
    corpus: list[CorpusFile]
    tokenizers: list[TokenizerEntry]
    active: int

    def __init__(self, name: str = "Untitled") -> None:
        self.name = name
        self.corpus = []
        self.tokenizers = []
        self.active = -1

    @property
    def active_entry(self) -> TokenizerEntry | None:
        if 0 <= self.active < len(self.tokenizers):
            return self.tokenizers[self.active]
        return None

    def missing_files(self) -> list[CorpusFile]:
        return [item for item in self.corpus if not item.exists()]

    def unique_name(self, wanted: str) -> str:
        """`wanted`, or `wanted (2)`, `wanted (3)`... whichever no tokenizer has yet."""
        names = [entry.name for entry in self.tokenizers]
        if wanted not in names:
            return wanted
        n = 2
        while f"{wanted} ({n})" in names:
            n += 1
        return f"{wanted} ({n})"

    def to_dict(self, folder: str) -> dict[str, JsonValue]:
        """Everything in one JSON object: format 1's layout (what `to_json` writes)."""
        return {
            "format": FORMAT,
            "format_version": 1,
            "name": self.name,
            "corpus": [item.to_dict(folder) for item in self.corpus],
            "tokenizers": [entry.to_dict(folder) for entry in self.tokenizers],
            "active": self.active,
        }

    def to_json(self, folder: str) -> str:
        """The whole project as one JSON text (format 1, which `parse` reads): for comparing
        two states, and for reading with the eyes."""
        return json.dumps(self.to_dict(folder), ensure_ascii=False, indent=1)

    def index(self, folder: str) -> dict[str, JsonValue]:
        """The archive's project.json: everything but the trained tokenizers' big parts."""
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "name": self.name,
            "corpus": [item.to_dict(folder) for item in self.corpus],
            "tokenizers": [self.tokenizers[i].index_dict(folder, i) for i in range(len(self.tokenizers))],
            "active": self.active,
        }

    def snapshot(self, folder: str) -> list[tuple[str, Part]]:
        """The archive's members as (name, part), the index first. Cheap: a result's parts are
        made once and kept (packed, once packed); what is left, packing the rest, can run on any
        thread (`engine.project.archive.pack`)."""
        members = [(INDEX_MEMBER, Part(json.dumps(self.index(folder), ensure_ascii=False, indent=1).encode("utf-8")))]
        for i in range(len(self.tokenizers)):
            members.extend(self.tokenizers[i].members(i))
        return members

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        """Pickling and deep copies go through the archive's members. subtle: with the folder ""
        no path is made relative (relpath refuses it), so every corpus path stays absolute."""
        return (_from_snapshot, (self.snapshot(""),))

    def save(self, path: str, backup: bool = True) -> None:
        """Write the project atomically, keeping the previous file as `<path>.bak` (`backup`):
        a failure never leaves a half-written file at `path`."""
        write_archive(path, pack(self.snapshot(os.path.dirname(os.path.abspath(path)))), backup)

    @staticmethod
    def load(path: str) -> Project:
        """Read a project file (an archive, or format 1's JSON); ProjectFileError names the file
        and the problem."""
        try:
            data = read_bytes(path, "project")
        except TokenizerFileError as error:
            raise ProjectFileError(path, error.reason) from None
        return Project.from_bytes(data, path)

    @staticmethod
    def from_bytes(data: bytes, path: str) -> Project:
        """The project in `data`, the content of the file `path` (which messages name)."""
        if data.startswith(ZIP_MAGIC):
            return Project.unpack(data, path)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ProjectFileError(path, f"is neither a project archive nor UTF-8 JSON (byte {error.start})") from None
        return Project.parse(text, path)

    @staticmethod
    def parse(text: str, path: str) -> Project:
        """A project in format 1's layout (one JSON text)."""
        data = _load_json(text, path)
        _check_header(data, path)
        try:
            obj = expect_object(data, "project")
            project = Project(get_str(obj, "name", "project", "Untitled"))
            folder = os.path.dirname(os.path.abspath(path))
            project.corpus = [CorpusFile.from_dict(item, folder) for item in get_list(obj, "corpus", "project")]
            project.tokenizers = [TokenizerEntry.from_dict(item, folder) for item in get_list(obj, "tokenizers", "project")]
            project.active = _active(obj, len(project.tokenizers))
        except SchemaError as error:
            raise ProjectFileError(path, str(error)) from None
        return project

    @staticmethod
    def unpack(data: bytes, path: str) -> Project:
        """A project archive (format 2)."""
        return Project.from_members(unpack(data, path), path)

    @staticmethod
    def from_members(members: dict[str, Part], path: str) -> Project:
        """A project from an archive's members (as `snapshot` makes them), read from `path`."""
        index = members.get(INDEX_MEMBER)
        if index is None:
            raise ProjectFileError(path, f"is a zip archive without {INDEX_MEMBER}: not a Tokenizer Workbench project")
        try:
            text = index.content.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ProjectFileError(path, f"{INDEX_MEMBER} is not UTF-8 (byte {error.start})") from None
        obj_data = _load_json(text, path)
        _check_header(obj_data, path)
        try:
            obj = expect_object(obj_data, "project")
            project = Project(get_str(obj, "name", "project", "Untitled"))
            folder = os.path.dirname(os.path.abspath(path))
            project.corpus = [CorpusFile.from_dict(item, folder) for item in get_list(obj, "corpus", "project")]
            project.tokenizers = [
                TokenizerEntry.from_index(item, folder, members) for item in get_list(obj, "tokenizers", "project")
            ]
            project.active = _active(obj, len(project.tokenizers))
        except SchemaError as error:
            raise ProjectFileError(path, str(error)) from None
        return project


def _from_snapshot(members: list[tuple[str, Part]]) -> Project:
    """The project `Project.snapshot("")` gave (unpickling)."""
    return Project.from_members(dict(members), os.path.join(os.getcwd(), "pickled.tokproj"))


def write_archive(path: str, data: bytes, backup: bool = True) -> None:
    """Write a packed project to `path` atomically (temporary file, flush, fsync, rename), the
    file it replaces kept as `<path>.bak` when `backup`; raises ProjectFileError naming `path`."""
    try:
        if backup and os.path.isfile(path):
            keep_backup(path)
        write_files_atomically([(path, data)])
    except TokenizerFileError as error:
        raise ProjectFileError(path, error.reason) from None
    except OSError as error:
        raise ProjectFileError(path, f"cannot be written ({error.strerror or error})") from None
    remove_stale_temporaries(path)


def keep_backup(path: str) -> None:
    """`path`'s content, kept as `<path>.bak` (one backup: the previous one is replaced)."""
    backup = path + BACKUP_SUFFIX
    spare = f"{backup}.{os.getpid()}.tmp"
    try:
        os.unlink(spare)
    except OSError:
        pass
    try:
        os.link(path, spare)
    except OSError:
        with open(path, "rb") as source, open(spare, "wb") as copy:
            copy.write(source.read())
    os.replace(spare, backup)


def remove_stale_temporaries(path: str) -> list[str]:
    """Remove what a killed writer of `path` left beside it: `.<name>.<pid>.<hex>.part` (and
    `.old`) files whose process is gone, as `engine.formats.files` names its temporaries.
    Returns the paths removed."""
    folder, name = os.path.split(os.path.abspath(path))
    prefix = f".{name}."
    removed: list[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for candidate in names:
        if not candidate.startswith(prefix) or not (candidate.endswith(".part") or candidate.endswith(".old")):
            continue
        pieces = candidate[len(prefix) :].split(".")
        if len(pieces) != 3 or not pieces[0].isascii() or not pieces[0].isdigit():
            continue
        pid = int(pieces[0])
        if pid == os.getpid() or process_alive(pid):
            continue  # a write under way (ours may run on another thread)
        try:
            os.unlink(os.path.join(folder, candidate))
            removed.append(os.path.join(folder, candidate))
        except OSError:
            pass
    return removed


def process_alive(pid: int) -> bool:
    """Whether a process `pid` exists on this machine (a pid of another user's counts as alive)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def _active(obj: dict[str, object], count: int) -> int:
    active = obj.get("active", -1)
    if isinstance(active, bool) or not isinstance(active, int):
        raise SchemaError("project: 'active' must be an integer")
    return active if -1 <= active < count else -1


def _check_header(data: object, path: str) -> None:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ProjectFileError(path, f"is not a Tokenizer Workbench project (no \"format\": \"{FORMAT}\")")
    version = data.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise ProjectFileError(path, "has no valid format_version")
    if version > FORMAT_VERSION:
        raise ProjectFileError(
            path, f"was written by a newer Tokenizer Workbench (project format {version}; this one reads up to {FORMAT_VERSION})"
        )


def _load_json(text: str, path: str) -> object:
    """JSON from a project file, read as strictly as every other file (`safe_json`): every way
    it can be wrong (truncated, nested too deep, a number of 5,000 digits, NaN, a lone
    surrogate) is a ProjectFileError naming `path`."""
    try:
        return parse_json(text, path)
    except TokenizerFileError as error:
        raise ProjectFileError(path, error.reason) from None
