"""`EncodingRunner`: the window's side of the encoding process (`workbench.jobs.children.encoding`).

Requests are numbered; a reply is emitted with its number, and views drop replies older than
their newest request. Requests are written to the process by a thread of its own (`_Sender`). The process starts on first use, is started again if it dies, and is
stopped with the window. Tokenizers are sent once, by key (a hash of their tokenizer.json).
"""

from __future__ import annotations

import hashlib
import multiprocessing
import queue
import threading
import time
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Final

from PySide6.QtCore import QObject, QTimer, Signal

from workbench.jobs.children.process import Pieces
from workbench.jobs.children.encoding import worker_main

POLL_INTERVAL_MS: Final = 10
READ_BUDGET_S: Final = 0.008
STOPPED: Final = "the encoding process stopped; it starts again with the next text"


def tokenizer_key(tokenizer_json: str) -> str:
    """The key a tokenizer is known by in the encoding process."""
    return hashlib.sha1(tokenizer_json.encode("utf-8")).hexdigest()[:16]


class EncodingRunner(QObject):
    """Signals: `encoded(id, encoding)`, `traced(id, trace)`, `compared(id, columns)`,
    `decoded(id, {"text", "unknown"})`, `viewed(id, view)`, `history_read(id, history)`,
    `checked(id, reasons)`, `unicoded(id, report)`, `stepped(id, steps)`, `failed(id, message)`
    (plain dicts and lists: see the worker)."""

    encoded = Signal(int, object)
    traced = Signal(int, object)
    compared = Signal(int, object)
    decoded = Signal(int, object)
    viewed = Signal(int, object)
    history_read = Signal(int, object)
    checked = Signal(int, object)
    unicoded = Signal(int, object)
    stepped = Signal(int, object)
    failed = Signal(int, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._context = multiprocessing.get_context("spawn")
        self._process: BaseProcess | None = None
        self._connection: Connection | None = None
        self._sender: _Sender | None = None
        self._known: set[str] = set()
        self._texts: dict[str, str] = {}
        # each text's key, worked out once: hashing a megabyte of JSON took 3 ms of the GUI
        # thread at every switch to a tokenizer and every tab that showed it
        self._keys: dict[str, str] = {}
        self._pieces = Pieces()  # of a large reply, as they arrive
        self._next_id = 0
        self._closed = False
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_INTERVAL_MS)
        self._timer.timeout.connect(self._on_timer_timeout)

    # -- requests ------------------------------------------------------------------------------

    def add_tokenizer(self, tokenizer_json: str) -> str:
        """Make a tokenizer known to the process; returns its key."""
        key = self._keys.get(tokenizer_json)
        if key is None:
            key = self._keys[tokenizer_json] = tokenizer_key(tokenizer_json)
        self._texts[key] = tokenizer_json
        if self._connection is not None:
            self._make_known(key)
        return key

    def encode(self, key: str, text: str, pair: str | None, add_special_tokens: bool) -> int:
        return self._request(("encode", key, text, pair, add_special_tokens), [key])

    def trace(self, key: str, text: str, add_special_tokens: bool) -> int:
        return self._request(("trace", key, text, add_special_tokens), [key])

    def compare(self, columns: list[tuple[str, str]], text: str) -> int:
        keys = [name for source, name in columns if source == "tokenizer"]
        return self._request(("compare", columns, text), keys)

    def decode(self, key: str, ids: list[int]) -> int:
        return self._request(("decode", key, ids), [key])

    def view(self, key: str, vocabulary_data: bytes, glyphs: bool, table: bool = True) -> int:
        """What the vocabulary view and the Train tab need of a trained tokenizer (`viewed`),
        without its vocabulary table when `table` is False (a training handed it over)."""
        return self._request(("view", key, vocabulary_data, glyphs, table), [key])

    def read_history(self, history_data: bytes) -> int:
        """A project's history part made into arrays to draw (`history_read`)."""
        return self._request(("history", history_data), [])

    def check_exports(self, key: str) -> int:
        """Why each export format cannot hold a tokenizer (`checked`)."""
        return self._request(("export", key), [key])

    def unicode(self, key: str | None, text: str) -> int:
        """Each code point of `text`, its normal forms (encoded with the tokenizer `key`, when
        given) and its flags (`unicoded`)."""
        return self._request(("unicode", key, text), [key] if key is not None else [])

    def steps(self, key: str | None, text: str, cursor: int, options: dict[str, object]) -> int:
        """How the model of tokenizer `key` cuts the word at character `cursor` of `text`, step
        by step (`stepped`); `options` as the worker's `steps_wire` takes them (a toy vocabulary
        needs no `key`)."""
        return self._request(("steps", key, text, cursor, options), [key] if key is not None else [])

    def _request(self, body: tuple[object, ...], keys: list[str]) -> int:
        self._ensure_running()
        for key in keys:
            self._make_known(key)
        self._next_id += 1
        self._send((body[0], self._next_id, *body[1:]))
        return self._next_id

    def _make_known(self, key: str) -> None:
        # the process learns each tokenizer once
        if key not in self._known and key in self._texts:
            self._send(("tokenizer", key, self._texts[key]))
            self._known.add(key)

    def _send(self, message: tuple[object, ...]) -> None:
        sender = self._sender
        if sender is not None:
            sender.send(message)

    # -- the process ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start the process now rather than with the first request: the application does so
        at launch, so that the first tokenizer it shows does not also wait for the process to
        start and import the engine (half a second)."""
        self._ensure_running()

    def is_running(self) -> bool:
        return self._process is not None and self._process.is_alive()

    def _ensure_running(self) -> None:
        if self._closed or (self._process is not None and self._process.is_alive()):
            return
        self._forget()
        parent_end, child_end = self._context.Pipe(duplex=True)
        process = self._context.Process(target=worker_main, args=(child_end,), name="tokenizer-encoding", daemon=True)
        process.start()
        child_end.close()
        self._process = process
        self._connection = parent_end
        self._sender = _Sender(parent_end)
        self._timer.start()

    def _restart(self) -> None:
        self._forget()
        self._ensure_running()

    def shutdown(self) -> None:
        """Stop the process for good (the window is closing): later requests are ignored."""
        self._closed = True
        process = self._process
        self._send(("stop",))
        if self._sender is not None:
            self._sender.finish(2.0)
        if process is not None:
            process.join(2.0)
        self._forget()  # terminates it if it is still there

    def _forget(self) -> None:
        self._timer.stop()
        sender = self._sender
        self._sender = None
        if sender is not None:
            sender.finish(0.0)  # (it ends once what is queued is written or fails)
        if self._process is not None and self._process.is_alive():
            self._process.terminate()
            self._process.join(2.0)
        if sender is not None:
            # subtle: the connection is closed only once the sender is done with it: closed
            # under a write in progress, the write failed with a TypeError (its handle gone).
            # With the process gone, a write still waiting on a full pipe fails at once.
            sender.finish(2.0)
        if self._connection is not None:
            self._connection.close()
        self._process = None
        self._connection = None
        self._known = set()
        self._pieces.clear()

    def _on_timer_timeout(self) -> None:
        connection = self._connection
        if connection is None:
            self._timer.stop()
            return
        deadline = time.monotonic() + READ_BUDGET_S
        try:
            while time.monotonic() < deadline and connection.poll():
                self._take(connection.recv())
        except (EOFError, OSError):
            self._forget()
            self.failed.emit(-1, STOPPED)
            return
        if self._process is not None and not self._process.is_alive():
            self._forget()
            self.failed.emit(-1, STOPPED)

    def _take(self, message: object) -> None:
        try:
            if isinstance(message, tuple) and len(message) == 2 and message[0] == "piece":
                self._pieces.add(message[1])
                return
            if message == ("pieces",):
                message = self._pieces.take()
        except ValueError as error:
            self.failed.emit(-1, str(error))
            return
        if not isinstance(message, tuple) or len(message) < 3:
            return
        kind, request_id, body = message[0], int(message[1]), message[2]
        if kind == "encoded":
            self.encoded.emit(request_id, body)
        elif kind == "traced":
            self.traced.emit(request_id, body)
        elif kind == "compared":
            self.compared.emit(request_id, body)
        elif kind == "decoded":
            self.decoded.emit(request_id, body)
        elif kind == "viewed":
            self.viewed.emit(request_id, body)
        elif kind == "history":
            self.history_read.emit(request_id, body)
        elif kind == "checked":
            self.checked.emit(request_id, body)
        elif kind == "unicoded":
            self.unicoded.emit(request_id, body)
        elif kind == "stepped":
            self.stepped.emit(request_id, body)
        elif kind == "error":
            self.failed.emit(request_id, str(body))


class _Sender:
    """Writes the window's messages to the encoding process on a thread of its own, in order.

    subtle: a tokenizer and its vocabulary part are megabytes; while the process starts (or is
    busy) it does not read, the pipe fills, and a write on the GUI thread waited for it: half a
    second at the end of a big training. The write waits here instead (it releases the lock)."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._queue: queue.SimpleQueue[tuple[object, ...] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="encoding-sender", daemon=True)
        self._thread.start()

    def send(self, message: tuple[object, ...]) -> None:
        self._queue.put(message)

    def finish(self, wait_seconds: float) -> None:
        """Send what is queued, then end (waiting up to `wait_seconds` for the thread)."""
        self._queue.put(None)
        self._thread.join(wait_seconds)

    def _run(self) -> None:
        while True:
            message = self._queue.get()
            if message is None:
                return
            try:
                self._connection.send(message)
            except (OSError, ValueError):
                return  # (the process is gone: the window's timer finds out and says so)


# -- reading the plain lists of a reply ---------------------------------------------------------


def ints(value: object) -> list[int]:
    assert isinstance(value, (list, tuple))
    return [int(item) for item in value]


def strs(value: object) -> list[str]:
    assert isinstance(value, (list, tuple))
    return [str(item) for item in value]


def spans(value: object) -> list[tuple[int, int]]:
    assert isinstance(value, (list, tuple))
    result: list[tuple[int, int]] = []
    for item in value:
        assert isinstance(item, (list, tuple))
        result.append((int(item[0]), int(item[1])))
    return result
