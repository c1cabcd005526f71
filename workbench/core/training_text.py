"""What the window says about a training in words: what it made ("29,904 merges", "the seed and
18 rounds"), on which files, at what cost, and the two summaries the Train tab shows, when a
training ends and for a result kept in the project. No Qt here; the tab only shows them.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.models.unigram.training_run import PHASE_SEED
from engine.project.facts import ResultFacts, TrainedOn
from engine.trainers.records import RoundStep, TrainHistory, TrainReport
from workbench.core.formatting import human_size, sampled_text


def steps_text(history: TrainHistory) -> str:
    """What a training made, as its tables count it: "29,904 merges", or its `rounds_text`."""
    if history.merges or not history.rounds:
        return f"{len(history.merges):,} merge{'s' if len(history.merges) != 1 else ''}"
    return rounds_text(history.rounds)


def facts_text(facts: ResultFacts) -> str:
    """`steps_text` from a result's facts (no history parsed)."""
    if facts.merges or not facts.rounds:
        return f"{facts.merges:,} merge{'s' if facts.merges != 1 else ''}"
    if facts.seeded and facts.rounds > 1:
        return f"the seed and {facts.rounds - 1:,} round{'s' if facts.rounds != 2 else ''}"
    return f"{facts.rounds:,} round{'s' if facts.rounds != 1 else ''}"


def rounds_text(rounds: Sequence[RoundStep]) -> str:
    """"the seed and 18 rounds" (the seed is round 0, so the last round is number 18); "1 round"."""
    if rounds and rounds[0].phase == PHASE_SEED and len(rounds) > 1:
        return f"the seed and {len(rounds) - 1:,} round{'s' if len(rounds) != 2 else ''}"
    return f"{len(rounds):,} round{'s' if len(rounds) != 1 else ''}"


def trained_on_text(trained_on: TrainedOn | None) -> str:
    """" from a.txt and b.txt (continued from kept word counts)" ("" when not known)."""
    if trained_on is None or not trained_on.files:
        return ""
    names = [item.name for item in trained_on.files]
    more = len(names) - 3
    shown = ", ".join(names[:3]) + (f" and {more:,} more file{'s' if more != 1 else ''}" if more > 0 else "")
    continued = " (continued from kept word counts)" if trained_on.continued_from else ""
    return f" from {shown}{continued}"


def costs_text(report: TrainReport | ResultFacts) -> str:
    """" Estimated 3.1 s; peak memory 260 MB (estimated 253 MB)." ("" when nothing is known)."""
    parts: list[str] = []
    if report.estimated_seconds is not None:
        parts.append(f"estimated {report.estimated_seconds:.1f} s")
    if report.peak_bytes is not None:
        estimated = f" (estimated {human_size(report.estimated_peak_bytes)})" if report.estimated_peak_bytes is not None else ""
        parts.append(f"peak memory {human_size(report.peak_bytes)}{estimated}")
    if not parts:
        return ""
    text = "; ".join(parts)
    return f" {text[0].upper()}{text[1:]}."


def finished_text(
    report: TrainReport,
    held_out_bytes: int,
    evaluations: Sequence[tuple[int, float]],
    trained_on: TrainedOn | None,
    unit: str = "words",
) -> str:
    """What a training that just ended made, from what, held out and measured on, and at what
    cost: "Trained in 2.8 s: 7,939 merges from a.txt (61,772 words, 6,030 distinct); 2.6 KB held
    out, 3.66 characters per token on it.". `unit`: what was counted ("lines" for a trainer
    that reads whole lines)."""
    held = f"; {held_out_bytes / 1024:,.1f} KB held out" if held_out_bytes else ""
    last = evaluations[-1][1] if evaluations else 0.0
    measured = f", {last:.2f} characters per token on it" if last else ""
    files = trained_on_text(trained_on) or f" from {report.files} file{'s' if report.files != 1 else ''}"
    return (
        f"Trained in {report.seconds:.1f} s: {steps_text(report.history)}{files} ({report.total_words:,} {unit}, "
        f"{report.unique_words:,} distinct{sampled_text(report.sampled_lines, report.read_lines)}){held}{measured}."
        f"{costs_text(report)}"
    )


def stored_text(facts: ResultFacts, trained_on: TrainedOn | None, changes: Sequence[str], unit: str = "words") -> str:
    """What a result kept in the project is: how it was trained, on what (`unit`: "words", or
    "lines" for a trainer that reads whole lines), at what cost, and (`changes`) how the
    project's corpus differs from what it was trained on."""
    warning = (
        f" The corpus is no longer what it was trained on: {'; '.join(changes)}. Train again to train on it."
        if changes
        else ""
    )
    return (
        f"Last trained in {facts.seconds:.1f} s on {facts.total_words:,} {unit} "
        f"({facts.unique_words:,} distinct{sampled_text(facts.sampled_lines, facts.read_lines)})"
        f"{trained_on_text(trained_on)}: {facts_text(facts)}.{costs_text(facts)}{warning}"
    )
