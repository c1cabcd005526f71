"""engine.analysis.certificate on hand-checkable cases: where two readings first differ, the
cause each kind of difference is given, the verdict and the JSON round trip. (The certificates
of real exports, read by the reference libraries, are tests/parity/test_certificate_parity.py.)"""

from __future__ import annotations

from pathlib import Path

from engine.analysis import certificate
from engine.analysis.certificate import Certificate, Mismatch, classify, first_difference, resynchronize
from engine.analysis.certificate_readers import Reading, Side, byte_chars


class Fixed(Side):
    """A side that only carries special and unknown ids (classify reads nothing else)."""

    def __init__(self, special: set[int], unknown: set[int]) -> None:
        super().__init__("fixed", "")
        self.special_ids = special
        self.unk_ids = unknown

    def read(self, text: str) -> Reading:
        raise AssertionError("not read")


SIDE = Fixed({0, 1}, {2})


def reading(pairs: list[tuple[int, str]], starts: list[int] | None = None, normalized: str | None = None) -> Reading:
    return Reading([id for id, _ in pairs], [token for _, token in pairs], normalized, "", starts)


def test_first_difference_is_the_index_of_the_first_differing_id() -> None:
    assert first_difference([1, 2, 3], [1, 5]) == 1
    assert first_difference([1, 2], [1, 2, 3]) == 2
    assert first_difference([], []) == 0


def test_resynchronize_finds_the_span_two_splits_share() -> None:
    assert resynchronize(["ab", "c", "d"], ["a", "bc", "d"]) == "abc"
    assert resynchronize(["ab", "c"], ["ax", "c"]) is None  # (different text from the first token on)
    assert resynchronize(["a"], ["ab"]) is None  # (one side covers more)


def test_a_different_split_of_the_same_text() -> None:
    ours = reading([(10, "▁the"), (11, "▁cat"), (12, "s")], [0, 3, 7])
    theirs = reading([(10, "▁the"), (13, "▁ca"), (14, "ts")])
    assert classify("the cats", ours, theirs, 1, SIDE, SIDE) == ("split", 'different split of the same text " cats"')


def test_the_same_token_with_another_id() -> None:
    ours = reading([(10, "▁the")], [0])
    theirs = reading([(11, "▁the")])
    assert classify("the", ours, theirs, 0, SIDE, SIDE) == ("ids", 'the same token with another id: "▁the" is 10 in ours, 11 in theirs')


def test_wordpiece_continuations_are_compared_without_their_prefix() -> None:
    ours = reading([(20, "play"), (21, "##ing")], [0, 4])
    theirs = reading([(22, "pla"), (23, "##ying")])
    assert classify("playing", ours, theirs, 0, SIDE, SIDE)[0] == "split"


def test_special_and_unknown_tokens() -> None:
    ours = reading([(5, "hello")], [0])
    theirs = reading([(0, "[CLS]"), (5, "hello"), (1, "[SEP]")])
    cause, explains = classify("hello", ours, theirs, 0, SIDE, SIDE)
    assert cause == "special tokens" and explains == 'special token handling: ours has "hello" (5), theirs "[CLS]" (0)'
    theirs = reading([(5, "hello"), (2, "[UNK]")])
    ours = reading([(5, "hello"), (7, "☃")], [0, 5])
    cause, explains = classify("hello☃", ours, theirs, 1, SIDE, SIDE)
    assert cause == "unknown token" and "theirs has the unknown token (id 2)" in explains


def test_whitespace_at_either_end() -> None:
    # ours drops the leading spaces that theirs keeps as "▁" pieces
    ours = reading([(3, "▁"), (3, "▁"), (53, "le")], [0, 1, 2])
    theirs = reading([(3, "▁"), (3, "▁"), (3, "▁"), (53, "le")])
    assert classify("  le", ours, theirs, 2, SIDE, SIDE)[0] == "whitespace"
    ours = reading([(9, "end")], [0])
    theirs = reading([(9, "end"), (3, "▁")])
    cause, explains = classify("end ", ours, theirs, 1, SIDE, SIDE)
    assert cause == "whitespace" and explains.startswith("whitespace at the end of the text")


def test_normalization_differs_and_otherwise_the_cause_is_not_claimed() -> None:
    ours = reading([(4, "▁hello")], [0], normalized="hello")
    theirs = reading([(5, "▁Hello")], normalized="▁Hello")
    cause, explains = classify("Hello", ours, theirs, 0, SIDE, SIDE)
    assert cause == "normalization" and explains == 'normalization differs: ours normalizes to "hello", theirs to "Hello"'
    ours = reading([(4, "▁hello")], [0], normalized="Hello")
    assert classify("Hello", ours, theirs, 0, SIDE, SIDE)[0] == "undetermined"
    failed = Reading([], [], None, "ValueError: no")
    assert classify("x", ours, failed, 0, SIDE, Fixed(set(), set())) == ("failure", "fixed failed on this text: ValueError: no")


def test_the_verdict_and_the_json_round_trip(tmp_path: Path) -> None:
    found = Certificate("gpt2", [("out/vocab.json", "ab" * 32), ("out/merges.txt", "cd" * 32)], "tokenizers 0.23.3", "x", False, False)
    found.texts, found.tokens = 556, 61210
    assert found.identical and found.verdict() == "identical on 556 texts (61,210 tokens) read by tokenizers 0.23.3"
    found.differing = 2
    found.causes = {"whitespace": 1, "split": 1}
    found.mismatches.append(Mismatch("tabs", "a\tb", 1, 0, ([1, 2], ["a", "b"]), ([1, 3], ["a", "c"]), "split", "why"))
    assert found.to_dict()["identical"] is False  # (differing texts; `identical` is a property mypy would narrow)
    assert found.verdict() == (
        "differs on 2 of 556 texts (61,210 tokens) read by tokenizers 0.23.3 "
        "(different split of the same text: 1, whitespace at the start or end: 1)"
    )
    assert found.lines()[2:] == [
        "  first mismatches (1 more texts differ):",
        '  1. tabs ("a\\tb"), from token 1: why',
        '      ours   1 "a" 2 "b"',
        '      theirs 1 "a" 3 "c"',
    ]
    path = str(tmp_path / "vocab.json.certificate.json")
    certificate.save(found, path)
    again = certificate.load(path)
    assert again.to_dict() == found.to_dict()
    assert certificate.certificate_path("gpt2", str(tmp_path)) == str(tmp_path / "vocab.json.certificate.json")
    assert certificate.certificate_path("sentencepiece", "a/t.model") == "a/t.model.certificate.json"


def test_byte_chars_spells_bytes_as_byte_level_tokens() -> None:
    assert byte_chars(b" the") == "Ġthe"
    assert byte_chars("é".encode()) == "Ã©"


def test_the_edge_texts_cover_what_the_issue_names() -> None:
    names = {name for name, _ in certificate.EDGE_TEXTS}
    for wanted in ("whitespace runs", "leading spaces", "trailing spaces", "tabs", "CRLF line ends", "emoji with ZWJ", "flags",
                   "combining marks", "controls", "CJK", "right-to-left", "unknown characters"):
        assert wanted in names
    assert len(names) == len(certificate.EDGE_TEXTS)
