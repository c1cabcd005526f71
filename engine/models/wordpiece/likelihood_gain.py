"""WordPiece as its paper describes it: `LikelihoodGainRun` merges the pair whose merge raises the
log-likelihood of the training words most, under a unigram model of their symbols (Schuster and
Nakajima 2012, "Japanese and Korean voice search"). Not the course's ratio (`training_run`).

The model: the words as a sequence of N symbols, each drawn with probability count(s) / N, so
log L = sum over symbols of count(s) * log(count(s) / N) = sum f(count(s)) - f(N), f(x) = x log x.
Merging a + b where the pair occurs k times makes k symbols ab and takes k away from a, k from b
and k from N, so the gain is exactly (`likelihood_gain`)

    f(k) + f(count(a) - k) - f(count(a)) + f(count(b) - k) - f(count(b)) + f(N) - f(N - k)

(to first order in k: k * log(k * N / (count(a) * count(b))) - k, the course's ratio times N,
logged and weighted by the count). {"hug": 10, "pug": 5, "hugs": 5}: N = 65, and (##u, ##g),
seen 20 times in 20 ##u and 20 ##g, gains f(20) - f(20) - f(20) + f(65) - f(45) = -59.9 + 271.3
- 171.3 = 40.1 nats, more than (h, ##u) (15 of 15 h and 20 ##u: 23.9) or (##g, ##s) (5 of 20 ##g
and 5 ##s: 6.4), which the ratio ties with it at 0.05.
"""

from __future__ import annotations

import heapq
import math
from typing import Final

from librt.vecs import vec
from mypy_extensions import i64

from engine.models.wordpiece.training_run import BEFORE_PAIRS, WordPieceTrainingRun
from engine.trainers.records import SCORE_LIKELIHOOD_GAIN

# A rescored symbol's pairs within this fraction of the queue's top are queued at once (the
# ratio's run queues those within half: its scores spread over decades, gains late in a run
# crowd within a few nats of one another, just above log N).
_NEAR_TOP: Final = 0.1


def likelihood_gain(count: int, left_count: int, right_count: int, total: int, same: bool) -> float:
    """How much the log-likelihood (in nats) of `total` symbols under their unigram model rises
    when a pair seen `count` times, of symbols seen `left_count` and `right_count` times, is
    merged everywhere; `same`: the pair is one symbol twice (a + a), whose count is one count.

    (10, 10, 10, 100, False) -> f(10) - f(10) - f(10) + f(100) - f(90) = -23.03 + 460.52 - 404.98 = 32.51
    """
    if same:
        # subtle: (a, a) takes two a's per merge; "a a a" counts as two pairs but merges once,
        # so two per pair may take more a's than there are: none are left then.
        lost = _x_log_x(left_count) - _x_log_x(max(left_count - 2 * count, 0))
    else:
        # subtle: one sum of the two symbols' losses, so that (a, b) and (b, a) with the same
        # counts score the same float (a + b == b + a; x - a - b need not equal x - b - a).
        lost = _drop(left_count, count) + _drop(right_count, count)
    # subtle: N falls by k as well (k pairs become k symbols). Without that term every gain is
    # negative, and the rarest pairs (k = count(a) = count(b) = 1: 0) lose least and win.
    return _x_log_x(count) - lost + _drop(total, count)


def gain_bound(count: int, symbol_count: int, total: int) -> float:
    """No pair holding a symbol seen `symbol_count` times, itself seen `count` times or fewer,
    gains more than f(N) - f(N - count) - (f(symbol_count) - f(symbol_count - count)).

    (The other symbol's part, f(k) - (f(c) - f(c - k)), is never positive, as f(k) + f(c - k)
    <= f(c); what is left grows with k. For (a, a), f(k) + f(c - 2k) <= f(c - k) gives the same.)
    A pair seen 10 times, of a symbol seen 10,000 times among N = 1,000,000: at most 46.1, where
    a symbol seen 10 times could gain 125.1.
    """
    return _drop(total, count) - _drop(symbol_count, count)


def _x_log_x(x: int) -> float:
    """x log x, 0 at 0 (its limit)."""
    if x <= 0:
        return 0.0
    value = float(x)
    return value * math.log(value)


def _drop(n: int, k: int) -> float:
    """f(n) - f(n - k), f(x) = x log x: what n occurrences lose in n log n when k of them go.

    Computed as k log n + (n - k) log(n / (n - k)): for k much smaller than n, subtracting two
    nearly equal n log n's would lose the digits that tell two gains apart."""
    if k >= n:
        return _x_log_x(n)
    whole = float(n)
    left = float(n - k)
    # (math.log of a float: mypyc compiles it to C's log, where an int argument makes a Python call)
    return float(k) * math.log(whole) + left * math.log(whole / left)


class LikelihoodGainRun(WordPieceTrainingRun):
    """One WordPiece training by likelihood gain, advanced one merge at a time or to the end.

    Ties as the ratio's run (`WordPieceTrainingRun`): the higher gain, then the more frequent
    pair, then the smaller pair of ids (left, then right).

    The queue is the ratio's, with two differences. A merge makes N smaller, which changes
    every pair's gain, but only ever lowers it (f(N) - f(N - k) grows with N): so an entry
    queued before is an upper bound of its pair's gain, and an entry that comes up stale while
    its pair's count is unchanged is queued again at the current gain rather than dropped (an
    upper bound is made exact only when it reaches the top). And a symbol's count alone does
    not bound its pairs' gains, but a pair's count does (`gain_bound`): each symbol keeps its
    pairs not yet scored in a heap by count, and a symbol whose count changed has them scored
    from the most frequent down until the bound of the next one falls more than a tenth below
    the queue's top; that bound waits in the queue for the rest. A frequent symbol (##s) has thousands of pairs, nearly
    all rare: they gain little, and wait unscored.
    """

    # Per symbol: its pairs not scored since its count last changed, as a heap of
    # -(count << pair bits | pair) (the most frequent first; a count there bounds the pair's
    # count now, which only falls, a pair a merge makes again being pushed again), and the
    # pairs scored since (`_scan`), which wait again when its count next changes.
    _waiting: list[list[int]]
    _scored: list[list[int]]
    _pair_bits: int

    def _score_name(self) -> str:
        return SCORE_LIKELIHOOD_GAIN

    def _score(self, count: i64, left: i64, right: i64) -> float:
        symbol_counts = self._symbol_counts
        return likelihood_gain(count, symbol_counts[left], symbol_counts[right], self._total, left == right)

    def _near_top(self) -> float:
        return _NEAR_TOP

    def _clear_queue(self) -> None:
        super()._clear_queue()
        self._waiting = []
        self._scored = []
        self._pair_bits = 0

    def _index_pairs(self, pairs: list[int], counts: list[int], positions: vec[vec[i64]]) -> None:
        super()._index_pairs(pairs, counts, positions)
        # (every pair is queued at its gain now: all of them are scored)
        self._waiting = [[] for _ in range(1 << self._shift)]
        self._scored = [list(pairs_of) for pairs_of in self._pairs_of]
        self._pair_bits = 2 * self._shift

    def _made(self, pair: int) -> None:
        key = -((self._pair_counts.get(pair) << self._pair_bits) | pair)
        heapq.heappush(self._waiting[pair >> self._shift], key)
        heapq.heappush(self._waiting[pair & self._id_mask], key)

    def _mark(self, symbol: int) -> None:
        """`symbol`'s count changed: its pairs wait again, and the most frequent are scored (or
        its pairs are forgotten when it is gone)."""
        if self._symbol_counts[symbol] <= 0:
            self._forget_symbol(symbol)
            self._waiting[symbol] = []
            self._scored[symbol] = []
            return
        scored = self._scored[symbol]
        if scored:
            waiting = self._waiting[symbol]
            pair_counts = self._pair_counts
            bits = self._pair_bits
            minimum = max(self._min_frequency, 1)
            for pair in scored:
                count = pair_counts.get(pair)
                if count >= minimum:
                    waiting.append(-((count << bits) | pair))
                else:
                    self._forget(pair)
            heapq.heapify(waiting)
            self._scored[symbol] = []
        self._scan(symbol, self._floor())

    def _rescore(self, symbol: int, floor: float) -> None:
        """`symbol`'s bound came up: score more of its waiting pairs."""
        self._scan(symbol, floor)

    def _scan(self, symbol: int, floor: float) -> None:
        """Queue `symbol`'s waiting pairs at their current gains, the most frequent first, until
        the bound of the next one is below `floor`; that bound waits in the queue for the rest."""
        waiting = self._waiting[symbol]
        scored = self._scored[symbol]
        symbol_count = self._symbol_counts[symbol]
        total = self._total
        pair_counts = self._pair_counts
        shift = self._shift
        mask = self._id_mask
        bits = self._pair_bits
        pair_mask = (1 << bits) - 1
        minimum = max(self._min_frequency, 1)
        queue = self._queue
        bound = 0.0
        while waiting:
            key = -waiting[0]
            bound = gain_bound(key >> bits, symbol_count, total)
            if bound < floor:
                break
            heapq.heappop(waiting)
            pair = key & pair_mask
            count = pair_counts.get(pair)
            if count >= minimum:
                queue.push(self._score(count, pair >> shift, pair & mask), count, pair)
                scored.append(pair)
            else:
                self._forget(pair)
        self._dirty[symbol] = len(waiting) > 0
        if waiting:
            queue.push(bound, BEFORE_PAIRS, -1 - symbol)

    def _forget(self, pair: int) -> None:
        """A pair below the minimum count is out for good (counts only fall, but for pairs a
        merge makes, which are registered again). (Its symbols still list it, dead: this run
        reads `_pairs_of` only when a symbol is gone.)"""
        self._positions.pop(pair, None)

    def _rebuild_queue(self) -> None:
        super()._rebuild_queue()
        # (every live pair is queued at its current gain: all of them are scored)
        bits = self._pair_bits
        pair_mask = (1 << bits) - 1
        waiting = self._waiting
        scored = self._scored
        for symbol in range(len(waiting)):
            if waiting[symbol]:
                for key in waiting[symbol]:
                    scored[symbol].append(-key & pair_mask)
                waiting[symbol] = []

    def _requeue(self) -> None:
        """The pair entry at the top is stale: queue it again at its current gain when only N
        has changed since (its count is the same); drop it otherwise (then a symbol of the pair
        was marked, which queued it again or put its bound in the queue)."""
        queue = self._queue
        pair = int(queue.key_at(0))
        count = self._pair_counts.get(pair)
        if count == queue.count_at(0) and count >= max(self._min_frequency, 1):
            queue.replace_next(self._score(count, pair >> self._shift, pair & self._id_mask), count, pair)
        else:
            queue.drop()
