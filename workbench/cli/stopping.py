"""How a command stops: stop signals (SIGTERM, SIGHUP) raised like Ctrl-C so that cleanups run,
one line saying what was already written, quiet exits on a closed pipe, safe standard streams.
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import sys

from workbench.cli.common import PROG, WRITTEN

# Exit status after a closed pipe, as a command killed by SIGPIPE reports it (128 + 13).
EXIT_BROKEN_PIPE = 141
# The signals that stop a command cleanly (temporary files removed, children stopped).
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
# The stop signals received, first first.
SIGNALLED: list[int] = []


class Terminated(KeyboardInterrupt):
    """A stop signal (SIGTERM, SIGHUP) raised in the main thread, like Ctrl-C: the cleanups
    on the way out (`finally`, `except BaseException`) run, and main reports it in one line."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def terminate(signum: int, frame: object) -> None:
    SIGNALLED.append(signum)
    raise Terminated(signum)


def on_termination(handler: object) -> object:
    """Install `handler` for the stop signals; returns the one it replaced (None off the main thread)."""
    previous: object = None
    for signum in _STOP_SIGNALS:
        try:
            replaced = signal.signal(signum, handler)  # type: ignore[arg-type]
        except (ValueError, TypeError):
            return None  # not the main thread, or no handler to restore
        if signum == signal.SIGTERM:
            previous = replaced
    return previous


def writes_files(args: argparse.Namespace) -> bool:
    """Whether the command writes files (not only standard output)."""
    if args.command in ("train", "count"):
        return not getattr(args, "estimate_only", False)
    return args.command == "convert" or (args.command == "encode" and args.out is not None)


def stopped_by(signum: int, writes_files: bool) -> int:
    """The one line for a command stopped by a signal, and its exit status (128 + the signal):
    what it wrote, when it writes files ("nothing was written" before its output is complete)."""
    name = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
    if writes_files:
        name += f"; already written: {' and '.join(WRITTEN)}" if WRITTEN else "; nothing was written"
    try:
        print(f"{PROG}: {name}", file=sys.stderr)
    except OSError:
        pass
    return 128 + signum


def standard_streams() -> None:
    """Make the standard streams safe to use. A descriptor 0-2 that was closed (`<&-`, `>&-`)
    is opened on /dev/null, so that no file opened later takes its number (sys.stdin/stdout
    stay None: the commands that need them say so); stdout and stderr escape what their
    encoding cannot write (the C locale without UTF-8 mode) instead of raising."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            opened = os.open(os.devnull, os.O_RDWR)
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


def silence_output() -> None:
    """After a broken pipe: stdout and stderr go to /dev/null, so that nothing more is tried
    on the pipe (Python's own last flush would print 'Exception ignored ... BrokenPipeError')."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is None:
                continue
            try:
                os.dup2(devnull, stream.fileno())
            except (OSError, ValueError, io.UnsupportedOperation):
                pass
    finally:
        os.close(devnull)
