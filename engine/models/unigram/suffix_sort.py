"""The suffixes of a text sorted by their first `cut` characters, on native ints: what Unigram's
seeds (`engine.models.unigram.seeds`) read the repeated substrings from.

`codes` is the text as code points, each word followed by 0 (the end mark, which sorts first and
ends a suffix). `sort_suffixes` orders the start positions by the suffix there, cut after `cut`
characters or at its end mark, by a three-way radix quicksort (Bentley and Sedgewick): no
substring is made. [a b 0 a c 0] (a=1, b=2, c=3), starts [0, 1, 3, 4], cut 2 -> [0, 3, 1, 4]
("ab", "ac", "b", "c").
"""

from __future__ import annotations

from typing import Final

from librt.vecs import vec
from mypy_extensions import i64

# Below this many suffixes, a range is sorted by insertion.
_SMALL: Final[i64] = 12


def sort_suffixes(codes: vec[i64], starts: vec[i64], cut: i64) -> None:
    """Order `starts` (positions in `codes`) by the suffix at each, its first `cut` characters."""
    _sort(codes, starts, 0, len(starts), 0, cut)


def _sort(codes: vec[i64], order: vec[i64], lo: i64, hi: i64, depth: i64, cut: i64) -> None:
    # subtle: every suffix in order[lo:hi] shares its first `depth` characters, none of them an
    # end mark, so codes[p + depth] is always inside the text (it ends with a mark).
    while hi - lo > 1 and depth < cut:
        if hi - lo < _SMALL:
            _insertion_sort(codes, order, lo, hi, depth, cut)
            return
        pivot = _median(codes[order[lo] + depth], codes[order[(lo + hi) >> 1] + depth], codes[order[hi - 1] + depth])
        lt = lo
        i = lo
        gt = hi
        while i < gt:
            c = codes[order[i] + depth]
            if c < pivot:
                _swap(order, lt, i)
                lt += 1
                i += 1
            elif c > pivot:
                gt -= 1
                _swap(order, i, gt)
            else:
                i += 1
        _sort(codes, order, lo, lt, depth, cut)
        _sort(codes, order, gt, hi, depth, cut)
        if pivot == 0:
            return  # the equal ones all end here: the same suffix
        lo = lt
        hi = gt
        depth += 1


def _median(a: i64, b: i64, c: i64) -> i64:
    if a < b:
        return b if b < c else (c if a < c else a)
    return a if a < c else (c if b < c else b)


def _swap(order: vec[i64], a: i64, b: i64) -> None:
    kept = order[a]
    order[a] = order[b]
    order[b] = kept


def _insertion_sort(codes: vec[i64], order: vec[i64], lo: i64, hi: i64, depth: i64, cut: i64) -> None:
    for i in range(lo + 1, hi):
        current = order[i]
        j = i
        while j > lo and _less(codes, current, order[j - 1], depth, cut):
            order[j] = order[j - 1]
            j -= 1
        order[j] = current


def _less(codes: vec[i64], a: i64, b: i64, depth: i64, cut: i64) -> bool:
    """Whether the suffix at `a` sorts before the one at `b` (both agree before `depth`)."""
    k = depth
    while k < cut:
        x = codes[a + k]
        y = codes[b + k]
        if x != y:
            return x < y
        if x == 0:
            return False
        k += 1
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
