"""A binary heap whose entries live in a subclass's parallel vecs, one slot per entry, so ordering
two entries compares unboxed values instead of tuples. Not a queue on its own: the subclass
keeps the vecs, says which of two slots leaves first and swaps them.

The BPE merge queue (`engine.models.bpe.merge_queue`) and the WordPiece score queue
(`engine.models.wordpiece.score_queue`) are the two.
"""

from __future__ import annotations

from abc import abstractmethod

from librt.vecs import vec
from mypy_extensions import i64


class SlotHeap:
    """The sifting of a binary heap over slots 0..len-1; slot 0 leaves next."""

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def _before(self, a: i64, b: i64) -> bool:
        """Whether slot `a` leaves before slot `b`."""

    @abstractmethod
    def _swap(self, a: i64, b: i64) -> None: ...

    def heapify(self) -> None:
        """Order slots added without ordering (`add_unordered` in the subclasses)."""
        for pos in range(len(self) // 2 - 1, -1, -1):
            self._sift_down(pos)

    def _sift_up(self, pos: i64) -> None:
        while pos > 0:
            parent = (pos - 1) >> 1
            if not self._before(pos, parent):
                return
            self._swap(pos, parent)
            pos = parent

    def _sift_down(self, pos: i64) -> None:
        n = len(self)
        while True:
            child = 2 * pos + 1
            if child >= n:
                return
            if child + 1 < n and self._before(child + 1, child):
                child += 1
            if not self._before(child, pos):
                return
            self._swap(pos, child)
            pos = child


def swap_i64(values: vec[i64], a: i64, b: i64) -> None:
    """Swap two items of `values` in place (its buffer: every copy of this vec sees it)."""
    value = values[a]
    values[a] = values[b]
    values[b] = value


def swap_float(values: vec[float], a: i64, b: i64) -> None:
    """`swap_i64` for floats."""
    value = values[a]
    values[a] = values[b]
    values[b] = value
