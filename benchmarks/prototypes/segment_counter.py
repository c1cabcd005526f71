"""Prototype, not engine code (issue 25's profile): `engine.corpus.chunking.count_segments` for
ASCII text done on bytes, with a hash table of native ints, so that no object is made per
occurrence: one `bytes` per DISTINCT segment, at the end. It does not handle non-ASCII space
characters (the engine's `_maybe_space` past U+0084); a real one would count such blocks apart.

b"a b\\tc  d\\n" -> {b"a": 1, b" b\\tc": 1, b"  d\\n": 1}: a cut before each " " whose left
neighbour is not a space character; a line's last segment keeps its "\\n"; the segments that
follow a cut keep their " " (the engine keeps those without it, in a dict of their own).
"""

from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64

HASH_MASK: Final[i64] = (1 << 40) - 1  # (h * 31 + b) stays far from i64 overflow
EMPTY: Final[i64] = -1


class SegmentTable:
    """Open addressing over parallel vecs: slot -> entry; entry -> (hash, start, length, count),
    the key being data[start:start + length] of the first occurrence."""

    slots: vec[i64]
    hashes: vec[i64]
    starts: vec[i64]
    lengths: vec[i64]
    counts: vec[i64]
    mask: i64

    def __init__(self, size: i64) -> None:
        self.slots = vec[i64]([EMPTY] * size)
        self.mask = size - 1
        self.hashes = vec[i64]()
        self.starts = vec[i64]()
        self.lengths = vec[i64]()
        self.counts = vec[i64]()

    def add(self, data: bytes, start: i64, length: i64, h: i64) -> None:
        s = h & self.mask
        while True:
            e = self.slots[s]
            if e == EMPTY:
                self.slots[s] = len(self.counts)
                self.hashes = append(self.hashes, h)
                self.starts = append(self.starts, start)
                self.lengths = append(self.lengths, length)
                self.counts = append(self.counts, 1)
                if 2 * len(self.counts) > self.mask:
                    self._grow()
                return
            if self.hashes[e] == h and self.lengths[e] == length and _same(data, self.starts[e], start, length):
                self.counts[e] += 1
                return
            s = (s + 1) & self.mask

    def _grow(self) -> None:
        size = 2 * (self.mask + 1)
        self.slots = vec[i64]([EMPTY] * size)
        self.mask = size - 1
        for e in range(len(self.counts)):
            s = self.hashes[e] & self.mask
            while self.slots[s] != EMPTY:
                s = (s + 1) & self.mask
            self.slots[s] = e

    def as_dict(self, data: bytes) -> dict[bytes, int]:
        out: dict[bytes, int] = {}
        for e in range(len(self.counts)):
            out[data[self.starts[e] : self.starts[e] + self.lengths[e]]] = self.counts[e]
        return out


def _same(data: bytes, a: i64, b: i64, length: i64) -> bool:
    k: i64 = 0
    while k < length:
        if data[a + k] != data[b + k]:
            return False
        k += 1
    return True


def _is_space(b: i64) -> bool:
    return b == 32 or (9 <= b and b <= 13) or (28 <= b and b <= 31)


def count_segments_bytes(data: bytes) -> dict[bytes, int]:
    """Every segment of every line of ASCII `data` (lines end with b"\\n") and its count."""
    table = SegmentTable(1 << 16)
    n: i64 = len(data)
    start: i64 = 0
    h: i64 = 0
    prev: i64 = 10
    i: i64 = 0
    while i < n:
        b: i64 = data[i]
        if b == 32 and not _is_space(prev) and i > start:
            table.add(data, start, i - start, h)
            start = i
            h = 0
        h = (h * 31 + b) & HASH_MASK
        prev = b
        i += 1
        if b == 10:
            table.add(data, start, i - start, h)
            start = i
            h = 0
    if i > start:
        table.add(data, start, i - start, h)
    return table.as_dict(data)
