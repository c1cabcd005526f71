"""The models' word cache (`engine.models.base.RunCache`): two generations, a hit in the old one
copied forward, never more runs than the capacity; and the BPE model through it."""

from __future__ import annotations

import pytest
from librt.vecs import vec
from mypy_extensions import i64

from engine.models.base import DEFAULT_CACHE_CAPACITY, MAX_CACHED_LENGTH, RunCache, TokenRun
from engine.models.bpe.byte_runs import ID_BITS, ID_MASK, INLINE, MID, SPLIT_SHIFT, TWO, ByteRuns, RunTable, inline_value
from engine.models.bpe.merge_table import Merged
from engine.models.bpe.model import BPE
from engine.models.bpe.word_run import WordRun


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


# -- the byte-keyed cache of ASCII words (`engine.models.bpe.byte_runs`) ---------------------


def word_run(ids: list[int], spans: list[int]) -> WordRun:
    return WordRun(tuple(ids), tuple(str(id) for id in ids), vec[i64](spans))


def test_a_run_table_keeps_each_words_tokens_in_flat_lists() -> None:
    table = RunTable()
    data = b"hug hugs"
    assert table.find(data, 0, 3) == -1
    assert table.put(data, 0, 3, word_run([7], [0, 3])) == 0
    assert table.put(data, 3, 8, word_run([8, 9], [0, 4, 4, 5])) == 1
    assert table.find(b"xhugx", 1, 4) == 0  # found by its bytes, wherever they lie
    assert table.find(data, 3, 8) == 1
    assert list(table.firsts) == [0, 1, 3]
    assert table.ids == [7, 8, 9]
    assert list(table.spans) == [0, 3, 0, 4, 4, 5]
    copy = RunTable()
    assert copy.put_copy(data, 3, 8, table, 1) == 0
    assert (copy.ids, list(copy.spans), list(copy.firsts)) == ([8, 9], [0, 4, 4, 5], [0, 2])


def test_a_run_table_tells_long_words_apart_when_their_hashes_agree() -> None:
    # "Aa" and "BB" hash alike (65 * 31 + 97 == 66 * 31 + 66); past 7 bytes a key is a hash
    first, second = b"xxxxxxAa", b"xxxxxxBB"
    table = RunTable()
    table.put(first, 0, 8, word_run([1], [0, 8]))
    assert table.find(second, 0, 8) == -1
    table.put(second, 0, 8, word_run([2], [0, 8]))
    assert table.find(first, 0, 8) == 0 and table.find(second, 0, 8) == 1


def test_a_run_table_grows_past_its_first_slots() -> None:
    table = RunTable()
    words = [f"w{i}".encode() for i in range(3000)]  # past the first table's 1,024 slots
    for i, word in enumerate(words):
        assert table.put(word, 0, len(word), word_run([i], [0, len(word)])) == i
    assert all(table.find(word, 0, len(word)) == i for i, word in enumerate(words))


def lookup(runs: ByteRuns, word: bytes, start: int, end: int) -> tuple[RunTable, int]:
    """The table and value of `word` in `runs`, as the fast path finds it: in the current
    generation, else recalled from the old one."""
    found = runs.current.find(word, start, end)
    return (runs.current, found) if found >= 0 else runs.recall(word, start, end)


def _miss(runs: ByteRuns, word: bytes) -> RunTable:
    """Miss `word` and put its run: the table it went to."""
    assert lookup(runs, word, 0, len(word))[1] == -1
    table, entry = runs.put(word, 0, len(word), word_run([len(word)], [0, len(word)]))
    assert table.ids[table.firsts[entry]] == len(word)
    return table


def _put(runs: ByteRuns, word: bytes) -> None:
    """Miss `word` twice: the second time it goes in."""
    assert _miss(runs, word) is runs.spill
    assert _miss(runs, word) is runs.current


def _held(runs: ByteRuns) -> tuple[list[bytes], list[bytes]]:
    """(the words of the current generation, of the old one), of the words a..e."""
    words = [b"a", b"b", b"c", b"d", b"e"]
    old = runs.old
    return (
        [word for word in words if runs.current.find(word, 0, 1) >= 0],
        [word for word in words if old is not None and old.find(word, 0, 1) >= 0],
    )


def test_byte_runs_keep_two_generations_as_the_str_cache_does() -> None:
    # RunCache's docstring case: capacity 4, generations of 2
    runs = ByteRuns(4)
    _put(runs, b"a")
    _put(runs, b"b")
    assert _held(runs) == ([b"a", b"b"], [])
    _put(runs, b"c")
    assert _held(runs) == ([b"c"], [b"a", b"b"])
    table, entry = lookup(runs, b"a", 0, 1)  # found in the old one: copied forward
    assert entry >= 0 and table is runs.current
    assert runs.current.ids[runs.current.firsts[entry]] == 1
    assert _held(runs) == ([b"a", b"c"], [b"a", b"b"])
    _put(runs, b"d")
    assert _held(runs) == ([b"d"], [b"a", b"c"])
    assert lookup(runs, b"b", 0, 1)[1] == -1  # not seen for a generation: gone


def test_a_word_missed_once_is_read_from_the_spill_and_not_kept() -> None:
    runs = ByteRuns(100_000)
    assert _miss(runs, b"once") is runs.spill and len(runs) == 0
    assert runs.spill.ids == [4]  # its tokens, read at once by the fast path
    for i in range(1030):  # the spill starts over: it never holds more than SPILL_WORDS words
        _miss(runs, f"w{i}".encode())
    assert runs.spill.used <= 1024 and len(runs) < 20  # (a few share a doorkeeper bit)
    assert _miss(runs, b"once") is runs.current  # missed again in the generation: kept
    assert lookup(runs, b"once", 0, 4)[1] >= 0


@pytest.mark.parametrize("capacity", [1, 2, 3, 4, 5, 10])
def test_byte_runs_never_hold_more_words_than_the_capacity(capacity: int) -> None:
    runs = ByteRuns(capacity)
    for i in range(50):
        word = f"w{i}".encode()
        for _ in range(2):
            if lookup(runs, word, 0, len(word))[1] < 0:
                runs.put(word, 0, len(word), word_run([i], [0, len(word)]))
        assert lookup(runs, word, 0, len(word))[1] >= 0  # the word just put twice is there
        half = f"w{i // 2}".encode()
        lookup(runs, half, 0, len(half))  # a recall copies forward: still within the capacity
        assert len(runs) <= capacity


def test_the_bpe_model_clears_both_caches_and_sizes_both() -> None:
    bpe = BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")], cache_capacity=6)
    runs = bpe.byte_runs()
    assert runs is not None and runs.capacity == 6
    # "ab" merges to the one token 2: kept in its value, as INLINE tokens
    assert bpe.byte_entry(runs, b"ab", 0, 2) == (runs.spill, INLINE | 2)
    assert bpe.byte_entry(runs, b"ab", 0, 2) == (runs.current, INLINE | 2)
    assert runs.current.find(b"ab", 0, 2) == INLINE | 2 and len(runs) == 1
    assert runs.merges is not None and (runs.merges.tokens[2], runs.objects[2]) == ("ab", 2)
    bpe.fuse_unk = True  # an option change clears the word caches
    assert len(runs) == 0
    bpe._resize_cache(0)
    assert bpe.byte_runs() is None


def merged(ids: list[int], starts: list[int], units: int) -> Merged:
    """A short word of `units` chars merged into the symbols `ids`, starting at `starts`."""
    return Merged(vec[i64](ids), vec[i64](starts), len(ids), units, units)


def test_a_short_word_of_one_or_two_tokens_is_kept_in_its_value() -> None:
    assert inline_value(merged([5], [0], 3), 3) == INLINE | 5
    # " hug" as " h" + "ug": the second token starts at char 2
    assert inline_value(merged([7, ID_MASK], [0, 2], 4), 4) == INLINE | TWO | 7 | ID_MASK << ID_BITS | 2 << SPLIT_SHIFT
    assert inline_value(merged([1, 2, 3], [0, 1, 2], 3), 3) == -1  # three tokens: an entry
    assert inline_value(merged([ID_MASK + 1], [0], 3), 3) == -1  # an id of 2**20: an entry
    assert inline_value(merged([4], [0], 7), 7) >= INLINE
    assert inline_value(merged([4], [0], 8), 8) >= INLINE  # a mid word: its keys are its bytes
    assert inline_value(merged([4], [0], MID + 1), MID + 1) == -1  # a long word (its key is a hash): an entry
    # the separate end-of-word symbol, a unit past the chars: an entry
    assert inline_value(Merged(vec[i64]([4, 9]), vec[i64]([0, 2]), 2, 3, 2), 2) == -1


def test_a_run_table_keeps_inline_values_in_its_cells_only() -> None:
    table = RunTable()
    data = b"hug hugs"
    one = table.put_merged(data, 0, 3, merged([0], [0], 3))
    two = table.put_merged(data, 3, 8, merged([1, 2], [0, 2], 5))
    assert (one, two) == (INLINE | 0, INLINE | TWO | 1 | 2 << ID_BITS | 2 << SPLIT_SHIFT)
    assert table.find(b"xhugx", 1, 4) == one and table.find(data, 3, 8) == two
    assert (table.ids, list(table.firsts), table.used) == ([], [0], 2)
    mid = table.put_merged(b"hugshugs", 0, 8, merged([0, 0], [0, 4], 8))  # 8 bytes: inline too
    assert mid == INLINE | TWO | 4 << SPLIT_SHIFT and table.find(b"hugshugs", 0, 8) == mid
    long = table.put_merged(b"hugshugshugs", 0, 12, merged([0, 0, 0], [0, 4, 8], 12))  # three tokens
    assert long == 0 and table.ids == [0, 0, 0] and table.find(b"hugshugshugs", 0, 12) == 0
    hashed = table.put_merged(b"h" * 15, 0, 15, merged([9], [0], 15))  # past MID: keyed by a hash
    assert hashed == 1 and table.long_words[1] == b"h" * 15 and table.find(b"h" * 15, 0, 15) == 1
    spilled = RunTable(1)
    assert spilled.put_merged(b"x", 0, 1, merged([3], [0], 1), False) == INLINE | 3
    assert spilled.find(b"x", 0, 1) == -1 and spilled.used == 1  # read once, never found
    copy = RunTable()
    assert copy.put_copy(data, 3, 8, table, two) == two
    assert copy.find(data, 3, 8) == two and copy.ids == []


def test_words_of_8_to_14_bytes_are_found_by_their_two_keys() -> None:
    table = RunTable(16, 2)  # (two mid slots: the mid table grows as they come)
    words = [f"{i:08d}".encode() + b"x" * (i % 7) for i in range(200)]  # 8 to 14 bytes
    words += [b"\x00" * 8, b"\x00" * 9, b"\xff" * 14, "néééé".encode(), b" something", b" somethinG"]
    data = b"|".join(words)
    starts = []
    at = 0
    for word in words:
        starts.append(at)
        at += len(word) + 1
    for k, word in enumerate(words):
        assert table.find(data, starts[k], starts[k] + len(word)) == -1
        assert table.put(data, starts[k], starts[k] + len(word), word_run([k], [0, len(word)])) == k
    for k, word in enumerate(words):
        assert table.find(data, starts[k], starts[k] + len(word)) == k
        assert table.find(b"<" + word + b">", 1, 1 + len(word)) == k  # wherever its bytes lie
    assert table.find(b" somethinx", 0, 10) == -1 and table.mid_used == len(words)
    assert set(table.long_words) == {b""}  # no mid word's bytes kept
    copy = RunTable()
    assert copy.put_copy(data, starts[5], starts[5] + len(words[5]), table, 5) == 0
    assert copy.find(data, starts[5], starts[5] + len(words[5])) == 0


def test_byte_runs_switch_their_tokens_with_the_models_vocabulary() -> None:
    bpe = BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")], cache_capacity=6)
    runs = bpe.byte_runs()
    assert runs is not None
    bpe.byte_entry(runs, b"ab", 0, 2)
    bpe.byte_entry(runs, b"ab", 0, 2)
    assert runs.merges is not None and runs.merges.tokens == ["a", "b", "ab"] and len(runs) == 1
    bpe.set_vocab_and_merges({"b": 0, "a": 1, "ab": 3, "ba": 2}, [("b", "a"), ("a", "b")])
    assert len(runs) == 0
    # the first word merged with the new table: its tokens replace the old ones
    assert bpe.byte_entry(runs, b"ab", 0, 2) == (runs.spill, INLINE | 3)
    assert runs.merges is not None and runs.merges.tokens == ["b", "a", "ba", "ab"] and runs.objects == [0, 1, 2, 3]
