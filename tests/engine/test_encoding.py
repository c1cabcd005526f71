"""Encoding, truncation and padding: hand-checkable cases taken from HF's own Rust tests."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from librt.vecs import vec
from mypy_extensions import i64

from engine.encoding import Encoding, Unmade, flat_spans
from engine.errors import SchemaError, TruncationError
from engine.models.base import Token
from engine.padding import PaddingParams, pad_encodings
from engine.truncation import TruncationParams, truncate_encodings


def make(ids: list[int], words: list[int | None] | None = None, offsets: list[tuple[int, int]] | None = None) -> Encoding:
    n = len(ids)
    return Encoding(
        ids=ids,
        type_ids=[0] * n,
        tokens=[chr(ord("a") + (i % 26)) for i in ids],
        words=words if words is not None else list[int | None](range(n)),
        offsets=offsets if offsets is not None else [(i, i + 1) for i in range(n)],
        special_tokens_mask=[0] * n,
        attention_mask=[1] * n,
    )


def hello_world() -> Encoding:
    return Encoding(
        ids=[1, 2, 3],
        type_ids=[0, 0, 0],
        tokens=["Hello", "World", "!"],
        words=[0, 1, 2],
        offsets=[(0, 5), (6, 11), (11, 12)],
        special_tokens_mask=[0, 0, 0],
        attention_mask=[1, 1, 1],
    )


def test_empty_encoding_has_hf_defaults() -> None:
    encoding = Encoding()
    assert len(encoding) == 0
    assert encoding.ids == [] and encoding.overflowing == []
    assert encoding.n_sequences == 1
    assert encoding.sequence_ids == []
    assert repr(encoding).startswith("Encoding(num_tokens=0, attributes=[ids, type_ids, tokens, offsets")


def test_from_tokens() -> None:
    encoding = Encoding.from_tokens([Token(5, "he", 0, 2), Token(6, "llo", 2, 5)], type_id=1)
    assert encoding.ids == [5, 6]
    assert encoding.tokens == ["he", "llo"]
    assert encoding.offsets == [(0, 2), (2, 5)]
    assert encoding.type_ids == [1, 1]
    assert encoding.word_ids == [None, None]
    assert encoding.special_tokens_mask == [0, 0]
    assert encoding.attention_mask == [1, 1]


def test_words_is_deprecated_alias_of_word_ids() -> None:
    encoding = hello_world()
    with pytest.warns(DeprecationWarning, match="word_ids"):
        assert encoding.words == [0, 1, 2]


def mappings_encoding() -> Encoding:
    """HF encoding.rs `mappings` test: two sequences, "Hello wonderful friend!" / "How are you?"."""
    return Encoding(
        ids=[0] * 11,
        type_ids=[0] * 11,
        tokens=["He", "llo", "won", "der", "ful", "friend", "!", "How", "are", "you", "?"],
        words=[0, 0, 1, 1, 1, 2, 3, 0, 1, 2, 3],
        offsets=[(0, 2), (2, 5), (7, 10), (10, 13), (13, 16), (17, 23), (23, 24), (0, 3), (4, 7), (8, 11), (11, 12)],
        special_tokens_mask=[0] * 11,
        attention_mask=[1] * 11,
        sequence_ranges={0: (0, 7), 1: (7, 11)},
    )


def test_mappings_between_words_tokens_and_chars() -> None:
    encoding = mappings_encoding()
    assert encoding.n_sequences == 2
    assert encoding.sequence_ids == [0] * 7 + [1] * 4
    assert [encoding.word_to_tokens(w, 0) for w in range(4)] == [(0, 2), (2, 5), (5, 6), (6, 7)]
    assert [encoding.word_to_tokens(w, 1) for w in range(4)] == [(7, 8), (8, 9), (9, 10), (10, 11)]
    assert encoding.word_to_chars(0, 0) == (0, 5)
    assert encoding.word_to_chars(1, 0) == (7, 16)
    assert encoding.word_to_chars(0, 1) == (0, 3)
    assert encoding.word_to_chars(1, 1) == (4, 7)
    assert encoding.token_to_chars(0) == (0, 2)
    assert encoding.token_to_chars(7) == (0, 3)
    assert encoding.token_to_chars(9) == (8, 11)
    assert encoding.token_to_sequence(1) == 0
    assert encoding.token_to_sequence(7) == 1
    assert encoding.token_to_word(1) == 0
    assert encoding.token_to_word(2) == 1
    assert encoding.token_to_word(7) == 0
    assert encoding.token_to_word(9) == 2
    assert encoding.token_to_word(11) is None
    assert encoding.char_to_token(3, 0) == 1
    assert encoding.char_to_token(8, 0) == 2
    assert encoding.char_to_token(16, 0) is None
    assert encoding.char_to_token(23, 0) == 6
    assert encoding.char_to_token(2, 1) == 7
    assert encoding.char_to_token(9, 1) == 9
    assert encoding.char_to_word(3, 0) == 0
    assert encoding.char_to_word(8, 0) == 1
    assert encoding.char_to_word(16, 0) is None
    assert encoding.char_to_word(23, 0) == 3
    assert encoding.char_to_word(2, 1) == 0
    assert encoding.char_to_word(9, 1) == 2
    assert encoding.word_to_tokens(9, 0) is None


def test_token_to_sequence_bounds_follow_hf() -> None:
    encoding = hello_world()
    # subtle: HF answers 0 for the position just past the end of a single-sequence encoding.
    assert encoding.token_to_sequence(3) == 0
    assert encoding.token_to_sequence(4) is None
    assert encoding.token_to_chars(3) is None
    assert encoding.token_to_sequence(-1) is None


def test_truncate_right_moves_the_rest_to_overflowing() -> None:
    encoding = hello_world()
    encoding.truncate(2)
    assert encoding.tokens == ["Hello", "World"]
    assert encoding.offsets == [(0, 5), (6, 11)]
    assert len(encoding.overflowing) == 1
    rest = encoding.overflowing[0]
    assert rest.tokens == ["!"] and rest.word_ids == [2] and rest.offsets == [(11, 12)]


def test_truncate_left_keeps_the_end() -> None:
    encoding = hello_world()
    encoding.truncate(2, direction="left")
    assert encoding.tokens == ["World", "!"]
    assert [o.tokens for o in encoding.overflowing] == [["Hello"]]


def test_truncate_with_stride_overlaps_windows() -> None:
    encoding = Encoding(
        ids=[1, 2, 3, 4, 5],
        type_ids=[0] * 5,
        tokens=["42", "is", "the", "answer", "!"],
        words=[0, 1, 2, 3, 4],
        offsets=[(0, 2), (2, 4), (4, 7), (7, 13), (13, 14)],
        special_tokens_mask=[0] * 5,
        attention_mask=[1] * 5,
    )
    encoding.truncate(4, stride=2)
    assert encoding.ids == [1, 2, 3, 4]
    assert [o.ids for o in encoding.overflowing] == [[3, 4, 5]]
    assert encoding.overflowing[0].offsets == [(4, 7), (7, 13), (13, 14)]


def test_truncate_many_windows_both_directions() -> None:
    right = make(list(range(10)))
    right.truncate(4, stride=1)
    assert right.ids == [0, 1, 2, 3]
    assert [o.ids for o in right.overflowing] == [[3, 4, 5, 6], [6, 7, 8, 9]]
    left = make(list(range(10)))
    left.truncate(4, stride=1, direction="left")
    assert left.ids == [6, 7, 8, 9]
    assert [o.ids for o in left.overflowing] == [[3, 4, 5, 6], [0, 1, 2, 3]]


def test_truncate_to_zero_moves_everything() -> None:
    encoding = hello_world()
    encoding.truncate(0)
    assert encoding.ids == []
    assert [o.tokens for o in encoding.overflowing] == [["Hello", "World", "!"]]


def test_truncate_noop_and_errors() -> None:
    encoding = hello_world()
    encoding.truncate(3)
    assert encoding.ids == [1, 2, 3] and encoding.overflowing == []
    with pytest.raises(TruncationError, match="strictly less than"):
        encoding.truncate(2, stride=2)
    with pytest.raises(ValueError, match="Invalid truncation direction value : up"):
        encoding.truncate(2, direction="up")


def test_truncate_forgets_sequence_ranges() -> None:
    encoding = mappings_encoding()
    encoding.truncate(5)
    assert encoding.n_sequences == 1
    assert encoding.sequence_ids == [0] * 5


def test_pad_right_and_left() -> None:
    right = hello_world()
    right.pad(5, pad_id=9, pad_token="[PAD]")
    assert right.ids == [1, 2, 3, 9, 9]
    assert right.tokens[-2:] == ["[PAD]", "[PAD]"]
    assert right.attention_mask == [1, 1, 1, 0, 0]
    assert right.special_tokens_mask == [0, 0, 0, 1, 1]
    assert right.word_ids == [0, 1, 2, None, None]
    assert right.offsets[-1] == (0, 0)
    left = hello_world()
    left.set_sequence_id(0)
    left.pad(4, direction="left", pad_id=7, pad_type_id=1)
    assert left.ids == [7, 1, 2, 3]
    assert left.type_ids == [1, 0, 0, 0]
    # HF padding test: the sequence range moves with left padding.
    assert left.sequence_ranges == {0: (1, 4)}
    assert left.sequence_ids == [None, 0, 0, 0]


def test_pad_never_shortens_but_pads_overflowing() -> None:
    encoding = hello_world()
    encoding.truncate(2)
    encoding.pad(2)
    assert encoding.ids == [1, 2]
    assert encoding.overflowing[0].ids == [3, 0]
    with pytest.raises(ValueError, match="Unknown `direction`"):
        encoding.pad(9, direction="middle")


def test_merge_with_growing_offsets() -> None:
    first = Encoding([1], [0], ["Hello "], [0], [(0, 6)], [0], [1])
    second = Encoding([2], [1], ["World!"], [0], [(0, 6)], [0], [1])
    merged = Encoding.merge([first, second], growing_offsets=True)
    assert merged.ids == [1, 2]
    assert merged.type_ids == [0, 1]
    assert merged.offsets == [(0, 6), (6, 12)]
    assert Encoding.merge([first, second], growing_offsets=False).offsets == [(0, 6), (0, 6)]
    # The inputs are untouched.
    assert first.ids == [1] and second.offsets == [(0, 6)]


def test_merge_combines_overflowing_parts() -> None:
    first = make([1, 2, 3])
    first.truncate(2)
    second = make([4, 5, 6])
    second.truncate(2)
    merged = Encoding.merge([first, second], growing_offsets=False)
    assert merged.ids == [1, 2, 4, 5]
    # own overflow + pair, own overflow + pair overflow, self + pair overflow
    assert [o.ids for o in merged.overflowing] == [[3, 4, 5], [3, 6], [1, 2, 6]]


def test_merge_shifts_sequence_ranges() -> None:
    first = make([1, 2])
    first.set_sequence_id(0)
    second = make([3, 4, 5])
    second.set_sequence_id(1)
    merged = Encoding.merge([first, second], False)
    assert merged.sequence_ranges == {0: (0, 2), 1: (2, 5)}
    assert merged.sequence_ids == [0, 0, 1, 1, 1]
    assert merged.char_to_token(1, 1) == 3


def test_merge_with_itself() -> None:
    encoding = make([1, 2])
    encoding.merge_with(encoding, True)
    assert encoding.ids == [1, 2, 1, 2]
    assert encoding.offsets == [(0, 1), (1, 2), (2, 3), (3, 4)]


def test_copy_is_deep() -> None:
    encoding = hello_world()
    encoding.truncate(2)
    clone = encoding.copy()
    assert clone == encoding
    clone.overflowing[0].ids.append(99)
    clone.ids.append(99)
    assert encoding.ids == [1, 2] and encoding.overflowing[0].ids == [3]


def test_offsets_are_a_new_list_at_each_read_as_in_hf() -> None:
    encoding = hello_world()
    offsets = encoding.offsets
    offsets[0] = (7, 7)
    offsets.append((9, 9))
    assert encoding.offsets == [(0, 5), (6, 11), (11, 12)]
    assert encoding.offset(1) == (6, 11)
    with pytest.raises(IndexError):
        encoding.offset(3)
    with pytest.raises(IndexError):
        encoding.offset(-1)


def test_encoding_pickles_with_its_offsets_and_overflow() -> None:
    encoding = Encoding.merge([hello_world(), hello_world()], True)
    encoding.truncate(4, 1)
    restored = pickle.loads(pickle.dumps(encoding))
    assert restored == encoding
    assert restored.offsets == [(0, 5), (6, 11), (11, 12), (12, 17)]
    assert restored.overflowing[0].offsets == [(12, 17), (18, 23), (23, 24)]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 12), st.integers(0, 16), st.sampled_from(["right", "left"]), st.integers(1, 6))
def test_edits_of_one_encoding_never_reach_another(n: int, length: int, direction: str, max_length: int) -> None:
    # subtle: offsets live in vecs, whose append may share a buffer; every edit below must
    # leave the encodings it started from exactly as they were.
    original = make(list(range(n)))
    before = original.offsets
    clone = original.copy()
    clone.pad(length, direction)
    clone.merge_with(make([1, 2]), True)
    merged = Encoding.merge([original, original], True)
    merged.pad(length + 3, direction)
    truncated = original.copy()
    truncated.truncate(max_length)
    for part in truncated.overflowing:
        part.pad(max_length + 2, direction)
    truncated.pad(max_length + 2, direction)
    assert original.offsets == before
    assert original == make(list(range(n)))
    grown = [(s + n, e + n) for s, e in before]
    pads = len(merged) - 2 * n
    assert merged.offsets == (before + grown + [(0, 0)] * pads if direction == "right" else [(0, 0)] * pads + before + grown)
    if length <= n:
        assert clone.offsets == before + [(n, n + 1), (n + 1, n + 2)]


# -- truncate_encodings (HF truncation.rs tests) ------------------------------------------------

SIZES = {"empty": 0, "short": 2, "medium": 4, "long": 8}


@pytest.mark.parametrize(
    ("first", "second", "n1", "n2"),
    [
        ("empty", "empty", 0, 0), ("empty", "short", 0, 2), ("empty", "medium", 0, 4), ("empty", "long", 0, 7),
        ("short", "empty", 2, 0), ("short", "short", 2, 2), ("short", "medium", 2, 4), ("short", "long", 2, 5),
        ("medium", "empty", 4, 0), ("medium", "short", 4, 2), ("medium", "medium", 3, 4), ("medium", "long", 3, 4),
        ("long", "empty", 7, 0), ("long", "short", 5, 2), ("long", "medium", 4, 3), ("long", "long", 3, 4),
    ],
)
def test_truncate_encodings_longest_first(first: str, second: str, n1: int, n2: int) -> None:
    params = TruncationParams(max_length=7)
    a, b = truncate_encodings(make(list(range(SIZES[first]))), make(list(range(SIZES[second]))), params)
    assert b is not None
    assert (len(a), len(b)) == (n1, n2)


def test_truncate_encodings_to_zero() -> None:
    a, b = truncate_encodings(make([1, 2, 3, 4]), make([5, 6]), TruncationParams(max_length=0))
    assert b is not None and (len(a), len(b)) == (0, 0)
    assert a.overflowing[0].ids == [1, 2, 3, 4]


def test_truncate_encodings_only_first_and_only_second() -> None:
    a, b = truncate_encodings(make([1, 2, 3, 4]), make([5, 6]), TruncationParams(max_length=4, strategy="only_first"))
    assert b is not None and (a.ids, b.ids) == ([1, 2], [5, 6])
    a, b = truncate_encodings(make([1, 2, 3, 4]), make([5, 6, 7]), TruncationParams(max_length=5, strategy="only_second"))
    assert b is not None and (a.ids, b.ids) == ([1, 2, 3, 4], [5])
    with pytest.raises(TruncationError, match="Second sequence not provided"):
        truncate_encodings(make([1, 2, 3]), None, TruncationParams(max_length=2, strategy="only_second"))
    with pytest.raises(TruncationError, match="too short"):
        truncate_encodings(make([1]), make([2, 3, 4]), TruncationParams(max_length=1, strategy="only_first"))


def test_truncate_encodings_single_and_negative_budget() -> None:
    a, b = truncate_encodings(make([1, 2, 3]), None, TruncationParams(max_length=2, direction="left"))
    assert b is None and a.ids == [2, 3]
    # More special tokens than max_length: HF's unsigned subtraction wraps, so nothing is cut.
    a, _ = truncate_encodings(make([1, 2, 3]), None, TruncationParams(max_length=1).with_max_length(-1))
    assert a.ids == [1, 2, 3]


def test_truncation_params_forms() -> None:
    params = TruncationParams(max_length=128, stride=4, strategy="only_second", direction="left")
    assert params.to_dict() == {"direction": "Left", "max_length": 128, "strategy": "OnlySecond", "stride": 4}
    assert list(params.to_dict()) == ["direction", "max_length", "strategy", "stride"]
    assert params.to_python_dict() == {"max_length": 128, "stride": 4, "strategy": "only_second", "direction": "left"}
    assert TruncationParams.from_dict(params.to_dict()) == params
    # HF test_deserialize_defaults: an old file without direction means Right.
    assert TruncationParams.from_dict({"max_length": 256, "strategy": "LongestFirst", "stride": 0}).direction == "right"
    with pytest.raises(ValueError, match="Unknown `strategy`"):
        TruncationParams(strategy="shortest")
    with pytest.raises(SchemaError, match="strategy"):
        TruncationParams.from_dict({"max_length": 1, "strategy": "Nope", "stride": 0})
    with pytest.raises(SchemaError, match="missing field 'max_length'"):
        TruncationParams.from_dict({"strategy": "LongestFirst", "stride": 0})
    with pytest.raises(SchemaError, match="expected an object"):
        TruncationParams.from_dict([1])


def test_padding_params_forms() -> None:
    batch = PaddingParams()
    assert batch.to_dict() == {
        "strategy": "BatchLongest",
        "direction": "Right",
        "pad_to_multiple_of": None,
        "pad_id": 0,
        "pad_type_id": 0,
        "pad_token": "[PAD]",
    }
    fixed = PaddingParams(direction="left", pad_id=3, pad_type_id=1, pad_token="<pad>", length=16, pad_to_multiple_of=8)
    assert fixed.to_dict()["strategy"] == {"Fixed": 16}
    assert PaddingParams.from_dict(fixed.to_dict()) == fixed
    assert PaddingParams.from_dict(batch.to_dict()) == batch
    assert fixed.to_python_dict() == {
        "length": 16,
        "pad_to_multiple_of": 8,
        "pad_id": 3,
        "pad_token": "<pad>",
        "pad_type_id": 1,
        "direction": "left",
    }
    with pytest.raises(SchemaError, match="strategy"):
        PaddingParams.from_dict({**batch.to_dict(), "strategy": {"Longest": 1}})
    with pytest.raises(SchemaError, match="pad_token"):
        PaddingParams.from_dict({**batch.to_dict(), "pad_token": 5})


def test_pad_encodings_to_multiple() -> None:
    # HF padding.rs pad_to_multiple test.
    encodings = [make([0, 1, 2, 3, 4]), make([0, 1, 2])]
    pad_encodings(encodings, PaddingParams(length=7, pad_to_multiple_of=8))
    assert [len(e) for e in encodings] == [8, 8]
    encodings = [make([0, 1, 2, 3, 4]), make([0, 1, 2])]
    pad_encodings(encodings, PaddingParams(pad_to_multiple_of=6))
    assert [len(e) for e in encodings] == [6, 6]
    pad_encodings(encodings, PaddingParams(pad_to_multiple_of=0))
    assert [len(e) for e in encodings] == [6, 6]
    pad_encodings([], PaddingParams())


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 30), st.integers(1, 8), st.integers(0, 7), st.sampled_from(["right", "left"]))
def test_truncation_windows_reassemble_the_input(n: int, max_length: int, stride: int, direction: str) -> None:
    stride = min(stride, max_length - 1)
    encoding = make(list(range(n)))
    encoding.truncate(max_length, stride, direction)
    windows = [encoding.ids] + [o.ids for o in encoding.overflowing]
    if n <= max_length:
        assert windows == [list(range(n))]
        return
    assert all(len(w) <= max_length for w in windows)
    # Left to right, consecutive windows share exactly `stride` tokens, whichever the direction.
    ordered = windows if direction == "right" else windows[::-1]
    rebuilt = list(ordered[0])
    for previous, window in zip(ordered, ordered[1:]):
        assert window[:stride] == previous[len(previous) - stride :]
        rebuilt.extend(window[stride:])
    assert rebuilt == list(range(n))


# -- masks and tokens made on first read (`Encoding(..., type_id=t, names=...)`) ---------------

NAMES = [str(i) for i in range(10)]
OBJECTS = list[object](range(10))


def _lazy(ids: list[int], type_id: int = 0) -> Encoding:
    n = len(ids)
    unmade = Unmade(vec[i64](ids), vec[i64](range(n)), OBJECTS, NAMES)
    return Encoding(spans=flat_spans([(i, i + 1) for i in range(n)]), type_id=type_id, unmade=unmade)


def _eager(ids: list[int], type_id: int = 0) -> Encoding:
    n = len(ids)
    return Encoding(
        ids=list(ids), type_ids=[type_id] * n, tokens=[str(i) for i in ids], words=list[int | None](range(n)),
        offsets=[(i, i + 1) for i in range(n)], special_tokens_mask=[0] * n, attention_mask=[1] * n,
    )  # fmt: skip


def _fields(encoding: Encoding) -> tuple[object, ...]:
    return (
        encoding.ids, encoding.type_ids, encoding.tokens, encoding.word_ids, encoding.offsets,
        encoding.special_tokens_mask, encoding.attention_mask,
        [_fields(part) for part in encoding.overflowing], encoding.sequence_ranges,
    )  # fmt: skip


EDITS = {
    "pad right": lambda e: e.pad(7, "right", 9, 1, "[PAD]"),
    "pad left": lambda e: e.pad(7, "left", 9, 1, "[PAD]"),
    "truncate": lambda e: e.truncate(2, 1),
    "truncate left": lambda e: e.truncate(3, 0, "left"),
    "merge with a lazy one": lambda e: e.merge_with(_lazy([7, 8], 1), True),
    "merge into a lazy one": lambda e: e.merge_with(_eager([7, 8], 1), False),
    "ids changed first": lambda e: e.ids.append(5),
    "sequence id": lambda e: e.set_sequence_id(1),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
@pytest.mark.parametrize("type_id", [0, 1])
def test_masks_and_tokens_made_on_first_read_are_those_given_at_once(edit: str, type_id: int) -> None:
    lazy, eager = _lazy([1, 2, 3, 4], type_id), _eager([1, 2, 3, 4], type_id)
    EDITS[edit](lazy)
    EDITS[edit](eager)
    assert _fields(lazy) == _fields(eager)
    assert lazy == eager and lazy.copy() == eager
    assert _fields(pickle.loads(pickle.dumps(_lazy([1, 2], type_id)))) == _fields(_eager([1, 2], type_id))


def test_masks_and_tokens_made_on_first_read_are_the_encodings_own() -> None:
    encoding = _lazy([1, 2, 3])
    assert encoding.tokens == ["1", "2", "3"]
    encoding.tokens[0] = "x"  # kept, as the masks below
    encoding.ids.append(4)  # (appended after they were made: not theirs)
    assert encoding.tokens == ["x", "2", "3"]
    encoding.tokens = ["a", "b", "c", "d"]
    assert encoding.tokens == ["a", "b", "c", "d"]
    assert _lazy([4, 5]).copy().tokens == ["4", "5"]
    assert len(_lazy([4, 5])) == 2 and _lazy([4, 5]).word_ids == [0, 1]
    unread = _lazy([1, 2])
    unread.ids = [7]  # the tokens and word ids are still those it was made with
    assert (unread.ids, unread.tokens, unread.word_ids) == ([7], ["1", "2"], [0, 1])
    none = Encoding(spans=flat_spans([(0, 1)]), unmade=Unmade(vec[i64]([3]), vec[i64]([-1]), OBJECTS, NAMES))
    assert none.word_ids == [None] and none.ids == [3] and none.ids[0] is OBJECTS[3]
    assert encoding.attention_mask == [1, 1, 1]
    encoding.attention_mask[0] = 0  # kept: it is the encoding's list now, not made again
    assert encoding.attention_mask == [0, 1, 1]
    encoding.type_ids = [2, 2, 2]
    assert encoding.type_ids == [2, 2, 2] and encoding.special_tokens_mask == [0, 0, 0]
