"""Normalizers and pre-tokenizers against HF `tokenizers` 0.23.3: texts, offsets and ALIGNMENTS.

Alignments are read from HF in two ways: a `PreTokenizedString` cut into one split per normalized
char (short texts), and a `Tokenizer` whose BPE model knows only "[UNK]", so that it emits one token
per normalized char with its offsets in the original (whole corpora, through `encode_batch`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokenizers
from tokenizers import Regex as HRegex
from tokenizers import Tokenizer as HTokenizer
from tokenizers import models as hmodels
from tokenizers import normalizers as hn
from tokenizers import pre_tokenizers as hp

from engine import normalizers as N
from engine import pre_tokenizers as P
from engine.normalizers.normalized import NormalizedString
from engine.pattern import Regex
from engine.pre_tokenizers.pretokenized import PreTokenizedString

Ours = TypeVar("Ours")
Theirs = TypeVar("Theirs")

LLAMA3: str = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)

# (id, ours, HF) -- factories, so that every test gets fresh objects.
NORMALIZERS: list[tuple[str, Callable[[], N.Normalizer], Callable[[], hn.Normalizer]]] = [
    ("NFC", N.NFC, hn.NFC),
    ("NFD", N.NFD, hn.NFD),
    ("NFKC", N.NFKC, hn.NFKC),
    ("NFKD", N.NFKD, hn.NFKD),
    ("Lowercase", N.Lowercase, hn.Lowercase),
    ("StripAccents", N.StripAccents, hn.StripAccents),
    ("Strip", N.Strip, hn.Strip),
    ("StripLeft", lambda: N.Strip(right=False), lambda: hn.Strip(right=False)),
    ("StripRight", lambda: N.Strip(left=False), lambda: hn.Strip(left=False)),
    ("ReplaceStr", lambda: N.Replace(" ", "▁"), lambda: hn.Replace(" ", "▁")),
    ("ReplaceStr2", lambda: N.Replace("''", '"'), lambda: hn.Replace("''", '"')),
    ("ReplaceRegex", lambda: N.Replace(Regex(r"\s+"), " "), lambda: hn.Replace(HRegex(r"\s+"), " ")),
    ("ReplaceDelete", lambda: N.Replace(Regex(r"[aeiou]"), ""), lambda: hn.Replace(HRegex(r"[aeiou]"), "")),
    ("Prepend", N.Prepend, hn.Prepend),
    ("Bert", N.BertNormalizer, hn.BertNormalizer),
    (
        "BertCased",
        lambda: N.BertNormalizer(lowercase=False),
        lambda: hn.BertNormalizer(lowercase=False),
    ),
    (
        "BertStripCased",
        lambda: N.BertNormalizer(strip_accents=True, lowercase=False),
        lambda: hn.BertNormalizer(strip_accents=True, lowercase=False),
    ),
    (
        "BertNoClean",
        lambda: N.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=False),
        lambda: hn.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=False),
    ),
    ("Nmt", N.Nmt, hn.Nmt),
    ("ByteLevel", N.ByteLevel, hn.ByteLevel),
    (
        "SeqAccents",
        lambda: N.Sequence([N.NFKD(), N.StripAccents(), N.Lowercase()]),
        lambda: hn.Sequence([hn.NFKD(), hn.StripAccents(), hn.Lowercase()]),
    ),
    (
        "SeqSentencePiece",
        lambda: N.Sequence([N.Nmt(), N.NFKC(), N.Replace(Regex(" {2,}"), " ")]),
        lambda: hn.Sequence([hn.Nmt(), hn.NFKC(), hn.Replace(HRegex(" {2,}"), " ")]),
    ),
    (
        "SeqLlama2",
        lambda: N.Sequence([N.Prepend("▁"), N.Replace(" ", "▁")]),
        lambda: hn.Sequence([hn.Prepend("▁"), hn.Replace(" ", "▁")]),
    ),
]

PRE_TOKENIZERS: list[tuple[str, Callable[[], P.PreTokenizer], Callable[[], hp.PreTokenizer]]] = [
    ("Whitespace", P.Whitespace, hp.Whitespace),
    ("WhitespaceSplit", P.WhitespaceSplit, hp.WhitespaceSplit),
    ("Bert", P.BertPreTokenizer, hp.BertPreTokenizer),
    ("Punctuation", P.Punctuation, hp.Punctuation),
    ("PunctuationRemoved", lambda: P.Punctuation("removed"), lambda: hp.Punctuation("removed")),
    (
        "PunctuationPrevious",
        lambda: P.Punctuation("merged_with_previous"),
        lambda: hp.Punctuation("merged_with_previous"),
    ),
    (
        "PunctuationNext",
        lambda: P.Punctuation("merged_with_next"),
        lambda: hp.Punctuation("merged_with_next"),
    ),
    ("PunctuationContiguous", lambda: P.Punctuation("contiguous"), lambda: hp.Punctuation("contiguous")),
    ("Digits", P.Digits, hp.Digits),
    ("DigitsIndividual", lambda: P.Digits(True), lambda: hp.Digits(True)),
    ("SplitStr", lambda: P.Split(" ", "removed"), lambda: hp.Split(" ", "removed")),
    ("SplitEmpty", lambda: P.Split("", "isolated"), lambda: hp.Split("", "isolated")),
    (
        "SplitRegexInvert",
        lambda: P.Split(Regex(r"\s+"), "merged_with_previous", invert=True),
        lambda: hp.Split(HRegex(r"\s+"), "merged_with_previous", invert=True),
    ),
    (
        "SplitEmptyMatches",
        lambda: P.Split(Regex(r"a*"), "merged_with_next"),
        lambda: hp.Split(HRegex(r"a*"), "merged_with_next"),
    ),
    ("SplitLlama3", lambda: P.Split(Regex(LLAMA3), "isolated"), lambda: hp.Split(HRegex(LLAMA3), "isolated")),
    ("ByteLevel", P.ByteLevel, hp.ByteLevel),
    (
        "ByteLevelNoPrefix",
        lambda: P.ByteLevel(add_prefix_space=False),
        lambda: hp.ByteLevel(add_prefix_space=False),
    ),
    (
        "ByteLevelNoRegex",
        lambda: P.ByteLevel(use_regex=False),
        lambda: hp.ByteLevel(use_regex=False),
    ),
    ("Metaspace", P.Metaspace, hp.Metaspace),
    (
        "MetaspaceFirstNoSplit",
        lambda: P.Metaspace(prepend_scheme="first", split=False),
        lambda: hp.Metaspace(prepend_scheme="first", split=False),
    ),
    (
        "MetaspaceNever",
        lambda: P.Metaspace(replacement="_", prepend_scheme="never"),
        lambda: hp.Metaspace(replacement="_", prepend_scheme="never"),
    ),
    ("CharDelimiterSplit", lambda: P.CharDelimiterSplit("e"), lambda: hp.CharDelimiterSplit("e")),
    ("UnicodeScripts", P.UnicodeScripts, hp.UnicodeScripts),
    ("FixedLength", lambda: P.FixedLength(4), lambda: hp.FixedLength(4)),
    (
        "SeqLlama3",
        lambda: P.Sequence([P.Split(Regex(LLAMA3), "isolated"), P.ByteLevel(False, True, False)]),
        lambda: hp.Sequence(
            [hp.Split(HRegex(LLAMA3), "isolated"), hp.ByteLevel(add_prefix_space=False, use_regex=False)]
        ),
    ),
    (
        "SeqMetaspaceFirst",
        lambda: P.Sequence([P.WhitespaceSplit(), P.Metaspace(prepend_scheme="first")]),
        lambda: hp.Sequence([hp.WhitespaceSplit(), hp.Metaspace(prepend_scheme="first")]),
    ),
    (
        "SeqWordsDigitsPunct",
        lambda: P.Sequence([P.Whitespace(), P.Digits(True), P.Punctuation("contiguous")]),
        lambda: hp.Sequence([hp.Whitespace(), hp.Digits(True), hp.Punctuation("contiguous")]),
    ),
]

# Realistic (normalizer, pre-tokenizer) pairs, as tokenizer.json files have them.
PIPELINES: list[tuple[str, str | None, str | None]] = [
    ("bert-uncased", "Bert", "Bert"),
    ("bert-cased", "BertCased", "Bert"),
    ("gpt2", None, "ByteLevelNoPrefix"),
    ("roberta", None, "ByteLevel"),
    ("llama3", None, "SeqLlama3"),
    ("t5", "SeqSentencePiece", "Metaspace"),
    ("llama2", "SeqLlama2", None),
    ("xlm-first", "SeqSentencePiece", "SeqMetaspaceFirst"),
    ("accents-words", "SeqAccents", "SeqWordsDigitsPunct"),
    ("nfkc-scripts", "NFKC", "UnicodeScripts"),
    ("strip-whitespace", "Strip", "Whitespace"),
]

NASTY: list[str] = [
    "",
    " ",
    "\t\n",
    "\r\n",
    "Hello, world! Let's tokenize: it's 2024-06-01, isn't it?",
    "日本語のテキストです。カタカナー、ひらがな",
    "中文字符和標點符號！",
    "👨\u200d👩\u200d👧\u200d👦 family 🏳️\u200d🌈 flag",
    "e\u0301te\u0301 cafe\u0301 a\u0301\u0323\u0302",
    "été café naïve Ångström",
    "ﬁnance ﬂow ﬃ ㎏ ½ Ⅻ ²³",
    "한국어 텍스트 \u1100\u1161\u11a8 \u1112\u1161\u11ab",
    "مرحبا بالعالم ١٢٣",
    "שָׁלוֹם עוֹלָם",
    "a\x00b\x07c\x1bd\x7fe\ufffdf\u200bg\ufeffh",
    "İstanbul İ i\u0307",
    "ẞ straße STRASSE",
    "ΟΔΟΣ ΣΟΦΟΣ Σ",
    "a" + " " * 40 + "b" + "\t" * 5 + "\n\n\n" + "c",
    "0123456789 ٠١٢٣ ०१२३ ๑๒๓ ①②③ ⅫⅣ",
    "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ ¡¿ «» “” ‘’ … — –",
    "mixed Латиница Ελληνικά 中文 العربية עברית हिन्दी ไทย 123",
    "\u00a0nbsp\u2003em\u3000ideo\u2028line\u2029para\x85nel",
    "  leading and trailing  \n",
    "don't won't I'm you're we've they'll she'd",
    "\U00011935\U00011930 \U00011938 \ua7cb\ua7f2 \u0898\u0334 \u1c89",
    "x" * 3000 + " " + "é" * 1000,
]


def by_id(
    table: list[tuple[str, Callable[[], Ours], Callable[[], Theirs]]], name: str
) -> tuple[Callable[[], Ours], Callable[[], Theirs]]:
    for key, ours, hf in table:
        if key == name:
            return ours, hf
    raise KeyError(name)


def hf_alignments(hf_normalizer: hn.Normalizer, text: str) -> list[tuple[int, int]]:
    """Per normalized char, its span in `text`, as HF computes it."""
    pretok = tokenizers.PreTokenizedString(text)
    pretok.normalize(lambda n: hf_normalizer.normalize(n))
    pretok.split(lambda i, n: [n.slice((j, j + 1)) for j in range(len(n.normalized))])
    return [offsets for _, offsets, _ in pretok.get_splits()]


def our_alignments(normalized: NormalizedString) -> list[tuple[int, int]]:
    shift = normalized.original_shift
    return [(shift + a, shift + b) for a, b in normalized.alignments()]


def char_tokenizer(hf_normalizer: hn.Normalizer | None, hf_pre_tokenizer: hp.PreTokenizer | None) -> HTokenizer:
    """An HF Tokenizer giving one token per normalized char (BPE with only "[UNK]")."""
    tokenizer = HTokenizer(hmodels.BPE(vocab={"[UNK]": 0}, merges=[], unk_token="[UNK]"))
    if hf_normalizer is not None:
        tokenizer.normalizer = hf_normalizer
    if hf_pre_tokenizer is not None:
        tokenizer.pre_tokenizer = hf_pre_tokenizer
    return tokenizer


def our_char_offsets(
    normalizer: N.Normalizer | None, pre_tokenizer: P.PreTokenizer | None, text: str
) -> tuple[list[tuple[int, int]], list[int]]:
    """What `char_tokenizer` gives, computed by us: offsets and word ids, per normalized char."""
    pretok = PreTokenizedString(text)
    if normalizer is not None:
        pretok.normalize(normalizer)
    if pre_tokenizer is not None:
        pre_tokenizer.pre_tokenize(pretok)
    offsets: list[tuple[int, int]] = []
    words: list[int] = []
    for index, split in enumerate(pretok.splits):
        piece = split.normalized
        for i in range(len(piece)):
            found = piece.convert_normalized_range(i, i + 1)
            assert found is not None
            offsets.append((piece.original_shift + found[0], piece.original_shift + found[1]))
            words.append(index)
    return offsets, words


def corpus_lines(path: Path) -> list[str]:
    """The lines HF's trainer reads: split on '\\n' only, each keeping its '\\n'."""
    text = path.read_text(encoding="utf-8")
    lines = [line + "\n" for line in text.split("\n")]
    if text.endswith("\n"):
        lines.pop()
    else:
        lines[-1] = lines[-1][:-1]
    return lines


CORPORA = ["shakespeare.txt", "botchan.txt", "wagahaiwa_nekodearu.txt"]


def chunks(lines: list[str], size: int = 2000) -> list[list[str]]:
    """`lines` in batches, so that HF's encodings of a whole corpus never sit in memory at once."""
    return [lines[i : i + size] for i in range(0, len(lines), size)]


# -- nasty strings ----------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "ours", "hf"), NORMALIZERS, ids=[n for n, _, _ in NORMALIZERS])
@pytest.mark.parametrize("text", NASTY)
def test_normalizer_text_and_alignments(
    name: str, ours: Callable[[], N.Normalizer], hf: Callable[[], hn.Normalizer], text: str
) -> None:
    normalizer = ours()
    reference = hf()
    expected = reference.normalize_str(text)
    assert normalizer.normalize_str(text) == expected
    normalized = NormalizedString(text)
    normalizer.normalize(normalized)
    assert normalized.get() == expected
    assert our_alignments(normalized) == hf_alignments(reference, text)


@pytest.mark.parametrize(("name", "ours", "hf"), PRE_TOKENIZERS, ids=[n for n, _, _ in PRE_TOKENIZERS])
@pytest.mark.parametrize("text", NASTY)
def test_pre_tokenizer_pieces_and_offsets(
    name: str, ours: Callable[[], P.PreTokenizer], hf: Callable[[], hp.PreTokenizer], text: str
) -> None:
    pre_tokenizer = ours()
    expected = hf().pre_tokenize_str(text)
    assert pre_tokenizer.pre_tokenize_str(text) == expected
    assert pre_tokenizer.split_words(text) == [w for w, _ in expected]


@pytest.mark.parametrize(("name", "ours", "hf"), PRE_TOKENIZERS, ids=[n for n, _, _ in PRE_TOKENIZERS])
def test_get_splits_referentials(
    name: str, ours: Callable[[], P.PreTokenizer], hf: Callable[[], hp.PreTokenizer]
) -> None:
    for text in NASTY:
        reference = tokenizers.PreTokenizedString(text)
        reference.normalize(lambda n: hn.NFKD().normalize(n))
        hf().pre_tokenize(reference)
        pretok = PreTokenizedString(text)
        pretok.normalize(N.NFKD())
        ours().pre_tokenize(pretok)
        for referential in ("original", "normalized"):
            for offset_type in ("char", "byte"):
                expected = [(w, o) for w, o, _ in reference.get_splits(referential, offset_type)]
                got = [(w, o) for w, o, _ in pretok.get_splits(referential, offset_type)]
                assert got == expected, (text, referential, offset_type)


@pytest.mark.parametrize(("name", "norm", "pre"), PIPELINES, ids=[n for n, _, _ in PIPELINES])
def test_pipeline_char_offsets(name: str, norm: str | None, pre: str | None) -> None:
    our_norm, hf_norm = by_id(NORMALIZERS, norm) if norm else (None, None)
    our_pre, hf_pre = by_id(PRE_TOKENIZERS, pre) if pre else (None, None)
    reference = char_tokenizer(
        hf_norm() if hf_norm else None, hf_pre() if hf_pre else None
    )
    normalizer = our_norm() if our_norm else None
    pre_tokenizer = our_pre() if our_pre else None
    for text, encoding in zip(NASTY, reference.encode_batch(NASTY)):
        offsets, words = our_char_offsets(normalizer, pre_tokenizer, text)
        assert offsets == encoding.offsets, text
        assert words == encoding.word_ids, text


def test_byte_level_alphabet() -> None:
    assert sorted(P.ByteLevel.alphabet()) == sorted(hp.ByteLevel.alphabet())
    assert sorted(N.ByteLevel.alphabet()) == sorted(hp.ByteLevel.alphabet())


# -- random strings ---------------------------------------------------------------------------

ALPHABET = list("ab Z9 \t\n\r.,'-_") + [
    "é", "e\u0301", "\u0323", "ß", "İ", "Σ", "ﬁ", "日", "カ", "ー", "한", "\u1161", "😀", "\u200d",
    "٣", "½", "\x00", "\ufffd", "\u00a0", "\u3000", "\u2581", "\U00011935", "\U00011930", "\ua7cb",
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(ALPHABET), max_size=16).map("".join))
def test_random_strings_against_hf(text: str) -> None:
    for _, ours, hf in NORMALIZERS:
        normalizer = ours()
        reference = hf()
        expected = reference.normalize_str(text)
        assert normalizer.normalize_str(text) == expected
        normalized = NormalizedString(text)
        normalizer.normalize(normalized)
        assert normalized.get() == expected
        assert our_alignments(normalized) == hf_alignments(reference, text)
    for _, ours_pre, hf_pre in PRE_TOKENIZERS:
        pre_tokenizer = ours_pre()
        expected_pieces = hf_pre().pre_tokenize_str(text)
        assert pre_tokenizer.pre_tokenize_str(text) == expected_pieces
        assert pre_tokenizer.split_words(text) == [w for w, _ in expected_pieces]


# -- whole corpora, line by line --------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize(("name", "ours", "hf"), NORMALIZERS, ids=[n for n, _, _ in NORMALIZERS])
def test_corpus_normalizers(
    corpora: Path, corpus: str, name: str, ours: Callable[[], N.Normalizer], hf: Callable[[], hn.Normalizer]
) -> None:
    lines = corpus_lines(corpora / corpus)
    normalizer = ours()
    reference = hf()
    expected = [reference.normalize_str(line) for line in lines]
    assert [normalizer.normalize_str(line) for line in lines] == expected
    reference_tokenizer = char_tokenizer(reference, None)
    for chunk in chunks(lines):
        for line, encoding in zip(chunk, reference_tokenizer.encode_batch(chunk)):
            normalized = NormalizedString(line)
            normalizer.normalize(normalized)
            assert our_alignments(normalized) == encoding.offsets, line


@pytest.mark.slow
@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize(("name", "ours", "hf"), PRE_TOKENIZERS, ids=[n for n, _, _ in PRE_TOKENIZERS])
def test_corpus_pre_tokenizers(
    corpora: Path,
    corpus: str,
    name: str,
    ours: Callable[[], P.PreTokenizer],
    hf: Callable[[], hp.PreTokenizer],
) -> None:
    lines = corpus_lines(corpora / corpus)
    pre_tokenizer = ours()
    reference = hf()
    for line in lines:
        expected = reference.pre_tokenize_str(line)
        assert pre_tokenizer.pre_tokenize_str(line) == expected, line
        assert pre_tokenizer.split_words(line) == [w for w, _ in expected], line


@pytest.mark.slow
@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize(("name", "norm", "pre"), PIPELINES, ids=[n for n, _, _ in PIPELINES])
def test_corpus_pipelines(corpora: Path, corpus: str, name: str, norm: str | None, pre: str | None) -> None:
    our_norm, hf_norm = by_id(NORMALIZERS, norm) if norm else (None, None)
    our_pre, hf_pre = by_id(PRE_TOKENIZERS, pre) if pre else (None, None)
    lines = corpus_lines(corpora / corpus)
    reference = char_tokenizer(hf_norm() if hf_norm else None, hf_pre() if hf_pre else None)
    normalizer = our_norm() if our_norm else None
    pre_tokenizer = our_pre() if our_pre else None
    hf_normalizer = hf_norm() if hf_norm else None
    hf_pre_tokenizer = hf_pre() if hf_pre else None
    for chunk in chunks(lines):
        for line, encoding in zip(chunk, reference.encode_batch(chunk)):
            offsets, words = our_char_offsets(normalizer, pre_tokenizer, line)
            assert offsets == encoding.offsets, line
            assert words == encoding.word_ids, line
            # the training path: normalize_str then split_words
            if pre_tokenizer is not None:
                text = normalizer.normalize_str(line) if normalizer is not None else line
                pieces = [w for w, _, _ in _hf_pieces(hf_normalizer, hf_pre_tokenizer, line)]
                assert pre_tokenizer.split_words(text) == pieces, line


def _hf_pieces(
    hf_normalizer: hn.Normalizer | None, hf_pre_tokenizer: hp.PreTokenizer | None, line: str
) -> list[tuple[str, tuple[int, int], object]]:
    pretok = tokenizers.PreTokenizedString(line)
    if hf_normalizer is not None:
        pretok.normalize(lambda n: hf_normalizer.normalize(n))
    if hf_pre_tokenizer is not None:
        hf_pre_tokenizer.pre_tokenize(pretok)
    return list(pretok.get_splits())
