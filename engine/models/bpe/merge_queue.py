"""HF's BPE merge queue: entries (count, pair, words) leave the most frequent first, then the
lowest pair (left id, then right id), then in the order they came.

A binary heap over parallel vecs (`engine.slot_heap`), so ordering two entries compares unboxed
ints; each entry carries the offsets of the words its pair was counted in (`TrainingWords`).
Counts are signed as the pair counts keep them, but ordered as HF's u64: with max_token_length
a count can go below 0, which HF reads as a huge count (`count as u64`) that leaves first.

push (5, p), (7, q), (5, p') -> pops (7, q), then (5, min(p, p')), ...
"""

from __future__ import annotations

from typing import Final

from librt.vecs import append, pop, vec
from mypy_extensions import i64

from engine.slot_heap import SlotHeap, swap_i64

# Flipping the sign bit orders signed counts as their u64 values: 0 < 1 < ... < -2 < -1.
_SIGN_BIT: Final[i64] = -0x8000_0000_0000_0000


class MergeQueue(SlotHeap):
    """A priority queue of (count, pair, words); see the module docstring for the order."""

    # per heap slot: count with its sign bit flipped (higher leaves first), pair, arrival
    # number, word offsets
    _ranks: vec[i64]
    _pairs: vec[i64]
    _arrivals: vec[i64]
    _words: vec[vec[i64]]
    _arrived: i64

    def __init__(self) -> None:
        self._ranks = vec[i64]()
        self._pairs = vec[i64]()
        self._arrivals = vec[i64]()
        self._words = vec[vec[i64]]()
        self._arrived = 0

    def __len__(self) -> int:
        return len(self._ranks)

    def add_unordered(self, count: i64, pair: i64, words: vec[i64]) -> None:
        """Add an entry without ordering the heap: `heapify` once after the last one."""
        self._ranks = append(self._ranks, count ^ _SIGN_BIT)
        self._pairs = append(self._pairs, pair)
        self._arrivals = append(self._arrivals, self._arrived)
        self._arrived += 1
        self._words = append(self._words, words)

    def push(self, count: i64, pair: i64, words: vec[i64]) -> None:
        self.add_unordered(count, pair, words)
        self._sift_up(len(self._ranks) - 1)

    def top_count(self) -> i64:
        """The signed count of the next entry (the queue must not be empty)."""
        return self._ranks[0] ^ _SIGN_BIT

    def top_pair(self) -> i64:
        return self._pairs[0]

    def pair_at(self, slot: int) -> i64:
        """The pair of heap slot `slot`, in no particular order (to list every queued pair)."""
        return self._pairs[slot]

    def take(self) -> vec[i64]:
        """Remove the next entry and return its word offsets (the queue must not be empty)."""
        found = self._words[0]
        last = len(self._words) - 1
        self._ranks, rank = pop(self._ranks)
        self._pairs, pair = pop(self._pairs)
        self._arrivals, arrival = pop(self._arrivals)
        self._words, moved = pop(self._words)
        if last > 0:
            # the last entry fills the root's slot, then sinks to its place
            self._ranks[0] = rank
            self._pairs[0] = pair
            self._arrivals[0] = arrival
            self._words[0] = moved
            self._sift_down(0)
        return found

    def _before(self, a: i64, b: i64) -> bool:
        ranks = self._ranks
        if ranks[a] != ranks[b]:
            return ranks[a] > ranks[b]
        pairs = self._pairs
        if pairs[a] != pairs[b]:
            return pairs[a] < pairs[b]
        return self._arrivals[a] < self._arrivals[b]

    def _swap(self, a: i64, b: i64) -> None:
        swap_i64(self._ranks, a, b)
        swap_i64(self._pairs, a, b)
        swap_i64(self._arrivals, a, b)
        words = self._words
        word = words[a]
        words[a] = words[b]
        words[b] = word
