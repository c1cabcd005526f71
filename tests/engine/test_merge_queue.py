"""MergeQueue: HF's merge order (count as u64 descending, pair ascending, then arrival)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from librt.vecs import vec
from mypy_extensions import i64

from engine.models.bpe.merge_queue import MergeQueue

_U64 = 1 << 64


def words(*offsets: int) -> vec[i64]:
    return vec[i64](offsets)


def test_most_frequent_first_then_lowest_pair_then_first_come() -> None:
    queue = MergeQueue()
    queue.push(5, 9, words(10))
    queue.push(7, 3, words(20))
    queue.push(5, 2, words(10, 20))
    queue.push(5, 9, words(20))
    taken = []
    while len(queue) > 0:
        taken.append((queue.top_count(), queue.top_pair(), list(queue.take())))
    assert taken == [(7, 3, [20]), (5, 2, [10, 20]), (5, 9, [10]), (5, 9, [20])]


def test_a_count_below_zero_is_a_huge_u64_count_as_in_hf() -> None:
    queue = MergeQueue()
    queue.push(1 << 40, 1, words(1))
    queue.push(-1, 2, words(2))
    queue.push(-3, 3, words(3))
    queue.push(0, 4, words(4))
    order = []
    while len(queue) > 0:
        order.append((queue.top_count(), queue.top_pair()))
        queue.take()
    assert order == [(-1, 2), (-3, 3), (1 << 40, 1), (0, 4)]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-3, 6), st.integers(0, 5)), max_size=40),
    st.lists(st.tuples(st.integers(-3, 6), st.integers(0, 5)), max_size=20),
    st.integers(0, 60),
)
def test_entries_leave_in_hfs_order(initial: list[tuple[int, int]], later: list[tuple[int, int]], taken_between: int) -> None:
    queue = MergeQueue()
    waiting: list[tuple[int, int, int]] = []  # (u64 count, pair, arrival)
    for arrival, (count, pair) in enumerate(initial):
        queue.add_unordered(count, pair, words(arrival))
        waiting.append((count % _U64, pair, arrival))
    queue.heapify()

    def take_one() -> None:
        waiting.sort(key=lambda entry: (-entry[0], entry[1], entry[2]))
        count, pair, arrival = waiting.pop(0)
        assert (queue.top_count() % _U64, queue.top_pair()) == (count, pair)
        assert list(queue.take()) == [arrival]

    for _ in range(min(taken_between, len(waiting))):
        take_one()
    for arrival, (count, pair) in enumerate(later, start=len(initial)):
        queue.push(count, pair, words(arrival))
        waiting.append((count % _U64, pair, arrival))
    while waiting:
        take_one()
    assert len(queue) == 0
