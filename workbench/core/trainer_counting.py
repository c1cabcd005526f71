"""What a trainer's settings (its `to_dict()` object) ask of the counting before it trains: words
or whole lines (`counts_sentences`), and how many lines it samples (`sample_lines_for`: a
SentencePieceTrainer's `input_sentence_size`). Also which trainings keep their counts for
Continue (`keeps_counts`). Qt-free; no counting here.

The window's training and estimate, Step by Step and the command line all ask here, so the
counts one of them makes are the counts the trainer reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from engine import trainers
from engine.errors import EngineError
from engine.schema import JsonValue
from workbench.core.components import SENTENCEPIECE_TRAINER

# The trainers whose trainings keep their counts and can be continued from them (a larger or
# smaller vocabulary trained again from the kept counts, as one run to that size would).
CONTINUABLE: Final = ("BpeTrainer", SENTENCEPIECE_TRAINER)


def counts_sentences(trainer: Mapping[str, JsonValue] | None) -> bool:
    """Whether the trainer of these settings reads whole normalized lines rather than words
    (`Trainer.counts_sentences`: sentencepiece's does); False for settings that make no trainer.

    {"type": "SentencePieceTrainer", "model_type": "bpe"} -> True; {"type": "BpeTrainer"} -> False."""
    if trainer is None:
        return False
    try:
        return trainers.from_dict(dict(trainer)).counts_sentences()
    except (EngineError, ValueError, TypeError):
        return False  # (settings that cannot train count nothing)


def trainer_sample_lines(trainer: Mapping[str, JsonValue] | None) -> int:
    """How many lines the trainer itself asks training to sample: a SentencePieceTrainer's
    `input_sentence_size` (sentencepiece's option; 0: every line); 0 for the others."""
    if trainer is None or trainer.get("type") != SENTENCEPIECE_TRAINER:
        return 0
    size = trainer.get("input_sentence_size", 0)
    return size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else 0


def sample_lines_for(trainer: Mapping[str, JsonValue] | None, asked: int) -> int:
    """The lines a training samples: the trainer's own `input_sentence_size` when it sets one
    (it wins), else `asked` (the Sample field, `--input-sentence-size`; 0: every line)."""
    own = trainer_sample_lines(trainer)
    return own if own > 0 else asked


def keeps_counts(trainer: Mapping[str, JsonValue] | None) -> bool:
    """Whether a training with these settings keeps its counts (when it reads every line) so
    that Continue can train again from them: BPE's and sentencepiece's (both model types)."""
    return trainer is not None and trainer.get("type") in CONTINUABLE
