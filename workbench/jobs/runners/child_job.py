"""`ChildJob`: one function run in a child process of its own, its answer signalled back on the
GUI thread; and `stop_process_tree`, which stops a child and every process it forked.

Work that runs compiled engine code (or a regex from a file someone sent) never runs on the
window's threads: compiled code holds Python's lock, so a thread would freeze the window, and a
runaway regex could never be stopped. A child can be: `kill()` ends it and its counting
processes at once (the child leads a process group of its own). No widgets here; the functions
the children run are Qt-free (`workbench.jobs.children.estimate`).

A child function takes `(payload, connection)` and sends exactly one message before it returns:
("done", answer) or ("failed", message); before it, as many ("progress", record) as it likes.
A job that talks (`ChildJob(..., talks=True)`) is a conversation: its connection goes both ways,
the window `ask`s and the child answers each request with a ("progress", reply) (large ones in
pieces, `workbench.jobs.children.process.send_message`), until it is stopped or says "done".
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Final

from PySide6.QtCore import QEventLoop, QObject, QTimer, Signal

from workbench.jobs.children.process import Pieces

POLL_INTERVAL_MS: Final = 20
# How long a stopped process tree gets to end on SIGTERM before SIGKILL (s).
TERM_GRACE_S: Final = 1.0
# What stops a process for good (Windows has no SIGKILL: there SIGTERM is TerminateProcess).
KILL: Final = getattr(signal, "SIGKILL", signal.SIGTERM)
# How long a child that answered gets to exit on its own before it is stopped (s).
EXIT_GRACE_S: Final = 10.0
# How long one timer tick reads the child's messages at most (s): a large answer comes in pieces.
READ_BUDGET_S: Final = 0.008


class _Ready:
    """A child started ahead (`ChildJob.prestart`), waiting for its payload on `jobs`."""

    def __init__(self, process: BaseProcess, answers: Connection, jobs: Connection, target: Callable[[object, Connection], None]) -> None:
        self.process = process
        self.answers = answers
        self.jobs = jobs
        self.target = target


class ChildJob(QObject):
    """Runs one child at a time: `start(target, payload)` stops the one still running first.

    Signals: `progressed(record)` as the child reports, then `finished(answer)` or
    `failed(message)`, once per job that was not stopped.

    `prestart(target, warm)` starts the next child ahead of its job: it imports what `target`
    needs, runs `warm()`, then waits; `start` with the same target hands it the payload instead
    of starting a new process (a second or so sooner). `shutdown()` stops both.

    `talks`: the child's connection goes both ways, and `ask(request)` sends it requests while
    it runs (its replies come as `progressed`).
    """

    progressed = Signal(object)
    finished = Signal(object)
    failed = Signal(str)

    def __init__(self, name: str, parent: QObject | None = None, talks: bool = False) -> None:
        super().__init__(parent)
        self.name = name
        self.talks = talks
        self._context = multiprocessing.get_context("spawn")
        self._process: BaseProcess | None = None
        self._connection: Connection | None = None
        self._pieces = Pieces()  # (of a large answer, as they arrive)
        # children that ended or were stopped, still to be reaped (never waited for here), and
        # since when
        self._exiting: list[tuple[BaseProcess, float]] = []
        self._ready: _Ready | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_INTERVAL_MS)
        self._timer.timeout.connect(self._on_timer_timeout)

    def is_running(self) -> bool:
        return self._process is not None

    def is_ready(self) -> bool:
        """Whether a child started ahead is waiting for its job."""
        return self._ready is not None and self._ready.process.is_alive()

    def prestart(self, target: Callable[[object, Connection], None], warm: Callable[[], None] | None = None) -> None:
        """Start the child of the next `start(target, ...)` now: it imports, runs `warm()` (what
        any job of `target` reads first: a failure there is left for the job to meet), then waits
        for its payload. Nothing happens when one is waiting already."""
        ready = self._ready
        if ready is not None:
            if ready.target is target and ready.process.is_alive():
                return
            self._discard_ready()
        self._ready = self._spawn(target, warm)

    def _spawn(self, target: Callable[[object, Connection], None], warm: Callable[[], None] | None) -> _Ready:
        """A child that imports what `target` needs, runs `warm()` and waits for its payload."""
        answers, sender = self._context.Pipe(duplex=self.talks)
        jobs, job_sender = self._context.Pipe(duplex=False)
        process = self._context.Process(target=_waiting_child, args=(target, warm, jobs, sender), name=self.name, daemon=False)
        process.start()
        sender.close()
        jobs.close()
        return _Ready(process, answers, job_sender, target)

    def start(self, target: Callable[[object, Connection], None], payload: object) -> None:
        """Run `target(payload, connection)` in a child: the one started ahead for `target` if
        there is one, else a new one. The payload is handed over on a thread of its own.

        subtle: a child reads its payload only once it has started and imported what its
        target needs (a second or so); a payload larger than a pipe holds (a SentencePiece
        pipeline's character map is 250 KB) would block the window until then."""
        self.kill()
        ready = self._ready
        self._ready = None
        if ready is None or ready.target is not target or not ready.process.is_alive():
            if ready is not None:
                self._stop(ready)
            ready = self._spawn(target, None)
        threading.Thread(target=_hand_over, args=(ready.jobs, payload), name=f"{self.name} payload", daemon=True).start()
        self._process = ready.process
        self._connection = ready.answers
        self._timer.start()

    def ask(self, request: object) -> bool:
        """Send the running child of a talking job a request (its reply comes as `progressed`);
        False when there is no child to ask (none runs, or it has gone: `failed` says why)."""
        connection = self._connection
        if not self.talks or connection is None:
            return False
        try:
            connection.send(request)
        except (OSError, ValueError):
            return False
        return True

    def run(self, target: Callable[[object, Connection], None], payload: object) -> tuple[bool, object]:
        """Start a job and run the event loop until it ends (the window keeps drawing):
        (True, answer) or (False, message)."""
        loop = QEventLoop()
        outcome: list[tuple[bool, object]] = []

        def ended(ok: bool, answer: object) -> None:
            outcome.append((ok, answer))
            loop.quit()

        done = self.finished.connect(lambda answer: ended(True, answer))
        failed = self.failed.connect(lambda message: ended(False, message))
        try:
            self.start(target, payload)
            if not outcome:
                loop.exec()
        finally:
            self.finished.disconnect(done)
            self.failed.disconnect(failed)
        return outcome[0] if outcome else (False, "stopped")

    def kill(self) -> None:
        """Stop the running child and everything it started (its answer is never signalled).
        Nothing is waited for: the stopped processes are reaped on the timer."""
        process = self._process
        self._forget()
        if process is not None:
            self._let_go(process)

    def shutdown(self) -> None:
        """Stop the running child and the one started ahead, if any (the window is closing)."""
        self.kill()
        self._discard_ready()

    def _discard_ready(self) -> None:
        ready = self._ready
        self._ready = None
        if ready is not None:
            self._stop(ready)

    def _stop(self, ready: _Ready) -> None:
        ready.jobs.close()
        ready.answers.close()
        self._let_go(ready.process)

    def _let_go(self, process: BaseProcess) -> None:
        """Stop `process` and what it started; it is reaped on the timer, never waited for."""
        stop_process_tree(process, grace=0.0)
        self._exiting.append((process, time.monotonic()))
        self._timer.start()

    def _forget(self) -> None:
        self._pieces.clear()
        if self._connection is not None:
            self._connection.close()
        self._process = None
        self._connection = None

    def _reap(self) -> None:
        still: list[tuple[BaseProcess, float]] = []
        for process, since in self._exiting:
            if process.is_alive():
                if time.monotonic() - since > EXIT_GRACE_S:
                    stop_process_tree(process, grace=0.0)  # (answered, but does not exit)
                still.append((process, since))
            else:
                process.join(0)
        self._exiting = still

    def _on_timer_timeout(self) -> None:
        self._reap()
        process, connection = self._process, self._connection
        if process is None or connection is None:
            if not self._exiting:
                self._timer.stop()
            return
        message: object = None
        deadline = time.monotonic() + READ_BUDGET_S
        try:
            while time.monotonic() < deadline and connection.poll():
                message = connection.recv()
                if isinstance(message, tuple) and len(message) == 2 and message[0] == "piece":
                    self._pieces.add(message[1])  # (of a large answer: `process.send_message`)
                    message = None
                    continue
                if message == ("pieces",):
                    message = self._pieces.take()
                if not (isinstance(message, tuple) and len(message) == 2 and message[0] == "progress"):
                    break
                self.progressed.emit(message[1])
                message = None
                if self._connection is not connection:
                    return  # (stopped, or another job started, by whoever took the record)
        except (EOFError, OSError):
            message = None
        except ValueError as error:  # (pieces that make no message)
            message = ("failed", f"the {self.name} process sent {error}")
        if message is None:
            if process.is_alive() or _waiting(connection):
                return  # (still at work, or its last messages are yet to be read)
            code = process.exitcode
            self._forget()
            process.join(0)
            stop_process_tree(process, grace=0.0, group=True)  # (what it forked, if anything is left)
            self.failed.emit(f"the {self.name} process stopped unexpectedly ({exit_reason(code)})")
            return
        self._forget()
        # (it exits on its own once it has sent its answer: reaped on the timer, never waited for)
        self._exiting.append((process, time.monotonic()))
        if isinstance(message, tuple) and len(message) == 2 and message[0] == "done":
            self.finished.emit(message[1])
        elif isinstance(message, tuple) and len(message) == 2 and message[0] == "failed":
            self.failed.emit(str(message[1]))
        else:
            self.failed.emit(f"the {self.name} process sent a message the window cannot read")


def _waiting(connection: Connection) -> bool:
    """Whether `connection` has a message to read (False once it is closed or broken)."""
    try:
        return connection.poll()
    except (EOFError, OSError):
        return False


def _hand_over(jobs: Connection, payload: object) -> None:
    """Send a child its payload (on a thread of the window's: `ChildJob.start`). A child
    stopped meanwhile is not an error here: its end is reported, or was asked for."""
    try:
        jobs.send(payload)
    except (OSError, ValueError):
        pass
    finally:
        jobs.close()


def _waiting_child(
    target: Callable[[object, Connection], None], warm: Callable[[], None] | None, jobs: Connection, connection: Connection
) -> None:
    """A child: a process group of its own (so that it and its counting processes stop
    together), `warm()`, then the job when its payload comes (nothing when the window closed
    the pipe instead); a failure is sent, never raised.

    subtle: the payload is read on a thread from the start. A payload larger than the pipe
    holds (a tokenizer.json or two) would otherwise block the window's `send` until the warm-up
    is over, when Run Audit is pressed the moment the tab shows."""
    _own_group()
    received: list[object] = []
    arrived = threading.Event()

    def receive() -> None:
        try:
            received.append(jobs.recv())
        except (EOFError, OSError):
            pass
        arrived.set()

    threading.Thread(target=receive, name="job-receiver", daemon=True).start()
    if warm is not None:
        try:
            warm()
        except Exception:  # noqa: BLE001 - the job meets the problem again and reports it
            pass
    arrived.wait()
    if not received:
        connection.close()
        return
    _run(target, received[0], connection)


def _own_group() -> None:
    if hasattr(os, "setpgid"):
        try:
            os.setpgid(0, 0)
        except OSError:
            pass


def _run(target: Callable[[object, Connection], None], payload: object, connection: Connection) -> None:
    try:
        target(payload, connection)
    except MemoryError:
        connection.send(("failed", "ran out of memory"))
    except Exception as error:  # noqa: BLE001 - reported to the window
        connection.send(("failed", f"{type(error).__name__}: {error}"))
    finally:
        connection.close()


def stop_process_tree(process: BaseProcess, grace: float = TERM_GRACE_S, group: bool | None = None) -> None:
    """Stop `process` and the processes it started: SIGTERM to its process group (it leads one
    when it made its own; else to it alone), then SIGKILL to whatever is left after `grace` s.
    `group`: whether it made a group of its own (found out when None; say True for a child
    that did and has died already: its group lives on in the processes it forked)."""
    pid = process.pid
    if pid is None:
        return
    if group is None:
        group = leads_group(pid)
    _send(pid, signal.SIGTERM, group)
    process.join(grace)
    if process.is_alive() or group:
        _send(pid, KILL, group)
        process.join(grace)
    # (a group's other members are gone with SIGKILL; the zombie children are their parent's)


def leads_group(pid: int) -> bool:
    try:
        return hasattr(os, "getpgid") and os.getpgid(pid) == pid
    except OSError:
        return False


def _send(pid: int, number: int, group: bool) -> None:
    try:
        if group and hasattr(os, "killpg"):
            os.killpg(pid, number)
        else:
            os.kill(pid, number)
    except OSError:
        pass


SIGNAL_REASONS: Final = {
    "SIGKILL": "killed (SIGKILL)",
    "SIGSEGV": "crashed (segmentation fault)",
    "SIGBUS": "crashed (bus error)",
    "SIGABRT": "aborted (SIGABRT)",
    "SIGTERM": "stopped from outside (SIGTERM)",
    "SIGINT": "interrupted (SIGINT)",
}


def exit_reason(code: int | None) -> str:
    """What a process's exit code says: -9 -> "killed (SIGKILL)"; -11 -> "crashed (segmentation
    fault)"; 3 -> "exit code 3"."""
    if code is None:
        return "no exit code"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
        return SIGNAL_REASONS.get(name, f"stopped by {name}")
    return f"exit code {code}"
