"""The workbench refuses a vocabulary smaller than its alphabet: `start_checked` starts a training
run and stops it, once the words are counted and before the first merge or round, when its
`vocab_size` cannot hold what the alphabet needs (the run's `alphabet_need`).

HF's BPE and WordPiece trainers (and so the engine's, which tests compare with HF) keep the whole
alphabet and return a larger vocabulary than asked for; HF's Unigram trainer raises below the
characters alone, and comes out larger between them and the characters plus the special tokens.
The command line and the window instead say, in the engine's one line
(`engine.errors.VocabularyTooSmallError`), how large the vocabulary must be. No Qt here.
"""

from __future__ import annotations

from engine.progress import ProgressSink
from engine.trainers.base import Trainer, TrainingRun


def start_checked(trainer: Trainer, word_counts: dict[str, int], sink: ProgressSink) -> TrainingRun:
    """`trainer.start(word_counts)`, its alphabet worked out (`sink` hears that stage; the run
    keeps it); raises VocabularyTooSmallError when `trainer.vocab_size` is below what it needs.

    BpeTrainer(vocab_size=5, special_tokens=["[UNK]"]) on 13 distinct characters -> "vocab_size 5
    is smaller than the 14 tokens the alphabet needs (13 characters + 1 special token): choose at
    least 14, or keep fewer characters with limit_alphabet".
    """
    run = trainer.start(word_counts)
    need = run.alphabet_need(sink)
    if need is not None and need.required > trainer.vocab_size:
        raise need.error(trainer.vocab_size)
    return run
