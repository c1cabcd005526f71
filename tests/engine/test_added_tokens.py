"""`AddedToken`'s JSON form: one reader and one writer for tokenizer.json and trainer settings."""

from __future__ import annotations

import json

import pytest

from hypothesis import given
from hypothesis import strategies as st

from engine import AddedToken, Tokenizer, models, trainers
from engine.added_vocabulary import AlternationFinder, PrefixFinder
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


@given(
    contents=st.lists(st.text(alphabet="ab<>\u00f1", min_size=1, max_size=4), min_size=1, max_size=12),
    text=st.text(alphabet="ab<>\u00f1 ", max_size=30),
)
def test_both_token_finders_find_the_same_tokens(contents: list[str], text: str) -> None:
    """One regex alternation (a few tokens) and the lookup by prefix (thousands) agree, leftmost-longest."""
    regex_way = AlternationFinder(contents)
    prefix_way = PrefixFinder(contents)
    assert prefix_way.spans(text) == regex_way.spans(text)
    assert prefix_way.occurs_in(text) == regex_way.occurs_in(text)


def test_the_prefix_finder_reference_case() -> None:
    finder = PrefixFinder(["a", "ab", "abc", "b<", "<"])
    # at 0 "abc" is the longest; at 3 "b<" beats "<" at 4, which is inside it; "ab" at 5
    assert finder.spans("abcb<ab") == [(0, 3), (3, 5), (5, 7)]
    assert not finder.occurs_in("xyz") and finder.occurs_in("xy<")
