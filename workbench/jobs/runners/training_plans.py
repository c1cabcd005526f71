"""What a training of the active tokenizer will run, worked out from the project (Qt-free).

The Train tab asks this module, not the form's widgets, what a training or a continuation
is: the `TrainingJob` the child process runs, and what its result is stored with (the word
counts' key and held-out share, what it was trained on, the undo text). Also why a tokenizer
cannot be continued, and what an estimate of a training depends on. It reads the project and
its corpus; it starts nothing (`workbench.jobs.runners.training` runs the job).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from engine.project.entry import TokenizerEntry
from engine.project.facts import TrainedOn
from engine.project.project_file import Project
from engine.schema import JsonValue
from engine.models.wordpiece.trainer import LIKELIHOOD_GAIN, RATIO
from engine.trainers.records import SCORE_COUNT, SCORE_LIKELIHOOD, SCORE_LIKELIHOOD_GAIN
from workbench.core.presets import Configuration
from workbench.core.trainer_counting import counts_sentences, keeps_counts, sample_lines_for
from workbench.core.word_count_cache import counts_key, counts_path
from workbench.jobs.children.training import TrainingJob


@dataclass(frozen=True)
class TrainingPlan:
    """A training to run: `job` for the child process; `entry`, trained with `configuration`,
    stores the result with the word counts' `counts_key` and `held_out` share and what it was
    `trained_on`; `text` names the edit for undo; `target`: the vocabulary size of a
    continuation (0 for a training), what a retry repeats."""

    entry: TokenizerEntry
    configuration: Configuration
    job: TrainingJob
    counts_key: str
    held_out: float
    trained_on: TrainedOn
    text: str
    target: int = 0


def plan_training(
    project: Project,
    fields: dict[str, str],
    counts_folder: str | None,
    entry: TokenizerEntry,
    configuration: Configuration,
    held_out: float,
    processes: int,
    sample_lines: int,
) -> TrainingPlan:
    """A training of `entry` with `configuration` on the project's corpus (`fields`: the text
    field of each file read with another field than "text"). It samples `sample_lines` lines
    (0: every line), or as many as the trainer's own `input_sentence_size` when it sets one
    (`sample_lines_for`). A BPE or SentencePiece training that reads every line keeps its
    counts (of words, or of lines for SentencePiece) for a continuation, beside the project
    saved at `counts_folder` (None: in the per-user cache, `counts_path`)."""
    pipeline, trainer = configuration
    sampled = sample_lines_for(trainer, sample_lines)
    job = TrainingJob(
        json.dumps(pipeline),
        trainer,
        [item.path for item in project.corpus],
        held_out,
        processes,
        fields=fields,
        sample_lines=sampled,
    )
    key = counts_key(project.corpus, fields, pipeline, held_out, counts_sentences(trainer))
    if keeps_counts(trainer) and sampled == 0:
        job.counts_out = counts_path(counts_folder, key)
    trained_on = TrainedOn(project.corpus, sampled, held_out)
    return TrainingPlan(entry, configuration, job, key, held_out, trained_on, f"Train “{entry.name}”")


def plan_continuation(project: Project, fields: dict[str, str], entry: TokenizerEntry, target: int) -> TrainingPlan:
    """A continuation of `entry`'s BPE or SentencePiece training to `target` tokens from the
    counts its last training kept (check `continue_reason` first): no recounting, the same
    vocabulary as one training to that size (BPE's merges made again from the first; a
    SentencePiece Unigram's rounds run again from the seed)."""
    assert entry.trainer is not None
    trainer = dict(entry.trainer)
    trainer["vocab_size"] = target
    job = TrainingJob(
        json.dumps(entry.pipeline),
        trainer,
        [item.path for item in project.corpus],
        entry.counts_held_out,
        1,
        counts_in=entry.counts_file,
        fields=fields,
    )
    before = entry.trained_on
    trained_on = TrainedOn(project.corpus, before.sample_lines if before is not None else 0, entry.counts_held_out, entry.counts_file)
    text = f"Continue “{entry.name}” to {target:,} tokens"
    return TrainingPlan(entry, (entry.pipeline, trainer), job, entry.counts_key, entry.counts_held_out, trained_on, text, target)


def continue_reason(project: Project, fields: dict[str, str], entry: TokenizerEntry | None) -> str:
    """Why `entry` cannot be continued ("" when it can): it must be a trained BPE or
    SentencePiece tokenizer (`keeps_counts`) whose last training read every line and kept
    counts that still match the project's corpus (and are of words or of lines as its trainer
    reads them)."""
    if entry is None or not entry.is_trained or entry.trainer is None:
        return "Train the tokenizer first."
    if not keeps_counts(entry.trainer):
        return "Only BPE and SentencePiece trainings can be continued."
    facts = entry.result.facts() if entry.result is not None else None
    if facts is not None and facts.sampled_lines:
        return (
            f"The last training sampled {facts.sampled_lines:,} of {facts.read_lines:,} lines "
            "and kept no word counts: train again at the larger size."
        )
    if not entry.counts_file or not os.path.isfile(entry.counts_file):
        return "No word counts were kept for this training: train it again first."
    sentences = counts_sentences(entry.trainer)
    if entry.counts_key != counts_key(project.corpus, fields, entry.pipeline, entry.counts_held_out, sentences):
        return "The corpus has changed since the word counts were kept: train again."
    return ""


def estimate_key(project: Project, fields: dict[str, str], configuration: Configuration | None, processes: int, sample_lines: int) -> str:
    """What an estimate of a training with `configuration` depends on: the settings, the
    corpus files (and their text fields), the processes and the sample ("" with no
    configuration)."""
    if configuration is None:
        return ""
    pipeline, trainer = configuration
    corpus = [(item.path, item.size, item.sha256) for item in project.corpus]
    return json.dumps([pipeline, trainer, corpus, fields, [processes, sample_lines]], sort_keys=True)


def score_name_of(trainer: dict[str, JsonValue]) -> str:
    """What ranks the merges of this trainer's run (TrainHistory.score_name): for WordPiece,
    "likelihood" by the course's ratio (its scoring "likelihood", the default) and "likelihood
    gain" by its gain; else, and for WordPiece by frequency, "count"."""
    if trainer.get("type") != "WordPieceTrainer":
        return SCORE_COUNT
    scoring = trainer.get("scoring", RATIO)
    if scoring == RATIO:
        return SCORE_LIKELIHOOD
    if scoring == LIKELIHOOD_GAIN:
        return SCORE_LIKELIHOOD_GAIN
    return SCORE_COUNT
