"""ScoreQueue: the WordPiece run's order (score descending, count descending, key ascending)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.models.wordpiece.score_queue import ScoreQueue


def drain(queue: ScoreQueue) -> list[tuple[float, int, int]]:
    taken = []
    while len(queue) > 0:
        taken.append((queue.score_at(0), int(queue.count_at(0)), int(queue.key_at(0))))
        queue.drop()
    return taken


def test_highest_score_first_then_highest_count_then_lowest_key() -> None:
    queue = ScoreQueue()
    queue.push(0.5, 3, 7)
    queue.push(0.5, 4, 9)
    queue.push(0.9, 1, 2)
    queue.push(0.5, 4, -3)  # (a symbol's bound: negative keys are the run's)
    assert drain(queue) == [(0.9, 1, 2), (0.5, 4, -3), (0.5, 4, 9), (0.5, 3, 7)]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([0.25, 0.5, 1 / 3, 1.0]), st.integers(0, 4), st.integers(-3, 5)), max_size=40),
    st.lists(st.tuples(st.sampled_from([0.25, 0.5, 1 / 3, 1.0]), st.integers(0, 4), st.integers(-3, 5)), max_size=20),
    st.integers(0, 60),
)
def test_entries_leave_as_a_heap_of_negated_tuples_would(
    initial: list[tuple[float, int, int]], later: list[tuple[float, int, int]], dropped_between: int
) -> None:
    queue = ScoreQueue()
    waiting: list[tuple[float, int, int]] = []  # (-score, -count, key), as the heapq run kept them
    for score, count, key in initial:
        queue.add_unordered(score, count, key)
        waiting.append((-score, -count, key))
    queue.heapify()

    def drop_one() -> None:
        waiting.sort()
        best = waiting.pop(0)
        assert (-queue.score_at(0), -int(queue.count_at(0)), int(queue.key_at(0))) == best
        queue.drop()

    for _ in range(min(dropped_between, len(waiting))):
        drop_one()
    for score, count, key in later:
        queue.push(score, count, key)
        waiting.append((-score, -count, key))
    while waiting:
        drop_one()
    assert len(queue) == 0


def test_replacing_the_next_entry_is_dropping_it_and_pushing_another() -> None:
    replaced = ScoreQueue()
    pushed = ScoreQueue()
    for queue in (replaced, pushed):
        for score, count, key in [(0.9, 1, 2), (0.5, 3, 7), (0.5, 4, 9), (0.7, 2, 4)]:
            queue.push(score, count, key)
    replaced.replace_next(0.6, 1, 2)
    pushed.drop()
    pushed.push(0.6, 1, 2)
    assert drain(replaced) == drain(pushed) == [(0.7, 2, 4), (0.6, 1, 2), (0.5, 4, 9), (0.5, 3, 7)]


class SwappingHeap:
    """A plain-Python reference: `SlotHeap`'s sifting by swaps with `_before` as a function, the
    sifting ScoreQueue did before it carried the entry in locals."""

    def __init__(self) -> None:
        self.slots: list[tuple[float, int, int]] = []

    def before(self, a: int, b: int) -> bool:
        (score_a, count_a, key_a), (score_b, count_b, key_b) = self.slots[a], self.slots[b]
        if score_a != score_b:
            return score_a > score_b
        if count_a != count_b:
            return count_a > count_b
        return key_a < key_b

    def swap(self, a: int, b: int) -> None:
        self.slots[a], self.slots[b] = self.slots[b], self.slots[a]

    def sift_up(self, pos: int) -> None:
        while pos > 0 and self.before(pos, (pos - 1) >> 1):
            self.swap(pos, (pos - 1) >> 1)
            pos = (pos - 1) >> 1

    def sift_down(self, pos: int) -> None:
        n = len(self.slots)
        while 2 * pos + 1 < n:
            child = 2 * pos + 1
            if child + 1 < n and self.before(child + 1, child):
                child += 1
            if not self.before(child, pos):
                return
            self.swap(pos, child)
            pos = child

    def push(self, entry: tuple[float, int, int]) -> None:
        self.slots.append(entry)
        self.sift_up(len(self.slots) - 1)

    def drop(self) -> None:
        last = self.slots.pop()
        if self.slots:
            self.slots[0] = last
            self.sift_down(0)


entries = st.tuples(st.sampled_from([0.25, 0.5, 1 / 3, 1.0, math.nan]), st.integers(0, 3), st.integers(-3, 5))


@settings(max_examples=300, deadline=None)
@given(st.lists(entries, max_size=30), st.lists(st.one_of(entries, st.none()), max_size=60))
def test_every_slot_holds_what_sifting_by_swaps_puts_there(initial: list[tuple[float, int, int]], ops: list[tuple[float, int, int] | None]) -> None:
    # The same slots hold the same entries, even among equal ones and NaN scores: so a run
    # pops exactly what it popped before the sifting was rewritten.
    queue = ScoreQueue()
    reference = SwappingHeap()
    for score, count, key in initial:
        queue.add_unordered(score, count, key)
        reference.slots.append((score, count, key))
    queue.heapify()
    for pos in range(len(reference.slots) // 2 - 1, -1, -1):
        reference.sift_down(pos)

    def slots() -> list[tuple[str, int, int]]:
        # (repr: NaN equals itself as a string)
        return [(repr(queue.score_at(i)), int(queue.count_at(i)), int(queue.key_at(i))) for i in range(len(queue))]

    assert slots() == [(repr(s), c, k) for s, c, k in reference.slots]
    for op in ops:
        if op is None:
            if len(queue) == 0:
                continue
            queue.drop()
            reference.drop()
        else:
            queue.push(*op)
            reference.push(op)
        assert slots() == [(repr(s), c, k) for s, c, k in reference.slots]
