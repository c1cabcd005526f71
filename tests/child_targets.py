"""Functions the tests run in child processes (`ChildJob`): importable by a spawned child as a
top-level module, as `support` is (the tests folder is on its path)."""

from __future__ import annotations

from multiprocessing.connection import Connection

from workbench.jobs.children.process import PIECE_BYTES, send_message


def progress_then_large(payload: object, connection: Connection) -> None:
    """Three progress records, then an answer of three pieces."""
    for done in range(3):
        connection.send(("progress", (done, 3, "step")))
    send_message(connection, ("done", {"payload": payload, "bulk": "x" * (3 * PIECE_BYTES)}))


def echo_pid(payload: object, connection: Connection) -> None:
    """Answers with the payload and the process's id."""
    import os

    connection.send(("done", (payload, os.getpid())))


def failing_warm_up() -> None:
    """A warm-up that fails: the job must run all the same."""
    raise OSError("the texts are not there")


def payload_size(payload: object, connection: Connection) -> None:
    """Answers with the length of a str payload."""
    connection.send(("done", len(str(payload))))


def warm_up_until_released() -> None:
    """A warm-up that lasts until the file named by $WARM_UP_RELEASE exists."""
    import os
    import time

    release = os.environ["WARM_UP_RELEASE"]
    while not os.path.exists(release):
        time.sleep(0.05)
