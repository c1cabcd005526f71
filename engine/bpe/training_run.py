"""The BPE merge loop: `BpeTrainingRun`, HF's `BpeTrainer::do_train` as a run that can be stepped.

The pair index (words, pair counts, merging a pair everywhere) is `engine.bpe.pair_index`'s;
this module is HF's queue over it: the most frequent pair goes next. Reproduces HF
`tokenizers` 0.23 merge for merge. Options and the Trainer API are `engine.bpe.trainer`'s.
"""

from __future__ import annotations

import heapq
from typing import Final

from engine.bpe.pair_index import PairMergeRun
from engine.bpe.training_words import TrainingWord
from engine.progress import SilentProgress
from engine.trainers.records import PairCandidate

# HF keeps a queue entry's count as u64 and casts the i32 pair count to it (`count as u64`).
_U64: Final = 1 << 64


class BpeTrainingRun(PairMergeRun):
    """One BPE training, advanced one merge at a time (`step`) or to the end (`run_to_end`).

    The queue is a heap of int keys (count descending, then pair ids ascending: HF's `Merge`
    order) with lazy invalidation. Like HF, each queue entry carries its own list of word
    positions, so a pair can be queued twice (HF then merges it twice, and so do we).
    """

    _key_shift: int
    _pair_mask: int
    _heap: list[int]
    # a queue entry's words: one word stands alone, not in a list (two thirds of the entries
    # hold one word; their lists were a tenth of a run's memory)
    _entry_pos: dict[int, TrainingWord | list[TrainingWord]]
    _extra_pos: dict[int, list[list[TrainingWord]]]

    def _algorithm(self) -> str:
        return "BPE"

    def _clear_queue(self) -> None:
        self._key_shift = 0
        self._pair_mask = 0
        self._heap = []
        self._entry_pos = {}
        self._extra_pos = {}

    def _index_pairs(self, pairs: list[int], counts: list[int], positions: list[list[TrainingWord]]) -> None:
        self._key_shift = 2 * self._shift
        self._pair_mask = (1 << self._key_shift) - 1
        key_shift = self._key_shift
        heap = self._heap
        entry_pos = self._entry_pos
        for i in range(len(pairs)):
            count = counts[i]
            if count > 0:
                key = (-count << key_shift) | pairs[i]
                heap.append(key)
                found = positions[i]
                entry_pos[key] = found[0] if len(found) == 1 else found
        heapq.heapify(heap)

    def top_candidates(self, k: int) -> list[PairCandidate]:
        """The `k` pairs leading the queue: current count descending, then pair ids ascending.

        Unless the run is done, the first one is exactly what the next `step()` merges.
        """
        self._prepare(SilentProgress())
        if not self._finished:
            self._settle()
        pair_mask = self._pair_mask
        pair_counts = self._pair_counts
        best: dict[int, int] = {}
        for key in self._heap:
            pair = key & pair_mask
            count = pair_counts.get(pair, 0)
            if count > 0:
                best[pair] = count
        ranked = [(-count, pair) for pair, count in best.items()]
        ranked.sort()
        if not self._finished and self._heap:
            # subtle: the settled queue top is what `step` merges, even in HF's rare case where
            # another pair's count grew past the count it was queued with.
            top = self._heap[0] & pair_mask
            ranked = [(-pair_counts.get(top, 0), top)] + [item for item in ranked if item[1] != top]
        tokens = self._vocab.id_to_token
        result: list[PairCandidate] = []
        for neg_count, pair in ranked[: max(k, 0)]:
            result.append(PairCandidate(tokens[pair >> self._shift], tokens[pair & self._id_mask], -neg_count))
        return result

    # -- the merge loop: HF's step 5 ------------------------------------------------------

    def _push(self, count: int, pair: int, positions: list[TrainingWord]) -> None:
        key = (-count << self._key_shift) | pair
        if key in self._entry_pos:
            # The same pair queued again with the same count: both entries stay, as in HF. Only
            # a merge that re-creates an existing token (prefix/suffix symbols, special tokens)
            # does this; which of the two HF pops first then varies from run to run.
            extra = self._extra_pos.get(key)
            if extra is None:
                self._extra_pos[key] = [positions]
            else:
                extra.append(positions)
        else:
            self._entry_pos[key] = positions[0] if len(positions) == 1 else positions
        heapq.heappush(self._heap, key)

    def _take(self, key: int) -> list[TrainingWord]:
        """The positions of one queue entry with this key, just popped from the heap.

        subtle: entries with equal keys leave in the order they came (HF's d-ary heap mostly
        does the same, but its order also depends on hash-map iteration: see `_push`).
        """
        found = self._entry_pos.pop(key)
        if self._extra_pos:
            extra = self._extra_pos.get(key)
            if extra is not None:
                self._entry_pos[key] = extra.pop(0)
                if not extra:
                    del self._extra_pos[key]
        if isinstance(found, TrainingWord):
            return [found]
        return found

    def _current(self, pair: int) -> int:
        count = self._pair_counts.get(pair, 0)
        return count if count >= 0 else count + _U64

    def _settle(self) -> None:
        """Re-queue stale entries until the top one is valid, exactly as HF's next pops would,
        and mark the run finished when the next step would stop."""
        heap = self._heap
        while True:
            if len(self._vocab) >= self._vocab_size or not heap:
                self._finished = True
                return
            key = heap[0]
            pair = key & self._pair_mask
            count = -(key >> self._key_shift)
            current = self._current(pair)
            if count == current:
                if count < 1 or self._min_frequency > count:
                    self._finished = True
                return
            heapq.heappop(heap)
            positions = self._take(key)
            if current != 0 or self._max_length >= 0:
                # (an entry at 0 is dropped: see `_merge_next`)
                self._push(current, pair, positions)

    def _merge_next(self) -> bool:
        """HF's merge loop until one merge is made; False (and finished) when it stops instead."""
        heap = self._heap
        key_shift = self._key_shift
        pair_mask = self._pair_mask
        while True:
            if len(self._vocab) >= self._vocab_size or not heap:
                self._finished = True
                return False
            key = heapq.heappop(heap)
            positions = self._take(key)
            pair = key & pair_mask
            count = -(key >> key_shift)
            current = self._current(pair)
            if count != current:
                # subtle: HF queues a stale entry again at its current count, even at 0. At 0
                # it is dropped instead: an entry at 0 can never lead to a merge (every word
                # that gains the pair again is queued under it anew), and the dropped entries
                # were an eighth of the queue (and their word lists) at the end of a run. Not
                # with max_token_length: a pair too long to gain still loses, its count goes
                # below 0, and HF reads that as a huge u64 count and merges it.
                if current != 0 or self._max_length >= 0:
                    self._push(current, pair, positions)
                continue
            if count < 1 or self._min_frequency > count:
                self._finished = True
                return False
            self._merge(pair >> self._shift, pair & self._id_mask, count, positions)
            pair_counts = self._pair_counts
            gained_pairs = self._gained_pairs
            gained_pos = self._gained_pos
            for i in range(len(gained_pairs)):
                made = gained_pairs[i]
                gained = pair_counts.get(made, 0)
                if gained > 0:
                    self._push(gained, made, gained_pos[i])
            return True
