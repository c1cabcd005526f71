"""engine.analysis.audit: every figure on texts and tokenizers whose counts can be written down by
hand, and equal to the engine's own encodings on a trained tokenizer."""

from __future__ import annotations

import gc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Tokenizer, decoders, models, pre_tokenizers
from engine.encoding import Encoding
from engine.analysis.inspection import CAUSE_UNKNOWN
from engine.analysis.audit import (
    CSV_COLUMNS,
    AuditText,
    EmbeddingCost,
    Summary,
    audit,
    byte_fallback_ids,
    dominant_script,
    gini,
    percentile,
    renyi_efficiency,
    _split_words_of,
    split_words,
    summaries,
    word_spans,
)
from support import train_byte_level


def words_tokenizer() -> Tokenizer:
    """Whole words only: "the", "cat", "cats" is "cat" + "s" (a continuing piece), anything else unknown."""
    tokenizer = Tokenizer(
        models.WordPiece({"[UNK]": 0, "the": 1, "cat": 2, "##s": 3, "a": 4}, unk_token="[UNK]", max_input_chars_per_word=100)
    )
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.decoder = decoders.WordPiece()
    return tokenizer


def english(*articles: str) -> AuditText:
    return AuditText("English", "eng", "Latn", "language", dict(enumerate(articles, start=1)))


def test_the_counts_of_a_text_written_down_by_hand() -> None:
    # "the cats the dog": 4 words; tokens the | cat ##s | the | [UNK] = 5
    [cost] = audit([("words", words_tokenizer())], [english("the cats the dog")])
    assert (cost.tokens, cost.words, cost.characters, cost.bytes) == (5, 4, 16, 16)
    assert cost.split_words == 1 and cost.split_word_share == 0.25  # "cats"
    assert cost.unknown == 1 and cost.unknown_rate == 0.2  # "dog"
    assert cost.byte_fallback == 0
    assert cost.tokens_per_word == 1.25 and cost.characters_per_token == 3.2 and cost.bytes_per_token == 3.2
    assert not cost.round_trip and cost.round_trip_causes == [CAUSE_UNKNOWN]  # "dog" decodes as [UNK]
    assert cost.article_tokens == {1: 5}
    assert cost.premium == 1.0  # English against itself
    [fine] = audit([("words", words_tokenizer())], [english("the cats")])
    assert fine.round_trip and fine.unknown == 0 and fine.round_trip_causes == []
    # a long article: the cause is found on its first paragraph that does not come back
    long = english("the cat " * 200 + "\nthe cats dog")
    [cost] = audit([("words", words_tokenizer())], [long])
    assert not cost.round_trip and cost.round_trip_causes == [CAUSE_UNKNOWN]


def test_the_premium_is_over_english_on_the_articles_both_have() -> None:
    tokenizer = words_tokenizer()
    other = AuditText("Other", "xxx", "Latn", "language", {1: "cats cats", 2: "the", 3: "a a a a a a"})
    code = AuditText("Python", "", "Zyyy", "code", {0: "the cat"})
    costs = audit([("words", tokenizer)], [english("the cat", "the cats the"), other, code])
    eng, oth, py = costs
    # articles 1 and 2 only: Other spends 4 + 1, English 2 + 4
    assert oth.article_tokens == {1: 4, 2: 1, 3: 6}
    assert oth.premium == pytest.approx(5 / 6)
    assert eng.premium == 1.0 and py.premium is None
    [summary] = summaries(costs)
    assert summary.languages == 2 and summary.worst == "English" and summary.worst_premium == 1.0
    assert summary.median == pytest.approx((1.0 + 5 / 6) / 2)


def test_without_english_there_is_no_premium() -> None:
    other = AuditText("Other", "xxx", "Latn", "language", {1: "the cat"})
    [cost] = audit([("words", words_tokenizer())], [other])
    assert cost.premium is None
    [summary] = summaries([cost])
    assert summary.languages == 0 and summary.worst == "" and summary.gini == 0.0


def test_each_tokenizer_is_measured_on_every_text_with_its_own_english() -> None:
    trained = train_byte_level(["the cat sat on the mat", "a cat and a hat"] * 50, 300)
    texts = [english("the cat sat", "on the mat"), AuditText("Other", "xxx", "Latn", "language", {1: "zzz qqq"})]
    costs = audit([("words", words_tokenizer()), ("trained", trained)], texts)
    assert [(c.tokenizer, c.text.name) for c in costs] == [
        ("words", "English"), ("words", "Other"), ("trained", "English"), ("trained", "Other"),
    ]  # fmt: skip
    # the counts are the engine's own encodings, article by article, without special tokens
    for cost, tokenizer in ((costs[2], trained), (costs[3], trained), (costs[0], words_tokenizer())):
        expected = {n: len(tokenizer.encode(body, add_special_tokens=False).ids) for n, body in cost.text.articles.items()}
        assert cost.article_tokens == expected and cost.tokens == sum(expected.values())
    assert costs[3].premium == pytest.approx(costs[3].article_tokens[1] / costs[2].article_tokens[1])
    assert costs[2].round_trip and costs[3].round_trip  # byte-level: every text comes back
    # progress is heard text by text, and the garbage collector is on again after
    heard: list[int] = []
    assert [c.tokens for c in audit([("words", words_tokenizer())], texts, heard.append)] == [c.tokens for c in costs[:2]]
    assert heard == [1, 2] and gc.isenabled()


def test_truncation_and_padding_do_not_hide_tokens_and_are_put_back() -> None:
    tokenizer = words_tokenizer()
    tokenizer.enable_truncation(2)
    tokenizer.enable_padding(length=10, pad_token="[UNK]", pad_id=0)
    [cost] = audit([("words", tokenizer)], [english("the cat the cat the cat")])
    assert cost.tokens == 6
    assert tokenizer.truncation is not None and tokenizer.truncation["max_length"] == 2
    assert tokenizer.padding is not None and tokenizer.padding["length"] == 10


def test_byte_fallback_tokens_are_counted() -> None:
    vocab = {"<unk>": 0, "a": 1, **{f"<0x{b:02X}>": 2 + b for b in range(256)}}
    tokenizer = Tokenizer(models.BPE(vocab, [], unk_token="<unk>", byte_fallback=True))
    assert len(byte_fallback_ids(tokenizer)) == 256
    [cost] = audit([("fallback", tokenizer)], [english("aé")])  # é: two bytes
    assert cost.tokens == 3 and cost.byte_fallback == 2 and cost.byte_fallback_rate == pytest.approx(2 / 3)
    assert cost.unknown == 0
    assert byte_fallback_ids(words_tokenizer()) == frozenset()


def test_a_word_is_a_letter_in_scripts_without_spaces() -> None:
    assert word_spans("猫が好き", "Jpan") == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert word_spans("猫が好き", "Latn") == [(0, 4)]
    # a Thai vowel or tone mark stays with its letter: กิน is two letters, the second with two marks
    assert word_spans("กิน", "Thai") == [(0, 2), (2, 3)]
    assert word_spans("I'm here.", "Latn") == [(0, 1), (1, 2), (2, 3), (4, 8), (8, 9)]


def test_split_words_counts_words_over_several_tokens() -> None:
    words = [(0, 3), (4, 8), (9, 11)]
    assert split_words(words, [(0, 3), (4, 6), (6, 8), (9, 11)]) == 1
    assert split_words(words, [(0, 3), (3, 4), (4, 8), (9, 10), (10, 11)]) == 1
    assert split_words(words, [(0, 11)]) == 0  # one token over every word splits none
    assert split_words(words, [(0, 0), (0, 3), (4, 8), (9, 11)]) == 0  # a token with no characters


@settings(max_examples=400, deadline=None)
@given(
    words=st.lists(st.tuples(st.integers(0, 30), st.integers(1, 6)), max_size=8),
    tokens=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 6)), max_size=12),
    in_order=st.booleans(),
)
def test_split_words_read_from_an_encoding_s_offsets_equal_split_words(
    words: list[tuple[int, int]], tokens: list[tuple[int, int]], in_order: bool
) -> None:
    # the audit reads the encoding's flat offsets where they are in order, and sorts them where
    # not: either way the count is `split_words`'s, tokens without characters left out
    spans = sorted({(start, start + length) for start, length in words})
    kept = [spans[0]] if spans else []
    for start, end in spans[1:]:
        if start >= kept[-1][1]:
            kept.append((start, end))  # (words do not overlap)
    offsets = [(start, start + length) for start, length in tokens]
    if in_order:
        offsets.sort()
    encoding = Encoding(ids=[0] * len(offsets), offsets=offsets)
    assert _split_words_of(kept, encoding) == split_words(kept, offsets)


def test_renyi_efficiency_gini_and_percentiles_by_hand() -> None:
    assert renyi_efficiency([1, 1], 2) == pytest.approx(1.0)
    assert renyi_efficiency([1, 1], 4) == pytest.approx(0.5)
    assert renyi_efficiency([5], 4) == pytest.approx(0.0)
    assert renyi_efficiency([], 4) == 0.0
    assert gini([1, 1, 1]) == 0.0 and gini([0, 0, 0, 1]) == pytest.approx(0.75) and gini([]) == 0.0
    assert percentile([1, 2, 3, 4], 50) == 2.5 and percentile([1, 2, 3, 4], 90) == pytest.approx(3.7)
    assert percentile([7], 90) == 7 and percentile([], 50) == 0.0
    summary = Summary("t", [("a", 1.0), ("b", 3.0), ("c", 2.0)])
    assert (summary.median, summary.worst, summary.worst_premium) == (2.0, "b", 3.0)
    assert summary.gini == pytest.approx(gini([1.0, 2.0, 3.0]))


def test_a_csv_row_has_every_column_and_names_the_language() -> None:
    [cost] = audit([("words", words_tokenizer())], [english("the cats the dog")])
    row = dict(zip(CSV_COLUMNS, cost.csv_row()))
    assert len(cost.csv_row()) == len(CSV_COLUMNS)
    assert row["language"] == "English" and row["iso639_3"] == "eng" and row["script"] == "Latn"
    assert row["tokens"] == "5" and row["premium_over_english"] == "1.0000" and row["round_trip"] == "no"
    assert row["word_unit"] == "word" and row["split_word_share"] == "0.2500"


def test_the_dominant_script_of_a_text() -> None:
    assert dominant_script("Hello, мир!") == "Latn"
    assert dominant_script("吾輩は猫である。名前はまだ無い。") == "Jpan"  # Han with kana
    assert dominant_script("中华人民共和国") == "Hani"
    assert dominant_script("สวัสดีครับ") == "Thai" and dominant_script("안녕하세요") == "Hang"
    assert dominant_script("1 + 2 == 3") == "Zyyy" and dominant_script("") == "Zyyy"


def test_the_embedding_s_cost_by_hand() -> None:
    tied = EmbeddingCost(30_522, 768)  # BERT base's vocabulary, in bf16
    assert (tied.input_parameters, tied.output_parameters, tied.parameters) == (23_440_896, 0, 23_440_896)
    assert tied.bytes == 46_881_792
    untied = EmbeddingCost(50_257, 4_096, "fp32", tied=False)
    assert untied.parameters == 2 * 50_257 * 4_096 and untied.bytes == 4 * untied.parameters
    with pytest.raises(ValueError, match="unknown dtype 'fp64'"):
        EmbeddingCost(10, 10, "fp64")
    with pytest.raises(ValueError, match="positive"):
        EmbeddingCost(10, 0)
