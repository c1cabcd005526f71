"""The trainer stage's contract: a `Trainer` turns word counts into a trained `Model`.

Counting words from files is `engine.corpus`'s job; the algorithms live in their packages
(`engine.bpe.trainer`, `engine.wordlevel.trainer`). Nothing here touches files.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from engine.added_vocabulary import AddedToken
from engine.model import JsonValue, Model
from engine.progress import ProgressSink


class Trainer(ABC):
    """Options for one training algorithm, and the code that runs it.

    `train` fills `model` in place (its vocabulary and merges), keeping the model's own options
    such as `unk_token` or `dropout`, like HF's `Trainer::train(&mut model)`, and returns the
    special tokens the tokenizer must add. It raises `TrainerMismatchError` for a model of
    another kind and `TrainingCancelled` when the sink asks to stop (then `model` is untouched).
    """

    special_tokens: list[AddedToken]
    show_progress: bool

    @abstractmethod
    def train(
        self, word_counts: dict[str, int], model: Model, sink: ProgressSink
    ) -> list[AddedToken]: ...

    @abstractmethod
    def to_dict(self) -> dict[str, JsonValue]:
        """The trainer's settings, as a project file keeps them (tokenizer.json does not)."""
