"""The trainer stage, as HF's `tokenizers.trainers`: BpeTrainer, WordPieceTrainer, UnigramTrainer
and WordLevelTrainer, their runs, the records a run reports, and `from_dict`; and
SentencePieceTrainer, sentencepiece's trainer with its option names (`engine.trainers.sentencepiece`).

The contract is `base` (`Trainer`, `TrainingRun`), the records `records`; each trainer lives
with its model (`engine.models.bpe.trainer`, `engine.models.wordpiece.trainer`, `engine.models.unigram.trainer`,
`engine.models.wordlevel.trainer`) and this module gathers them.
"""

from __future__ import annotations

from engine.models.bpe.model import BPE
from engine.models.bpe.trainer import BpeTrainer, BpeTrainingRun
from engine.errors import SchemaError, TrainerMismatchError
from engine.models.base import Model
from engine.trainers.base import DEFAULT_VOCAB_SIZE, Trainer, TrainingRun
from engine.trainers.records import (
    MergeStep,
    PairCandidate,
    RoundStep,
    TrainHistory,
    TrainReport,
    step_from_dict,
)
from engine.models.unigram.model import Unigram
from engine.models.unigram.trainer import UnigramTrainer, UnigramTrainingRun
from engine.models.wordlevel.model import WordLevel
from engine.models.wordlevel.trainer import WordLevelTrainer, WordLevelTrainingRun
from engine.models.wordpiece.model import WordPiece
from engine.models.wordpiece.trainer import WordPieceTrainer, WordPieceTrainingRun
from engine.trainers.sentencepiece import SentencePieceTrainer

__all__ = [
    "DEFAULT_VOCAB_SIZE",
    "BpeTrainer",
    "BpeTrainingRun",
    "MergeStep",
    "PairCandidate",
    "RoundStep",
    "SentencePieceTrainer",
    "TrainHistory",
    "TrainReport",
    "Trainer",
    "TrainingRun",
    "UnigramTrainer",
    "UnigramTrainingRun",
    "WordLevelTrainer",
    "WordLevelTrainingRun",
    "WordPieceTrainer",
    "WordPieceTrainingRun",
    "default_trainer",
    "from_dict",
    "step_from_dict",
]


def default_trainer(model: Model) -> Trainer:
    """The trainer HF's `model.get_trainer()` gives: default options for this kind of model."""
    if isinstance(model, BPE):
        return BpeTrainer()
    if isinstance(model, WordLevel):
        return WordLevelTrainer()
    if isinstance(model, Unigram):
        return UnigramTrainer()
    if isinstance(model, WordPiece):
        return WordPieceTrainer()
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
    if kind == "UnigramTrainer":
        return UnigramTrainer.from_dict(data)
    if kind == "WordPieceTrainer":
        return WordPieceTrainer.from_dict(data)
    if kind == "SentencePieceTrainer":
        return SentencePieceTrainer.from_dict(data)
    raise SchemaError(f"unknown trainer type {kind!r}")
