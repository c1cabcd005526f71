"""SentencePieceTrainer and its rules: which pieces sentencepiece allows (`PieceRules`), which
characters it keeps (`covered_chars`), the words and sentences it trains on, its options and
errors. Against `sentencepiece` itself: tests/parity/test_sentencepiece_training.py."""

from __future__ import annotations

import json
import pickle
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Tokenizer, models, pre_tokenizers, trainers
from engine.errors import TrainerMismatchError, VocabularyTooSmallError
from engine.formats import convert
from engine.trainers.piece_rules import PieceRules, covered_chars, kept_parts, kept_table, split_words
from engine.trainers.sentencepiece import SentencePieceTrainer, byte_pieces
from support import train_sentencepiece_preset
from workbench.core.presets import build

LINES = [
    "the cat sat on the mat.",
    "the cat ate 12 fish, then 345 more.",
    "a cat is not a dog; the dog is not a cat.",
    "Ωmega and alpha: αβγ.",
] * 5


@pytest.mark.parametrize(
    ("piece", "options", "valid"),
    [
        ("▁the", {}, True),
        ("▁", {}, True),  # the whitespace alone is a piece
        ("the▁", {}, False),  # "▁" only at the start
        ("▁a▁b", {}, False),
        ("▁a▁b", {"split_by_whitespace": False}, True),  # inside, when pieces may span words
        ("▁ab▁", {"split_by_whitespace": False}, False),  # never at the end
        ("▁fair.", {}, False),  # Latin, then Common
        ("▁fair.", {"split_by_unicode_script": False}, True),
        ("..", {}, True),
        ("ab̈c", {}, True),  # a combining mark takes the script before it
        ("日本語", {}, True),
        ("カタカナ漢字ひらがな", {}, True),  # Hiragana and Katakana count as Han
        ("▁Ωa", {}, False),  # Greek, then Latin
        ("12", {}, True),  # digits are Common
        ("a1", {}, False),
        ("a1", {"split_by_number": False}, True),  # digits join any script
        ("12", {"split_digits": True}, False),  # a digit alone
        ("1", {"split_digits": True}, True),
        ("a" * 16, {}, True),
        ("a" * 17, {}, False),  # max_sentencepiece_length
        ("a" * 17, {"max_sentencepiece_length": 20}, True),
        ("a\u2585", {}, False),  # the mark of a rare character
        ("a\tb", {}, False),
        ("", {}, False),
    ],
)
def test_piece_rules_are_sentencepieces(piece: str, options: dict[str, object], valid: bool) -> None:
    assert PieceRules(**options).valid(piece) is valid  # type: ignore[arg-type]


def test_coverage_keeps_the_most_frequent_characters_until_they_cover_enough() -> None:
    counts = {"a": 6, "b": 3, "c": 1}
    assert covered_chars(counts, 0.9) == ["a", "b"]
    assert covered_chars(counts, 1.0) == ["a", "b", "c"]
    assert covered_chars(counts, 0.5) == ["a"]
    assert covered_chars(counts, 0.0) == []
    # ties: the smaller character first; a tab counts but is never kept
    assert covered_chars({"b": 2, "a": 2, "\t": 5}, 1.0) == ["a", "b"]


def test_words_are_cut_at_spaces_and_at_rare_characters() -> None:
    assert split_words("▁ab▁c", None, True) == ["▁ab", "▁c"]
    assert split_words("▁ab▁c", None, False) == ["▁ab▁c"]
    assert split_words("▁aéb", {"▁", "a", "b"}, True) == ["▁a", "b"]
    assert split_words("é▁a", {"▁", "a"}, True) == ["▁a"]


@settings(max_examples=300, deadline=None)
@given(st.text("ab▁é日😀\x00", max_size=20), st.lists(st.sampled_from("ab▁é日😀\x00"), unique=True))
def test_kept_parts_are_split_words_without_whitespace(sentence: str, kept: list[str]) -> None:
    assert kept_parts(sentence, kept_table(kept)) == split_words(sentence, set(kept), False)


def test_training_words_come_from_sentences() -> None:
    trainer = SentencePieceTrainer(character_coverage=0.9)
    words, kept, sentences = trainer.training_words({"▁ab▁a": 3, "▁é": 1})
    assert words == {"▁ab": 3, "▁a": 3, "▁": 1}
    assert kept == ["▁", "a", "b"]
    assert sentences == {"▁ab▁a": 3, "▁": 1}
    whole = SentencePieceTrainer(split_by_whitespace=False)
    assert whole.training_words({"▁ab▁a": 3})[0] == {"▁ab▁a": 3}


def test_lines_longer_than_max_sentence_length_are_left_out() -> None:
    trainer = SentencePieceTrainer(max_sentence_length=10)
    words, kept, _ = trainer.training_words({"▁short": 2, "▁" + "long" * 5: 1, "▁日本語です": 1})
    assert words == {"▁short": 2}  # "▁日本語です" is 16 bytes
    assert "l" not in kept and "g" not in kept


def test_options_round_trip_and_bad_values_say_which_option() -> None:
    trainer = SentencePieceTrainer(
        "bpe", 500, special_tokens=["<s>"], character_coverage=0.98, split_digits=True, byte_fallback=True,
        max_sentencepiece_length=8, input_sentence_size=1000, num_sub_iterations=3,
    )  # fmt: skip
    data = trainer.to_dict()
    assert data["type"] == "SentencePieceTrainer"
    assert trainers.from_dict(data).to_dict() == data
    assert pickle.loads(pickle.dumps(trainer)).to_dict() == data
    assert SentencePieceTrainer().to_dict() == trainers.from_dict({"type": "SentencePieceTrainer"}).to_dict()
    assert SentencePieceTrainer().character_coverage == 0.9995
    with pytest.raises(ValueError, match="model_type"):
        SentencePieceTrainer("char")
    with pytest.raises(ValueError, match="character_coverage"):
        SentencePieceTrainer(character_coverage=1.5)
    with pytest.raises(ValueError, match="max_sentencepiece_length"):
        SentencePieceTrainer(max_sentencepiece_length=0)


def _train(tmp_path: Path, key: str, lines: list[str], vocab_size: int = 120, **options: object) -> Tokenizer:
    path = tmp_path / "text.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return train_sentencepiece_preset(path, key.removeprefix("sentencepiece-"), vocab_size, **options)


@pytest.mark.parametrize("key", ["sentencepiece-unigram", "sentencepiece-bpe"])
def test_trained_pieces_obey_the_rules(key: str, tmp_path: Path) -> None:
    tokenizer = _train(tmp_path, key, LINES, split_digits=True)
    rules = PieceRules(split_digits=True)
    pieces = [piece for piece in tokenizer.get_vocab() if piece != "<unk>"]
    assert len(pieces) > 30
    assert [piece for piece in pieces if not rules.valid(piece)] == []
    assert "▁cat" in pieces or "▁the" in pieces


def test_unigram_scores_are_float32_as_in_the_model_file_so_ties_go_the_same_way(tmp_path: Path) -> None:
    # "----" is "--" "--" or "-" "--" "-": equal sums, which float64 scores round apart one way
    # and the .model's float32 scores (what sentencepiece's trainer holds) the other way, unless
    # the trained scores are float32 already (found by the desktop bundle's self-test).
    lines = LINES + ["-" * n for n in range(2, 60)] * 3
    tokenizer = _train(tmp_path, "sentencepiece-unigram", lines, vocab_size=80)
    scores = json.loads(tokenizer.to_str())["model"]["vocab"]
    assert all(struct.unpack("<f", struct.pack("<f", score))[0] == score for _, score in scores)
    assert any(score != round(score) for _, score in scores)
    model = tmp_path / "out.model"
    convert.save(tokenizer, convert.SENTENCEPIECE, str(model))
    again = convert.load(str(model))
    for text in ["-" * n for n in range(1, 80)] + LINES:
        assert again.encode(text).ids == tokenizer.encode(text).ids, text


@pytest.mark.parametrize("key", ["sentencepiece-unigram", "sentencepiece-bpe"])
def test_rare_characters_are_unknown(key: str, tmp_path: Path) -> None:
    lines = LINES + ["one rare character: ж"]
    tokenizer = _train(tmp_path, key, lines, character_coverage=0.995)
    vocab = tokenizer.get_vocab()
    assert "ж" not in vocab and "a" in vocab
    assert tokenizer.encode("ж").ids[-1] == vocab["<unk>"]


@pytest.mark.parametrize("key", ["sentencepiece-unigram", "sentencepiece-bpe"])
def test_byte_fallback_puts_the_byte_pieces_after_the_special_tokens(key: str, tmp_path: Path) -> None:
    tokenizer = _train(tmp_path, key, LINES, byte_fallback=True, vocab_size=400)
    vocab = tokenizer.get_vocab()
    assert [vocab[piece] for piece in byte_pieces()] == list(range(1, 257))
    assert vocab["<unk>"] == 0
    # a character no piece holds is spelled in its UTF-8 bytes
    assert tokenizer.encode("ж").tokens[-2:] == ["<0xD0>", "<0xB6>"]


def test_a_vocabulary_smaller_than_the_kept_characters_names_character_coverage(tmp_path: Path) -> None:
    with pytest.raises(VocabularyTooSmallError) as raised:
        _train(tmp_path, "sentencepiece-unigram", LINES, vocab_size=10)
    message = str(raised.value)
    required = raised.value.required
    assert required > 10
    assert message.endswith(f"choose at least {required:,}, or lower character_coverage")


def test_it_counts_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "text.txt"
    path.write_text("a b\na b\nc\n", encoding="utf-8")
    tokenizer, _ = build("sentencepiece-unigram", vocab_size=50)
    assert tokenizer.count_words([str(path)], sentences=True) == {"▁a▁b": 2, "▁c": 1}
    assert tokenizer.count_words([str(path)]) == {"▁a": 2, "▁b": 2, "▁c": 1}


def test_pieces_across_spaces_need_a_pipeline_that_does_not_cut_there(tmp_path: Path) -> None:
    path = tmp_path / "text.txt"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    tokenizer, trainer = build("sentencepiece-unigram", vocab_size=150)
    assert isinstance(trainer, SentencePieceTrainer)
    trainer.split_by_whitespace = False
    trainer.show_progress = False
    with pytest.raises(TrainerMismatchError, match="split off"):
        tokenizer.train([str(path)], trainer)
    assert tokenizer.get_vocab_size() <= 1  # untouched
    metaspace = tokenizer.pre_tokenizer
    assert isinstance(metaspace, pre_tokenizers.Metaspace)
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace("▁", metaspace.prepend_scheme, False)
    tokenizer.train([str(path)], trainer)
    spanning = [piece for piece in tokenizer.get_vocab() if "▁" in piece[1:]]
    assert spanning  # e.g. "▁the▁cat"
    assert not [piece for piece in spanning if piece.endswith("▁")]


def test_it_trains_only_its_model_type() -> None:
    tokenizer = Tokenizer(models.BPE())
    with pytest.raises(TrainerMismatchError, match="Unigram"):
        tokenizer.train_from_counts({"▁a": 1}, SentencePieceTrainer("unigram"))
