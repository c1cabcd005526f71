"""WordLevelTrainer: HF's own Rust test case, special tokens, ties, limits, settings, errors."""

from __future__ import annotations

import pytest

from engine.added_vocabulary import AddedToken
from engine.models.bpe.model import BPE
from engine.errors import SchemaError, TrainerMismatchError, TrainingCancelled
from engine.progress import ProgressSink, SilentProgress, TrainProgress
from engine.models.wordlevel.model import WordLevel
from engine.models.wordlevel.trainer import WordLevelTrainer

ROSES = {"the": 25, "roses": 22, "are": 24, "red": 12, "voilets": 10, "blue": 16}


class Stop(ProgressSink):
    def report(self, event: TrainProgress) -> bool:
        return False


def test_hf_rust_test_train_case() -> None:
    # HF models/wordlevel/trainer.rs `test_train`
    trainer = WordLevelTrainer(vocab_size=5)
    assert trainer.build_vocab(ROSES) == {"the": 0, "are": 1, "roses": 2, "blue": 3, "red": 4}
    trainer.min_frequency = 15
    assert trainer.build_vocab(ROSES) == {"the": 0, "are": 1, "roses": 2, "blue": 3}


def test_special_tokens_first_and_counted_in_vocab_size() -> None:
    trainer = WordLevelTrainer(vocab_size=4, special_tokens=["[UNK]", AddedToken("[PAD]")])
    assert trainer.build_vocab(ROSES) == {"[UNK]": 0, "[PAD]": 1, "the": 2, "are": 3}
    assert WordLevelTrainer(vocab_size=1, special_tokens=["[UNK]", "[PAD]"]).build_vocab(ROSES) == {"[UNK]": 0}


def test_equal_counts_go_in_code_point_order() -> None:
    assert WordLevelTrainer().build_vocab({"b": 2, "B": 2, "a": 2, "é": 2, "z": 3}) == {"z": 0, "B": 1, "a": 2, "b": 3, "é": 4}


def test_a_word_equal_to_a_special_token_takes_its_later_id_like_hf() -> None:
    vocab = WordLevelTrainer(special_tokens=["the", "<s>"]).build_vocab({"the": 5, "a": 1})
    assert vocab == {"the": 2, "<s>": 1, "a": 3}


def test_train_fills_the_model() -> None:
    model = WordLevel(unk_token="[UNK]")
    special = WordLevelTrainer(vocab_size=10, special_tokens=["[UNK]"]).train(ROSES, model, SilentProgress())
    assert [t.content for t in special] == ["[UNK]"] and special[0].special
    assert model.get_vocab()["[UNK]"] == 0 and model.get_vocab()["the"] == 1
    assert model.get_vocab_size() == 7
    assert model.unk_token == "[UNK]"


def test_cancel_leaves_the_model_untouched() -> None:
    model = WordLevel({"x": 0})
    with pytest.raises(TrainingCancelled):
        WordLevelTrainer().train(ROSES, model, Stop())
    assert model.get_vocab() == {"x": 0}


def test_train_rejects_another_kind_of_model() -> None:
    with pytest.raises(TrainerMismatchError):
        WordLevelTrainer().train(ROSES, BPE(), SilentProgress())


def test_settings_round_trip() -> None:
    trainer = WordLevelTrainer(vocab_size=9, min_frequency=3, special_tokens=["<unk>"], show_progress=False)
    assert WordLevelTrainer.from_dict(trainer.to_dict()).to_dict() == trainer.to_dict()
    with pytest.raises(SchemaError):
        WordLevelTrainer.from_dict({"type": "WordLevelTrainer", "min_frequency": -1})
    with pytest.raises(SchemaError):
        WordLevelTrainer.from_dict([])
