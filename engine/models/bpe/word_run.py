"""A BPE word's tokens as the word cache keeps them (`WordRun`), and how one is made and read.

A `TokenRun` is five objects the cyclic garbage collector walks at every full collection; with
100,000 words cached that walk was a third of a pass over a dictionary's words. A `WordRun` is
none: ids and token strings in tuples (which the collector stops tracking once it has seen them)
and offsets in a vec. What the encode fast path reads; `TokenRun`s are made from it on demand.
"""

from __future__ import annotations

from librt.vecs import append, vec
from mypy_extensions import i64, mypyc_attr

from engine.models.base import TokenRun


@mypyc_attr(acyclic=True)
class WordRun:
    """ids (0, 5) values ("h", "ug") spans [0, 1, 1, 3]: the tokens h (0, 1) and ug (1, 3),
    offsets in chars of the word. Shared through the word cache: never modify one."""

    ids: tuple[int, ...]
    values: tuple[str, ...]
    # (start, end) of each token, one after the other
    spans: vec[i64]

    def __init__(self, ids: tuple[int, ...], values: tuple[str, ...], spans: vec[i64]) -> None:
        self.ids = ids
        self.values = values
        self.spans = spans

    def token_run(self) -> TokenRun:
        """The same tokens as a new `TokenRun` (fresh lists: the caller may keep them)."""
        starts: list[int] = []
        ends: list[int] = []
        spans = self.spans
        for k in range(0, len(spans), 2):
            starts.append(spans[k])
            ends.append(spans[k + 1])
        return TokenRun(list(self.ids), list(self.values), starts, ends)


def packed_word_run(packed: list[int], vocab_r: dict[int, str]) -> WordRun:
    """[id, start, end, id, start, end, ...] -> a WordRun."""
    ids: list[int] = []
    values: list[str] = []
    spans = vec[i64](capacity=len(packed) * 2 // 3)
    for i in range(0, len(packed), 3):
        id = packed[i]
        ids.append(id)
        values.append(vocab_r[id])
        spans = append(spans, packed[i + 1])
        spans = append(spans, packed[i + 2])
    return WordRun(tuple(ids), tuple(values), spans)
