"""The Unigram lattice: every way a sentence splits into vocabulary pieces, and what to do with it.

`PieceIndex` finds the pieces that start at each character; `Lattice` holds them as parallel
lists and gives the Viterbi best path, the n best paths (A*) and a sampled path (forward
filtering), with sentencepiece's / HF's semantics. No model file knowledge here
(`engine.models.unigram.model`) and no training: the trainer's E-step works on its own flat lattices,
built once for every word (`engine.models.unigram.training_lattices`).

A node is an index into the lattice's lists: `starts[k]`, `ends[k]` (character positions),
`ids[k]` (piece id) and `scores[k]`. Nodes are stored by start, then by length, which is the order
HF's byte trie reports them in; every tie below is broken by that order.

    lattice = index.lattice(word)                # or Lattice(word) + lattice.insert(...) by hand
    path = lattice.viterbi()                     # node indices of the best path
"""

from __future__ import annotations

import math
import random
import struct
from typing import Final

from engine.errors import EngineError
from engine.models.prefix_trie import NO_NODE, NO_PIECE, ROOT, PrefixTrie

# sentencepiece's kUnkPenalty: an unknown character scores `min_score - UNK_PENALTY`.
UNK_PENALTY: Final = 10.0
# LogSumExp treats a term this much smaller than the other as zero (sentencepiece's kMinusLogEpsilon).
LOG_EPSILON_CUTOFF: Final = 50.0
# n-best keeps at most this many open hypotheses, then keeps the best few (sentencepiece's values).
MAX_AGENDA_SIZE: Final = 10000
MIN_AGENDA_SIZE: Final = 512
# The node index of BOS / EOS in paths of hypotheses (never in a returned path).
BOS: Final = -1
EOS: Final = -2


def log_sum_exp(x: float, y: float) -> float:
    """log(exp(x) + exp(y)), dropping a term 50 below the other: log_sum_exp(0.0, 0.0) -> 0.693..."""
    if x > y:
        if x > y + LOG_EPSILON_CUTOFF:
            return x
        return x + math.log(math.exp(y - x) + 1.0)
    if y > x + LOG_EPSILON_CUTOFF:
        return y
    return y + math.log(math.exp(x - y) + 1.0)


class PieceIndex:
    """A piece vocabulary indexed for lattice building: the trie of its pieces (`PrefixTrie`),
    walked from each position for the pieces that occur there.

    PieceIndex({"a": 0, "ab": 1, "b": 2}, [-1.0, -2.0, -1.5], None, -12.0).lattice("ab")
    -> nodes a (0, 1), ab (0, 2), b (1, 2)
    """

    trie: PrefixTrie
    scores: list[float]
    unk_id: int
    unk_score: float

    def __init__(self, pieces: dict[str, int], scores: list[float], unk_id: int | None, unk_score: float) -> None:
        trie = PrefixTrie()
        for piece, id in pieces.items():
            trie.add(piece, id)  # (HF's trie never reports the empty piece: the trie leaves it out)
        self.trie = trie
        self.scores = scores
        self.unk_id = NO_PIECE if unk_id is None else unk_id
        self.unk_score = unk_score

    def lattice(self, sentence: str) -> Lattice:
        """The lattice of `sentence`: each piece that occurs at each position, plus an unknown
        node (`unk_id`, `unk_score`) at each character no one-character piece covers.

        Raises EngineError (HF's message) when such a character exists and there is no unk id.
        """
        lattice = Lattice(sentence)
        trie = self.trie
        scores = self.scores
        size = len(sentence)
        for start in range(size):
            has_single = False
            node = trie.child(ROOT, ord(sentence[start]))
            end = start + 1
            while node != NO_NODE:
                found = int(trie.piece(node))
                if found >= 0:
                    lattice.insert(start, end, found, scores[found])
                    if end == start + 1:
                        has_single = True
                if end >= size:
                    break
                node = trie.child(node, ord(sentence[end]))
                end += 1
            if not has_single:
                if self.unk_id < 0:
                    raise EngineError("Encountered an unknown token but `unk_id` is missing")
                lattice.insert(start, start + 1, self.unk_id, self.unk_score)
        return lattice


class Lattice:
    """The nodes of one sentence, as parallel lists; positions are character indices 0..size.

    Insert nodes in start order (then by length) for HF's tie-breaking: Lattice("ab") then
    insert(0, 1, id_a, score_a), insert(0, 2, id_ab, score_ab), insert(1, 2, id_b, score_b).
    """

    sentence: str
    size: int
    starts: list[int]
    ends: list[int]
    ids: list[int]
    scores: list[float]
    # for each end position, the nodes ending there, in insertion order
    ending: list[list[int]]

    def __init__(self, sentence: str) -> None:
        self.sentence = sentence
        self.size = len(sentence)
        self.starts = []
        self.ends = []
        self.ids = []
        self.scores = []
        ending: list[list[int]] = []
        for _ in range(self.size + 1):
            ending.append([])
        self.ending = ending

    def insert(self, start: int, end: int, id: int, score: float) -> int:
        """Add a node for piece `id` covering sentence[start:end]; returns its node index."""
        node = len(self.ids)
        self.starts.append(start)
        self.ends.append(end)
        self.ids.append(id)
        self.scores.append(score)
        self.ending[end].append(node)
        return node

    def piece(self, node: int) -> str:
        return self.sentence[self.starts[node] : self.ends[node]]

    def pieces(self, path: list[int]) -> list[str]:
        """The surface strings of a path: ["ab", "c"]."""
        result: list[str] = []
        for node in path:
            result.append(self.sentence[self.starts[node] : self.ends[node]])
        return result

    # -- best path ----------------------------------------------------------------------------

    def viterbi_scores(self) -> list[float]:
        """best[pos]: the score of the best path from BOS to position `pos` (-inf when none).

        Of equal scores, the node inserted first wins (HF's strict `>`).
        """
        best: list[float] = [-math.inf] * (self.size + 1)
        best[0] = 0.0
        starts = self.starts
        scores = self.scores
        ending = self.ending
        for pos in range(1, self.size + 1):
            top = -math.inf
            for node in ending[pos]:
                candidate = best[starts[node]] + scores[node]
                if candidate > top:
                    top = candidate
            best[pos] = top
        return best

    def viterbi(self) -> list[int]:
        """The node indices of the best path, BOS to EOS; [] for an empty sentence or no path."""
        if self.size == 0:
            return []
        best: list[float] = [0.0] * (self.size + 1)
        back: list[int] = [-1] * (self.size + 1)
        starts = self.starts
        scores = self.scores
        ending = self.ending
        for pos in range(1, self.size + 1):
            top = 0.0
            chosen = -1
            for node in ending[pos]:
                start = starts[node]
                if start > 0 and back[start] < 0:
                    continue  # unreachable start
                candidate = best[start] + scores[node]
                if chosen < 0 or candidate > top:
                    top = candidate
                    chosen = node
            best[pos] = top
            back[pos] = chosen
        if back[self.size] < 0:
            return []
        path: list[int] = []
        pos = self.size
        while pos > 0:
            node = back[pos]
            path.append(node)
            pos = starts[node]
        path.reverse()
        return path

    def path_score(self, path: list[int]) -> float:
        """The sum of the path's node scores."""
        total = 0.0
        for node in path:
            total += self.scores[node]
        return total

    # -- n best (A* from EOS, sentencepiece's Lattice::NBest) --------------------------------

    def nbest(self, n: int) -> list[tuple[list[int], float]]:
        """The `n` best paths, best first, with their scores (the sum of their node scores).

        Exact A* from EOS with the Viterbi score from BOS as heuristic, like sentencepiece's
        NBest, so equal to its n-best: its priorities are float32 sums and its open list is a
        libstdc++ binary heap, which decides the order of equal priorities; both are emulated
        here. Past 10,000 open entries the best min(512, 10n) are kept, as sentencepiece does.
        """
        if n <= 0 or self.size == 0:
            return []
        if n == 1:
            best = self.viterbi()
            return [(best, self.path_score(best))] if best else []
        starts = self.starts
        scores = self.scores
        ending = self.ending
        # float32 Viterbi: head[pos] = best float32 score of a path from BOS to pos
        head: list[float] = [-math.inf] * (self.size + 1)
        head[0] = 0.0
        for pos in range(1, self.size + 1):
            best_score = -math.inf
            for node in ending[pos]:
                candidate = float32(head[starts[node]] + scores[node])
                if candidate > best_score:
                    best_score = candidate
            head[pos] = best_score
        if head[self.size] == -math.inf:
            return []
        # hypotheses: node (BOS/EOS/index), the hypothesis toward EOS, g(x) = score from EOS
        hyp_node: list[int] = [EOS]
        hyp_next: list[int] = [-1]
        hyp_gx: list[float] = [0.0]
        hyp_fx: list[float] = [head[self.size]]
        agenda: list[int] = [0]
        results: list[tuple[list[int], float]] = []
        while agenda:
            top = _heap_pop(agenda, hyp_fx)
            node = hyp_node[top]
            if node == BOS:
                path: list[int] = []
                link = hyp_next[top]
                while hyp_node[link] != EOS:
                    path.append(hyp_node[link])
                    link = hyp_next[link]
                results.append((path, self.path_score(path)))
                if len(results) == n:
                    break
                continue
            pos = self.size if node == EOS else starts[node]
            gx = hyp_gx[top]
            if pos == 0:
                hyp_node.append(BOS)
                hyp_next.append(top)
                hyp_gx.append(gx)
                hyp_fx.append(gx)
                _heap_push(agenda, hyp_fx, len(hyp_node) - 1)
            else:
                for lnode in ending[pos]:
                    if head[starts[lnode]] == -math.inf:
                        continue
                    score = scores[lnode]
                    hyp_node.append(lnode)
                    hyp_next.append(top)
                    hyp_gx.append(float32(score + gx))
                    hyp_fx.append(float32(float32(head[starts[lnode]] + score) + gx))
                    _heap_push(agenda, hyp_fx, len(hyp_node) - 1)
            if len(agenda) >= MAX_AGENDA_SIZE:
                keep = min(MIN_AGENDA_SIZE, n * 10)
                kept: list[int] = []
                for _ in range(keep):
                    _heap_push(kept, hyp_fx, _heap_pop(agenda, hyp_fx))
                agenda = kept
        return results

    # -- forward-backward ---------------------------------------------------------------------

    def forward(self, theta: float) -> list[float]:
        """alpha[pos]: log of the summed exp(theta * score) of all paths from BOS to `pos`
        (-inf when none). alpha[size] is log Z at temperature 1/theta."""
        alpha: list[float] = [-math.inf] * (self.size + 1)
        alpha[0] = 0.0
        starts = self.starts
        scores = self.scores
        ending = self.ending
        for pos in range(1, self.size + 1):
            first = True
            total = -math.inf
            for node in ending[pos]:
                term = theta * scores[node] + alpha[starts[node]]
                if first:
                    total = term
                    first = False
                else:
                    total = log_sum_exp(total, term)
            alpha[pos] = total
        return alpha

    # -- sampling (sentencepiece's Lattice::Sample) -------------------------------------------

    def sample(self, theta: float, rng: random.Random) -> list[int]:
        """A path drawn with probability proportional to exp(theta * path score): forward
        filtering, then backward sampling from EOS. [] for an empty sentence or no path."""
        if self.size == 0:
            return []
        alpha = self.forward(theta)
        if alpha[self.size] == -math.inf:
            return []
        starts = self.starts
        scores = self.scores
        ending = self.ending
        path: list[int] = []
        pos = self.size
        weights: list[float] = []
        while pos > 0:
            z = alpha[pos]
            weights.clear()
            total = 0.0
            candidates = ending[pos]
            for node in candidates:
                weight = math.exp(alpha[starts[node]] + theta * scores[node] - z)
                weights.append(weight)
                total += weight
            draw = rng.random() * total
            chosen = -1
            for k in range(len(candidates)):
                if weights[k] > 0.0:
                    chosen = candidates[k]  # subtle: rounding may leave draw >= 0 after the last
                    draw -= weights[k]
                    if draw < 0.0:
                        break
            path.append(chosen)
            pos = starts[chosen]
        path.reverse()
        return path


def float32(value: float) -> float:
    """`value` rounded to float32, as sentencepiece's float arithmetic does: 0.1 -> 0.100000001..."""
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


def _heap_push(heap: list[int], keys: list[float], item: int) -> None:
    """libstdc++'s push_heap on a max-heap of `item`s ordered by keys[item] (ties stay put)."""
    heap.append(item)
    hole = len(heap) - 1
    key = keys[item]
    parent = (hole - 1) // 2
    while hole > 0 and keys[heap[parent]] < key:
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = item


def _heap_pop(heap: list[int], keys: list[float]) -> int:
    """libstdc++'s pop_heap (hole sifted to a leaf, then the last item pushed up from it)."""
    top = heap[0]
    value = heap.pop()
    size = len(heap)
    if size == 0:
        return top
    hole = 0
    child = 0
    while child < (size - 1) // 2:
        child = 2 * (child + 1)
        if keys[heap[child]] < keys[heap[child - 1]]:
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if (size & 1) == 0 and child == (size - 2) // 2:
        child = 2 * (child + 1)
        heap[hole] = heap[child - 1]
        hole = child - 1
    key = keys[value]
    parent = (hole - 1) // 2
    while hole > 0 and keys[heap[parent]] < key:
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = value
    return top
