"""Every command against bad input: exit status 1 (or 2 for usage), one line on stderr that
names the file or option and the problem, no traceback, and no file made or changed.

One table, one row per bad input: missing files, folders, empty, binary and non-UTF-8 files,
truncated and corrupt compressed files, FIFOs and devices, bad option values, conflicting
options, outputs that exist, are folders, are devices or cannot be written."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
import zstandard

from support import ROOT

SAMPLE = ROOT / "resources" / "sample" / "shakespeare.txt"
PROG = "tokenizer-workbench"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="FIFOs, /dev and /proc are Linux's")


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # -P: the installed build runs, not the source tree (as in test_cli.py)
    return subprocess.run(
        [sys.executable, "-P", "-m", "workbench.cli", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        timeout=300,  # a guard against hanging forever (a FIFO read would), not a time limit
    )


def snapshot(folder: Path) -> dict[str, str]:
    """Every entry under `folder`: a file's size and SHA-256, a FIFO, a folder."""
    found: dict[str, str] = {}
    for parent, folders, files in os.walk(folder):
        for name in folders:
            found[os.path.relpath(os.path.join(parent, name), folder)] = "folder"
        for name in files:
            path = os.path.join(parent, name)
            relative = os.path.relpath(path, folder)
            if not os.path.isfile(path):
                found[relative] = "special"
                continue
            with open(path, "rb") as handle:
                found[relative] = hashlib.sha256(handle.read()).hexdigest()
    return found


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of bad (and a few good) inputs; the tests run in it."""
    folder = tmp_path_factory.mktemp("bad")
    lines = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)[:300]
    (folder / "good.txt").write_text("".join(lines), encoding="utf-8")
    trained = subprocess.run(
        [sys.executable, "-P", "-m", "workbench.cli", "train", "--preset", "bpe", "--vocab-size", "200", "-q", "-o", "tok.json", "good.txt"],
        cwd=folder, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert trained.returncode == 0, trained.stderr
    bert = subprocess.run(
        [sys.executable, "-P", "-m", "workbench.cli", "train", "--preset", "bert", "--vocab-size", "200", "-q", "-o", "bert.json", "good.txt"],
        cwd=folder, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert bert.returncode == 0, bert.stderr
    (folder / "existing.json").write_text("precious\n", encoding="utf-8")
    (folder / "existing.tsv").write_text("precious\t1\n", encoding="utf-8")
    (folder / "existing.bin").write_bytes(b"precious")
    (folder / "empty.txt").write_bytes(b"")
    (folder / "empty.json").write_bytes(b"")
    (folder / "binary.bin").write_bytes(bytes(range(256)) * 40)
    (folder / "latin1.txt").write_bytes("first line\ncaf\xe9 au lait\n".encode("latin-1"))
    packed = gzip.compress(b"line of text\n" * 50_000)
    (folder / "truncated.txt.gz").write_bytes(packed[: len(packed) // 2])
    (folder / "corrupt.txt.gz").write_bytes(packed[:20] + b"\x00" * 200 + packed[220:])
    (folder / "notgzip.txt.gz").write_bytes(b"plain text, not gzip\n")
    (folder / "truncated.json").write_text('{"version": "1.0", "model": {"type": "BPE", "vocab": {"a": 0', encoding="utf-8")
    (folder / "notjson.json").write_text("this is not JSON\n", encoding="utf-8")
    (folder / "bad.jsonl").write_text('{"text": "fine"}\n{oops\n', encoding="utf-8")
    (folder / "huge-count.tsv").write_text("word\t" + "9" * 5000 + "\n", encoding="utf-8")
    (folder / "i64-count.tsv").write_text("word\t9223372036854775808\n", encoding="utf-8")
    (folder / "superscript.tsv").write_text("word\t²\n", encoding="utf-8")
    (folder / "digits.jsonl").write_text('{"text": "hello", "n": 1' + "1" * 5000 + "}\n", encoding="utf-8")
    zstd = zstandard.ZstdCompressor().compress(b"line of text\n" * 50_000)
    (folder / "truncated.txt.zst").write_bytes(zstd[: len(zstd) // 2])
    bz2_packed = bz2.compress(b"line of text\n" * 50_000)
    (folder / "corrupt.txt.bz2").write_bytes(bz2_packed[:40] + b"\x00" * 60 + bz2_packed[100:])
    (folder / "emptydir").mkdir()
    (folder / "dir.json").mkdir()
    (folder / "dir.bin").mkdir()
    os.mkfifo(folder / "fifo.txt")
    os.mkfifo(folder / "fifo.json")
    return folder


# (arguments, expected exit status, fragments of the one error line); paths are relative to `place`
CASES: list[tuple[list[str], int, list[str]]] = [
    # -- train: inputs
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "missing.txt"], 1, ["missing.txt", "file not found"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "emptydir"], 1, ["emptydir", "no training file"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "empty.txt"], 1, ["empty.txt", "empty"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "binary.bin"], 1, ["binary.bin", "not valid UTF-8", "at byte 128"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "latin1.txt"], 1, ["latin1.txt", "not valid UTF-8", "at byte 14"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "truncated.txt.gz"], 1, ["truncated.txt.gz", "is truncated"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "corrupt.txt.gz"], 1, ["corrupt.txt.gz", "not valid gzip data"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "notgzip.txt.gz"], 1, ["notgzip.txt.gz", "gzip"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "bad.jsonl"], 1, ["bad.jsonl", "line 2", "not JSON"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "fifo.txt"], 1, ["fifo.txt", "named pipe (FIFO)"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "/dev/zero"], 1, ["/dev/zero", "character device"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "--counts", "huge-count.tsv"], 1, ["huge-count.tsv", "line 1", "5,000 digits", "too large"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "--counts", "i64-count.tsv"], 1, ["i64-count.tsv", "at most 9,223,372,036,854,775,807"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "--counts", "superscript.tsv"], 1, ["superscript.tsv", "'²' is not a positive integer"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "--counts", "missing.tsv"], 1, ["missing.tsv", "file not found"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "--counts", "fifo.txt"], 1, ["fifo.txt", "named pipe (FIFO)"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "digits.jsonl"], 1, ["digits.jsonl", "line 1", "JSON value cannot be read"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "truncated.txt.zst"], 1, ["truncated.txt.zst", "is truncated"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "corrupt.txt.bz2"], 1, ["corrupt.txt.bz2", "not valid bzip2 data"]),
    # -- train: options
    (["train", "--preset", "bpe", "--vocab-size", "0", "-o", "out.json", "good.txt"], 1, ["--vocab-size", "positive", "0"]),
    (["train", "--preset", "bpe", "--vocab-size", "-5", "-o", "out.json", "good.txt"], 1, ["--vocab-size", "positive", "-5"]),
    (["train", "--preset", "bpe", "--vocab-size", "ten", "-o", "out.json", "good.txt"], 2, ["--vocab-size", "invalid int value: 'ten'"]),
    (["train", "--preset", "bpe", "--vocab-size", "1" + "0" * 30, "-o", "out.json", "good.txt"], 1, ["--vocab-size", "1,114,112"]),
    (["train", "--preset", "bert", "--vocab-size", "1" + "0" * 30, "-o", "out.json", "good.txt"], 1, ["--vocab-size", "1,114,112"]),
    (["train", "--preset", "sentencepiece-unigram", "--vocab-size", "1", "-q", "-o", "out.json", "good.txt"], 1, ["--vocab-size 1 is smaller than the ", "choose at least"]),
    (["train", "--preset", "bert", "--vocab-size", "1", "-q", "-o", "out.json", "good.txt"], 1, ["--vocab-size 1 is smaller than the ", "continuing forms (##x) + 5 special tokens): choose at least"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "--special-tokens", "<s>,\udcff", "-o", "out.json", "good.txt"], 1, ["--special-tokens: byte 0xff at offset 4 is not UTF-8"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "--min-frequency", "-1", "-o", "out.json", "good.txt"], 1, ["--min-frequency", "0 or more"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "--min-frequency", "9" * 30, "-o", "out.json", "good.txt"], 1, ["--min-frequency", "at most 9,223,372,036,854,775,807"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "--input-sentence-size", "-1", "-o", "out.json", "good.txt"], 1, ["--input-sentence-size", "0 (every line) or more"]),
    (["train", "--preset", "nope", "--vocab-size", "100", "-o", "out.json", "good.txt"], 2, ["--preset", "invalid choice: 'nope'"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json"], 1, ["nothing to train on"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "good.txt"], 1, ["-o/--output"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "--counts", "existing.tsv", "good.txt"], 1, ["--counts", "not both"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "out.json", "--counts", "existing.tsv", "--input-sentence-size", "5"], 1, ["--input-sentence-size", "--counts"]),
    # -- train: outputs
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "existing.json", "good.txt"], 1, ["existing.json", "already exists", "--force"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "emptydir", "good.txt"], 1, ["emptydir", "is a directory"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "nofolder/out.json", "good.txt"], 1, ["nofolder/out.json", "folder nofolder does not exist"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "good.txt/out.json", "good.txt"], 1, ["good.txt/out.json", "does not exist"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "/proc/out.json", "good.txt"], 1, ["/proc/out.json", "cannot be written"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "fifo.json", "good.txt"], 1, ["fifo.json", "named pipe (FIFO)", "regular file to write"]),
    (["train", "--preset", "bpe", "--vocab-size", "100", "-o", "good.txt", "--force", "good.txt"], 1, ["good.txt", "also a training file"]),
    # -- count
    (["count", "-o", "out.tsv", "good.txt"], 2, ["--preset", "-t/--tokenizer", "required"]),
    (["count", "--preset", "bpe", "-t", "tok.json", "-o", "out.tsv", "good.txt"], 2, ["not allowed with"]),
    (["count", "--preset", "bpe", "-o", "out.tsv", "missing.txt"], 1, ["missing.txt", "file not found"]),
    (["count", "--preset", "bpe", "-o", "out.tsv", "fifo.txt"], 1, ["fifo.txt", "named pipe (FIFO)"]),
    (["count", "--preset", "bpe", "-o", "out.tsv", "/dev/zero"], 1, ["/dev/zero", "character device"]),
    (["count", "--preset", "bpe", "-o", "out.tsv", "latin1.txt"], 1, ["latin1.txt", "at byte 14"]),
    (["count", "--preset", "bpe", "-o", "out.tsv", "truncated.txt.gz"], 1, ["truncated.txt.gz", "is truncated"]),
    (["count", "--preset", "bpe", "-o", "out.tsv", "empty.txt"], 1, ["empty.txt", "empty"]),
    (["count", "--preset", "bpe", "-o", "out.tsv", "huge-count.tsv"], 1, ["huge-count.tsv", "too large"]),
    (["count", "-t", "missing.json", "-o", "out.tsv", "good.txt"], 1, ["missing.json"]),
    (["count", "-t", "notjson.json", "-o", "out.tsv", "good.txt"], 1, ["notjson.json"]),
    (["count", "-t", "fifo.json", "-o", "out.tsv", "good.txt"], 1, ["fifo.json", "named pipe (FIFO)", "not a tokenizer file"]),
    (["count", "--preset", "bpe", "-o", "existing.tsv", "good.txt"], 1, ["existing.tsv", "already exists", "--force"]),
    (["count", "--preset", "bpe", "-o", "emptydir", "good.txt"], 1, ["emptydir", "is a directory"]),
    (["count", "--preset", "bpe", "-o", "nofolder/out.tsv", "good.txt"], 1, ["nofolder/out.tsv", "does not exist"]),
    (["count", "--preset", "bpe", "-o", "/proc/out.tsv", "good.txt"], 1, ["/proc/out.tsv", "cannot be written"]),
    (["count", "--preset", "bpe", "-o", "/dev/null", "good.txt"], 1, ["/dev/null", "character device", "regular file to write"]),
    (["count", "--preset", "bpe", "-o", "good.txt", "--force", "good.txt"], 1, ["good.txt", "also an input file"]),
    (["count", "--preset", "bpe", "-o", "out.tsv", "--processes", "-1", "good.txt"], 1, ["--processes", "0 or more"]),
    (["count", "--preset", "bpe", "-o", "out.tsv", "--processes", "many", "good.txt"], 2, ["--processes", "invalid int value"]),
    (["count", "--preset", "bpe", "-o", "out.tsv", "--dask", "tcp://localhost:1", "--processes", "2", "good.txt"], 1, ["--processes", "--dask"]),
    # -- encode
    (["encode", "-t", "missing.json", "--text", "hi"], 1, ["missing.json"]),
    (["encode", "-t", "notjson.json", "--text", "hi"], 1, ["notjson.json"]),
    (["encode", "-t", "truncated.json", "--text", "hi"], 1, ["truncated.json"]),
    (["encode", "-t", "empty.json", "--text", "hi"], 1, ["empty.json"]),
    (["encode", "-t", "binary.bin", "--text", "hi"], 1, ["binary.bin"]),
    (["encode", "-t", "dir.json", "--text", "hi"], 1, ["dir.json", "is a folder without tokenizer.json"]),
    (["encode", "-t", "fifo.json", "--text", "hi"], 1, ["fifo.json", "named pipe (FIFO)"]),
    (["encode", "-t", "tok.json", "missing.txt"], 1, ["missing.txt", "file not found"]),
    (["encode", "-t", "tok.json", "emptydir"], 1, ["emptydir", "directory"]),
    (["encode", "-t", "tok.json", "fifo.txt"], 1, ["fifo.txt", "named pipe (FIFO)"]),
    (["encode", "-t", "tok.json", "/dev/zero"], 1, ["/dev/zero", "character device"]),
    (["encode", "-t", "tok.json", "latin1.txt"], 1, ["latin1.txt line 2", "byte 0xe9 at offset 3", "--errors"]),
    (["encode", "-t", "tok.json", "--text", "hi", "good.txt"], 1, ["--text", "not both"]),
    (["encode", "-t", "tok.json", "--text", "hi", "--separator", "x"], 1, ["--separator", "only with --out"]),
    (["encode", "-t", "tok.json", "--text", "hi", "--errors", "maybe"], 2, ["--errors", "invalid choice"]),
    (["encode", "-t", "tok.json", "--out", "ids.bin"], 1, ["--out", "FILE"]),
    (["encode", "-t", "tok.json", "--out", "ids.txt", "good.txt"], 1, ["ids.txt", "unknown output format"]),
    (["encode", "-t", "tok.json", "--out", "existing.bin", "good.txt"], 1, ["existing.bin", "already exists", "--force"]),
    (["encode", "-t", "tok.json", "--out", "dir.bin", "good.txt"], 1, ["dir.bin", "directory"]),
    (["encode", "-t", "tok.json", "--out", "nofolder/ids.bin", "good.txt"], 1, ["nofolder/ids.bin", "does not exist"]),
    (["encode", "-t", "tok.json", "--out", "/proc/ids.bin", "good.txt"], 1, ["/proc/ids.bin", "cannot be written"]),
    (["encode", "-t", "tok.json", "--out", "ids.bin", "--separator", "<nope>", "good.txt"], 1, ["--separator", "<nope>"]),
    (["encode", "-t", "tok.json", "--out", "ids.bin", "--separator", "\udcfe", "good.txt"], 1, ["--separator: byte 0xfe at offset 0 is not UTF-8"]),
    (["encode", "-t", "tok.json", "--text", "\udcff"], 1, ["--text: byte 0xff at offset 0 is not UTF-8", "--errors replace"]),
    (["encode", "-t", "tok.json", "--out", "ids.bin", "--processes", "-2", "good.txt"], 1, ["--processes", "-2"]),
    (["encode", "-t", "tok.json", "--out", "ids.bin", "--errors", "skip", "good.txt"], 1, ["--errors", "without --out"]),
    (["encode", "-t", "tok.json", "--out", "ids.bin", "--json", "good.txt"], 1, ["--json", "--out"]),
    (["encode", "-t", "tok.json", "--out", "ids.bin", "latin1.txt"], 1, ["latin1.txt", "line 2", "not UTF-8"]),
    (["encode", "-t", "tok.json", "--out", "ids.bin", "good.txt", "--force", "--out", "good.txt"], 1, ["good.txt", "unknown output format"]),
    # -- inspect
    (["inspect", "missing.json"], 1, ["missing.json"]),
    (["inspect", "emptydir"], 1, ["emptydir", "is a folder without tokenizer.json"]),
    (["inspect", "empty.json"], 1, ["empty.json"]),
    (["inspect", "binary.bin"], 1, ["binary.bin"]),
    (["inspect", "notjson.json"], 1, ["notjson.json"]),
    (["inspect", "truncated.json"], 1, ["truncated.json"]),
    (["inspect", "fifo.json"], 1, ["fifo.json", "named pipe (FIFO)"]),
    (["inspect", "/dev/zero"], 1, ["/dev/zero", "character device"]),
    (["inspect", "tok.json", "--merges", "-1"], 1, ["--merges", "0 or more"]),
    (["inspect", "tok.json", "--merges", "lots"], 2, ["--merges", "invalid int value"]),
    # -- convert
    (["convert", "missing.json", "out.json", "--to", "hf"], 1, ["missing.json"]),
    (["convert", "notjson.json", "out.json", "--to", "hf"], 1, ["notjson.json"]),
    (["convert", "fifo.json", "out.json", "--to", "hf"], 1, ["fifo.json", "named pipe (FIFO)"]),
    (["convert", "emptydir", "out.json", "--to", "hf"], 1, ["emptydir", "is a folder without tokenizer.json"]),
    (["convert", "tok.json", "out.json", "--to", "yaml"], 2, ["--to", "invalid choice: 'yaml'"]),
    (["convert", "tok.json", "existing.json", "--to", "hf"], 1, ["existing.json", "already exists", "--force"]),
    (["convert", "tok.json", "tok.json", "--to", "hf", "--force"], 1, ["tok.json", "is the input"]),
    (["convert", "tok.json", "dir.json", "--to", "hf"], 1, ["dir.json", "directory"]),
    (["convert", "tok.json", "nofolder/out.json", "--to", "hf"], 1, ["nofolder/out.json"]),
    (["convert", "tok.json", "/proc/out.json", "--to", "hf"], 1, ["/proc/out.json", "cannot be written"]),
    (["convert", "tok.json", "fifo.json", "--to", "hf"], 1, ["fifo.json", "named pipe (FIFO)"]),
    (["convert", "tok.json", "/dev/null", "--to", "hf", "--force"], 1, ["/dev/null", "character device"]),
    # a folder gpt2 would make is taken away again when the conversion fails
    (["convert", "bert.json", "gpt2-out", "--to", "gpt2"], 1, ["gpt2-out/vocab.json", "cannot be written", "WordPiece"]),
    (["convert", "bert.json", "new/deeper/gpt2-out", "--to", "gpt2"], 1, ["new/deeper/gpt2-out/vocab.json", "WordPiece"]),
]


def _id(case: tuple[list[str], int, list[str]]) -> str:
    return " ".join(case[0])[:90]


@pytest.mark.parametrize("case", CASES, ids=[_id(case) for case in CASES])
def test_bad_input_gets_one_line_and_touches_nothing(place: Path, case: tuple[list[str], int, list[str]]) -> None:
    arguments, status, fragments = case
    before = snapshot(place)
    result = run_cli(*arguments, cwd=place)
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert result.returncode == status, result.stderr
    command = f"{PROG} {arguments[0]}" if status == 2 else PROG
    assert lines[0].startswith(f"{command}: error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert result.stdout == ""
    assert snapshot(place) == before
