"""BPE training options: `BpeTrainer`, HF's `tokenizers.trainers.BpeTrainer`, as a `Trainer`.

`start(word_counts)` gives a `BpeTrainingRun` to step or run (`engine.bpe.training_run`);
`train` runs one to the end and fills a BPE model. Counting words is `engine.corpus`'s job.
"""

from __future__ import annotations

import gc

from engine.added_vocabulary import AddedToken
from engine.bpe.model import BPE
from engine.bpe.training_records import MergeHistory, MergeStep, PairCandidate
from engine.bpe.training_run import BpeTrainingRun
from engine.bpe.training_words import MAX_IDS
from engine.errors import TrainerMismatchError
from engine.model import JsonValue, Model
from engine.progress import ProgressSink
from engine.trainer import Trainer
from engine.trainer_options import (
    TrainerFields,
    as_special_tokens,
    first_chars,
    non_negative,
    optional_non_negative,
    special_tokens_to_json,
)

__all__ = ["BpeTrainer", "BpeTrainingRun", "MergeHistory", "MergeStep", "PairCandidate"]


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
    progress_format: str

    def __init__(
        self,
        vocab_size: int = 30000,
        min_frequency: int = 0,
        show_progress: bool = True,
        special_tokens: list[str | AddedToken] | None = None,
        limit_alphabet: int | None = None,
        initial_alphabet: list[str] | None = None,
        continuing_subword_prefix: str | None = None,
        end_of_word_suffix: str | None = None,
        max_token_length: int | None = None,
        progress_format: str = "indicatif",
    ) -> None:
        self.vocab_size = non_negative("vocab_size", vocab_size)
        if self.vocab_size > MAX_IDS:
            raise ValueError(f"vocab_size above {MAX_IDS:,} is not supported")
        self.min_frequency = non_negative("min_frequency", min_frequency)
        self.show_progress = show_progress
        self.special_tokens = as_special_tokens(special_tokens if special_tokens is not None else [])
        self.limit_alphabet = optional_non_negative("limit_alphabet", limit_alphabet)
        self.initial_alphabet = first_chars(initial_alphabet if initial_alphabet is not None else [])
        self.continuing_subword_prefix = continuing_subword_prefix
        self.end_of_word_suffix = end_of_word_suffix
        self.max_token_length = optional_non_negative("max_token_length", max_token_length)
        self.progress_format = progress_format

    def start(self, word_counts: dict[str, int]) -> BpeTrainingRun:
        """A run over these word counts; nothing is computed until it is stepped or run."""
        return BpeTrainingRun(
            word_counts,
            vocab_size=self.vocab_size,
            min_frequency=self.min_frequency,
            special_tokens=[token.content for token in self.special_tokens],
            limit_alphabet=self.limit_alphabet,
            initial_alphabet=self.initial_alphabet,
            continuing_subword_prefix=self.continuing_subword_prefix,
            end_of_word_suffix=self.end_of_word_suffix,
            max_token_length=self.max_token_length,
        )

    def train(self, word_counts: dict[str, int], model: Model, sink: ProgressSink) -> list[AddedToken]:
        if not isinstance(model, BPE):
            raise TrainerMismatchError(f"BpeTrainer can only train a BPE model, not {type(model).__name__}")
        # subtle: the cyclic GC stays off until the run's millions of objects are released:
        # turned on earlier, its first pass would walk all of them for nothing.
        enabled = gc.isenabled()
        gc.disable()
        try:
            run = self.start(word_counts)
            run.run(sink)
            special = self.apply(run, model)
            run.release()
        finally:
            if enabled:
                gc.enable()
        return special

    def apply(self, run: BpeTrainingRun, model: Model) -> list[AddedToken]:
        """Fill `model` with what `run` has merged so far (a stepped run may stop anywhere) and
        return the special tokens the tokenizer must add, as `train` does at its end."""
        if not isinstance(model, BPE):
            raise TrainerMismatchError(f"BpeTrainer can only train a BPE model, not {type(model).__name__}")
        # HF sets these two options on the model; its own options (unk_token, dropout...) stay.
        model.continuing_subword_prefix = self.continuing_subword_prefix
        model.end_of_word_suffix = self.end_of_word_suffix
        model.set_vocab_and_merges(run.vocab, run.model_merges())
        return list(self.special_tokens)

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "type": "BpeTrainer",
            "vocab_size": self.vocab_size,
            "min_frequency": self.min_frequency,
            "show_progress": self.show_progress,
            "special_tokens": special_tokens_to_json(self.special_tokens),
            "limit_alphabet": self.limit_alphabet,
            "initial_alphabet": list[JsonValue](self.initial_alphabet),
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "end_of_word_suffix": self.end_of_word_suffix,
            "max_token_length": self.max_token_length,
        }

    @staticmethod
    def from_dict(data: object) -> BpeTrainer:
        fields = TrainerFields(data, "BpeTrainer")
        return BpeTrainer(
            vocab_size=fields.integer("vocab_size", 30000),
            min_frequency=fields.integer("min_frequency", 0),
            show_progress=fields.boolean("show_progress", True),
            special_tokens=fields.special_tokens(),
            limit_alphabet=fields.optional_integer("limit_alphabet"),
            initial_alphabet=fields.strings("initial_alphabet"),
            continuing_subword_prefix=fields.optional_string("continuing_subword_prefix"),
            end_of_word_suffix=fields.optional_string("end_of_word_suffix"),
            max_token_length=fields.optional_integer("max_token_length"),
        )

    def __repr__(self) -> str:
        specials = [token.content for token in self.special_tokens]
        return f"BpeTrainer(vocab_size={self.vocab_size}, min_frequency={self.min_frequency}, special_tokens={specials!r})"
