"""The BPE word cache of the encode fast path, keyed by a word's UTF-8 bytes (issue 25).

The str-keyed cache (`WordCache`) needs a str per word of the line, hashed, before it can look
the word up: cutting a line into str words and those lookups were a third of an encode. Here a
line's words are found on its bytes (`byte_splits.gpt2_bounds`, `gpt2_utf8_bounds` past ASCII)
and each looked up by its native-int key (`byte_splits.word_key`), with no object made; the
tokens of every cached word lie in flat lists, one entry after the other, for the fast path to
copy from.

Which chars a word's bytes stand for is the pre-tokenizer's: their byte-level chars (GPT-2's
ByteLevel: b" a" is "Ġa"), the only kind filled today. The model owns this cache beside its
str-keyed one and clears both together, so an option that changes tokens clears it too.
"""

from __future__ import annotations

from typing import Final

from librt.threading import Lock
from librt.vecs import append, vec
from mypy_extensions import i64

from engine.byte_splits import EMPTY, SAME_CASE, SHORT, doubled, folded_word, slot_for, slot_of, word_key
from engine.models.bpe.merge_table import Merged, MergeTable
from engine.models.bpe.word_run import WordRun

# A table's starting size, in slots (a power of two).
FIRST_SLOTS = 1024

# A word's value (`RunTable.find`): the entry of its tokens in the table's flat lists, or, with
# INLINE set, the tokens themselves when they are one or two ids below 2**20 that cover the
# short word one after the other (a merged run, `put_merged`): id0 | id1 << ID_BITS | where the
# second starts << SPLIT_SHIFT | TWO if there is a second. Their int objects are
# `ByteRuns.objects` by id, their tokens the merge table's.
# perf: a hit on such a word reads no list but the table's cells (firsts, ids and spans were
# three dependent cache misses a word); they are 97 % of gcide's words.
INLINE: Final[i64] = 1 << 62
TWO: Final[i64] = 1 << 61
ID_BITS: Final[i64] = 20
ID_MASK: Final[i64] = (1 << 20) - 1
SPLIT_SHIFT: Final[i64] = 40
# (an inline word has at most MID bytes)
SPLIT_MASK: Final[i64] = 255
# A word of SHORT + 1 to MID bytes is kept by its two keys in `RunTable.mids` (`mid_keys`):
# exact, so no bytes are compared, and its value may be INLINE.
# perf: keyed by a hash and told apart by their bytes, such words (14 % of gcide's words, 8 to
# 14 bytes with their space) took three dependent loads a lookup where a short word takes one.
MID: Final[i64] = 14


class RunTable:
    """word bytes -> the word's value: INLINE tokens, or entry e, whose tokens are ids[t] and
    spans[2t:2t+2] (offsets in the word) for t in firsts[e]..firsts[e+1] (their strs are the
    model's tokens of those ids: the encodings made from here make them when read)."""

    cells: vec[i64]
    mask: i64
    # words put (keyed or not)
    used: i64
    # the words of SHORT + 1 to MID bytes, three ints a slot: (key2, key1, value), key2 0 where
    # the slot is free (`mid_keys`); how many are keyed
    mids: vec[i64]
    mid_mask: i64
    mid_used: i64
    # each entry's bytes if it is a long word (b"" for a short or mid one, whose keys are its
    # bytes; a long word's value is always an entry)
    long_words: list[bytes]
    firsts: vec[i64]
    ids: list[int]
    spans: vec[i64]

    def __init__(self, slots: i64 = FIRST_SLOTS, mid_slots: i64 = FIRST_SLOTS) -> None:
        """Empty, with `slots` and `mid_slots` slots (powers of two) before they first grow."""
        self.cells = vec[i64]([EMPTY] * (2 * slots))
        self.mask = slots - 1
        self.used = 0
        self.mids = vec[i64]([0] * (3 * mid_slots))
        self.mid_mask = mid_slots - 1
        self.mid_used = 0
        self.long_words = []
        self.firsts = vec[i64]([0])
        self.ids = []
        self.spans = vec[i64]()

    def find(self, data: bytes, start: i64, end: i64) -> i64:
        """The value of the word data[start:end], or -1."""
        if SHORT < end - start <= MID:
            key1 = mid_keys(data, start, end)
            key2 = mid_key2(data, start, end)
            mids = self.mids
            s = mid_slot(mids, self.mid_mask, key1, key2)
            return mids[3 * s + 2] if mids[3 * s] != 0 else -1
        cells = self.cells
        key = word_key(data, start, end, False, SAME_CASE)
        s = slot_for(cells, self.mask, key, self.long_words, data, start, end, False, SAME_CASE)
        return cells[2 * s + 1] if cells[2 * s] != EMPTY else -1

    def put(self, data: bytes, start: i64, end: i64, run: WordRun, keyed: bool = True) -> i64:
        """Keep `run` as the tokens of the word data[start:end] (not held yet); its value, an
        entry. Not `keyed`: the value is not found by the word (a word read once,
        `ByteRuns.spill`)."""
        ids = self.ids
        spans = self.spans
        run_ids = run.ids
        run_spans = run.spans
        for k in range(len(run_ids)):
            ids.append(run_ids[k])
            spans = append(spans, run_spans[2 * k])
            spans = append(spans, run_spans[2 * k + 1])
        self.spans = spans
        return self._add(data, start, end, self._entry(data, start, end), keyed)

    def put_merged(self, data: bytes, start: i64, end: i64, merged: Merged, keyed: bool = True) -> i64:
        """Keep the symbols of `merged` as the tokens of the word data[start:end] (not held
        yet); its value (`keyed` as `put`'s)."""
        value = inline_value(merged, end - start)
        if value >= 0:
            return self._add(data, start, end, value, keyed)
        ids = self.ids
        spans = self.spans
        merged_ids = merged.ids
        k: i64 = 0
        while k < merged.n:
            ids.append(merged_ids[k])
            spans = append(spans, merged.start(k))
            spans = append(spans, merged.end(k))
            k += 1
        self.spans = spans
        return self._add(data, start, end, self._entry(data, start, end), keyed)

    def put_copy(self, data: bytes, start: i64, end: i64, other: RunTable, value: i64) -> i64:
        """Keep the tokens of `other`'s `value` as those of the word data[start:end] (its word,
        not held here yet); the value here."""
        if value >= INLINE:
            return self._add(data, start, end, value)
        entry = value
        ids = self.ids
        spans = self.spans
        other_ids = other.ids
        other_spans = other.spans
        t = other.firsts[entry]
        last = other.firsts[entry + 1]
        while t < last:
            ids.append(other_ids[t])
            spans = append(spans, other_spans[2 * t])
            spans = append(spans, other_spans[2 * t + 1])
            t += 1
        self.spans = spans
        return self._add(data, start, end, self._entry(data, start, end))

    def _entry(self, data: bytes, start: i64, end: i64) -> i64:
        """A new entry for the word data[start:end], whose tokens were just appended."""
        self.firsts = append(self.firsts, len(self.ids))
        self.long_words.append(folded_word(data, start, end, False, SAME_CASE) if end - start > MID else b"")
        return len(self.firsts) - 2

    def _add(self, data: bytes, start: i64, end: i64, value: i64, keyed: bool = True) -> i64:
        """Key data[start:end] to `value` (not `keyed`: only count the word); the value."""
        self.used += 1
        if not keyed:
            return value
        if SHORT < end - start <= MID:
            self._add_mid(mid_keys(data, start, end), mid_key2(data, start, end), value)
            return value
        key = word_key(data, start, end, False, SAME_CASE)
        cells = self.cells
        s = slot_for(cells, self.mask, key, self.long_words, data, start, end, False, SAME_CASE)
        cells[2 * s] = key
        cells[2 * s + 1] = value
        if 2 * self.used > self.mask:
            self.cells = doubled(self.cells)
            self.mask = len(self.cells) // 2 - 1
        return value

    def _add_mid(self, key1: i64, key2: i64, value: i64) -> None:
        mids = self.mids
        s = mid_slot(mids, self.mid_mask, key1, key2)
        mids[3 * s] = key2
        mids[3 * s + 1] = key1
        mids[3 * s + 2] = value
        self.mid_used += 1
        if 2 * self.mid_used > self.mid_mask:
            self.mids = _mids_doubled(mids)
            self.mid_mask = len(self.mids) // 3 - 1


def _mids_doubled(mids: vec[i64]) -> vec[i64]:
    """`RunTable.mids` with twice the slots, every word placed again (`byte_splits.doubled`'s
    three-int slots)."""
    out = vec[i64]([0] * (2 * len(mids)))
    mask: i64 = 2 * (len(mids) // 3) - 1
    for k in range(0, len(mids), 3):
        if mids[k] != 0:
            s = mid_slot(out, mask, mids[k + 1], mids[k])
            out[3 * s] = mids[k]
            out[3 * s + 1] = mids[k + 1]
            out[3 * s + 2] = mids[k + 2]
    return out


def mid_keys(data: bytes, start: i64, end: i64) -> i64:
    """The first key of the word data[start:end] of SHORT + 1 to MID bytes: its first 7 bytes,
    the first lowest (0 included; below 2**56, as every key here, so no shift overflows)."""
    key: i64 = 0
    shift: i64 = 0
    i = start
    while i < start + 7:
        byte: i64 = data[i]
        key |= byte << shift
        shift += 8
        i += 1
    return key


def mid_key2(data: bytes, start: i64, end: i64) -> i64:
    """Its second key: its bytes past the 7th (at most 7), the first lowest, and its length in
    the top byte (never 0)."""
    key: i64 = (end - start) << 56
    shift: i64 = 0
    i = start + 7
    while i < end:
        byte: i64 = data[i]
        key |= byte << shift
        shift += 8
        i += 1
    return key


def mid_slot(mids: vec[i64], mask: i64, key1: i64, key2: i64) -> i64:
    """The slot of `mids` holding the keys (key1, key2), or the free one where they would go."""
    s = slot_of(key1 ^ key2 ^ (key1 >> 29)) & mask
    while True:
        found = mids[3 * s]
        if found == 0 or (found == key2 and mids[3 * s + 1] == key1):
            return s
        s = (s + 1) & mask


def inline_value(merged: Merged, length: i64) -> i64:
    """The INLINE value of the merged short word of `length` bytes (its chars), or -1 when its
    tokens do not fit in one."""
    n = merged.n
    if n > 2 or length > MID or merged.units != length:
        return -1
    id0 = merged.ids[0]
    id1: i64 = merged.ids[1] if n == 2 else 0
    if id0 > ID_MASK or id1 > ID_MASK:
        return -1
    value = INLINE | id0 | (id1 << ID_BITS)
    if n == 2:
        value |= TWO | (merged.starts[1] << SPLIT_SHIFT)
    return value


# The words a spill table holds before it starts over (each is read once, as soon as it is put).
SPILL_WORDS = 1024
# Bits of the doorkeeper a word of the generation: few false "seen before"s.
SEEN_BITS_A_WORD = 8


class ByteRuns:
    """The runs of words by their bytes, in two generations as `WordCache` keeps its
    own: words go into `current`; when it holds half the capacity it becomes `old`, and the old
    one is dropped; a word found in `old` is copied into `current`. So a word in use survives
    the turnover, and never more than `capacity` words are held.

    A word goes in only the second time it is missed in a generation (a doorkeeper: one bit
    a word, `seen`, cleared at each turnover): a word met once would push out words in use.
    On 11 MB of gcide (129,086 distinct words, 73,979 of them once) at the default capacity
    that is 88,700 misses a pass instead of 120,800. The first time, its tokens go to `spill`,
    which no word finds, read at once and dropped every SPILL_WORDS words.

    Values are given with their table, `current` or `spill`. `bounds` is room for the fast
    path's scan of a line. Whoever reads or changes it holds `lock` (`fast_path._byte_fill`)."""

    capacity: i64
    generation: i64
    current: RunTable
    old: RunTable | None
    spill: RunTable
    seen: vec[i64]
    bounds: vec[i64]
    lock: Lock
    # The merge table every value held was merged with (`put_merged`), and its int object of
    # each id, for INLINE values.
    # perf: an id appended as this shared object is no int allocated (and freed) a token.
    merges: MergeTable | None
    objects: list[object]

    def __init__(self, capacity: i64) -> None:
        self.bounds = vec[i64]()
        self.lock = Lock()
        self.merges = None
        self.objects = []
        self.resize(capacity)

    def __len__(self) -> int:
        """How many words it holds (a word copied forward is in both generations: counted twice)."""
        return self.current.used + (self.old.used if self.old is not None else 0)

    def clear(self) -> None:
        self.current = RunTable()
        self.old = None
        self.spill = RunTable(1)
        self._clear_seen()

    def _clear_seen(self) -> None:
        # (32 bits an int: 1 << 63 would overflow an i64)
        bits: i64 = 32
        while bits < SEEN_BITS_A_WORD * self.generation:
            bits *= 2
        self.seen = vec[i64]([0] * (bits // 32))

    def resize(self, capacity: i64) -> None:
        self.capacity = capacity
        self.generation = max(1, capacity // 2)
        self.clear()

    def recall(self, data: bytes, start: i64, end: i64) -> tuple[RunTable, i64]:
        """(`current`, the value there of the word data[start:end], just missed in `current`,
        copied there from `old`), or (`current`, -1) when `old` does not hold it either: then
        `put` its run."""
        old = self.old
        if old is None:
            return self.current, -1
        found = old.find(data, start, end)
        if found < 0:
            return self.current, -1
        self._make_room()
        # subtle: `old` may have just been dropped for a new one; its lists are still ours
        current = self.current
        return current, current.put_copy(data, start, end, old, found)

    def put(self, data: bytes, start: i64, end: i64, run: WordRun) -> tuple[RunTable, i64]:
        """Keep `run` as the tokens of the word data[start:end] (just missed by `recall`): its
        table and value there."""
        table = self._table_for(data, start, end)
        return table, table.put(data, start, end, run, table is self.current)

    def put_merged(self, data: bytes, start: i64, end: i64, merged: Merged, merges: MergeTable) -> tuple[RunTable, i64]:
        """`put` for a word merged by `merges` (`RunTable.put_merged`): another table than
        before (the model's vocabulary changed) clears the words held."""
        if merges is not self.merges:
            self.clear()
            self.merges = merges
            self.objects = merges.objects
        table = self._table_for(data, start, end)
        return table, table.put_merged(data, start, end, merged, table is self.current)

    def _table_for(self, data: bytes, start: i64, end: i64) -> RunTable:
        """Where the word data[start:end], just missed, goes: `current` if it was missed before
        in this generation, else `spill`."""
        bit = slot_of(word_key(data, start, end, False, SAME_CASE)) & (32 * len(self.seen) - 1)
        word = self.seen[bit >> 5]
        flag: i64 = 1 << (bit & 31)
        if word & flag:
            self._make_room()
            return self.current
        self.seen[bit >> 5] = word | flag
        if self.spill.used >= SPILL_WORDS:
            self.spill = RunTable(1)
        return self.spill

    def _make_room(self) -> None:
        if self.current.used >= self.generation:
            # (with a capacity of 1 or 3, two generations would hold more than it)
            self.old = self.current if 2 * self.generation <= self.capacity else None
            # (sized as the full one: a generation's table does not grow slot by slot again)
            self.current = RunTable(len(self.current.cells) // 2, len(self.current.mids) // 3)
            self._clear_seen()
