"""The Audit tab's measuring, run in a child process (`workbench.jobs.runners.child_job.ChildJob`):
`audit_main` encodes the chosen texts with each tokenizer, reporting each text as it is done,
and sends back every figure in plain form, with the CSV and the HTML report already written
(the window only saves them). No Qt here.

An audit of two tokenizers over every shipped text takes seconds of compiled code that holds
Python's lock: in a thread of the window's process it would freeze the window throughout.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection

from engine import Tokenizer
from engine.analysis.audit import (
    COMPRESSION_NOTE,
    CSV_COLUMNS,
    AuditText,
    EmbeddingCost,
    TextCost,
    add_premiums,
    byte_fallback_ids,
    measure,
)
from engine.errors import EngineError
from workbench.core.audit_report import (
    TokenizerFile,
    csv_text,
    embedding_note,
    embedding_rows,
    embedding_table,
    html_report,
    premium_series,
    script_medians,
    summary_table,
    uncovered_languages,
)
from workbench.core.audit_texts import AuditTextError, shipped_code, shipped_languages, user_texts
from workbench.core.parallel_text import udhr_source
from workbench.jobs.children.process import lower_priority, send_message

# How often the child reports, at most (s): a record per text would be 900 messages.
PROGRESS_INTERVAL_S = 0.1


def audit_payload(
    tokenizers: Sequence[tuple[str, str]],
    languages: Sequence[str] | None,
    code: bool,
    paths: Sequence[str],
    hidden: int,
    dtype: str,
    tied: bool,
    project: str,
) -> dict[str, object]:
    """What `audit_main` needs: the tokenizers as (name, tokenizer.json); the shipped languages
    (None: all of them; []: none) by ISO 639-3 code or key; whether to measure the shipped code;
    the user's files and folders; the embedding's shape; the project's name (the report says
    where the tokenizers come from)."""
    return {
        "tokenizers": [(str(name), str(text)) for name, text in tokenizers],
        "languages": None if languages is None else [str(code) for code in languages],
        "code": bool(code),
        "paths": [str(path) for path in paths],
        "hidden": int(hidden),
        "dtype": str(dtype),
        "tied": bool(tied),
        "project": str(project),
    }


def audit_main(payload: object, connection: Connection) -> None:
    """The child: ("progress", (done, total, what)) as texts are measured, then ("done", result)
    (`audit_result`'s) or ("failed", message)."""
    lower_priority()
    if not isinstance(payload, dict):
        connection.send(("failed", "the audit got no job"))
        return
    try:
        result = run_audit(payload, _Reporter(connection))
    except (AuditTextError, EngineError, ValueError) as error:
        connection.send(("failed", str(error)))
        return
    send_message(connection, ("done", result))


class _Reporter:
    """Sends ("progress", (done, total, what)) to the window, at most every
    `PROGRESS_INTERVAL_S`, and always the last."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.last = 0.0

    def __call__(self, done: int, total: int, what: str) -> None:
        now = time.monotonic()
        if done == total or now - self.last >= PROGRESS_INTERVAL_S:
            self.last = now
            self.connection.send(("progress", (done, total, what)))


def run_audit(payload: dict[str, object], report: _Reporter | None = None) -> dict[str, object]:
    """The audit `payload` (`audit_payload`'s) asks for, as `audit_result` gives it."""
    started = time.monotonic()
    languages = payload["languages"]
    texts: list[AuditText] = []
    if languages is None:
        texts += shipped_languages()
    elif isinstance(languages, list) and languages:
        texts += shipped_languages([str(code) for code in languages])
    if payload["code"]:
        texts += shipped_code()
    paths = payload["paths"]
    assert isinstance(paths, list)
    texts += user_texts([str(path) for path in paths])
    if not texts:
        raise AuditTextError("nothing to measure: choose languages, the code samples or files of your own")
    named = payload["tokenizers"]
    assert isinstance(named, list)
    if not named:
        raise AuditTextError("nothing to measure with: choose at least one tokenizer")
    tokenizers: list[tuple[str, Tokenizer]] = []
    hashes: list[TokenizerFile] = []
    project = str(payload["project"])
    for name, tokenizer_json in named:
        try:
            tokenizers.append((name, Tokenizer.from_str(tokenizer_json)))
        except (EngineError, ValueError) as error:
            raise AuditTextError(f"{name}: the tokenizer cannot be read ({error})") from None
        digest = hashlib.sha256(tokenizer_json.encode("utf-8")).hexdigest()
        hashes.append(TokenizerFile(name, f"{project}: its tokenizer.json", digest))
    total = len(tokenizers) * len(texts)
    costs: list[TextCost] = []
    for name, tokenizer in tokenizers:
        fallback = byte_fallback_ids(tokenizer)
        for text in texts:
            if report is not None:
                report(len(costs), total, f"{name}: {text.name}")
            costs.append(measure(name, tokenizer, text, fallback))
    add_premiums(costs)
    if report is not None:
        report(total, total, "writing the report")
    embeddings = embedding_rows(tokenizers, int(str(payload["hidden"])), str(payload["dtype"]), bool(payload["tied"]))
    return audit_result(costs, embeddings, csv_text(costs), html_report(costs, hashes, udhr_source(), embeddings=embeddings), time.monotonic() - started)


def audit_result(
    costs: list[TextCost], embeddings: list[tuple[str, EmbeddingCost]], csv: str, html: str, seconds: float
) -> dict[str, object]:
    """What the window draws, in plain lists and dicts (engine objects do not cross processes):
    "columns" (`CSV_COLUMNS`) and "rows" (`TextCost.values`), each row's round-trip "causes",
    "summary" (`summary_table`), "premiums" (languages in order, tokenizer -> premium per
    language or None), "uncovered" (tokenizer -> whether each language's premium understates
    its cost), "scripts" (scripts, tokenizers, script -> tokenizer -> median premium,
    script -> languages), "embedding" (`embedding_table`), its "embedding_note" and
    "embedding_points" ((label, vocabulary, bytes, whether a tokenizer's own) to plot), the "csv"
    and "html" files' text, "tokenizers" (names, in order), "texts" (how many) and "seconds"."""
    order, series = premium_series(costs)
    uncovered = uncovered_languages(costs)
    scripts, names, medians, languages = script_medians(costs)
    tokenizer_names: list[str] = []
    for cost in costs:
        if cost.tokenizer not in tokenizer_names:
            tokenizer_names.append(cost.tokenizer)
    return {
        "columns": list(CSV_COLUMNS),
        "rows": [cost.values() for cost in costs],
        "causes": [list(cost.round_trip_causes) for cost in costs],
        "summary": summary_table(costs),
        "premiums": (order, {name: [values.get(language) for language in order] for name, values in series.items()}),
        "uncovered": {name: [language in uncovered.get(name, ()) for language in order] for name in series},
        "scripts": (scripts, names, medians, languages),
        "embedding": embedding_table(embeddings),
        "embedding_points": [(label, cost.vocabulary, cost.bytes, position < len(tokenizer_names)) for position, (label, cost) in enumerate(embeddings)],
        "embedding_note": embedding_note(embeddings[0][1]) if embeddings else "",
        "note": COMPRESSION_NOTE,
        "csv": csv,
        "html": html,
        "tokenizers": tokenizer_names,
        "texts": len(costs) // max(len(tokenizer_names), 1),
        "seconds": seconds,
    }
