"""Byte-level training words counted on bytes (engine.corpus.byte_words) equal the words HF's
trainer counts line by line: `ByteLevel.split_words` of each line, whatever the blocks."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import CorpusError, normalizers, pre_tokenizers
from engine.corpus.byte_words import WordTable, count_lines
from engine.corpus.chunking import SEGMENT_CUTTER, ascii_byte_level
from engine.corpus.counting import PipelineWords, WordSplitter, count_words
from engine.progress import SilentProgress

# GPT-2's classes and contractions, every ASCII space char and control, the chars `needs_lines`
# sends line by line, and non-ASCII text (spaces included) for the lines counted as text.
ALPHABET = "ab Z9'srtvelmd \t\r\x0b\x0c\x1c\x1f\x01,.!~é中\u3000\x85\u00a0"
WORDS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'x", " ", "  ", "\t ", "ab", " 12", "!!"]

PIPELINES = {
    "byte_level": (None, pre_tokenizers.ByteLevel(add_prefix_space=False)),
    "byte_level_prefix": (None, pre_tokenizers.ByteLevel(add_prefix_space=True)),
    "nfc_byte_level": (normalizers.NFC(), pre_tokenizers.ByteLevel(add_prefix_space=False)),
    "nfkc_nfd_byte_level_prefix": (
        normalizers.Sequence([normalizers.NFKC(), normalizers.NFD()]),
        pre_tokenizers.ByteLevel(add_prefix_space=True),
    ),
}

texts = st.lists(st.sampled_from(list(ALPHABET) + WORDS + ["\n"]), max_size=40).map("".join)


def _line_by_line(splitter: PipelineWords, text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    WordSplitter.count_text(splitter, text, text.endswith("\n"), counts)
    return counts


def _on_bytes(splitter: PipelineWords, blocks: list[bytes], complete: list[bool]) -> dict[str, int]:
    counts: dict[str, int] = {}
    offset = 0
    for data, ends in zip(blocks, complete):
        splitter.count_bytes("corpus.txt", data, offset, ends, counts)
        offset += len(data)
    splitter.flush(counts)
    return counts


@pytest.mark.parametrize("name", sorted(PIPELINES))
@settings(max_examples=300, deadline=None)
@given(text=texts, cut=st.integers(0, 60))
def test_words_counted_on_bytes_equal_the_words_of_each_line(name: str, text: str, cut: int) -> None:
    normalizer, pre_tokenizer = PIPELINES[name]
    splitter = PipelineWords(normalizer, pre_tokenizer, on_bytes=True)
    assert splitter.on_bytes
    data = text.encode()
    expected = _line_by_line(splitter, text)
    assert _on_bytes(splitter, [data], [text.endswith("\n")]) == expected
    # Two blocks: at a line end, or inside a line where the long-line cutter allows it.
    at = data.rfind(b"\n", 0, cut) + 1 or SEGMENT_CUTTER.cut(data[:cut])
    if 0 < at < len(data):
        first, rest = data[:at], data[at:]
        assert _on_bytes(splitter, [first, rest], [first.endswith(b"\n"), text.endswith("\n")]) == expected


def test_a_hand_checked_block() -> None:
    table = WordTable()
    data = "He's  here\t\n\n12 ab!!\né ok\nlast".encode()
    skipped = count_lines(data, table, add_prefix_space=True)
    counts: dict[str, int] = {}
    table.add_to(counts)
    # " He" (the prefix space) "'s" " " " here" "\t\n"; " \n" (an empty line gets the prefix
    # too); " 12" " ab" "!!" "\n"; the non-ASCII line is left out; " last" (no "\n")
    assert counts == {"ĠHe": 1, "'s": 1, "Ġ": 1, "Ġhere": 1, "ĉĊ": 1, "ĠĊ": 1, "Ġ12": 1, "Ġab": 1, "!!": 1, "Ċ": 1, "Ġlast": 1}
    assert list(skipped) == [len("He's  here\t\n\n12 ab!!\n".encode()), len("He's  here\t\n\n12 ab!!\né ok\n".encode())]
    assert len(table) == 0  # add_to empties it


def test_many_distinct_words_grow_the_table() -> None:
    table = WordTable()
    lines = [f"w{i} x{i % 7}\n" for i in range(5000)]
    assert len(count_lines("".join(lines).encode(), table, add_prefix_space=False)) == 0
    assert len(table) == 5003  # "w", "0" to "4999", " x", "\n"
    counts: dict[str, int] = {}
    table.add_to(counts)
    expected: dict[str, int] = {}
    for line in lines:
        for word in pre_tokenizers.ByteLevel(add_prefix_space=False).split_words(line):
            expected[word] = expected.get(word, 0) + 1
    assert counts == expected
    assert counts["Ġx"] == 5000 and counts["3"] == 1 + 714


def test_pipelines_counted_on_bytes() -> None:
    byte_level = pre_tokenizers.ByteLevel()
    assert ascii_byte_level(None, byte_level) is byte_level
    assert ascii_byte_level(normalizers.Sequence([normalizers.NFC(), normalizers.NFKD()]), byte_level) is byte_level
    # Lowercase changes ASCII; no regex, or ByteLevel inside a Sequence, is another split.
    assert ascii_byte_level(normalizers.Lowercase(), byte_level) is None
    assert ascii_byte_level(None, pre_tokenizers.ByteLevel(use_regex=False)) is None
    assert ascii_byte_level(None, pre_tokenizers.Sequence([byte_level])) is None
    assert ascii_byte_level(None, pre_tokenizers.Whitespace()) is None
    assert not PipelineWords(normalizers.Lowercase(), byte_level, on_bytes=True).on_bytes
    assert not PipelineWords(None, byte_level, on_bytes=False).on_bytes


def test_a_bad_utf8_line_is_named_by_its_byte_and_nothing_is_counted_past_it(tmp_path: Path) -> None:
    good = b"plain ascii line\n" * 3
    path = tmp_path / "corpus.txt"
    path.write_bytes(good + b"caf\xe9 au lait\n" + b"more\n")
    splitter = PipelineWords(None, pre_tokenizers.ByteLevel(add_prefix_space=False), on_bytes=True)
    with pytest.raises(CorpusError) as raised:
        count_words([str(path)], splitter, SilentProgress(), processes=1)
    assert raised.value.path == str(path)
    assert raised.value.byte_offset == len(good) + 3
    assert "not valid UTF-8" in str(raised.value)


def test_a_file_counts_the_same_on_bytes_and_as_text(tmp_path: Path) -> None:
    lines = ["The cat's toys, 12 of them.\n", "  indented\tand tabbed  \n", "naïve café — ok\n", "\n", "x" * 50 + " " + "y" * 50]
    path = tmp_path / "corpus.txt"
    path.write_text("".join(lines * 200), encoding="utf-8")
    for prefix in (False, True):
        pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=prefix)
        on_bytes = count_words([str(path)], PipelineWords(None, pre_tokenizer, on_bytes=True), SilentProgress(), processes=1)
        as_text = count_words([str(path)], PipelineWords(None, pre_tokenizer, on_bytes=False), SilentProgress(), processes=1)
        assert on_bytes == as_text
        assert on_bytes["Ġcat"] == 200 and on_bytes["Ġcaf" + "Ã©"] == 200


def test_a_packed_table_absorbed_elsewhere_counts_the_same() -> None:
    first, second = WordTable(), WordTable()
    count_lines(b"a b a\n" + b"long_words_here " * 3 + b"\n", first, add_prefix_space=True)
    count_lines(b"a c\n", second, add_prefix_space=True)
    joined, counts = first.pack()
    # in the order first seen; " long" once as the line's first word (the prefix), twice after a space
    assert joined.split(b"\xff")[:5] == [b" a", b" b", b"\n", b" long", b"_"] and counts[:5] == [2, 1, 1, 3, 6]
    assert len(first) == 0  # packing empties it
    second.absorb(joined, counts)
    added: dict[str, int] = {}
    second.add_to(added)
    expected: dict[str, int] = {}
    for line in ["a b a\n", "long_words_here " * 3 + "\n", "a c\n"]:
        for word in pre_tokenizers.ByteLevel(add_prefix_space=True).split_words(line):
            expected[word] = expected.get(word, 0) + 1
    assert added == expected
    assert added["Ġa"] == 3 and added["Ġlong"] == 3 and added["ĠĊ"] == 1


@pytest.mark.parametrize("prefix", [False, True])
def test_counting_processes_hand_their_words_over_packed(tmp_path: Path, prefix: bool) -> None:
    lines = ["The cat's toys, 12 of them.\n", "naïve café — ok\n", "  spaced   out\t\n", "word%d and more\n"]
    path = tmp_path / "corpus.txt"
    path.write_text("".join(lines[i % 4].replace("%d", str(i)) for i in range(4000)), encoding="utf-8")
    pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=prefix)
    forked = count_words([str(path)], PipelineWords(None, pre_tokenizer, on_bytes=True), SilentProgress(), processes=2)
    as_text = count_words([str(path)], PipelineWords(None, pre_tokenizer, on_bytes=False), SilentProgress(), processes=1)
    assert forked == as_text
    assert forked["Ġcat"] == 1000 and forked["Ġcaf" + "Ã©"] == 1000
