"""Children: forked shares of work report progress, results and errors back to the parent."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable

import pytest

from engine.errors import CorpusError, EngineError, FileError
from engine.corpus.forked import ByteProgress, Children

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forking is for Linux")


def squares(n: int, progress: ByteProgress) -> list[int]:
    for _ in range(n):
        progress.advance(10)
    return [i * i for i in range(n)]


def fails(kind: str, progress: ByteProgress) -> object:
    progress.advance(1)
    if kind == "corpus":
        raise CorpusError("/data/a.txt", "is not UTF-8", 1234)
    if kind == "file":
        raise FileError("/data/out.bin", "cannot be written (disk full)")
    raise ValueError("no such thing")


def run(*works: Callable[[ByteProgress], object]) -> Children:
    children = Children("testing")
    try:
        for work in works:
            children.start(work)
        children.wait(lambda: None)
    finally:
        children.stop()
    return children


def test_results_come_back_in_the_order_the_children_started_with_their_progress() -> None:
    children = run(functools.partial(squares, 3), functools.partial(squares, 5))
    assert children.results == [[0, 1, 4], [0, 1, 4, 9, 16]]
    assert children.read == 80
    assert children.first_error() is None and children.pending == 0


def test_errors_come_back_as_what_the_child_raised() -> None:
    children = run(functools.partial(squares, 1), functools.partial(fails, "corpus"), functools.partial(fails, "file"))
    corpus, file = children.errors[1], children.errors[2]
    assert isinstance(corpus, CorpusError) and (corpus.path, corpus.reason, corpus.byte_offset) == (
        "/data/a.txt",
        "is not UTF-8",
        1234,
    )
    assert isinstance(file, FileError) and str(file) == "/data/out.bin: cannot be written (disk full)"
    assert children.first_error() is corpus
    assert children.results[0] == [0]


def test_anything_else_a_child_raises_is_named_with_the_work() -> None:
    children = run(functools.partial(fails, "other"))
    error = children.first_error()
    assert type(error) is EngineError
    assert str(error) == "a testing process failed: ValueError: no such thing"


def reports_forever(progress: ByteProgress) -> object:
    while True:
        progress.advance(1)


def test_a_child_whose_parent_is_gone_ends_quietly(capfd: pytest.CaptureFixture[str]) -> None:
    # the parent's end of the pipe closed (as when the parent is killed): the child's next
    # report fails, and it exits with status 1 and not a word (it printed a BrokenPipeError
    # traceback from both its report and its attempt to report the failure)
    children = Children("testing")
    try:
        children.start(reports_forever)
        children.poll(5.0)
        assert children.read > 0
        children.connections[0].close()
        children.processes[0].join(30)
        assert children.processes[0].exitcode == 1
    finally:
        children.connections = []
        children.stop()
    assert capfd.readouterr().err == ""


def test_stop_ends_running_children_before_closing_their_pipes(capfd: pytest.CaptureFixture[str]) -> None:
    children = Children("testing")
    children.start(reports_forever)
    children.start(reports_forever)
    children.poll(5.0)
    process = children.processes[0]
    children.stop()
    assert process.exitcode == -15  # SIGTERM, before it could find its pipe closed
    assert children.processes == [] and children.connections == []
    assert capfd.readouterr().err == ""
