"""The Audit tab's vocabulary health and two vocabularies side by side, run in a child process
(`ChildJob`): `engine.analysis.vocab_health` on the texts chosen for the audit or on the project's
corpus, sent back as plain lists the tab lists (every token with its readable form, so that the
window parses nothing). No Qt here.
"""

from __future__ import annotations

from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Final

from engine import Tokenizer
from engine.analysis.vocab_compare import compare_vocabularies
from engine.analysis.vocab_health import vocabulary_health
from engine.corpus.units import FileSlice, training_inputs
from engine.errors import EngineError
from workbench.core.audit_texts import AuditTextError
from workbench.core.formatting import human_size
from workbench.core.vocab_reports import comparison_wire, health_wire
from workbench.jobs.children.audit import chosen_texts
from workbench.jobs.children.process import lower_priority, send_message

# Where the text comes from.
CHOSEN_TEXTS: Final = "chosen"
CORPUS: Final = "corpus"
# How much of the project's corpus is read, at most (its first bytes).
CORPUS_BYTES: Final = 20 * 1024 * 1024


def health_payload(
    tokenizers: Sequence[tuple[str, str]], source: str, texts: dict[str, object], corpus: Sequence[str], rare_below: int
) -> dict[str, object]:
    """What `health_main` (and `compare_main`, given two tokenizers) needs: tokenizers as
    (name, tokenizer.json); the text (`CHOSEN_TEXTS`: `texts` as `audit_payload` gives its
    "languages", "code" and "paths"; `CORPUS`: the project's `corpus` files); the rare bound."""
    return {
        "tokenizers": [(str(name), str(text)) for name, text in tokenizers],
        "source": str(source),
        "texts": dict(texts),
        "corpus": [str(path) for path in corpus],
        "rare_below": int(rare_below),
    }


def health_main(payload: object, connection: Connection) -> None:
    """The child: ("progress", (done, total, name)) per tokenizer, then ("done", [health, ...])
    (`health_wire`'s) or ("failed", message)."""
    _run(payload, connection, compare=False)


def compare_main(payload: object, connection: Connection) -> None:
    """The child: ("done", `comparison_wire`) for the payload's two tokenizers, or ("failed", message)."""
    _run(payload, connection, compare=True)


def _run(payload: object, connection: Connection, compare: bool) -> None:
    lower_priority()
    if not isinstance(payload, dict):
        connection.send(("failed", "the vocabulary check got no job"))
        return
    try:
        texts, label = read_texts(payload)
        answer: object = _comparison(payload, texts, label) if compare else _healths(payload, texts, label, connection)
    except (AuditTextError, EngineError, ValueError, OSError) as error:
        connection.send(("failed", str(error)))
        return
    send_message(connection, ("done", answer))


def read_texts(payload: dict[str, object]) -> tuple[list[str], str]:
    """The texts to check on, and what they are ("536 texts chosen above"; "the project's corpus:
    10,000 lines, 262.0 KB")."""
    if payload["source"] == CORPUS:
        corpus = payload["corpus"]
        assert isinstance(corpus, list)
        return _corpus_lines([str(path) for path in corpus])
    chosen = payload["texts"]
    assert isinstance(chosen, dict)
    texts = chosen_texts(chosen)
    return [body for text in texts for body in text.articles.values()], f"{len(texts)} text{'s' if len(texts) != 1 else ''} chosen above"


def _corpus_lines(files: list[str]) -> tuple[list[str], str]:
    if not files:
        raise AuditTextError("the project has no corpus files: add some in the Project panel, or check the texts chosen above")
    lines: list[str] = []
    read = 0
    for piece in training_inputs(files):
        if not isinstance(piece, FileSlice):
            continue  # (compressed, JSON Lines, Parquet: the training reads them; here plain text only)
        with open(piece.path, "rb") as stream:
            stream.seek(piece.start)
            data = stream.read(min(piece.end - piece.start, CORPUS_BYTES - read))
        read += len(data)
        lines += data.decode("utf-8", "replace").splitlines()
        if read >= CORPUS_BYTES:
            break
    if not lines:
        raise AuditTextError("the project's corpus has no plain text file to check on: check the texts chosen above")
    cut = "" if read < CORPUS_BYTES else f" (its first {human_size(CORPUS_BYTES)})"
    return lines, f"the project's corpus{cut}: {len(lines):,} lines, {human_size(read)}"


def _healths(payload: dict[str, object], texts: list[str], label: str, connection: Connection | None = None) -> list[dict[str, object]]:
    named = payload["tokenizers"]
    assert isinstance(named, list)
    found: list[dict[str, object]] = []
    for position, (name, tokenizer_json) in enumerate(named):
        if connection is not None:
            connection.send(("progress", (position, len(named), name)))
        tokenizer = Tokenizer.from_str(tokenizer_json)
        health = vocabulary_health(tokenizer, texts, int(str(payload["rare_below"])))
        found.append(health_wire(name, tokenizer, health, label))
    return found


def _comparison(payload: dict[str, object], texts: list[str], label: str) -> dict[str, object]:
    named = payload["tokenizers"]
    assert isinstance(named, list) and len(named) == 2
    (name_a, json_a), (name_b, json_b) = named
    a, b = Tokenizer.from_str(json_a), Tokenizer.from_str(json_b)
    comparison = compare_vocabularies(a, b, texts)
    return comparison_wire(name_a, name_b, comparison, label)
