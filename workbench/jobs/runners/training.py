"""`TrainingRunner`: runs one `TrainingJob` in a child process and turns its messages into Qt
signals carrying engine records.

One job at a time: starting a new one cancels the old one first. The pipe is read on a timer,
a few milliseconds at a time, so a burst of messages never blocks the event loop (the result,
megabytes, comes in pieces: `workbench.jobs.children.process`). A child that dies without its final
message (killed, crashed, out of memory) is reported as a failure, with the reason its exit
gives and the memory it was seen using; a child that does not stop when cancelled is stopped
with the counting processes it forked.

Pause and resume (POSIX only, `CAN_PAUSE`): SIGSTOP / SIGCONT to the child and to the counting
processes it forked (its process group, which the child makes its own); the child keeps all its
state. Paused time is left out of `elapsed_seconds()` and of the result's seconds, which are
the time the user waited (from the start of the process to the result's arrival).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from multiprocessing.synchronize import Event
from typing import Final

from PySide6.QtCore import QEventLoop, QObject, QTimer, Signal

from engine.errors import SchemaError
from engine.progress import TrainProgress
from engine.trainers.records import MergeStep, RoundStep, step_from_dict
from workbench.jobs.children.process import Pieces
from workbench.core.formatting import human_size
from workbench.jobs.runners.child_job import exit_reason, stop_process_tree
from workbench.jobs.children.training import TrainingJob, TrainingResult, child_main

# How often the pipe is read, and how long one read may take (ms).
POLL_INTERVAL_MS: Final = 25
READ_BUDGET_S: Final = 0.008
# How long a cancelled child gets to stop on its own before it is terminated (s).
CANCEL_GRACE_S: Final = 3.0
# How long a child that sent its last message gets to exit before it is terminated (s).
EXIT_GRACE_S: Final = 10.0
# Stopping and continuing processes by signal: POSIX only (not Windows).
CAN_PAUSE: Final = sys.platform != "win32" and hasattr(signal, "SIGSTOP")
# How often the training processes' memory is read (s).
MEMORY_INTERVAL_S: Final = 1.0


class TrainingRunner(QObject):
    """Starts, watches and cancels the training process.

    Signals: `started()`; `progressed(TrainProgress)`; `stepped(list of MergeStep/RoundStep)`;
    `evaluated(steps_done, chars_per_token)`; then exactly one of `finished(TrainingResult)`,
    `cancelled()`, `failed(message)`, `refused(option, message)` (the trainer's `option`, such
    as "vocab_size", cannot train on the words: the message says why and what would).
    """

    started = Signal()
    progressed = Signal(object)
    stepped = Signal(list)
    evaluated = Signal(int, float)
    finished = Signal(object)
    cancelled = Signal()
    failed = Signal(str)
    refused = Signal(str, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._context = multiprocessing.get_context("spawn")
        self._process: BaseProcess | None = None
        self._connection: Connection | None = None
        self._cancel: Event | None = None
        self._cancel_requested_at = 0.0
        # the steps streamed so far, merges and rounds apart (the history the last message omits)
        self._merges: list[MergeStep] = []
        self._rounds: list[RoundStep] = []
        self._pieces = Pieces()  # of the last message, as they arrive
        self._assembled: object | None = None  # that message, handled on the next tick
        self._started_at = 0.0
        self._paused_at = 0.0  # when the running job was paused (0: it is not)
        self._paused_total = 0.0
        # the most memory the training processes were seen using, and when it was last read
        self._peak_bytes = 0
        self._memory_read_at = 0.0
        # Children that sent their last message, still exiting: (process, when it was done).
        self._exiting: list[tuple[BaseProcess, float]] = []
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_INTERVAL_MS)
        self._timer.timeout.connect(self._on_timer_timeout)

    def is_running(self) -> bool:
        return self._process is not None

    def is_idle(self) -> bool:
        """No job running and every finished child has exited."""
        self._reap()
        return self._process is None and not self._exiting

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self, job: TrainingJob) -> None:
        """Start `job` in a new process (cancelling, and waiting for, any job still running)."""
        if self._process is not None:
            self.shutdown()
        receiver, sender = self._context.Pipe(duplex=False)
        self._cancel = self._context.Event()
        # subtle: not a daemon, since a daemonic process may not start the counting processes; a
        # child whose window is gone fails its next send and exits.
        process = self._context.Process(
            target=child_main, args=(job.to_dict(), sender, self._cancel), name="tokenizer-training", daemon=False
        )
        process.start()
        sender.close()
        self._process = process
        self._connection = receiver
        self._cancel_requested_at = 0.0
        self._merges = []
        self._rounds = []
        self._pieces.clear()
        self._assembled = None
        self._started_at = time.monotonic()
        self._paused_at = 0.0
        self._paused_total = 0.0
        self._peak_bytes = 0
        self._memory_read_at = 0.0
        self._timer.start()
        self.started.emit()

    # -- pause -------------------------------------------------------------------------------

    def cancelling(self) -> bool:
        """A cancel was asked for and the job has not ended yet."""
        return self._process is not None and self._cancel_requested_at > 0.0

    def is_paused(self) -> bool:
        return self._process is not None and self._paused_at > 0.0

    def elapsed_seconds(self) -> float:
        """How long the running job has been running, paused time left out (frozen while paused)."""
        if self._process is None:
            return 0.0
        now = self._paused_at if self._paused_at else time.monotonic()
        return max(0.0, now - self._started_at - self._paused_total)

    def pause(self) -> bool:
        """Stop the training process (and its counting processes) where it is; True if it was."""
        process = self._process
        if not CAN_PAUSE or process is None or self._paused_at or self._cancel_requested_at or process.pid is None:
            return False
        if not _signal_tree(process.pid, signal.SIGSTOP):
            return False
        self._paused_at = time.monotonic()
        return True

    def resume(self) -> None:
        """Continue a paused training process."""
        process = self._process
        if process is None or not self._paused_at:
            return
        if process.pid is not None:
            _signal_tree(process.pid, signal.SIGCONT)
        self._paused_total += time.monotonic() - self._paused_at
        self._paused_at = 0.0

    def wait(self, timeout_s: float) -> str:
        """Run the event loop until the job ends; "finished", "cancelled", "failed: <why>",
        "refused: <why>", or "timed out". For scripts (the screenshots, the benchmarks), never for the window."""
        loop = QEventLoop()
        outcome: list[str] = []

        def ended(what: str) -> None:
            outcome.append(what)
            loop.quit()

        connections = [
            self.finished.connect(lambda result: ended("finished")),
            self.cancelled.connect(lambda: ended("cancelled")),
            self.failed.connect(lambda message: ended(f"failed: {message}")),
            self.refused.connect(lambda option, message: ended(f"refused: {message}")),
        ]
        QTimer.singleShot(int(timeout_s * 1000), loop.quit)
        if self.is_running():
            loop.exec()
        for signal, connection in zip((self.finished, self.cancelled, self.failed, self.refused), connections):
            signal.disconnect(connection)
        return outcome[0] if outcome else ("timed out" if self.is_running() else "not running")

    def cancel(self) -> None:
        """Ask the child to stop; it is terminated if it has not stopped within a few seconds."""
        if self._cancel is not None and self._process is not None and not self._cancel_requested_at:
            # subtle: continued first: a process stopped while it was reading the event holds the
            # event's lock, and `set` would wait for it for ever (closing the window hung so)
            self.resume()
            self._cancel.set()
            self._cancel_requested_at = time.monotonic()

    def shutdown(self, wait_seconds: float = CANCEL_GRACE_S) -> None:
        """Cancel and wait until every child is gone (closing the window); emits nothing."""
        process = self._process
        if process is not None and self._cancel is not None:
            self.resume()  # (first: see `cancel`)
            self._cancel.set()
        self._forget()
        if process is not None:
            self._exiting.append((process, time.monotonic()))
        for child, _ in self._exiting:
            child.join(wait_seconds)
            # (and the counting processes of a child that did not stop on its own)
            stop_process_tree(child, grace=2.0)
            if child.is_alive():
                child.kill()
                child.join()
        self._exiting = []
        self._timer.stop()

    # -- reading the pipe --------------------------------------------------------------------

    def _on_timer_timeout(self) -> None:
        self._reap()
        connection = self._connection
        process = self._process
        if connection is None or process is None:
            if not self._exiting:
                self._timer.stop()
            return
        assembled = self._assembled
        if assembled is not None:
            # (a message put together from its pieces on the last tick is handled on this one:
            # putting together and handling are each a tick's work)
            self._assembled = None
            if self._take(assembled):
                return
        deadline = time.monotonic() + READ_BUDGET_S
        ended = False
        try:
            while time.monotonic() < deadline and self._assembled is None and connection.poll():
                message = connection.recv()
                if self._take(message):
                    return
        except (EOFError, OSError):
            ended = True  # the child closed its end without a last message
        # subtle: a child's counting processes inherit its end of the pipe, so a killed child
        # need not close it; a dead child with nothing left to read has ended either way.
        if self._assembled is None and not process.is_alive() and (ended or not connection.poll()):
            code = process.exitcode
            self._finish(stopping=True)
            if CAN_PAUSE:
                # (its counting processes, orphaned: the group the child made lives on in them)
                stop_process_tree(process, grace=0.0, group=True)
            self.failed.emit(f"the training process stopped unexpectedly: {self.death_reason(code)}; the project is unchanged")
            return
        self._watch_memory(process)
        if self._cancel_requested_at and time.monotonic() - self._cancel_requested_at > CANCEL_GRACE_S:
            # (a process deaf to the request: stuck in a regex, say) it and its counting
            # processes are stopped, so that nothing is left running
            self._finish(stopping=True)
            stop_process_tree(process)
            self.cancelled.emit()

    def _take(self, message: object) -> bool:
        """Handle one message; True when it was the last one of the job."""
        if not isinstance(message, tuple) or not message:
            return False
        kind = message[0]
        try:
            if kind == "piece":
                self._pieces.add(message[1])
            elif kind == "pieces":
                self._assembled = self._pieces.take()
            elif kind == "progress":
                self.progressed.emit(TrainProgress.from_dict(message[1]))
            elif kind == "steps":
                steps = [step_from_dict(item) for item in message[1]]
                for step in steps:
                    if isinstance(step, MergeStep):
                        self._merges.append(step)
                    else:
                        self._rounds.append(step)
                self.stepped.emit(steps)
            elif kind == "evaluation":
                self.evaluated.emit(int(message[1]), float(message[2]))
            elif kind == "done":
                result = TrainingResult.from_wire(message[1], self._merges, self._rounds)
                # subtle: the time the user waited, from Train to the result, pauses left out;
                # the process's own clock misses its start and the work after the report.
                result.report = result.report.with_seconds(self.elapsed_seconds())
                self._finish()
                self.finished.emit(result)
                return True
            elif kind == "cancelled":
                self._finish()
                self.cancelled.emit()
                return True
            elif kind == "failed":
                self._finish()
                self.failed.emit(str(message[1]))
                return True
            elif kind == "refused":
                self._finish()
                self.refused.emit(str(message[1]), str(message[2]))
                return True
        except (SchemaError, ValueError, TypeError, IndexError, KeyError) as error:
            self._finish()
            self.failed.emit(f"the training process sent a message the window cannot read ({error})")
            return True
        return False

    def _finish(self, stopping: bool = False) -> None:
        """The job is over: stop reading, and let the child exit on its own (watched by `_reap`,
        never waited for on this thread: a big process can take a moment to free its memory);
        `stopping`: the caller stops it."""
        process = self._process
        self._forget()
        if process is not None and not stopping:
            self._exiting.append((process, time.monotonic()))
            self._timer.start()

    def death_reason(self, code: int | None) -> str:
        """Why the training process ended without a last message, as far as can be known: its
        exit code or signal, and the most memory it was seen using."""
        reason = exit_reason(code)
        total = machine_memory()
        using = ""
        if self._peak_bytes > 0:
            of = f" of this machine's {human_size(total)}" if total > 0 else ""
            using = f"it was using {human_size(self._peak_bytes)}{of}, with its counting processes"
        if code == -signal.SIGKILL:
            if total > 0 and self._peak_bytes > 0.6 * total:
                return (
                    f"{reason}, most likely by the system's out-of-memory killer: {using}. Train on a sample of "
                    "the lines (Sample), with fewer counting processes, or on fewer files"
                )
            return f"{reason} by another program, or by the system when it ran out of memory" + (f" ({using})" if using else "")
        return reason + (f" ({using})" if using else "")

    def _watch_memory(self, process: BaseProcess) -> None:
        """Note, about once a second, how much memory the training processes use (Linux)."""
        now = time.monotonic()
        if now - self._memory_read_at < MEMORY_INTERVAL_S or process.pid is None:
            return
        self._memory_read_at = now
        total = 0
        for pid in [process.pid, *_descendants(process.pid)]:
            total += _resident_bytes(pid)
        self._peak_bytes = max(self._peak_bytes, total)

    def _reap(self) -> None:
        still: list[tuple[BaseProcess, float]] = []
        for process, since in self._exiting:
            if process.is_alive():
                if time.monotonic() - since > EXIT_GRACE_S:
                    stop_process_tree(process, grace=0.0)
                still.append((process, since))
            else:
                process.join(0)
        self._exiting = still

    def _forget(self) -> None:
        self._timer.stop()
        if self._connection is not None:
            self._connection.close()
        self._process = None
        self._connection = None
        self._cancel = None
        self._cancel_requested_at = 0.0
        self._paused_at = 0.0
        self._pieces.clear()
        self._assembled = None


def _signal_tree(pid: int, number: int) -> bool:
    """Send signal `number` to the training process `pid` and every process it started: its
    process group when it leads one (the child makes its own), else it and its descendants as
    /proc lists them. False when the process is gone."""
    try:
        if os.getpgid(pid) == pid:
            os.killpg(pid, number)
            return True
    except OSError:
        pass
    try:
        os.kill(pid, number)
    except OSError:
        return False
    for child in _descendants(pid):
        try:
            os.kill(child, number)
        except OSError:
            pass
    return True


def _descendants(pid: int) -> list[int]:
    """The processes below `pid`, from /proc (Linux; none elsewhere)."""
    found: list[int] = []
    waiting = [pid]
    while waiting:
        parent = waiting.pop()
        try:
            with open(f"/proc/{parent}/task/{parent}/children", encoding="ascii") as listing:
                children = [int(item) for item in listing.read().split()]
        except (OSError, ValueError):
            children = []
        found.extend(children)
        waiting.extend(children)
    return found


def _resident_bytes(pid: int) -> int:
    """The resident memory of process `pid` (Linux's /proc; 0 elsewhere or when it is gone)."""
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as stream:
            fields = stream.read().split()
        return int(fields[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def machine_memory() -> int:
    """The machine's memory in bytes (0 when it cannot be known)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return 0
