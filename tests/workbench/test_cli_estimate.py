"""`tokenizer-workbench train`: the estimate line before a training, the estimate next to the
actual time and memory after it, and `--estimate-only`, for every kind of input."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from workbench.core import presets
from workbench.cli.main import main


def whole_count(path: Path) -> str:
    """What an estimate that counted all of `path` says: the bpe preset's distinct words in it,
    shown as the estimate line shows them (13,355 in shakespeare.txt: "13k"; 6,069: "6,069")."""
    tokenizer, _ = presets.build("bpe")
    words = len(tokenizer.count_words([str(path)], None, 1))
    return f"{words / 1000:.0f}k" if words >= 10_000 else f"{words:,}"


def test_estimate_only_prints_the_estimate_and_trains_nothing(corpora: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "tokenizer.json"
    code = main(["train", "--preset", "bpe", "--vocab-size", "30000", "--estimate-only", str(corpora / "shakespeare.txt")])
    captured = capsys.readouterr()
    assert code == 0 and not output.exists()
    assert captured.out.startswith(("estimate: about ", "estimate: under 1 s")) and "peak memory about " in captured.out
    assert f"; {whole_count(corpora / 'shakespeare.txt')} distinct words expected)" in captured.out  # counted whole


def test_train_prints_the_estimate_first_and_the_actual_costs_last(corpora: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "tokenizer.json"
    code = main(["train", "--preset", "bpe", "--vocab-size", "2000", "-o", str(output), str(corpora / "botchan.txt")])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 0 and output.exists()
    assert lines[0].startswith(("estimate: about ", "estimate: under 1 s"))
    assert lines[-1].startswith("Trained bpe tokenizer") and "(estimated " in lines[-1] and "peak memory " in lines[-1]


def test_quiet_skips_the_estimate(corpora: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "tokenizer.json"
    assert main(["train", "--preset", "bpe", "--vocab-size", "500", "-q", "-o", str(output), str(corpora / "botchan.txt")]) == 0
    err = capsys.readouterr().err
    assert "estimate:" not in err and "(estimated" not in err


def test_estimate_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["train", "--preset", "bpe", "--vocab-size", "500", "--estimate-only", str(tmp_path / "missing.txt")])
    err = capsys.readouterr().err
    assert code == 1 and "missing.txt: file not found" in err and "Traceback" not in err


def test_output_is_required_unless_estimating(corpora: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "--preset", "bpe", "--vocab-size", "500", str(corpora / "botchan.txt")]) == 1
    assert "-o/--output" in capsys.readouterr().err


# -- every kind of input ------------------------------------------------------------------------


def plays_jsonl(corpora: Path, folder: Path) -> Path:
    """Shakespeare's lines as JSON Lines records, the text under "content"."""
    lines = (corpora / "shakespeare.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    path = folder / "plays.jsonl"
    path.write_text("".join(json.dumps({"id": i, "content": line}) + "\n" for i, line in enumerate(lines)), encoding="utf-8")
    return path


def test_json_lines_inputs_are_estimated(corpora: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = plays_jsonl(corpora, tmp_path)
    code = main(["train", "--preset", "bpe", "--vocab-size", "30000", "--field", "content", "--estimate-only", str(path)])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith(("estimate: about ", "estimate: under 1 s")) and "peak memory about " in out
    assert f"; {whole_count(corpora / 'shakespeare.txt')} distinct words expected)" in out  # read whole: the field's words, as in the plain file
    output = tmp_path / "tokenizer.json"
    assert main(["train", "--preset", "bpe", "--vocab-size", "500", "--field", "content", "-o", str(output), str(path)]) == 0
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[0].startswith("estimate: ") and "(estimated " in lines[-1] and output.exists()


def test_compressed_inputs_tables_and_samples_of_lines_are_estimated(
    corpora: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    packed = tmp_path / "plays.txt.gz"
    packed.write_bytes(gzip.compress((corpora / "shakespeare.txt").read_bytes()))
    whole = f"; {whole_count(corpora / 'shakespeare.txt')} distinct words expected)"
    assert main(["train", "--preset", "bpe", "--vocab-size", "30000", "--estimate-only", str(packed)]) == 0
    assert whole in capsys.readouterr().out
    # a counts table, whatever its name: its words exactly
    table = tmp_path / "plays.counts"
    assert main(["count", "--preset", "bpe", "-q", "-o", str(table), str(corpora / "shakespeare.txt")]) == 0
    assert main(["train", "--preset", "bpe", "--vocab-size", "30000", "--estimate-only", "--counts", str(table)]) == 0
    assert whole in capsys.readouterr().out
    # a sample of 2,000 of the lines (40,000 in shakespeare.txt, 10,000 in the shipped sample): fewer words
    sampled = ["--estimate-only", "--input-sentence-size", "2000", str(corpora / "shakespeare.txt")]
    assert main(["train", "--preset", "bpe", "--vocab-size", "30000", *sampled]) == 0
    out = capsys.readouterr().out
    assert out.startswith("estimate: ") and "distinct words expected" in out and whole not in out


def test_quiet_shows_no_progress_at_all(corpora: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # (without a sink the engine would fall back to the trainer's own show_progress bars)
    output = tmp_path / "tokenizer.json"
    assert main(["train", "--preset", "bpe", "--vocab-size", "500", "-q", "-o", str(output), str(corpora / "botchan.txt")]) == 0
    err = capsys.readouterr().err
    assert err.startswith("Trained bpe tokenizer: vocab 500") and err.count("\n") == 1


def test_sampling_lines_of_a_counts_table_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "counts.tsv"
    table.write_text("hello\t3\nworld\t2\n", encoding="utf-8")
    output = tmp_path / "tokenizer.json"
    args = ["train", "--preset", "bpe", "--vocab-size", "50", "--counts", str(table), "--input-sentence-size", "10"]
    assert main([*args, "-o", str(output)]) == 1
    err = capsys.readouterr().err
    assert "--input-sentence-size samples the lines of FILEs" in err and not output.exists()
