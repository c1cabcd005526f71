"""The trainers, as HF's `tokenizers.trainers`: BpeTrainer and WordLevelTrainer, plus `from_dict`.

Each trainer lives with its model (`engine.bpe.trainer`, `engine.wordlevel.trainer`); this module
only gathers them. WordPieceTrainer and UnigramTrainer are not implemented yet.
"""

from __future__ import annotations

from engine.bpe.model import BPE
from engine.bpe.trainer import BpeTrainer, BpeTrainingRun, MergeHistory, MergeStep, PairCandidate
from engine.errors import SchemaError, TrainerMismatchError
from engine.model import Model
from engine.trainer import Trainer
from engine.wordlevel.model import WordLevel
from engine.wordlevel.trainer import WordLevelTrainer

__all__ = [
    "BpeTrainer",
    "BpeTrainingRun",
    "MergeHistory",
    "MergeStep",
    "PairCandidate",
    "Trainer",
    "WordLevelTrainer",
    "default_trainer",
    "from_dict",
]


def default_trainer(model: Model) -> Trainer:
    """The trainer HF's `model.get_trainer()` gives: default options for this kind of model."""
    if isinstance(model, BPE):
        return BpeTrainer()
    if isinstance(model, WordLevel):
        return WordLevelTrainer()
    raise TrainerMismatchError(f"no trainer for a {type(model).__name__} model yet")


def from_dict(data: object) -> Trainer:
    """A trainer from its `to_dict()` object (as a project file keeps it)."""
    if not isinstance(data, dict):
        raise SchemaError("trainer: expected an object")
    kind = data.get("type")
    if kind == "BpeTrainer":
        return BpeTrainer.from_dict(data)
    if kind == "WordLevelTrainer":
        return WordLevelTrainer.from_dict(data)
    raise SchemaError(f"unknown trainer type {kind!r}")
