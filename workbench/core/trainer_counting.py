"""What a trainer's settings (its `to_dict()` object) ask of the counting before it trains: words
or whole lines (`counts_sentences`). Qt-free; no counting here.

The window's trainings, their estimates and Step by Step ask here (the command line asks its
trainer object itself), so the counts they make are the counts the trainer reads.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine import trainers
from engine.errors import EngineError
from engine.schema import JsonValue


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
