"""The pair counts of a merge-based training run, in a hash table of native ints: `PairCounts`.

A pair is one int (`left << shift | right`, never negative). The table maps it to its count and
forgets pairs at 0. It stands where a `dict[int, int]` stood: mypyc boxes a large int key for
every dict lookup (a lookup was a fifth of a WordPiece training, in `_rescore`), and this table
looks pairs up unboxed. `{(1 << 20 | 7): 3}`: `counts.get(1 << 20 | 7)` -> 3, any other pair -> 0.
"""

from __future__ import annotations

from typing import Final

from librt.vecs import vec
from mypy_extensions import i64

EMPTY: Final[i64] = -1
REMOVED: Final[i64] = -2
LOW_31: Final[i64] = (1 << 31) - 1
GOLDEN: Final[i64] = 0x9E3779B1


class PairCounts:
    """pair -> count (> 0 or < 0; a pair at 0 is not held), by open addressing: `cells` holds
    (pair, count) a slot; a removed pair leaves a REMOVED mark until the table is rebuilt."""

    cells: vec[i64]
    mask: i64
    used: i64  # pairs held
    marks: i64  # REMOVED slots

    def __init__(self, expected: int = 0) -> None:
        size: i64 = 1024
        while size < 2 * expected:
            size *= 2
        self._empty(size)

    def _empty(self, size: i64) -> None:
        self.cells = vec[i64]([EMPTY] * (2 * size))
        self.mask = size - 1
        self.used = 0
        self.marks = 0

    def __len__(self) -> int:
        return self.used

    def get(self, pair: i64) -> i64:
        """The pair's count (0 when not held)."""
        s = self._find(pair)
        return self.cells[2 * s + 1] if s >= 0 else 0

    def _find(self, pair: i64) -> i64:
        """The slot holding the pair, or -1."""
        cells = self.cells
        s = _slot_of(pair) & self.mask
        while True:
            found = cells[2 * s]
            if found == pair:
                return s
            if found == EMPTY:
                return -1
            s = (s + 1) & self.mask

    def set(self, pair: i64, count: i64) -> None:
        """Hold `count` for the pair (forget it at 0)."""
        if count == 0:
            self.remove(pair)
            return
        cells = self.cells
        s = _slot_of(pair) & self.mask
        free: i64 = -1
        while True:
            found = cells[2 * s]
            if found == pair:
                cells[2 * s + 1] = count
                return
            if found == EMPTY:
                break
            if found == REMOVED and free < 0:
                free = s
            s = (s + 1) & self.mask
        if free >= 0:
            s = free
            self.marks -= 1
        cells[2 * s] = pair
        cells[2 * s + 1] = count
        self.used += 1
        if 2 * (self.used + self.marks) > self.mask:
            self._rebuild()

    def add(self, pair: i64, change: i64) -> i64:
        """Add `change` to the pair's count; the new count."""
        count = self.get(pair) + change
        self.set(pair, count)
        return count

    def remove(self, pair: i64) -> None:
        """Forget the pair (nothing if not held)."""
        s = self._find(pair)
        if s >= 0:
            self.cells[2 * s] = REMOVED
            self.used -= 1
            self.marks += 1

    def _rebuild(self) -> None:
        """Twice the size when it is half full of pairs; the same size without the marks else."""
        old = self.cells
        size = self.mask + 1
        self._empty(2 * size if 4 * self.used > size else size)
        cells = self.cells
        for k in range(0, len(old), 2):
            pair = old[k]
            if pair >= 0:
                s = _slot_of(pair) & self.mask
                while cells[2 * s] != EMPTY:
                    s = (s + 1) & self.mask
                cells[2 * s] = pair
                cells[2 * s + 1] = old[k + 1]
                self.used += 1


def _slot_of(pair: i64) -> i64:
    # subtle: the product stays below 2 ** 63 (31 bits times 32), so compiled and pure agree.
    folded = pair ^ (pair >> 19) ^ (pair >> 37)
    return ((folded & LOW_31) * GOLDEN) >> 13
