"""The Unigram EM loop: `UnigramTrainingRun`, SentencePiece's `unigram_model_trainer.cc` as a run
stepped one round at a time (seed, EM sub-iterations, pruning, finalize).

Seeding is `engine.unigram.seeds`'s; options and the Trainer API are
`engine.unigram.trainer`'s. The E-step here is specialised for training (the model's lattice
serves encoding): every word's lattice is built once, from the seed pieces, and kept as flat int
lists; pieces only ever leave the vocabulary, so later rounds drop their edges instead of
rebuilding lattices.
"""

from __future__ import annotations

import math
import time
from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64

from engine.progress import ProgressSink, SilentProgress, report
from engine.trainers.base import TrainingRun
from engine.trainers.records import MergeStep, PairCandidate, RoundStep, TrainHistory
from engine.unigram.lattice import UNK_PENALTY
from engine.unigram.seeds import char_counts, chars_by_count, make_seed_pieces, required_chars

# Phase names of the rounds (RoundStep.phase).
PHASE_SEED: Final = "seed"
PHASE_EM: Final = "EM"
PHASE_PRUNE: Final = "prune"
PHASE_FINALIZE: Final = "finalize"

# Progress stages, as HF's progress bars name them.
STAGE_SEEDS: Final = "Suffix array seeds"
STAGE_EM: Final = "EM training"

# The M-step drops pieces expected less often than this (sentencepiece's kExpectedFrequencyThreshold).
EXPECTED_FREQUENCY_THRESHOLD: Final = 0.5
# Required characters missing from the model come back at min_score + k * this (k = 0, 1, ...).
MIN_SCORE_PENALTY_DELTA: Final = 0.0001
# HF's error when the characters alone exceed the vocabulary.
VOCABULARY_TOO_SMALL: Final = "The vocabulary is not large enough to contain all chars"

_NEG_INF: Final = float("-inf")
# Bits of a code point (up to 0x10FFFF), in the keys of the pieces' trie.
_CODE_BITS: Final = 21

# What to do next (UnigramTrainingRun._next).
_NEXT_SEED: Final = 0
_NEXT_EM: Final = 1
_NEXT_PRUNE: Final = 2
_NEXT_FINALIZE: Final = 3
_NEXT_DONE: Final = 4


def digamma(x: float) -> float:
    """The digamma function (sentencepiece's series): digamma(1.0) -> -0.5772..."""
    result = 0.0
    while x < 7.0:
        result -= 1.0 / x
        x += 1.0
    x -= 0.5
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    result += (
        math.log(x)
        + (1.0 / 24.0) * xx2
        - (7.0 / 960.0) * xx4
        + (31.0 / 8064.0) * xx4 * xx2
        - (127.0 / 30720.0) * xx4 * xx4
    )
    return result


class UnigramTrainingRun(TrainingRun):
    """One Unigram training, advanced one round at a time (`step`) or to the end (`run_to_end`).

    Rounds: "seed" (the frequent substrings), then `n_sub_iterations` "EM" rounds, then a
    "prune" round, again and again until at most 1.1 x `vocab_size` pieces are left, then
    "finalize" (the required characters back in, cut to `vocab_size`, special tokens first).
    Each round ends with a forward-backward pass over every distinct word under the new pieces:
    its `log_likelihood` (sum over words of count x log P(word), the quantity EM raises) is in
    the round's record, and its expected counts feed the next EM round.

    Layout: piece ids `0 .. n_chars-1` are the single characters (they stay for the whole run: a
    character the model dropped is "absent" and scores as unknown, min_score - 10, as in
    sentencepiece's lattice); longer pieces follow and are renumbered when pieces are removed.
    Word `k` owns lattice nodes `base[k] .. base[k] + len`; the edges ending at node `t` are
    `edges[lo[t]:lo[t + 1]]`, shortest first, each packed as `piece << len_bits | length`.
    """

    # options
    _vocab_size: int
    _special_tokens: list[str]
    _unk_token: str | None
    _shrinking_factor: float
    _max_piece_length: int
    _n_sub_iterations: int
    _seed_size: int
    _initial_alphabet: list[str]
    # words, sorted in code-point order
    _word_counts: dict[str, int]
    _words: list[str]
    _counts: list[int]
    _total_count: int
    # pieces
    _pieces: list[str]
    _scores: list[float]
    _present: list[bool]
    _n_chars: int
    _required: list[str]  # the characters every final vocabulary holds (seeds.required_chars)
    # the lattices of all words (vecs: unboxed in compiled code, which the passes need)
    _len_bits: i64
    _len_mask: i64
    _base: vec[i64]
    _lo: vec[i64]
    _edges: vec[i64]
    # what the last pass computed
    _expected: vec[float]
    _viterbi_freq: vec[i64]
    _occurrence: vec[i64]
    # scratch space, one entry per lattice node, reused by every pass (each pass writes an
    # entry before it reads it)
    _node_floats: vec[float]
    _node_floats2: vec[float]
    _node_ints: vec[i64]
    _viterbi_valid: bool
    _log_likelihood: float
    _tokens: int
    # progress
    _next: int
    _sub_iteration: int
    _rounds: list[RoundStep]
    _started: float
    _final: list[tuple[str, float]]
    _released: bool

    def __init__(
        self,
        word_counts: dict[str, int],
        vocab_size: int,
        special_tokens: list[str],
        unk_token: str | None,
        shrinking_factor: float,
        max_piece_length: int,
        n_sub_iterations: int,
        seed_size: int,
        initial_alphabet: list[str],
    ) -> None:
        """Usually made by `UnigramTrainer.start`; the options mean what the trainer's do."""
        self._vocab_size = vocab_size
        self._special_tokens = list(special_tokens)
        self._unk_token = unk_token
        self._shrinking_factor = shrinking_factor
        self._max_piece_length = max_piece_length
        self._n_sub_iterations = n_sub_iterations
        self._seed_size = seed_size
        self._initial_alphabet = list(initial_alphabet)
        self._word_counts = word_counts
        self._words = []
        self._counts = []
        self._total_count = 0
        self._pieces = []
        self._scores = []
        self._present = []
        self._n_chars = 0
        self._required = []
        self._len_bits = max(max_piece_length, 1).bit_length()
        self._len_mask = (1 << self._len_bits) - 1
        self._drop_lattices()
        self._viterbi_valid = False
        self._log_likelihood = 0.0
        self._tokens = 0
        self._next = _NEXT_SEED
        self._sub_iteration = 0
        self._rounds = []
        self._started = time.perf_counter()
        self._final = []
        self._released = False

    # -- the contract ---------------------------------------------------------------------

    def step(self) -> RoundStep | None:
        """Make the next round (seed, one EM sub-iteration, a prune, or finalize) and describe it."""
        phase = self._next
        removed = 0
        if phase == _NEXT_DONE:
            return None
        if phase == _NEXT_SEED:
            self._seed()
            name = PHASE_SEED
            self._next = _NEXT_EM if self._n_sub_iterations > 0 else self._after_prune_without_em()
            self._sub_iteration = 0
        elif phase == _NEXT_EM:
            removed = self._m_step()
            name = PHASE_EM
            self._sub_iteration += 1
            if self._sub_iteration >= self._n_sub_iterations:
                self._sub_iteration = 0
                self._next = _NEXT_FINALIZE if self.piece_count <= self._desired_size() else _NEXT_PRUNE
        elif phase == _NEXT_PRUNE:
            removed = self._prune()
            name = PHASE_PRUNE
            if removed == 0:
                self._next = _NEXT_FINALIZE  # subtle: nothing left to prune (shrinking_factor >= 1)
            elif self._n_sub_iterations > 0:
                self._next = _NEXT_EM
            else:
                self._next = self._after_prune_without_em()
        else:
            removed = self._finalize()
            name = PHASE_FINALIZE
            self._next = _NEXT_DONE
        self._viterbi_valid = False
        self._forward_backward(backward=self._next == _NEXT_EM)
        size = len(self._final) if phase == _NEXT_FINALIZE else self.piece_count
        record = RoundStep(
            len(self._rounds), name, size, removed, self._log_likelihood, time.perf_counter() - self._started
        )
        self._rounds.append(record)
        return record

    def run_to_end(self, sink: ProgressSink | None = None) -> None:
        if sink is None:
            sink = SilentProgress()
        if self._next == _NEXT_SEED:
            report(sink, STAGE_SEEDS, 0, len(self._word_counts), "words")
            self.step()
            report(sink, STAGE_SEEDS, len(self._word_counts), len(self._word_counts), "words")
        total = self.expected_rounds()
        while self._next != _NEXT_DONE:
            done = len(self._rounds) - 1
            if done > total:
                total = done
            report(sink, STAGE_EM, done, total, "rounds", self._detail())
            self.step()
        # The estimate is only an estimate: the last report says how many rounds there were.
        made = len(self._rounds) - 1
        report(sink, STAGE_EM, made, made, "rounds", self._detail())

    def top_candidates(self, k: int) -> list[PairCandidate]:
        """The `k` pieces the next prune would remove first, most removable first (empty before
        the seed round and once finalized).

        A Unigram step removes pieces rather than merging pairs, so each candidate is a piece:
        `left` is the piece, `right` the pieces that would replace it (its second-best split,
        space-separated), `count` how often the current best segmentations use it, and `score`
        the corpus log-likelihood its removal would lose (sentencepiece's pruning loss, over
        the total word count). Pieces no segmentation uses (loss 0) are left out.
        """
        if self._next == _NEXT_SEED or self._next == _NEXT_DONE or self._released or k <= 0:
            return []
        losses = self._pruning_losses()
        ranked: list[tuple[float, int]] = []
        for id in range(len(losses.values)):
            if losses.has_alternative(id):
                ranked.append((losses.values[id], id))
        ranked.sort()
        result: list[PairCandidate] = []
        for loss, id in ranked[:k]:
            replacement = " ".join([self._pieces[alt] for alt in losses.alternative(id)])
            result.append(PairCandidate(self._pieces[id], replacement, int(self._viterbi_freq[id]), loss))
        return result

    def segmentations(self, k: int) -> list[tuple[list[str], int]]:
        """The `k` most frequent words (ties: smaller word first) as their current Viterbi
        pieces; before the seed round, as single characters."""
        if self._released:
            return []
        ranked = [(-count, word) for word, count in self._word_counts.items() if count > 0]
        ranked.sort()
        result: list[tuple[list[str], int]] = []
        for neg_count, word in ranked[: max(k, 0)]:
            result.append((self._best_pieces(word), -neg_count))
        return result

    def steps_since(self, start: int) -> list[MergeStep | RoundStep]:
        steps: list[MergeStep | RoundStep] = []
        steps.extend(self._rounds[max(start, 0) :])
        return steps

    @property
    def done(self) -> bool:
        return self._next == _NEXT_DONE

    @property
    def history(self) -> TrainHistory:
        return TrainHistory("Unigram", rounds=list(self._rounds))

    @property
    def vocab(self) -> dict[str, int]:
        """token -> id of the vocabulary `apply` would give now (see `final_pieces`)."""
        vocab: dict[str, int] = {}
        pieces = self.final_pieces()
        for id in range(len(pieces)):
            vocab[pieces[id][0]] = id
        return vocab

    def release(self) -> None:
        """Drop the words and lattices; the final pieces and the history stay."""
        if self._next != _NEXT_DONE:
            self._final = self._final_pieces()
        self._released = True
        self._word_counts = {}
        self._words = []
        self._counts = []
        self._drop_lattices()

    def _drop_lattices(self) -> None:
        """No lattices, no results of a pass (before the seed round, and once released)."""
        self._base = vec[i64]()
        self._lo = vec[i64]()
        self._edges = vec[i64]()
        self._expected = vec[float]()
        self._viterbi_freq = vec[i64]()
        self._occurrence = vec[i64]()
        self._node_floats = vec[float]()
        self._node_floats2 = vec[float]()
        self._node_ints = vec[i64]()

    # -- what the run has made so far -----------------------------------------------------

    @property
    def piece_count(self) -> int:
        """How many pieces the model holds now (absent characters and special tokens not counted)."""
        count = 0
        for present in self._present:
            if present:
                count += 1
        return count

    @property
    def log_likelihood(self) -> float:
        """The corpus log-likelihood under the current pieces (0.0 before the seed round)."""
        return self._log_likelihood

    @property
    def viterbi_tokens(self) -> int:
        """How many tokens the best segmentations of all word occurrences make now."""
        if self._released or self._next == _NEXT_SEED:
            return 0
        self._ensure_viterbi()
        return self._tokens

    @property
    def pieces(self) -> list[tuple[str, float]]:
        """The model's pieces and scores now (before finalize: no special tokens, and the
        characters the model dropped are not in it)."""
        result: list[tuple[str, float]] = []
        for id in range(len(self._pieces)):
            if self._present[id]:
                result.append((self._pieces[id], self._scores[id]))
        return result

    def expected_counts(self) -> dict[str, float]:
        """How often each piece of the model occurs, in expectation over all segmentations of
        all word occurrences, under the current pieces (what the next EM round re-scores by);
        empty unless the next round is an EM round."""
        result: dict[str, float] = {}
        if self._released or self._next != _NEXT_EM:
            return result
        for id in range(len(self._pieces)):
            if self._present[id]:
                result[self._pieces[id]] = self._expected[id]
        return result

    def final_pieces(self) -> list[tuple[str, float]]:
        """The (piece, score) list `apply` gives the model: special tokens (and the unk token,
        first, when it is not one of them) at score 0.0, then the pieces by score descending
        (ties: smaller piece first). Before the run is finalized this is what finalizing now
        would keep."""
        if self._next == _NEXT_DONE or self._released:
            return list(self._final)
        return self._final_pieces()

    def unk_id(self) -> int | None:
        """The id of the unk token in `final_pieces`: its place among the special tokens, 0 when
        it was added in front of them, None without an unk token."""
        if self._unk_token is None:
            return None
        for i in range(len(self._special_tokens)):
            if self._special_tokens[i] == self._unk_token:
                return i
        return 0

    def expected_rounds(self) -> int:
        """About how many rounds the whole run makes (HF's estimate of the loops, for progress)."""
        rounds = 2 + self._n_sub_iterations
        size = self.piece_count
        desired = self._desired_size()
        if size > desired > 0 and 0.0 < self._shrinking_factor < 1.0:
            loops = int((math.log(desired) - math.log(size)) / math.log(self._shrinking_factor)) + 1
            rounds += loops * (self._n_sub_iterations + 1)
        return rounds

    # -- rounds ---------------------------------------------------------------------------

    def _desired_size(self) -> int:
        # HF: `vocab_size * 11 / 10` in integers
        return self._vocab_size * 11 // 10

    def _after_prune_without_em(self) -> int:
        return _NEXT_FINALIZE if self.piece_count <= self._desired_size() else _NEXT_PRUNE

    def _detail(self) -> str:
        if not self._rounds:
            return ""
        last = self._rounds[-1]
        return f"{last.phase}: {last.vocab_size:,} pieces, log-likelihood {last.log_likelihood:,.1f}"

    def _seed(self) -> None:
        """Sort the words, make the seed pieces and every word's lattice."""
        words, counts = self._sorted_words()
        total = 0
        for count in counts:
            total += count
        self._words = words
        self._counts = counts
        self._total_count = total
        counted = char_counts(words, counts)
        self._required = chars_by_count(counted, self._initial_alphabet)
        if len(self._required) > self._vocab_size:
            raise ValueError(VOCABULARY_TOO_SMALL)
        seeds = make_seed_pieces(words, counts, self._max_piece_length, self._seed_size, counted)
        self._pieces = seeds.pieces
        self._scores = seeds.scores
        self._present = [True] * len(seeds.pieces)
        self._n_chars = seeds.n_chars
        self._build_lattices()

    def _sorted_words(self) -> tuple[list[str], list[int]]:
        """The non-empty words counted at least once, in code-point order, and their counts."""
        words: list[str] = []
        for word, count in self._word_counts.items():
            if count > 0 and word:
                words.append(word)
        words.sort()
        counts: list[int] = []
        for word in words:
            counts.append(self._word_counts[word])
        return words, counts

    def _build_lattices(self) -> None:
        """Every word's edges: each piece ending at each node, shortest first.

        The pieces go into a trie read backwards (last character first), keyed by node and
        code point, so walking back from a node finds every piece ending there, and stops as
        soon as no piece ends that way (no string is sliced or hashed).
        """
        children: dict[int, int] = {}  # (node << _CODE_BITS) | code point -> child node
        piece_at = vec[i64]([-1])  # node -> the piece spelled by the path to it, or -1
        pieces = self._pieces
        for id in range(len(pieces)):
            piece = pieces[id]
            node: i64 = 0
            k = len(piece) - 1
            while k >= 0:
                key = (node << _CODE_BITS) | ord(piece[k])
                child: i64 = children.get(key, -1)
                if child < 0:
                    child = len(piece_at)
                    children[key] = child
                    piece_at = append(piece_at, -1)
                node = child
                k -= 1
            piece_at[node] = id
        bits = self._len_bits
        max_length = self._max_piece_length
        base = vec[i64]()
        lo = vec[i64]()
        edges = vec[i64]()
        start_node = 0
        for word in self._words:
            size = len(word)
            base = append(base, start_node)
            lo = append(lo, len(edges))  # the word's first node: no edge ends there
            for end in range(1, size + 1):
                lo = append(lo, len(edges))
                node = 0
                length: i64 = 1
                limit = end if end < max_length else max_length
                while length <= limit:
                    node = children.get((node << _CODE_BITS) | ord(word[end - length]), -1)
                    if node < 0:
                        break
                    found = piece_at[node]
                    if found >= 0:
                        edges = append(edges, (found << bits) | length)
                    length += 1
            start_node += size + 1
        lo = append(lo, len(edges))
        self._base = base
        self._lo = lo
        self._edges = edges
        self._node_floats = _filled(len(lo) - 1, 0.0)
        self._node_floats2 = _filled(len(lo) - 1, 0.0)
        self._node_ints = _int_filled(len(lo) - 1, -1)

    def _unk_score(self) -> float:
        low = float("inf")
        for id in range(len(self._scores)):
            if self._present[id] and self._scores[id] < low:
                low = self._scores[id]
        return (low if low != float("inf") else 0.0) - UNK_PENALTY

    def _edge_scores(self) -> vec[float]:
        """Each id's score in the lattices: its own, min_score - 10 for an absent character (an
        unknown), -inf for a removed piece whose edges are not dropped yet."""
        unk_score = self._unk_score()
        scores = vec[float](capacity=len(self._pieces))
        for id in range(len(self._pieces)):
            if self._present[id]:
                scores = append(scores, self._scores[id])
            elif id < self._n_chars:
                scores = append(scores, unk_score)
            else:
                scores = append(scores, _NEG_INF)
        return scores

    def _forward_backward(self, backward: bool) -> None:
        """One pass over every word: the corpus log-likelihood and, when `backward`, each
        piece's expected count (sentencepiece's E-step, its lattices' marginals).

        Forward runs in probability space, normalised at each node: `inv[t]` is 1 / c[t],
        where c[t] = alpha[t] / alpha[t-1], so an edge s -> t carries
        w = p(piece) * alpha[s] / alpha[t] = p * inv[s+1] * ... * inv[t]: the probability that
        a path into t came through it. Backward then pushes b[t] (count x the posterior that
        t is a boundary) down the edges: the edge's expected count is w * b[t]. No exp or log
        per edge; log P(word) = sum of log c[t].
        """
        scores = self._edge_scores()
        n_pieces = len(scores)
        probs = vec[float](capacity=n_pieces)
        for id in range(n_pieces):
            probs = append(probs, math.exp(scores[id]) if scores[id] != _NEG_INF else 0.0)
        edges = self._edges
        lo = self._lo
        bits = self._len_bits
        mask = self._len_mask
        inv = self._node_floats
        beta = self._node_floats2
        expected = _filled(n_pieces, 0.0)
        log_likelihood = 0.0
        words = self._words
        counts = self._counts
        bases = self._base
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
        self._expected = expected
        self._log_likelihood = log_likelihood

    def _ensure_viterbi(self) -> None:
        """The best segmentation of every word under the current pieces: how often each piece
        is used (`_viterbi_freq`), the end node of its first use (`_occurrence`), the tokens."""
        if self._viterbi_valid:
            return
        scores = self._edge_scores()
        n_pieces = len(scores)
        edges = self._edges
        lo = self._lo
        bits = self._len_bits
        mask = self._len_mask
        viterbi_freq = _int_filled(n_pieces, 0)
        occurrence = _int_filled(n_pieces, -1)
        tokens: i64 = 0
        words = self._words
        counts = self._counts
        bases = self._base
        best = self._node_floats
        back = self._node_ints
        for k in range(len(words)):
            base: i64 = bases[k]
            last: i64 = base + len(words[k])
            count: i64 = counts[k]
            best[base] = 0.0
            t: i64 = base + 1
            while t <= last:
                top = _NEG_INF
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
        self._viterbi_freq = viterbi_freq
        self._occurrence = occurrence
        self._tokens = tokens
        self._viterbi_valid = True

    def _word_viterbi(self, k: int) -> list[str]:
        """Word `k` as its best pieces under the current pieces."""
        scores = self._edge_scores()
        edges = self._edges
        lo = self._lo
        bits = self._len_bits
        mask = self._len_mask
        word = self._words[k]
        base = self._base[k]
        size = len(word)
        best = _filled(size + 1, 0.0)
        back = _int_filled(size + 1, 0)
        for u in range(1, size + 1):
            top = _NEG_INF
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

    def _m_step(self) -> int:
        """Sentencepiece's Bayesian M-step: drop pieces expected under 0.5 times, score the rest
        digamma(expected) - digamma(total); returns how many pieces left."""
        expected = self._expected
        present = self._present
        keep: list[bool] = [False] * len(self._pieces)
        total = 0.0
        for id in range(len(self._pieces)):
            if present[id] and expected[id] >= EXPECTED_FREQUENCY_THRESHOLD:
                keep[id] = True
                total += expected[id]
        log_total = digamma(total) if total > 0.0 else 0.0
        for id in range(len(self._pieces)):
            if keep[id]:
                self._scores[id] = digamma(expected[id]) - log_total
        return self._remove(keep)

    def _pruning_losses(self) -> PruningLosses:
        """For each piece, the likelihood its removal would lose and the pieces that would replace
        it (sentencepiece's PruneSentencePieces, with the Viterbi counts of the last pass).

        No replacement means: no second-best split (a single character), or the piece is not
        its own best split (loss 0.0: it can go), or no best segmentation uses it.
        """
        self._ensure_viterbi()
        n = len(self._pieces)
        freq = self._viterbi_freq
        losses = PruningLosses(n)
        total = 0.0
        for id in range(n):
            total += float(freq[id])
        if total <= 0.0 or self._total_count <= 0:
            losses.close(n)
            return losses
        log_total = math.log(total)
        scores = self._edge_scores()
        longest = 0
        for piece in self._pieces:
            if len(piece) > longest:
                longest = len(piece)
        best = _filled(longest + 1, 0.0)
        back = _int_filled(longest + 1, -1)
        for id in range(self._n_chars, n):
            losses.close(id)
            if not self._present[id] or freq[id] == 0:
                continue
            if not self._second_best(id, scores, best, back, losses):
                continue
            losses.close(id + 1)
            f = float(freq[id])
            log_prob = math.log(f) - log_total
            log_total_alt = math.log(total + f * float(losses.alternative_size(id) - 1))
            log_prob_alt = 0.0
            for alt in losses.alternative(id):
                log_prob_alt += math.log(float(freq[alt]) + f) - log_total_alt
            losses.values[id] = f / self._total_count * (log_prob - log_prob_alt)
        losses.close(n)
        return losses

    def _second_best(
        self, id: int, scores: vec[float], best: vec[float], back: vec[i64], out: PruningLosses
    ) -> bool:
        """Add to `out` the best split of piece `id` other than itself; False (nothing added)
        when some split scores higher than the piece itself (ties keep the piece). Read off a
        word that uses the piece; `best` and `back` are scratch space for its length + 1."""
        end: i64 = self._occurrence[id]
        length: i64 = len(self._pieces[id])
        start = end - length
        edges = self._edges
        lo = self._lo
        bits = self._len_bits
        mask = self._len_mask
        best[0] = 0.0
        u: i64 = 1
        while u <= length:
            top = _NEG_INF
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

    def _prune(self) -> int:
        """Keep the characters the best segmentations use and the pieces whose removal would lose
        the most likelihood, shrinking to max(shrinking_factor x size, 1.1 x vocab_size);
        returns how many pieces left. Ties of loss: the smaller id stays."""
        losses = self._pruning_losses()
        n = len(self._pieces)
        keep: list[bool] = [False] * n
        kept = 0
        for id in range(self._n_chars):
            if self._present[id] and self._viterbi_freq[id] > 0:
                keep[id] = True
                kept += 1
        size = self.piece_count
        pruned_size = int(size * self._shrinking_factor)
        if pruned_size < self._desired_size():
            pruned_size = self._desired_size()
        ranked: list[tuple[float, int]] = []
        for id in range(self._n_chars, n):
            if losses.has_alternative(id):
                ranked.append((-losses.values[id], id))
        ranked.sort()
        for _, id in ranked:
            if kept >= pruned_size:
                break
            keep[id] = True
            kept += 1
        return self._remove(keep)

    def _remove(self, keep: list[bool]) -> int:
        """Take the pieces not kept out of the model (characters become absent, longer pieces
        removed); returns how many left. Removed pieces' edges are dropped once they are an
        eighth of the longer pieces (until then they score -inf)."""
        removed = 0
        dead = 0
        n_chars = self._n_chars
        present = self._present
        for id in range(len(self._pieces)):
            if present[id] and not keep[id]:
                present[id] = False
                removed += 1
            if id >= n_chars and not present[id]:
                dead += 1
        if dead > 0 and dead * 8 >= len(self._pieces) - n_chars:
            self._compact()
        return removed

    def _compact(self) -> None:
        """Renumber the longer pieces still in the model and drop the others' edges."""
        n_chars = self._n_chars
        new_id = _int_filled(len(self._pieces), -1)
        pieces: list[str] = self._pieces[:n_chars]
        scores: list[float] = self._scores[:n_chars]
        for id in range(n_chars):
            new_id[id] = id
        for id in range(n_chars, len(self._pieces)):
            if self._present[id]:
                new_id[id] = len(pieces)
                pieces.append(self._pieces[id])
                scores.append(self._scores[id])
        bits = self._len_bits
        mask = self._len_mask
        old_edges = self._edges
        old_lo = self._lo
        edges = vec[i64](capacity=len(old_edges))
        lo = vec[i64](capacity=len(old_lo))
        t: i64 = 0
        n_nodes: i64 = len(old_lo) - 1
        while t < n_nodes:
            lo = append(lo, len(edges))
            e: i64 = old_lo[t]
            stop: i64 = old_lo[t + 1]
            while e < stop:
                packed = old_edges[e]
                p = new_id[packed >> bits]
                if p >= 0:
                    edges = append(edges, (p << bits) | (packed & mask))
                e += 1
            t += 1
        lo = append(lo, len(edges))
        self._edges = edges
        self._lo = lo
        self._pieces = pieces
        self._scores = scores
        self._present = self._present[:n_chars] + [True] * (len(pieces) - n_chars)
        self._viterbi_valid = False

    def _finalize(self) -> int:
        """Sentencepiece's FinalizeSentencePieces; the model then holds exactly the final pieces
        (so the last pass scores them). Returns how many pieces left."""
        final = self._final_pieces()
        self._final = final
        index: dict[str, int] = {}
        for id in range(len(self._pieces)):
            if self._present[id] or id < self._n_chars:
                index[self._pieces[id]] = id
        keep: list[bool] = [False] * len(self._pieces)
        for piece, score in final:
            id = index.get(piece, -1)
            if id >= 0:
                keep[id] = True
                self._scores[id] = score
        removed = self._remove(keep)
        for id in range(self._n_chars):
            if keep[id] and not self._present[id]:
                self._present[id] = True  # a required character back in the model
        return removed

    def _final_pieces(self) -> list[tuple[str, float]]:
        present_scores: dict[str, float] = {}
        low = float("inf")
        for id in range(len(self._pieces)):
            if self._present[id]:
                present_scores[self._pieces[id]] = self._scores[id]
                if self._scores[id] < low:
                    low = self._scores[id]
        if low == float("inf"):
            low = 0.0
        specials: list[tuple[str, float]] = []
        unk = self._unk_token
        if unk is not None and unk not in self._special_tokens:
            specials.append((unk, 0.0))
        for token in self._special_tokens:
            specials.append((token, 0.0))
        limit = self._vocab_size - len(specials)
        chosen: list[tuple[float, str]] = []
        inserted: set[str] = set()
        penalty = 0.0
        if self._next == _NEXT_SEED:
            words, counts = self._sorted_words()
            required = required_chars(words, counts, self._initial_alphabet)
        else:
            required = self._required
        for char in required:
            score = present_scores.get(char)
            if score is None:
                score = low + penalty
                penalty += MIN_SCORE_PENALTY_DELTA
            chosen.append((-score, char))
            inserted.add(char)
        ranked: list[tuple[float, str]] = []
        for piece, score in present_scores.items():
            if piece not in inserted:
                ranked.append((-score, piece))
        ranked.sort()
        for item in ranked:
            if len(chosen) >= limit:
                break
            chosen.append(item)
        chosen.sort()
        result = specials
        for neg_score, piece in chosen:
            result.append((piece, -neg_score))
        return result

    def _best_pieces(self, word: str) -> list[str]:
        """The word as its current best pieces, or as characters before the seed round."""
        if self._next == _NEXT_SEED or not self._words:
            return list(word)
        low = 0
        high = len(self._words)
        while low < high:
            mid = (low + high) // 2
            if self._words[mid] < word:
                low = mid + 1
            else:
                high = mid
        if low >= len(self._words) or self._words[low] != word:
            return list(word)
        return self._word_viterbi(low)


def _filled(n: i64, value: float) -> vec[float]:
    """A vec of `n` floats, each `value` (from a list: three times quicker than n appends)."""
    return vec[float]([value] * n)


def _int_filled(n: i64, value: i64) -> vec[i64]:
    """A vec of `n` ints, each `value`."""
    return vec[i64]([value] * n)


class PruningLosses:
    """What a prune weighs (`UnigramTrainingRun._pruning_losses`): per piece id, the likelihood
    its removal would lose (`values`) and the pieces that would replace it, kept flat: piece
    `id`'s replacement is `items[starts[id]:starts[id + 1]]` (empty: no replacement)."""

    values: vec[float]
    starts: vec[i64]
    items: vec[i64]

    def __init__(self, n: i64) -> None:
        self.values = _filled(n, 0.0)
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
