"""The four trainers' options, written, read and shown from one list (`engine.trainers.options`):
defaults cannot drift between the constructor and `from_dict`, and every option survives a
round trip through the project file's JSON."""

from __future__ import annotations

import json

import pytest

from engine import AddedToken, SchemaError
from engine.trainers import BpeTrainer, Trainer, UnigramTrainer, WordLevelTrainer, WordPieceTrainer
from engine.trainers import from_dict as trainer_from_dict

# (each class reads its own dicts: `from_dict` is a static method of the four, not of Trainer)
TrainerClass = type[BpeTrainer] | type[WordPieceTrainer] | type[UnigramTrainer] | type[WordLevelTrainer]
CLASSES: list[TrainerClass] = [BpeTrainer, WordPieceTrainer, UnigramTrainer, WordLevelTrainer]


def _name(cls: type[Trainer]) -> str:
    return cls.__name__


@pytest.mark.parametrize("cls", CLASSES, ids=_name)
def test_a_trainer_read_from_its_bare_type_is_the_trainer_made_with_no_arguments(cls: type[Trainer]) -> None:
    assert trainer_from_dict({"type": cls.__name__}).to_dict() == cls().to_dict()


def _unusual(cls: type[Trainer]) -> Trainer:
    """A trainer with every option away from its default."""
    specials: list[str | AddedToken] = ["<a>", AddedToken("<b>", special=True, lstrip=True)]
    if cls is BpeTrainer:
        return BpeTrainer(
            vocab_size=123, min_frequency=4, show_progress=False, special_tokens=specials, limit_alphabet=50,
            initial_alphabet=["x", "y"], continuing_subword_prefix="##", end_of_word_suffix="</w>", max_token_length=9,
            end_of_word_symbol=True,
        )  # fmt: skip
    if cls is WordPieceTrainer:
        return WordPieceTrainer(
            vocab_size=321, min_frequency=2, show_progress=False, special_tokens=specials, limit_alphabet=40,
            initial_alphabet=["q"], continuing_subword_prefix="@@", end_of_word_suffix="</w>", scoring="frequency",
        )  # fmt: skip
    if cls is UnigramTrainer:
        return UnigramTrainer(
            vocab_size=500, show_progress=False, special_tokens=specials, initial_alphabet=["z"], shrinking_factor=0.5,
            unk_token="<unk>", max_piece_length=8, n_sub_iterations=3, seed_size=5000,
        )  # fmt: skip
    return WordLevelTrainer(vocab_size=77, min_frequency=3, show_progress=False, special_tokens=specials)


@pytest.mark.parametrize("cls", CLASSES, ids=_name)
def test_every_option_survives_the_project_files_json(cls: type[Trainer]) -> None:
    trainer = _unusual(cls)
    written = trainer.to_dict()
    defaults = cls().to_dict()
    assert written["type"] == cls.__name__
    assert set(written) == set(defaults)
    differing = {key for key in written if written[key] != defaults[key]}
    assert differing == set(written) - {"type"}, "an option kept its default: the test does not cover it"
    again = trainer_from_dict(json.loads(json.dumps(written)))
    assert type(again) is cls
    assert again.to_dict() == written
    assert [(token.content, token.special, token.lstrip) for token in again.special_tokens] == [("<a>", True, False), ("<b>", True, True)]


@pytest.mark.parametrize("cls", CLASSES, ids=_name)
def test_a_field_of_the_wrong_kind_names_the_trainer_and_the_field(cls: TrainerClass) -> None:
    with pytest.raises(SchemaError, match=f"{cls.__name__}.*vocab_size"):
        cls.from_dict({"type": cls.__name__, "vocab_size": "many"})
    with pytest.raises(SchemaError, match=f"{cls.__name__}.*show_progress"):
        cls.from_dict({"type": cls.__name__, "show_progress": 1})
    with pytest.raises(SchemaError, match=f"{cls.__name__}: unexpected type 'Other'"):
        cls.from_dict({"type": "Other"})


def test_the_repr_shows_the_options_people_set() -> None:
    assert repr(BpeTrainer(vocab_size=120, special_tokens=["[UNK]"])) == (
        "BpeTrainer(vocab_size=120, min_frequency=0, special_tokens=['[UNK]'])"
    )
    assert repr(WordPieceTrainer(vocab_size=90, scoring="frequency")) == (
        "WordPieceTrainer(vocab_size=90, min_frequency=0, special_tokens=[], scoring='frequency')"
    )
    assert "shrinking_factor=0.5" in repr(UnigramTrainer(shrinking_factor=0.5))


def test_wordpiece_keeps_its_own_rules() -> None:
    with pytest.raises(SchemaError, match="unknown scoring 'best'"):
        WordPieceTrainer.from_dict({"type": "WordPieceTrainer", "scoring": "best"})
    # an empty or null prefix is WordPiece's "##"
    assert WordPieceTrainer.from_dict({"type": "WordPieceTrainer", "continuing_subword_prefix": None}).continuing_subword_prefix == "##"
    assert WordPieceTrainer.from_dict({"type": "WordPieceTrainer", "continuing_subword_prefix": ""}).continuing_subword_prefix == "##"
