"""Work shared with forked children: each child does its share and reports over a pipe (the
bytes it has read as it goes, then its result or its error), while this process does its own
share and takes their messages between its steps. Word counting (`engine.corpus.counting`) and corpora
to ids (`engine.corpus.ids`) share out their reading this way.

    children = Children("word-counting")
    children.start(lambda progress: count(share, progress))   # a child returns its counts
    ... this process's own share, calling children.poll(0.0) now and then ...
    children.wait(tick)          # until every child is done; children.results[i] is its result
    children.stop()              # always (finally): pipes closed, children reaped
"""

from __future__ import annotations

import gc
import signal
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable
from multiprocessing import get_context
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Final

from engine.errors import CorpusError, EngineError, FileError

# The signals that stop a command (the command line turns them into exceptions in its process).
STOP_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class ByteProgress(ABC):
    """Where reading says how many bytes it has read."""

    @abstractmethod
    def advance(self, count: int) -> None: ...


class PipeProgress(ByteProgress):
    """A child process's progress: read bytes go to the parent through the pipe."""

    connection: Connection

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def advance(self, count: int) -> None:
        self.connection.send(("progress", count))


def close_inherited(connections: list[Connection]) -> None:
    """In a forked child: close the parent's ends of the pipes it inherited (its own, and the
    earlier children's). Otherwise a child outliving its parent (killed) keeps a reader of its
    own pipe open, and its send blocks forever instead of failing: an orphan that never exits."""
    for connection in connections:
        connection.close()


class Children:
    """Forked children doing shares of one piece of work, and this process's ends of their pipes.

    `results[i]` is child i's result once it is done; `errors[i]` its error (a CorpusError or
    FileError as raised there, anything else as an EngineError). `read` sums the bytes the
    children have reported reading.
    """

    what: str
    connections: list[Connection]
    processes: list[BaseProcess]
    results: list[object]
    errors: list[EngineError | None]
    finished: list[bool]
    pending: int
    read: int

    def __init__(self, what: str) -> None:
        """`what` names the children in errors: "a {what} process failed: ..."."""
        self.what = what
        self.connections = []
        self.processes = []
        self.results = []
        self.errors = []
        self.finished = []
        self.pending = 0
        self.read = 0

    def start(self, work: Callable[[ByteProgress], object]) -> None:
        """Fork a child that runs `work` (reporting its reading to the progress it is given) and
        sends back what `work` returns."""
        # subtle: a forked child inherits unflushed output and flushes it again when it exits.
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
        context = get_context("fork")
        receiver, sender = context.Pipe(duplex=False)
        inherited = self.connections + [receiver]
        child = context.Process(target=_child_main, args=(sender, inherited, work), daemon=True)
        self.connections.append(receiver)
        self.results.append(None)
        self.errors.append(None)
        self.finished.append(False)
        self.pending += 1
        # subtle: a stop signal arriving during the fork would run this process's handler inside
        # the fork's own hooks, which swallow what it raises (Python prints "Exception ignored
        # in _releaseLock"): held back until the fork is over, then raised here as usual.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            child.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        sender.close()
        self.processes.append(child)

    def poll(self, timeout: float) -> None:
        """Take every message the children have sent (waiting up to `timeout` for the first)."""
        open_ones: list[Connection] = []
        for index in range(len(self.connections)):
            if not self.finished[index]:
                open_ones.append(self.connections[index])
        if not open_ones:
            return
        for ready in wait(open_ones, timeout):
            if not isinstance(ready, Connection):
                continue
            index = self.connections.index(ready)
            try:
                message = ready.recv()
            except EOFError:
                raise EngineError(f"a {self.what} process ended without its result") from None
            self._take(index, message)

    def wait(self, tick: Callable[[], None]) -> None:
        """Poll until every child is done or failed, calling `tick` after each poll."""
        while self.pending > 0:
            self.poll(0.2)
            tick()

    def first_error(self) -> EngineError | None:
        """The error of the first child (in the order they started) that failed, if any."""
        for error in self.errors:
            if error is not None:
                return error
        return None

    def stop(self) -> None:
        """Stop the children still running, reap them all, then close the pipes.

        subtle: in this order; a pipe closed first makes a still running child's next send
        fail (it then exits quietly, see `_child_main`, but it had no need to get that far)."""
        for child in self.processes:
            if child.is_alive():
                child.terminate()
        for child in self.processes:
            child.join()
        for connection in self.connections:
            connection.close()
        self.connections = []
        self.processes = []

    def _take(self, index: int, message: object) -> None:
        if not isinstance(message, tuple) or len(message) < 2:
            raise EngineError(f"a {self.what} process sent an unexpected message")
        kind = message[0]
        if kind == "progress" and isinstance(message[1], int):
            self.read += message[1]
            return
        if kind == "done":
            self.results[index] = message[1]
        elif kind == "corpus" and len(message) == 4 and isinstance(message[3], int):
            self.errors[index] = CorpusError(str(message[1]), str(message[2]), message[3])
        elif kind == "file" and len(message) == 3:
            self.errors[index] = FileError(str(message[1]), str(message[2]))
        else:
            self.errors[index] = EngineError(f"a {self.what} process failed: {message[1]}")
        self.finished[index] = True
        self.pending -= 1


def _child_main(connection: Connection, inherited: list[Connection], work: Callable[[ByteProgress], object]) -> None:
    """A forked child: run `work`, then send ("done", result) or its error, and exit. A parent
    that is gone (killed: the pipe is broken) ends the child quietly, with no traceback."""
    close_inherited(inherited)
    # subtle: Ctrl-C reaches the whole process group, and the parent may have made SIGTERM raise
    # so that it can clean up: the parent stops its children itself, with a plain SIGTERM.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # (held back by `start` for the fork)
    gc.disable()
    # subtle: one name per handler. mypyc gives a name bound by several handlers the type of
    # the first, so a FileError caught `as error` after `except CorpusError as error` raised a
    # TypeError in the child, which then died without a word.
    message: tuple[object, ...]
    try:
        message = ("done", work(PipeProgress(connection)))
    except CorpusError as corpus_error:
        message = ("corpus", corpus_error.path, corpus_error.reason, corpus_error.byte_offset)
    except FileError as file_error:
        message = ("file", file_error.path, file_error.reason)
    except BrokenPipeError:
        message = ()  # a progress report found the parent gone: nobody to tell
    except Exception as other:  # noqa: BLE001 - reported to the parent, which raises it
        message = ("failed", f"{type(other).__name__}: {other}")
    try:
        if message:
            connection.send(message)
    except OSError:
        pass  # the parent is gone (killed): nobody to tell
    finally:
        connection.close()
    if not message:
        sys.exit(1)
