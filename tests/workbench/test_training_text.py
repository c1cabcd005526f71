"""What the Train tab says about a training (`workbench.core.training_text`), on hand-checkable
reports: when it ends, and for a result kept in the project."""

from __future__ import annotations

from pathlib import Path

from engine.project.facts import CorpusFile, ResultFacts, TrainedOn
from engine.trainers.records import MergeStep, TrainHistory, TrainReport
from workbench.core.training_text import costs_text, finished_text, stored_text, trained_on_text


def report(peak: int | None = None, estimated: float | None = None) -> TrainReport:
    merges = [MergeStep(i, "a", "b", "ab", 10 + i, 5, 11 + i, 2) for i in range(3)]
    return TrainReport(
        files=1, total_words=1_234, unique_words=56, seconds=2.75, history=TrainHistory("BPE", "count", merges=merges),
        sampled_lines=0, read_lines=0, peak_bytes=peak, estimated_seconds=estimated, estimated_peak_bytes=None,
    )  # fmt: skip


def test_the_end_of_a_training_in_words(tmp_path: Path) -> None:
    on = TrainedOn([CorpusFile(str(tmp_path / "a.txt"))])
    assert finished_text(report(), 2_662, [(3, 3.664)], on) == (
        "Trained in 2.8 s: 3 merges from a.txt (1,234 words, 56 distinct); 2.6 KB held out, 3.66 characters per token on it."
    )
    # no files known: how many; nothing held out or measured: not said
    assert finished_text(report(), 0, [], None) == "Trained in 2.8 s: 3 merges from 1 file (1,234 words, 56 distinct)."


def test_a_kept_result_in_words_says_when_the_corpus_changed(tmp_path: Path) -> None:
    facts = ResultFacts(report(peak=3 * 1024 * 1024, estimated=3.1))
    on = TrainedOn([CorpusFile(str(tmp_path / name)) for name in ("a.txt", "b.txt", "c.txt", "d.txt")], continued_from="x.tsv")
    assert trained_on_text(on) == " from a.txt, b.txt, c.txt and 1 more file (continued from kept word counts)"
    assert costs_text(facts) == " Estimated 3.1 s; peak memory 3.0 MB."
    assert stored_text(facts, None, []) == "Last trained in 2.8 s on 1,234 words (56 distinct): 3 merges. Estimated 3.1 s; peak memory 3.0 MB."
    assert stored_text(facts, None, ["a.txt changed"]).endswith(
        " The corpus is no longer what it was trained on: a.txt changed. Train again to train on it."
    )
