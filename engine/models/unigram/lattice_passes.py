"""The passes over every word's training lattice (`TrainingLattices`): forward-backward, the E-step
(corpus log-likelihood, expected counts), and Viterbi (best segmentations: piece use, tokens).

They write only the pass results and the scratch space; no piece is re-scored or removed here
(`engine.models.unigram.training_run`: the M-step; `engine.models.unigram.pruning`).
"""

from __future__ import annotations

import math

from librt.vecs import append, vec
from mypy_extensions import i64

from engine.models.unigram.training_lattices import NEG_INF, TrainingLattices, filled, int_filled


def forward_backward(lattices: TrainingLattices, backward: bool) -> None:
    """One pass over every word: the corpus log-likelihood and, when `backward`, each piece's
    expected count (sentencepiece's E-step, its lattices' marginals).

    Forward runs in probability space, normalised at each node: `inv[t]` is 1 / c[t],
    where c[t] = alpha[t] / alpha[t-1], so an edge s -> t carries
    w = p(piece) * alpha[s] / alpha[t] = p * inv[s+1] * ... * inv[t]: the probability that
    a path into t came through it. Backward then pushes b[t] (count x the posterior that
    t is a boundary) down the edges: the edge's expected count is w * b[t]. No exp or log
    per edge; log P(word) = sum of log c[t].
    """
    scores = lattices.edge_scores()
    n_pieces = len(scores)
    probs = vec[float](capacity=n_pieces)
    for id in range(n_pieces):
        probs = append(probs, math.exp(scores[id]) if scores[id] != NEG_INF else 0.0)
    edges = lattices.edges
    lo = lattices.lo
    bits = lattices.len_bits
    mask = lattices.len_mask
    inv = lattices.node_floats
    beta = lattices.node_floats2
    expected = filled(n_pieces, 0.0)
    log_likelihood = 0.0
    words = lattices.words
    counts = lattices.counts
    bases = lattices.base
    for k in range(len(words)):
        base: i64 = bases[k]
        last: i64 = base + len(words[k])
        count = counts[k]
        log_z = 0.0
        product = 1.0  # of the c[t] not yet in log_z (one log per ~100 nodes, not per node)
        t: i64 = base + 1
        while t <= last:
            c = 0.0
            r = 1.0
            cur: i64 = t - 1
            e: i64 = lo[t]
            stop: i64 = lo[t + 1]
            while e < stop:
                packed = edges[e]
                s = t - (packed & mask)
                while cur > s:
                    r *= inv[cur]
                    cur -= 1
                c += probs[packed >> bits] * r
                e += 1
            if not c > 0.0:
                c = 1e-300  # subtle: only if every way in underflowed; keeps the pass finite
            inv[t] = 1.0 / c
            product *= c
            if product < 1e-150 or product > 1e150:
                log_z += math.log(product)
                product = 1.0
            t += 1
        log_z += math.log(product)
        log_likelihood += count * log_z
        if not backward:
            continue
        t = base
        while t < last:
            beta[t] = 0.0
            t += 1
        beta[last] = float(count)
        t = last
        while t > base:
            scale = beta[t] * inv[t]
            r = 1.0
            cur = t - 1
            e = lo[t]
            stop = lo[t + 1]
            while e < stop:
                packed = edges[e]
                s = t - (packed & mask)
                p = packed >> bits
                while cur > s:
                    r *= inv[cur]
                    cur -= 1
                m = probs[p] * r * scale
                expected[p] += m
                beta[s] += m
                e += 1
            t -= 1
    lattices.expected = expected
    lattices.log_likelihood = log_likelihood


def ensure_viterbi(lattices: TrainingLattices) -> None:
    """The best segmentation of every word under the current pieces, unless the last one is still
    valid: how often each piece is used (`viterbi_freq`), the end node of its first use
    (`occurrence`), the tokens."""
    if lattices.viterbi_valid:
        return
    scores = lattices.edge_scores()
    n_pieces = len(scores)
    edges = lattices.edges
    lo = lattices.lo
    bits = lattices.len_bits
    mask = lattices.len_mask
    viterbi_freq = int_filled(n_pieces, 0)
    occurrence = int_filled(n_pieces, -1)
    tokens: i64 = 0
    words = lattices.words
    counts = lattices.counts
    bases = lattices.base
    best = lattices.node_floats
    back = lattices.node_ints
    for k in range(len(words)):
        base: i64 = bases[k]
        last: i64 = base + len(words[k])
        count: i64 = counts[k]
        best[base] = 0.0
        t: i64 = base + 1
        while t <= last:
            top = NEG_INF
            top_edge: i64 = -1
            e: i64 = lo[t]
            stop: i64 = lo[t + 1]
            while e < stop:
                packed = edges[e]
                v = best[t - (packed & mask)] + scores[packed >> bits]
                if v > top:
                    top = v
                    top_edge = e
                e += 1
            best[t] = top
            back[t] = top_edge
            t += 1
        t = last
        while t > base:
            packed = edges[back[t]]
            p = packed >> bits
            viterbi_freq[p] += count
            if occurrence[p] < 0:
                occurrence[p] = t
            tokens += count
            t -= packed & mask
    lattices.viterbi_freq = viterbi_freq
    lattices.occurrence = occurrence
    lattices.tokens = tokens
    lattices.viterbi_valid = True


def word_viterbi(lattices: TrainingLattices, k: int) -> list[str]:
    """Word `k` as its best pieces under the current pieces ("ab" with a, b, ab -> ["ab"] when
    ab scores above a + b)."""
    scores = lattices.edge_scores()
    edges = lattices.edges
    lo = lattices.lo
    bits = lattices.len_bits
    mask = lattices.len_mask
    word = lattices.words[k]
    base = lattices.base[k]
    size = len(word)
    best = filled(size + 1, 0.0)
    back = int_filled(size + 1, 0)
    for u in range(1, size + 1):
        top = NEG_INF
        top_length: i64 = 1
        t = base + u
        for e in range(lo[t], lo[t + 1]):
            packed = edges[e]
            length = packed & mask
            v = best[u - length] + scores[packed >> bits]
            if v > top:
                top = v
                top_length = length
        best[u] = top
        back[u] = top_length
    pieces: list[str] = []
    u = size
    while u > 0:
        pieces.append(word[u - back[u] : u])
        u -= back[u]
    pieces.reverse()
    return pieces
