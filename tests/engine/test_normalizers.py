"""Normalizers: hand-checked outputs, normalize_str == normalize, version gaps, tokenizer.json in and out."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import normalizers as N
from engine.errors import SchemaError
from engine.normalizers.normalized import NormalizedString
from engine.pattern import Regex

STRINGS = [
    "",
    " ",
    "\t\n",
    "Héllo WORLD",
    "  ΟΔΟΣ  ",
    "e\u0301te\u0301 \ufb01",
    "野口 No",
    "a\x00b\tc\ufffd\u200b",
    "İstanbul straße ẞ",
    "한국어 \u1100\u1161\u11a8",
    "\U00011935\U00011930 \ua7f2 \ua7cb",
]


def all_normalizers() -> list[N.Normalizer]:
    return [
        N.NFC(),
        N.NFD(),
        N.NFKC(),
        N.NFKD(),
        N.Lowercase(),
        N.StripAccents(),
        N.Strip(),
        N.Strip(left=False),
        N.Strip(right=False),
        N.Replace(" ", "▁"),
        N.Replace(Regex(r"\s+"), " "),
        N.Replace("", "|"),
        N.Prepend(),
        N.Prepend("x"),
        N.BertNormalizer(),
        N.BertNormalizer(lowercase=False),
        N.BertNormalizer(strip_accents=True, lowercase=False),
        N.BertNormalizer(clean_text=False, handle_chinese_chars=False),
        N.Nmt(),
        N.ByteLevel(),
        N.Sequence([N.NFKD(), N.StripAccents(), N.Lowercase()]),
        N.Sequence([]),
    ]


@pytest.mark.parametrize("normalizer", all_normalizers(), ids=repr)
@pytest.mark.parametrize("text", STRINGS)
def test_normalize_str_equals_normalize(normalizer: N.Normalizer, text: str) -> None:
    ns = NormalizedString(text)
    normalizer.normalize(ns)
    assert normalizer.normalize_str(text) == ns.get()
    assert len(ns.align_start) == len(ns.get()) == len(ns.align_end)
    for start, end in ns.alignments():
        assert 0 <= start <= end <= len(text)


def test_hand_checked_outputs() -> None:
    assert N.BertNormalizer(lowercase=True).normalize_str("Héllo WORLD") == "hello world"
    assert N.NFD().normalize_str("é") == "e\u0301"
    assert N.NFC().normalize_str("e\u0301") == "é"
    assert N.NFKC().normalize_str("\ufb01") == "fi"
    assert N.NFKD().normalize_str("한") == "\u1112\u1161\u11ab"
    assert N.NFC().normalize_str("\u1112\u1161\u11ab") == "한"
    assert N.StripAccents().normalize_str(N.NFD().normalize_str("Me llamó")) == "Me llamo"
    assert N.Strip().normalize_str("  a b \n") == "a b"
    assert N.Strip(left=False).normalize_str("  a ") == "  a"
    assert N.Replace("''", '"').normalize_str("This is a ''test''") == 'This is a "test"'
    assert N.Replace(Regex(r"\s+"), " ").normalize_str("This     is   a  test") == "This is a test"
    assert N.Replace("", "|").normalize_str("ab") == "|a|b|"  # an escaped "" matches everywhere
    assert N.Prepend().normalize_str("Hello") == "▁Hello"
    assert N.Prepend().normalize_str("") == ""
    assert N.Nmt().normalize_str("a\x01b\tc\u200bd") == "ab c d"
    assert N.ByteLevel().normalize_str("é ") == "Ã©Ġ"
    seq = N.Sequence([N.NFKD(), N.StripAccents(), N.Lowercase()])
    assert seq.normalize_str("Ça Été") == "ca ete"
    assert len(seq) == 3 and isinstance(seq[1], N.StripAccents)


def test_lowercase_is_per_char_like_rust() -> None:
    assert N.Lowercase().normalize_str("ΟΔΟΣ") == "οδοσ"  # Python's str.lower gives "οδος"
    assert N.Lowercase().normalize_str("İ") == "i\u0307"
    assert N.Lowercase().normalize_str("ẞ") == "ß"
    assert N.Lowercase().normalize_str("\ua7cb") == "\u0264"  # Unicode 16, unknown to Python 3.11


def test_normalization_uses_hf_unicode_9_data() -> None:
    # U+11935 U+11930 compose to U+11938 since Unicode 13; HF's tables predate it.
    assert N.NFC().normalize_str("\U00011935\U00011930") == "\U00011935\U00011930"
    assert N.NFKC().normalize_str("\ua7f2") == "\ua7f2"  # compatibility mapping added in 14.0
    # U+0898 (Unicode 14, class 230) is class 0 for HF: no reordering around it...
    assert N.NFD().normalize_str("a\u0898\u0334") == "a\u0898\u0334"
    # ...while U+08D4 (Unicode 9, class 230) is reordered after U+0334 (class 1).
    assert N.NFD().normalize_str("a\u08d4\u0334") == "a\u0334\u08d4"


def test_bert_normalizer_options() -> None:
    assert N.BertNormalizer().normalize_str("a\x00b\tc\ufffd") == "ab c"
    assert N.BertNormalizer().normalize_str("野口") == " 野  口 "
    assert N.BertNormalizer(handle_chinese_chars=False).normalize_str("野口") == "野口"
    # strip_accents=None follows lowercase
    assert N.BertNormalizer(lowercase=False).normalize_str("Été") == "Été"
    assert N.BertNormalizer(lowercase=True).normalize_str("Été") == "ete"
    assert N.BertNormalizer(strip_accents=False).normalize_str("Été") == "été"
    assert N.BertNormalizer(strip_accents=True, lowercase=False).normalize_str("Été") == "Ete"


def test_bert_normalizer_alignments() -> None:
    ns = NormalizedString("Éa野")
    N.BertNormalizer().normalize(ns)
    assert ns.get() == "ea 野 "
    assert ns.alignments() == [(0, 1), (1, 2), (2, 3), (2, 3), (2, 3)]


BERT_OPTIONS = [
    N.BertNormalizer(),
    N.BertNormalizer(lowercase=False),
    N.BertNormalizer(strip_accents=False),
    N.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=True, lowercase=False),
]


@pytest.mark.parametrize("normalizer", BERT_OPTIONS, ids=repr)
@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=12) | st.sampled_from(STRINGS + ["a\u0301\u0323\u031b", "\U0001d165\U0001d16e", "ΣΑΣ ǅ"]))
def test_bert_mapped_normalization_has_the_alignments_normalize_gives(normalizer: N.BertNormalizer, text: str) -> None:
    # char by char through BertNormalizer's table, or through `normalize` where a char's result
    # depends on its neighbours (a kept mark NFD may reorder): the same either way
    expected = NormalizedString(text)
    normalizer.normalize(expected)
    found = normalizer.normalize_mapped(text)
    assert (found.get(), found.alignments()) == (expected.get(), expected.alignments())


@pytest.mark.parametrize("normalizer", all_normalizers(), ids=repr)
def test_to_dict_round_trip(normalizer: N.Normalizer) -> None:
    data = normalizer.to_dict()
    again = N.from_dict(data)
    assert again.to_dict() == data
    assert again.normalize_str("Héllo  Wörld ﬁ") == normalizer.normalize_str("Héllo  Wörld ﬁ")


def test_to_dict_matches_hf_layout() -> None:
    assert N.Strip(left=False).to_dict() == {"type": "Strip", "strip_left": False, "strip_right": True}
    assert N.Replace(Regex(r"\s+"), " ").to_dict() == {
        "type": "Replace",
        "pattern": {"Regex": r"\s+"},
        "content": " ",
    }
    assert list(N.BertNormalizer().to_dict()) == [
        "type", "clean_text", "handle_chinese_chars", "strip_accents", "lowercase"
    ]
    assert N.Sequence([N.NFC()]).to_dict() == {"type": "Sequence", "normalizers": [{"type": "NFC"}]}
    assert repr(N.Prepend("x")) == "Prepend(prepend='x')"


def test_from_dict_legacy_and_aliases() -> None:
    strip = N.from_dict({"strip_left": True, "strip_right": False})
    assert isinstance(strip, N.Strip) and strip.left and not strip.right
    assert isinstance(N.from_dict({"prepend": "x"}), N.Prepend)
    assert isinstance(N.from_dict({"normalizers": []}), N.Sequence)
    bert = N.from_dict(
        {"type": "Bert", "clean_text": True, "handle_chinese_chars": False, "lowercase": False}
    )
    assert isinstance(bert, N.BertNormalizer)
    assert bert.strip_accents is None and not bert.handle_chinese_chars
    assert isinstance(N.from_dict({"type": "NFC", "unknown_extra": 1}), N.NFC)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("NFC", "normalizer: expected an object, got a string"),
        ({"type": "Foo"}, "unknown normalizer type 'Foo'"),
        ({}, "matches no known normalizer"),
        ({"type": 3}, "normalizer: field 'type' must be a string, got a number"),
        ({"type": "Strip", "strip_left": True}, "Strip: missing field 'strip_right'"),
        ({"type": "Strip", "strip_left": 1, "strip_right": True}, "must be true or false"),
        ({"type": "BertNormalizer"}, "BertNormalizer: missing field 'clean_text'"),
        (
            {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
             "lowercase": True, "strip_accents": "yes"},
            "BertNormalizer: field 'strip_accents' must be true, false or null, got a string",
        ),
        ({"type": "Replace", "pattern": {"String": "a"}}, "Replace: missing field 'content'"),
        ({"type": "Replace", "pattern": "a", "content": ""}, "'pattern' must be"),
        ({"type": "Replace", "pattern": {"Regex": "("}, "content": ""}, "invalid regex"),
        ({"type": "Prepend"}, "Prepend: missing field 'prepend'"),
        ({"type": "Sequence"}, "Sequence: missing field 'normalizers'"),
        ({"type": "Sequence", "normalizers": None}, "must be a list"),
        ({"type": "Sequence", "normalizers": [{}]}, "matches no known normalizer"),
        ({"type": "Precompiled", "precompiled_charsmap": None}, "not supported"),
    ],
)
def test_from_dict_errors(data: object, message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        N.from_dict(data)
