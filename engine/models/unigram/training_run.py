"""The Unigram EM loop: `UnigramTrainingRun`, SentencePiece's `unigram_model_trainer.cc` as a run
stepped one round at a time (seed, EM sub-iterations, pruning, finalize), with the M-step.

Seeding is `engine.models.unigram.seeds`'s; options and the Trainer API are `engine.models.unigram.trainer`'s.
The pieces and every word's lattice (built once, from the seed pieces) are
`engine.models.unigram.training_lattices`'s, the E-step and Viterbi `engine.models.unigram.lattice_passes`'s,
the pruning losses `engine.models.unigram.pruning`'s, the final vocabulary `engine.models.unigram.finalize`'s;
this module decides what each round does.
"""

from __future__ import annotations

import math
import time
from typing import Final

from engine.progress import ProgressSink, SilentProgress, report
from engine.trainers.base import AlphabetNeed, TrainingRun
from engine.trainers.piece_rules import PieceRules
from engine.trainers.records import MergeStep, PairCandidate, RoundStep, TrainHistory
from engine.models.unigram.finalize import choose_final_pieces, keep_final
from engine.models.unigram.lattice_passes import ensure_viterbi, forward_backward, word_viterbi
from engine.models.unigram.pruning import pieces_to_keep, pruning_losses
from engine.models.unigram.seeds import char_counts, chars_by_count, make_seed_pieces, required_chars
from engine.models.unigram.training_lattices import TrainingLattices

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
# HF's error when the characters alone exceed the vocabulary (a plain Exception there; a
# `VocabularyTooSmallError` here, which says how large the vocabulary must be).
VOCABULARY_TOO_SMALL: Final = "The vocabulary is not large enough to contain all chars"

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

    The pieces, the words and their lattices live in one `TrainingLattices` (its docstring has
    the layout), which every phase reads and the M-step, prune and finalize shrink.
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
    _rules: PieceRules | None  # which substrings may be seeds (sentencepiece's trainer); None: all
    _hint: str  # another way out of a too-small vocabulary than a larger one ("": none)
    _sentences: dict[str, int] | None  # what the seeds' substrings come from (None: the words)
    _word_counts: dict[str, int]
    _required: list[str]  # the characters every final vocabulary holds (seeds.required_chars)
    _counted: dict[str, int] | None  # the words' `char_counts`, once `alphabet_need` made them
    # the pieces, the words (in code-point order), their lattices and what the last pass computed
    _lattices: TrainingLattices
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
        rules: PieceRules | None = None,
        hint: str = "",
        sentences: dict[str, int] | None = None,
    ) -> None:
        """Usually made by `UnigramTrainer.start` (or `SentencePieceTrainer.start`, with `rules`
        a `hint` and the `sentences` the words come from, to seed from); the options mean what the
        trainer's do."""
        self._vocab_size = vocab_size
        self._special_tokens = list(special_tokens)
        self._unk_token = unk_token
        self._shrinking_factor = shrinking_factor
        self._max_piece_length = max_piece_length
        self._n_sub_iterations = n_sub_iterations
        self._seed_size = seed_size
        self._initial_alphabet = list(initial_alphabet)
        self._rules = rules
        self._hint = hint
        self._sentences = sentences
        self._word_counts = word_counts
        self._required = []
        self._counted = None
        self._lattices = TrainingLattices(max_piece_length)
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
        self._lattices.viterbi_valid = False
        forward_backward(self._lattices, self._next == _NEXT_EM)
        size = len(self._final) if phase == _NEXT_FINALIZE else self.piece_count
        record = RoundStep(
            len(self._rounds), name, size, removed, self._lattices.log_likelihood, time.perf_counter() - self._started
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
        lattices = self._lattices
        losses = pruning_losses(lattices)
        ranked: list[tuple[float, int]] = []
        for id in range(len(losses.values)):
            if losses.has_alternative(id):
                ranked.append((losses.values[id], id))
        ranked.sort()
        pieces = lattices.pieces
        result: list[PairCandidate] = []
        for loss, id in ranked[:k]:
            replacement = " ".join([pieces[alt] for alt in losses.alternative(id)])
            result.append(PairCandidate(pieces[id], replacement, int(lattices.viterbi_freq[id]), loss))
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
        self._sentences = None
        self._lattices.drop()

    def alphabet_need(self, sink: ProgressSink | None = None) -> AlphabetNeed:
        """The required characters (every character of the words, and the initial alphabet's)
        and the special tokens (the unk token among them), each a piece of every final
        vocabulary whatever vocab_size says: {"ab": 2, "b": 1} with unk_token "<unk>" -> 2
        characters + 1 special token. The seed round raises its error when vocab_size is below
        the characters alone (as HF does; between the two, HF's vocabulary and ours come out
        larger than vocab_size)."""
        if self._required:
            characters = len(self._required)
        else:
            counted = self._char_counts()
            characters = len(counted)
            for char in set(self._initial_alphabet):
                if char not in counted:
                    characters += 1
        special = len(self._special_tokens)
        if self._unk_token is not None and self._unk_token not in self._special_tokens:
            special += 1
        return AlphabetNeed(characters, special, hint=self._hint)

    # -- what the run has made so far -----------------------------------------------------

    @property
    def piece_count(self) -> int:
        """How many pieces the model holds now (absent characters and special tokens not counted)."""
        return self._lattices.piece_count()

    @property
    def log_likelihood(self) -> float:
        """The corpus log-likelihood under the current pieces (0.0 before the seed round)."""
        return self._lattices.log_likelihood

    @property
    def viterbi_tokens(self) -> int:
        """How many tokens the best segmentations of all word occurrences make now."""
        if self._released or self._next == _NEXT_SEED:
            return 0
        ensure_viterbi(self._lattices)
        return self._lattices.tokens

    @property
    def pieces(self) -> list[tuple[str, float]]:
        """The model's pieces and scores now (before finalize: no special tokens, and the
        characters the model dropped are not in it)."""
        lattices = self._lattices
        result: list[tuple[str, float]] = []
        for id in range(len(lattices.pieces)):
            if lattices.present[id]:
                result.append((lattices.pieces[id], lattices.scores[id]))
        return result

    def expected_counts(self) -> dict[str, float]:
        """How often each piece of the model occurs, in expectation over all segmentations of
        all word occurrences, under the current pieces (what the next EM round re-scores by);
        empty unless the next round is an EM round."""
        result: dict[str, float] = {}
        if self._released or self._next != _NEXT_EM:
            return result
        lattices = self._lattices
        for id in range(len(lattices.pieces)):
            if lattices.present[id]:
                result[lattices.pieces[id]] = lattices.expected[id]
        return result

    def final_pieces(self) -> list[tuple[str, float]]:
        """The (piece, score) list `apply` gives the model: special tokens (and the unk token,
        first, when it is not one of them) at score 0.0, then the pieces by score descending
        (ties: smaller piece first). Before the run is finalized this is what finalizing now
        would keep."""
        if self._next == _NEXT_DONE or self._released:
            return list(self._final)
        return self._final_pieces()

    def round_pieces(self) -> list[tuple[str, float]]:
        """The (piece, score) list of the tokenizer the run holds now: finalized as
        `final_pieces` is (special tokens first, the required characters back in) but not cut
        to `vocab_size`, every piece kept. Over the rounds, the sizes of these lists are the
        vocabulary sizes the run passes through (`engine.analysis.size_curve.round_point`).
        Once finalized (or released) it is `final_pieces`.

        Holding a -1.0, ab -2.0, b -2.5, abc -3.0 with vocab_size 3 and no special tokens:
        final_pieces [a, ab, b], round_pieces [a, ab, b, abc] (at those scores).
        """
        if self._next == _NEXT_DONE or self._released:
            return list(self._final)
        # subtle: a limit no list can reach (every piece, every required character, the
        # special tokens and the unk token), so that nothing is cut.
        limit = len(self._lattices.pieces) + len(self._required) + len(self._special_tokens) + 1
        return self._final_pieces(limit)

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
        counted = self._counted if self._counted is not None else char_counts(words, counts)
        self._counted = None
        self._required = chars_by_count(counted, self._initial_alphabet)
        if len(self._required) > self._vocab_size:
            # (HF's VOCABULARY_TOO_SMALL, saying how large the vocabulary must be)
            raise self.alphabet_need().error(self._vocab_size)
        seeds = make_seed_pieces(
            words, counts, self._max_piece_length, self._seed_size, counted, self._rules, self._sentences
        )
        self._sentences = None
        self._lattices.build(words, counts, seeds)

    def _char_counts(self) -> dict[str, int]:
        """The words' `char_counts` (kept for the seed round)."""
        if self._counted is None:
            words: list[str] = []
            counts: list[int] = []
            for word, count in self._word_counts.items():
                if count > 0 and word:
                    words.append(word)
                    counts.append(count)
            self._counted = char_counts(words, counts)
        return self._counted

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

    def _m_step(self) -> int:
        """Sentencepiece's Bayesian M-step: drop pieces expected under 0.5 times, score the rest
        digamma(expected) - digamma(total); returns how many pieces left."""
        lattices = self._lattices
        expected = lattices.expected
        present = lattices.present
        scores = lattices.scores
        keep: list[bool] = [False] * len(lattices.pieces)
        total = 0.0
        for id in range(len(lattices.pieces)):
            if present[id] and expected[id] >= EXPECTED_FREQUENCY_THRESHOLD:
                keep[id] = True
                total += expected[id]
        log_total = digamma(total) if total > 0.0 else 0.0
        for id in range(len(lattices.pieces)):
            if keep[id]:
                scores[id] = digamma(expected[id]) - log_total
        return lattices.remove(keep)

    def _prune(self) -> int:
        """Keep the characters the best segmentations use and the pieces whose removal would lose
        the most likelihood, shrinking to max(shrinking_factor x size, 1.1 x vocab_size);
        returns how many pieces left."""
        pruned_size = int(self.piece_count * self._shrinking_factor)
        if pruned_size < self._desired_size():
            pruned_size = self._desired_size()
        return self._lattices.remove(pieces_to_keep(self._lattices, pruned_size))

    def _finalize(self) -> int:
        """Sentencepiece's FinalizeSentencePieces; the model then holds exactly the final pieces
        (so the last pass scores them). Returns how many pieces left."""
        self._final = self._final_pieces()
        return keep_final(self._lattices, self._final)

    def _final_pieces(self, vocab_size: int = -1) -> list[tuple[str, float]]:
        """What finalizing now would keep (`finalize.choose_final_pieces`), cut to `vocab_size`
        (-1: the run's own)."""
        if self._next == _NEXT_SEED:
            words, counts = self._sorted_words()
            required = required_chars(words, counts, self._initial_alphabet)
        else:
            required = self._required
        size = self._vocab_size if vocab_size < 0 else vocab_size
        return choose_final_pieces(self._lattices, required, self._special_tokens, self._unk_token, size)

    def _best_pieces(self, word: str) -> list[str]:
        """The word as its current best pieces, or as characters before the seed round."""
        words = self._lattices.words
        if self._next == _NEXT_SEED or not words:
            return list(word)
        low = 0
        high = len(words)
        while low < high:
            mid = (low + high) // 2
            if words[mid] < word:
                low = mid + 1
            else:
                high = mid
        if low >= len(words) or words[low] != word:
            return list(word)
        return word_viterbi(self._lattices, low)
