"""The WordPiece merge loop people learn: `WordPieceTrainingRun` merges the pair with the highest
ratio `count(ab) / (count(a) * count(b))` (the HF course's score, `scoring="likelihood"`) until the
vocabulary is full; `engine.models.wordpiece.likelihood_gain` scores the same loop by likelihood gain.

`{"hug": 10, "pug": 5, "hugs": 5}`: count(h)=15, count(##u)=20, count(##g)=20, count(##s)=5, and
(##u, ##g) 20 / (20 * 20), (h, ##u) 15 / (15 * 20) and (##g, ##s) 5 / (20 * 5) all score 0.05; the
tie goes to the most frequent pair, so (##u, ##g) -> "##ug" goes first.

The pair index is `engine.models.bpe.pair_index`'s, shared with BPE; only the choice of the next pair is
here. The score is incremental: a merge changes count(a), count(b) and count(ab) and creates the
new symbol, so only the pairs that hold a, b or the new symbol are rescored, and those only when
they could matter: no pair holding a symbol s scores above 1 / count(s) (count(sy) <= count(y)),
so a changed symbol first enters the queue as that bound, and its pairs are rescored when the
bound reaches the top. Frequent symbols, whose pairs are many and score low, rarely get there.
A subclass scores pairs its own way (`_score`, `_mark`, `_requeue`) over the same queue.
"""

from __future__ import annotations

import math
from typing import Final

from librt.vecs import append, extend, pop, vec
from mypy_extensions import i64

from engine.models.bpe.pair_counting import empty_lists
from engine.models.bpe.pair_index import PairMergeRun
from engine.progress import SilentProgress
from engine.trainers.records import SCORE_LIKELIHOOD, PairCandidate
from engine.models.wordpiece.score_queue import ScoreQueue

# A symbol's queue entry leaves before a pair's at the same score: (bound, BEFORE_PAIRS, -1 - id).
BEFORE_PAIRS: Final = 1 << 62
# Rescoring a symbol queues its pairs scoring at least this fraction of the queue's top.
_NEAR_TOP: Final = 0.5
# Rebuild the queue from the live pairs when stale entries outnumber them this many times.
_STALE_FACTOR: Final = 4
_MIN_QUEUE_REBUILD: Final = 1 << 16


class WordPieceTrainingRun(PairMergeRun):
    """One WordPiece training by the course's ratio, advanced one merge at a time or to the end.

    Ties: the higher score, then the more frequent pair, then the smaller pair of ids (the
    alphabet in code-point order, then merged tokens in creation order). The queue holds
    (score, count, pair) with lazy invalidation: an entry whose count or score is no longer
    current is dropped when it comes up. A symbol whose count changed is "dirty": it is queued
    as (1 / count, BEFORE_PAIRS, -1 - id), and when that entry comes up its live pairs are
    queued at their current scores. So when a pair entry comes up current, no pair can score
    more: a pair whose entry is stale holds a dirty symbol, whose bound would have come first.
    """

    _queue: ScoreQueue
    _positions: dict[int, vec[i64]]  # pair -> word offsets
    # symbol -> the pairs holding it: every pair in `_positions`, and perhaps dead ones too
    _pairs_of: vec[vec[i64]]
    _symbol_counts: vec[i64]
    _dirty: list[bool]
    _total: int  # every symbol occurrence in the words: N, the unigram model's sample size

    def _algorithm(self) -> str:
        return "WordPiece"

    def _score_name(self) -> str:
        return SCORE_LIKELIHOOD

    def _clear_queue(self) -> None:
        self._queue = ScoreQueue()
        self._positions = {}
        self._pairs_of = vec[vec[i64]]()
        self._symbol_counts = vec[i64]()
        self._dirty = []
        self._total = 0

    def symbol_count(self, token: str) -> int:
        """How often `token` occurs in the words as they are now (0 if it is not a symbol)."""
        self._prepare(SilentProgress())
        id = self._vocab.token_to_id.get(token)
        return self._symbol_counts[id] if id is not None and id < len(self._symbol_counts) else 0

    # -- the score (what a subclass changes) -------------------------------------------------

    def _score(self, count: i64, left: i64, right: i64) -> float:
        """The score of the pair (left, right) seen `count` times, the symbols' counts as they
        are now: count / (count(left) * count(right))."""
        symbol_counts = self._symbol_counts
        # subtle: two doubles divided, as mypyc divides two ints that fit in 62 bits: the same
        # ratio the compiled run computed from ints (and Python's int / int below 2 ** 53).
        return float(count) / float(symbol_counts[left] * symbol_counts[right])

    def _floor(self) -> float:
        """The score from which a rescored symbol's pairs are queued at once: a fraction of the
        queue's top (`_NEAR_TOP`), or every pair when the queue is empty."""
        queue = self._queue
        if len(queue) == 0:
            return -math.inf
        top = queue.score_at(0)
        # (top * 0.5 for a positive top, as the ratio always is; below a negative top, as a gain may be)
        return top - self._near_top() * abs(top)

    def _near_top(self) -> float:
        """How far below the queue's top a rescored symbol's pairs are queued at once, as a
        fraction of the top: farther, fewer symbols come up again; nearer, fewer pairs are queued."""
        return _NEAR_TOP

    def _made(self, pair: int) -> None:
        """The last merge made `pair` (or gave it more occurrences); its symbols are marked next."""

    def _requeue(self) -> None:
        """Drop the stale pair entry at the top of the queue. A ratio changes only with the
        counts of the pair and of its symbols, and a merge that changes them marks a symbol of
        the pair, whose rescoring queues the pair again."""
        self._queue.drop()

    # -- the index ------------------------------------------------------------------------------

    def _index_pairs(self, pairs: list[int], counts: list[int], positions: vec[vec[i64]]) -> None:
        id_space = 1 << self._shift
        symbol_counts = [0] * id_space
        words = self._words
        flat = words.flat
        for o in words.offsets:
            weight = int(flat[o + 1])
            for i in range(o + 2, o + 2 + flat[o]):
                symbol_counts[flat[i]] += weight
        # One-symbol words hold no pair, so the pair index left them out; their symbol counts.
        suffix = self._suffix or ""
        token_to_id = self._vocab.token_to_id
        for text, count in self._word_counts.items():
            if len(text) == 1:
                id = token_to_id.get(text + suffix)
                if id is not None:
                    symbol_counts[id] += count
        total = 0
        for count in symbol_counts:
            total += count
        self._symbol_counts = vec[i64](symbol_counts)
        self._total = total
        self._dirty = [False] * id_space
        pairs_of = empty_lists(id_space)
        self._pairs_of = pairs_of
        shift = self._shift
        mask = self._id_mask
        minimum = max(self._min_frequency, 1)
        queue = self._queue
        for i in range(len(pairs)):
            pair = pairs[i]
            count = counts[i]
            self._positions[pair] = positions[i]
            left = pair >> shift
            right = pair & mask
            pairs_of[left] = append(pairs_of[left], pair)
            if right != left:
                pairs_of[right] = append(pairs_of[right], pair)
            if count >= minimum:
                queue.add_unordered(self._score(count, left, right), count, pair)
        queue.heapify()

    def _mark(self, symbol: int) -> None:
        """`symbol`'s count changed: queue the bound of its pairs' scores (or forget its pairs
        when it is gone)."""
        count = self._symbol_counts[symbol]
        if count <= 0:
            self._forget_symbol(symbol)
            return
        self._dirty[symbol] = True
        self._queue.push(1.0 / float(count), BEFORE_PAIRS, -1 - symbol)

    def _forget_symbol(self, symbol: int) -> None:
        """`symbol` is gone (its count is 0): forget its pairs, all of which are at 0 too."""
        self._dirty[symbol] = False
        positions = self._positions
        for pair in self._pairs_of[symbol]:
            # subtle: a pair is in `_positions` only while both its symbols list it, so that a
            # merge making it again (`_merge_next`) lists it anew; it occurs in no word now.
            positions.pop(pair, None)
        self._pairs_of[symbol] = vec[i64]()

    def _rescore(self, symbol: int, floor: float) -> None:
        """Queue the live pairs holding `symbol` that score `floor` or more at their current
        scores, and the best of the others as the symbol's bound; forget dead pairs.

        The symbol's pairs are compacted in place as they are read: the dead ones (and those
        a merge used up) are dropped from its list and from `_positions`. The other symbol of
        a dead pair drops it when it is rescored in turn."""
        self._dirty[symbol] = False
        pair_counts = self._pair_counts
        pairs_of = self._pairs_of
        pairs = pairs_of[symbol]
        positions = self._positions
        shift: i64 = self._shift
        mask: i64 = self._id_mask
        minimum: i64 = max(self._min_frequency, 1)
        queue = self._queue
        deferred = -math.inf
        n = len(pairs)
        kept: i64 = 0
        i: i64 = 0
        while i < n:
            pair = pairs[i]
            i += 1
            count = pair_counts.get(pair)
            if count < minimum:
                # subtle: counts only fall, except for pairs a merge creates, which are
                # registered again then; so a pair below the minimum is out for good.
                positions.pop(pair, None)
                continue
            pairs[kept] = pair
            kept += 1
            score = self._score(count, pair >> shift, pair & mask)
            if score >= floor:
                queue.push(score, count, pair)
            elif score > deferred:
                deferred = score
        if kept < n:
            while n > kept:
                pairs, _ = pop(pairs)
                n -= 1
            pairs_of[symbol] = pairs
        if deferred > -math.inf:
            # The pairs left out wait behind their best score: the symbol is rescored when that
            # comes up (or earlier, if its count changes again).
            self._dirty[symbol] = True
            queue.push(deferred, BEFORE_PAIRS, -1 - symbol)

    def _is_current(self, slot: int) -> bool:
        """Whether the pair entry in queue slot `slot` has its pair's current count and score."""
        queue = self._queue
        pair = int(queue.key_at(slot))
        count = self._pair_counts.get(pair)
        if count != queue.count_at(slot) or count < 1:
            return False
        return self._score(count, pair >> self._shift, pair & self._id_mask) == queue.score_at(slot)

    def _settle(self) -> None:
        """Pop until the top is a current pair (rescoring dirty symbols that come up); finished
        when the vocabulary is full or no pair is left."""
        queue = self._queue
        dirty = self._dirty
        while True:
            if len(self._vocab) >= self._vocab_size or len(queue) == 0:
                self._finished = True
                return
            key = int(queue.key_at(0))
            if key < 0:
                queue.drop()
                symbol = -1 - key
                if dirty[symbol]:
                    # Queue only what is near the top now; the rest waits behind a new bound.
                    self._rescore(symbol, self._floor())
                continue
            if self._is_current(0):
                return
            self._requeue()

    def _merge_next(self) -> bool:
        self._settle()
        if self._finished:
            return False
        queue = self._queue
        pair = int(queue.key_at(0))
        count = int(queue.count_at(0))
        score = queue.score_at(0)
        queue.drop()
        left = pair >> self._shift
        right = pair & self._id_mask
        symbol_counts = self._symbol_counts
        self._hist_scores.append(score)
        self._hist_left_counts.append(symbol_counts[left])
        self._hist_right_counts.append(symbol_counts[right])
        positions = self._positions.pop(pair)
        self._merge(left, right, count, positions)
        # Every occurrence is merged: the pair is gone (the pair index does not drop it itself,
        # as HF's BPE queue never looks at a merged pair's count again).
        self._pair_counts.remove(pair)
        new_id = self._merge_new[len(self._merge_new) - 1]
        merged = self._merged_occurrences
        symbol_counts[left] -= merged
        symbol_counts[right] -= merged
        symbol_counts[new_id] += merged
        self._total -= merged
        pairs_of = self._pairs_of
        shift = self._shift
        mask = self._id_mask
        gained_pairs = self._gained_pairs
        gained_pos = self._gained_pos
        positions_of = self._positions
        for i in range(len(gained_pairs)):
            made = gained_pairs[i]
            found = positions_of.get(made)
            if found is None:
                # (a pair already in `_positions` is listed by its symbols; the merged pair
                # stays listed until they are rescored, and is dropped then, at count 0)
                positions_of[made] = gained_pos[i]
                made_left = made >> shift
                made_right = made & mask
                pairs_of[made_left] = append(pairs_of[made_left], made)
                if made_right != made_left:
                    pairs_of[made_right] = append(pairs_of[made_right], made)
            else:
                positions_of[made] = extend(found, gained_pos[i])
            self._made(made)
        self._mark(left)
        if right != left:
            self._mark(right)
        if new_id != left and new_id != right:
            self._mark(new_id)
        if len(queue) > _STALE_FACTOR * max(len(positions_of), _MIN_QUEUE_REBUILD):
            self._rebuild_queue()
        return True

    def _rebuild_queue(self) -> None:
        """Drop the stale entries: one entry per live pair, at its current score."""
        pair_counts = self._pair_counts
        shift = self._shift
        mask = self._id_mask
        minimum = max(self._min_frequency, 1)
        queue = ScoreQueue()
        for pair in self._positions:
            count = pair_counts.get(pair)
            if count >= minimum:
                queue.add_unordered(self._score(count, pair >> shift, pair & mask), count, pair)
        queue.heapify()
        self._queue = queue
        self._dirty = [False] * len(self._dirty)

    def top_candidates(self, k: int) -> list[PairCandidate]:
        """The `k` best-scoring pairs, best first; unless the run is done, the first one is
        exactly what the next `step()` merges (every live pair scored as it is now, ranked by
        the queue's rule)."""
        self._prepare(SilentProgress())
        if not self._finished:
            self._settle()
        pair_counts = self._pair_counts
        shift = self._shift
        mask = self._id_mask
        minimum = max(self._min_frequency, 1)
        best: list[tuple[float, int, int]] = []  # (-score, -count, pair): best first when sorted
        for pair in self._positions:
            count = pair_counts.get(pair)
            if count >= minimum:
                best.append((-self._score(count, pair >> shift, pair & mask), -count, pair))
        best.sort()
        tokens = self._vocab.id_to_token
        symbol_counts = self._symbol_counts
        result: list[PairCandidate] = []
        for entry in best[: max(k, 0)]:
            left = entry[2] >> shift
            right = entry[2] & mask
            result.append(
                PairCandidate(
                    tokens[left], tokens[right], -entry[1], -entry[0], symbol_counts[left], symbol_counts[right]
                )
            )
        return result
