"""The Step by Step process: it counts the words of a corpus file or a typed text with the form's
pipeline (whole lines when the trainer reads them), makes the `StepSession` and then steps it as
the window asks (`workbench.jobs.runners.child_job.ChildJob`, a talking job). No Qt here.

Neither the counting nor a step runs in the window's process: compiled code holds Python's lock,
so on a thread it would freeze the window (a Unigram seed round over a 5 MB file takes 10 s or
more), and the pipeline's regex, from a file someone sent, could run for ever there.

The first reply, once the session is made: ("started", (StepStart, StepView)). Then, one reply
per request (`workbench.core.step_session`):
    ("step", n)          -> ("stepped", StepView)    up to n steps, then a look at the run
    ("run", seconds)     -> ("stepped", StepView)    steps for about `seconds` (one at least); a
                                                     look at the run every LOOK_INTERVAL s
    ("keep", glyphs)     -> ("kept", (TrainingResult, pipeline, trainer settings)): the run as a
                                                     training's result (`training.window_result`)
Each reply comes as ("progress", reply); a failure ends the job with ("failed", message).
"""

from __future__ import annotations

import json
import time
from multiprocessing.connection import Connection
from typing import Final

from engine import Tokenizer
from engine.corpus.records import opening_text
from engine.corpus.sources import CorpusSource
from engine.errors import EngineError
from workbench.core.presets import Configuration
from workbench.core.step_session import StepSession, count_typed
from workbench.core.trainer_counting import counts_sentences
from workbench.jobs.children.process import lower_priority, send_message
from workbench.jobs.children.training import window_result

# Step mode measures compression on at most this much of its text.
EVALUATION_BYTES: Final = 64 * 1024
# While "Run to End" runs, the candidates and words are looked at (and sent) this often (s).
LOOK_INTERVAL: Final = 0.5


def step_payload(configuration: Configuration, source: CorpusSource | None, text: str) -> dict[str, object]:
    """What `step_main` needs: the pipeline and trainer settings, and a corpus file (read as
    `source` says) or, when `source` is None, a typed text (sentences, or a word<TAB>count table)."""
    return {
        "configuration": configuration,
        "source": (source.path, source.format, source.compression, source.field) if source is not None else None,
        "text": text,
    }


def payload_configuration(payload: dict[str, object]) -> Configuration:
    """The pipeline and trainer settings a payload holds (ValueError when it holds none)."""
    configuration = payload.get("configuration")
    if not (isinstance(configuration, tuple) and len(configuration) == 2 and all(isinstance(part, dict) for part in configuration)):
        raise ValueError("Step by Step got no settings to train with")
    return configuration[0], configuration[1]


def count_source(payload: dict[str, object]) -> tuple[dict[str, int], str, bool]:
    """The words of the payload's file or text counted with its pipeline (whole lines when its
    trainer reads them: `trainer_counting.counts_sentences`), the opening text to measure
    compression on, and whether they come from a file. Raises EngineError or OSError."""
    pipeline, trainer = payload_configuration(payload)
    sentences = counts_sentences(trainer)
    found = payload.get("source")
    if isinstance(found, tuple):
        path, kind, compression, field = found
        source = CorpusSource(str(path), str(kind), str(compression), str(field))
        tokenizer = Tokenizer.from_str(json.dumps(pipeline))
        counts = tokenizer.count_words([source], processes=1, sentences=sentences)
        return counts, opening_text(source, EVALUATION_BYTES), True
    text = str(payload.get("text", ""))
    return count_typed(pipeline, text, sentences), text[:EVALUATION_BYTES], False


def step_main(payload: object, connection: Connection) -> None:
    """The child: count, start the session, then answer the window's requests until it closes
    the connection (or stops the process)."""
    lower_priority()
    if not isinstance(payload, dict):
        connection.send(("failed", "Step by Step got no job"))
        return
    try:
        counts, sample, from_file = count_source(payload)
        session = StepSession(payload_configuration(payload), counts, sample, from_file)
    except (EngineError, OSError, ValueError) as error:
        connection.send(("failed", str(error)))  # (said as it is: "Cannot start: ...")
        return
    connection.send(("progress", ("started", (session.start_record(), session.view([], look=True, measure=True)))))
    looked = time.monotonic()
    while True:
        try:
            request = connection.recv()
        except (EOFError, OSError):
            return  # (the window let go of this session)
        if not isinstance(request, tuple) or not request:
            continue
        kind = request[0]
        if kind == "step":
            steps = session.step(int(request[1]))
            connection.send(("progress", ("stepped", session.view(steps, look=True, measure=True))))
            looked = time.monotonic()
        elif kind == "run":
            steps = session.step_for(float(request[1]))
            look = time.monotonic() - looked >= LOOK_INTERVAL
            if look:
                looked = time.monotonic()
            connection.send(("progress", ("stepped", session.view(steps, look=look, measure=False))))
        elif kind == "keep":
            kept = session.keep()
            glyphs = len(request) < 2 or bool(request[1])
            result = window_result(kept.tokenizer, kept.report, kept.frequencies, kept.examples, glyphs)
            send_message(connection, ("progress", ("kept", (result, kept.pipeline, kept.trainer_settings))))
