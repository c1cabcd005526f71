"""`count` writes the words `train` would count; `train --counts` from that table trains exactly
the tokenizer `train` makes from the files."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Tokenizer
from engine.word_counts import read_counts, write_counts
from support import ROOT
from workbench import presets
from workbench.cli import main

SAMPLE = ROOT / "resources" / "sample" / "shakespeare.txt"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().err


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("tokenizer-workbench: error: ")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(("preset", "size"), [("bpe", 700), ("gpt2", 700), ("bert", 700), ("wordlevel", 500)])
def test_train_from_counted_table_equals_train_on_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, preset: str, size: int
) -> None:
    table = tmp_path / "counts.tsv"
    code, err = run(capsys, "count", "--preset", preset, "-q", "-o", str(table), str(SAMPLE))
    assert code == 0, err
    tokenizer, _ = presets.build(preset)
    counts = tokenizer.count_words([str(SAMPLE)], processes=1)
    assert read_counts(str(table)) == counts
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"Counted {sum(counts.values()):,} words ({len(counts):,} distinct) in 1 file (")
    assert last.endswith(f"-> {table}")

    from_table = tmp_path / "from_table.json"
    from_files = tmp_path / "from_files.json"
    code, err = run(capsys, "train", "--preset", preset, "--vocab-size", str(size), "-q", "--counts", str(table), "-o", str(from_table))
    assert code == 0, err
    assert f"from the counts table {table}" in err
    code, err = run(capsys, "train", "--preset", preset, "--vocab-size", str(size), "-q", "-o", str(from_files), str(SAMPLE))
    assert code == 0, err
    assert from_table.read_text(encoding="utf-8") == from_files.read_text(encoding="utf-8")


@pytest.mark.parametrize("preset", ["sentencepiece-bpe", "sentencepiece-unigram"])
def test_metaspace_words_hold_newlines_and_cannot_be_tabled(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, preset: str
) -> None:
    # Metaspace splits on spaces only, so the word ending a line keeps its "\n" (as HF counts it).
    table = tmp_path / "counts.tsv"
    code, err = run(capsys, "count", "--preset", preset, "-q", "-o", str(table), str(SAMPLE))
    assert code == 1
    line = one_error_line(err)
    assert "\\n'" in line and "does not split on whitespace" in line
    assert not table.exists()
    assert list(tmp_path.iterdir()) == []


def test_count_with_a_tokenizer_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tokenizer, trainer = presets.build("bert", 300)
    tokenizer.train([str(SAMPLE)], trainer)
    saved = tmp_path / "bert.json"
    tokenizer.save(str(saved))
    table = tmp_path / "counts.tsv"
    code, err = run(capsys, "count", "-t", str(saved), "-q", "-o", str(table), str(SAMPLE))
    assert code == 0, err
    # the trained tokenizer has its special tokens as added tokens: they split the words too
    assert read_counts(str(table)) == Tokenizer.from_file(str(saved)).count_words([str(SAMPLE)], processes=1)


def test_existing_table_is_kept_without_force_and_after_a_failed_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    table = tmp_path / "counts.tsv"
    write_counts(str(table), {"qqqoldqqq": 1})
    code, err = run(capsys, "count", "--preset", "bpe", "-q", "-o", str(table), str(SAMPLE))
    assert code == 1
    assert "already exists" in one_error_line(err) and "--force" in err
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\ncaf\xe9\n")
    code, err = run(capsys, "count", "--preset", "bpe", "-q", "--force", "-o", str(table), str(bad))
    assert code == 1
    assert one_error_line(err).endswith(f"{bad}: is not valid UTF-8 (invalid continuation byte) at byte 8")
    assert table.read_text(encoding="utf-8") == "qqqoldqqq\t1\n"
    code, err = run(capsys, "count", "--preset", "bpe", "-q", "--force", "-o", str(table), str(SAMPLE))
    assert code == 0, err
    assert "qqqoldqqq" not in read_counts(str(table))


def test_count_refuses_to_overwrite_its_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = tmp_path / "text.txt"
    text.write_text("a b\n")
    code, err = run(capsys, "count", "--preset", "bpe", "--force", "-o", str(text), str(text))
    assert code == 1
    assert "is also an input file" in one_error_line(err)
    assert text.read_text() == "a b\n"


def test_count_needs_preset_or_tokenizer(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["count", "-o", str(tmp_path / "c.tsv"), str(SAMPLE)])
    assert exited.value.code == 2
    assert "one of the arguments --preset -t/--tokenizer is required" in capsys.readouterr().err


def test_train_counts_and_files_are_exclusive(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    table = tmp_path / "counts.tsv"
    write_counts(str(table), {"a": 2, "b": 1})
    out = tmp_path / "tok.json"
    code, err = run(capsys, "train", "--preset", "bpe", "--vocab-size", "50", "--counts", str(table), "-o", str(out), str(SAMPLE))
    assert code == 1
    assert "not both" in one_error_line(err)
    code, err = run(capsys, "train", "--preset", "bpe", "--vocab-size", "50", "-o", str(out))
    assert code == 1
    assert "nothing to train on" in one_error_line(err)
    assert not out.exists()


def test_train_from_a_bad_table_names_the_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    table = tmp_path / "counts.tsv"
    table.write_text("a\t2\nb two\n", encoding="utf-8")
    out = tmp_path / "tok.json"
    code, err = run(capsys, "train", "--preset", "bpe", "--vocab-size", "50", "-q", "--counts", str(table), "-o", str(out))
    assert code == 1
    assert one_error_line(err).endswith(f"{table}: line 2: no tab in 'b two'; expected word<TAB>count")
    assert not out.exists()
