"""The words Step by Step starts from, counted in a child process
(`workbench.jobs.runners.child_job.ChildJob`): `count_main` counts a corpus file or a typed text
with the pipeline (whole lines instead of words when the trainer reads them) and sends the
counts back with the opening text to measure compression on.

It runs the tokenizer's own normalizer and pre-tokenizer on the user's text, so it never runs in
the window's process: a regex from a file someone sent could run for ever there, and compiled
code would hold the window's lock. No Qt here.
"""

from __future__ import annotations

from multiprocessing.connection import Connection

from engine import Tokenizer
from engine.corpus.records import opening_text
from engine.corpus.sources import CorpusSource
from engine.errors import EngineError

# Step mode measures compression on at most this much of its text.
EVALUATION_BYTES = 64 * 1024


def count_payload(tokenizer_json: str, source: CorpusSource | None, text: str, sentences: bool = False) -> dict[str, object]:
    """What `count_main` needs: the pipeline, a corpus file (read as `source` says) or a text,
    and whether to count whole lines (`sentences`: the trainer reads them, sentencepiece's;
    `workbench.core.trainer_counting.counts_sentences`) rather than words."""
    return {
        "tokenizer": tokenizer_json,
        "source": (source.path, source.format, source.compression, source.field) if source is not None else None,
        "text": text,
        "sentences": sentences,
    }


def count_main(payload: object, connection: Connection) -> None:
    """The child: the words (or lines) of a step-mode source counted with the pipeline, sent as ("done",
    (counts, the opening text to measure compression on)) or ("failed", message)."""
    if not isinstance(payload, dict):
        connection.send(("failed", "the count got no job"))
        return
    try:
        tokenizer = Tokenizer.from_str(str(payload["tokenizer"]))
        found = payload["source"]
        sentences = payload.get("sentences") is True
        if found is not None:
            path, kind, compression, field = found
            source = CorpusSource(str(path), str(kind), str(compression), str(field))
            counts = tokenizer.count_words([source], processes=1, sentences=sentences)
            sample = opening_text(source, EVALUATION_BYTES)
        else:
            sample = str(payload["text"])
            counts = tokenizer.count_words_from_iterator(sample.split("\n"), sentences=sentences)
    except (EngineError, OSError) as error:
        connection.send(("failed", str(error)))
        return
    connection.send(("done", (counts, sample)))
