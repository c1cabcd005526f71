"""WordLevel training: `WordLevelTrainer` keeps the most frequent words, as HF's does.

Ties go to the smaller word (code-point order), so the result never depends on counting order.
The run has one step, a round that selects the words. Counting the words is `engine.corpus.counting`'s
job; looking words up is `engine.models.wordlevel.model`'s.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Final

from engine.added_vocabulary import AddedToken
from engine.models.base import Model
from engine.progress import STAGE_SORT_WORDS, ProgressSink, SilentProgress, report
from engine.schema import JsonValue
from engine.trainers.base import (
    DEFAULT_VOCAB_SIZE,
    Trainer,
    TrainingRun,
    model_mismatch,
    non_negative,
    run_mismatch,
    special_tokens_argument,
)
from engine.trainers.options import COUNT, FLAG, SPECIAL_TOKENS, Option, TrainerOptions
from engine.trainers.records import MergeStep, PairCandidate, RoundStep, TrainHistory
from engine.models.wordlevel.model import WordLevel

# The phase name of WordLevel's one round.
PHASE_SELECT: Final = "select words"


class WordLevelTrainingRun(TrainingRun):
    """One WordLevel training: a single round that keeps the most frequent words."""

    _word_counts: dict[str, int]
    _vocab_size: int
    _min_frequency: int
    _special_tokens: list[str]
    _vocab: dict[str, int]
    _rounds: list[RoundStep]
    _started: float

    def __init__(
        self, word_counts: dict[str, int], vocab_size: int, min_frequency: int, special_tokens: list[str]
    ) -> None:
        self._word_counts = word_counts
        self._vocab_size = vocab_size
        self._min_frequency = min_frequency
        self._special_tokens = special_tokens
        self._vocab = {}
        self._rounds = []
        self._started = time.perf_counter()

    def step(self) -> RoundStep | None:
        if self._rounds:
            return None
        self._vocab = self._select()
        self._rounds.append(
            RoundStep(0, PHASE_SELECT, len(self._vocab), 0, None, time.perf_counter() - self._started)
        )
        return self._rounds[0]

    def run_to_end(self, sink: ProgressSink | None = None) -> None:
        if sink is None:
            sink = SilentProgress()
        total = len(self._word_counts)
        report(sink, STAGE_SORT_WORDS, 0, total, "words")
        self.step()
        report(sink, STAGE_SORT_WORDS, total, total, "words")

    def top_candidates(self, k: int) -> list[PairCandidate]:
        return []

    def segmentations(self, k: int) -> list[tuple[list[str], int]]:
        """The `k` most frequent words; each is one token once selected, or none before."""
        ranked = [(-count, word) for word, count in self._word_counts.items()]
        ranked.sort()
        result: list[tuple[list[str], int]] = []
        for neg_count, word in ranked[: max(k, 0)]:
            result.append(([word] if word in self._vocab else [], -neg_count))
        return result

    def steps_since(self, start: int) -> list[MergeStep | RoundStep]:
        steps: list[MergeStep | RoundStep] = []
        steps.extend(self._rounds[max(start, 0) :])
        return steps

    @property
    def done(self) -> bool:
        return bool(self._rounds)

    @property
    def history(self) -> TrainHistory:
        return TrainHistory("WordLevel", rounds=list(self._rounds))

    @property
    def vocab(self) -> dict[str, int]:
        return dict(self._vocab)

    def release(self) -> None:
        self._word_counts = {}

    def _select(self) -> dict[str, int]:
        """Special tokens, then words by count descending (ties: smaller word first) with at least
        `min_frequency` occurrences; `vocab_size` entries in all, ids in that order.

        subtle: HF collects (token, id) pairs into a map, so a word equal to a special token keeps
        its later id and the earlier id is left unused; the same happens here.
        """
        ranked = [(-count, word) for word, count in self._word_counts.items() if count >= self._min_frequency]
        ranked.sort()
        vocab: dict[str, int] = {}
        next_id = 0
        for token in self._special_tokens:
            if next_id >= self._vocab_size:
                return vocab
            vocab[token] = next_id
            next_id += 1
        for _, word in ranked:
            if next_id >= self._vocab_size:
                break
            vocab[word] = next_id
            next_id += 1
        return vocab


# The options of WordLevelTrainer, in to_dict()'s order (`engine.trainers.options`).
OPTIONS: Final = TrainerOptions(
    "WordLevelTrainer",
    [
        Option("vocab_size", COUNT, DEFAULT_VOCAB_SIZE, shown=True),
        Option("min_frequency", COUNT, 0, shown=True),
        Option("show_progress", FLAG, True),
        Option("special_tokens", SPECIAL_TOKENS, shown=True),
    ],
)


class WordLevelTrainer(Trainer):
    """Trainer capable of training a WordLevel model (HF `tokenizers.trainers.WordLevelTrainer`)."""

    vocab_size: int
    min_frequency: int
    show_progress: bool
    special_tokens: list[AddedToken]

    def __init__(
        self,
        vocab_size: int = DEFAULT_VOCAB_SIZE,
        min_frequency: int = 0,
        show_progress: bool = True,
        special_tokens: Sequence[str | AddedToken] | None = None,
    ) -> None:
        self.vocab_size = non_negative("vocab_size", vocab_size)
        self.min_frequency = non_negative("min_frequency", min_frequency)
        self.show_progress = show_progress
        self.special_tokens = special_tokens_argument(special_tokens)

    def start(self, word_counts: dict[str, int]) -> WordLevelTrainingRun:
        return WordLevelTrainingRun(
            word_counts, self.vocab_size, self.min_frequency, [token.content for token in self.special_tokens]
        )

    def build_vocab(self, word_counts: dict[str, int]) -> dict[str, int]:
        """The vocabulary a training on these counts makes (see `WordLevelTrainingRun._select`)."""
        run = self.start(word_counts)
        run.step()
        return run.vocab

    def check_model(self, model: Model) -> None:
        if not isinstance(model, WordLevel):
            raise model_mismatch("WordLevelTrainer", "WordLevel", model)

    def apply(self, run: TrainingRun, model: Model) -> list[AddedToken]:
        if not isinstance(model, WordLevel):
            raise model_mismatch("WordLevelTrainer", "WordLevel", model)
        if not isinstance(run, WordLevelTrainingRun):
            raise run_mismatch("WordLevelTrainer", run)
        model.set_vocab(run.vocab)
        return list(self.special_tokens)

    def to_dict(self) -> dict[str, JsonValue]:
        return OPTIONS.write(self)

    @staticmethod
    def from_dict(data: object) -> WordLevelTrainer:
        return WordLevelTrainer(**OPTIONS.read(data))

    def __repr__(self) -> str:
        return OPTIONS.describe(self)
