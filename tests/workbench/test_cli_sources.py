"""`tokenizer-workbench train` on folders, compressed text, JSON Lines and samples; bad input at
scale gets one line naming the file and the line (or offset), and nothing is written."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from engine import Tokenizer
from cli_support import assert_one_line_error, run_cli
from support import ROOT

SAMPLE = ROOT / "resources" / "sample" / "shakespeare.txt"


def train(out: Path, *inputs: str) -> tuple[int, str]:
    result = run_cli("train", "--preset", "bpe", "--vocab-size", "300", "-q", "-o", str(out), *inputs)
    return result.returncode, result.stderr


def test_compressed_input_trains_the_same_tokenizer(tmp_path: Path) -> None:
    packed = tmp_path / "shakespeare.txt.gz"
    packed.write_bytes(gzip.compress(SAMPLE.read_bytes()))
    code, stderr = train(tmp_path / "plain.json", str(SAMPLE))
    assert code == 0, stderr
    code, stderr = train(tmp_path / "packed.json", str(packed))
    assert code == 0, stderr
    assert "from 1 file" in stderr
    plain = Tokenizer.from_file(str(tmp_path / "plain.json"))
    assert Tokenizer.from_file(str(tmp_path / "packed.json")).to_str() == plain.to_str()


def test_folder_with_globs_and_jsonl_field(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "build").mkdir(parents=True)
    (data / "a.txt").write_bytes(SAMPLE.read_bytes()[:50_000])
    (data / "build" / "junk.txt").write_bytes(b"\xff not text\n")
    (data / "notes.md").write_text("skipped, not included\n", encoding="utf-8")
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()[:500]
    (data / "r.jsonl.gz").write_bytes(gzip.compress("".join(json.dumps({"body": line}) + "\n" for line in lines).encode()))
    out = tmp_path / "t.json"
    result = run_cli(
        "train", "--preset", "bpe", "--vocab-size", "300", "-q", "-o", str(out),
        "--include", "*.txt", "--include", "*.jsonl.gz", "--exclude", "build/*", "--field", "body", str(data),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "from 2 files" in result.stderr
    assert Tokenizer.from_file(str(out)).get_vocab_size() == 300


def test_sampled_training_says_so(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    total = SAMPLE.read_bytes().count(b"\n")
    result = run_cli("train", "--preset", "bpe", "--vocab-size", "200", "-q", "-o", str(out), "--input-sentence-size", "1000", str(SAMPLE))
    assert result.returncode == 0, result.stderr
    assert f"sampled 1,000 of {total:,} lines" in result.stderr
    again = tmp_path / "again.json"
    result = run_cli("train", "--preset", "bpe", "--vocab-size", "200", "-q", "-o", str(again), "--input-sentence-size", "1000", str(SAMPLE))
    assert result.returncode == 0, result.stderr
    assert again.read_text(encoding="utf-8") == out.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "content", "fragments"),
    [
        ("cut.txt.gz", gzip.compress(b"line of text\n" * 50_000, mtime=0)[:300], ["cut.txt.gz", "is truncated", "bytes of text"]),
        ("bad.jsonl", b'{"text": "ok"}\n{"text": "ok"}\n{oops}\n', ["bad.jsonl", "line 3", "not JSON"]),
        ("nofield.jsonl", b'{"text": "ok"}\n{"title": "t"}\n', ["nofield.jsonl", "line 2", "no field 'text'", "'title'"]),
        ("latin.txt.gz", gzip.compress("ok\ncaf\xe9\n".encode("latin-1"), mtime=0), ["latin.txt.gz", "decompressed text at byte 6"]),
        ("c.tsv", b"a\t1\nb\tmany\n", ["c.tsv", "line 2"]),
    ],
)
def test_bad_input_writes_nothing(tmp_path: Path, name: str, content: bytes, fragments: list[str]) -> None:
    bad = tmp_path / name
    bad.write_bytes(content)
    out = tmp_path / "out.json"
    result = run_cli("train", "--preset", "bpe", "--vocab-size", "100", "-o", str(out), str(SAMPLE), str(bad))
    assert_one_line_error(result, *fragments)
    assert not out.exists()
    out.write_text("precious", encoding="utf-8")
    result = run_cli("train", "--preset", "bpe", "--vocab-size", "100", "-o", str(out), "--force", str(SAMPLE), str(bad))
    assert_one_line_error(result, *fragments)
    assert out.read_text(encoding="utf-8") == "precious"


def test_folder_without_matching_files(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("text\n", encoding="utf-8")
    result = run_cli("train", "--preset", "bpe", "--vocab-size", "100", "-o", str(tmp_path / "t.json"), "--include", "*.md", str(tmp_path))
    assert_one_line_error(result, str(tmp_path), "no training file", "'*.md'")


def test_help_names_the_new_inputs() -> None:
    result = run_cli("train", "--help")
    assert result.returncode == 0
    text = re.sub(r"\s+", " ", result.stdout)
    for fragment in ("--include GLOB", "--exclude GLOB", "--field NAME", "--input-sentence-size N", ".jsonl", ".zst", ".parquet"):
        assert fragment in text
