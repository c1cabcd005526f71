"""The BPE merge of a short word over native ints: what a word cache miss costs most of the time.

`MergeTable` holds the merges in an open-addressing table of vecs (pair -> rank, new id) and
merges a word's symbol ids by scanning for the lowest-rank pair, leftmost first, instead of a heap
of boxed ints. `CharIds` gives a char's symbol id through a vec indexed by code point. Neither
handles dropout, unknown chars, byte fallback or records of the merges: `encoder.merge_all` does.
"""

from __future__ import annotations

from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64

# Words of more chars than this go to `encoder.merge_all`: the scan is quadratic in the length.
SHORT_WORD: Final = 64
# A pair's merge in one int: rank * 2**32 + new id (ids and ranks are below 2**31), so the
# lowest is the lowest rank; a pair with no merge is above them all.
_ID_BITS: Final[i64] = 32
_ID_MASK: Final[i64] = (1 << 32) - 1
NO_RANK: Final[i64] = 1 << 62
_EMPTY: Final[i64] = -1
# Chars below this code point have their symbol ids in a vec, the rest in a dict.
_LOW_CHARS: Final = 0x800
_UNKNOWN: Final[i64] = -2


def _slot_hash(a: i64, b: i64) -> i64:
    # (ids are below 2**31: the products stay within 63 bits)
    h = a * 0x9E3779B1 + b * 0x7FEB352D
    return h ^ (h >> 29)


class MergeTable:
    """pair (left id, right id) -> (rank, new id) in a vec; `merge` applies them to a short word.

    Built from the model's `ranks` (packed pair a * stride + b -> rank) and `new_ids` (rank ->
    merged id): {(1, 2): rank 0 -> 7} merges [1, 2, 1, 2] into [7, 7].
    """

    # slot s at [2 * s, 2 * s + 1]: the pair's key (a * stride + b, or -1: empty), then its
    # rank * 2**32 + its new id (one cache line holds both)
    _slots: vec[i64]
    _mask: i64
    _stride: i64
    # every id's token ("" where an id below the stride has none), and its int object: read by
    # id, no int boxed. Never changed (encodings make their tokens and ids from them later).
    tokens: list[str]
    objects: list[object]

    def __init__(self, ranks: dict[int, int], new_ids: list[int], stride: int, vocab_r: dict[int, str]) -> None:
        tokens = [""] * stride
        for id, token in vocab_r.items():
            tokens[id] = token
        self.tokens = tokens
        self.objects = list[object](range(stride))
        size: i64 = 16
        while size < 2 * len(ranks):
            size *= 2
        self._mask = size - 1
        self._stride = stride
        slots = vec[i64]([_EMPTY] * (2 * size))
        for key, rank in ranks.items():
            a: i64 = key // stride
            b: i64 = key % stride
            s = _slot_hash(a, b) & self._mask
            while slots[2 * s] != _EMPTY:
                s = (s + 1) & self._mask
            slots[2 * s] = key
            slots[2 * s + 1] = (rank << _ID_BITS) | new_ids[rank]
        self._slots = slots

    def find(self, a: i64, b: i64) -> i64:
        """The pair (a, b)'s rank * 2**32 + new id, or NO_RANK when it has no merge."""
        key = a * self._stride + b
        mask = self._mask
        slots = self._slots
        s = _slot_hash(a, b) & mask
        while True:
            found = slots[2 * s]
            if found == key:
                return slots[2 * s + 1]
            if found == _EMPTY:
                return NO_RANK
            s = (s + 1) & mask

    def merge(self, ids: vec[i64], starts: vec[i64]) -> i64:
        """Apply the merges to `ids` in place, lowest rank first, leftmost first (HF's order), and
        return how many symbols are left (the first ones of `ids`); `starts` (each symbol's first
        unit) follows. [a, b, c] with (b, c) rank 0, (a, bc) rank 1 -> [abc], starts [0]: 1.

        The same merges as `encoder.merge_all` without dropout, as long as each symbol's token is
        its chars' (no unknown, byte-fallback or dropped char, no two tokens with one id): then
        a pair's token is made by that pair only, so no stale heap entry there would apply.
        """
        n: i64 = len(ids)
        # (i64 counters in while loops: a `range` loop's index would be a boxed-or-tagged int)
        # per pair of neighbours: its merge as `find` gives it (the lowest is the lowest rank)
        pairs = vec[i64](capacity=n)
        i: i64 = 0
        while i < n - 1:
            pairs = append(pairs, self.find(ids[i], ids[i + 1]))
            i += 1
        while n > 1:
            best: i64 = NO_RANK
            at: i64 = -1
            i = 0
            while i < n - 1:
                if pairs[i] < best:
                    best = pairs[i]
                    at = i
                i += 1
            if at < 0:
                break
            ids[at] = best & _ID_MASK
            # drop symbol at + 1 (and the pair it started)
            j = at + 1
            while j < n - 1:
                ids[j] = ids[j + 1]
                starts[j] = starts[j + 1]
                j += 1
            j = at + 1
            while j < n - 2:
                pairs[j] = pairs[j + 1]
                j += 1
            n -= 1
            if at > 0:
                pairs[at - 1] = self.find(ids[at - 1], ids[at])
            if at < n - 1:
                pairs[at] = self.find(ids[at], ids[at + 1])
        return n


class Merged:
    """A short word's symbols after `MergeTable.merge`: the first `n` of `ids`, symbol k over the
    units starts[k] up to the next symbol's start (the last: up to `units`). The units are the
    word's `chars`, maybe with one more past them (the separate end-of-word symbol), which
    `start` and `end` give as the word's end."""

    ids: vec[i64]
    starts: vec[i64]
    n: i64
    units: i64
    chars: i64

    def __init__(self, ids: vec[i64], starts: vec[i64], n: i64, units: i64, chars: i64) -> None:
        self.ids = ids
        self.starts = starts
        self.n = n
        self.units = units
        self.chars = chars

    def start(self, k: i64) -> i64:
        """Where symbol k starts, in chars of the word."""
        start = self.starts[k]
        return start if start < self.chars else self.chars

    def end(self, k: i64) -> i64:
        """Where symbol k ends, in chars of the word."""
        end = self.starts[k + 1] if k + 1 < self.n else self.units
        return end if end < self.chars else self.chars


class CharIds:
    """The symbol id of a char in one place of a word: `prefix + char + suffix` in the vocabulary
    (-1 when absent), looked up once per char and kept. ("##", "") -> "b" is the id of "##b"."""

    _vocab: dict[str, int]
    _prefix: str
    _suffix: str
    _low: vec[i64]
    _high: dict[int, int]

    def __init__(self, vocab: dict[str, int], prefix: str, suffix: str) -> None:
        self._vocab = vocab
        self._prefix = prefix
        self._suffix = suffix
        self._low = vec[i64]([_UNKNOWN] * _LOW_CHARS)
        self._high = {}

    def id_of(self, code: i64) -> i64:
        if code < _LOW_CHARS:
            found = self._low[code]
            if found == _UNKNOWN:
                found = self._look_up(code)
                self._low[code] = found
            return found
        known = self._high.get(code)
        if known is not None:
            return known
        looked = self._look_up(code)
        self._high[code] = looked
        return looked

    def _look_up(self, code: i64) -> i64:
        found = self._vocab.get(self._prefix + chr(code) + self._suffix)
        return found if found is not None else -1
