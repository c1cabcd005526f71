"""Training words counted on bytes (engine.corpus.byte_words) equal the words HF's trainer
counts line by line: the pipeline's words of each line, whatever the blocks."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from librt.vecs import vec
from mypy_extensions import i64

import engine
from engine import CorpusError, normalizers, pre_tokenizers
from engine.byte_splits import SAME_CASE, bounds_room, gpt2_bounds
from engine.corpus.byte_words import GPT2_CLASSES, ByteScan, WordTable, count_lines
from engine.corpus.chunking import SEGMENT_CUTTER, SPACE_CUTTER, byte_scan
from engine.corpus.counting import PipelineWords, WordSplitter, count_words
from engine.progress import SilentProgress

# GPT-2's classes and contractions, every ASCII space char and control, the chars `needs_lines`
# sends line by line, and non-ASCII text (spaces included) for the lines counted as text.
ALPHABET = "abZ9_'srtvelmd \t\r\x0b\x0c\x1c\x1f\x01\x7f,.!~é中\u3000\x85\u00a0²\u0301—🙂ÿ\u00ad"
WORDS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL", "'x", " ", "  ", "\t ", "ab", "AB", " 12", "!!", "a_b"]

PIPELINES = {
    "byte_level": (None, pre_tokenizers.ByteLevel(add_prefix_space=False)),
    "byte_level_prefix": (None, pre_tokenizers.ByteLevel(add_prefix_space=True)),
    "nfc_byte_level": (normalizers.NFC(), pre_tokenizers.ByteLevel(add_prefix_space=False)),
    "nfkc_nfd_byte_level_prefix": (
        normalizers.Sequence([normalizers.NFKC(), normalizers.NFD()]),
        pre_tokenizers.ByteLevel(add_prefix_space=True),
    ),
    "lower_byte_level": (normalizers.Lowercase(), pre_tokenizers.ByteLevel(add_prefix_space=False)),
    "bert": (normalizers.BertNormalizer(lowercase=True), pre_tokenizers.BertPreTokenizer()),
    "bert_cased": (normalizers.BertNormalizer(lowercase=False, strip_accents=False), pre_tokenizers.BertPreTokenizer()),
    "bert_no_clean": (normalizers.BertNormalizer(clean_text=False), pre_tokenizers.BertPreTokenizer()),
    "whitespace": (None, pre_tokenizers.Whitespace()),
    "nfkc_lower_whitespace": (normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()]), pre_tokenizers.Whitespace()),
    "whitespace_split": (normalizers.StripAccents(), pre_tokenizers.WhitespaceSplit()),
}

GPT2 = ByteScan(True, False, GPT2_CLASSES, False)
GPT2_PREFIX = ByteScan(True, True, GPT2_CLASSES, False)

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
    assert splitter.scan is not None
    data = text.encode()
    expected = _line_by_line(splitter, text)
    assert _on_bytes(splitter, [data], [text.endswith("\n")]) == expected
    # Two blocks: at a line end, or inside a line where the long-line cutter allows it.
    cutter = SEGMENT_CUTTER if splitter.scan.gpt2 else SPACE_CUTTER
    at = data.rfind(b"\n", 0, cut) + 1 or cutter.cut(data[:cut])
    if 0 < at < len(data):
        first, rest = data[:at], data[at:]
        assert _on_bytes(splitter, [first, rest], [first.endswith(b"\n"), text.endswith("\n")]) == expected


def test_a_hand_checked_block() -> None:
    table = WordTable()
    data = "He's  here\t\n\n12 ab!!\né ok\nlast".encode()
    skipped = count_lines(data, table, ByteScan(True, True, GPT2_CLASSES, False))
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
    assert len(count_lines("".join(lines).encode(), table, GPT2)) == 0
    assert len(table) == 5003  # "w", "0" to "4999", " x", "\n"
    counts: dict[str, int] = {}
    table.add_to(counts)
    expected: dict[str, int] = {}
    for line in lines:
        for word in pre_tokenizers.ByteLevel(add_prefix_space=False).split_words(line):
            expected[word] = expected.get(word, 0) + 1
    assert counts == expected
    assert counts["Ġx"] == 5000 and counts["3"] == 1 + 714


def test_lines_past_ascii_counted_on_bytes_with_gpt2s_split_and_no_normalizer() -> None:
    table = WordTable()
    utf8 = ByteScan(True, False, GPT2_CLASSES, False, True)
    assert len(count_lines("a b\nné\u00a0\u00a0 là 🙂\n".encode(), table, utf8)) == 0
    counts: dict[str, int] = {}
    table.add_to(counts)
    expected: dict[str, int] = {}
    for line in ["a b\n", "né\u00a0\u00a0 là 🙂\n"]:
        for word in pre_tokenizers.ByteLevel(add_prefix_space=False).split_words(line):
            expected[word] = expected.get(word, 0) + 1
    assert counts == expected and counts["nÃ©"] == 1 and counts["ĠlÃł"] == 1
    # not valid UTF-8: left to the text path, which names the bad byte
    assert list(count_lines(b"ok\ncaf\xe9\n", table, utf8)) == [3, 8]


def test_pipelines_counted_on_bytes() -> None:
    byte_level = pre_tokenizers.ByteLevel()
    scan = byte_scan(normalizers.Sequence([normalizers.NFC(), normalizers.Lowercase()]), byte_level)
    assert scan is not None and scan.gpt2 and scan.add_prefix_space and scan.lower and scan.byte_level
    assert not scan.utf8  # a normalizer may change the chars past ASCII
    plain = byte_scan(None, byte_level)
    assert plain is not None and plain.utf8
    bert = byte_scan(normalizers.BertNormalizer(lowercase=False), pre_tokenizers.BertPreTokenizer())
    assert bert is not None and not bert.gpt2 and not bert.lower and not bert.byte_level
    # No regex, ByteLevel inside a Sequence, a normalizer that changes ASCII otherwise (or BERT's
    # tabs-to-spaces before GPT-2's split, which keeps spaces), another split: as text.
    assert byte_scan(None, pre_tokenizers.ByteLevel(use_regex=False)) is None
    assert byte_scan(None, pre_tokenizers.Sequence([byte_level])) is None
    assert byte_scan(normalizers.BertNormalizer(), byte_level) is None
    assert byte_scan(normalizers.Replace("a", "b"), pre_tokenizers.Whitespace()) is None
    assert byte_scan(None, pre_tokenizers.Metaspace()) is None
    assert PipelineWords(None, byte_level, on_bytes=False).scan is None


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


@pytest.mark.parametrize("name", ["byte_level", "byte_level_prefix", "bert", "whitespace"])
def test_a_file_counts_the_same_on_bytes_and_as_text(tmp_path: Path, name: str) -> None:
    normalizer, pre_tokenizer = PIPELINES[name]
    lines = ["The Cat's toys, 12 of them.\n", "  indented\tand tabbed  \n", "naïve café — ok\n", "\n", "x" * 50 + " " + "y" * 50]
    path = tmp_path / "corpus.txt"
    path.write_text("".join(lines * 200), encoding="utf-8")
    on_bytes = count_words([str(path)], PipelineWords(normalizer, pre_tokenizer, on_bytes=True), SilentProgress(), processes=1)
    as_text = count_words([str(path)], PipelineWords(normalizer, pre_tokenizer, on_bytes=False), SilentProgress(), processes=1)
    assert on_bytes == as_text
    assert on_bytes[{"bert": "cat", "whitespace": "Cat"}.get(name, "ĠCat")] == 200


def test_a_packed_table_absorbed_elsewhere_counts_the_same() -> None:
    first, second = WordTable(), WordTable()
    count_lines(b"a b a\n" + b"long_words_here " * 3 + b"\n", first, GPT2_PREFIX)
    count_lines(b"a c\n", second, GPT2_PREFIX)
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


@pytest.mark.parametrize("name", ["byte_level", "byte_level_prefix", "bert"])
def test_counting_processes_hand_their_words_over_packed(tmp_path: Path, name: str) -> None:
    normalizer, pre_tokenizer = PIPELINES[name]
    lines = ["The cat's toys, 12 of them.\n", "naïve café — ok\n", "  spaced   out\t\n", "word%d and more\n"]
    path = tmp_path / "corpus.txt"
    path.write_text("".join(lines[i % 4].replace("%d", str(i)) for i in range(4000)), encoding="utf-8")
    forked = count_words([str(path)], PipelineWords(normalizer, pre_tokenizer, on_bytes=True), SilentProgress(), processes=2)
    as_text = count_words([str(path)], PipelineWords(normalizer, pre_tokenizer, on_bytes=False), SilentProgress(), processes=1)
    assert forked == as_text
    assert forked["cat" if name == "bert" else "Ġcat"] == 1000


def test_the_compiled_build_counts_on_bytes_by_default_and_the_pure_build_as_text() -> None:
    # (the byte scan is the faster way only where mypyc compiles it)
    default = PipelineWords(None, pre_tokenizers.ByteLevel())
    assert (default.scan is not None) == engine.COMPILED


def test_the_prefix_spaces_word_before_a_tab_has_room() -> None:
    # " \ta" is " ", "\t", "a": one word more than the line has bytes (hypothesis found the
    # scratch vec one pair short)
    data = b"\ta"
    for size in range(8):
        bounds = bounds_room(vec[i64]([0] * size), len(data))
        n = gpt2_bounds(data, 0, len(data), True, SAME_CASE, bounds)
        assert [bounds[k] for k in range(n)] == [0, 0, 0, 1, 1, 2]
