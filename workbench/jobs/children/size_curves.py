"""The Audit tab's "Which vocabulary size?", run in a child process (`ChildJob`): for each
tokenizer, tokens per character on held-out text at every vocabulary size its run passed
through (`engine.analysis.size_curve`), with the knee. No Qt here.

The held-out text is, per tokenizer, the lines its training held out of the project's corpus
(`workbench.core.held_out`: the same lines its plots were measured on), or the user's files,
or the shipped English declaration: the same text for every tokenizer unless each uses its own
held-out lines. On those, a Unigram trained in the window has the exact curve of its rounds
(measured as it trained: `engine.analysis.size_curve.rounds_curve`), with its top pieces by score
below its trained size; anywhere else a Unigram's curve is the top pieces alone, approximate.
"""

from __future__ import annotations

from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Final

from engine import Tokenizer
from engine.analysis.size_curve import RoundPoint, SizeCurve, held_out_words, rounds_curve, size_curve
from engine.errors import EngineError
from engine.models.unigram.model import Unigram
from engine.trainers.records import RoundStep
from workbench.core.audit_texts import AuditTextError, shipped_languages, user_texts
from workbench.core.held_out import held_out_split
from workbench.core.vocab_reports import curve_wire
from workbench.jobs.children.process import lower_priority, send_message

# Where the held-out text comes from.
OWN_HELD_OUT = "own"
USER_FILES = "files"
ENGLISH = "english"


# Why a Unigram's curve is the approximate one (`exact_unigram_curve`), after "approximate: ".
NO_ROUNDS: Final = "its top pieces by score (it keeps no training rounds: imported, or its history is gone)"
NOT_MEASURED: Final = (
    "its training did not measure its rounds (trained before this version, or kept from step-by-step "
    "training); train it again for the exact curve of the sizes its rounds passed through"
)
OTHER_TEXT: Final = "the sizes its rounds passed through are measured on its own held-out lines only; choose those for them"
CHANGED: Final = "its held-out lines are not those its rounds were measured on (the corpus changed since it was trained)"


def curves_payload(
    tokenizers: Sequence[tuple[str, str, list[str], float]],
    source: str,
    paths: Sequence[str],
    rounds: dict[str, tuple[list[RoundStep], list[RoundPoint]]] | None = None,
) -> dict[str, object]:
    """What `curves_main` needs: each tokenizer as (name, tokenizer.json, the corpus files it was
    trained on, the share of them it held out); where the held-out text comes from
    (`OWN_HELD_OUT`, `USER_FILES` or `ENGLISH`); the user's files and folders; and by name, a
    Unigram training's rounds and their points measured on its held-out lines (its history's
    `RoundStep`s and its result's `round_points`)."""
    return {
        "tokenizers": [(str(name), str(text), [str(f) for f in files], float(share)) for name, text, files, share in tokenizers],
        "source": str(source),
        "paths": [str(path) for path in paths],
        "rounds": {
            str(name): ([step.to_dict() for step in steps], [tuple(point) for point in points])
            for name, (steps, points) in (rounds or {}).items()
        },
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
    rounds = payload.get("rounds", {})
    assert isinstance(named, list) and isinstance(paths, list) and isinstance(rounds, dict)
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
        size = tokenizer.get_vocab_size(True)
        if not isinstance(tokenizer.model, Unigram):
            curves.append(curve_wire(name, label, size, curve))
            continue
        exact, why = exact_unigram_curve(rounds.get(name), curve, size, source == OWN_HELD_OUT)
        if exact is None:
            curves.append(curve_wire(name, label, size, curve, note=f"approximate: {why}"))
        else:
            curves.append(curve_wire(name, label, size, exact, curve, rounds_note(exact, curve)))
    return curves


def exact_unigram_curve(measured: object, approximate: SizeCurve, size: int, own_lines: bool) -> tuple[SizeCurve | None, str]:
    """A Unigram's exact curve from its training's rounds (`measured`: the payload's rounds and
    points for it, or None), or None and why not: measured on other lines than its own held-out
    ones, not measured, or measured on lines that are not today's (the trained point must be
    what `approximate`, measured now, gives at the trained `size`)."""
    steps: list[RoundStep] = []
    points: list[RoundPoint] = []
    if isinstance(measured, tuple) and len(measured) == 2:
        steps = [RoundStep.from_dict(step) for step in measured[0]]
        points = [(int(a), int(b), int(c), int(d)) for a, b, c, d in measured[1]]
    if not steps:
        return None, NO_ROUNDS
    if not own_lines:
        return None, OTHER_TEXT
    exact = rounds_curve(steps, points)
    if exact is None:
        return None, NOT_MEASURED
    trained = exact.trained_index
    if (exact.sizes[trained], exact.tokens[trained], exact.characters) != (size, approximate.tokens[-1], approximate.characters):
        return None, CHANGED
    return exact, ""


def rounds_note(exact: SizeCurve, approximate: SizeCurve) -> str:
    """What in a Unigram's curve is exact: "exact at the 6 sizes its training rounds passed
    through (2,000 to 26,652), approximate below 2,000"."""
    trained = exact.trained_size
    text = f"exact at the {len(exact.sizes):,} sizes its training rounds passed through ({exact.sizes[0]:,} to {exact.sizes[-1]:,})"
    if approximate.sizes[0] < trained:
        text += f", approximate below {trained:,}"
    return text
