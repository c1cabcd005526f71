"""Unigram training's shared state: `TrainingLattices`, the pieces (ids, scores, which are in the
model) and every word's lattice as flat int vecs, built once from the seed pieces.

Pieces only ever leave (`remove`): their edges then score -inf and are dropped in bulk. No passes
over the lattices here (`engine.models.unigram.lattice_passes`), no choosing which pieces leave.
"""

from __future__ import annotations

from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64

from engine.models.unigram.lattice import UNK_PENALTY
from engine.models.unigram.seeds import SeedPieces

NEG_INF: Final = float("-inf")
# The pieces' backwards trie (`_backwards_trie`): an edge's key is node * _CODES + code point;
# a free cell's key is _FREE.
_CODES: Final = 0x110000
_FREE: Final = -1
_LOW_32: Final = 0xFFFFFFFF


def filled(n: i64, value: float) -> vec[float]:
    """A vec of `n` floats, each `value` (from a list: three times quicker than n appends)."""
    return vec[float]([value] * n)


def int_filled(n: i64, value: i64) -> vec[i64]:
    """A vec of `n` ints, each `value`: int_filled(3, -1) -> [-1, -1, -1]."""
    return vec[i64]([value] * n)


class TrainingLattices:
    """The pieces and the lattices of all words that every phase of a Unigram run reads, and what
    the last pass over them computed.

    Layout: piece ids `0 .. n_chars-1` are the single characters (they stay for the whole run: a
    character the model dropped is "absent" and scores as unknown, min_score - 10, as in
    sentencepiece's lattice); longer pieces follow and are renumbered when pieces are removed.
    Word `k` owns lattice nodes `base[k] .. base[k] + len`; the edges ending at node `t` are
    `edges[lo[t]:lo[t + 1]]`, shortest first, each packed as `piece << len_bits | length`.
    ("ab" with pieces a=0, b=1, ab=2 and len_bits 2: edges into node 2 are b (1 << 2 | 1) and
    ab (2 << 2 | 2).)
    """

    # pieces
    pieces: list[str]
    scores: list[float]
    present: list[bool]
    n_chars: int
    # words, sorted in code-point order
    words: list[str]
    counts: list[int]
    total_count: int
    # the lattices of all words (vecs: unboxed in compiled code, which the passes need)
    max_piece_length: int
    len_bits: i64
    len_mask: i64
    base: vec[i64]
    lo: vec[i64]
    edges: vec[i64]
    # what the last pass computed (`engine.models.unigram.lattice_passes`)
    expected: vec[float]
    viterbi_freq: vec[i64]
    occurrence: vec[i64]
    viterbi_valid: bool
    log_likelihood: float
    tokens: int
    # scratch space, one entry per lattice node, reused by every pass (each pass writes an
    # entry before it reads it)
    node_floats: vec[float]
    node_floats2: vec[float]
    node_ints: vec[i64]

    def __init__(self, max_piece_length: int) -> None:
        """No pieces, no words, no lattices yet (`build` makes them)."""
        self.pieces = []
        self.scores = []
        self.present = []
        self.n_chars = 0
        self.total_count = 0
        self.max_piece_length = max_piece_length
        self.len_bits = max(max_piece_length, 1).bit_length()
        self.len_mask = (1 << self.len_bits) - 1
        self.drop()
        self.viterbi_valid = False
        self.log_likelihood = 0.0
        self.tokens = 0

    def drop(self) -> None:
        """No words, no lattices, no results of a pass (before the seed round, and once
        released); the pieces stay."""
        self.words = []
        self.counts = []
        self.base = vec[i64]()
        self.lo = vec[i64]()
        self.edges = vec[i64]()
        self.expected = vec[float]()
        self.viterbi_freq = vec[i64]()
        self.occurrence = vec[i64]()
        self.node_floats = vec[float]()
        self.node_floats2 = vec[float]()
        self.node_ints = vec[i64]()

    def piece_count(self) -> int:
        """How many pieces the model holds now (absent characters not counted)."""
        count = 0
        for present in self.present:
            if present:
                count += 1
        return count

    def build(self, words: list[str], counts: list[int], seeds: SeedPieces) -> None:
        """Take the words (code-point order) and the seed pieces, and make every word's edges:
        each piece ending at each node, shortest first.

        The pieces go into a trie read backwards (last character first), so walking back from a
        node finds every piece ending there, and stops as soon as no piece ends that way (no
        string is sliced or hashed: `_backwards_trie`, probed here inline).
        """
        total = 0
        for count in counts:
            total += count
        self.words = words
        self.counts = counts
        self.total_count = total
        self.pieces = seeds.pieces
        self.scores = seeds.scores
        self.present = [True] * len(seeds.pieces)
        self.n_chars = seeds.n_chars
        cells = _backwards_trie(self.pieces)
        mask: i64 = (len(cells) >> 1) - 1
        bits = self.len_bits
        max_length = self.max_piece_length
        n_nodes: i64 = len(self.words)
        for word in self.words:
            n_nodes += len(word)
        # (base and lo written in place, their sizes known: an append is a call)
        base = vec[i64]([0] * len(self.words))
        lo = vec[i64]([0] * (n_nodes + 1))
        edges = vec[i64]()
        start_node: i64 = 0
        for k in range(len(self.words)):
            word = self.words[k]
            size = len(word)
            base[k] = start_node
            lo[start_node] = len(edges)  # the word's first node: no edge ends there
            for end in range(1, size + 1):
                lo[start_node + end] = len(edges)
                node: i64 = 0
                length: i64 = 1
                limit = end if end < max_length else max_length
                while length <= limit:
                    key = node * _CODES + ord(word[end - length])
                    mixed = (key & 0xFFFFFFF) * 0x5BD1E995 + (key >> 28) * 0x1B873593  # (_mix)
                    slot = (mixed ^ (mixed >> 29)) & mask
                    held = cells[2 * slot]
                    while held != key and held != _FREE:
                        slot = (slot + 1) & mask
                        held = cells[2 * slot]
                    if held == _FREE:
                        break
                    value = cells[2 * slot + 1]
                    node = value >> 32
                    found = (value & _LOW_32) - 1
                    if found >= 0:
                        edges = append(edges, (found << bits) | length)
                    length += 1
            start_node += size + 1
        lo[n_nodes] = len(edges)
        self.base = base
        self.lo = lo
        self.edges = edges
        self.node_floats = filled(len(lo) - 1, 0.0)
        self.node_floats2 = filled(len(lo) - 1, 0.0)
        self.node_ints = int_filled(len(lo) - 1, -1)

    def edge_scores(self) -> vec[float]:
        """Each id's score in the lattices: its own, min_score - 10 for an absent character (an
        unknown), -inf for a removed piece whose edges are not dropped yet."""
        unk_score = self._unk_score()
        scores = vec[float](capacity=len(self.pieces))
        for id in range(len(self.pieces)):
            if self.present[id]:
                scores = append(scores, self.scores[id])
            elif id < self.n_chars:
                scores = append(scores, unk_score)
            else:
                scores = append(scores, NEG_INF)
        return scores

    def _unk_score(self) -> float:
        low = float("inf")
        for id in range(len(self.scores)):
            if self.present[id] and self.scores[id] < low:
                low = self.scores[id]
        return (low if low != float("inf") else 0.0) - UNK_PENALTY

    def remove(self, keep: list[bool]) -> int:
        """Take the pieces not kept out of the model (characters become absent, longer pieces
        removed); returns how many left. Removed pieces' edges are dropped once they are an
        eighth of the longer pieces (until then they score -inf)."""
        removed = 0
        dead = 0
        n_chars = self.n_chars
        present = self.present
        for id in range(len(self.pieces)):
            if present[id] and not keep[id]:
                present[id] = False
                removed += 1
            if id >= n_chars and not present[id]:
                dead += 1
        if dead > 0 and dead * 8 >= len(self.pieces) - n_chars:
            self._compact()
        return removed

    def _compact(self) -> None:
        """Renumber the longer pieces still in the model and drop the others' edges (in place:
        the edges kept and the nodes' starts only ever move down)."""
        n_chars = self.n_chars
        old_pieces = self.pieces
        old_scores = self.scores
        present = self.present
        new_id = int_filled(len(old_pieces), -1)
        pieces: list[str] = old_pieces[:n_chars]
        scores: list[float] = old_scores[:n_chars]
        for id in range(n_chars):
            new_id[id] = id
        for id in range(n_chars, len(old_pieces)):
            if present[id]:
                new_id[id] = len(pieces)
                pieces.append(old_pieces[id])
                scores.append(old_scores[id])
        bits = self.len_bits
        mask = self.len_mask
        edges = self.edges
        lo = self.lo
        kept: i64 = 0
        e: i64 = 0
        t: i64 = 0
        n_nodes: i64 = len(lo) - 1
        while t < n_nodes:
            stop = lo[t + 1]
            lo[t] = kept
            while e < stop:
                packed = edges[e]
                p = new_id[packed >> bits]
                if p >= 0:
                    edges[kept] = (p << bits) | (packed & mask)
                    kept += 1
                e += 1
            t += 1
        lo[n_nodes] = kept
        self.edges = edges[:kept]
        self.pieces = pieces
        self.scores = scores
        self.present = present[:n_chars] + [True] * (len(pieces) - n_chars)
        self.viterbi_valid = False


def _mix(key: i64) -> i64:
    """`key` spread over a table's low bits (prefix_trie's mix; never past 2**63, so the pure
    build computes the same slots)."""
    mixed = (key & 0xFFFFFFF) * 0x5BD1E995 + (key >> 28) * 0x1B873593
    return mixed ^ (mixed >> 29)


def _backwards_trie(pieces: list[str]) -> vec[i64]:
    """The trie of `pieces` spelled backwards, its edges in one table of open addressing (at
    most half full) over two-int cells: slot s holds cells[2s] = key (node * _CODES + code
    point, or _FREE) and cells[2s + 1] = child node << 32 | (id of the piece the child spells
    + 1, or 0). Node 0 is the empty string; a later piece of the same text wins.

    subtle: the child's piece lives in the edge's cell, not in a table by node, so that a step
    of the walk reads one cell (the table is far larger than the caches: each read a miss).
    """
    cells = vec[i64]([_FREE] * 128)  # (a free cell's child is never read)
    mask: i64 = 63
    nodes: i64 = 0
    for id in range(len(pieces)):
        piece = pieces[id]
        if (nodes + len(piece)) * 2 > mask + 1:
            cells = _doubled(cells)
            mask = (len(cells) >> 1) - 1
        node: i64 = 0
        slot: i64 = -1
        k: i64 = len(piece) - 1
        while k >= 0:
            key = node * _CODES + ord(piece[k])
            slot = _mix(key) & mask
            held = cells[2 * slot]
            while held != key and held != _FREE:
                slot = (slot + 1) & mask
                held = cells[2 * slot]
            if held == _FREE:
                nodes += 1
                cells[2 * slot] = key
                cells[2 * slot + 1] = nodes << 32
            node = cells[2 * slot + 1] >> 32
            k -= 1
        if slot >= 0:
            cells[2 * slot + 1] = (node << 32) | (id + 1)
    return cells


def _doubled(cells: vec[i64]) -> vec[i64]:
    """`_backwards_trie`'s table with twice the slots, every edge placed again."""
    out = vec[i64]([_FREE] * (2 * len(cells)))
    mask: i64 = len(cells) - 1
    for k in range(0, len(cells), 2):
        key = cells[k]
        if key != _FREE:
            slot = _mix(key) & mask
            while out[2 * slot] != _FREE:
                slot = (slot + 1) & mask
            out[2 * slot] = key
            out[2 * slot + 1] = cells[k + 1]
    return out
