"""ScoreQueue: the WordPiece run's order (score descending, count descending, key ascending)."""

from __future__ import annotations

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
