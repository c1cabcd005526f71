"""`tokenizer-workbench train`: the estimate line before a training, the estimate next to the
actual time and memory after it, and `--estimate-only`."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.cli import main


def test_estimate_only_prints_the_estimate_and_trains_nothing(corpora: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "tokenizer.json"
    code = main(["train", "--preset", "bpe", "--vocab-size", "30000", "--estimate-only", str(corpora / "shakespeare.txt")])
    captured = capsys.readouterr()
    assert code == 0 and not output.exists()
    assert captured.out.startswith(("estimate: about ", "estimate: under 1 s")) and "peak memory about " in captured.out
    assert "13k distinct words expected" in captured.out  # counted whole: 13,355


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
