"""Writing and reading project files off the GUI thread, the autosaved recovery copies, and the
lock that tells a second window a project is open already.

A save takes the project's members on the GUI thread (`Project.snapshot`: bytes a result made
once, so this is cheap) and packs and writes them on a pool thread: zlib and file I/O run
without Python's lock, so the window keeps drawing. Reading a project file is the same the
other way. No widgets here.

Recovery copies live in the per-user state folder, one per window (`recovery/<id>.tokproj`,
locked by `<id>.lock` while that window lives): a copy whose lock nobody holds is left by a
window that did not close properly, and is offered back at the next start. A copy is removed
only when its project is saved, or closed without changes, or the user discards it.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import threading
import time
import uuid
from collections.abc import Callable, Collection
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Final

from PySide6.QtCore import QEventLoop, QLockFile, QObject, QRunnable, QThreadPool, Signal

from engine.errors import ProjectFileError, TokenizerFileError
from engine.formats.files import read_bytes
from engine.project.archive import ZIP_MAGIC, Part, pack, unpack
from engine.project.project_file import Project, write_archive
from workbench.jobs.runners.child_job import exit_reason
from workbench.core.settings import state_dir

RECOVERY_FOLDER: Final = "recovery"
# A format-1 project (one JSON text) bigger than this is parsed in a child process.
IN_THREAD_JSON_BYTES: Final = 4 << 20
RECOVERY_NOTE: Final = "recovery.json"
DAMAGED_SUFFIX: Final = ".damaged"


class _TaskSignals(QObject):
    done = Signal(int, object)
    failed = Signal(int, str)


class _Task(QRunnable):
    """One function run on a pool thread, its answer (or its error's message) signalled back."""

    def __init__(self, number: int, work: Callable[[], object], signals: _TaskSignals) -> None:
        super().__init__()
        self.number = number
        self.work = work
        self.signals = signals

    def run(self) -> None:
        try:
            answer = self.work()
        except ProjectFileError as error:
            self.signals.failed.emit(self.number, str(error))
            return
        except OSError as error:
            self.signals.failed.emit(self.number, f"{error.filename or 'the file'}: {error.strerror or error}")
            return
        except MemoryError:
            self.signals.failed.emit(self.number, "not enough memory")
            return
        except Exception as error:  # noqa: BLE001 - reported to the window, never raised into Qt
            self.signals.failed.emit(self.number, f"{type(error).__name__}: {error}")
            return
        self.signals.done.emit(self.number, answer)


class Worker(QObject):
    """Runs functions on a private one-thread pool (one write at a time, in the order asked)
    and reports each on the GUI thread: `finished(number, answer)` or `failed(number, message)`.
    `wait` runs the event loop until one has ended: the window keeps drawing meanwhile."""

    finished = Signal(int, object)
    failed = Signal(int, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._signals = _TaskSignals(self)
        self._signals.done.connect(self._on_task_done)
        self._signals.failed.connect(self._on_task_failed)
        self._next = 0
        self._ended: dict[int, tuple[bool, object]] = {}
        self._waiting: set[int] = set()

    def start(self, work: Callable[[], object]) -> int:
        """Run `work` on the pool thread; returns the number its signal will carry."""
        self._next += 1
        self._waiting.add(self._next)
        self._pool.start(_Task(self._next, work, self._signals))
        return self._next

    def busy(self, besides: Collection[int] = ()) -> bool:
        """Whether a task is still to end (`besides`: tasks that do not count)."""
        return bool(self._waiting.difference(besides))

    def wait(self, number: int) -> tuple[bool, object]:
        """Run the event loop until task `number` ends: (True, answer) or (False, message)."""
        loop = QEventLoop()
        while number not in self._ended:
            self.finished.connect(loop.quit)
            self.failed.connect(loop.quit)
            try:
                if number not in self._ended:
                    loop.exec()
            finally:
                self.finished.disconnect(loop.quit)
                self.failed.disconnect(loop.quit)
        return self._ended.pop(number)

    def wait_all(self) -> None:
        """Block until every task has ended (closing the window)."""
        self._pool.waitForDone()

    def _on_task_done(self, number: int, answer: object) -> None:
        self._waiting.discard(number)
        self._ended[number] = (True, answer)
        self.finished.emit(number, answer)
        self._forget_old()

    def _on_task_failed(self, number: int, message: str) -> None:
        self._waiting.discard(number)
        self._ended[number] = (False, message)
        self.failed.emit(number, message)
        self._forget_old()

    def _forget_old(self) -> None:
        # answers nobody waited for are not kept forever
        for number in [n for n in self._ended if n < self._next - 16]:
            del self._ended[number]


def write_project(path: str, members: list[tuple[str, Part]], backup: bool = True) -> str:
    """Pack `members` (a `Project.snapshot`) and write them to `path` atomically; returns `path`.
    For a pool thread."""
    write_archive(path, pack(members), backup)
    return path


class ReadAhead:
    """A project file read on a thread of its own from the moment the application starts, while
    Qt is loaded and the window is built: reading is mostly zlib, which runs without Python's
    lock, so the read and the building overlap. The window's open takes the answer
    (`work_for`) instead of reading the file again; a file changed since is read again."""

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        self._identity = _identity(self.path)
        self._answer: Project | BaseException | None = None
        # (an event, not Thread.join: joined from a Qt pool thread, threading would register
        # that thread as a dummy for good)
        self._read_done = threading.Event()
        threading.Thread(target=self._read, name="project-read-ahead", daemon=True).start()

    def _read(self) -> None:
        try:
            self._answer = read_project(self.path)
        except BaseException as error:  # noqa: BLE001 - raised again where the open reads it
            self._answer = error
        finally:
            self._read_done.set()

    def work_for(self, path: str) -> Callable[[], Project] | None:
        """What reads `path` for `Worker.start`, from this read when it is of that same file
        (once: a later open reads the file again), else None."""
        if os.path.abspath(path) != self.path or self._identity is None:
            return None
        self.path = ""

        def answer() -> Project:
            self._read_done.wait()
            found, self._answer = self._answer, None
            if _identity(path) != self._identity:
                return read_project(path)  # (changed on disk while it was read)
            if isinstance(found, BaseException):
                raise found
            assert found is not None
            return found

        return answer


def _identity(path: str) -> tuple[int, int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns)


def read_project(path: str) -> Project:
    """Read the project file `path` (for a pool thread); ProjectFileError names the problem.

    An archive is read here: its parts stay bytes until a view needs them. A big format-1 file
    (one JSON text) is parsed in a child process, which sends back its parts: parsing 300 MB of
    JSON holds Python's lock for seconds, and the window would stand still."""
    try:
        data = read_bytes(path, "project")
    except TokenizerFileError as error:
        raise ProjectFileError(path, error.reason) from None
    if data.startswith(ZIP_MAGIC) or len(data) <= IN_THREAD_JSON_BYTES:
        return Project.from_bytes(data, path)
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_convert_main, args=(path, sender), name="project-reading", daemon=True)
    process.start()
    sender.close()
    try:
        message = receiver.recv()
    except (EOFError, OSError):
        message = ("failed", f"the process reading it stopped ({exit_reason(process.exitcode)})")
    finally:
        receiver.close()
        process.join(5.0)
        if process.is_alive():
            process.kill()
            process.join()
    if message[0] != "done":
        raise ProjectFileError(path, str(message[1]))
    return Project.from_members({name: Part(content) for name, content in message[1]}, path)


def _convert_main(path: str, connection: Connection) -> None:
    """The child: parse a format-1 project and send its archive members (or why it cannot)."""
    try:
        project = Project.load(path)
        members = project.snapshot(os.path.dirname(os.path.abspath(path)))
        connection.send(("done", [(name, part.content) for name, part in members]))
    except ProjectFileError as error:
        connection.send(("failed", error.reason))
    except MemoryError:
        connection.send(("failed", "it is too big to read in this machine's memory"))
    finally:
        connection.close()


# -- recovery copies ---------------------------------------------------------------------------


def recovery_folder() -> Path:
    return state_dir() / RECOVERY_FOLDER


@dataclass
class RecoveryNote:
    """What a recovery copy says of itself: the project's name, the file it was saved as (""
    when never saved), when it was autosaved, and by which process."""

    name: str
    path: str
    saved_at: float
    pid: int

    def to_bytes(self) -> bytes:
        return json.dumps({"name": self.name, "path": self.path, "saved_at": self.saved_at, "pid": self.pid}).encode("utf-8")

    @staticmethod
    def from_members(members: dict[str, Part]) -> RecoveryNote:
        note = members.get(RECOVERY_NOTE)
        try:
            data = json.loads(note.content if note is not None else b"{}")
        except ValueError:
            data = {}
        if not isinstance(data, dict):
            data = {}
        name, path, saved_at, pid = data.get("name"), data.get("path"), data.get("saved_at"), data.get("pid")
        return RecoveryNote(
            name if isinstance(name, str) else "",
            path if isinstance(path, str) else "",
            float(saved_at) if isinstance(saved_at, (int, float)) and not isinstance(saved_at, bool) else 0.0,
            pid if isinstance(pid, int) and not isinstance(pid, bool) else 0,
        )

    def describe(self) -> str:
        """“demo” (from /home/me/demo.tokproj), autosaved 2026-11-27 10:32"""
        where = f" (from {self.path})" if self.path else " (never saved)"
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.saved_at)) if self.saved_at else "at an unknown time"
        return f"“{self.name or 'Untitled'}”{where}, autosaved {when}"


class RecoveryCopy:
    """This window's recovery copy: `path` (written by autosave) and the lock that marks it as
    alive. Made when the window opens; `adopt` takes over a copy left by a crash."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder if folder is not None else recovery_folder()
        self.id = uuid.uuid4().hex[:16]
        self.path = str(self.folder / f"{self.id}.tokproj")
        self._lock: QLockFile | None = None

    def hold(self) -> bool:
        """Create the folder and take this copy's lock (False when the folder cannot be written)."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return False
        lock = QLockFile(str(self.folder / f"{self.id}.lock"))
        lock.setStaleLockTime(0)
        if not lock.tryLock(0):
            return False
        self._lock = lock
        return True

    def adopt(self, orphan: str) -> bool:
        """Make the recovery copy `orphan` (left by a crash) this window's own, in one rename:
        it stays on disk until this window saves the project or writes a newer copy."""
        try:
            os.replace(orphan, self.path)
        except OSError:
            return False
        return True

    def remove(self) -> None:
        try:
            os.unlink(self.path)
        except OSError:
            pass

    def release(self) -> None:
        """Let go of the lock (the window closes); the copy itself stays if it was not removed."""
        if self._lock is not None:
            self._lock.unlock()
            self._lock = None


def orphaned_copies(folder: Path | None = None) -> list[tuple[str, QLockFile]]:
    """The recovery copies no living window holds (newest first), each with its lock, now held
    by the caller (release it, or keep it while the copy is offered)."""
    folder = folder if folder is not None else recovery_folder()
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found: list[tuple[float, str, QLockFile]] = []
    for name in names:
        if not name.endswith(".tokproj"):
            continue
        path = str(folder / name)
        lock = QLockFile(path[: -len(".tokproj")] + ".lock")
        lock.setStaleLockTime(0)
        if not lock.tryLock(0):
            continue  # a living window's copy
        try:
            mtime = os.path.getmtime(path)
        except OSError:
            lock.unlock()
            continue
        found.append((mtime, path, lock))
    found.sort(key=_newest_first)
    return [(path, lock) for _, path, lock in found]


def _newest_first(item: tuple[float, str, QLockFile]) -> float:
    return -item[0]


def read_recovery(path: str) -> tuple[Project, RecoveryNote]:
    """A recovery copy's project and note; ProjectFileError when it cannot be read."""
    try:
        data = read_bytes(path, "project")
    except TokenizerFileError as error:
        raise ProjectFileError(path, error.reason) from None
    members = unpack(data, path) if data.startswith(ZIP_MAGIC) else {}
    project = Project.from_bytes(data, path)
    return project, RecoveryNote.from_members(members)


def set_aside(path: str) -> str:
    """Rename a recovery copy that cannot be read to `<path>.damaged` (never offered again,
    never deleted: the user may want it); returns the new path ("" when it could not be moved)."""
    target = path + DAMAGED_SUFFIX
    try:
        os.replace(path, target)
    except OSError:
        return ""
    return target


# -- the lock on an open project ---------------------------------------------------------------


def lock_path(project_path: str) -> str:
    """`.~demo.tokproj.lock` beside `demo.tokproj`."""
    folder, name = os.path.split(os.path.abspath(project_path))
    return os.path.join(folder, f".~{name}.lock")


class ProjectLock:
    """Marks a project file as open in this window (a lock file beside it, as office programs
    make): another window opening it is told. Stale locks (their process gone) are taken over."""

    def __init__(self) -> None:
        self._lock: QLockFile | None = None
        self.path = ""

    def acquire(self, project_path: str) -> tuple[bool, str]:
        """(True, "") when the project is now locked by this window, or could not be locked for
        want of a writable folder (nothing to tell); (False, who) when another window has it."""
        self.release()
        lock = QLockFile(lock_path(project_path))
        lock.setStaleLockTime(0)
        if lock.tryLock(0):
            self._lock = lock
            self.path = os.path.abspath(project_path)
            return True, ""
        if lock.error() == QLockFile.LockError.LockFailedError:
            info = lock.getLockInfo()
            who = f"process {info[0]} on {info[1]}" if isinstance(info, tuple) and len(info) >= 2 else "another process"
            return False, who
        return True, ""  # (a folder we cannot write: no lock, and nobody else's either)

    def release(self) -> None:
        if self._lock is not None:
            self._lock.unlock()
            self._lock = None
        self.path = ""
