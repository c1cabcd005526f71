"""engine.analysis.unicode_report: code points named and classified on hand-checked strings
("café" typed two ways, the ﬁ ligature, emoji ZWJ sequences, bidi controls, unusual spaces, a
Cyrillic а in "pаypal", controls), normal forms with the ids a tokenizer with and without a
normalizer gives each, flags and their offsets, and a corpus counted line by line from lines, a
file, and a file that is not UTF-8."""

from __future__ import annotations

import json
import pickle
import unicodedata
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Tokenizer, normalizers, pre_tokenizers
from engine.analysis.unicode_characters import (
    CONTROL_NAMES,
    LATIN_LOOK_ALIKES,
    SCRIPT_NAMES,
    SCRIPT_RE,
    character_name,
    script_of,
)
from engine.analysis.unicode_report import (
    PROGRESS_BYTES,
    BIDI_CONTROL,
    CONFUSABLE,
    CONTROL,
    FLAGS,
    FORMS,
    LOOK_ALIKE_RE,
    MIXED_SCRIPT_WORD,
    PRIVATE_USE,
    SURROGATE,
    UNASSIGNED,
    UNUSUAL_SPACE,
    ZERO_WIDTH,
    changed_under,
    code_points,
    corpus_forms,
    flagged_offsets,
    flags_summary,
    normal_forms,
    normalization_runs,
)
from engine.errors import CorpusError
from engine.models.wordlevel.model import WordLevel

CAFE_NFC = "caf\u00e9"
CAFE_NFD = "cafe\u0301"
FILE_LIGATURE = "\ufb01le"
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # man ZWJ woman ZWJ girl
PAYPAL = "p\u0430ypal"  # the second letter is CYRILLIC SMALL LETTER A


def flags_of(text: str) -> dict[str, dict[str, object]]:
    """The non-zero flags of `text` as {flag: {"count": n, "offsets": [...]}}."""
    summary = flags_summary(text)
    return {
        flag: {"count": count, "offsets": summary.offsets[flag]} for flag, count in summary.counts.items() if count
    }


def word_level(normalizer: normalizers.Normalizer | None) -> Tokenizer:
    """A tiny WordLevel tokenizer: words split on white space, the NFC "café" and "file" known."""
    tokenizer = Tokenizer(WordLevel({"[UNK]": 0, CAFE_NFC: 1, "file": 2, "a": 3}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    if normalizer is not None:
        tokenizer.normalizer = normalizer
    return tokenizer


# --- code points --------------------------------------------------------------------------------


def test_cafe_composed_is_one_code_point_that_nfd_splits() -> None:
    points = code_points(CAFE_NFC)
    assert [p.character for p in points] == ["c", "a", "f", "\u00e9"]
    e = points[3]
    assert (e.offset, e.code, e.name) == (3, "U+00E9", "LATIN SMALL LETTER E WITH ACUTE")
    assert (e.category, e.category_name, e.script, e.combining) == ("Ll", "letter, lowercase", "Latin", 0)
    assert e.forms == {"NFC": "\u00e9", "NFD": "e\u0301", "NFKC": "\u00e9", "NFKD": "e\u0301"}
    assert e.changes == ["NFD", "NFKD"]
    assert e.flags == set()
    assert [p.changes for p in points[:3]] == [[], [], []]


def test_cafe_decomposed_has_a_combining_accent_that_nfc_joins_to_its_e() -> None:
    points = code_points(CAFE_NFD)
    assert len(points) == 5
    accent = points[4]
    assert (accent.offset, accent.code, accent.name) == (4, "U+0301", "COMBINING ACUTE ACCENT")
    assert (accent.category, accent.category_name, accent.combining) == ("Mn", "mark, nonspacing", 230)
    assert accent.script == "Inherited"
    # in context both the e and the accent change under the composing forms, nothing else does
    assert [p.changes for p in points] == [[], [], [], ["NFC", "NFKC"], ["NFC", "NFKC"]]
    # alone, the accent is the same under every form
    assert accent.forms == {form: "\u0301" for form in FORMS}


def test_the_fi_ligature_becomes_f_i_under_the_compatibility_forms_only() -> None:
    ligature = code_points(FILE_LIGATURE)[0]
    assert (ligature.code, ligature.name, ligature.category) == ("U+FB01", "LATIN SMALL LIGATURE FI", "Ll")
    assert ligature.forms == {"NFC": "\ufb01", "NFD": "\ufb01", "NFKC": "fi", "NFKD": "fi"}
    assert ligature.changes == ["NFKC", "NFKD"]


def test_hangul_jamo_compose_across_starters() -> None:
    # L V T compose into one syllable (all three have combining class 0); the "x" stays
    assert changed_under("\u1100\u1161\u11a8x", "NFC") == [True, True, True, False]
    assert unicodedata.normalize("NFC", "\u1100\u1161\u11a8") == "\uac01"
    assert changed_under("\uac01x", "NFD") == [True, False]
    assert changed_under("plain", "NFKC") == [False] * 5


# Characters whose normal forms depend on their neighbours: marks in and out of order, Hangul
# jamo and syllables, Indic two-part vowels, half-width kana and voicing marks, ligatures.
TRICKY = (
    "ae\u00e9\u0301\u0300\u0323\u0345\u1100\u1161\u11a8\uac00\uac01\u0b47\u0b3e\u0b57\u0dd9\u0dcf"
    "\uff76\uff9e\uff9f\u30ab\u3099\u309b\ufb01\u00a0\u0f71\u0f72\u0f73\u212b\u0041\u030a x"
)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=TRICKY, max_size=12))
def test_runs_normalize_independently(text: str) -> None:
    for form in FORMS:
        runs = normalization_runs(text, form)
        assert "".join(text[start:end] for start, end in runs) == text
        joined = "".join(unicodedata.normalize(form, text[start:end]) for start, end in runs)
        assert joined == unicodedata.normalize(form, text), (form, runs)
        # a code point is changed exactly where its run is
        changed = changed_under(text, form)
        for start, end in runs:
            run = text[start:end]
            assert changed[start:end] == [unicodedata.normalize(form, run) != run] * (end - start)


def test_half_width_voicing_joins_its_kana_under_nfkc_only() -> None:
    text = "\uff76\uff9ex"  # half-width KA and VOICED SOUND MARK: NFKC makes one GA
    assert unicodedata.normalize("NFKC", text) == "\u30acx"
    assert normalization_runs(text, "NFKC") == [(0, 2), (2, 3)]
    assert normalization_runs(text, "NFC") == [(0, 1), (1, 2), (2, 3)]
    assert changed_under(text, "NFKC") == [True, True, False]


def test_empty_text() -> None:
    assert code_points("") == []
    assert [(row.form, row.text, row.equals_original) for row in normal_forms("")] == [
        ("original", "", True), ("NFC", "", True), ("NFD", "", True), ("NFKC", "", True), ("NFKD", "", True),
    ]  # fmt: skip
    assert flags_of("") == {}


# --- names --------------------------------------------------------------------------------------


def test_controls_private_use_and_unassigned_get_names_or_labels() -> None:
    assert character_name("\n") == "LINE FEED (LF)"
    assert character_name("\t") == "CHARACTER TABULATION"
    assert character_name("\r") == "CARRIAGE RETURN (CR)"
    assert character_name("\x00") == "NULL"
    assert character_name("\x7f") == "DELETE"
    assert character_name("\x07") == "ALERT (BEL)"  # not "BELL", which is U+1F514's name
    assert character_name("\x85") == "NEXT LINE (NEL)"
    assert character_name("\x80") == "<control-0080>"  # no Unicode 1.0 name
    assert character_name("\ue000") == "<private-use-E000>"
    assert character_name("\U000f0000") == "<private-use-F0000>"
    assert character_name("\u0378") == "<reserved-0378>"
    assert character_name("\uffff") == "<noncharacter-FFFF>"
    assert character_name("\ufdd0") == "<noncharacter-FDD0>"
    assert character_name("\ud800") == "<surrogate-D800>"
    assert character_name("a") == "LATIN SMALL LETTER A"
    assert character_name("\u4e00") == "CJK UNIFIED IDEOGRAPH-4E00"


def test_every_control_name_is_an_alias_unicode_knows() -> None:
    for code, name in CONTROL_NAMES.items():
        alias = name.split(" (")[0]  # "LINE FEED (LF)" -> the alias "LINE FEED"
        assert unicodedata.lookup(alias) == chr(code), name
        assert unicodedata.category(chr(code)) == "Cc"


def test_scripts() -> None:
    assert len(SCRIPT_RE.groupindex) == len(SCRIPT_NAMES) == len(set(SCRIPT_NAMES))
    cases = {
        "a": "Latin", "\u0430": "Cyrillic", "\u03bf": "Greek", "\u0301": "Inherited", "\u200d": "Inherited",
        "1": "Common", " ": "Common", "\u30fc": "Common", "\u732b": "Han", "\u306f": "Hiragana", "\u30a2": "Katakana",
        "\u05d0": "Hebrew", "\u0627": "Arabic", "\uac00": "Hangul", "\u0915": "Devanagari", "\U0001e900": "Adlam",
        "\ue000": "Unknown", "\u0378": "Unknown",
    }  # fmt: skip
    assert {character: script_of(character) for character in cases} == cases
    # (the cache answers the same the second time)
    assert script_of("\u0430") == "Cyrillic"


# --- flags --------------------------------------------------------------------------------------


def test_zero_width_joiners_in_an_emoji_sequence_and_a_zero_width_space() -> None:
    text = FAMILY + " a\u200bb"
    assert flags_of(text) == {ZERO_WIDTH: {"count": 3, "offsets": [1, 3, 7]}}
    assert code_points(text)[1].name == "ZERO WIDTH JOINER"
    assert flags_of("\ufeffBOM") == {ZERO_WIDTH: {"count": 1, "offsets": [0]}}


def test_bidi_controls() -> None:
    text = "\u202eexe.txt \u200eabc"
    assert flags_of(text) == {BIDI_CONTROL: {"count": 2, "offsets": [0, 9]}}
    names = [p.name for p in code_points(text) if p.flags]
    assert names == ["RIGHT-TO-LEFT OVERRIDE", "LEFT-TO-RIGHT MARK"]


def test_unusual_spaces_but_not_space_tab_or_newline() -> None:
    text = "a\u00a0b\u3000c\u202fd e\tf\ng\u2003h"
    assert flags_of(text) == {UNUSUAL_SPACE: {"count": 4, "offsets": [1, 3, 5, 13]}}
    assert [code_points(text)[i].name for i in (1, 3, 5, 13)] == [
        "NO-BREAK SPACE", "IDEOGRAPHIC SPACE", "NARROW NO-BREAK SPACE", "EM SPACE",
    ]  # fmt: skip


def test_controls_private_use_unassigned_and_surrogates() -> None:
    text = "a\x01b\x7f\tc\r\nd\x85\ue000\u0378\ud800"
    assert flags_of(text) == {
        CONTROL: {"count": 3, "offsets": [1, 3, 9]},
        PRIVATE_USE: {"count": 1, "offsets": [10]},
        UNASSIGNED: {"count": 1, "offsets": [11]},
        SURROGATE: {"count": 1, "offsets": [12]},
    }


def test_a_cyrillic_a_in_paypal_is_a_latin_look_alike_in_a_mixed_script_word() -> None:
    points = code_points(PAYPAL + " paypal")
    a = points[1]
    assert (a.name, a.script, a.looks_like) == ("CYRILLIC SMALL LETTER A", "Cyrillic", "a")
    assert a.flags == {CONFUSABLE, MIXED_SCRIPT_WORD}
    assert CONFUSABLE == "confusable:Latin"
    assert [sorted(p.flags) for p in points[:6]] == [[MIXED_SCRIPT_WORD]] + [[CONFUSABLE, MIXED_SCRIPT_WORD]] + [
        [MIXED_SCRIPT_WORD]
    ] * 4
    assert all(not p.flags for p in points[6:])  # the space and the all-Latin "paypal"
    assert flags_of(PAYPAL) == {
        CONFUSABLE: {"count": 1, "offsets": [1]},
        MIXED_SCRIPT_WORD: {"count": 6, "offsets": [0, 1, 2, 3, 4, 5]},
    }


def test_look_alikes_only_where_the_word_could_pass_for_latin() -> None:
    # "сор": all three Cyrillic letters look like c o p, so the word passes for Latin "cop"
    assert flags_of("\u0441\u043e\u0440") == {CONFUSABLE: {"count": 3, "offsets": [0, 1, 2]}}
    # "слово": л and в look like no Latin letter, so its с and о are not flagged; nor is Greek "λόγος"
    assert flags_of("\u0441\u043b\u043e\u0432\u043e") == {}
    assert flags_of("\u03bb\u03cc\u03b3\u03bf\u03c2") == {}
    # Greek omicron in a Latin word
    assert flags_of("g\u03bfogle") == {
        CONFUSABLE: {"count": 1, "offsets": [1]},
        MIXED_SCRIPT_WORD: {"count": 6, "offsets": [0, 1, 2, 3, 4, 5]},
    }
    # a word of one letter is not flagged: the Russian "а" (and), the Greek α of a formula
    assert flags_of("\u0430 \u03b11 \u0441") == {}
    # Cyrillic with Greek, no Latin, is mixed too; plain English and Russian are not
    assert MIXED_SCRIPT_WORD in flags_of("\u043b\u03bb")
    assert flags_of("hello \u043f\u0440\u0438\u0432\u0435\u0442") == {}


def test_the_look_alike_table() -> None:
    assert 40 <= len(LATIN_LOOK_ALIKES) <= 80
    for character, latin in LATIN_LOOK_ALIKES.items():
        assert script_of(character) in ("Cyrillic", "Greek"), character
        assert unicodedata.category(character) in ("Lu", "Ll"), character
        assert len(latin) == 1 and latin.isascii() and latin.isalpha(), character
        assert LOOK_ALIKE_RE.match(character)
        # a capital looks like a capital, a small letter like a small letter
        assert character.isupper() == latin.isupper(), character


# --- normal forms and ids -----------------------------------------------------------------------


def test_normal_forms_without_a_tokenizer() -> None:
    rows = normal_forms(CAFE_NFD)
    assert [(r.form, r.text, r.code_points, r.equals_original) for r in rows] == [
        ("original", CAFE_NFD, 5, True), ("NFC", CAFE_NFC, 4, False), ("NFD", CAFE_NFD, 5, True),
        ("NFKC", CAFE_NFC, 4, False), ("NFKD", CAFE_NFD, 5, True),
    ]  # fmt: skip
    assert all(r.ids is None and r.tokens is None and r.same_ids is None for r in rows)
    assert [r.text for r in normal_forms(FILE_LIGATURE)] == [FILE_LIGATURE] * 3 + ["file"] * 2


def test_without_a_normalizer_each_spelling_gets_its_own_ids() -> None:
    tokenizer = word_level(None)
    composed = normal_forms(CAFE_NFC, tokenizer)
    assert [(r.form, r.ids, r.same_ids) for r in composed] == [
        ("original", [1], True), ("NFC", [1], True), ("NFD", [0], False), ("NFKC", [1], True), ("NFKD", [0], False),
    ]  # fmt: skip
    decomposed = normal_forms(CAFE_NFD, tokenizer)
    assert [(r.form, r.ids, r.tokens, r.same_ids) for r in decomposed] == [
        ("original", [0], ["[UNK]"], True), ("NFC", [1], [CAFE_NFC], False), ("NFD", [0], ["[UNK]"], True),
        ("NFKC", [1], [CAFE_NFC], False), ("NFKD", [0], ["[UNK]"], True),
    ]  # fmt: skip
    ligature = normal_forms(FILE_LIGATURE + " a", tokenizer)
    assert [(r.form, r.ids, r.same_ids) for r in ligature] == [
        ("original", [0, 3], True), ("NFC", [0, 3], True), ("NFD", [0, 3], True),
        ("NFKC", [2, 3], False), ("NFKD", [2, 3], False),
    ]  # fmt: skip


def test_with_nfkc_every_form_gets_the_same_ids() -> None:
    tokenizer = word_level(normalizers.NFKC())
    for text, ids in ((CAFE_NFC, [1]), (CAFE_NFD, [1]), (FILE_LIGATURE, [2])):
        rows = normal_forms(text, tokenizer)
        assert [(r.ids, r.same_ids) for r in rows] == [(ids, True)] * 5, text


def test_with_nfc_the_ligature_still_differs() -> None:
    tokenizer = word_level(normalizers.NFC())
    assert [r.ids for r in normal_forms(CAFE_NFD, tokenizer)] == [[1]] * 5
    assert [r.same_ids for r in normal_forms(FILE_LIGATURE, tokenizer)] == [True, True, True, False, False]


# --- plain data for the child process -----------------------------------------------------------


def test_results_cross_a_process_boundary_as_plain_data() -> None:
    text = PAYPAL + " " + CAFE_NFD + "\u00a0" + FAMILY
    points = [p.to_wire() for p in code_points(text)]
    wire = {
        "code_points": points,
        "forms": [r.to_wire() for r in normal_forms(text, word_level(None))],
        "flags": flags_summary(text).to_wire(),
        "corpus": corpus_forms([text, "plain"]).to_wire(),
    }
    assert pickle.loads(pickle.dumps(wire)) == wire
    assert json.loads(json.dumps(wire)) == wire
    assert points[1] == {
        "character": "\u0430", "offset": 1, "code": "U+0430", "name": "CYRILLIC SMALL LETTER A", "category": "Ll",
        "category_name": "letter, lowercase", "script": "Cyrillic", "combining": 0,
        "forms": {"NFC": "\u0430", "NFD": "\u0430", "NFKC": "\u0430", "NFKD": "\u0430"}, "changes": [],
        "looks_like": "a", "flags": [CONFUSABLE, MIXED_SCRIPT_WORD],
    }  # fmt: skip


# --- a corpus -----------------------------------------------------------------------------------

CORPUS = [
    "plain ASCII line\n",
    CAFE_NFC + "\n",  # changes under NFD, NFKD
    CAFE_NFD + "\r\n",  # changes under NFC, NFKC
    "\uff21\uff22\uff23 full width\n",  # NFKC, NFKD
    FILE_LIGATURE + "\n",  # NFKC, NFKD
    "no\u00a0break and zero\u200bwidth\n",  # NFKC, NFKD (the NBSP); unusual-space, zero-width
    PAYPAL + "\n",  # confusable, mixed-script word
    "bell\x07\n",  # control
    "tab\tand carriage\rreturn",  # nothing (and no line ending)
]


def test_corpus_counts_from_lines() -> None:
    report = corpus_forms(CORPUS)
    assert (report.source, report.lines, report.complete) == ("", 9, True)
    assert report.changed == {"NFC": 1, "NFD": 1, "NFKC": 4, "NFKD": 4}
    assert report.flagged == {
        ZERO_WIDTH: 1, BIDI_CONTROL: 0, UNUSUAL_SPACE: 1, CONTROL: 1, PRIVATE_USE: 0, UNASSIGNED: 0, SURROGATE: 0,
        CONFUSABLE: 1, MIXED_SCRIPT_WORD: 1,
    }  # fmt: skip
    assert list(report.flagged) == list(FLAGS)
    nfkd = report.form_examples["NFKD"]
    assert [e.line_number for e in nfkd] == [2, 4, 5, 6]
    first = nfkd[0]
    assert (first.text, first.start, first.column, first.form_text) == (CAFE_NFC, 0, 3, CAFE_NFD)
    assert [(e.line_number, e.column) for e in report.form_examples["NFC"]] == [(3, 3)]
    space = report.flag_examples[UNUSUAL_SPACE]
    assert [(e.line_number, e.text, e.column, e.form_text) for e in space] == [
        (6, "no\u00a0break and zero\u200bwidth", 2, "")
    ]
    assert [(e.line_number, e.column) for e in report.flag_examples[ZERO_WIDTH]] == [(6, 17)]
    assert [(e.line_number, e.column) for e in report.flag_examples[CONFUSABLE]] == [(7, 1)]
    assert [(e.line_number, e.column) for e in report.flag_examples[MIXED_SCRIPT_WORD]] == [(7, 0)]
    assert [(e.line_number, e.column) for e in report.flag_examples[CONTROL]] == [(8, 4)]


def test_corpus_examples_are_capped_and_windowed() -> None:
    long_line = "x" * 100 + "\u00e9" + "y" * 300
    report = corpus_forms([long_line] * 8, examples=3)
    assert report.changed["NFD"] == 8
    kept = report.form_examples["NFD"]
    assert [e.line_number for e in kept] == [1, 2, 3]
    # the window starts 40 characters before the change and holds 120
    assert (kept[0].start, kept[0].column, len(kept[0].text)) == (60, 100, 120)
    assert kept[0].text == long_line[60:180]


def test_corpus_stops_after_max_lines() -> None:
    report = corpus_forms(CORPUS, max_lines=3)
    assert (report.lines, report.complete) == (3, False)
    assert report.changed == {"NFC": 1, "NFD": 1, "NFKC": 1, "NFKD": 1}
    assert corpus_forms(CORPUS, max_lines=9).complete


def test_corpus_flags_agree_with_the_text_flags() -> None:
    texts = [line.rstrip("\r\n") for line in CORPUS] + [
        FAMILY, "\u202eabc", "\u0441\u043e\u0440 x", "\ue000\u0378", "a\x01", "\u03bfk", "",
    ]  # fmt: skip
    for text in texts:
        report = corpus_forms([text])
        expected = {flag: 1 if count else 0 for flag, count in flags_summary(text).counts.items()}
        assert report.flagged == expected, text
        for flag, examples in report.flag_examples.items():
            if examples:
                assert examples[0].column == flagged_columns(text, flag)[0], (text, flag)


def flagged_columns(text: str, flag: str) -> list[int]:
    return [offset for offset, flags in sorted(flagged_offsets(text).items()) if flag in flags]


def test_corpus_from_a_file(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes("".join(CORPUS).encode("utf-8"))
    from_lines = corpus_forms(CORPUS).to_wire()
    for source in (corpus, str(corpus)):
        report = corpus_forms(source)
        assert report.source == str(corpus)
        wire = report.to_wire()
        assert wire == {**from_lines, "source": str(corpus)}
    assert corpus_forms(corpus, max_lines=2).lines == 2


def test_a_file_s_progress_is_heard_every_megabyte_or_so(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    line = "caf\u00e9 \ufb01le zero\u200bwidth\n"
    corpus.write_text(line * (3 * PROGRESS_BYTES // len(line.encode("utf-8")) + 10), encoding="utf-8")
    heard: list[int] = []
    report = corpus_forms(corpus, progress=heard.append)
    size = corpus.stat().st_size
    assert len(heard) == size // PROGRESS_BYTES and heard == sorted(heard) and heard[-1] <= size
    # (said at the first line end past a megabyte since it was last said)
    steps = [read - before for before, read in zip([0, *heard], heard)]
    assert all(PROGRESS_BYTES <= step < PROGRESS_BYTES + len(line.encode("utf-8")) for step in steps)
    assert report.lines == corpus_forms(corpus).lines  # (hearing changes nothing counted)


def test_a_file_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes(b"first line\n" + "caf\u00e9\n".encode("latin-1"))
    with pytest.raises(CorpusError) as caught:
        corpus_forms(latin1)
    message = str(caught.value)
    assert str(latin1) in message
    assert "line 2 is not valid UTF-8" in message
    assert caught.value.byte_offset == 14  # "first line\n" is 11 bytes, then "caf"


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "missing.txt"
    with pytest.raises(CorpusError, match=regex.escape(str(missing)) + ": file not found"):
        corpus_forms(missing)
