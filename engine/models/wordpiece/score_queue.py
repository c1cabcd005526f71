"""The WordPiece run's queue: entries (score, count, key) leave the highest score first, then the
highest count, then the lowest key, as a heap of (-score, -count, key) tuples would.

A binary heap over parallel vecs (`engine.slot_heap`), so no tuple is made per entry, sifted by
its own loops over those vecs (`_sift_up`, `_sift_down`). What a key means (a pair, or a
symbol's bound) is the run's (`engine.models.wordpiece.training_run`).

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

    def _sift_up(self, pos: i64) -> None:
        """`SlotHeap._sift_up`, the entry carried up in locals and each parent it passes moved
        down one slot, the comparisons `_before`'s inline: the same slots end up holding the
        same entries, with no call or three-vec swap per level (the run pushes millions).

        subtle: the comparisons are written out here and in `_sift_down` on purpose: the same
        comparison as a function of the six values made the whole WordPiece training 5 to 15 %
        slower (alternating builds, 40 MB of gcide): the C compiler does not inline it."""
        scores = self._scores
        counts = self._counts
        keys = self._keys
        score = scores[pos]
        count = counts[pos]
        key = keys[pos]
        while pos > 0:
            parent = (pos - 1) >> 1
            parent_score = scores[parent]
            parent_count = counts[parent]
            parent_key = keys[parent]
            # subtle: `_before(pos, parent)` as it is written (a NaN score compares unequal)
            if score != parent_score:
                if not score > parent_score:
                    break
            elif count != parent_count:
                if not count > parent_count:
                    break
            elif not key < parent_key:
                break
            scores[pos] = parent_score
            counts[pos] = parent_count
            keys[pos] = parent_key
            pos = parent
        scores[pos] = score
        counts[pos] = count
        keys[pos] = key

    def _sift_down(self, pos: i64) -> None:
        """`SlotHeap._sift_down` as `_sift_up` is: the entry carried down in locals, each child
        it passes moved up one slot."""
        scores = self._scores
        counts = self._counts
        keys = self._keys
        n = len(keys)
        score = scores[pos]
        count = counts[pos]
        key = keys[pos]
        while True:
            child = 2 * pos + 1
            if child >= n:
                break
            child_score = scores[child]
            child_count = counts[child]
            child_key = keys[child]
            if child + 1 < n:
                # the child that leaves first: the right one when `_before(child + 1, child)`
                other_score = scores[child + 1]
                other_count = counts[child + 1]
                other_key = keys[child + 1]
                if other_score != child_score:
                    right_first = other_score > child_score
                elif other_count != child_count:
                    right_first = other_count > child_count
                else:
                    right_first = other_key < child_key
                if right_first:
                    child += 1
                    child_score = other_score
                    child_count = other_count
                    child_key = other_key
            # stop unless `_before(child, pos)`
            if child_score != score:
                if not child_score > score:
                    break
            elif child_count != count:
                if not child_count > count:
                    break
            elif not child_key < key:
                break
            scores[pos] = child_score
            counts[pos] = child_count
            keys[pos] = child_key
            pos = child
        scores[pos] = score
        counts[pos] = count
        keys[pos] = key

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
