"""The Precompiled normalizer (SentencePiece charsmaps): the blob, HF's per-grapheme rules, offsets,
JSON; and, against HF `tokenizers` 0.23.3, text AND alignments on whole corpora and nasty strings.

The charsmap is the real one of `sp_test_model.model` (read here with a tiny protobuf reader).
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import pytest
import tokenizers

from engine import normalizers as N
from engine.formats import sentencepiece_proto
from engine.errors import SchemaError
from engine.normalizers.normalized import NormalizedString
from engine.normalizers.precompiled import EXTENDABLE, GRAPHEME_RE, JOINING_RE, PREPEND_RE, RULED
from support import corpus_path

CORPORA = ["shakespeare.txt", "botchan.txt", "wagahaiwa_nekodearu.txt"]

TORTURE = [
    "",
    " ",
    "\t\n",
    "ﬁ",
    "ﬁnance ﬂow",
    "①②③ ⑴",
    "ＡＢＣ ｘｙｚ １２３",
    "e\u0301 a\u0300\u0301 \u1100\u1161\u11a8",
    "café naïve",
    "👨\u200d👩\u200d👧 family 👍🏽",
    "a\u3000b\u3000\u3000c",
    "zero\u200bwidth\u200c\u200d\ufeff",
    "ctrl\x00\x01\x1e\x7f\x9fend",
    "™\x1eg",
    "\x1eab",
    "①\u0301",
    "ｶﾞｷﾞ ﾊﾟﾝ",
    "ﾊﾞ\u0301",
    "\r\n\r\n",
    "㍻ ㌔ ㎏ ℡ Ⅻ ¼",
    "\u0627\u0644\u0639\u0631\u0628\u064a\u0629 עברית",
    "ｱｲｳ  double  spaces",
    "\U0001d400\U0001d401 𝒜",
    "x" * 300 + "ﬁ",
]


def sp_charsmap() -> bytes:
    """The charsmap of sp_test_model.model (nmt_nfkc), read with the engine's .model reader."""
    return sentencepiece_proto.read(str(corpus_path("sp_test_model.model"))).normalizer_spec.precompiled_charsmap


@pytest.fixture(scope="module")
def charsmap() -> bytes:
    return sp_charsmap()


@pytest.fixture(scope="module")
def ours(charsmap: bytes) -> N.Precompiled:
    return N.Precompiled(charsmap)


def alignments(normalizer: N.Normalizer, text: str) -> tuple[str, list[tuple[int, int]]]:
    normalized = NormalizedString(text)
    normalizer.normalize(normalized)
    return normalized.normalized, normalized.alignments()


# -- our own behaviour -------------------------------------------------------------------------


def test_nfkc_rules(ours: N.Precompiled) -> None:
    assert ours.normalize_str("ﬁ") == "fi"
    assert ours.normalize_str("①") == "1"
    assert ours.normalize_str("ＡＢＣ") == "ABC"
    assert ours.normalize_str("a\u3000b") == "a b"
    assert ours.normalize_str("e\u0301") == "\u00e9"  # a grapheme looked up whole
    assert ours.normalize_str("ｶﾞ") == "\u30ab\u3099"  # 6 bytes: char by char
    assert ours.normalize_str("Hello world") == "Hello world"
    assert ours.transform("x") is None
    assert ours.transform("ﬁ") == "fi"


def test_shortest_rule_replaces_the_whole_grapheme(ours: N.Precompiled) -> None:
    # "①" + combining acute is one 5-byte grapheme; the rule for "①" replaces all of it (HF)
    assert ours.normalize_str("①\u0301") == "1"


def test_alignments_of_an_expansion(ours: N.Precompiled) -> None:
    text, aligned = alignments(ours, "aﬁb")
    assert text == "afib"
    assert aligned == [(0, 1), (1, 2), (1, 2), (2, 3)]


def test_alignments_of_a_contraction(ours: N.Precompiled) -> None:
    text, aligned = alignments(ours, "xe\u0301y")
    assert text == "x\u00e9y"
    # HF: the composed char keeps the span of the first char it replaces, the accent is dropped
    assert aligned == [(0, 1), (1, 2), (3, 4)]


@pytest.mark.parametrize("text", TORTURE)
def test_normalize_str_equals_normalize(ours: N.Precompiled, text: str) -> None:
    assert ours.normalize_str(text) == alignments(ours, text)[0]


def test_json_round_trip(charsmap: bytes, ours: N.Precompiled) -> None:
    data = ours.to_dict()
    assert data == {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap).decode("ascii")}
    again = N.from_dict(json.loads(json.dumps(data)))
    assert isinstance(again, N.Precompiled)
    assert again.precompiled_charsmap == charsmap
    assert again.normalize_str("ﬁ①") == "fi1"


def test_bad_charsmaps() -> None:
    with pytest.raises(SchemaError, match="precompiled_charsmap"):
        N.from_dict({"type": "Precompiled", "precompiled_charsmap": None})
    with pytest.raises(SchemaError, match="precompiled_charsmap"):
        N.from_dict({"type": "Precompiled", "precompiled_charsmap": "not base64!"})
    with pytest.raises(SchemaError, match="Cannot parse"):
        N.from_dict({"type": "Precompiled", "precompiled_charsmap": ""})
    with pytest.raises(ValueError, match="Cannot parse"):
        N.Precompiled(b"\xff\xff\x00\x00abc")


def test_texts_no_rule_can_touch_are_told_without_graphemes(ours: N.Precompiled) -> None:
    # `_unchanged` says a text stays as it is without cutting it into graphemes: texts of chars
    # that start longer rules ("e" of "e\u0301") beside chars that join graphemes (marks,
    # viramas, ZWJ, Hangul jamo, regional indicators, Prepend), and any chars
    rng = random.Random(7)
    every = [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]
    joining = [c for c in every if JOINING_RE.match(c) or PREPEND_RE.match(c)]
    starts = [c for c in every[:0x3100] if ours._flags_of(c) & EXTENDABLE]
    plain = list("abcdeαβγабвअकखिंক্ষกัาه ") + ["\u094d", "\u09cd", "\u200d", "\u0600"]
    assert starts and joining
    for _ in range(20_000):
        text = "".join(
            rng.choice(starts) if r < 0.35 else rng.choice(joining) if r < 0.6 else rng.choice(plain) if r < 0.9 else rng.choice(every)
            for r in [rng.random() for _ in range(rng.randint(1, 8))]
        )  # fmt: skip
        assert ours.normalize_str(text) == ours.normalize_graphemes(text), [hex(ord(c)) for c in text]
    for c in every:
        assert ours.normalize_str(c) == ours.normalize_graphemes(c), hex(ord(c))


def test_texts_rules_touch_are_rewritten_as_every_grapheme_looked_up(ours: N.Precompiled) -> None:
    # `normalize_str` copies what no rule touches and looks up only ruled chars and graphemes
    # of two or more chars (`_rewritten`): texts of ruled chars (alone, first or inside a
    # grapheme) beside joining, extendable and plain chars come out as `normalize_graphemes`'s
    rng = random.Random(13)
    every = [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]
    joining = [c for c in every if JOINING_RE.match(c) or PREPEND_RE.match(c)]
    ruled = [c for c in every[:0x10000] if ours._flags_of(c) & RULED][:3000]
    starts = [c for c in every[:0x3100] if ours._flags_of(c) & EXTENDABLE]
    plain = list("abcdeαβγабвअकखिंক্ষกัาه \r\n") + ["\u094d", "\u200d", "\u0600", "\u1100", "\u1161"]
    for _ in range(20_000):
        text = "".join(
            rng.choice(ruled) if r < 0.3 else rng.choice(joining) if r < 0.5 else rng.choice(starts) if r < 0.6 else rng.choice(plain)
            for r in [rng.random() for _ in range(rng.randint(1, 10))]
        )  # fmt: skip
        assert ours.normalize_str(text) == ours.normalize_graphemes(text), [hex(ord(c)) for c in text]


def test_empty_trie_changes_nothing() -> None:
    normalizer = N.Precompiled(b"\x00\x00\x00\x00")
    assert normalizer.normalize_str("ﬁ ①") == "ﬁ ①"


# -- against HF ------------------------------------------------------------------------------


def hf_char_tokenizer(charsmap: bytes) -> tokenizers.Tokenizer:
    """An HF Tokenizer giving one token per normalized char, with its offsets in the original."""
    tokenizer = tokenizers.Tokenizer(tokenizers.models.BPE(vocab={"[UNK]": 0}, merges=[], unk_token="[UNK]"))
    tokenizer.normalizer = tokenizers.normalizers.Precompiled(charsmap)
    return tokenizer


def check_against_hf(ours: N.Precompiled, charsmap: bytes, lines: list[str]) -> None:
    reference = tokenizers.normalizers.Precompiled(charsmap)
    char_tokenizer = hf_char_tokenizer(charsmap)
    for start in range(0, len(lines), 2000):
        chunk = lines[start : start + 2000]
        encodings = char_tokenizer.encode_batch(chunk)
        for line, encoding in zip(chunk, encodings):
            text, aligned = alignments(ours, line)
            assert ours.normalize_str(line) == reference.normalize_str(line), line
            assert text == reference.normalize_str(line), line
            assert aligned == encoding.offsets, line


def test_torture_against_hf(ours: N.Precompiled, charsmap: bytes) -> None:
    check_against_hf(ours, charsmap, TORTURE)


@pytest.mark.slow
@pytest.mark.parametrize("corpus", CORPORA)
def test_corpus_against_hf(ours: N.Precompiled, charsmap: bytes, corpus: str) -> None:
    path: Path = corpus_path(corpus)
    lines = path.read_text(encoding="utf-8").split("\n")
    check_against_hf(ours, charsmap, lines)


def every_grapheme(ours: N.Precompiled, text: str) -> tuple[list[str], list[int], bool]:
    """`_changes` the plain way: the whole text cut into graphemes by `\\X`, each put in turn."""
    dest: list[str] = []
    changes: list[int] = []
    modified = False
    for grapheme in GRAPHEME_RE.findall(text):
        modified = ours._put(grapheme, dest, changes) or modified
    return dest, changes, modified


def test_graphemes_cut_only_where_chars_may_join_are_the_whole_text_s(ours: N.Precompiled) -> None:
    """`_changes` cuts graphemes only in stretches where a char may join the one before: on
    texts crowded with joining chars (marks, viramas before consonants, ZWJ in emoji, Hangul
    jamo, regional indicators, Prepend, CR LF) beside ruled and plain chars, every change is
    the one the whole text cut into graphemes gives."""
    rng = random.Random(11)
    every = [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]
    joining = [c for c in every if JOINING_RE.match(c) or PREPEND_RE.match(c)]
    ruled = [c for c in every[:0x10000] if ours._flags_of(c) & RULED][:3000]
    plain = list("abcdeαβγабвअकखिंক্ষกัาه \r\n") + ["\u094d", "\u09cd", "\u200d", "\u0600", "\U0001f468", "\U0001f1eb", "\u1100", "\u1161"]
    for _ in range(20_000):
        text = "".join(
            rng.choice(joining) if r < 0.35 else rng.choice(ruled) if r < 0.5 else rng.choice(plain) if r < 0.9 else rng.choice(every)
            for r in [rng.random() for _ in range(rng.randint(1, 10))]
        )  # fmt: skip
        assert ours._changes(text) == every_grapheme(ours, text), [hex(ord(c)) for c in text]
