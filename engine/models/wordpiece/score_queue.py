"""The WordPiece run's queue: entries (score, count, key) leave the highest score first, then the
highest count, then the lowest key, as a heap of (-score, -count, key) tuples would.

A binary heap over parallel vecs (`engine.slot_heap`), so no tuple is made per entry. What a
key means (a pair, or a symbol's bound) is the run's (`engine.models.wordpiece.training_run`).

push (0.5, 3, 7), (0.5, 4, 9), (0.9, 1, 2) -> pops (0.9, 1, 2), (0.5, 4, 9), (0.5, 3, 7)
"""

from __future__ import annotations

from librt.vecs import append, pop, vec
from mypy_extensions import i64

from engine.slot_heap import SlotHeap, swap_float, swap_i64


class ScoreQueue(SlotHeap):
    """A priority queue of (score, count, key); see the module docstring for the order."""

    _scores: vec[float]
    _counts: vec[i64]
    _keys: vec[i64]

    def __init__(self) -> None:
        self._scores = vec[float]()
        self._counts = vec[i64]()
        self._keys = vec[i64]()

    def __len__(self) -> int:
        return len(self._keys)

    def add_unordered(self, score: float, count: i64, key: i64) -> None:
        """Add an entry without ordering the heap: `heapify` once after the last one."""
        self._scores = append(self._scores, score)
        self._counts = append(self._counts, count)
        self._keys = append(self._keys, key)

    def push(self, score: float, count: i64, key: i64) -> None:
        self.add_unordered(score, count, key)
        self._sift_up(len(self._keys) - 1)

    def score_at(self, slot: i64) -> float:
        """The score of heap slot `slot` (0: the next entry; others in no particular order)."""
        return self._scores[slot]

    def count_at(self, slot: i64) -> i64:
        return self._counts[slot]

    def key_at(self, slot: i64) -> i64:
        return self._keys[slot]

    def drop(self) -> None:
        """Remove the next entry (the queue must not be empty)."""
        self._scores, score = pop(self._scores)
        self._counts, count = pop(self._counts)
        self._keys, key = pop(self._keys)
        if len(self._keys) > 0:
            # the last entry fills the root's slot, then sinks to its place
            self._scores[0] = score
            self._counts[0] = count
            self._keys[0] = key
            self._sift_down(0)

    def replace_next(self, score: float, count: i64, key: i64) -> None:
        """Drop the next entry and add (score, count, key), in one sift (the queue must not be
        empty): what `drop` then `push` do, for an entry queued again at a lower score."""
        self._scores[0] = score
        self._counts[0] = count
        self._keys[0] = key
        self._sift_down(0)

    def _before(self, a: i64, b: i64) -> bool:
        scores = self._scores
        if scores[a] != scores[b]:
            return scores[a] > scores[b]
        counts = self._counts
        if counts[a] != counts[b]:
            return counts[a] > counts[b]
        return self._keys[a] < self._keys[b]

    def _swap(self, a: i64, b: i64) -> None:
        swap_float(self._scores, a, b)
        swap_i64(self._counts, a, b)
        swap_i64(self._keys, a, b)
