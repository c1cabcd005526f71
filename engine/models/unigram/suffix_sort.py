"""The suffixes of a text sorted by their first `cut` characters, on native ints: what Unigram's
seeds (`engine.models.unigram.seeds`) read the repeated substrings from.

`codes` is the text as code points, each word followed by 0 (the end mark, which sorts first and
ends a suffix). `sort_suffixes` orders the start positions by the suffix there, cut after `cut`
characters or at its end mark, by a three-way radix quicksort (Bentley and Sedgewick) over
several characters at once: no substring is made. [a b 0 a c 0] (a=1, b=2, c=3), starts
[0, 1, 3, 4], cut 2 -> [0, 3, 1, 4] ("ab", "ac", "b", "c").
"""

from __future__ import annotations

from typing import Final

from librt.vecs import vec
from mypy_extensions import i64

# Below this many suffixes, a range is sorted by insertion.
_SMALL: Final[i64] = 12
# The bits of a step the radix sort orders in one pass (4,096 counters).
_DIGIT_BITS: Final[i64] = 12


class PackedText:
    """The text `per_key` characters to an int: `keys[p]` holds the ranks of the characters at
    p, p + 1, ... (`bits` bits each, the first highest; a character's rank is its place among
    the text's distinct codes, the end mark's 0), and 0 from the end mark on. Two suffixes are
    then compared `per_key` characters a step, and one whose step holds a 0 slot has ended.

    [a b 0 a c 0] -> ranks [1 2 0 1 3 0], bits 2, per_key 31: keys[0] = 1 2 0 0 ... (31 slots).
    """

    keys: vec[i64]
    bits: i64
    per_key: i64

    def __init__(self, codes: vec[i64]) -> None:
        top: i64 = 0
        n: i64 = len(codes)
        for p in range(n):
            if codes[p] > top:
                top = codes[p]
        rank = vec[i64]([0] * (top + 1))
        for p in range(n):
            rank[codes[p]] = 1
        rank[0] = 0  # (the end mark's, always)
        distinct: i64 = 0
        for c in range(1, top + 1):
            if rank[c] != 0:
                distinct += 1
                rank[c] = distinct
        bits: i64 = 1
        while (1 << bits) <= distinct:
            bits += 1
        per_key: i64 = 63 // bits
        first_shift = bits * (per_key - 1)
        keys = vec[i64]([0] * n)
        following: i64 = 0  # keys[p + 1] (0 past the text, which ends with an end mark)
        at: i64 = n - 1
        while at >= 0:
            r = rank[codes[at]]
            following = (r << first_shift) | (following >> bits) if r != 0 else 0
            keys[at] = following
            at -= 1
        self.keys = keys
        self.bits = bits
        self.per_key = per_key


def sort_suffixes(codes: vec[i64], starts: vec[i64], cut: i64) -> None:
    """Order `starts` (positions in `codes`) by the suffix at each, its first `cut` characters.

    The first step of every suffix (its first `per_key` characters, as one int) is sorted by an
    LSD radix sort, `_DIGIT_BITS` a pass; the suffixes that share it and go on are then
    sorted by `_sort`, a step at a time. (On the Japanese novel, five characters a step, most
    suffixes differ in their first: a quicksort of them all took some 18 passes over them
    where the radix sort takes 5.)"""
    packed = PackedText(codes)
    bits = packed.bits
    per_key = packed.per_key
    keys = packed.keys
    n: i64 = len(starts)
    slots: i64 = per_key if per_key < cut else cut
    shift: i64 = bits * (per_key - slots)
    steps = vec[i64]([0] * n)
    for i in range(n):
        steps[i] = keys[starts[i]] >> shift
    radix_sort(starts, steps, bits * slots)
    if slots >= cut:
        return
    last_slot: i64 = (1 << bits) - 1
    start: i64 = 0
    while start < n:
        end = start + 1
        step = steps[start]
        while end < n and steps[end] == step:
            end += 1
        if end - start > 1 and step & last_slot != 0:
            _sort(keys, starts, steps, start, end, per_key, cut, bits, per_key, False)
        start = end


def radix_sort(order: vec[i64], steps: vec[i64], width: i64) -> None:
    """Sort order[i] by steps[i] (ints below 2 ** width, moved along), stably, least
    significant `_DIGIT_BITS` first: [7, 3, 5] by [2, 1, 2] -> order [3, 7, 5]."""
    n: i64 = len(order)
    order2 = vec[i64]([0] * n)
    steps2 = vec[i64]([0] * n)
    counts = vec[i64]([0] * (1 << _DIGIT_BITS))
    mask: i64 = (1 << _DIGIT_BITS) - 1
    low: i64 = 0
    swapped = False
    while low < width:
        for d in range(len(counts)):
            counts[d] = 0
        for i in range(n):
            counts[(steps[i] >> low) & mask] += 1
        total: i64 = 0
        for d in range(len(counts)):
            seen = counts[d]
            counts[d] = total
            total += seen
        for i in range(n):
            step = steps[i]
            d = (step >> low) & mask
            at = counts[d]
            counts[d] = at + 1
            order2[at] = order[i]
            steps2[at] = step
        order, order2 = order2, order
        steps, steps2 = steps2, steps
        swapped = not swapped
        low += _DIGIT_BITS
    if swapped:  # (the sorted ones are in the other buffers: back into the caller's)
        for i in range(n):
            order2[i] = order[i]
            steps2[i] = steps[i]


def _window(keys: vec[i64], p: i64, depth: i64, cut: i64, bits: i64, per_key: i64) -> i64:
    """The suffix at `p`'s characters depth .. depth + per_key - 1, those from `cut` on left out."""
    key = keys[p + depth]
    if depth + per_key > cut:
        return key >> (bits * (depth + per_key - cut))
    return key


def _sort(
    keys: vec[i64],
    order: vec[i64],
    steps: vec[i64],
    lo: i64,
    hi: i64,
    depth: i64,
    cut: i64,
    bits: i64,
    per_key: i64,
    filled: bool,
) -> None:
    """Sort order[lo:hi], whose suffixes share their first `depth` characters; `steps[i]` is
    the suffix at order[i]'s `_window` at `depth` when `filled` (else it is read here).

    subtle: the partitions read `steps`, which move with `order`: a suffix's key is read from
    the text once a step (a cache miss: the suffixes are all over it), not once a pass. Most
    suffixes of the Japanese novel differ within their first five characters (the step of
    five 12-bit ranks): one read each. (Char by char, on keys read in place, each of some five
    depths took a dozen passes of reads all over the text.)

    Every suffix in order[lo:hi] shares its first `depth` characters, none of them an end
    mark, so keys[p + depth] is always inside the text (it ends with a mark).
    """
    last_slot: i64 = (1 << bits) - 1
    while hi - lo > 1 and depth < cut:
        if not filled:
            shift: i64 = bits * (depth + per_key - cut) if depth + per_key > cut else 0
            for i in range(lo, hi):
                steps[i] = keys[order[i] + depth] >> shift
            filled = True
        if hi - lo < _SMALL:
            _insertion_sort(keys, order, steps, lo, hi, depth, cut, bits, per_key)
            return
        pivot = _median(steps[lo], steps[(lo + hi) >> 1], steps[hi - 1])
        lt = lo
        i = lo
        gt = hi
        while i < gt:
            c = steps[i]
            if c < pivot:
                _swap(order, steps, lt, i)
                lt += 1
                i += 1
            elif c > pivot:
                gt -= 1
                _swap(order, steps, i, gt)
            else:
                i += 1
        _sort(keys, order, steps, lo, lt, depth, cut, bits, per_key, True)
        _sort(keys, order, steps, gt, hi, depth, cut, bits, per_key, True)
        if pivot & last_slot == 0:
            return  # the equal ones all end in this step (its last slot is 0): the same suffix
        lo = lt
        hi = gt
        depth += per_key
        filled = False


def _median(a: i64, b: i64, c: i64) -> i64:
    if a < b:
        return b if b < c else (c if a < c else a)
    return a if a < c else (c if b < c else b)


def _swap(order: vec[i64], steps: vec[i64], a: i64, b: i64) -> None:
    kept = order[a]
    order[a] = order[b]
    order[b] = kept
    kept = steps[a]
    steps[a] = steps[b]
    steps[b] = kept


def _insertion_sort(
    keys: vec[i64], order: vec[i64], steps: vec[i64], lo: i64, hi: i64, depth: i64, cut: i64, bits: i64, per_key: i64
) -> None:
    """Sort order[lo:hi] (steps filled at `depth`) by insertion: by the steps, ties further on."""
    last_slot: i64 = (1 << bits) - 1
    for i in range(lo + 1, hi):
        current = order[i]
        step = steps[i]
        j = i
        while j > lo:
            before = steps[j - 1]
            if step > before:
                break
            if step == before and (step & last_slot == 0 or not _less(keys, current, order[j - 1], depth + per_key, cut, bits, per_key)):
                break
            order[j] = order[j - 1]
            steps[j] = before
            j -= 1
        order[j] = current
        steps[j] = step


def _less(keys: vec[i64], a: i64, b: i64, depth: i64, cut: i64, bits: i64, per_key: i64) -> bool:
    """Whether the suffix at `a` sorts before the one at `b` (both agree before `depth`, where
    neither has ended)."""
    k = depth
    last_slot: i64 = (1 << bits) - 1
    while k < cut:
        x = _window(keys, a, k, cut, bits, per_key)
        y = _window(keys, b, k, cut, bits, per_key)
        if x != y:
            return x < y
        if x & last_slot == 0:
            return False  # both end in this step
        k += per_key
    return False


def shared_length(codes: vec[i64], a: i64, b: i64, cut: i64) -> i64:
    """How many characters the suffixes at `a` and `b` share before a difference, an end mark
    or `cut`; -1 when they are the same suffix (equal up to `cut`, or up to both end marks)."""
    k: i64 = 0
    while k < cut:
        x = codes[a + k]
        if x != codes[b + k]:
            return k
        if x == 0:
            return -1
        k += 1
    return -1


def suffix_length(codes: vec[i64], a: i64, cut: i64) -> i64:
    """The length of the suffix at `a` cut after `cut` characters, its end mark counted."""
    k: i64 = 0
    while k < cut:
        if codes[a + k] == 0:
            return k + 1
        k += 1
    return cut
