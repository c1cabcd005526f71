"""Unigram training options: `UnigramTrainer`, HF's `tokenizers.trainers.UnigramTrainer`, as a
`Trainer`.

`start(word_counts)` gives a `UnigramTrainingRun` to step or run (`engine.models.unigram.training_run`:
seed, EM and pruning rounds, as sentencepiece's `unigram_model_trainer.cc`); `apply` fills a
Unigram model with what a run made. Counting words is `engine.corpus.counting`'s job.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.added_vocabulary import AddedToken
from engine.models.base import Model
from engine.schema import JsonValue
from engine.trainers.base import (
    Trainer,
    TrainingRun,
    initial_alphabet_argument,
    model_mismatch,
    non_negative,
    run_mismatch,
    share_argument,
    special_tokens_argument,
)
from engine.trainers.options import COUNT, FLAG, NUMBER, OPTIONAL_TEXT, SPECIAL_TOKENS, STRINGS, Option, TrainerOptions
from engine.models.unigram.model import Unigram
from engine.models.unigram.training_run import UnigramTrainingRun

__all__ = ["UnigramTrainer", "UnigramTrainingRun"]

# HF's defaults (`models/unigram/trainer.rs`), which differ from the other trainers'.
DEFAULT_UNIGRAM_VOCAB_SIZE: Final = 8000
DEFAULT_SHRINKING_FACTOR: Final = 0.75
DEFAULT_MAX_PIECE_LENGTH: Final = 16
DEFAULT_N_SUB_ITERATIONS: Final = 2
DEFAULT_SEED_SIZE: Final = 1_000_000


# The options of UnigramTrainer, in to_dict()'s order (`engine.trainers.options`).
OPTIONS: Final = TrainerOptions(
    "UnigramTrainer",
    [
        Option("vocab_size", COUNT, DEFAULT_UNIGRAM_VOCAB_SIZE, shown=True),
        Option("show_progress", FLAG, True),
        Option("special_tokens", SPECIAL_TOKENS, shown=True),
        Option("initial_alphabet", STRINGS),
        Option("shrinking_factor", NUMBER, DEFAULT_SHRINKING_FACTOR, shown=True),
        Option("unk_token", OPTIONAL_TEXT, shown=True),
        Option("max_piece_length", COUNT, DEFAULT_MAX_PIECE_LENGTH),
        Option("n_sub_iterations", COUNT, DEFAULT_N_SUB_ITERATIONS),
        Option("seed_size", COUNT, DEFAULT_SEED_SIZE),
    ],
)


class UnigramTrainer(Trainer):
    """Trainer capable of training a Unigram model (HF `tokenizers.trainers.UnigramTrainer`).

    `shrinking_factor`: the share of pieces each prune keeps; `max_piece_length`: the longest
    piece, in characters; `n_sub_iterations`: EM rounds between two prunes; `seed_size`: the
    most pieces the seed vocabulary holds. `unk_token` goes first in the vocabulary unless it
    is one of the `special_tokens` (which come first, in order, at score 0.0).
    """

    vocab_size: int
    show_progress: bool
    special_tokens: list[AddedToken]
    initial_alphabet: list[str]
    shrinking_factor: float
    unk_token: str | None
    max_piece_length: int
    n_sub_iterations: int
    seed_size: int

    def __init__(
        self,
        vocab_size: int = DEFAULT_UNIGRAM_VOCAB_SIZE,
        show_progress: bool = True,
        special_tokens: Sequence[str | AddedToken] | None = None,
        initial_alphabet: Sequence[str] | None = None,
        shrinking_factor: float = DEFAULT_SHRINKING_FACTOR,
        unk_token: str | None = None,
        max_piece_length: int = DEFAULT_MAX_PIECE_LENGTH,
        n_sub_iterations: int = DEFAULT_N_SUB_ITERATIONS,
        seed_size: int = DEFAULT_SEED_SIZE,
    ) -> None:
        self.vocab_size = non_negative("vocab_size", vocab_size)
        self.show_progress = show_progress
        self.special_tokens = special_tokens_argument(special_tokens)
        self.initial_alphabet = initial_alphabet_argument(initial_alphabet)
        self.shrinking_factor = share_argument("shrinking_factor", shrinking_factor, True)
        if unk_token is not None and not isinstance(unk_token, str):
            raise TypeError("unk_token must be a str or None")
        self.unk_token = unk_token
        self.max_piece_length = non_negative("max_piece_length", max_piece_length)
        self.n_sub_iterations = non_negative("n_sub_iterations", n_sub_iterations)
        self.seed_size = non_negative("seed_size", seed_size)

    def start(self, word_counts: dict[str, int]) -> UnigramTrainingRun:
        """A run over these word counts; nothing is computed until it is stepped or run."""
        return UnigramTrainingRun(
            word_counts,
            vocab_size=self.vocab_size,
            special_tokens=[token.content for token in self.special_tokens],
            unk_token=self.unk_token,
            shrinking_factor=self.shrinking_factor,
            max_piece_length=self.max_piece_length,
            n_sub_iterations=self.n_sub_iterations,
            seed_size=self.seed_size,
            initial_alphabet=self.initial_alphabet,
        )

    def check_model(self, model: Model) -> None:
        if not isinstance(model, Unigram):
            raise model_mismatch("UnigramTrainer", "Unigram", model)

    def smallest_vocab_size(self, word_counts: dict[str, int]) -> int:
        """The smallest `vocab_size` these words train to: one piece for each character they use
        and each of `initial_alphabet` (sentencepiece's required_chars). {"ab": 2, "b": 1} -> 2.
        Below it training raises `VocabularyTooSmallError`, whose `required` also counts the
        special tokens (a run's `alphabet_need`): from here up to that, the vocabulary comes out
        larger than vocab_size, as HF's does."""
        chars: set[str] = set(self.initial_alphabet)
        for word, count in word_counts.items():
            if count > 0:
                chars.update(word)
        return len(chars)

    def apply(self, run: TrainingRun, model: Model) -> list[AddedToken]:
        """Fill `model` with the pieces `run` holds now (finalized as the last round would: a
        stepped run may stop anywhere), keeping its `byte_fallback`; return the special tokens."""
        if not isinstance(model, Unigram):
            raise model_mismatch("UnigramTrainer", "Unigram", model)
        if not isinstance(run, UnigramTrainingRun):
            raise run_mismatch("UnigramTrainer", run)
        # HF replaces the model whole (`*model = finalize(...)`), keeping byte_fallback.
        model.set_pieces(run.final_pieces(), run.unk_id())
        return list(self.special_tokens)

    def to_dict(self) -> dict[str, JsonValue]:
        return OPTIONS.write(self)

    @staticmethod
    def from_dict(data: object) -> UnigramTrainer:
        return UnigramTrainer(**OPTIONS.read(data))

    def __repr__(self) -> str:
        return OPTIONS.describe(self)
