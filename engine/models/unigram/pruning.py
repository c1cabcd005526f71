"""Unigram pruning (sentencepiece's PruneSentencePieces): each piece's loss, the likelihood its
removal would cost given its second-best split (`PruningLosses`), and which pieces a prune keeps.

Reads the Viterbi counts of `engine.models.unigram.lattice_passes`; the pieces are taken out by
`TrainingLattices.remove`, and when to prune is `engine.models.unigram.training_run`'s.
"""

from __future__ import annotations

import math
from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64

from engine.models.unigram.lattice_passes import ensure_viterbi
from engine.models.unigram.training_lattices import NEG_INF, TrainingLattices, filled, int_filled

# `stable_order` sorts runs of this many keys by insertion before merging them.
_RUN: Final[i64] = 16


class PruningLosses:
    """What a prune weighs (`pruning_losses`): per piece id, the likelihood its removal would
    lose (`values`) and the pieces that would replace it, kept flat: piece `id`'s replacement is
    `items[starts[id]:starts[id + 1]]` (empty: no replacement)."""

    values: vec[float]
    starts: vec[i64]
    items: vec[i64]

    def __init__(self, n: i64) -> None:
        self.values = filled(n, 0.0)
        self.starts = vec[i64](capacity=n + 1)
        self.items = vec[i64]()

    def close(self, id: i64) -> None:
        """Pieces up to `id` (exclusive) are done: their replacements start here or before."""
        while len(self.starts) <= id:
            self.starts = append(self.starts, len(self.items))

    # Read a piece's replacement once it is closed (`close(id + 1)`): its end is then in `starts`.

    def has_alternative(self, id: i64) -> bool:
        return self.alternative_size(id) > 0

    def alternative_size(self, id: i64) -> i64:
        return self.starts[id + 1] - self.starts[id]

    def alternative(self, id: i64) -> list[int]:
        return [int(self.items[k]) for k in range(self.starts[id], self.starts[id + 1])]

    def reverse_from(self, first: i64) -> None:
        """Reverse `items[first:]` (a replacement is read off back to front)."""
        low = first
        high = len(self.items) - 1
        while low < high:
            self.items[low], self.items[high] = self.items[high], self.items[low]
            low += 1
            high -= 1


def pruning_losses(lattices: TrainingLattices) -> PruningLosses:
    """For each piece, the likelihood its removal would lose and the pieces that would replace
    it (sentencepiece's PruneSentencePieces, with the Viterbi counts of the last pass).

    No replacement means: no second-best split (a single character), or the piece is not
    its own best split (loss 0.0: it can go), or no best segmentation uses it.
    """
    ensure_viterbi(lattices)
    n = len(lattices.pieces)
    freq = lattices.viterbi_freq
    losses = PruningLosses(n)
    total = 0.0
    for id in range(n):
        total += float(freq[id])
    if total <= 0.0 or lattices.total_count <= 0:
        losses.close(n)
        return losses
    log_total = math.log(total)
    scores = lattices.edge_scores()
    longest = 0
    for piece in lattices.pieces:
        if len(piece) > longest:
            longest = len(piece)
    best = filled(longest + 1, 0.0)
    back = int_filled(longest + 1, -1)
    for id in range(lattices.n_chars, n):
        losses.close(id)
        if not lattices.present[id] or freq[id] == 0:
            continue
        if not _second_best(lattices, id, scores, best, back, losses):
            continue
        losses.close(id + 1)
        f = float(freq[id])
        log_prob = math.log(f) - log_total
        log_total_alt = math.log(total + f * float(losses.alternative_size(id) - 1))
        log_prob_alt = 0.0
        for alt in losses.alternative(id):
            log_prob_alt += math.log(float(freq[alt]) + f) - log_total_alt
        losses.values[id] = f / lattices.total_count * (log_prob - log_prob_alt)
    losses.close(n)
    return losses


def _second_best(
    lattices: TrainingLattices, id: int, scores: vec[float], best: vec[float], back: vec[i64], out: PruningLosses
) -> bool:
    """Add to `out` the best split of piece `id` other than itself; False (nothing added)
    when some split scores higher than the piece itself (ties keep the piece). Read off a
    word that uses the piece; `best` and `back` are scratch space for its length + 1."""
    end: i64 = lattices.occurrence[id]
    length: i64 = len(lattices.pieces[id])
    start = end - length
    edges = lattices.edges
    lo = lattices.lo
    bits = lattices.len_bits
    mask = lattices.len_mask
    best[0] = 0.0
    u: i64 = 1
    while u <= length:
        top = NEG_INF
        top_edge: i64 = -1
        node = start + u
        e: i64 = lo[node]
        stop: i64 = lo[node + 1]
        while e < stop:
            packed = edges[e]
            size = packed & mask
            if size >= u:
                # edges are shortest first: the rest start before `start`, or this one is
                # the piece itself (the split being looked for is another one)
                if size > u or u == length:
                    break
            v = best[u - size] + scores[packed >> bits]
            if v > top:
                top = v
                top_edge = e
            e += 1
        best[u] = top
        back[u] = top_edge
        u += 1
    if best[length] > scores[id] or back[length] < 0:
        return False
    first = len(out.items)
    u = length
    while u > 0:
        packed = edges[back[u]]
        out.items = append(out.items, packed >> bits)
        u -= packed & mask
    out.reverse_from(first)
    return True


def pieces_to_keep(lattices: TrainingLattices, pruned_size: int) -> list[bool]:
    """Which pieces a prune down to `pruned_size` keeps: the characters the best segmentations
    use, then the pieces whose removal would lose the most likelihood (ties of loss: the smaller
    id stays)."""
    losses = pruning_losses(lattices)
    n = len(lattices.pieces)
    keep: list[bool] = [False] * n
    kept = 0
    for id in range(lattices.n_chars):
        if lattices.present[id] and lattices.viterbi_freq[id] > 0:
            keep[id] = True
            kept += 1
    # subtle: ids ascending, sorted stably by -loss alone: the order of (-loss, id) pairs,
    # without a tuple made or compared
    ids = vec[i64]()
    neg_losses = vec[float]()
    starts = losses.starts
    for id in range(lattices.n_chars, n):
        if starts[id + 1] > starts[id]:  # (has_alternative)
            ids = append(ids, id)
            neg_losses = append(neg_losses, -losses.values[id])
    order = stable_order(neg_losses)
    for k in range(len(order)):
        if kept >= pruned_size:
            break
        keep[ids[order[k]]] = True
        kept += 1
    return keep


def stable_order(keys: vec[float]) -> vec[i64]:
    """The positions of `keys` sorted by key, equal keys in their order (a stable sort, as
    Python's `sorted(range(n), key=keys.__getitem__)`): [0.5, -1.0, 0.5] -> [1, 0, 2].

    A merge sort on native floats (runs of _RUN by insertion first): no key call and no float
    boxed per comparison. A NaN, which no order holds, leaves the job to Python's sort.
    """
    n: i64 = len(keys)
    order = vec[i64]([0] * n)
    for k in range(n):
        if keys[k] != keys[k]:
            by_python = sorted(range(n), key=list(keys).__getitem__)
            for j in range(n):
                order[j] = by_python[j]
            return order
        order[k] = k
    start: i64 = 0
    while start < n:  # (runs by insertion: a later key moves only past larger ones)
        end = start + _RUN if start + _RUN < n else n
        for i in range(start + 1, end):
            current = order[i]
            key = keys[current]
            j = i
            while j > start and key < keys[order[j - 1]]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = current
        start = end
    other = vec[i64]([0] * n)
    width: i64 = _RUN
    while width < n:
        lo: i64 = 0
        while lo < n:
            mid = lo + width if lo + width < n else n
            hi = lo + 2 * width if lo + 2 * width < n else n
            a = lo
            b = mid
            out = lo
            while a < mid and b < hi:
                # subtle: the right one first only when strictly smaller (stable)
                if keys[order[b]] < keys[order[a]]:
                    other[out] = order[b]
                    b += 1
                else:
                    other[out] = order[a]
                    a += 1
                out += 1
            while a < mid:
                other[out] = order[a]
                a += 1
                out += 1
            while b < hi:
                other[out] = order[b]
                b += 1
                out += 1
            lo = hi
        order, other = other, order
        width *= 2
    return order
