"""The Audit tab's "Which vocabulary size?", run in a child process (`ChildJob`): for each
tokenizer, tokens per character on held-out text at every vocabulary size its run passed
through (`engine.analysis.size_curve`), with the knee. No Qt here.

The held-out text is, per tokenizer, the lines its training held out of the project's corpus
(`workbench.core.held_out`: the same lines its plots were measured on), or the user's files,
or the shipped English declaration: the same text for every tokenizer unless each uses its own
held-out lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from multiprocessing.connection import Connection

from engine import Tokenizer
from engine.analysis.size_curve import held_out_words, size_curve
from engine.errors import EngineError
from workbench.core.audit_texts import AuditTextError, shipped_languages, user_texts
from workbench.core.held_out import held_out_split
from workbench.core.vocab_reports import curve_wire
from workbench.jobs.children.process import lower_priority, send_message

# Where the held-out text comes from.
OWN_HELD_OUT = "own"
USER_FILES = "files"
ENGLISH = "english"


def curves_payload(
    tokenizers: Sequence[tuple[str, str, list[str], float]], source: str, paths: Sequence[str]
) -> dict[str, object]:
    """What `curves_main` needs: each tokenizer as (name, tokenizer.json, the corpus files it was
    trained on, the share of them it held out); where the held-out text comes from
    (`OWN_HELD_OUT`, `USER_FILES` or `ENGLISH`); the user's files and folders."""
    return {
        "tokenizers": [(str(name), str(text), [str(f) for f in files], float(share)) for name, text, files, share in tokenizers],
        "source": str(source),
        "paths": [str(path) for path in paths],
    }


def curves_main(payload: object, connection: Connection) -> None:
    """The child: ("progress", (done, total, name)) per tokenizer, then ("done", [curve, ...])
    (`curve_wire`'s, in the order given) or ("failed", message)."""
    lower_priority()
    if not isinstance(payload, dict):
        connection.send(("failed", "the size curves got no job"))
        return
    try:
        curves = size_curves(payload, connection)
    except (AuditTextError, EngineError, ValueError, OSError) as error:
        connection.send(("failed", str(error)))
        return
    send_message(connection, ("done", curves))


def size_curves(payload: dict[str, object], connection: Connection | None = None) -> list[dict[str, object]]:
    """Every tokenizer's curve (`curve_wire`), or for one that has none, {"name", "problem"}."""
    source = str(payload["source"])
    named = payload["tokenizers"]
    paths = payload["paths"]
    assert isinstance(named, list) and isinstance(paths, list)
    shared: tuple[list[str], str] | None = None
    if source == USER_FILES:
        texts = user_texts([str(path) for path in paths])
        if not texts:
            raise AuditTextError("no held-out files: add files of your own above, or choose another held-out text")
        shared = ([body for text in texts for body in text.articles.values()], f"{len(texts)} file{'s' if len(texts) != 1 else ''} of yours")
    elif source == ENGLISH:
        english = shipped_languages(["eng"])[0]
        shared = (list(english.articles.values()), "the English declaration")
    curves: list[dict[str, object]] = []
    for position, (name, tokenizer_json, files, share) in enumerate(named):
        if connection is not None:
            connection.send(("progress", (position, len(named), name)))
        if shared is not None:
            texts_used, label = shared
        else:
            held = held_out_split(files, share)[1] if files and share > 0 else ""
            if not held:
                curves.append({"name": name, "problem": "no held-out lines: it was imported, or trained without a held-out share; choose another held-out text"})
                continue
            texts_used, label = held.splitlines(), f"its held-out lines ({len(held):,} characters)"
        tokenizer = Tokenizer.from_str(tokenizer_json)
        try:
            counts, characters = held_out_words(tokenizer, texts_used)
            curve = size_curve(tokenizer, counts, characters)
        except ValueError as error:
            curves.append({"name": name, "problem": str(error)})
            continue
        curves.append(curve_wire(name, label, tokenizer.get_vocab_size(True), curve.algorithm, curve.sizes, curve.tokens_per_character, curve.knee_index, curve.exact, characters))
    return curves
