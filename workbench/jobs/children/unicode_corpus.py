"""The Audit's Unicode page over a corpus, run in a child process (`ChildJob`): for each of the
project's plain text files, how many lines each normal form changes and each flag marks, with
examples (`engine.analysis.unicode_report.corpus_forms`). No Qt here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import partial
from multiprocessing.connection import Connection

from engine.analysis.unicode_report import corpus_forms
from engine.corpus.units import FileSlice, training_inputs
from engine.errors import EngineError
from workbench.jobs.children.process import lower_priority, send_message


def corpus_forms_main(payload: object, connection: Connection) -> None:
    """The child: ("progress", (done, total, file, bytes read, file size)) as each file starts
    and every megabyte or so, then ("done", [forms, ...]) (each `CorpusForms.to_wire()`, in the
    files' order) or ("failed", message naming the file)."""
    lower_priority()
    if not isinstance(payload, dict):
        connection.send(("failed", "the Unicode count got no job"))
        return
    files = payload["files"]
    assert isinstance(files, list)
    try:
        found = forms_of([str(path) for path in files], connection)
    except (EngineError, ValueError, OSError) as error:
        connection.send(("failed", str(error)))
        return
    send_message(connection, ("done", found))


def forms_of(files: Sequence[str], connection: Connection | None = None) -> list[dict[str, object]]:
    """Every plain text file's `corpus_forms`, in plain form; ValueError when there is none."""
    if not files:
        raise ValueError("the project has no corpus files: add some in the Project panel")
    plain = [piece.path for piece in training_inputs(list(files)) if isinstance(piece, FileSlice)]
    if not plain:
        raise ValueError("the project's corpus has no plain text file (compressed, JSON Lines and Parquet files are not read here)")
    found: list[dict[str, object]] = []
    for position, path in enumerate(plain):
        size = os.path.getsize(path)
        report: Callable[[int], None] | None = None
        if connection is not None:
            sink = connection
            sink.send(("progress", (position, len(plain), path, 0, size)))
            report = partial(_read_so_far, sink, position, len(plain), path, size)
        found.append(corpus_forms(path, progress=report).to_wire())
    return found


def _read_so_far(connection: Connection, position: int, total: int, path: str, size: int, read: int) -> None:
    connection.send(("progress", (position, total, path, read, size)))
