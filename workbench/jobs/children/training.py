"""A training job as the window runs it: the job's wire form, and the child process that trains.

The window never trains on its own thread: a compiled training loop holds the GIL and would
freeze the event loop (DESIGN.md). It starts `child_main` in a spawned process, which counts the
words, steps the engine's training run to the end and streams plain messages back through a
pipe. This module never imports Qt: the child must start fast and single-threaded (it may fork
counting processes of its own).

Messages, child -> window, each a tuple whose first item names it:
    ("progress", TrainProgress.to_dict())          a stage advanced
    ("steps", [MergeStep/RoundStep .to_dict()])    steps made since the last message
    ("evaluation", steps_done, chars_per_token)    the held-out text under the current vocabulary
                                                   (a Unigram run's rounds are measured too, uncut:
                                                   `round_points`, sent with the result)
    ("done", TrainingResult.to_wire())             the trained tokenizer, its project parts and what the views need
                                                   (and the child's peak memory, `peak_bytes`); megabytes, so
                                                   sent in pieces (`workbench.jobs.children.process.send_message`)
    ("cancelled",) / ("failed", message)
    ("refused", option, message)                   the trainer's `option` ("vocab_size") cannot train on
                                                   these words: too small for their alphabet
                                                   (`workbench.core.vocab_size_check`), found before any merge
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from typing import Final, Protocol

from engine import Tokenizer, trainers
from engine.errors import CorpusError, EngineError, SchemaError, TrainingCancelled, VocabularyTooSmallError
from engine.analysis.estimate import peak_rss_bytes
from engine.progress import STAGE_COMPUTE_MERGES, ProgressSink, TrainProgress
from engine.progress import report as report_progress
from engine.project.archive import Packed, Part
from engine.project.facts import TrainedOn
from engine.project.result import TrainedResult
from engine.corpus.sources import CorpusSource, source_of
from engine.schema import JsonValue, expect_object, get_bool, get_count, get_float, get_str, get_strings
from engine.trainers.base import Trainer, TrainingRun
from engine.trainers.records import MergeStep, RoundStep, TrainHistory, TrainReport
from engine.models.unigram.training_run import PHASE_FINALIZE, PHASE_SEED, STAGE_EM, UnigramTrainingRun
from engine.analysis.size_curve import RoundPoint, held_out_words, round_point
from engine.analysis.token_counts import token_statistics
from engine.analysis.vocabulary import TokenStyle, VocabularyTable
from engine.corpus.word_counts import read_counts, write_counts
from workbench.core.held_out import characters_per_token, held_out_split
from workbench.jobs.children.process import lower_priority, send_message
from workbench.core.packed import VocabularyColumns
from workbench.core.vocab_size_check import start_checked

# The trainer option a refusal names ("refused" message).
VOCAB_SIZE: Final = "vocab_size"
# The stages after the last merge: the model filled and measured, the tokens counted
# (`engine.analysis.token_counts`), then the "Finish" row (see `_Finish`).
STAGE_BUILD: Final = "Build tokenizer"
STAGE_FINISH: Final = "Finish"
FINISH_STEPS: Final = 4
# Evaluate the held-out text at most this often, in steps done (a fraction of the expected total).
EVALUATIONS: Final = 24
# ...and spend at most this share of the time on it. (A Unigram run's rounds are measured
# whatever the time: `_Streamer.measure_round`.)
EVALUATION_BUDGET: Final = 0.08


@dataclass
class TrainingJob:
    """What to train: the untrained tokenizer (its tokenizer.json), the trainer's settings, the
    corpus files, the share of the corpus held out for evaluation (taken from the end of the
    last file, never trained on), and how many processes count words.

    What is counted is what the trainer reads (`Trainer.counts_sentences`): words, or whole
    normalized lines for sentencepiece's trainer. `counts_out`: keep those counts in this table
    (for a later continuation; a table that cannot be written is skipped). `counts_in`: train
    on this table instead of counting the files (a continuation: the files then only give the
    held-out text). `fields`: path -> text field of the JSON Lines and Parquet/Arrow files read
    with another field than "text" (the others read "text"). `sample_lines` > 0: count a
    uniform random sample of that many lines (SentencePiece's input_sentence_size: the plan
    puts a SentencePieceTrainer's own here), in one process, and keep no counts."""

    tokenizer_json: str
    trainer: dict[str, JsonValue]
    files: list[str]
    held_out_fraction: float = 0.01
    processes: int = 1
    # how the vocabulary table shows whitespace (the window's View setting)
    glyphs: bool = True
    counts_out: str = ""
    counts_in: str = ""
    fields: dict[str, str] = field(default_factory=dict)
    sample_lines: int = 0

    def inputs(self) -> list[str | CorpusSource]:
        """The files as training reads them (`inputs_with_fields`)."""
        return inputs_with_fields(self.files, self.fields)

    def to_dict(self) -> dict[str, JsonValue]:
        return {
            "tokenizer": self.tokenizer_json,
            "trainer": self.trainer,
            "files": list[JsonValue](self.files),
            "held_out_fraction": self.held_out_fraction,
            "processes": self.processes,
            "glyphs": self.glyphs,
            "counts_out": self.counts_out,
            "counts_in": self.counts_in,
            "fields": dict[str, JsonValue](self.fields),
            "sample_lines": self.sample_lines,
        }

    @staticmethod
    def from_dict(data: object) -> TrainingJob:
        where = "training job"
        obj = expect_object(data, where)
        trainer = expect_object(obj.get("trainer"), f"{where}: trainer")
        fields: dict[str, str] = {}
        for path, chosen in expect_object(obj.get("fields", {}), f"{where}: fields").items():
            if not isinstance(chosen, str) or not chosen:
                raise SchemaError(f"{where}: the field of {path!r} must be a non-empty string")
            fields[path] = chosen
        return TrainingJob(
            get_str(obj, "tokenizer", where),
            trainer,
            get_strings(obj, "files", where),
            get_float(obj, "held_out_fraction", where),
            get_count(obj, "processes", where),
            get_bool(obj, "glyphs", where, True),
            get_str(obj, "counts_out", where, ""),
            get_str(obj, "counts_in", where, ""),
            fields,
            get_count(obj, "sample_lines", where, 0),
        )


@dataclass
class TrainingResult:
    """What a finished job gives the window: the trained tokenizer.json, the report (with its
    history), the project file's parts made (and packed) in the training process (the
    tokenizer.json, the history, and the vocabulary: token frequencies and example words), the
    vocabulary table and token style the vocabulary view draws, the evaluations, how much text
    was held out and, for a Unigram run, its rounds measured on the held-out lines
    (`round_points`: `engine.analysis.size_curve.RoundPoint`s, the exact size curve's points).

    Its wire form (`to_wire`) leaves the history out: the steps were streamed already, and the
    window puts them back (`from_wire`), so the last message stays cheap to read. The window
    never parses the parts: a project keeps them as they are (`engine.project.result.TrainedResult`).
    """

    tokenizer_json: str
    report: TrainReport
    tokenizer_part: Part
    history_part: Part
    vocabulary_part: Part
    evaluations: list[tuple[int, float]] = field(default_factory=list)
    held_out_bytes: int = 0
    table: VocabularyColumns | None = None
    style: TokenStyle | None = None
    # the word counts table the job kept ("" when none)
    counts_file: str = ""
    round_points: list[RoundPoint] = field(default_factory=list)

    def stored_result(
        self, counts: tuple[str, str, float] = ("", "", 0.0), trained_on: TrainedOn | None = None
    ) -> tuple[TrainedResult, tuple[VocabularyColumns, TokenStyle] | None]:
        """The result as the project keeps it (its parts as they are: `TrainedResult.made`),
        with the vocabulary table and token style the view draws when they were built."""
        stored = TrainedResult.made(
            self.tokenizer_part, self.report, self.history_part, self.vocabulary_part, self.evaluations, counts, trained_on, self.round_points
        )
        stored.vocab_size = len(self.table) if self.table is not None else 0
        shown = (self.table, self.style) if self.table is not None and self.style is not None else None
        return stored, shown

    def to_wire(self) -> dict[str, object]:
        report = self.report
        style = self.style
        return {
            "tokenizer": self.tokenizer_json,
            "report": (report.files, report.total_words, report.unique_words, report.seconds),
            "sampled": (report.sampled_lines, report.read_lines),
            "history": (report.history.algorithm, report.history.score_name, len(report.history)),
            "parts": [part_wire(self.tokenizer_part), part_wire(self.history_part), part_wire(self.vocabulary_part)],
            "evaluations": self.evaluations,
            "held_out_bytes": self.held_out_bytes,
            "table": self.table,
            "style": (style.byte_level, style.metaspace, style.prefix, style.suffix) if style is not None else None,
            "peak_bytes": report.peak_bytes,
            "counts_file": self.counts_file,
            "round_points": self.round_points,
        }

    @staticmethod
    def from_wire(data: object, merges: list[MergeStep], rounds: list[RoundStep]) -> TrainingResult:
        """The result of a `to_wire` message, its history made of the steps streamed before it.

        Raises ValueError when the message is not one, or when steps went missing."""
        if not isinstance(data, dict):
            raise ValueError("the last message is not a result")
        files, total, unique, seconds = data["report"]
        sampled, read = data.get("sampled", (0, 0))
        algorithm, score_name, count = data["history"]
        if count != len(merges) + len(rounds):
            raise ValueError(f"{count:,} steps were made but {len(merges) + len(rounds):,} arrived")
        history = TrainHistory(str(algorithm), str(score_name), merges, rounds)
        columns = data.get("table")
        style = data.get("style")
        tokenizer_part, history_part, vocabulary_part = [part_from_wire(item) for item in data["parts"]]
        return TrainingResult(
            str(data["tokenizer"]),
            TrainReport(int(files), int(total), int(unique), float(seconds), history, int(sampled), int(read)).with_costs(
                int(data["peak_bytes"]) if data.get("peak_bytes") is not None else None, None, None
            ),
            tokenizer_part,
            history_part,
            vocabulary_part,
            [(int(done), float(value)) for done, value in data["evaluations"]],
            int(data["held_out_bytes"]),
            columns if isinstance(columns, VocabularyColumns) else None,
            TokenStyle(bool(style[0]), str(style[1]), str(style[2]), str(style[3])) if style is not None else None,
            str(data.get("counts_file", "")),
            [(int(index), int(size), int(tokens), int(characters)) for index, size, tokens, characters in data.get("round_points", [])],
        )


def part_wire(part: Part) -> tuple[bytes, int, int, bytes] | tuple[bytes]:
    """A project part as it crosses to the window: its content, and its packed form when made."""
    packed = part.packed
    return (part.content,) if packed is None else (part.content, packed.crc, packed.size, packed.data)


def part_from_wire(data: object) -> Part:
    """The part `part_wire` gave; ValueError when `data` is not one."""
    if not isinstance(data, tuple) or len(data) not in (1, 4) or not isinstance(data[0], bytes):
        raise ValueError("a result's part is not bytes")
    if len(data) == 1:
        return Part(data[0])
    return Part(data[0], Packed(int(data[1]), int(data[2]), bytes(data[3])))


def inputs_with_fields(paths: Sequence[str], fields: dict[str, str]) -> list[str | CorpusSource]:
    """The files as training reads them: a file with its own text field as its `CorpusSource`.

    ["a.txt", "b.jsonl"], {"b.jsonl": "content"} -> ["a.txt", CorpusSource("b.jsonl", "jsonl", "", "content")]
    """
    inputs: list[str | CorpusSource] = []
    for path in paths:
        chosen = fields.get(path)
        inputs.append(source_of(path, chosen) if chosen else path)
    return inputs


class MessageSink(Protocol):
    """Where `train` sends its messages: the pipe to the window (a `Connection`), or whatever
    keeps them (a test's list)."""

    def send(self, message: tuple[object, ...], /) -> None: ...


class _Streamer(ProgressSink):
    """The child's progress sink: forwards progress, streams new steps, evaluates the held-out
    text now and then (a Unigram run's tokenizer, uncut, after each round that changes its
    size too: the size curve's points), and asks the run to stop once the window asked to cancel."""

    def __init__(self, connection: MessageSink, cancel: Event) -> None:
        self.connection = connection
        self.cancel = cancel
        self.run: TrainingRun | None = None
        self.trainer: Trainer | None = None
        self.evaluator: Tokenizer | None = None
        self.held_out: list[str] = []
        self.sent = 0
        self.started = time.monotonic()
        self.evaluating = 0.0
        self.next_evaluation = 0
        self.evaluations: list[tuple[int, float]] = []
        # a Unigram run's rounds: the held-out lines as the Audit tab reads them (`splitlines`),
        # their words (counted at the first round measured) and characters, the points, and
        # whether a round streamed since the last point changed the vocabulary's size
        self.round_lines: list[str] = []
        self.round_words: dict[str, int] | None = None
        self.round_characters = 0
        self.round_points: list[RoundPoint] = []
        self.resized = False

    def follow(self, run: TrainingRun, trainer: Trainer, evaluator: Tokenizer, held_out: str) -> None:
        """Follow `run`; `evaluator`, a copy of the untrained tokenizer, is filled with what the
        run made to measure the held-out text (`evaluate`, `measure_round`)."""
        self.run = run
        self.trainer = trainer
        self.evaluator = evaluator
        self.held_out = [line for line in held_out.split("\n") if line.strip()]
        self.round_lines = held_out.splitlines()
        self.started = time.monotonic()

    def report(self, event: TrainProgress) -> bool:
        if self.cancel.is_set():
            return False
        self.flush_steps()
        self.connection.send(("progress", event.to_dict()))
        if event.stage == STAGE_COMPUTE_MERGES and event.total > 0:
            self._maybe_evaluate(event.current, event.total)
        elif event.stage == STAGE_EM and event.total > 0:
            # subtle: a Unigram run's total is an estimate of its rounds; count the rounds made.
            # Its evaluations sit at the latest round's number (the seed is round 0), as the
            # rounds' own plots and table number them. The run reports once after each round
            # (before the next, and once after the last).
            self.measure_round()
            self._maybe_evaluate(max(self.sent - 1, 0), max(event.total, self.sent))
        return not self.cancel.is_set()

    def flush_steps(self) -> None:
        run = self.run
        if run is None:
            return
        steps = run.steps_since(self.sent)
        if steps:
            self.sent += len(steps)
            self.connection.send(("steps", [step.to_dict() for step in steps]))
            for step in steps:
                if isinstance(step, RoundStep) and (step.removed > 0 or step.phase in (PHASE_SEED, PHASE_FINALIZE)):
                    self.resized = True

    def _maybe_evaluate(self, done: int, total: int) -> None:
        if not self.held_out or done < self.next_evaluation:
            return
        elapsed = time.monotonic() - self.started
        if done > 0 and self.evaluating > EVALUATION_BUDGET * elapsed:
            return
        self.evaluate(done)
        self.next_evaluation = done + max(1, total // EVALUATIONS)

    def measure_round(self) -> None:
        """A Unigram run's latest round (the last streamed) measured on the held-out lines under
        the tokenizer it holds, uncut (`engine.analysis.size_curve.round_point`): the seed, each
        round that changed the vocabulary's size (a prune, an EM round that dropped pieces) and
        the last (the trained size).

        subtle: every such round, whatever the time, unlike the evaluations (EVALUATION_BUDGET):
        with a share of the time, which rounds were measured hung on the machine's load, and the
        curve's knee with them (5,833 or 8,754 for the same training of the sample). Rounds are
        tens, and each costs one pass over the held-out words (at most HELD_OUT_MAX_BYTES of
        text) with the round's pieces: a tenth of a 262 KB sample's training, less as the corpus,
        and each round's pass over it, grows."""
        run, trainer, evaluator = self.run, self.trainer, self.evaluator
        if not isinstance(run, UnigramTrainingRun) or trainer is None or evaluator is None or not self.round_lines or self.sent == 0:
            return
        if not self.resized and not run.done:
            return  # (the pieces were re-scored, not fewer: the size has its point)
        index = self.sent - 1
        if self.round_points and self.round_points[-1][0] >= index:
            return  # measured there already
        if self.round_words is None:
            evaluator.apply_training(trainer, run)  # (its special tokens added: they cut the text into words)
            self.round_words, self.round_characters = held_out_words(evaluator, self.round_lines)
        size, tokens = round_point(evaluator, run, self.round_words)
        self.round_points.append((index, size, tokens, self.round_characters))
        self.resized = False

    def evaluate(self, done: int) -> None:
        """Characters per token of the held-out text under the vocabulary made so far."""
        run, trainer, evaluator = self.run, self.trainer, self.evaluator
        if run is None or trainer is None or evaluator is None or not self.held_out:
            return
        if self.evaluations and self.evaluations[-1][0] >= done:
            return  # measured there already
        began = time.monotonic()
        evaluator.apply_training(trainer, run)
        value = characters_per_token(evaluator, self.held_out)
        self.evaluating += time.monotonic() - began
        if value > 0:
            self.evaluations.append((done, value))
            self.connection.send(("evaluation", done, value))


def train(job: TrainingJob, connection: MessageSink, cancel: Event) -> TrainingResult:
    """Run `job`, streaming messages to `connection`; raises what the engine raises."""
    started = time.monotonic()
    tokenizer = Tokenizer.from_str(job.tokenizer_json)
    trainer = trainers.from_dict(job.trainer)
    trainer.show_progress = False
    streamer = _Streamer(connection, cancel)
    sampled_lines = 0
    read_lines = 0
    if job.counts_in:
        counts = read_counts(job.counts_in)
        try:
            held_out = held_out_split(job.inputs(), job.held_out_fraction)[1]
        except CorpusError:
            held_out = ""  # the corpus has gone: a continuation trains without evaluations
    else:
        slices, held_out = held_out_split(job.inputs(), job.held_out_fraction)
        # (whole lines for a trainer that reads them, sentencepiece's; words for the others)
        sentences = trainer.counts_sentences()
        if job.sample_lines > 0:
            sampled = tokenizer.count_sampled_words(slices, job.sample_lines, streamer, sentences=sentences)
            counts, sampled_lines, read_lines = sampled.counts, sampled.kept, sampled.seen
        else:
            counts = tokenizer.count_words(slices, streamer, job.processes, sentences=sentences)
    # (refused before the counts are kept: a vocabulary smaller than its alphabet never trains)
    run = start_checked(trainer, counts, streamer)
    counts_file = job.counts_in
    if job.counts_out and job.sample_lines <= 0:
        try:
            write_counts(job.counts_out, counts)
            counts_file = job.counts_out
        except (CorpusError, OSError) as error:
            print(f"tokenizer-workbench: word counts not kept: {error}", file=sys.stderr)
    streamer.follow(run, trainer, Tokenizer.from_str(job.tokenizer_json), held_out)
    run.run_to_end(streamer)
    streamer.flush_steps()
    report_progress(streamer, STAGE_BUILD, 0, 2, "steps", "filling the model")
    history = tokenizer.apply_training(trainer, run)
    report_progress(streamer, STAGE_BUILD, 1, 2, "steps", "measuring the held-out text")
    streamer.evaluate(len(history) - 1 if history.rounds and not history.merges else len(history))
    report_progress(streamer, STAGE_BUILD, 2, 2, "steps", "built")
    report = TrainReport.of(counts, len(job.files), time.monotonic() - started, history, sampled_lines, read_lines)
    run.release()  # (its words and pairs: the memory the next stages need)
    frequencies, examples = token_statistics(tokenizer, counts, streamer)
    finish = _Finish(streamer)
    result = window_result(
        tokenizer,
        report.with_costs(peak_rss_bytes() or None, None, None),
        frequencies,
        examples,
        job.glyphs,
        finish.stage,
        streamer.evaluations,
        len(held_out.encode("utf-8")),
        counts_file,
        streamer.round_points,
    )
    finish.stage("sending the result")
    return result


def window_result(
    tokenizer: Tokenizer,
    report: TrainReport,
    frequencies: list[int],
    examples: dict[int, list[tuple[str, int]]],
    glyphs: bool,
    stage: Callable[[str], None] | None = None,
    evaluations: list[tuple[int, float]] | None = None,
    held_out_bytes: int = 0,
    counts_file: str = "",
    round_points: list[RoundPoint] | None = None,
) -> TrainingResult:
    """A trained tokenizer as the window takes it (a training's, or Step by Step's kept run):
    the project file's parts made and packed here, and the vocabulary table the view draws built
    here, so that storing it costs the window nothing but the storing. `stage(what)` names each
    step as it starts."""
    if stage is not None:
        stage("making the vocabulary table")
    table = VocabularyColumns.of(VocabularyTable.of(tokenizer, frequencies, glyphs))
    if stage is not None:
        stage("packing the result")
    stored = TrainedResult(tokenizer.to_str(), report, frequencies, examples)
    stored.vocab_size = len(table)
    steps = stored.history_part()
    assert steps is not None
    parts = [stored.tokenizer_part(), steps, stored.vocabulary_part()]
    for part in parts:
        part.pack()  # (deflated here once: every save of the project writes them as they are)
    return TrainingResult(
        stored.tokenizer_json,
        report,
        parts[0],
        parts[1],
        parts[2],
        evaluations or [],
        held_out_bytes,
        table,
        TokenStyle.of(tokenizer),
        counts_file,
        round_points or [],
    )


class _Finish:
    """The last stage, its steps named as they start (the "Finish" row): the vocabulary table,
    packing and sending the result (the window stores it: the last step). Before it, "Build
    tokenizer" and "Count tokens" have rows of their own."""

    def __init__(self, sink: ProgressSink) -> None:
        self.sink = sink
        self.done = 0

    def stage(self, what: str) -> None:
        report_progress(self.sink, STAGE_FINISH, self.done, FINISH_STEPS, "steps", what)
        self.done += 1


def child_main(job_data: dict[str, JsonValue], connection: Connection, cancel: Event) -> None:
    """The training process: one job, then exit. Every outcome ends with one final message."""
    if hasattr(os, "setpgid"):
        # its own process group, with the counting processes it forks: the window pauses
        # (SIGSTOP) and resumes them all at once
        try:
            os.setpgid(0, 0)
        except OSError:
            pass
    lower_priority()
    try:
        result = train(TrainingJob.from_dict(job_data), connection, cancel)
        send_message(connection, ("done", result.to_wire()))
    except TrainingCancelled:
        connection.send(("cancelled",))
    except VocabularyTooSmallError as error:
        connection.send(("refused", VOCAB_SIZE, str(error)))
    except EngineError as error:
        connection.send(("failed", str(error)))
    except MemoryError:
        connection.send(("failed", "the training process ran out of memory"))
    except Exception as error:  # noqa: BLE001 - reported to the window, with the trace on stderr
        traceback.print_exc()
        connection.send(("failed", f"the training process failed: {type(error).__name__}: {error}"))
    finally:
        connection.close()
