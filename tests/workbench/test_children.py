"""What the window's child processes share: a large message crosses a pipe in pieces the
window reads a few at a time and puts together exactly; a small one as `send` sends it; the
children run at a lower priority than the window."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from workbench.jobs.children.process import NICENESS, PIECE_BYTES, Pieces, send_message
from child_targets import echo_pid, failing_warm_up, payload_size, progress_then_large, warm_up_until_released
from workbench.jobs.runners.child_job import ChildJob
from workbench.jobs.runners.encoding import EncodingRunner, tokenizer_key
from workbench.jobs.runners.training import TrainingRunner


def sent(message: tuple[object, ...]) -> list[object]:
    """The messages `send_message(message)` writes into a pipe (written on a thread: a pipe
    holds less than a large message)."""
    reader, writer = multiprocessing.Pipe(duplex=False)
    thread = threading.Thread(target=send_message, args=(writer, message))
    thread.start()
    messages: list[object] = []
    while thread.is_alive() or reader.poll():
        if reader.poll(0.1):
            messages.append(reader.recv())
    thread.join()
    return messages


def test_a_large_message_arrives_in_pieces_and_is_made_whole_again() -> None:
    message = ("viewed", 7, {"table": bytes(range(256)) * 10_000, "names": [f"token {n}" for n in range(50_000)]})
    messages = sent(message)
    assert len(messages) > 3 and messages[-1] == ("pieces",)
    pieces = Pieces()
    for piece in messages[:-1]:
        assert isinstance(piece, tuple) and piece[0] == "piece" and len(piece[1]) <= PIECE_BYTES
        pieces.add(piece[1])
    assert pieces.take() == message
    # the pieces are forgotten once taken
    with pytest.raises(ValueError, match="make none"):
        pieces.take()


def test_a_small_message_is_sent_as_send_sends_it() -> None:
    assert sent(("encoded", 3, {"ids": [1, 2, 3]})) == [("encoded", 3, {"ids": [1, 2, 3]})]


def test_pieces_that_make_no_message_are_an_error_not_a_crash() -> None:
    pieces = Pieces()
    with pytest.raises(ValueError, match="not bytes"):
        pieces.add("text")
    pieces.add(b"\x80\x05not a pickle")
    with pytest.raises(ValueError, match="make none"):
        pieces.take()


def test_the_encoding_service_and_the_runner_put_pieces_together(qtbot: QtBot) -> None:
    reply = ("viewed", 5, {"strings": "x" * (3 * PIECE_BYTES)})
    service = EncodingRunner()
    with qtbot.waitSignal(service.viewed, timeout=1000) as blocker:
        for message in sent(reply):
            service._take(message)
    assert blocker.args == [5, reply[2]]
    # a runner given pieces of nothing it can read fails with a message, not a traceback
    runner = TrainingRunner()
    with qtbot.waitSignal(runner.failed, timeout=1000) as failed:
        runner._take(("piece", b"damaged"))
        assert runner._take(("pieces",))
    assert "cannot read" in failed.args[0]


def test_a_tokenizer_is_known_by_the_key_of_its_text(qtbot: QtBot) -> None:
    """The key is worked out once per text (`EncodingRunner._keys`) and is the same for an
    equal text held elsewhere; another text has another key."""
    service = EncodingRunner()
    text = '{"model": "Ġthe"}' * 1000
    key = service.add_tokenizer(text)
    assert key == tokenizer_key(text) == service.add_tokenizer("".join([text[:5], text[5:]]))
    assert service.add_tokenizer(text + " ") != key


@pytest.mark.skipif(not hasattr(os, "nice"), reason="no process priorities on this system (Windows)")
def test_a_child_runs_at_a_lower_priority_than_the_window() -> None:
    # (asked twice, as a child started ahead asks: lowered once)
    script = "import os; from workbench.jobs.children.process import lower_priority; lower_priority(); lower_priority(); print(os.nice(0))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert int(done.stdout) == min(os.nice(0) + NICENESS, 19)


def test_the_encoding_service_stops_while_a_large_message_is_still_being_written(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    failures: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda hook: failures.append(hook.exc_value))
    service = EncodingRunner()
    service.start()  # (the process is still importing the engine: it reads nothing yet)
    for number in range(3):
        service._send(("tokenizer", f"big {number}", "x" * (8 << 20)))
    service._forget()
    # the connection was closed only after the sender thread was done with it
    assert failures == []
    assert not service.is_running() and not any(t.name == "encoding-sender" for t in threading.enumerate())


def test_a_child_job_reports_progress_and_puts_a_large_answer_together(qtbot: QtBot) -> None:
    job = ChildJob("test")
    records: list[object] = []
    job.progressed.connect(records.append)
    ok, answer = job.run(progress_then_large, "asked")
    assert ok and answer == {"payload": "asked", "bulk": "x" * (3 * PIECE_BYTES)}
    assert records == [(0, 3, "step"), (1, 3, "step"), (2, 3, "step")]
    assert not job.is_running()
    qtbot.waitUntil(lambda: not job._exiting, timeout=10_000)


def test_a_child_started_ahead_takes_the_job_and_a_new_one_starts_when_it_cannot(qtbot: QtBot) -> None:
    job = ChildJob("test")
    job.prestart(echo_pid, failing_warm_up)  # (a warm-up that fails leaves the job to its job)
    assert job.is_ready() and not job.is_running()
    ready = job._ready
    assert ready is not None
    job.prestart(echo_pid)  # (one waits already: nothing new)
    assert job._ready is ready
    ok, answer = job.run(echo_pid, "first")
    assert ok and answer == ("first", ready.process.pid) and not job.is_ready()
    # started ahead for another target: stopped, and the job gets a process of its own
    job.prestart(progress_then_large)
    other = job._ready
    assert other is not None
    ok, answer = job.run(echo_pid, "second")
    assert ok and isinstance(answer, tuple) and answer[0] == "second" and answer[1] != other.process.pid
    qtbot.waitUntil(lambda: not other.process.is_alive(), timeout=10_000)
    # the window closing stops the one waiting
    job.prestart(echo_pid)
    waiting = job._ready
    assert waiting is not None
    job.shutdown()
    assert not job.is_ready()
    qtbot.waitUntil(lambda: not waiting.process.is_alive(), timeout=10_000)
    qtbot.waitUntil(lambda: not job._exiting, timeout=10_000)


def test_a_large_payload_reaches_a_child_still_warming_up_without_blocking_the_window(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the child reads its payload on a thread while it warms up: `start` with a payload larger
    # than a pipe holds returns at once, not when the warm-up is over (which waits for us here;
    # the timer only ends a hang, should `start` block)
    release = tmp_path / "release"
    monkeypatch.setenv("WARM_UP_RELEASE", str(release))
    job = ChildJob("test")
    job.prestart(payload_size, warm_up_until_released)
    guard = threading.Timer(120.0, release.touch)
    guard.start()
    payload = "x" * (8 * PIECE_BYTES)
    job.start(payload_size, payload)
    released_by_the_guard = release.exists()
    release.touch()
    guard.cancel()
    assert not released_by_the_guard
    with qtbot.waitSignal(job.finished, timeout=60_000) as answered:
        pass
    assert answered.args == [len(payload)]
    qtbot.waitUntil(lambda: not job._exiting, timeout=10_000)
