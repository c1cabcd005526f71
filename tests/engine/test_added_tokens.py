"""`AddedToken`'s JSON form: one reader and one writer for tokenizer.json and trainer settings."""

from __future__ import annotations

import json

import pytest

from engine import AddedToken, Tokenizer, models, trainers
from engine.errors import SchemaError


def test_to_dict_writes_every_field_with_normalized_resolved() -> None:
    assert AddedToken("<s>", special=True).to_dict(5) == {
        "id": 5, "content": "<s>", "single_word": False, "lstrip": False, "rstrip": False,
        "normalized": False, "special": True,
    }
    assert AddedToken("hello").to_dict() == {
        "content": "hello", "single_word": False, "lstrip": False, "rstrip": False,
        "normalized": True, "special": False,
    }


@pytest.mark.parametrize(
    "token",
    [
        AddedToken("<s>", special=True),
        AddedToken("[MASK]", lstrip=True, special=True),
        AddedToken(" word", single_word=True, rstrip=True, normalized=False),
        AddedToken("x", normalized=True, special=True),
    ],
    ids=repr,
)
def test_from_dict_reads_what_to_dict_wrote(token: AddedToken) -> None:
    again = AddedToken.from_dict(json.loads(json.dumps(token.to_dict(3))))
    assert again.to_dict() == token.to_dict()


def test_missing_fields_take_the_constructors_defaults() -> None:
    # HF itself writes every field; a hand-written file gets what AddedToken(...) would give.
    special = AddedToken.from_dict({"content": "<s>", "special": True})
    assert (special.special, special.normalized, special.lstrip) == (True, False, False)
    plain = AddedToken.from_dict({"content": "hi"})
    assert (plain.special, plain.normalized) == (False, True)


@pytest.mark.parametrize(
    ("data", "fragment"),
    [({"special": True}, "content"), ({"content": "a", "lstrip": "yes"}, "lstrip"), ([], "object")],
)
def test_bad_objects_are_schema_errors(data: object, fragment: str) -> None:
    with pytest.raises(SchemaError, match=fragment):
        AddedToken.from_dict(data)


def test_tokenizer_json_and_trainer_settings_read_tokens_the_same_way() -> None:
    entry = {"content": "<pad>", "special": True}
    tokenizer = Tokenizer.from_str(json.dumps({
        "version": "1.0",
        "added_tokens": [{"id": 2, **entry}],
        "model": {"type": "WordLevel", "vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"},
    }))
    from_file = tokenizer.get_added_tokens_decoder()[2]
    trainer = trainers.BpeTrainer.from_dict({"type": "BpeTrainer", "special_tokens": [entry]})
    assert from_file.to_dict() == trainer.special_tokens[0].to_dict()
    assert trainers.BpeTrainer.from_dict(trainer.to_dict()).to_dict() == trainer.to_dict()
    assert isinstance(tokenizer.model, models.WordLevel)
