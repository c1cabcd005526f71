"""The command line when its surroundings fail: standard streams closed, a reader that goes away
(`| head`), an ASCII-only locale, bytes that are not UTF-8 on the command line, SIGTERM, special
files in folders, a compressed file that expands to one enormous word, outputs that exist, and
lines far longer than a read block printed as they are read."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import ROOT

from engine import Tokenizer
from engine.corpus.streams import MAX_LINE_BYTES, READ_SIZE

SAMPLE = ROOT / "resources" / "sample" / "shakespeare.txt"
COMMAND = [sys.executable, "-P", "-m", "workbench.cli"]
# a guard against hanging forever, not a time limit
GUARD = 300

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="FIFOs, signals and /proc are Linux's")


def run(*args: str | bytes, cwd: Path, env: dict[str, str] | None = None, shell_redirect: str = "") -> subprocess.CompletedProcess[bytes]:
    """The command, its output as bytes; `shell_redirect` ("<&-", ">&-") closes a standard stream."""
    argv: list[str | bytes] = [*COMMAND, *args]
    if shell_redirect:
        argv = ["sh", "-c", f'exec "$@" {shell_redirect}', "sh", *argv]
    return subprocess.run(argv, capture_output=True, cwd=cwd, env=env, timeout=GUARD, stdin=subprocess.DEVNULL)


def one_error(result: subprocess.CompletedProcess[bytes], status: int = 1) -> str:
    stderr = result.stderr.decode("utf-8")
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert result.returncode == status and len(lines) == 1, stderr
    return lines[0]


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the sample and a tokenizer per preset that --text is tried with."""
    folder = tmp_path_factory.mktemp("faults")
    lines = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)[:400]
    (folder / "small.txt").write_text("".join(lines), encoding="utf-8")
    for preset in ("bpe", "gpt2", "bert", "sentencepiece-bpe"):
        result = run("train", "--preset", preset, "--vocab-size", "300", "-q", "-o", f"{preset}.json", "small.txt", cwd=folder)
        assert result.returncode == 0, result.stderr
    return folder


# -- command-line bytes that are not UTF-8 ------------------------------------------------------


@pytest.mark.parametrize("preset", ["bpe", "gpt2", "bert", "sentencepiece-bpe"])
def test_text_with_bytes_that_are_not_utf8(place: Path, preset: str) -> None:
    # a byte 0xff in argv reaches Python as the lone surrogate U+DCFF (surrogateescape): it was a
    # TypeError traceback ("TextInputSequence must be str")
    for given, offset in ((b"\xff", 0), (b"caf\xe9 ok", 3)):
        result = run("encode", "-t", f"{preset}.json", "--text", given, cwd=place)
        message = one_error(result)
        byte = given[offset]
        assert message == (
            f"tokenizer-workbench: error: --text: byte 0x{byte:02x} at offset {offset} is not UTF-8 "
            "(use --errors replace to substitute U+FFFD, or --errors skip to drop it)"
        )
    tokenizer = Tokenizer.from_file(str(place / f"{preset}.json"))
    replaced = run("encode", "-t", f"{preset}.json", "--json", "--errors", "replace", "--text", b"caf\xe9 ok", cwd=place)
    assert replaced.returncode == 0, replaced.stderr
    assert json.loads(replaced.stdout)["ids"] == tokenizer.encode("caf\ufffd ok").ids
    skipped = run("encode", "-t", f"{preset}.json", "--errors", "skip", "--text", b"\xff", cwd=place)
    assert skipped.returncode == 0 and skipped.stdout == b""
    assert skipped.stderr.decode() == "note: skipped 1 line that is not UTF-8\n"


# -- standard streams ---------------------------------------------------------------------------


def test_stdin_closed(place: Path) -> None:
    result = run("encode", "-t", "bpe.json", cwd=place, shell_redirect="<&-")
    assert one_error(result) == "tokenizer-workbench: error: standard input is closed: give FILE arguments or --text to encode"
    # the commands that do not read it do not care
    trained = run("train", "--preset", "bpe", "--vocab-size", "200", "-q", "-o", "no-stdin.json", "small.txt", cwd=place, shell_redirect="<&-")
    assert trained.returncode == 0, trained.stderr
    assert Tokenizer.from_file(str(place / "no-stdin.json")).get_vocab_size() == 200


@pytest.mark.parametrize(
    ("args", "what"), [(["inspect", "bpe.json"], "the summary"), (["encode", "-t", "bpe.json", "--text", "hi"], "the tokens")]
)
def test_stdout_closed(place: Path, args: list[str], what: str) -> None:
    result = run(*args, cwd=place, shell_redirect=">&-")
    assert one_error(result) == f"tokenizer-workbench: error: standard output is closed: nowhere to write {what}"


def test_stdout_closed_does_not_let_an_output_file_take_its_place(place: Path) -> None:
    # with descriptor 1 closed, the first file opened would get number 1: it is /dev/null instead
    result = run("train", "--preset", "bpe", "--vocab-size", "200", "-o", "no-stdout.json", "small.txt", cwd=place, shell_redirect=">&-")
    assert result.returncode == 0, result.stderr
    assert Tokenizer.from_file(str(place / "no-stdout.json")).get_vocab_size() == 200


def test_a_reader_that_goes_away_ends_the_command_quietly(place: Path) -> None:
    # `encode ... | head -1`: a BrokenPipeError traceback and "error: : Broken pipe" before
    with subprocess.Popen([*COMMAND, "encode", "-t", "bpe.json", str(SAMPLE)], cwd=place, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.readline()
        process.stdout.close()
        stderr = process.stderr.read()
        assert process.wait(GUARD) == 141  # 128 + SIGPIPE, as a command the signal ends
    assert first.decode().startswith("First Citizen")
    assert stderr == b""


@pytest.mark.parametrize("preset", ["gpt2", "bert"])
def test_an_ascii_only_locale_gets_escapes_not_a_traceback(place: Path, preset: str) -> None:
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("LC_", "PYTHONIO"))}
    environment.update(LC_ALL="C", PYTHONUTF8="0", LANG="C")
    text = "naïve café ☃ 日本"
    inspected = run("inspect", f"{preset}.json", cwd=place, env=environment)
    assert inspected.returncode == 0, inspected.stderr
    inspected.stdout.decode("ascii")  # escaped where it could not be written
    shown = run("encode", "-t", f"{preset}.json", "--text", text, cwd=place, env=environment)
    assert shown.returncode == 0, shown.stderr
    tokenizer = Tokenizer.from_file(str(place / f"{preset}.json"))
    tokens = tokenizer.encode(text).tokens
    assert shown.stdout.decode("ascii") == " ".join(t.encode("ascii", "backslashreplace").decode() for t in tokens) + "\n"
    as_json = run("encode", "-t", f"{preset}.json", "--json", "--text", text, cwd=place, env=environment)
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout.decode("ascii"))["tokens"] == tokens  # JSON's own escapes


# -- SIGTERM --------------------------------------------------------------------------------------


def children_of(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(word) for word in text.split()]


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 MB of the sample: long enough to be counting when SIGTERM comes."""
    path = tmp_path_factory.mktemp("big") / "big.txt"
    data = SAMPLE.read_bytes()
    with open(path, "wb") as handle:
        for _ in range(40 * (1 << 20) // len(data)):
            handle.write(data)
    return path


@pytest.mark.parametrize("command", ["count", "train"])
def test_sigterm_stops_quietly_with_children_gone_and_nothing_written(big: Path, tmp_path: Path, command: str) -> None:
    out = tmp_path / ("out.tsv" if command == "count" else "out.json")
    args = ["count", "--preset", "bpe", "--processes", "2"] if command == "count" else ["train", "--preset", "bpe", "--vocab-size", "5000"]
    command_line = [*COMMAND, *args, "-q", "-o", str(out), str(big)]
    with subprocess.Popen(command_line, cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL) as process:
        assert process.stderr is not None
        children: list[int] = []
        for _ in range(30_000):  # (a guard: at most about 300 s)
            children = children_of(process.pid)
            if children or process.poll() is not None:
                break
            time.sleep(0.01)
        assert children, "the command forked no counting process"
        process.send_signal(signal.SIGTERM)
        stderr = process.stderr.read().decode()
        assert process.wait(GUARD) == 143
    assert stderr == "tokenizer-workbench: stopped by SIGTERM; nothing was written\n"
    assert os.listdir(tmp_path) == []
    for child in children:
        assert not Path(f"/proc/{child}").exists() or "zombie" in Path(f"/proc/{child}/status").read_text()


# -- files the user did not ask to touch ----------------------------------------------------------


def test_train_replaces_an_existing_file_only_with_force(place: Path, tmp_path: Path) -> None:
    out = tmp_path / "tok.json"
    out.write_text("precious", encoding="utf-8")
    refused = run("train", "--preset", "bpe", "--vocab-size", "150", "-q", "-o", str(out), str(place / "small.txt"), cwd=tmp_path)
    assert one_error(refused) == f"tokenizer-workbench: error: {out}: already exists; choose another name or pass --force to replace it"
    assert out.read_text(encoding="utf-8") == "precious"
    replaced = run("train", "--preset", "bpe", "--vocab-size", "150", "-q", "--force", "-o", str(out), str(place / "small.txt"), cwd=tmp_path)
    assert replaced.returncode == 0, replaced.stderr
    assert Tokenizer.from_file(str(out)).get_vocab_size() == 150
    assert sorted(os.listdir(tmp_path)) == ["tok.json"]


# -- special files and enormous words -------------------------------------------------------------


@pytest.mark.parametrize("command", ["train", "count"])
def test_a_fifo_in_a_folder_is_skipped_with_a_note(place: Path, tmp_path: Path, command: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.txt").write_bytes((place / "small.txt").read_bytes())
    os.mkfifo(data / "b.txt")  # read, it would block training forever
    out = tmp_path / "out"
    args = ["--preset", "bpe", "-q", "-o", str(out), str(data)]
    result = run(command, *(args if command == "count" else ["--vocab-size", "150", *args]), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    notes = [line for line in result.stderr.decode().splitlines() if line.startswith("note:")]
    assert notes == [f"note: skipped {data / 'b.txt'}: a named pipe (FIFO), not a regular file"]


def test_a_compressed_file_of_one_enormous_word_is_refused_at_the_bound(tmp_path: Path) -> None:
    # 70 MB of "a" without a space or line break, 70 KB packed: a MemoryError after 8 GB before
    packer = gzip.GzipFile(tmp_path / "bomb.txt.gz", "wb", compresslevel=9)
    with packer:
        for _ in range(MAX_LINE_BYTES // (1 << 20) + 6):
            packer.write(b"a" * (1 << 20))
    for preset in ("bpe", "sentencepiece-bpe"):
        result = run("train", "--preset", preset, "--vocab-size", "100", "-q", "-o", "out.json", "bomb.txt.gz", cwd=tmp_path)
        what = "a word longer than 64 MB" if preset == "bpe" else "a line longer than 64 MB"
        assert one_error(result).startswith(f"tokenizer-workbench: error: bomb.txt.gz: has {what}")
        assert one_error(result).endswith("; it starts in the decompressed text at byte 0")
    assert os.listdir(tmp_path) == ["bomb.txt.gz"]


# -- long lines printed as they are read ------------------------------------------------------


@pytest.mark.parametrize("as_json", [False, True])
def test_a_line_longer_than_a_block_prints_the_tokens_of_the_whole_line(place: Path, tmp_path: Path, as_json: bool) -> None:
    words = ["First", "Citizen:", "Before", "we", "proceed", "any", "further,", "hear", "me", "speak."]
    line = " ".join(words[i % len(words)] + str(i % 7) for i in range(2 * READ_SIZE // 7))
    assert len(line) > 2 * READ_SIZE - 1000
    path = tmp_path / "long.txt"
    path.write_text(f"short\n{line}\nend", encoding="utf-8")
    result = run("encode", "-t", "bpe.json", *(["--json"] if as_json else []), str(path), cwd=place)
    assert result.returncode == 0, result.stderr
    tokenizer = Tokenizer.from_file(str(place / "bpe.json"))
    printed = result.stdout.decode("utf-8").split("\n")
    assert printed[-1] == "" and len(printed) == 4
    for text, shown in zip(["short", line, "end"], printed):
        encoding = tokenizer.encode(text)
        if as_json:
            expected = {"ids": encoding.ids, "tokens": encoding.tokens, "offsets": [list(pair) for pair in encoding.offsets]}
            assert json.loads(shown) == expected
        else:
            assert shown == " ".join(encoding.tokens)


def test_file_names_that_are_not_utf8(place: Path, tmp_path: Path) -> None:
    corpus = os.fsdecode(b"caf\xe9.txt")
    (tmp_path / corpus).write_bytes((place / "small.txt").read_bytes())
    trained = run("train", "--preset", "bpe", "--vocab-size", "150", "-q", "-o", os.fsdecode(b"t\xff.json"), corpus, cwd=tmp_path)
    assert trained.returncode == 0, trained.stderr
    assert trained.stderr.decode().endswith("-> t\\udcff.json\n")  # escaped on stderr
    encoded = run("encode", "-t", os.fsdecode(b"t\xff.json"), "-q", "--out", "ids.bin", corpus, cwd=tmp_path)
    assert encoded.returncode == 0, encoded.stderr
    assert json.loads((tmp_path / "ids.bin.json").read_text(encoding="utf-8"))["files"] == ["caf\\xe9.txt"]
    inspected = run("inspect", os.fsdecode(b"t\xff.json"), cwd=tmp_path)
    assert inspected.returncode == 0 and inspected.stdout.startswith(b"file:            t\\udcff.json\n")


def test_sigterm_while_printing_says_only_that_it_stopped(place: Path, big: Path) -> None:
    # standard output already has lines: "nothing was written" would not be true
    with subprocess.Popen([*COMMAND, "encode", "-t", "bpe.json", str(big)], cwd=place, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline().startswith(b"First Citizen")
        process.send_signal(signal.SIGTERM)
        process.stdout.read()
        stderr = process.stderr.read()
        assert process.wait(GUARD) == 143
    assert stderr == b"tokenizer-workbench: stopped by SIGTERM\n"
