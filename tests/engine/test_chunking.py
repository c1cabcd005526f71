"""Counting by whitespace chunks (engine.corpus.chunking) gives exactly the line-by-line counts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import normalizers, pre_tokenizers
from engine.corpus.chunking import (
    CHUNKS_DROPPED,
    CHUNKS_NONE,
    CHUNKS_SEGMENTS,
    SEGMENT_CUTTER,
    SPACE_CUTTER,
    chunk_mode,
    count_segments,
    line_cutter,
)
from engine.corpus.counting import PipelineWords, WordSplitter

# Letters, spaces of every kind (and the four chars only Python calls spaces), line ends,
# punctuation, combining marks, a final-sigma candidate, CJK, a zero-width space, a control.
ALPHABET = "ab ΣσéΑ\u0301\t\n\r\u00a0\u3000\u2028\x1c\x1f\x85\x0b中!.,'s1İ\u200b\x01¨"
# Without the chars that send a block line by line (`chunking.needs_lines`): chunks are used.
SAFE_ALPHABET = "".join(char for char in ALPHABET if char not in "\x0b\x0c\x1c\x1d\x1e\x1f\x85")

PIPELINES = {
    "whitespace": (None, pre_tokenizers.Whitespace()),
    "whitespace_split": (None, pre_tokenizers.WhitespaceSplit()),
    "bert": (normalizers.BertNormalizer(lowercase=True), pre_tokenizers.BertPreTokenizer()),
    "bert_keep_case": (normalizers.BertNormalizer(lowercase=False, strip_accents=False), pre_tokenizers.BertPreTokenizer()),
    "nfkc_lower_ws": (normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()]), pre_tokenizers.Whitespace()),
    "strip_nmt_split": (normalizers.Sequence([normalizers.Nmt(), normalizers.Strip()]), pre_tokenizers.WhitespaceSplit()),
    "byte_level": (None, pre_tokenizers.ByteLevel(add_prefix_space=False)),
    "byte_level_prefix": (None, pre_tokenizers.ByteLevel(add_prefix_space=True)),
    "nfc_byte_level": (normalizers.NFC(), pre_tokenizers.ByteLevel(add_prefix_space=False)),
    "nfkd_lower_byte_level": (
        normalizers.Sequence([normalizers.NFKD(), normalizers.Lowercase()]),
        pre_tokenizers.ByteLevel(add_prefix_space=True),
    ),
    "nfkd_accents_ws": (
        normalizers.Sequence([normalizers.NFKD(), normalizers.StripAccents()]),
        pre_tokenizers.Whitespace(),
    ),
    "ws_then_digits": (
        None,
        pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Digits(individual_digits=True)]),
    ),
    "ws_then_metaspace_always": (
        None,
        pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Metaspace(prepend_scheme="always")]),
    ),
}


def _line_by_line(splitter: PipelineWords, text: str, ends_with_newline: bool) -> dict[str, int]:
    counts: dict[str, int] = {}
    WordSplitter.count_text(splitter, text, ends_with_newline, counts)
    return counts


def _chunked(splitter: PipelineWords, blocks: list[tuple[str, bool]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for text, ends in blocks:
        splitter.count_text(text, ends, counts)
    splitter.flush(counts)
    return counts


@pytest.mark.parametrize("name", sorted(PIPELINES))
@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=SAFE_ALPHABET, max_size=60) | st.text(alphabet=ALPHABET, max_size=60), ends=st.booleans())
def test_chunked_counts_equal_line_counts(name: str, text: str, ends: bool) -> None:
    normalizer, pre_tokenizer = PIPELINES[name]
    splitter = PipelineWords(normalizer, pre_tokenizer)
    assert splitter.mode != CHUNKS_NONE
    if ends:
        text = text + "\n"
    assert _chunked(splitter, [(text, ends)]) == _line_by_line(splitter, text, ends)


@pytest.mark.parametrize("name", ["whitespace", "byte_level", "bert"])
def test_chunks_are_held_until_flush_and_add_up_over_blocks(name: str) -> None:
    normalizer, pre_tokenizer = PIPELINES[name]
    splitter = PipelineWords(normalizer, pre_tokenizer)
    blocks = [("Hello world, hello\n", True), ("world  again\tand again\n", True), ("last  ", False)]
    counts: dict[str, int] = {}
    for text, ends in blocks:
        splitter.count_text(text, ends, counts)
    assert counts == {}  # held back
    splitter.flush(counts)
    expected: dict[str, int] = {}
    for text, ends in blocks:
        for word, count in _line_by_line(splitter, text, ends).items():
            expected[word] = expected.get(word, 0) + count
    assert counts == expected
    splitter.flush(counts)  # nothing left to add
    assert counts == expected


def test_modes_of_pipelines() -> None:
    assert chunk_mode(None, pre_tokenizers.Whitespace()) == CHUNKS_DROPPED
    assert chunk_mode(normalizers.Lowercase(), pre_tokenizers.ByteLevel()) == CHUNKS_SEGMENTS
    assert chunk_mode(None, pre_tokenizers.ByteLevel(use_regex=False)) == CHUNKS_NONE
    assert chunk_mode(None, None) == CHUNKS_NONE
    # Strip only where whitespace is dropped anyway: it would strip each segment's spaces.
    assert chunk_mode(normalizers.Strip(), pre_tokenizers.Whitespace()) == CHUNKS_DROPPED
    assert chunk_mode(normalizers.Strip(), pre_tokenizers.ByteLevel()) == CHUNKS_NONE
    # NFKD "¨" is " \u0308", and StripAccents leaves " ": a segment would end in a space.
    accents = normalizers.Sequence([normalizers.NFKD(), normalizers.StripAccents()])
    assert chunk_mode(accents, pre_tokenizers.ByteLevel()) == CHUNKS_NONE
    assert chunk_mode(normalizers.BertNormalizer(), pre_tokenizers.ByteLevel()) == CHUNKS_NONE
    # A normalizer that may join or create text across spaces, or a pre-tokenizer that keeps
    # words across them, counts line by line.
    assert chunk_mode(normalizers.Replace(" ", "_"), pre_tokenizers.Whitespace()) == CHUNKS_NONE
    assert chunk_mode(normalizers.Prepend("▁"), pre_tokenizers.WhitespaceSplit()) == CHUNKS_NONE
    assert chunk_mode(None, pre_tokenizers.Metaspace()) == CHUNKS_NONE
    assert chunk_mode(None, pre_tokenizers.Punctuation()) == CHUNKS_NONE
    first = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Metaspace(prepend_scheme="first")])
    assert chunk_mode(None, first) == CHUNKS_NONE


def test_segments_cut_only_where_a_non_space_meets_a_space() -> None:
    leading: dict[str, int] = {}
    spaced: dict[str, int] = {}
    count_segments("a b  c\td \n x\n", True, leading, spaced)
    # "a" | " b" | "  c\td" (the second space's left neighbour is a space) | " \n"; then " x\n"
    assert leading == {"a": 1}
    assert spaced == {"b": 1, " c\td": 1, "\n": 1, "x\n": 1}


# -- cutting a line too long for one read block ----------------------------------------------


def _added(*counts: dict[str, int]) -> dict[str, int]:
    total: dict[str, int] = {}
    for part in counts:
        for word, count in part.items():
            total[word] = total.get(word, 0) + count
    return total


@pytest.mark.parametrize("name", sorted(PIPELINES))
@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=ALPHABET.replace("\n", ""), max_size=40), end=st.integers(0, 200))
def test_a_line_cut_where_the_cutter_says_counts_the_same_words(name: str, text: str, end: int) -> None:
    normalizer, pre_tokenizer = PIPELINES[name]
    splitter = PipelineWords(normalizer, pre_tokenizer)
    cutter = line_cutter(splitter.mode)
    assert cutter is not None
    data = text.encode()
    # a read block ends anywhere in the line; the cutter looks at the part read so far
    at = cutter.cut(data[: min(end, len(data))])
    if at == 0:
        return
    first, rest = data[:at].decode(), data[at:].decode() + "\n"
    whole = _line_by_line(splitter, text + "\n", True)
    # chunk counting (as a block of text normally is) and line by line (a block holding a char
    # of `needs_lines`), each over the two parts
    assert _chunked(splitter, [(first, False), (rest, True)]) == whole
    assert _added(_line_by_line(splitter, first, False), _line_by_line(splitter, rest, True)) == whole


def test_cut_places() -> None:
    assert SPACE_CUTTER.cut(b"ab cd\tef") == 6  # after the tab
    assert SPACE_CUTTER.cut(b"abcdef") == 0
    # before a space that follows a printable ASCII char; not inside a run of spaces, not after
    # a non-ASCII char (its last byte is no char of its own)
    assert SEGMENT_CUTTER.cut(b"ab cd  ef") == 5
    assert SEGMENT_CUTTER.cut("a é é".encode()) == 1
    assert SEGMENT_CUTTER.cut(b"   ") == 0
    assert line_cutter(CHUNKS_NONE) is None
