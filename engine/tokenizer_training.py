"""What training a `Tokenizer` does around its trainer: the inputs counted into words (every line,
or a random sample of lines), the counts handed to the trainer with the tokenizer's model, the
trainer's special tokens added to the tokenizer's vocabulary, and the report of the run.

`Tokenizer.train`, `train_from_iterator`, `train_from_counts` and `apply_training` keep HF's API
and hand their work to the functions of the same names here, once per training, with the parts
of the tokenizer a training reads and fills (its model, added vocabulary, normalizer, and the
word splitter made of them): this module never sees a `Tokenizer`. Not here: how a line is split
into words (the tokenizer's word splitter), reading and counting the inputs
(`engine.corpus.counting`), and the training algorithms (`engine.trainers`, `engine.models`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from engine.added_vocabulary import AddedVocabulary
from engine.corpus import counting
from engine.corpus.counting import WordSplitter
from engine.corpus.sources import CorpusSource
from engine.corpus.units import FileSlice, training_inputs
from engine.errors import CorpusError
from engine.models.base import Model
from engine.normalizers import Normalizer
from engine.progress import ProgressSink, SilentProgress, TextProgress
from engine.trainers import default_trainer
from engine.trainers.base import Trainer, TrainingRun
from engine.trainers.records import TrainHistory, TrainReport


def train(
    model: Model,
    added: AddedVocabulary,
    normalizer: Normalizer | None,
    words: WordSplitter,
    files: Sequence[str | FileSlice | CorpusSource],
    trainer: Trainer | None,
    progress: ProgressSink | None,
    processes: int,
    field: str,
    include: Sequence[str],
    exclude: Sequence[str],
    sample_lines: int,
    seed: int,
) -> TrainReport:
    """`Tokenizer.train`: the inputs' words counted (a sample of `sample_lines` lines and records
    when > 0, in one process; else every line, in `processes`), split by `words`, then trained on."""
    started = time.monotonic()
    chosen = trainer if trainer is not None else default_trainer(model)
    sink = _sink_for(chosen, progress)
    if not files:
        raise CorpusError("<no files>", "no training files given")
    units = training_inputs(files, field, include, exclude)
    paths: set[str] = set()
    for unit in units:
        paths.add(unit.path)
    if sample_lines > 0:
        sampled = counting.count_sampled_words(units, words, sink, sample_lines, seed, field)
        return _train_on_counts(
            model, added, normalizer, sampled.counts, chosen, sink, len(paths), started, True, sampled.kept, sampled.seen
        )
    counts = counting.count_words(units, words, sink, processes)
    return _train_on_counts(model, added, normalizer, counts, chosen, sink, len(paths), started, True)


def train_from_iterator(
    model: Model,
    added: AddedVocabulary,
    normalizer: Normalizer | None,
    words: WordSplitter,
    iterator: Iterable[str] | Iterable[list[str]],
    trainer: Trainer | None,
    length: int | None,
    progress: ProgressSink | None,
) -> TrainReport:
    """`Tokenizer.train_from_iterator`: the words of the texts (each split whole) counted, then trained on."""
    started = time.monotonic()
    chosen = trainer if trainer is not None else default_trainer(model)
    sink = _sink_for(chosen, progress)
    counts = counting.count_words_from_iterator(counting.flatten(iterator), words, sink, length)
    return _train_on_counts(model, added, normalizer, counts, chosen, sink, 0, started, True)


def train_from_counts(
    model: Model,
    added: AddedVocabulary,
    normalizer: Normalizer | None,
    word_counts: dict[str, int],
    trainer: Trainer | None,
    progress: ProgressSink | None,
) -> TrainReport:
    """`Tokenizer.train_from_counts`: a training on counts the caller keeps (they stay as they are)."""
    started = time.monotonic()
    chosen = trainer if trainer is not None else default_trainer(model)
    return _train_on_counts(model, added, normalizer, word_counts, chosen, _sink_for(chosen, progress), 0, started)


def apply_training(
    model: Model, added: AddedVocabulary, normalizer: Normalizer | None, trainer: Trainer, run: TrainingRun
) -> TrainHistory:
    """`Tokenizer.apply_training`: the model filled with what `run` has made so far, the
    trainer's special tokens added; the run's history."""
    special = trainer.apply(run, model)
    added.add_tokens(special, model, normalizer)
    return run.history


def _train_on_counts(
    model: Model,
    added: AddedVocabulary,
    normalizer: Normalizer | None,
    counts: dict[str, int],
    trainer: Trainer,
    sink: ProgressSink,
    files: int,
    started: float,
    owned: bool = False,
    sampled_lines: int = 0,
    read_lines: int = 0,
) -> TrainReport:
    """`owned`: the tokenizer counted `counts` for this training, which may empty the dict."""
    # (a builtin's loop: this module is compiled at -O0, where a loop of our own over every
    # word would cost several times what it did at the default level)
    total = sum(counts.values())
    unique = len(counts)
    special, history = trainer.train_and_record(counts, model, sink, owned)
    added.add_tokens(special, model, normalizer)
    seconds = time.monotonic() - started
    return TrainReport(files, total, unique, seconds, history, sampled_lines, read_lines)


def _sink_for(trainer: Trainer, progress: ProgressSink | None) -> ProgressSink:
    if progress is not None:
        return progress
    return TextProgress() if trainer.show_progress else SilentProgress()
