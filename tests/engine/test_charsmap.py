"""SentencePiece charsmaps compiled by the engine: the trie layout read back by our own reader
(`normalizers.Precompiled`) and decompiler, and the NFKC rule tables. Parity with HF's and
sentencepiece's readers is in tests/parity/test_sentencepiece_parity.py."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import normalizers
from engine.formats.charsmap import charsmap_rules, compile_charsmap, nfkc_charsmap, nfkc_rules


def _units(blob: bytes) -> list[int]:
    size = int.from_bytes(blob[:4], "little")
    return [int.from_bytes(blob[4 + 4 * k : 8 + 4 * k], "little") for k in range(size // 4)]


def _darts_validate(blob: bytes) -> bool:
    """darts-clone's `validate(max_value)`, which sentencepiece >= 0.2.1 runs on every charsmap."""
    units = _units(blob)
    strings = blob[4 + 4 * len(units) :]
    size = len(units)

    def offset(unit: int) -> int:
        return (unit >> 10) << ((unit & 0x200) >> 6)

    def label(unit: int) -> int:
        return unit & 0x800000FF

    root = units[0]
    if label(root) != 0 or root & 0x100 or offset(root) == 0 or (offset(root) | 0xFF) >= size:
        return False
    for i in range(1, size):
        unit = units[i]
        if label(unit) <= 0xFF:
            if ((i ^ offset(unit)) | 0xFF) >= size:
                return False
            if unit & 0x100 and label(units[i ^ offset(unit)]) <= 0xFF:
                return False
        elif unit & 0x7FFFFFFF >= len(strings):
            return False
    return bool(strings) and strings.endswith(b"\x00") and size % 256 == 0


HAND = {
    "ﬁ": "fi",
    "A": "a",
    "AB": "x",  # longer than "A": only sentencepiece's longest match reaches it
    "é": "e",
    "\u3000": " ",
    "\x01": "",  # a deletion
    "日本": "にほん",
    "😀": ":)",
    "z": "zzz",
}


def test_hand_rules_round_trip_through_the_decompiler() -> None:
    blob = compile_charsmap(HAND)
    assert charsmap_rules(blob) == HAND
    assert _darts_validate(blob)


def test_hand_rules_apply_through_precompiled() -> None:
    pre = normalizers.Precompiled(compile_charsmap(HAND))
    assert pre.normalize_str("ﬁle") == "file"
    assert pre.normalize_str("\x01gone") == "gone"
    # a rule spanning two graphemes is in the trie, but HF's per-grapheme reader never asks for it
    assert pre.transform("日本") == "にほん" and pre.normalize_str("日本語") == "日本語"
    assert pre.normalize_str("😀 z") == ":) zzz"
    assert pre.normalize_str("\u3000café") == " cafe"
    assert pre.normalize_str("untouched") == "untouched"
    # subtle: HF's reader (ours) takes the SHORTEST rule prefixing a chunk, so "AB" never fires
    assert pre.normalize_str("AB") == "aB"
    assert pre.transform("A") == "a" and pre.transform("B") is None


def test_replacements_are_stored_once_sorted_and_nul_terminated() -> None:
    blob = compile_charsmap({"a": "x", "b": "x", "c": "", "d": "y"})
    strings = blob[4 + int.from_bytes(blob[:4], "little") :]
    assert strings == b"\x00x\x00y\x00"


def test_an_empty_rule_set_is_a_valid_blob_that_changes_nothing() -> None:
    blob = compile_charsmap({})
    assert charsmap_rules(blob) == {}
    assert _darts_validate(blob)
    assert normalizers.Precompiled(blob).normalize_str("abc é") == "abc é"


@pytest.mark.parametrize("bad", [{"": "x"}, {"a\x00": "x"}, {"a": "x\x00y"}])
def test_empty_keys_and_nul_are_refused(bad: dict[str, str]) -> None:
    with pytest.raises(ValueError):
        compile_charsmap(bad)


# small alphabets make shared prefixes and suffixes (DAWG sharing) likely
KEY_CHARS = st.sampled_from(list("ab\u00e9\u0301\u3042\U0001f600z"))
RULES = st.dictionaries(
    st.text(KEY_CHARS, min_size=1, max_size=4),
    st.text(st.sampled_from(list("xy ü\u3044")), max_size=3),
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(RULES)
def test_any_small_rule_set_round_trips(rules: dict[str, str]) -> None:
    blob = compile_charsmap(rules)
    assert charsmap_rules(blob) == rules
    assert _darts_validate(blob)


@settings(max_examples=150, deadline=None)
@given(RULES)
def test_precompiled_finds_each_rule_or_its_shortest_ruled_prefix(rules: dict[str, str]) -> None:
    pre = normalizers.Precompiled(compile_charsmap(rules))
    for key, value in rules.items():
        shortest = next(key[:n] for n in range(1, len(key) + 1) if key[:n] in rules)
        assert pre.transform(key) == rules[shortest]
        if shortest == key:
            assert pre.transform(key) == value


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(
        # subtle: "\r" would join the "\n" after it into one grapheme, replaced whole (HF's quirk)
        st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00\r\n"),
        st.text(max_size=3).filter(lambda v: "\x00" not in v),
        max_size=40,
    )
)
def test_single_char_rules_apply_exactly_to_any_text(rules: dict[str, str]) -> None:
    pre = normalizers.Precompiled(compile_charsmap(rules))
    text = "".join(rules) + "plain"
    # chars apart (a line feed between them) are separate graphemes, each replaced by its rule
    expected = "\n".join([rules.get(c, c) for c in text])
    assert pre.normalize_str("\n".join(text)) == expected


# -- NFKC tables ---------------------------------------------------------------------------------


def test_nfkc_rules_are_per_code_point_nfkc_plus_composing_sequences() -> None:
    rules = nfkc_rules(False)
    assert rules["ﬁ"] == "fi" and rules["①"] == "1" and rules["\u212b"] == "\u00c5"  # ANGSTROM SIGN -> Å
    assert rules["e\u0301"] == "é"  # a decomposed sequence that composes
    assert rules["\u1100\u1161"] == "가"  # conjoining jamo compose
    assert rules["\u3131\u314f"] == "가"  # compatibility jamo spell the same syllable
    assert "a" not in rules and "é" not in rules  # NFKC leaves them: no rule
    assert "\t" not in rules and "\x01" not in rules
    for key, value in rules.items():
        if len(key) == 1:
            assert unicodedata.normalize("NFKC", key) == value
    # RemoveRedundantMap: no multi-char rule is what its parts' rules already give
    assert "ﬁ\u0301" not in rules


def test_nmt_rules_add_sentencepiece_cleanups() -> None:
    rules = nfkc_rules(True)
    assert rules["\t"] == " " and rules["\n"] == " " and rules["\u200b"] == " " and rules["\u2581"] == " "
    assert rules["\x01"] == "" and rules["\x7f"] == "" and rules["\x9f"] == ""
    assert "\uff5e" not in rules and nfkc_rules(False)["\uff5e"] == "~"  # fullwidth tilde kept
    assert "\u200d" not in rules  # ZWJ kept, as sentencepiece's nmt_nfkc does
    assert rules["ﬁ"] == "fi"


def test_nfkc_rules_return_a_fresh_copy() -> None:
    first = nfkc_rules(False)
    first["a"] = "b"
    assert "a" not in nfkc_rules(False)


def test_the_compiled_nfkc_blob_holds_exactly_the_rules_and_is_cached() -> None:
    blob = nfkc_charsmap(False)
    assert nfkc_charsmap(False) is blob
    assert _darts_validate(blob)
    assert charsmap_rules(blob) == nfkc_rules(False)


def test_the_nfkc_blob_normalizes_like_nfkc_char_by_char() -> None:
    pre = normalizers.Precompiled(nfkc_charsmap(False))
    for cp in range(1, 0x3000):
        c = chr(cp)
        if 0xD800 <= cp <= 0xDFFF or unicodedata.category(c) == "Mn":
            continue
        assert pre.normalize_str(c) == unicodedata.normalize("NFKC", c), hex(cp)
    assert pre.normalize_str("ﬁne ｆｕｌｌ ① ㍻") == unicodedata.normalize("NFKC", "ﬁne ｆｕｌｌ ① ㍻")
