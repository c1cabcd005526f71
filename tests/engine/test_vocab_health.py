"""engine.analysis.vocab_health: every category on small vocabularies where the answer can be
written down by hand, and invariants on trained tokenizers."""

from __future__ import annotations

import pytest

from engine import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
from engine.analysis.audit import Unbounded
from engine.analysis.vocab_compare import comparable_form, compare_vocabularies, token_ends
from engine.analysis.vocab_health import VocabularyHealth, token_frequencies, vocabulary_health
from engine.analysis.vocabulary import TokenStyle, token_bytes
from support import corpus_path, train_byte_level

LINES = ["the cat sat on the mat", "a cat and a hat", "the hatter sat", "cats and mats and hats"] * 20


def wordpiece_tokenizer() -> Tokenizer:
    """BERT-like: lowercased, punctuation split off, whole tokens and ## continuations."""
    vocab = {"[UNK]": 0, "the": 1, "cat": 2, "##s": 3, "Cat": 4, "a.b": 5, "##!": 6, "##ab": 7, "ab": 8}
    tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=100))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    return tokenizer


def test_frequencies_count_what_encoding_produces() -> None:
    tokenizer = wordpiece_tokenizer()
    assert token_frequencies(tokenizer, ["the cats", "the", "dog"]) == [1, 2, 1, 1, 0, 0, 0, 0, 0]
    assert token_frequencies(tokenizer, []) == [0] * 9


def test_truncation_and_padding_do_not_change_the_counts() -> None:
    tokenizer = wordpiece_tokenizer()
    tokenizer.enable_truncation(1)
    tokenizer.enable_padding(length=10, pad_token="[UNK]", pad_id=0)
    assert token_frequencies(tokenizer, ["the cats the"]) == [0, 2, 1, 1, 0, 0, 0, 0, 0]
    assert tokenizer.truncation is not None and tokenizer.padding is not None


def test_a_wordpiece_vocabulary_written_down_by_hand() -> None:
    health = vocabulary_health(wordpiece_tokenizer(), ["the cats", "the cat"], rare_below=2, longest=3)
    assert health.special == [0]  # the unknown token
    assert health.frequencies == [0, 2, 2, 1, 0, 0, 0, 0, 0] and health.tokens == 5
    assert health.dead == [4, 5, 6, 7, 8]
    assert health.rare == [3]  # ##s, once
    # "Cat" is lowercased; "a.b" is cut at the "."; "##!" never follows a piece (BertPreTokenizer
    # isolates punctuation). "##ab" and "##s" follow a host ("ab" + "ab" -> ab ##ab).
    assert health.unreachable == [4, 5, 6]
    assert health.collisions == [[2, 4]]  # "cat" and "Cat" under Lowercase
    assert health.longest == [1, 2, 4]  # three characters each, by id
    assert health.surfaces[7] == "ab" and health.surfaces[3] == "s"
    assert health.invalid_utf8 == [] and health.unchecked == []
    assert health.intermediate_only == [] and health.unformable == []  # not BPE
    assert health.counts()["dead"] == 5


def test_a_continuation_the_pre_tokenizer_keeps_joined_is_reachable() -> None:
    # Whitespace keeps runs of punctuation together: "!" + "!" is one word, "!" then "##!"
    vocab = {"[UNK]": 0, "!": 1, "##!": 2, "go": 3, "##ne": 4}
    tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    assert vocabulary_health(tokenizer, ["go"]).unreachable == []
    # a word longer than max_input_chars_per_word is [UNK]: "##ne" needs a host, three characters
    tokenizer.model = models.WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=2)
    assert vocabulary_health(tokenizer, ["go"]).unreachable == [4]


def bpe(vocab: dict[str, int], merges: list[tuple[str, str]]) -> Tokenizer:
    tokenizer = Tokenizer(models.BPE(vocab, merges))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    return tokenizer


def test_a_bpe_token_every_merge_consumes_is_intermediate_only() -> None:
    # merges a+b -> ab, ab+c -> abc: on "abc abc", ab is made and then merged into abc
    tokenizer = bpe({"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4}, [("a", "b"), ("ab", "c")])
    health = vocabulary_health(tokenizer, ["abc abc"], rare_below=3)
    assert health.frequencies == [0, 0, 0, 0, 2]
    assert health.dead == [0, 1, 2, 3] and health.rare == [4]
    assert health.intermediate_only == [3]
    # ...but not in every text: "ab" alone gives it, so nothing is unformable or unreachable
    assert health.unformable == [] and health.unreachable == []
    assert vocabulary_health(tokenizer, ["ab abc"]).intermediate_only == []


def test_a_bpe_token_its_own_string_does_not_give_never_forms() -> None:
    # b+c ranks first, so "abc" is a + bc and the merge ab+c never applies, in any text
    vocab = {"a": 0, "b": 1, "c": 2, "bc": 3, "ab": 4, "abc": 5}
    tokenizer = bpe(vocab, [("b", "c"), ("a", "b"), ("ab", "c")])
    health = vocabulary_health(tokenizer, ["abc abc"])
    assert health.frequencies == [2, 0, 0, 2, 0, 0]
    assert health.unformable == [5]
    assert health.unreachable == [5]
    assert health.intermediate_only == [4]  # ab: never produced here, part of the later ab+c


def byte_level_tokenizer(extra: list[str]) -> Tokenizer:
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {token: id for id, token in enumerate(alphabet + extra)}
    merges = [("Ã", "©")] if "Ã©" in extra else []
    tokenizer = Tokenizer(models.BPE(vocab, merges))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    return tokenizer


def test_byte_level_tokens_that_are_half_a_character() -> None:
    tokenizer = byte_level_tokenizer(["Ã©"])  # é is C3 A9: "Ã" is the byte C3, "©" A9
    vocab = tokenizer.get_vocab()
    health = vocabulary_health(tokenizer, ["é"])
    assert vocab["Ã"] in health.invalid_utf8 and vocab["©"] in health.invalid_utf8
    assert vocab["Ã©"] not in health.invalid_utf8 and vocab["a"] not in health.invalid_utf8
    assert len(health.invalid_utf8) == 128  # every byte from 0x80 up, alone
    assert health.unchecked == health.invalid_utf8  # bytes, not text: no probe
    assert health.surfaces[vocab["Ã©"]] == "é" and health.surfaces[vocab["Ã"]] == "\\xc3"
    assert health.frequencies[vocab["Ã©"]] == 1 and health.unreachable == []
    assert health.unformable == []


def test_byte_fallback_pieces_are_bytes() -> None:
    vocab = {"<unk>": 0, "a": 1, "<0x41>": 2, "<0xC3>": 3}
    tokenizer = Tokenizer(models.BPE(vocab, [], unk_token="<unk>", byte_fallback=True))
    health = vocabulary_health(tokenizer, ["a"])
    assert health.special == [0] and health.invalid_utf8 == [3] and health.unchecked == [2, 3]


def test_tokens_that_collapse_under_normalization() -> None:
    vocab = {"[UNK]": 0, "café": 1, "Café": 2, "cafe\u0301": 3, "tea": 4}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.normalizer = normalizers.Lowercase()
    health = vocabulary_health(tokenizer, ["café tea"])
    assert health.collisions == [[1, 2]] and health.unreachable == [2]
    tokenizer.normalizer = normalizers.Sequence([normalizers.NFC(), normalizers.Lowercase()])
    health = vocabulary_health(tokenizer, ["café tea"])
    assert health.collisions == [[1, 2, 3]] and health.unreachable == [2, 3]
    tokenizer.normalizer = None
    assert vocabulary_health(tokenizer, ["café tea"]).collisions == []


def metaspace_unigram(pieces: list[tuple[str, float]]) -> Tokenizer:
    tokenizer = Tokenizer(models.Unigram(pieces, 0, False))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    return tokenizer


def test_metaspace_pieces_inside_a_word() -> None:
    pieces = [("<unk>", 0.0), ("▁ab", -1.0), ("ab", -2.0), ("a", -3.0), ("b", -3.0), ("C", -5.0), ("c", -5.0)]
    tokenizer = metaspace_unigram(pieces)
    tokenizer.normalizer = normalizers.Lowercase()
    health = vocabulary_health(tokenizer, ["ab"])
    # "▁ab" is " ab" at a word's start; "ab", "a", "b", "c" are found inside a word ("aab"
    # reaches the model as "▁aab"); "C" is lowercased on the way
    assert health.surfaces[1] == " ab" and health.surfaces[2] == "ab"
    assert health.unreachable == [5]
    assert health.collisions == [[5, 6]]
    assert health.special == [0] and health.frequencies[1] == 1


def test_a_unigram_piece_its_own_string_cuts_otherwise_is_unreachable() -> None:
    pieces = [("<unk>", 0.0), ("▁", -1.0), ("ab", -9.0), ("a", -1.0), ("b", -1.0)]
    health = vocabulary_health(metaspace_unigram(pieces), ["ab"])
    assert health.unreachable == [2]  # a + b (-2) beats ab (-9)
    assert health.unchecked == [1]  # the mark alone


def test_the_comparable_forms() -> None:
    byte_level = TokenStyle(byte_level=True)
    assert comparable_form("Ġhello", byte_level, False) == " hello"
    assert comparable_form("Ã", byte_level, False) == "\\xc3"
    assert comparable_form("▁hello", TokenStyle(metaspace="▁"), False) == " hello"
    assert comparable_form("hello", TokenStyle(prefix="##"), True) == " hello"
    assert comparable_form("##ing", TokenStyle(prefix="##"), True) == "ing"
    assert comparable_form("<0x41>", TokenStyle(), False) == "<0x41>"
    assert token_ends([(0, 5), (5, 11)], 11) == {5}
    assert token_ends([(0, 2), (2, 8), (8, 8), (8, 12)], 12) == {2, 8}


def test_two_vocabularies_side_by_side() -> None:
    a = Tokenizer(models.WordPiece({"[UNK]": 0, "hello": 1, "##s": 2, "world": 3}, unk_token="[UNK]"))
    a.pre_tokenizer = pre_tokenizers.Whitespace()
    pieces = [("<unk>", 0.0), ("▁hello", -1.0), ("▁hell", -1.0), ("os", -1.0), ("s", -2.0), ("▁world", -1.0), ("▁", -3.0)]
    b = metaspace_unigram(pieces)
    comparison = compare_vocabularies(a, b, ["hellos world"])
    assert comparison.both == [(" hello", 1, 1), ("s", 2, 4), (" world", 3, 5)]
    assert comparison.different_ids == [("s", 2, 4), (" world", 3, 5)]
    assert comparison.only_a == [(0, " [UNK]")]
    assert comparison.only_b == [(0, "<unk>"), (2, " hell"), (3, "os"), (6, " ")]
    # a: hello|s|world ends inside at 5, 6; b: ▁hell|os|▁world at 4, 6
    assert (comparison.agreed, comparison.only_a_boundaries, comparison.only_b_boundaries) == (1, 1, 1)
    assert comparison.boundary_agreement == pytest.approx(1 / 3)
    assert comparison.boundary_f1 == pytest.approx(0.5)
    same = compare_vocabularies(a, a, ["hellos world", ""])
    assert same.boundary_agreement == 1.0 and same.only_a == [] and same.different_ids == []
    assert compare_vocabularies(a, b, []).boundary_agreement == 1.0


def assert_invariants(tokenizer: Tokenizer, texts: list[str], health: VocabularyHealth) -> None:
    with Unbounded(tokenizer):
        encodings = [tokenizer.encode(text, add_special_tokens=False) for text in texts]
    assert health.tokens == sum(len(encoding.ids) for encoding in encodings)
    assert sum(health.frequencies) == health.tokens
    vocabulary = set(tokenizer.get_vocab(True).values())
    produced = {id for encoding in encodings for id in encoding.ids} - set(health.special)
    assert set(health.dead) | produced == vocabulary - set(health.special)
    assert not set(health.dead) & produced
    assert all(1 <= health.frequencies[id] < health.rare_below for id in health.rare)
    for listed in (health.dead, health.unreachable, health.invalid_utf8, health.unchecked, health.unformable):
        assert listed == sorted(listed) and not set(listed) & set(health.special)
    assert set(health.intermediate_only) <= set(health.dead)
    rare_order = [(health.frequencies[id], id) for id in health.rare]
    assert rare_order == sorted(rare_order)


def test_a_trained_byte_level_bpe() -> None:
    tokenizer = train_byte_level(LINES, 300)
    texts = ["the cat sat on the mat", "hats and cats", "zebra ünïcödé 猫"]
    health = vocabulary_health(tokenizer, texts, rare_below=3)
    assert_invariants(tokenizer, texts, health)
    assert health.unformable == []  # a trained merge forms on its own string
    assert health.unreachable == []  # no prefix space: every whole-UTF-8 token is its own text
    style = TokenStyle.of(tokenizer)
    for token, id in tokenizer.get_vocab().items():
        raw = token_bytes(token, style)
        try:
            raw.decode("utf-8")
            assert id not in health.invalid_utf8, token
        except UnicodeDecodeError:
            assert id in health.invalid_utf8, token
    assert len([id for id in health.invalid_utf8 if len(tokenizer.id_to_token(id) or "") == 1]) == 128


def test_a_trained_wordpiece() -> None:
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.train_from_iterator(LINES, trainers.WordPieceTrainer(vocab_size=80, special_tokens=["[UNK]", "[CLS]"], show_progress=False))
    texts = ["The cat sat.", "hats and mats!"]
    health = vocabulary_health(tokenizer, texts)
    assert_invariants(tokenizer, texts, health)
    assert health.special == sorted(tokenizer.get_added_tokens_decoder())
    assert health.collisions == []  # trained on normalized text


def test_the_bert_tokenizer_file() -> None:
    tokenizer = Tokenizer.from_file(str(corpus_path("bert_uncased_tokenizer.json")))
    texts = ["Hello, world! The café is open.", "unbelievable tokenization"]
    health = vocabulary_health(tokenizer, texts)
    assert_invariants(tokenizer, texts, health)
    vocab = tokenizer.get_vocab()
    # BertPreTokenizer isolates every punctuation character: none follows a word piece
    for token in ("##!", "##.", "##,"):
        if token in vocab:
            assert vocab[token] in health.unreachable
    assert vocab["hello"] not in health.unreachable
