"""`count` writes the words `train` would count; `train --counts` from that table trains exactly
the tokenizer `train` makes from the files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine import Tokenizer
from engine.corpus.word_counts import read_counts, write_counts
from support import ROOT
from workbench.core import presets
from workbench.cli.main import main
from workbench.core.formatting import human_size

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


@pytest.mark.parametrize("preset", ["hf-sentencepiece-bpe", "hf-sentencepiece-unigram"])
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


@pytest.mark.parametrize("preset", ["sentencepiece-bpe", "sentencepiece-unigram"])
def test_sentencepiece_presets_make_line_breaks_spaces_so_their_words_are_tabled(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, preset: str
) -> None:
    # (sentencepiece's nmt_nfkc rules make "\n" a space, and trailing spaces go: no word holds one)
    table = tmp_path / "counts.tsv"
    code, err = run(capsys, "count", "--preset", preset, "-q", "-o", str(table), str(SAMPLE))
    assert code == 0, err
    rows = table.read_text(encoding="utf-8").splitlines()
    assert rows and all(row.count("\t") == 1 and "\r" not in row for row in rows)


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


# -- the inputs `train` reads: folders with globs, JSON Lines fields, word-count tables ----------


def make_folder(folder: Path) -> Path:
    """A folder `count` reads with --include '*.txt' --include '*.jsonl' --exclude 'build/*':
    a.txt and r.jsonl (its text under "body"); build/junk.txt (not UTF-8) and notes.md left out."""
    (folder / "build").mkdir(parents=True)
    (folder / "a.txt").write_bytes(SAMPLE.read_bytes()[:20_000])
    (folder / "build" / "junk.txt").write_bytes(b"\xff not text\n")
    (folder / "notes.md").write_text("qqqnotesqqq\n", encoding="utf-8")
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()[1000:1300]
    (folder / "r.jsonl").write_text("".join(json.dumps({"body": line, "text": "qqqwrongqqq"}) + "\n" for line in lines), encoding="utf-8")
    return folder


FOLDER_OPTIONS = ("--include", "*.txt", "--include", "*.jsonl", "--exclude", "build/*", "--field", "body")


def test_count_reads_a_folder_with_globs_and_a_jsonl_field(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = make_folder(tmp_path / "data")
    table = tmp_path / "counts.tsv"
    code, err = run(capsys, "count", "--preset", "bpe", "-q", "-o", str(table), *FOLDER_OPTIONS, str(data))
    assert code == 0, err
    tokenizer, _ = presets.build("bpe")
    expected = tokenizer.count_words([str(data)], processes=1, field="body", include=["*.txt", "*.jsonl"], exclude=["build/*"])
    counts = read_counts(str(table))
    assert counts == expected
    assert "qqqnotesqqq" not in counts and "qqqwrongqqq" not in counts
    # the JSON Lines records were read through their "body": words found only there are counted
    only_in_records = tokenizer.count_words([str(data / "r.jsonl")], processes=1, field="body")
    assert all(counts[word] >= n for word, n in only_in_records.items())
    size = (data / "a.txt").stat().st_size + (data / "r.jsonl").stat().st_size
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"Counted {sum(expected.values()):,} words ({len(expected):,} distinct) in 2 files (")
    assert human_size(size) in last


def test_jsonl_record_without_the_field_names_file_and_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    records = tmp_path / "records.jsonl"
    records.write_text('{"body": "fine words"}\n{"title": "no body here"}\n', encoding="utf-8")
    table = tmp_path / "counts.tsv"
    code, err = run(capsys, "count", "--preset", "bpe", "-q", "--field", "body", "-o", str(table), str(records))
    assert code == 1
    line = one_error_line(err)
    for fragment in (str(records), "line 2", "no field 'body'", "'title'"):
        assert fragment in line, line
    assert not table.exists()


def test_folder_where_the_globs_leave_no_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.txt").write_text("some text\n", encoding="utf-8")
    table = tmp_path / "counts.tsv"
    code, err = run(capsys, "count", "--preset", "bpe", "-q", "--include", "*.md", "--exclude", "a*", "-o", str(table), str(data))
    assert code == 1
    line = one_error_line(err)
    assert line.endswith(f"{data}: is a directory with no training file in it matching '*.md' and not matching 'a*'"), line
    assert not table.exists()


def test_output_inside_an_input_folder_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    table = tmp_path / "counts.tsv"
    write_counts(str(table), {"old": 1})
    (tmp_path / "a.txt").write_text("a b\n", encoding="utf-8")
    code, err = run(capsys, "count", "--preset", "bpe", "-q", "--force", "-o", str(table), str(tmp_path))
    assert code == 1
    assert "is also an input file" in one_error_line(err)
    assert read_counts(str(table)) == {"old": 1}


def test_count_of_a_table_and_text_then_train_counts_equals_train(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tokenizer, _ = presets.build("gpt2")
    words = SAMPLE.read_bytes()
    head = tmp_path / "head.txt"
    head.write_bytes(words[:60_000])
    given = tmp_path / "given.tsv"  # a table made elsewhere, from other text
    write_counts(str(given), tokenizer.count_words([str(head)], processes=1))
    text = tmp_path / "rest.txt"
    text.write_bytes(words[60_000:120_000])

    table = tmp_path / "counts.tsv"
    code, err = run(capsys, "count", "--preset", "gpt2", "-q", "-o", str(table), str(given), str(text))
    assert code == 0, err
    expected = read_counts(str(given))
    for word, n in tokenizer.count_words([str(text)], processes=1).items():
        expected[word] = expected.get(word, 0) + n
    assert read_counts(str(table)) == expected  # the table's words added as they are

    from_table = tmp_path / "from_table.json"
    from_inputs = tmp_path / "from_inputs.json"
    code, err = run(capsys, "train", "--preset", "gpt2", "--vocab-size", "600", "-q", "--counts", str(table), "-o", str(from_table))
    assert code == 0, err
    code, err = run(capsys, "train", "--preset", "gpt2", "--vocab-size", "600", "-q", "-o", str(from_inputs), str(given), str(text))
    assert code == 0, err
    assert from_table.read_text(encoding="utf-8") == from_inputs.read_text(encoding="utf-8")


def test_count_and_train_share_the_input_options(capsys: pytest.CaptureFixture[str]) -> None:
    helps: dict[str, str] = {}
    for command in ("count", "train"):
        with pytest.raises(SystemExit) as exited:
            main([command, "--help"])
        assert exited.value.code == 0
        helps[command] = re.sub(r"\s+", " ", capsys.readouterr().out)
    for fragment in ("--include GLOB", "--exclude GLOB", "--field NAME", "(default: text)", ".jsonl", ".zst", ".parquet", ".tsv, added as they are"):
        assert fragment in helps["count"], fragment
    assert "what to count: UTF-8 text files" in helps["count"]
    assert "what to train on: UTF-8 text files" in helps["train"]
    for option in ("--include GLOB", "--exclude GLOB", "--field NAME"):
        assert option_help(helps["count"], option) == option_help(helps["train"], option)


def option_help(text: str, option: str) -> str:
    """The help sentence after `option` in a `--help` text (up to the next option)."""
    after = text.split(f" {option} ", 1)[1]
    return re.split(r" -{1,2}[a-z]", after, maxsplit=1)[0]
