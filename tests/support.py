"""Paths and small tokenizers shared by the tests (importable as `support`: pytest puts tests/ on sys.path)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from engine import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from engine.progress import ProgressSink, TrainProgress

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "corpora"


def corpus_path(name: str) -> Path:
    """The path of a shared corpus file, or skip the test with the reason."""
    path = CORPORA / name
    if not path.is_file():
        pytest.skip(f"shared corpus {name} not found at {CORPORA}")
    return path


class Recorder(ProgressSink):
    """Keeps every progress event; asks to stop once it has `stop_after` of them (-1: never)."""

    def __init__(self, stop_after: int = -1) -> None:
        self.events: list[TrainProgress] = []
        self.stop_after = stop_after

    def report(self, event: TrainProgress) -> bool:
        self.events.append(event)
        return self.stop_after < 0 or len(self.events) < self.stop_after


def train_byte_level(lines: Iterable[str], vocab_size: int, trim_offsets: bool = False) -> Tokenizer:
    """A GPT-2-style byte-level BPE trained on `lines` (no prefix space)."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=trim_offsets)
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    tokenizer.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=alphabet, show_progress=False))
    return tokenizer
