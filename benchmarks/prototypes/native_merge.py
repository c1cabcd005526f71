"""Prototype, not engine code (issue 25's profile): the BPE merge of one word (what
`engine.models.bpe.model.BPE.tokenize_run` does on a cache miss) over native ints, ids only.

The symbols come from `str.translate` (a C loop), the merges sit in an open-addressing table of
native ints (pair -> rank, new id), and the lowest-rank pair is found by a linear scan (words
are short) instead of a heap: no heapq call and no boxed int in the loop. Every occurrence of
the chosen pair is merged left to right, which is what HF's (rank, position) heap does.
Byte-level words only: every char must be a token of its own (no unknown, no byte fallback).
"""
from typing import Final
from librt.vecs import vec, append
from mypy_extensions import i64

EMPTY: Final[i64] = -1


class Merger:
    keys: vec[i64]
    ranks: vec[i64]
    new_ids: vec[i64]
    mask: i64
    stride: i64
    table: dict[int, int]

    def __init__(self, pairs: list[tuple[int, int]], new_ids: list[int], char_ids: dict[int, int], stride: int) -> None:
        size: i64 = 1
        while size < 4 * len(pairs):
            size *= 2
        self.mask = size - 1
        self.stride = stride
        self.keys = vec[i64]([EMPTY] * size)
        self.ranks = vec[i64]([0] * size)
        self.new_ids = vec[i64]([0] * size)
        self.table = char_ids
        for rank in range(len(pairs)):
            a, b = pairs[rank]
            key: i64 = a * stride + b
            s = (key * 0x9E3779B1) & self.mask
            while self.keys[s] != EMPTY and self.keys[s] != key:
                s = (s + 1) & self.mask
            self.keys[s] = key
            self.ranks[s] = rank
            self.new_ids[s] = new_ids[rank]

    def _find(self, key: i64) -> i64:
        s = (key * 0x9E3779B1) & self.mask
        while True:
            k = self.keys[s]
            if k == key:
                return s
            if k == EMPTY:
                return -1
            s = (s + 1) & self.mask

    def merge(self, word: str) -> list[int]:
        symbols = word.translate(self.table)
        n: i64 = len(symbols)
        ids = vec[i64]()
        for ch in symbols:
            ids = append(ids, ord(ch))
        stride = self.stride
        while n > 1:
            best_rank: i64 = 1 << 62
            best_at: i64 = -1
            best_slot: i64 = -1
            i: i64 = 0
            while i < n - 1:
                s = self._find(ids[i] * stride + ids[i + 1])
                if s >= 0 and self.ranks[s] < best_rank:
                    best_rank = self.ranks[s]
                    best_at = i
                    best_slot = s
                i += 1
            if best_at < 0:
                break
            # merge every occurrence of this pair, left to right (HF: same rank, leftmost first)
            left = ids[best_at]
            right = ids[best_at + 1]
            new_id = self.new_ids[best_slot]
            out = vec[i64]()
            i = 0
            while i < n:
                if i < n - 1 and ids[i] == left and ids[i + 1] == right:
                    out = append(out, new_id)
                    i += 2
                else:
                    out = append(out, ids[i])
                    i += 1
            ids = out
            n = len(ids)
        result: list[int] = []
        for x in ids:
            result.append(x)
        return result
