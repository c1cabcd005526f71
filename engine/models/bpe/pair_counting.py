"""The first count of every adjacent pair of the training words, with the words each occurs
in (HF's step 4), made once before a merge-based training run's first merge.

`engine.models.bpe.pair_index` keeps the counts current merge after merge; this module only
makes them. Words "aba" x2 -> pairs (a,b) 2 and (b,a) 2, each in the word at offset 0.
"""

from __future__ import annotations

from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64

from engine.models.bpe.training_words import TrainingWords
from engine.progress import STAGE_COUNT_PAIRS, ProgressSink, report, report_every

# Up to this many initial symbols, initial pair counts use flat lists (1024 * 1024 slots).
DENSE_PAIRS_MAX_IDS: Final = 1024


def empty_lists(n: int) -> vec[vec[i64]]:
    """`n` empty vecs of offsets (each without a buffer until something is appended)."""
    lists = vec[vec[i64]](capacity=n)
    for _ in range(n):
        lists = append(lists, vec[i64]())
    return lists


def count_pairs_dense(
    words: TrainingWords, size: int, shift: int, sink: ProgressSink
) -> tuple[list[int], list[int], vec[vec[i64]]]:
    """(pairs, counts, word offsets) of every adjacent pair, counted in lists indexed by
    `left * size + right`: words "aba" x2 -> pairs (a,b) (b,a), counts 2 2, offsets [0] [0]."""
    slots = size * size
    counts = vec[i64]([0] * slots)
    where = empty_lists(slots)
    seen: list[int] = []
    flat = words.flat
    offsets = words.offsets
    total = len(offsets)
    every = report_every(total)
    for wi in range(total):
        if wi % every == 0 and wi > 0:
            report(sink, STAGE_COUNT_PAIRS, wi, total, "words")
        o = offsets[wi]
        count = flat[o + 1]
        prev = flat[o + 2] * size
        for j in range(o + 3, o + 2 + flat[o]):
            cur = flat[j]
            slot = prev + cur
            found = where[slot]
            if len(found) == 0:
                seen.append(slot)
            if len(found) == 0 or found[len(found) - 1] != o:
                where[slot] = append(found, o)
            counts[slot] += count
            prev = cur * size
    seen.sort()
    pairs: list[int] = []
    pair_counts: list[int] = []
    positions = vec[vec[i64]](capacity=len(seen))
    for slot in seen:
        pairs.append(((slot // size) << shift) | (slot % size))
        pair_counts.append(int(counts[slot]))
        positions = append(positions, where[slot])
    return pairs, pair_counts, positions


def count_pairs_sparse(
    words: TrainingWords, shift: int, sink: ProgressSink
) -> tuple[list[int], list[int], vec[vec[i64]]]:
    """`count_pairs_dense` for big alphabets: each pair numbered in a dict on first sight."""
    slot_of: dict[int, int] = {}
    pairs: list[int] = []
    pair_counts: list[int] = []
    positions = vec[vec[i64]]()
    flat = words.flat
    offsets = words.offsets
    total = len(offsets)
    every = report_every(total)
    for wi in range(total):
        if wi % every == 0 and wi > 0:
            report(sink, STAGE_COUNT_PAIRS, wi, total, "words")
        o = offsets[wi]
        count = int(flat[o + 1])
        prev = int(flat[o + 2])
        for j in range(o + 3, o + 2 + flat[o]):
            cur = int(flat[j])
            pair = (prev << shift) | cur
            slot = slot_of.get(pair, -1)
            if slot < 0:
                slot = len(pairs)
                slot_of[pair] = slot
                pairs.append(pair)
                pair_counts.append(0)
                positions = append(positions, vec[i64]())
            pair_counts[slot] += count
            found = positions[slot]
            if len(found) == 0 or found[len(found) - 1] != o:
                positions[slot] = append(found, o)
            prev = cur
    return pairs, pair_counts, positions
