"""engine.corpus.word_counts: the SentencePiece `word<TAB>count` table, written sorted and atomically,
read back strictly, every bad line named."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from engine.errors import CorpusError, EngineError
from engine.corpus.word_counts import MAX_COUNT, MAX_TABLE_LINE, read_counts, write_counts


def test_written_table_is_sorted_by_count_then_code_point(tmp_path: Path) -> None:
    path = tmp_path / "counts.tsv"
    write_counts(str(path), {"b": 2, "a": 2, "c": 5, "B": 2, "é": 1})
    assert path.read_bytes() == "c\t5\nB\t2\na\t2\nb\t2\né\t1\n".encode()


@pytest.mark.parametrize(
    "counts",
    [
        {"hello": 3, "world": 1},
        {"▁the": 10, "Ġthe": 9, "ĠĊ": 2, "日本語": 4, "👩\u200d💻": 1, "e\u0301": 7, "שלום": 2},
        {"big": 2**40 + 3, "bigger": 2**62 + 1, "one": 1},
        {"largest": MAX_COUNT},
        {"\x00": 1, "\x0b\x0c": 2, " ": 3, "  a  ": 4, "\u2028": 5, "\u0085": 6},
    ],
)
def test_round_trip(tmp_path: Path, counts: dict[str, int]) -> None:
    path = tmp_path / "counts.tsv"
    write_counts(str(path), counts)
    assert read_counts(str(path)) == counts


def test_crlf_line_ends_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "counts.tsv"
    path.write_bytes(b"a\t3\r\nb\t2\r\n\xe2\x96\x81c\t1")
    assert read_counts(str(path)) == {"a": 3, "b": 2, "▁c": 1}


def test_lone_carriage_return_stays_in_the_word(tmp_path: Path) -> None:
    path = tmp_path / "counts.tsv"
    path.write_bytes(b"a\rb\t3\n")
    assert read_counts(str(path)) == {"a\rb": 3}


def test_overwrites_atomically_and_keeps_the_mode(tmp_path: Path) -> None:
    path = tmp_path / "counts.tsv"
    path.write_text("old\t1\n")
    os.chmod(path, 0o640)
    write_counts(str(path), {"new": 2})
    assert path.read_text() == "new\t2\n"
    assert (os.stat(path).st_mode & 0o777) == 0o640
    assert os.listdir(tmp_path) == ["counts.tsv"]


@pytest.mark.parametrize("word", ["a\tb", "line\n", "cr\rlf", "\r\n"])
def test_word_with_tab_or_line_break_cannot_be_written(tmp_path: Path, word: str) -> None:
    path = tmp_path / "counts.tsv"
    path.write_text("kept\t1\n")
    with pytest.raises(CorpusError) as raised:
        write_counts(str(path), {"fine": 5, word: 1})
    message = str(raised.value)
    assert repr(word) in message
    assert "does not split on whitespace" in message
    assert isinstance(raised.value, EngineError)
    assert path.read_text() == "kept\t1\n"
    assert os.listdir(tmp_path) == ["counts.tsv"]


def test_empty_word_and_bad_count_cannot_be_written(tmp_path: Path) -> None:
    path = str(tmp_path / "counts.tsv")
    with pytest.raises(CorpusError, match="empty word"):
        write_counts(path, {"": 1})
    with pytest.raises(CorpusError, match=r"'a' with count 0: counts must be positive"):
        write_counts(path, {"a": 0})
    with pytest.raises(CorpusError, match=r"'a' with count 9223372036854775808: counts must be at most 9,223,372,036,854,775,807$"):
        write_counts(path, {"a": MAX_COUNT + 1})
    assert not os.path.exists(path)


def test_write_into_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="does not exist"):
        write_counts(str(tmp_path / "nope" / "counts.tsv"), {"a": 1})


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"a\t1\nnotab\n", "line 2: no tab in 'notab'; expected word<TAB>count"),
        (b"a\t1\n\nb\t2\n", "line 2: is empty; expected word<TAB>count"),
        (b"a\t1\n\tb\n", "line 2: empty word before the tab"),
        (b"a\tx1\n", "line 1: the count 'x1' is not a positive integer"),
        (b"a\t0\n", "line 1: the count '0' is not a positive integer"),
        (b"a\t-3\n", "line 1: the count '-3' is not a positive integer"),
        (b"a\t\n", "line 1: the count '' is not a positive integer"),
        (b"a\t 3\n", "line 1: the count ' 3' is not a positive integer"),
        (b"a\t3\t4\n", "line 1: more than one tab in 'a\\t3\\t4'; expected word<TAB>count"),
        ("a\t٣\n".encode(), "line 1: the count '٣' is not a positive integer"),
        (b"a\t" + b"9" * 60 + b"x\n", "line 1: the count '" + "9" * 40 + "'... is not a positive integer"),
        # superscript and other digits that str.isdigit() accepts, and int() partly does
        ("a\t²\n".encode(), "line 1: the count '²' is not a positive integer"),
        ("a\t1²\n".encode(), "line 1: the count '1²' is not a positive integer"),
        ("a\t１２\n".encode(), "line 1: the count '１２' is not a positive integer"),
        # past the trainers' i64, and past Python's 4,300-digit limit of int()
        (
            b"a\t9223372036854775808\n",
            "line 1: the count '9223372036854775808' (19 digits) is too large: counts must be at most 9,223,372,036,854,775,807",
        ),
        (
            b"a\t" + b"9" * 5000 + b"\n",
            "line 1: the count '" + "9" * 40 + "'... (5,000 digits) is too large: counts must be at most 9,223,372,036,854,775,807",
        ),
        (
            b"a\t9223372036854775807\nb\t1\n",
            "line 2: the counts add up to more than 9,223,372,036,854,775,807, the most the trainers can count",
        ),
        (b"a\t1\nb\t2\nc\t3\nb\t4\n", "line 4: the word 'b' was already on line 2"),
        (b"", "is empty: a word-count table needs at least one word<TAB>count line"),
    ],
)
def test_bad_tables(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "counts.tsv"
    path.write_bytes(content)
    with pytest.raises(CorpusError) as raised:
        read_counts(str(path))
    assert str(raised.value) == f"{path}: {message}"
    assert raised.value.path == str(path)


def test_leading_zeros_do_not_make_a_count_too_large(tmp_path: Path) -> None:
    path = tmp_path / "counts.tsv"
    path.write_bytes(b"a\t" + b"0" * 30 + b"7\n")
    assert read_counts(str(path)) == {"a": 7}


def test_line_past_the_bound_is_refused_before_it_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "counts.tsv"
    path.write_bytes(b"a\t1\n" + b"x" * (MAX_TABLE_LINE + 5))
    with pytest.raises(CorpusError) as raised:
        read_counts(str(path))
    assert str(raised.value) == f"{path}: line 2: longer than 1 MB, so not a word<TAB>count line; it starts at byte 4"


def test_fifo_is_refused_without_being_opened(tmp_path: Path) -> None:
    path = tmp_path / "counts.tsv"
    os.mkfifo(path)
    with pytest.raises(CorpusError) as raised:
        read_counts(str(path))
    assert str(raised.value) == f"{path}: is a named pipe (FIFO), not a word-count table"


def test_not_utf8_names_line_and_byte_offset(tmp_path: Path) -> None:
    path = tmp_path / "counts.tsv"
    path.write_bytes(b"ab\t1\ncd\t2\nx\xffy\t3\n")
    with pytest.raises(CorpusError) as raised:
        read_counts(str(path))
    assert raised.value.byte_offset == 11
    assert str(raised.value) == f"{path}: line 3: is not valid UTF-8 (invalid start byte) at byte 11"


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="file not found"):
        read_counts(str(tmp_path / "missing.tsv"))
    with pytest.raises(CorpusError, match="is a directory"):
        read_counts(str(tmp_path))


def test_a_fifo_is_never_replaced_by_a_table(tmp_path: Path) -> None:
    path = tmp_path / "counts.tsv"
    os.mkfifo(path)
    with pytest.raises(CorpusError) as raised:
        write_counts(str(path), {"a": 1})
    assert str(raised.value) == f"{path}: is a named pipe (FIFO), not a file a table can replace"
    assert stat.S_ISFIFO(os.stat(path).st_mode) and os.listdir(tmp_path) == ["counts.tsv"]
