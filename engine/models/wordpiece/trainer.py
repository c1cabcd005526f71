"""WordPiece training: `WordPieceTrainer`, HF's `tokenizers.trainers.WordPieceTrainer`, the
algorithm the HF course teaches and the one the WordPiece paper describes.

Three scorings choose the next pair: "likelihood" (the default: the course's ratio
`count(ab) / (count(a) * count(b))`, `engine.models.wordpiece.training_run`), "likelihood_gain"
(how much merging raises the words' log-likelihood under a unigram model of their symbols,
`engine.models.wordpiece.likelihood_gain`) and "frequency" (what HF's trainer does: BPE by pair
count with the `##` prefix, read as a WordPiece vocabulary; its vocabulary equals HF's).
Counting words is `engine.corpus.counting`'s job.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.added_vocabulary import AddedToken
from engine.models.bpe.pair_index import PairMergeRun
from engine.models.bpe.training_run import BpeTrainingRun
from engine.models.bpe.training_words import MAX_IDS
from engine.models.base import Model
from engine.schema import JsonValue
from engine.trainers.base import (
    DEFAULT_VOCAB_SIZE,
    Trainer,
    TrainingRun,
    initial_alphabet_argument,
    model_mismatch,
    non_negative,
    optional_non_negative,
    run_mismatch,
    special_tokens_argument,
)
from engine.trainers.options import COUNT, FLAG, OPTIONAL_COUNT, OPTIONAL_TEXT, SPECIAL_TOKENS, STRINGS, TEXT, Option, TrainerOptions
from engine.errors import SchemaError
from engine.models.wordpiece.likelihood_gain import LikelihoodGainRun
from engine.models.wordpiece.model import WordPiece
from engine.models.wordpiece.training_run import WordPieceTrainingRun

# The scorings, as `scoring` and the trainer's JSON name them.
# subtle: the course's ratio is "likelihood" because that is what every project and trainer
# file written before the likelihood gain existed says, and what they must keep training; the
# gain, which the name would fit better, got a name no earlier file can hold.
RATIO: Final = "likelihood"
LIKELIHOOD: Final = RATIO
LIKELIHOOD_GAIN: Final = "likelihood_gain"
FREQUENCY: Final = "frequency"
SCORINGS: Final = (RATIO, LIKELIHOOD_GAIN, FREQUENCY)
SCORING_CHOICES: Final = "'likelihood' (the course's ratio), 'likelihood_gain' or 'frequency' (HF's)"

__all__ = [
    "FREQUENCY", "LIKELIHOOD", "LIKELIHOOD_GAIN", "RATIO", "LikelihoodGainRun", "WordPieceTrainer", "WordPieceTrainingRun",
]


# The options of WordPieceTrainer, in to_dict()'s order (`engine.trainers.options`).
OPTIONS: Final = TrainerOptions(
    "WordPieceTrainer",
    [
        Option("vocab_size", COUNT, DEFAULT_VOCAB_SIZE, shown=True),
        Option("min_frequency", COUNT, 0, shown=True),
        Option("show_progress", FLAG, True),
        Option("special_tokens", SPECIAL_TOKENS, shown=True),
        Option("limit_alphabet", OPTIONAL_COUNT),
        Option("initial_alphabet", STRINGS),
        Option("continuing_subword_prefix", OPTIONAL_TEXT),
        Option("end_of_word_suffix", OPTIONAL_TEXT),
        Option("scoring", TEXT, RATIO, shown=True),
    ],
)


class WordPieceTrainer(Trainer):
    """Trainer capable of training a WordPiece model (HF `tokenizers.trainers.WordPieceTrainer`,
    plus `scoring`, which chooses the pair merged next):

    - "likelihood" (the default): the highest `count(ab) / (count(a) * count(b))`, the formula
      the HF course teaches (and often explained as "the pair that raises the likelihood
      most", hence the name). It favours rare pairs: a pair seen once, of symbols seen once,
      scores 1, the most any pair can, so rare words are merged whole before common pieces.
    - "likelihood_gain": the largest rise in the training words' log-likelihood under a
      unigram model of their symbols, as the WordPiece paper picks units; to first order
      `count(ab) * log(count(ab) * N / (count(a) * count(b))) - count(ab)`, N all symbols
      (computed exactly: `engine.models.wordpiece.likelihood_gain`). The BERT preset's.
    - "frequency": the most frequent pair, as HF's WordPieceTrainer (BPE with `##`
      continuations): HF's vocabulary.

    Ties go to the more frequent pair, then to the smaller pair of ids (left, then right) under
    both scores, and as HF's queue does under frequency (`engine.models.bpe.training_run`).
    Files written before "likelihood_gain" existed all say "likelihood" or "frequency" and
    keep training what they trained.
    """

    vocab_size: int
    min_frequency: int
    show_progress: bool
    special_tokens: list[AddedToken]
    limit_alphabet: int | None
    initial_alphabet: list[str]
    continuing_subword_prefix: str
    end_of_word_suffix: str | None
    scoring: str

    def __init__(
        self,
        vocab_size: int = DEFAULT_VOCAB_SIZE,
        min_frequency: int = 0,
        show_progress: bool = True,
        special_tokens: Sequence[str | AddedToken] | None = None,
        limit_alphabet: int | None = None,
        initial_alphabet: Sequence[str] | None = None,
        continuing_subword_prefix: str = "##",
        end_of_word_suffix: str | None = None,
        scoring: str = RATIO,
    ) -> None:
        self.vocab_size = non_negative("vocab_size", vocab_size)
        if self.vocab_size > MAX_IDS:
            raise ValueError(f"vocab_size above {MAX_IDS:,} is not supported")
        self.min_frequency = non_negative("min_frequency", min_frequency)
        self.show_progress = show_progress
        self.special_tokens = special_tokens_argument(special_tokens)
        self.limit_alphabet = optional_non_negative("limit_alphabet", limit_alphabet)
        self.initial_alphabet = initial_alphabet_argument(initial_alphabet)
        self.continuing_subword_prefix = continuing_subword_prefix
        self.end_of_word_suffix = end_of_word_suffix
        if scoring not in SCORINGS:
            raise ValueError(f"scoring must be {SCORING_CHOICES}, got {scoring!r}")
        self.scoring = scoring

    def start(self, word_counts: dict[str, int]) -> PairMergeRun:
        """A run over these word counts (a `WordPieceTrainingRun`, a `LikelihoodGainRun`, or with
        `scoring="frequency"` HF's BPE run); nothing is computed until it is stepped or run."""
        run_class: type[PairMergeRun] = WordPieceTrainingRun
        if self.scoring == FREQUENCY:
            run_class = BpeTrainingRun
        elif self.scoring == LIKELIHOOD_GAIN:
            run_class = LikelihoodGainRun
        return run_class(
            word_counts,
            vocab_size=self.vocab_size,
            min_frequency=self.min_frequency,
            special_tokens=[token.content for token in self.special_tokens],
            limit_alphabet=self.limit_alphabet,
            initial_alphabet=self.initial_alphabet,
            continuing_subword_prefix=self.continuing_subword_prefix,
            end_of_word_suffix=self.end_of_word_suffix,
        )

    def check_model(self, model: Model) -> None:
        if not isinstance(model, WordPiece):
            raise model_mismatch("WordPieceTrainer", "WordPiece", model)

    def apply(self, run: TrainingRun, model: Model) -> list[AddedToken]:
        """Give `model` the vocabulary `run` has made so far and the trainer's prefix (HF moves
        exactly these two; the model's unk_token and max_input_chars_per_word stay)."""
        if not isinstance(model, WordPiece):
            raise model_mismatch("WordPieceTrainer", "WordPiece", model)
        if not isinstance(run, PairMergeRun):
            raise run_mismatch("WordPieceTrainer", run)
        model.set_vocab(run.vocab)
        model.continuing_subword_prefix = self.continuing_subword_prefix
        return list(self.special_tokens)

    def to_dict(self) -> dict[str, JsonValue]:
        return OPTIONS.write(self)

    @staticmethod
    def from_dict(data: object) -> WordPieceTrainer:
        arguments = OPTIONS.read(data)
        if arguments["scoring"] not in SCORINGS:
            raise SchemaError(f"WordPieceTrainer: unknown scoring {arguments['scoring']!r}, expected {SCORING_CHOICES}")
        # (an empty or null prefix is WordPiece's "##", as the constructor's default)
        arguments["continuing_subword_prefix"] = arguments["continuing_subword_prefix"] or "##"
        return WordPieceTrainer(**arguments)

    def __repr__(self) -> str:
        return OPTIONS.describe(self)
