"""A stored history drawn from the arrays the encoding process makes of it (`history_wire`,
`HistoryColumns`) shows the same merges and rounds as the history itself."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy
import pytest

from engine import Tokenizer, models, pre_tokenizers, trainers
from engine.project.result import TrainedResult, history_columns
from engine.trainers.records import TrainReport
from workbench.jobs.children.encoding import history_wire, stored_history_wire
from workbench.core.history import HistoryColumns
from workbench.window.views.training_plots import MAX_DOTS, _envelope


def trained(kind: str, corpus: Path) -> TrainReport:
    if kind == "bpe":
        tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
        trainer: trainers.Trainer = trainers.BpeTrainer(vocab_size=120, special_tokens=["[UNK]"], show_progress=False)
    else:
        tokenizer = Tokenizer(models.Unigram())
        trainer = trainers.UnigramTrainer(vocab_size=80, show_progress=False)
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    return tokenizer.train_from_counts(tokenizer.count_words([str(corpus)]), trainer)


@pytest.mark.parametrize("kind", ["bpe", "unigram"])
def test_the_arrays_show_the_history_they_were_made_of(kind: str, tmp_path: Path) -> None:
    corpus = tmp_path / "text.txt"
    corpus.write_text("low lower lowest newer newest wider widest\n" * 20 + "the lowest of the new\n", encoding="utf-8")
    report = trained(kind, corpus)
    history = report.history
    assert history.merges or history.rounds
    result = TrainedResult("{}", report, [], {})
    part = result.history_part()
    assert part is not None
    shown = HistoryColumns(history_wire(history_columns(part.content, "history")))
    assert (shown.algorithm, shown.score_name) == (history.algorithm, history.score_name)
    assert len(shown.merges) == len(history.merges)
    for mine, theirs in zip(shown.merges, history.merges):
        # (a project keeps each step's time to the millisecond)
        assert mine == replace(theirs, seconds=round(theirs.seconds, 3))
    assert list(shown.merges[-3:]) == list(shown.merges)[-3:] and (not shown.merges or shown.merges[-1] == list(shown.merges)[-1])
    assert [replace(r, seconds=0.0) for r in shown.rounds] == [replace(r, seconds=0.0) for r in history.rounds]
    assert shown.counts == {step.new_token: step.count for step in history.merges}
    # as the encoding process sends it, apart from the view
    sent = stored_history_wire(part.content)
    assert set(sent) == {"history"}
    wire = sent["history"]
    assert isinstance(wire, dict)
    assert len(HistoryColumns(wire).merges) == len(history.merges)


@pytest.mark.parametrize("content", [b"", b"{not json", b'{"algorithm": "BPE", "merges": 7}', b"[" * 5000])
def test_a_damaged_history_part_is_a_problem_to_show_not_a_failure(content: bytes) -> None:
    sent = stored_history_wire(content)
    assert set(sent) == {"problem"}
    assert str(sent["problem"])


def _envelope_by_runs(ranks: list[float], values: list[float], limit: int) -> tuple[list[float], list[float]]:
    """The envelope run by run, as it is defined: each run's first highest and first lowest value."""
    size, runs = len(ranks), max(1, limit // 2)
    edges = [int(e) for e in numpy.linspace(0, size, runs + 1).astype(numpy.int64)]
    kept: set[int] = set()
    for start, end in zip(edges[:-1], edges[1:]):
        window = [(v, i) for i, v in enumerate(values[start:end], start) if not math.isnan(v)]
        if window:
            kept.add(max(window, key=lambda p: (p[0], -p[1]))[1])
            kept.add(min(window, key=lambda p: (p[0], p[1]))[1])
    order = sorted(kept)
    return [ranks[i] for i in order], [values[i] for i in order]


@pytest.mark.parametrize("size", [0, 1, 7, 3000, 3001, 29_904])
def test_the_plotted_envelope_keeps_each_runs_highest_and_lowest_score(size: int) -> None:
    random = numpy.random.default_rng(size)
    values = random.exponential(size=size).tolist()
    for i in range(0, size, 97):
        values[i] = math.nan  # (merges with no score)
    values[size // 2 : size // 2 + 40] = [math.nan] * len(values[size // 2 : size // 2 + 40])
    ranks = [float(i) for i in range(size)]
    got = _envelope(ranks, values, MAX_DOTS)
    want = _envelope_by_runs(ranks, values, MAX_DOTS)
    assert got[0] == want[0] and len(got[0]) <= MAX_DOTS
    assert all((a == b) or (math.isnan(a) and math.isnan(b)) for a, b in zip(got[1], want[1]))


def test_stored_merges_index_as_a_list_does(tmp_path: Path) -> None:
    corpus = tmp_path / "text.txt"
    corpus.write_text("low lower lowest newer newest wider widest\n" * 20, encoding="utf-8")
    report = trained("bpe", corpus)
    part = TrainedResult("{}", report, [], {}).history_part()
    assert part is not None
    merges = HistoryColumns(history_wire(history_columns(part.content, "history"))).merges
    n = len(merges)
    assert n > 2 and merges[-n] == merges[0] and merges[-1] == merges[n - 1]
    for index in (n, -n - 1):
        with pytest.raises(IndexError):
            merges[index]
