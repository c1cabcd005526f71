"""The Train tab's estimate, run in a child process (`workbench.jobs.runners.child_job.ChildJob`):
`estimate_main` reads a sample of the corpus with the pipeline and the trainer settings and
sends back what a training is expected to cost.

It runs the tokenizer's own normalizer and pre-tokenizer on the user's text, so they never run
in the window's process: a regex from a file someone sent could run for ever there, and compiled
code would hold the window's lock. No Qt here.
"""

from __future__ import annotations

from multiprocessing.connection import Connection

from engine import Tokenizer, trainers
from engine.errors import EngineError
from engine.analysis.estimate import TrainingEstimate, estimate_training
from engine.schema import JsonValue
from workbench.core.trainer_counting import sample_lines_for
from workbench.jobs.children.training import inputs_with_fields

def estimate_payload(
    tokenizer_json: str, trainer: dict[str, JsonValue], files: list[str], fields: dict[str, str], processes: int, sample_lines: int
) -> dict[str, object]:
    """What `estimate_main` needs, in a form that crosses to the child; the sample is the one the
    training takes (the trainer's own input_sentence_size wins: `sample_lines_for`)."""
    return {
        "tokenizer": tokenizer_json,
        "trainer": trainer,
        "files": list(files),
        "fields": dict(fields),
        "processes": processes,
        "sample_lines": sample_lines_for(trainer, sample_lines),
    }


def estimate_main(payload: object, connection: Connection) -> None:
    """The child: one estimate, sent as ("done", its fields) or ("failed", message)."""
    if not isinstance(payload, dict):
        connection.send(("failed", "the estimate got no job"))
        return
    try:
        tokenizer = Tokenizer.from_str(str(payload["tokenizer"]))
        trainer = trainers.from_dict(payload["trainer"])
        inputs = inputs_with_fields(list(payload["files"]), dict(payload["fields"]))
        estimate = estimate_training(
            tokenizer, inputs, trainer, int(payload["processes"]), sample_lines=int(payload["sample_lines"])
        )
    except EngineError as error:
        connection.send(("failed", str(error)))
        return
    connection.send(("done", estimate_fields(estimate)))


def estimate_fields(estimate: TrainingEstimate) -> tuple[int, int, int, int, float, int, float, float, str]:
    """An estimate as plain values (compiled engine objects are rebuilt, not unpickled)."""
    return (
        estimate.input_bytes, estimate.sample_bytes, estimate.sample_distinct, estimate.distinct_words, estimate.beta,
        estimate.peak_bytes, estimate.count_seconds, estimate.train_seconds, estimate.method,
    )  # fmt: skip


def estimate_from_fields(fields: object) -> TrainingEstimate:
    """The estimate `estimate_fields` gave; ValueError when `fields` is not one."""
    if not isinstance(fields, tuple) or len(fields) != 9:
        raise ValueError("not an estimate")
    return TrainingEstimate(
        int(fields[0]), int(fields[1]), int(fields[2]), int(fields[3]), float(fields[4]),
        int(fields[5]), float(fields[6]), float(fields[7]), str(fields[8]),
    )  # fmt: skip
