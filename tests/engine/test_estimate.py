"""`engine.estimate`: the estimate of a training's time and peak memory, made from a sample,
and the optional estimate/actual fields of a training report (older project files load)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import Tokenizer, models, pre_tokenizers, trainers
from engine.errors import CorpusError
from engine.estimate import TrainingEstimate, estimate_training, peak_rss_bytes
from engine.project import Project, TokenizerEntry
from engine.trainers.records import TrainHistory, TrainReport


def bpe(vocab_size: int = 30_000) -> tuple[Tokenizer, trainers.BpeTrainer]:
    tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    return tokenizer, trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["[UNK]"], show_progress=False)


def prefix(source: Path, folder: Path, size: int) -> str:
    """The first `size` bytes of `source` (cut at a line start) as a file of its own."""
    data = source.read_bytes()[:size]
    data = data[: data.rfind(b"\n") + 1]
    path = folder / f"prefix-{size}.txt"
    path.write_bytes(data)
    return str(path)


def test_an_input_smaller_than_the_sample_is_counted_whole(corpora: Path) -> None:
    tokenizer, trainer = bpe()
    path = str(corpora / "shakespeare.txt")
    estimate = estimate_training(tokenizer, [path], trainer)
    assert estimate.exact_words and estimate.sample_bytes == estimate.input_bytes == Path(path).stat().st_size
    assert estimate.distinct_words == len(tokenizer.count_words([path], None, 1)) == 13_355
    assert "counted the whole input" in estimate.describe()


def test_the_distinct_words_of_shakespeare_are_extrapolated_within_a_factor_of_2(corpora: Path) -> None:
    tokenizer, trainer = bpe()
    path = str(corpora / "shakespeare.txt")
    actual = len(tokenizer.count_words([path], None, 1))
    estimate = estimate_training(tokenizer, [path], trainer, sample_bytes=256 * 1024)
    assert not estimate.exact_words and estimate.sample_bytes < 300 * 1024
    assert actual / 2 <= estimate.distinct_words <= actual * 2
    assert 0.3 <= estimate.beta <= 1.0
    # the memory and time of the whole-input estimate: the measured constants, from its words
    whole = estimate_training(tokenizer, [path], trainer)
    assert 40 << 20 < whole.peak_bytes < 120 << 20  # measured: 53 MB peak RSS (compiled)
    assert whole.train_seconds > 0 and whole.count_seconds > 0
    assert whole.seconds == whole.count_seconds + whole.train_seconds
    assert "from a 256 KB sample" in estimate.describe() and "distinct words expected" in estimate.describe()


def test_the_estimate_grows_with_the_input(corpora: Path, tmp_path: Path) -> None:
    tokenizer, trainer = bpe()
    source = corpora / "shakespeare.txt"
    estimates: list[TrainingEstimate] = []
    for size in (100_000, 400_000, 1_200_000):
        estimates.append(estimate_training(tokenizer, [prefix(source, tmp_path, size)], trainer, sample_bytes=64 * 1024))
    for smaller, bigger in zip(estimates, estimates[1:]):
        assert bigger.input_bytes > smaller.input_bytes
        assert bigger.distinct_words > smaller.distinct_words
        assert bigger.peak_bytes > smaller.peak_bytes
        assert bigger.train_seconds > smaller.train_seconds


def test_a_bigger_vocabulary_costs_more(corpora: Path) -> None:
    path = str(corpora / "shakespeare.txt")
    small = estimate_training(bpe(1000)[0], [path], bpe(1000)[1])
    big = estimate_training(bpe(20_000)[0], [path], bpe(20_000)[1])
    assert big.train_seconds > small.train_seconds and big.peak_bytes > small.peak_bytes


def test_several_files_are_sampled_together(corpora: Path) -> None:
    tokenizer, trainer = bpe()
    files = [str(corpora / "shakespeare.txt"), str(corpora / "botchan.txt")]
    estimate = estimate_training(tokenizer, files, trainer, sample_bytes=128 * 1024)
    assert estimate.input_bytes == sum(Path(f).stat().st_size for f in files)
    assert estimate.sample_bytes <= 140 * 1024 and estimate.distinct_words > estimate.sample_distinct


@pytest.mark.parametrize("sample_bytes", [64 * 1024, 16 << 20])
def test_bad_inputs_raise_corpus_error_naming_the_file(tmp_path: Path, sample_bytes: int) -> None:
    tokenizer, trainer = bpe()
    with pytest.raises(CorpusError, match="missing.txt: file not found"):
        estimate_training(tokenizer, [str(tmp_path / "missing.txt")], trainer, sample_bytes=sample_bytes)
    with pytest.raises(CorpusError, match="is a directory"):
        estimate_training(tokenizer, [str(tmp_path)], trainer, sample_bytes=sample_bytes)
    bad = tmp_path / "bad.txt"
    bad.write_bytes((b"good words here\n" * 200 + b"bad \xff byte\n") * 200)
    with pytest.raises(CorpusError, match="bad.txt: is not valid UTF-8"):
        # a bad line every 3 KB: every sample slice has one
        estimate_training(tokenizer, [str(bad)], trainer, sample_bytes=sample_bytes)
    with pytest.raises(CorpusError):
        estimate_training(tokenizer, [], trainer, sample_bytes=sample_bytes)


def test_an_empty_input_is_refused_as_training_would(tmp_path: Path) -> None:
    tokenizer, trainer = bpe()
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(CorpusError, match="no words to train on"):
        estimate_training(tokenizer, [str(empty)], trainer)


def test_every_trainer_gets_an_estimate(corpora: Path) -> None:
    path = str(corpora / "botchan.txt")
    for trainer in (
        trainers.WordPieceTrainer(vocab_size=2000),
        trainers.UnigramTrainer(vocab_size=2000),
        trainers.WordLevelTrainer(vocab_size=2000),
    ):
        estimate = estimate_training(bpe()[0], [path], trainer)
        assert estimate.seconds > 0 and estimate.peak_bytes > 0, type(trainer).__name__


def test_the_peak_memory_of_this_process_is_known() -> None:
    assert peak_rss_bytes() > 10 << 20


# -- the estimate and the actual costs in the training history ---------------------------------


def report(**costs: float | int | None) -> TrainReport:
    return TrainReport(1, 10, 5, 2.5, TrainHistory("BPE"), **costs)  # type: ignore[arg-type]


def test_reports_keep_the_estimate_and_the_actual_costs() -> None:
    full = report(peak_bytes=300 << 20, estimated_seconds=3.0, estimated_peak_bytes=280 << 20)
    again = TrainReport.from_dict(json.loads(json.dumps(full.to_dict())))
    assert (again.peak_bytes, again.estimated_seconds, again.estimated_peak_bytes) == (300 << 20, 3.0, 280 << 20)
    assert again == full
    assert full.with_seconds(1.0).seconds == 1.0 and full.with_seconds(1.0).peak_bytes == 300 << 20
    costs = report().with_costs(100, 2.0, 200)
    assert (costs.peak_bytes, costs.estimated_seconds, costs.estimated_peak_bytes, costs.seconds) == (100, 2.0, 200, 2.5)


def test_old_reports_and_project_entries_without_the_new_fields_load() -> None:
    old = {"files": 1, "total_words": 10, "unique_words": 5, "seconds": 2.5, "history": TrainHistory("BPE").to_dict()}
    loaded = TrainReport.from_dict(old)
    assert loaded.peak_bytes is None and loaded.estimated_seconds is None and loaded.estimated_peak_bytes is None
    entry = TokenizerEntry("t", "bpe", {}, None)
    data = entry.to_dict()
    data["report"] = old
    for key in ("counts_file", "counts_key", "counts_held_out"):
        del data[key]
    project = {"format": "tokenizer-workbench project", "format_version": 1, "name": "p", "corpus": [], "tokenizers": [data], "active": 0}
    reopened = Project.parse(json.dumps(project), "/tmp/old.tokproj").tokenizers[0]
    assert reopened.counts_file == "" and reopened.counts_key == "" and reopened.counts_held_out == 0.0
    assert reopened.report is not None and reopened.report.peak_bytes is None


def test_project_entries_keep_their_word_counts_reference() -> None:
    entry = TokenizerEntry("t", "bpe", {}, None)
    entry.counts_file, entry.counts_key, entry.counts_held_out = "/x/p.counts-abc.tsv", "abc", 0.01
    again = TokenizerEntry.from_dict(json.loads(json.dumps(entry.to_dict())))
    assert (again.counts_file, again.counts_key, again.counts_held_out) == ("/x/p.counts-abc.tsv", "abc", 0.01)


def test_times_under_a_second_are_not_given_as_numbers() -> None:
    from engine.estimate import _roughly

    assert _roughly(0.04, "~") == "under 1 s"
    assert _roughly(12.3, "~") == "~12 s"
    assert _roughly(125.0, "about ") == "about 2 min"
