"""What every child process of the window does alike (Qt-free: the children never import Qt).

- `lower_priority()`: a child yields the processor to the window. Training and encoding use
  every core they get; on a machine with few cores the window then waited its turn for tens of
  milliseconds at a time (measured: 53 ms of a 142 ms stall at the end of a 32k training on 2
  cores). A lower priority costs the child nothing while the window is idle.
- `send_message(connection, message)`: a message of megabytes (a trained tokenizer with its
  project parts, a 32k vocabulary view) is sent as slices of its pickled bytes, so that the
  window, which reads its pipes a few milliseconds per timer tick, never spends 40 ms reading
  one message. `Pieces` puts them together on the window's side.
"""

from __future__ import annotations

import os
import pickle
from multiprocessing.connection import Connection
from typing import Final

# How much lower than the window a child runs (POSIX nice; 0 is the window's).
NICENESS: Final = 5
# The size of one piece of a large message: about 2 ms to read.
PIECE_BYTES: Final = 512 * 1024
# Whether `lower_priority` has lowered this process's priority.
_LOWERED: list[bool] = []


def lower_priority() -> None:
    """Run this process (and the processes it starts) at a lower priority than the window, by
    NICENESS once however often asked (a child started ahead lowers it before it starts its own
    second process, then asks again when its job comes); nothing where priorities cannot be
    lowered (Windows, a restricted sandbox)."""
    if hasattr(os, "nice") and not _LOWERED:
        _LOWERED.append(True)
        try:
            os.nice(NICENESS)
        except OSError:
            pass


def send_message(connection: Connection, message: tuple[object, ...]) -> None:
    """Send `message` as `connection.send` does when it is small; else as ("piece", bytes)
    messages and then ("pieces",), which `Pieces` makes into `message` again."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    if len(data) <= PIECE_BYTES:
        connection.send_bytes(data)  # (what `send` writes: `recv` unpickles it)
        return
    view = memoryview(data)
    for start in range(0, len(data), PIECE_BYTES):
        connection.send(("piece", bytes(view[start : start + PIECE_BYTES])))
    connection.send(("pieces",))


class Pieces:
    """The pieces of one message as they arrive (`add`), and the message (`take`)."""

    def __init__(self) -> None:
        self._pieces: list[bytes] = []

    def add(self, piece: object) -> None:
        if not isinstance(piece, bytes):
            raise ValueError("a piece of a message is not bytes")
        self._pieces.append(piece)

    def take(self) -> object:
        """The message the pieces make (they are forgotten); ValueError when they make none."""
        data = b"".join(self._pieces)
        self._pieces = []
        try:
            return pickle.loads(data)
        except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, IndexError) as error:
            raise ValueError(f"the pieces of a message make none ({error})") from None

    def clear(self) -> None:
        self._pieces = []
