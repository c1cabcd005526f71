"""The BPE merge loop: `BpeTrainingRun`, HF's `BpeTrainer::do_train` as a run that can be stepped.

The pair index (words, pair counts, merging a pair everywhere) is `engine.models.bpe.pair_index`'s;
this module is HF's queue over it: the most frequent pair goes next. Reproduces HF
`tokenizers` 0.23 merge for merge. Options and the Trainer API are `engine.models.bpe.trainer`'s.
"""

from __future__ import annotations

from typing import Final

from librt.vecs import vec
from mypy_extensions import i64

from engine.models.bpe.merge_queue import MergeQueue
from engine.models.bpe.pair_index import PairMergeRun
from engine.progress import SilentProgress
from engine.trainers.records import PairCandidate

# HF keeps a queue entry's count as u64 and casts the i32 pair count to it (`count as u64`).
_U64: Final = 1 << 64


class BpeTrainingRun(PairMergeRun):
    """One BPE training, advanced one merge at a time (`step`) or to the end (`run_to_end`).

    The queue (`MergeQueue`) is HF's, with lazy invalidation: an entry keeps the count its pair
    had when queued, and is queued again at the current count when it reaches the top stale.
    Like HF, each entry carries its own words, so a pair can be queued twice (HF then merges
    it twice, and so do we).
    """

    _queue: MergeQueue
    # with `_rules`: whether each pair met may be merged (its token allowed)
    _allowed: dict[int, bool]

    def _algorithm(self) -> str:
        return "BPE"

    def _clear_queue(self) -> None:
        self._queue = MergeQueue()
        self._allowed = {}

    def _index_pairs(self, pairs: list[int], counts: list[int], positions: vec[vec[i64]]) -> None:
        queue = self._queue
        ruled = self._rules is not None
        for i in range(len(pairs)):
            count = counts[i]
            if count > 0 and (not ruled or self._may_merge(pairs[i])):
                queue.add_unordered(count, pairs[i], positions[i])
        queue.heapify()

    def _may_merge(self, pair: int) -> bool:
        """Whether `_rules` allow the token this pair makes (sentencepiece's trainer never
        merges into a piece it could not hold: "▁fair" + "." stays two)."""
        known = self._allowed.get(pair)
        if known is not None:
            return known
        rules = self._rules
        tokens = self._vocab.id_to_token
        allowed = rules is None or rules.valid(tokens[pair >> self._shift] + tokens[pair & self._id_mask])
        self._allowed[pair] = allowed
        return allowed

    def top_candidates(self, k: int) -> list[PairCandidate]:
        """The `k` pairs leading the queue: current count descending, then pair ids ascending.

        Unless the run is done, the first one is exactly what the next `step()` merges.
        """
        self._prepare(SilentProgress())
        if not self._finished:
            self._settle()
        queue = self._queue
        pair_counts = self._pair_counts
        best: dict[int, int] = {}
        for slot in range(len(queue)):
            pair = int(queue.pair_at(slot))
            count = pair_counts.get(pair)
            if count > 0:
                best[pair] = count
        ranked = [(-count, pair) for pair, count in best.items()]
        ranked.sort()
        if not self._finished and len(queue) > 0:
            # subtle: the settled queue top is what `step` merges, even in HF's rare case where
            # another pair's count grew past the count it was queued with.
            top = int(queue.top_pair())
            ranked = [(-pair_counts.get(top), top)] + [item for item in ranked if item[1] != top]
        tokens = self._vocab.id_to_token
        result: list[PairCandidate] = []
        for neg_count, pair in ranked[: max(k, 0)]:
            result.append(PairCandidate(tokens[pair >> self._shift], tokens[pair & self._id_mask], -neg_count))
        return result

    # -- the merge loop: HF's step 5 ------------------------------------------------------

    def _stops_at(self, count: i64) -> bool:
        """Whether HF stops at a valid top entry of this (signed) count: below 1 or below
        min_frequency, as u64 (a count below 0 is huge there)."""
        return count >= 0 and (count < 1 or self._min_frequency > count)

    def _settle(self) -> None:
        """Re-queue stale entries until the top one is valid, exactly as HF's next pops would,
        and mark the run finished when the next step would stop."""
        queue = self._queue
        pair_counts = self._pair_counts
        while True:
            if len(self._vocab) >= self._vocab_size or len(queue) == 0:
                self._finished = True
                return
            count = queue.top_count()
            pair = queue.top_pair()
            current: i64 = pair_counts.get(pair)
            if count == current:
                if self._stops_at(count):
                    self._finished = True
                return
            positions = queue.take()
            if current != 0 or self._max_length >= 0:
                # (an entry at 0 is dropped: see `_merge_next`)
                queue.push(current, pair, positions)

    def _merge_next(self) -> bool:
        """HF's merge loop until one merge is made; False (and finished) when it stops instead."""
        queue = self._queue
        pair_counts = self._pair_counts
        while True:
            if len(self._vocab) >= self._vocab_size or len(queue) == 0:
                self._finished = True
                return False
            count = queue.top_count()
            pair = queue.top_pair()
            positions = queue.take()
            current: i64 = pair_counts.get(pair)
            if count != current:
                # subtle: HF queues a stale entry again at its current count, even at 0. At 0
                # it is dropped instead: an entry at 0 can never lead to a merge (every word
                # that gains the pair again is queued under it anew), and the dropped entries
                # were an eighth of the queue (and their word lists) at the end of a run. Not
                # with max_token_length: a pair too long to gain still loses, its count goes
                # below 0, and HF reads that as a huge u64 count and merges it.
                if current != 0 or self._max_length >= 0:
                    queue.push(current, pair, positions)
                continue
            if self._stops_at(count):
                self._finished = True
                return False
            # (HF's u64 count goes into the history: a count below 0 there is a huge one)
            recorded = int(count) if count >= 0 else int(count) + _U64
            self._merge(int(pair >> self._shift), int(pair & self._id_mask), recorded, positions)
            gained_pairs = self._gained_pairs
            gained_pos = self._gained_pos
            ruled = self._rules is not None
            for i in range(len(gained_pairs)):
                made = gained_pairs[i]
                gained = pair_counts.get(made)
                if gained > 0 and (not ruled or self._may_merge(made)):
                    queue.push(gained, made, gained_pos[i])
            return True
