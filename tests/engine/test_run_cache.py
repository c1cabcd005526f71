"""The models' word cache (`engine.models.base.RunCache`): two generations, a hit in the old one
copied forward, never more runs than the capacity; and the BPE model through it."""

from __future__ import annotations

import pytest

from engine.models.base import DEFAULT_CACHE_CAPACITY, MAX_CACHED_LENGTH, RunCache, TokenRun
from engine.models.bpe.model import BPE


def run(id: int) -> TokenRun:
    return TokenRun([id], [str(id)], [0], [1])


def held(cache: RunCache) -> tuple[list[str], list[str]]:
    """(the current generation's words, the old one's), in the order they went in."""
    return list(cache.runs), list(cache.old)


def test_a_full_generation_becomes_the_old_one_and_a_hit_there_is_copied_forward() -> None:
    # the docstring's case: capacity 4, generations of 2
    cache = RunCache(4)
    a, b, c, d = run(0), run(1), run(2), run(3)
    cache.put("a", a)
    cache.put("b", b)
    assert held(cache) == (["a", "b"], [])
    cache.put("c", c)
    assert held(cache) == (["c"], ["a", "b"])
    assert cache.get("a") is a
    assert held(cache) == (["c", "a"], ["a", "b"])
    cache.put("d", d)
    assert held(cache) == (["d"], ["c", "a"])
    assert cache.get("b") is None  # not seen for a generation: gone
    assert cache.get("a") is a and cache.get("c") is c and cache.get("d") is d


def test_a_hit_in_the_current_generation_leaves_the_generations_as_they_are() -> None:
    cache = RunCache(4)
    cache.put("a", run(0))
    cache.put("b", run(1))
    cache.put("c", run(2))
    assert cache.get("c") is not None
    assert held(cache) == (["c"], ["a", "b"])


@pytest.mark.parametrize("capacity", [1, 2, 3, 4, 5, 10])
def test_never_more_runs_than_the_capacity(capacity: int) -> None:
    cache = RunCache(capacity)
    for i in range(50):
        cache.put(f"w{i}", run(i))
        assert cache.get(f"w{i}") is not None  # the word just put is always there
        cache.get(f"w{i // 2}")  # a recall copies forward: still within the capacity
        assert len(cache) <= capacity


def test_capacity_one_keeps_the_last_word() -> None:
    cache = RunCache(1)
    cache.put("a", run(0))
    cache.put("b", run(1))
    assert held(cache) == (["b"], [])


def test_capacity_zero_caches_nothing() -> None:
    cache = RunCache(0)
    cache.put("a", run(0))
    assert cache.get("a") is None
    assert len(cache) == 0


def test_long_words_are_not_cached() -> None:
    cache = RunCache(10)
    cache.put("x" * MAX_CACHED_LENGTH, run(0))
    cache.put("x" * (MAX_CACHED_LENGTH - 1), run(1))
    assert held(cache) == (["x" * (MAX_CACHED_LENGTH - 1)], [])


def test_clear_and_resize_empty_both_generations() -> None:
    cache = RunCache(4)
    for word in "abc":
        cache.put(word, run(0))
    cache.clear()
    assert held(cache) == ([], [])
    for word in "abc":
        cache.put(word, run(0))
    cache.resize(6)
    assert held(cache) == ([], [])
    for word in "abcd":
        cache.put(word, run(0))
    assert held(cache) == (["d"], ["a", "b", "c"])
    cache.resize(0)
    cache.put("a", run(0))
    assert len(cache) == 0


def test_the_default_holds_two_generations_of_50_000() -> None:
    cache = RunCache()
    assert cache.capacity == DEFAULT_CACHE_CAPACITY == 100_000
    assert cache.generation == 50_000


def test_bpe_answers_the_same_through_turnovers_of_a_small_cache() -> None:
    vocab = {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "ca": 5}
    merges = [("a", "b"), ("ab", "c"), ("c", "a")]
    uncached = BPE(vocab, merges, cache_capacity=0)
    small = BPE(vocab, merges, cache_capacity=4)
    words = ["abc", "cab", "ab", "abc", "ca", "cabc", "abc", "bca", "abcab", "abc", "cab"]
    for _ in range(3):
        for word in words:
            assert small.tokenize_run(word).ids == uncached.tokenize_run(word).ids
            assert len(small._cache) <= 4
    assert len(uncached._cache) == 0
    # "abc" comes back every few words: copied forward each time, never dropped
    assert "abc" in small._cache.runs or "abc" in small._cache.old
    small._resize_cache(2)
    assert len(small._cache) == 0
    assert [t.value for t in small.tokenize_run("abcab").tokens()] == ["abc", "ab"]
    assert list(small._cache.runs) == ["abcab"]
    small._clear_cache()
    assert len(small._cache) == 0
