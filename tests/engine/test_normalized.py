"""NormalizedString: alignments through every edit, range conversions, slices, splits and patterns.

Cases are HF's own normalizer.rs tests, restated in CHARACTER offsets (HF's are bytes).
"""

from __future__ import annotations

import pytest

from engine.errors import EngineError
from engine.normalizers.normalized import NormalizedString
from engine.pattern import (
    CONTIGUOUS,
    ISOLATED,
    MERGED_WITH_NEXT,
    MERGED_WITH_PREVIOUS,
    REMOVED,
    Regex,
    find_matches,
    split_spans,
)


def test_fresh_string_aligns_each_char_with_itself() -> None:
    n = NormalizedString("héllo")
    assert n.get() == n.get_original() == "héllo"
    assert n.alignments() == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    assert n.offsets_original() == (0, 5)
    assert len(n) == 5 and n.len_original() == 5 and not n.is_empty()
    assert NormalizedString("").is_empty()


def test_nfd_adds_new_chars() -> None:
    n = NormalizedString("élégant")
    n.nfd()
    assert n.get() == "e\u0301le\u0301gant"
    assert n.alignments() == [
        (0, 1), (0, 1), (1, 2), (2, 3), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7)
    ]


def test_nfc_composite_takes_the_alignment_of_its_starter() -> None:
    n = NormalizedString("e\u0301t")
    n.nfc()
    assert n.get() == "ét"
    # subtle: HF gives the composite its starter's span only (change -1 swallows the accent).
    assert n.alignments() == [(0, 1), (2, 3)]


def test_nfkc_ligature_expands_onto_one_source_char() -> None:
    n = NormalizedString("\ufb01")
    n.nfkc()
    assert n.get() == "fi"
    assert n.alignments() == [(0, 1), (0, 1)]


def test_canonical_reordering_keeps_alignments_positional() -> None:
    n = NormalizedString("a\u0301\u0323")  # acute (230) before dot below (220)
    n.nfd()
    assert n.get() == "a\u0323\u0301"
    assert n.alignments() == [(0, 1), (1, 2), (2, 3)]


def test_remove_chars_added_by_nfd() -> None:
    n = NormalizedString("élégant")
    n.nfd()
    n.filter(lambda c: c != "\u0301")
    assert n.get() == "elegant"
    assert n.alignments() == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7)]


def test_remove_chars() -> None:
    n = NormalizedString("élégant")
    n.filter(lambda c: c != "n")
    assert n.get() == "élégat"
    assert n.alignments() == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (6, 7)]


def test_mixed_addition_and_removal() -> None:
    n = NormalizedString("élégant")
    n.nfd()
    n.filter(lambda c: c != "\u0301" and c != "n")
    assert n.get() == "elegat"
    assert n.alignments() == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (6, 7)]


def test_range_conversion() -> None:
    n = NormalizedString("    __Hello__   ")
    n.filter(lambda c: not c.isspace())
    n.lowercase()
    assert n.get() == "__hello__"
    hello = n.convert_original_range(6, 11)
    assert hello == (2, 7)
    assert n.get()[2:7] == "hello"
    assert n.get_range_original(2, 7) == "Hello"
    # None only in specific cases
    assert n.convert_original_range(0, 0) == (0, 0)
    assert n.convert_original_range(3, 3) == (3, 3)
    assert n.convert_original_range(15, 16) == (9, 9)
    assert n.convert_original_range(16, 16) == (16, 16)
    assert n.convert_original_range(17, 16) is None
    assert n.convert_normalized_range(0, 0) == (0, 0)
    assert n.convert_normalized_range(3, 3) == (3, 3)
    assert n.convert_normalized_range(9, 9) == (9, 9)
    assert n.convert_normalized_range(10, 9) is None
    assert n.convert_normalized_range(8, 10) is None


def test_original_range() -> None:
    n = NormalizedString("Hello_______ World!")
    n.filter(lambda c: c != "_")
    n.lowercase()
    assert n.get()[6:11] == "world"
    assert n.get_range_original(6, 11) == "World"
    assert n.convert_normalized_range(6, 11) == (13, 18)


def test_added_around_edges() -> None:
    n = NormalizedString("Hello")
    n.transform(list(" Hello "), [1, 0, 0, 0, 0, 0, 1], 0)
    assert n.get() == " Hello "
    assert n.get_range_original(1, 6) == "Hello"
    # subtle: an insertion at offset 0 has nothing before it and gets the empty (0, 0) span.
    assert n.alignments()[0] == (0, 0)
    assert n.alignments()[-1] == (4, 5)


def test_added_characters_alignment() -> None:
    n = NormalizedString("野口 No")
    dest: list[str] = []
    changes: list[int] = []
    for c in n.get():
        if ord(c) > 0x4E00:
            dest += [" ", c, " "]
            changes += [0, 1, 1]
        else:
            dest.append(c)
            changes.append(0)
    n.transform(dest, changes, 0)
    assert n.get() == " 野  口  No"
    assert n.alignments() == [
        (0, 1), (0, 1), (0, 1), (1, 2), (1, 2), (1, 2), (2, 3), (3, 4), (4, 5)
    ]


def test_remove_at_beginning_and_end() -> None:
    n = NormalizedString("     Hello")
    n.filter(lambda c: c != " ")
    assert n.get_range_original(1, 5) == "ello"
    assert n.get_range_original(0, 5) == "Hello"
    n = NormalizedString("Hello    ")
    n.filter(lambda c: c != " ")
    assert n.get_range_original(0, 4) == "Hell"
    assert n.get_range_original(0, 5) == "Hello"


def test_lstrip_rstrip_strip() -> None:
    for method, expected in [
        ("lstrip", "This is an example  "),
        ("rstrip", "  This is an example"),
        ("strip", "This is an example"),
    ]:
        n = NormalizedString("  This is an example  ")
        getattr(n, method)()
        assert n.get() == expected
        assert n.get_range_original(0, len(n)) == expected
    n = NormalizedString("  你好asa \n")
    n.strip()
    assert n.get() == "你好asa"
    assert n.get_range_original(0, len(n)) == "你好asa"
    n = NormalizedString(" \u3000\t ")
    n.strip()
    assert n.get() == "" and n.alignments() == []


def test_prepend_and_append() -> None:
    n = NormalizedString("there")
    n.prepend("Hey ")
    assert n.get() == "Hey there"
    assert n.alignments() == [(0, 1)] * 5 + [(1, 2), (2, 3), (3, 4), (4, 5)]
    assert n.convert_normalized_range(0, 4) == (0, 1)
    n = NormalizedString("Hey")
    n.append(" there")
    assert n.get() == "Hey there"
    assert n.alignments() == [(0, 1), (1, 2)] + [(2, 3)] * 7
    assert n.convert_normalized_range(3, 9) == (2, 3)
    empty = NormalizedString("")
    empty.prepend("x")
    assert empty.get() == ""
    empty.append("ab")
    assert empty.get() == "ab" and empty.alignments() == [(0, 0), (0, 0)]


def test_append_after_clear() -> None:
    n = NormalizedString("Hello")
    n.nfkd()
    assert n.clear() == 5
    assert n.get() == ""
    n.append(" World")
    assert n.get() == " World"
    assert n.len_original() == 5 and len(n) == 6
    assert n.get_range_original(0, 6) == ""


def test_lowercase_and_uppercase_are_per_char() -> None:
    n = NormalizedString("ΟΔΟΣ İ")
    n.lowercase()
    assert n.get() == "οδοσ i\u0307"  # no final sigma; İ becomes two chars
    assert n.alignments()[-2:] == [(5, 6), (5, 6)]
    n = NormalizedString("straße")
    n.uppercase()
    assert n.get() == "STRASSE"
    assert n.alignments()[4:6] == [(4, 5), (4, 5)]


def test_map_keeps_alignments() -> None:
    n = NormalizedString("a-b")
    n.map(lambda c: "_" if c == "-" else c)
    assert n.get() == "a_b" and n.alignments() == [(0, 1), (1, 2), (2, 3)]
    with pytest.raises(ValueError):
        n.map(lambda c: c + c)


def test_slice_of_normalized_and_original() -> None:
    s = NormalizedString("𝔾𝕠𝕠𝕕 𝕞𝕠𝕣𝕟𝕚𝕟𝕘")
    s.nfkc()
    by_original = s.slice_original(0, 1)
    assert by_original is not None
    assert by_original.get() == "G" and by_original.get_original() == "𝔾"
    by_normalized = s.slice(0, 4)
    assert by_normalized is not None
    assert by_normalized.get() == "Good" and by_normalized.get_original() == "𝔾𝕠𝕠𝕕"
    assert s.slice_normalized(0, 4) == by_normalized

    s = NormalizedString("   Good Morning!   ")
    s.strip()
    whole = s.slice_original(0, 19)
    assert whole is not None and whole.get_range_original(0, 4) == "Good"
    after = s.slice_original(4, 15)
    assert after is not None and after.get_range_original(0, 3) == "ood"
    only = s.slice_original(3, 16)
    assert only is not None and only.get_range_original(0, 4) == "Good"
    assert only.offsets_original() == (3, 16)
    assert s.slice(0, 99) is None and s.slice(5, 2) is None and s.slice_original(0, 99) is None


def test_replace() -> None:
    s = NormalizedString(" Hello   friend ")
    s.replace(" ", "_")
    assert s.get() == "_Hello___friend_"
    s = NormalizedString("aaaab")
    s.replace("a", "b")
    assert s.get() == "bbbbb"
    s = NormalizedString("aaaab")
    s.replace("aaa", "b")
    assert s.get() == "bab"
    s = NormalizedString(" Hello   friend ")
    s.replace(Regex(r"\s+"), "_")
    assert s.get() == "_Hello_friend_"
    # the new chars all take the alignment of the match's last char
    assert s.alignments()[6] == (8, 9)


def test_split_behaviors() -> None:
    s = NormalizedString("The-final--countdown")
    expected = {
        REMOVED: ["The", "final", "countdown"],
        ISOLATED: ["The", "-", "final", "-", "-", "countdown"],
        MERGED_WITH_PREVIOUS: ["The-", "final-", "-", "countdown"],
        MERGED_WITH_NEXT: ["The", "-final", "-", "-countdown"],
        CONTIGUOUS: ["The", "-", "final", "--", "countdown"],
    }
    for behavior, pieces in expected.items():
        got = [p.get() for p in s.split("-", behavior) if p.get()]
        assert got == pieces, behavior
    parts = s.split("-", MERGED_WITH_NEXT)
    assert [p.offsets_original() for p in parts] == [(0, 3), (3, 9), (9, 10), (10, 20)]
    with pytest.raises(ValueError):
        s.split("-", "sideways")


def test_split_invert_and_offsets_after_normalization() -> None:
    s = NormalizedString("Héllo wörld")
    s.nfd()
    words = [p for p in s.split(Regex(r"\w+"), REMOVED, invert=True) if p.get()]
    assert [w.get_original() for w in words] == ["Héllo", "wörld"]
    assert [w.offsets_original() for w in words] == [(0, 5), (6, 11)]


def test_find_matches_follows_oniguruma_empty_match_rule() -> None:
    # Python's finditer would also report (3, 3) right after "aa"; Oniguruma skips it.
    assert find_matches(Regex("a*"), "baab") == [
        (0, 0, True), (0, 1, False), (1, 3, True), (3, 4, False), (4, 4, True)
    ]
    assert split_spans(find_matches(Regex("a*"), "baab"), MERGED_WITH_NEXT) == [
        (0, 1), (1, 4), (4, 4)
    ]
    assert find_matches(Regex(r"\s+"), "") == [(0, 0, False)]
    assert find_matches("", "abc") == [(0, 3, False)]
    assert find_matches(Regex("^a"), "a\na") == [(0, 1, True), (1, 2, False), (2, 3, True)]


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        (r"\h+", "ab12 zz", [(0, 4)]),  # Ruby's \h is a hex digit, not horizontal space
        (r"\H+", "ab12 zz", [(4, 7)]),
        (r"a\Z", "a\na\n", [(2, 3)]),  # \Z also matches before a final newline
        (r"\x{41}", "xAx", [(1, 2)]),
        (r"\e", "a\x1bb", [(1, 2)]),
        (r"(?<q>a)\k<q>", "aab", [(0, 2)]),
        (r"[[:alpha:]\d]+", "ab1 c", [(0, 3), (4, 5)]),
        (r"\p{L}+", "ab\u0558c", [(0, 2), (3, 4)]),  # U+0558 (Unicode 17) is no letter for HF
        (r"[^\s\p{L}]+", "ab .. \u0558", [(3, 5), (6, 7)]),
    ],
)
def test_oniguruma_syntax_and_tables(pattern: str, text: str, expected: list[tuple[int, int]]) -> None:
    spans = [(s, e) for s, e, m in find_matches(Regex(pattern), text) if m]
    assert spans == expected


def test_bad_regex_is_an_engine_error() -> None:
    with pytest.raises(EngineError, match="invalid regex"):
        Regex("(")


def test_transform_range_examples() -> None:
    s = NormalizedString("Hello friend")
    cur = s.copy()
    cur.transform_range_original(0, 4, ["Y"], [0], 3)
    assert cur.get() == "Yo friend"
    assert cur.alignments()[:2] == [(3, 4), (4, 5)]
    cur = s.copy()
    cur.transform_range_original(3, 10, ["_", "F", "R"], [0, 0, -2], 2)
    assert cur.get() == "Hel_FRnd"
    assert cur.alignments() == [
        (0, 1), (1, 2), (2, 3), (5, 6), (6, 7), (7, 8), (10, 11), (11, 12)
    ]
    cur = s.copy()
    cur.transform_range_original(5, 12, ["_", "F"], [0, -5], 0)
    assert cur.get() == "Hello_F"
    assert cur.alignments()[-2:] == [(5, 6), (6, 7)]
    cur = s.copy()
    cur.transform_range_original(0, 1, ["H", "H"], [1, 0], 0)
    assert cur.get() == "HHello friend"
    assert cur.alignments()[:2] == [(0, 0), (0, 1)]
    cur = s.copy()
    cur.transform_range_original(0, 0, ["H"], [1], 0)
    assert cur.get() == "HHello friend"
    assert cur.alignments()[:2] == [(0, 0), (0, 1)]
