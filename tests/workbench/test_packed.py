"""The packed columns a child process sends the window give back what was packed."""

from __future__ import annotations

import pickle
from array import array

import pytest

from engine import Tokenizer, models, pre_tokenizers, trainers
from engine.analysis.vocabulary import VocabularyTable, merges_made
from workbench.core.packed import PackedStrings, VocabularyColumns, pack_made, unpack_made

STRINGS = ["", "lo", "w", "", "👩\u200d👩\u200d👧", "Ġthe", "\x00", "##ing", "é"]


def test_packed_strings_read_back_as_the_list_they_were_made_of() -> None:
    packed = PackedStrings.of(STRINGS)
    assert len(packed) == len(STRINGS)
    assert list(packed) == STRINGS
    assert packed.tolist() == STRINGS
    assert [packed[i] for i in range(len(STRINGS))] == STRINGS
    assert [packed[-i] for i in range(1, len(STRINGS) + 1)] == [STRINGS[-i] for i in range(1, len(STRINGS) + 1)]
    assert packed[2:6] == STRINGS[2:6]
    assert packed[::-2] == STRINGS[::-2]
    assert "Ġthe" in packed and "the" not in packed
    assert pickle.loads(pickle.dumps(packed)).tolist() == STRINGS


def test_packed_strings_out_of_range_and_inconsistent_ends_are_errors() -> None:
    packed = PackedStrings.of(["a"])
    with pytest.raises(IndexError):
        packed[1]
    with pytest.raises(IndexError):
        packed[-2]
    with pytest.raises(ValueError, match="ends do not match"):
        PackedStrings("abc", array("q", [1, 2]))
    assert list(PackedStrings()) == []


def trained_bpe() -> Tokenizer:
    tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.BpeTrainer(vocab_size=60, special_tokens=["[UNK]"], show_progress=False)
    tokenizer.train_from_iterator(["low lower lowest newer wider", "the thé 👩\u200d👩\u200d👧"] * 20, trainer)
    return tokenizer


def test_vocabulary_columns_hold_every_row_of_the_table() -> None:
    tokenizer = trained_bpe()
    table = VocabularyTable.of(tokenizer, list(range(tokenizer.get_vocab_size())))
    columns = pickle.loads(pickle.dumps(VocabularyColumns.of(table), protocol=pickle.HIGHEST_PROTOCOL))
    assert len(columns) == len(table) == tokenizer.get_vocab_size()
    for name in ("ids", "tokens", "shown", "char_lengths", "byte_lengths", "kinds", "merge_ranks", "frequencies"):
        assert list(getattr(columns, name)) == getattr(table, name), name


def test_vocabulary_columns_of_different_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="columns of different lengths"):
        VocabularyColumns(ids=array("q", [0, 1]), tokens=PackedStrings.of(["a"]))


def test_how_each_token_was_made_survives_packing() -> None:
    made = merges_made(trained_bpe().model)
    assert made
    assert unpack_made(pickle.loads(pickle.dumps(pack_made(made)))) == made
    assert unpack_made(pack_made({})) == {}
