"""BPE training options: `BpeTrainer`, HF's `tokenizers.trainers.BpeTrainer`, as a `Trainer`.

`start(word_counts)` gives a `BpeTrainingRun` to step or run (`engine.models.bpe.training_run`);
`apply` fills a BPE model with what a run made. Counting words is `engine.corpus.counting`'s job.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.added_vocabulary import AddedToken
from engine.models.bpe.model import BPE
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
from engine.trainers.options import COUNT, FLAG, OPTIONAL_COUNT, OPTIONAL_TEXT, SPECIAL_TOKENS, STRINGS, Option, TrainerOptions

__all__ = ["BpeTrainer", "BpeTrainingRun"]

# The largest count the training run holds (i64).
_MAX_COUNT: Final = (1 << 63) - 1


# The options of BpeTrainer, in to_dict()'s order (`engine.trainers.options`).
OPTIONS: Final = TrainerOptions(
    "BpeTrainer",
    [
        Option("vocab_size", COUNT, DEFAULT_VOCAB_SIZE, shown=True),
        Option("min_frequency", COUNT, 0, shown=True),
        Option("show_progress", FLAG, True),
        Option("special_tokens", SPECIAL_TOKENS, shown=True),
        Option("limit_alphabet", OPTIONAL_COUNT),
        Option("initial_alphabet", STRINGS),
        Option("continuing_subword_prefix", OPTIONAL_TEXT),
        Option("end_of_word_suffix", OPTIONAL_TEXT),
        Option("max_token_length", OPTIONAL_COUNT),
        Option("end_of_word_symbol", FLAG, False),
    ],
)


class BpeTrainer(Trainer):
    """Trainer capable of training a BPE model (HF `tokenizers.trainers.BpeTrainer`)."""

    vocab_size: int
    min_frequency: int
    show_progress: bool
    special_tokens: list[AddedToken]
    limit_alphabet: int | None
    initial_alphabet: list[str]
    continuing_subword_prefix: str | None
    end_of_word_suffix: str | None
    max_token_length: int | None
    end_of_word_symbol: bool
    progress_format: str

    def __init__(
        self,
        vocab_size: int = DEFAULT_VOCAB_SIZE,
        min_frequency: int = 0,
        show_progress: bool = True,
        special_tokens: Sequence[str | AddedToken] | None = None,
        limit_alphabet: int | None = None,
        initial_alphabet: Sequence[str] | None = None,
        continuing_subword_prefix: str | None = None,
        end_of_word_suffix: str | None = None,
        max_token_length: int | None = None,
        progress_format: str = "indicatif",
        end_of_word_symbol: bool = False,
    ) -> None:
        """`end_of_word_symbol` (ours, not HF's; needs `end_of_word_suffix`): words start as
        their chars followed by the suffix as a symbol of its own (`l o w </w>`, subword-nmt's
        and the textbooks' BPE) instead of HF's suffix glued to the last char (`l o w</w>`)."""
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
        self.max_token_length = optional_non_negative("max_token_length", max_token_length)
        if end_of_word_symbol and not end_of_word_suffix:
            raise ValueError("end_of_word_symbol needs an end_of_word_suffix (the symbol it adds, such as `</w>`)")
        self.end_of_word_symbol = end_of_word_symbol
        self.progress_format = progress_format

    def start(self, word_counts: dict[str, int]) -> BpeTrainingRun:
        """A run over these word counts; nothing is computed until it is stepped or run."""
        return BpeTrainingRun(
            word_counts,
            vocab_size=self.vocab_size,
            # subtle: the run counts in i64 (a bigger int raised ValueError in the compiled
            # build); no count is above the i64 maximum, so it stops the run as HF's u64 does
            min_frequency=min(self.min_frequency, _MAX_COUNT),
            special_tokens=[token.content for token in self.special_tokens],
            limit_alphabet=self.limit_alphabet,
            initial_alphabet=self.initial_alphabet,
            continuing_subword_prefix=self.continuing_subword_prefix,
            end_of_word_suffix=self.end_of_word_suffix,
            max_token_length=self.max_token_length,
            end_of_word_symbol=self.end_of_word_symbol,
        )

    def check_model(self, model: Model) -> None:
        if not isinstance(model, BPE):
            raise model_mismatch("BpeTrainer", "BPE", model)

    def apply(self, run: TrainingRun, model: Model) -> list[AddedToken]:
        """Fill `model` with what `run` has merged so far (a stepped run may stop anywhere) and
        return the special tokens the tokenizer must add, as `train` does at its end."""
        if not isinstance(model, BPE):
            raise model_mismatch("BpeTrainer", "BPE", model)
        if not isinstance(run, BpeTrainingRun):
            raise run_mismatch("BpeTrainer", run)
        # HF sets these two options on the model; its own options (unk_token, dropout...) stay.
        model.continuing_subword_prefix = self.continuing_subword_prefix
        # (in this order: the model refuses the flag without a suffix at any moment)
        if self.end_of_word_symbol:
            model.end_of_word_suffix = self.end_of_word_suffix
            model.end_of_word_symbol = True
        else:
            model.end_of_word_symbol = False
            model.end_of_word_suffix = self.end_of_word_suffix
        model.set_vocab_and_merges(run.vocab, run.model_merges())
        return list(self.special_tokens)

    def to_dict(self) -> dict[str, JsonValue]:
        return OPTIONS.write(self)

    @staticmethod
    def from_dict(data: object) -> BpeTrainer:
        return BpeTrainer(**OPTIONS.read(data))

    def __repr__(self) -> str:
        return OPTIONS.describe(self)
