"""The Audit tab's measuring, run in a child process (`workbench.jobs.runners.child_job.ChildJob`):
`audit_main` encodes the chosen texts with each tokenizer, reporting each text as it is done,
and sends back every figure in plain form, with the CSV and the HTML report already written
(the window only saves them). No Qt here.

An audit of two tokenizers over every shipped text takes seconds of compiled code that holds
Python's lock: in a thread of the window's process it would freeze the window throughout.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import pickle
import threading
import time
from collections.abc import Callable, Sequence
from typing import Protocol
from multiprocessing.connection import Connection

from engine import Tokenizer
from engine.analysis.audit import (
    COMPRESSION_NOTE,
    CSV_COLUMNS,
    AuditText,
    EmbeddingCost,
    Auditor,
    TextCost,
    add_premiums,
)
from engine.collector import PausedCollector
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
from workbench.jobs.children.process import Pieces, lower_priority, send_message

# How often the child reports, at most (s): a record per text would be 900 messages.
PROGRESS_INTERVAL_S = 0.1
# From this many (tokenizer, text) pairs on (and two texts), a second process measures texts too:
# it takes about half a second to start and read the tokenizers.
SHARED_FROM = 64
# What hears of the progress: (done, total, what is being measured).
Report = Callable[[int, int, str], None]


class Ends(Protocol):
    """Two integers, read and written by index: a list, or an array in shared memory."""

    def __getitem__(self, index: int, /) -> int: ...

    def __setitem__(self, index: int, value: int, /) -> None: ...


# The second process `warm_up` started ahead, until `measure_all` takes it (this process's).
_WAITING: list[_Helper] = []


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


def warm_up() -> None:
    """What an audit child started ahead does while the user chooses (`ChildJob.prestart`):
    read the shipped texts and start the second process of `measure_all`, which waits for its
    share. Both took most of a second after Run Audit. At the job's lower priority from the
    start: the second process takes it on (a window busy drawing slowed only the first half)."""
    lower_priority()
    shipped_languages()
    shipped_code()
    if (os.cpu_count() or 1) > 1 and not _WAITING:
        _WAITING.append(_Helper())


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


def chosen_texts(payload: dict[str, object]) -> list[AuditText]:
    """The texts `payload` ("languages", "code", "paths", as `audit_payload` makes them) asks
    for; AuditTextError when there are none, or one cannot be read."""
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
    return texts


def run_audit(payload: dict[str, object], report: Report | None = None) -> dict[str, object]:
    """The audit `payload` (`audit_payload`'s) asks for, as `audit_result` gives it."""
    started = time.monotonic()
    texts = chosen_texts(payload)
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
    costs = measure_all(named, tokenizers, texts, report)
    add_premiums(costs)
    if report is not None:
        report(len(texts), len(texts), "writing the report")
    embeddings = embedding_rows(tokenizers, int(str(payload["hidden"])), str(payload["dtype"]), bool(payload["tied"]))
    return audit_result(costs, embeddings, csv_text(costs), html_report(costs, hashes, udhr_source(), embeddings=embeddings), time.monotonic() - started)


def measure_all(
    named: list[tuple[str, str]], tokenizers: list[tuple[str, Tokenizer]], texts: list[AuditText], report: Report | None
) -> list[TextCost]:
    """Every tokenizer on every text (as `engine.analysis.audit.audit` measures them),
    tokenizer by tokenizer, in the texts' order; `report(done, total, text)` hears how many
    texts are done.

    With enough of them and a second core, a second process measures texts meanwhile (its own
    copy of the tokenizers and texts): the measuring is compiled code that holds Python's lock,
    so a thread would not help. This process takes texts from the front, the second from the
    back, until they meet (`Claims`): both finish within a text of each other even when one is
    slowed (halves fixed in advance left one waiting up to two seconds for the other).
    Premiums are the caller's to set over all the texts (`add_premiums`)."""
    helper: _Helper | None = _WAITING.pop() if _WAITING else None
    if len(texts) > 1 and len(texts) * len(tokenizers) >= SHARED_FROM and (os.cpu_count() or 1) > 1:
        if helper is None:
            helper = _Helper()
        helper.begin(named, texts)
    elif helper is not None:
        helper.close()  # (started ahead, not needed for so few texts)
        helper = None
    claims = Claims(helper.ends if helper is not None else [0, len(texts)], True)
    found: list[list[TextCost] | None] = [None] * len(texts)
    mine = 0

    def heard(upcoming: str) -> None:
        if report is not None:
            # (at most every text: the one where they met may be counted twice)
            report(min(mine + (helper.done() if helper is not None else 0), len(texts)), len(texts), upcoming)

    with PausedCollector():
        auditor = Auditor(tokenizers)
        index = claims.take()
        while index >= 0:
            heard(texts[index].name)
            found[index] = auditor.measure(texts[index])
            mine += 1
            index = claims.take()
    if helper is not None:
        heard("the second process's share")
        for index, wires in helper.wait(report, mine, len(texts)):
            if found[index] is None:  # (else both took it: `Claims`)
                found[index] = [cost_from_wire(wire, name, texts[index]) for wire, (name, _) in zip(wires, tokenizers)]
    costs: list[TextCost] = []
    for t in range(len(tokenizers)):
        for index, measured in enumerate(found):
            if measured is None:
                raise AuditTextError(f"{texts[index].name} was not measured: the second audit process lost it")
            costs.append(measured[t])
    return costs


class Claims:
    """Which text a process measures next, from texts 0 .. n-1 in `ends` ([front, back): the
    texts not yet taken). This process takes from the front (0, 1, 2, ...); the second takes
    from the back (n-1, n-2, ...). Each writes only its own end, in memory both share (no lock
    or semaphore: one left by a process killed while waiting is what Python warns of at exit),
    and each stops where the ends meet. Unlocked, both may take the text where they meet; then
    this process's measurement of it is kept. Alone, `ends` is a plain list."""

    def __init__(self, ends: Ends, from_front: bool) -> None:
        self.ends = ends
        self.from_front = from_front

    def take(self) -> int:
        """The next text's index, or -1 when none is left."""
        ends = self.ends
        if self.from_front:
            index = int(ends[0])
            if index >= int(ends[1]):
                return -1
            ends[0] = index + 1
            return index
        index = int(ends[1]) - 1
        if index < int(ends[0]):
            return -1
        ends[1] = index
        return index


class _Helper:
    """The second process of `measure_all`: started, it waits for the texts (`begin`), then
    takes them one by one (`Claims`) as `measure_all` does, measures each with every tokenizer
    and reports how many it has done."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.connection, theirs = context.Pipe(duplex=False)
        jobs, self.jobs = context.Pipe(duplex=False)
        self.ends: Ends = context.RawArray("q", 2)
        self.process = context.Process(target=measure_share, args=(jobs, theirs, self.ends), name="audit-share", daemon=True)
        self.process.start()
        theirs.close()
        jobs.close()
        self.count = 0
        self.pieces = Pieces()
        # its measurements, once they have come (it may finish first)
        self.answer: list[tuple[int, list[dict[str, object]]]] | None = None

    def begin(self, named: list[tuple[str, str]], texts: list[AuditText]) -> None:
        """Give it the tokenizers as (name, tokenizer.json), and the texts: sent from a thread,
        as a second process still starting reads them only once it has started, and meanwhile
        this one measures."""
        self.ends[0], self.ends[1] = 0, len(texts)  # (before it can read the texts and take any)
        plain = [(text.name, text.iso639_3, text.script, text.kind, text.articles) for text in texts]
        data = pickle.dumps((named, plain), protocol=pickle.HIGHEST_PROTOCOL)
        threading.Thread(target=self._send, args=(data,), name="audit-share-texts", daemon=True).start()

    def _send(self, data: bytes) -> None:
        try:
            self.jobs.send_bytes(data)  # (what `recv` unpickles)
        except OSError:
            pass  # (it died: `wait` says so)
        finally:
            self.jobs.close()

    def close(self) -> None:
        """Let it go without texts (it ends when its pipe closes)."""
        self.jobs.close()
        self.connection.close()

    def done(self) -> int:
        """How many texts it has measured (what it has reported so far)."""
        while self.answer is None and self.connection.poll():
            self.answer = self._take(self._receive())
        return self.count

    def wait(self, report: Report | None, mine: int, total: int) -> list[tuple[int, list[dict[str, object]]]]:
        """Its measurements: (text's index, a `cost_wire` per tokenizer) for each text it took,
        reporting progress meanwhile; AuditTextError when it failed or died."""
        while self.answer is None:
            self.answer = self._take(self._receive())
            if report is not None and self.answer is None:
                report(min(mine + self.count, total), total, "the second process's share")
        self.process.join(5.0)
        return self.answer

    def _receive(self) -> object:
        try:
            return self.connection.recv()
        except EOFError:
            self.process.join(1.0)
            raise AuditTextError(f"the second audit process stopped unexpectedly (exit code {self.process.exitcode})") from None

    def _take(self, message: object) -> list[tuple[int, list[dict[str, object]]]] | None:
        if isinstance(message, tuple) and message[:1] == ("progress",):
            self.count = int(str(message[1]))
            return None
        if isinstance(message, tuple) and message[:1] == ("piece",):
            self.pieces.add(message[1])
            return None
        if message == ("pieces",):
            message = self.pieces.take()
        if isinstance(message, tuple) and message[:1] == ("failed",):
            raise AuditTextError(str(message[1]))
        assert isinstance(message, tuple) and message[0] == "done" and isinstance(message[1], list)
        return message[1]


def measure_share(jobs: Connection, connection: Connection, ends: Ends) -> None:
    """The second process: waits for the tokenizers (as (name, tokenizer.json)) and texts (in
    plain form), takes texts one by one from the back of `ends` (`Claims`) until none is left, sending
    ("progress", texts done) now and then, then ("done", [(text's index, [cost_wire per
    tokenizer]), ...]), or ("failed", message). Nothing when its pipe closes first."""
    try:
        share = jobs.recv()
    except (EOFError, OSError):
        return
    named: list[tuple[str, str]] = share[0]
    plain: list[tuple[str, str, str, str, dict[int, str]]] = share[1]
    try:
        tokenizers = [(name, Tokenizer.from_str(text)) for name, text in named]
        texts = [AuditText(name, code, script, kind, articles) for name, code, script, kind, articles in plain]
        claims = Claims(ends, False)
        measured: list[tuple[int, list[dict[str, object]]]] = []
        last = time.monotonic()
        with PausedCollector():
            auditor = Auditor(tokenizers)
            index = claims.take()
            while index >= 0:
                measured.append((index, [cost_wire(cost) for cost in auditor.measure(texts[index])]))
                if time.monotonic() - last >= PROGRESS_INTERVAL_S:
                    last = time.monotonic()
                    connection.send(("progress", len(measured)))
                index = claims.take()
        connection.send(("progress", len(measured)))
        send_message(connection, ("done", measured))
    except Exception as error:  # noqa: BLE001 - reported to the first process
        connection.send(("failed", f"{type(error).__name__}: {error}"))
    finally:
        connection.close()


def cost_wire(cost: TextCost) -> dict[str, object]:
    """A `TextCost`'s measurements in plain form (its tokenizer and text are the receiver's)."""
    return {
        "tokens": cost.tokens, "characters": cost.characters, "bytes": cost.bytes, "words": cost.words,
        "split_words": cost.split_words, "unknown": cost.unknown, "byte_fallback": cost.byte_fallback,
        "round_trip": cost.round_trip, "round_trip_causes": list(cost.round_trip_causes),
        "article_tokens": dict(cost.article_tokens), "renyi_efficiency": cost.renyi_efficiency,
    }  # fmt: skip


def cost_from_wire(wire: dict[str, object], tokenizer: str, text: AuditText) -> TextCost:
    """The `TextCost` `cost_wire` gave, for `tokenizer` on `text` (its premium still to set)."""
    cost = TextCost(tokenizer, text)
    cost.tokens = _count(wire["tokens"])
    cost.characters = _count(wire["characters"])
    cost.bytes = _count(wire["bytes"])
    cost.words = _count(wire["words"])
    cost.split_words = _count(wire["split_words"])
    cost.unknown = _count(wire["unknown"])
    cost.byte_fallback = _count(wire["byte_fallback"])
    cost.round_trip = bool(wire["round_trip"])
    causes = wire["round_trip_causes"]
    articles = wire["article_tokens"]
    renyi = wire["renyi_efficiency"]
    assert isinstance(causes, list) and isinstance(articles, dict) and isinstance(renyi, float)
    cost.round_trip_causes = [str(cause) for cause in causes]
    cost.article_tokens = {int(number): _count(count) for number, count in articles.items()}
    cost.renyi_efficiency = renyi
    return cost


def _count(value: object) -> int:
    assert isinstance(value, int)
    return value


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
