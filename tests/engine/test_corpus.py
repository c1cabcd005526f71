"""engine.corpus.counting: HF's line semantics, strict UTF-8 with exact byte offsets, every bad input,
progress and cancel, and one process == several processes."""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
import regex
from support import Recorder

from engine.corpus.counting import PipelineWords, WordSplitter, count_words, count_words_from_iterator
from engine.corpus.units import BLOCK_SIZE
from engine.errors import CorpusError, TrainingCancelled
from engine.normalizers import Lowercase
from engine.pre_tokenizers import ByteLevel, Whitespace
from engine.progress import STAGE_COUNT_WORDS, STAGE_READ, SilentProgress


class Lines(WordSplitter):
    """Each line is one word, exactly as received (shows what the reader hands out)."""

    def words(self, line: str) -> list[str]:
        return [line]


class RegexWords(WordSplitter):
    """`\\w+|[^\\w\\s]+`, a stand-in for a pre-tokenizer."""

    pattern = regex.compile(r"\w+|[^\w\s]+")

    def words(self, line: str) -> list[str]:
        return self.pattern.findall(line)


def write(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


# -- line semantics -------------------------------------------------------------------------


def test_lines_keep_their_newline_and_crlf_and_a_lone_cr_is_no_break(tmp_path: Path) -> None:
    name = write(tmp_path / "a.txt", b"one\r\ntwo\rthree\n\nlast")
    assert count_words([name], Lines(), SilentProgress()) == {"one\r\n": 1, "two\rthree\n": 1, "\n": 1, "last": 1}


def test_equal_lines_are_counted_each_time(tmp_path: Path) -> None:
    name = write(tmp_path / "a.txt", b"x y\nx y\nz\nx y\n")
    assert count_words([name], RegexWords(), SilentProgress()) == {"x": 3, "y": 3, "z": 1}
    assert count_words([name], Lines(), SilentProgress()) == {"x y\n": 3, "z\n": 1}


def test_several_files_are_read_in_turn(tmp_path: Path) -> None:
    first = write(tmp_path / "1.txt", b"a b")
    second = write(tmp_path / "2.txt", b"b c\n")
    # the first file's last line has no newline: it stays its own line
    assert count_words([first, second], Lines(), SilentProgress()) == {"a b": 1, "b c\n": 1}


def test_a_line_longer_than_a_block_is_one_line(tmp_path: Path) -> None:
    long_line = b"ab" * BLOCK_SIZE + b"\n"
    name = write(tmp_path / "long.txt", b"x\n" + long_line + b"y")
    counts = count_words([name], Lines(), SilentProgress())
    assert counts == {"x\n": 1, long_line.decode(): 1, "y": 1}


@pytest.mark.parametrize("pre_tokenizer", [Whitespace(), ByteLevel(add_prefix_space=True)], ids=["whitespace", "byte_level"])
def test_a_line_of_megabytes_counts_as_one_line(tmp_path: Path, pre_tokenizer: object) -> None:
    # read in blocks cut at spaces (engine.corpus.chunking's cutters), never whole: the same counts
    words = ["naïve", "words,", "  spaced", "x2", "end.\t", "'s", "中文", "  "]
    line = " ".join(words[i % len(words)] + str(i % 97) for i in range(260_000))
    assert len(line.encode()) > 3 * BLOCK_SIZE
    name = write(tmp_path / "long.txt", ("short line\n" + line + "\nlast").encode())
    assert isinstance(pre_tokenizer, (Whitespace, ByteLevel))
    splitter = PipelineWords(None, pre_tokenizer)
    expected: Counter[str] = Counter()
    for text in ("short line\n", line + "\n", "last"):
        expected.update(splitter.words(text))
    assert count_words([name], splitter, SilentProgress(), processes=1) == dict(expected)


def test_a_bom_is_kept_like_hf_does(tmp_path: Path) -> None:
    name = write(tmp_path / "bom.txt", "\ufeffword\n".encode())
    assert count_words([name], Lines(), SilentProgress()) == {"\ufeffword\n": 1}


# -- bad input -------------------------------------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.txt")
    with pytest.raises(CorpusError) as caught:
        count_words([missing], Lines(), SilentProgress())
    assert caught.value.path == missing
    assert missing in str(caught.value) and "not found" in str(caught.value)


def test_a_directory(tmp_path: Path) -> None:
    with pytest.raises(CorpusError) as caught:
        count_words([str(tmp_path)], Lines(), SilentProgress())
    assert caught.value.path == str(tmp_path)
    assert "directory" in caught.value.reason


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="permissions do not stop root")
def test_an_unreadable_file(tmp_path: Path) -> None:
    name = write(tmp_path / "secret.txt", b"text\n")
    os.chmod(name, 0)
    try:
        with pytest.raises(CorpusError) as caught:
            count_words([name], Lines(), SilentProgress())
        assert caught.value.path == name and "cannot be read" in caught.value.reason
    finally:
        os.chmod(name, 0o600)


def test_a_bad_file_is_found_before_any_reading(tmp_path: Path) -> None:
    good = write(tmp_path / "good.txt", b"text\n")
    sink = Recorder()
    with pytest.raises(CorpusError) as caught:
        count_words([good, str(tmp_path / "missing.txt")], Lines(), sink)
    assert caught.value.path.endswith("missing.txt")
    assert sink.events == []


@pytest.mark.parametrize(
    ("data", "offset"),
    [
        (b"hello\nwor\xffld\n", 9),  # invalid start byte
        (b"ok\n\xe2\x82", 3),  # truncated 3-byte sequence at the end
        (b"caf\xc3\xa9 \xc3\x28\n", 6),  # bad continuation byte: the sequence starts at 6
        (b"\xed\xa0\x80\n", 0),  # an encoded surrogate is not UTF-8
        (b"line\n" * 300_000 + b"tail \x80\n", 1_500_005),  # far beyond the first block
    ],
)
def test_non_utf8_reports_the_absolute_byte_offset(tmp_path: Path, data: bytes, offset: int) -> None:
    name = write(tmp_path / "bad.txt", data)
    with pytest.raises(CorpusError) as caught:
        count_words([name], RegexWords(), SilentProgress(), processes=1)
    assert caught.value.path == name
    assert caught.value.byte_offset == offset
    assert "UTF-8" in caught.value.reason and f"at byte {offset}" in str(caught.value)


def test_non_utf8_in_a_child_process_part_reports_the_absolute_offset(tmp_path: Path) -> None:
    data = b"some words here\n" * 200_000 + b"bad \xff byte\n" + b"more\n" * 1000
    name = write(tmp_path / "bad.txt", data)
    with pytest.raises(CorpusError) as caught:
        count_words([name], RegexWords(), SilentProgress(), processes=2)
    assert caught.value.byte_offset == 16 * 200_000 + 4
    assert multiprocessing.active_children() == []


def test_all_inputs_empty(tmp_path: Path) -> None:
    first = write(tmp_path / "e1.txt", b"")
    second = write(tmp_path / "e2.txt", b"")
    with pytest.raises(CorpusError) as caught:
        count_words([first, second], Lines(), SilentProgress())
    assert "empty" in caught.value.reason
    assert first in str(caught.value) and second in str(caught.value)


def test_an_empty_file_among_others_is_fine(tmp_path: Path) -> None:
    empty = write(tmp_path / "e.txt", b"")
    full = write(tmp_path / "f.txt", b"word\n")
    assert count_words([empty, full], RegexWords(), SilentProgress()) == {"word": 1}


def test_inputs_without_words(tmp_path: Path) -> None:
    name = write(tmp_path / "blank.txt", b" \n\t\n\n")
    with pytest.raises(CorpusError) as caught:
        count_words([name], RegexWords(), SilentProgress())
    assert "no words" in caught.value.reason


def test_no_files_at_all() -> None:
    with pytest.raises(CorpusError):
        count_words([], Lines(), SilentProgress())


# -- progress, cancel, processes --------------------------------------------------------------


def test_progress_counts_bytes_about_every_percent(tmp_path: Path) -> None:
    name = write(tmp_path / "a.txt", b"a few words\n" * 400_000)
    sink = Recorder()
    count_words([name], RegexWords(), sink, processes=1)
    assert all(e.stage == STAGE_READ and e.unit == "bytes" for e in sink.events)
    assert [e.current for e in sink.events] == sorted(e.current for e in sink.events)
    assert sink.events[0].current == 0
    assert sink.events[-1].current == sink.events[-1].total == 4_800_000
    assert len(sink.events) >= 5


@pytest.mark.parametrize("processes", [1, 2])
def test_a_sink_returning_false_cancels(tmp_path: Path, processes: int) -> None:
    name = write(tmp_path / "a.txt", b"a few words\n" * 400_000)
    with pytest.raises(TrainingCancelled):
        count_words([name], RegexWords(), Recorder(stop_after=3), processes=processes)
    assert multiprocessing.active_children() == []


def test_several_processes_count_exactly_like_one(tmp_path: Path) -> None:
    lines = [f"line {i} has words {i % 17} and {i % 5}\n".encode() for i in range(120_000)]
    first = write(tmp_path / "1.txt", b"".join(lines[:70_000]))
    second = write(tmp_path / "2.txt", b"".join(lines[70_000:]) + b"no newline at the end")
    third = write(tmp_path / "3.txt", "ünïcödé wörds\r\n".encode() * 5000)
    files = [first, second, third]
    one = count_words(files, RegexWords(), SilentProgress(), processes=1)
    for processes in (2, 3):
        sink = Recorder()
        assert count_words(files, RegexWords(), sink, processes=processes) == one
        assert sink.events[-1].current == sink.events[-1].total == sum(os.path.getsize(f) for f in files)
    assert one["line"] == 120_000 and one["ünïcödé"] == 5000 and one["end"] == 1


def test_shared_corpus_one_process_equals_two(corpora: Path) -> None:
    name = str(corpora / "shakespeare.txt")
    splitter = PipelineWords(None, ByteLevel(add_prefix_space=False))
    assert count_words([name], splitter, SilentProgress(), processes=2) == count_words([name], splitter, SilentProgress(), processes=1)


class Pids(WordSplitter):
    """Each line counts as the id of the process that split it."""

    def words(self, line: str) -> list[str]:
        return [str(os.getpid())]


@pytest.mark.skipif(not sys.platform.startswith("linux") or threading.active_count() > 1, reason="counts in one process here")
def test_two_processes_really_share_the_work(tmp_path: Path) -> None:
    name = write(tmp_path / "a.txt", b"line\n" * 100_000)
    counts = count_words([name], Pids(), SilentProgress(), processes=2)
    assert len(counts) == 2 and str(os.getpid()) in counts
    assert sum(counts.values()) == 100_000
    assert min(counts.values()) > 30_000  # cut near the middle, at a line start


_KILLS_ITSELF = """
import multiprocessing, os, sys
from engine.corpus.counting import PipelineWords, count_words
from engine.pre_tokenizers import Whitespace
from engine.progress import ProgressSink

class KillOnceChildrenRun(ProgressSink):
    def report(self, progress):
        children = multiprocessing.active_children()
        if children:
            print(" ".join(str(child.pid) for child in children), flush=True)
            os.kill(os.getpid(), 9)
        return True

count_words([sys.argv[1]], PipelineWords(None, Whitespace()), KillOnceChildrenRun(), processes=2)
"""


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie has exited
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked counting processes are Linux only")
def test_counting_processes_exit_when_their_parent_is_killed(tmp_path: Path) -> None:
    import subprocess
    import time

    # enough distinct words that a child's counts do not fit in a pipe's buffer
    text = "".join(f"w{i} x{i % 977} y{i % 13}\n" for i in range(400_000))
    name = write(tmp_path / "a.txt", text.encode())
    # (the output goes to files: the children inherit them, and a pipe would stay open with them)
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with open(out, "w") as stdout, open(err, "w") as stderr:
        run = subprocess.run([sys.executable, "-c", _KILLS_ITSELF, name], stdout=stdout, stderr=stderr, check=False)
    assert run.returncode == -9, err.read_text()
    pids = [int(pid) for pid in out.read_text().split()]
    assert pids
    # subtle: a liveness check, not a speed limit: before the fix, the child blocked forever
    # on a pipe whose only reader was its own inherited end.
    deadline = time.monotonic() + 120
    while not all(_gone(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [pid for pid in pids if not _gone(pid)]
    for pid in left:
        os.kill(pid, 9)
    assert not left, "counting processes outlived their killed parent"


def test_work_is_cut_at_line_starts(tmp_path: Path) -> None:
    name = write(tmp_path / "a.txt", b"".join(f"{i:05d} words\n".encode() for i in range(50_000)))
    counts = count_words([name], Lines(), SilentProgress(), processes=4)
    assert len(counts) == 50_000 and set(counts.values()) == {1}


# -- iterator ------------------------------------------------------------------------------


def test_iterator_texts_are_split_whole() -> None:
    sink = Recorder()
    counts = count_words_from_iterator(iter(["a b\nc", "a"]), RegexWords(), sink, length=2)
    assert counts == {"a": 2, "b": 1, "c": 1}
    assert sink.events[0].stage == STAGE_COUNT_WORDS
    assert sink.events[-1].current == sink.events[-1].total == 2


def test_iterator_without_words() -> None:
    with pytest.raises(CorpusError):
        count_words_from_iterator(["", "  "], RegexWords(), SilentProgress())


def test_iterator_cancel() -> None:
    with pytest.raises(TrainingCancelled):
        count_words_from_iterator((f"w{i}" for i in range(10_000)), RegexWords(), Recorder(stop_after=2), length=10_000)


# -- PipelineWords ---------------------------------------------------------------------------


def test_pipeline_words_normalizes_then_pre_tokenizes() -> None:
    assert PipelineWords(Lowercase(), Whitespace()).words("Hello, World!\n") == ["hello", ",", "world", "!"]
    assert PipelineWords(None, ByteLevel(add_prefix_space=False)).words("Hi there\n") == ["Hi", "Ġthere", "Ċ"]


def test_pipeline_words_without_pre_tokenizer_is_the_whole_line() -> None:
    assert PipelineWords(Lowercase(), None).words("Two Words\n") == ["two words\n"]
    assert PipelineWords(None, None).words("") == []


def test_counts_match_a_plain_recount(corpora: Path) -> None:
    name = corpora / "botchan.txt"
    text = name.read_text(encoding="utf-8")
    expected = Counter(word for line in text.split("\n") for word in RegexWords.pattern.findall(line))
    assert count_words([str(name)], RegexWords(), SilentProgress()) == dict(expected)


# -- slices and file checks ----------------------------------------------------------------------


def test_slices_count_exactly_their_lines(tmp_path: Path) -> None:
    from engine.corpus.units import FileSlice, line_start_after

    path = tmp_path / "c.txt"
    lines = [f"word{i} common\n" for i in range(2000)]
    path.write_text("".join(lines), encoding="utf-8")
    size = path.stat().st_size
    cut = line_start_after(str(path), size // 2, size)
    assert path.read_bytes()[cut - 1 : cut] == b"\n"
    head = count_words([FileSlice(str(path), 0, cut)], RegexWords(), SilentProgress(), processes=1)
    tail = count_words([FileSlice(str(path), cut, size)], RegexWords(), SilentProgress(), processes=1)
    whole = count_words([str(path)], RegexWords(), SilentProgress(), processes=1)
    assert Counter(head) + Counter(tail) == Counter(whole)
    assert count_words([FileSlice(str(path), 0, cut), str(path)], RegexWords(), SilentProgress(), processes=2) == dict(
        Counter(head) + Counter(whole)
    )
    with pytest.raises(CorpusError, match="fewer than the slice's end"):
        count_words([FileSlice(str(path), 0, size + 10)], RegexWords(), SilentProgress())


def test_check_file_reports_size_lines_checksum_and_the_first_bad_byte(tmp_path: Path) -> None:
    import hashlib

    from engine.corpus.checks import check_file

    good = tmp_path / "good.txt"
    good.write_text("one\ntwo\nthree", encoding="utf-8")
    check = check_file(str(good))
    assert (check.size, check.lines, check.ok) == (13, 3, True)
    assert check.sha256 == hashlib.sha256(good.read_bytes()).hexdigest()
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ab\ncaf\xc3\xa9\n\xe9x\n")
    assert check_file(str(bad)).problem == "is not valid UTF-8 (invalid continuation byte) at byte 9"
    cut = tmp_path / "cut.txt"
    cut.write_bytes(b"x" * (1 << 19) + "é".encode()[:1])  # a sequence cut by the end of the file
    assert "at byte 524288" in check_file(str(cut)).problem
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert check_file(str(empty)).problem == "is empty"
    with pytest.raises(CorpusError, match="not found"):
        check_file(str(tmp_path / "nope.txt"))
