"""WordLevel model: whole-word lookup, unk rules, vocab.json and the JSON form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.errors import EngineError, SchemaError, TokenizerFileError
from engine.models.wordlevel.model import WordLevel


def test_lookup_and_unk() -> None:
    model = WordLevel({"hello": 0, "world": 1, "<unk>": 2})
    assert [(t.id, t.value, t.start, t.end) for t in model.tokenize("hello")] == [(0, "hello", 0, 5)]
    assert [(t.id, t.value, t.start, t.end) for t in model.tokenize_run("héllo").tokens()] == [(2, "<unk>", 0, 5)]
    assert [(t.id, t.value, t.start, t.end) for t in model.tokenize("héllo")] == [(2, "<unk>", 0, 6)]  # bytes, as HF
    assert model.unk_token == "<unk>"
    assert model.get_vocab_size() == 3
    assert model.id_to_token(1) == "world" and model.token_to_id("world") == 1


def test_custom_unk_and_missing_unk() -> None:
    model = WordLevel({"a": 0, "[UNK]": 1}, unk_token="[UNK]")
    assert [t.value for t in model.tokenize("zzz")] == ["[UNK]"]
    with pytest.raises(EngineError, match="Missing \\[UNK\\] token"):
        WordLevel({"a": 0}).tokenize("b")


def test_empty_piece_is_looked_up_like_hf() -> None:
    assert [(t.value, t.start, t.end) for t in WordLevel({"<unk>": 0}).tokenize("")] == [("<unk>", 0, 0)]


def test_set_vocab_replaces_everything() -> None:
    model = WordLevel({"a": 0})
    model.set_vocab({"b": 0, "c": 1})
    assert model.get_vocab() == {"b": 0, "c": 1}
    assert model.id_to_token(0) == "b"


def test_to_dict_and_back() -> None:
    model = WordLevel({"b": 1, "a": 0, "<unk>": 2})
    assert json.dumps(model.to_dict(), separators=(",", ":")) == (
        '{"type":"WordLevel","vocab":{"a":0,"b":1,"<unk>":2},"unk_token":"<unk>"}'
    )
    assert WordLevel.from_dict(model.to_dict()).to_dict() == model.to_dict()
    with pytest.raises(SchemaError, match="missing field 'unk_token'"):
        WordLevel.from_dict({"type": "WordLevel", "vocab": {}})
    with pytest.raises(SchemaError, match="wrong type"):
        WordLevel.from_dict({"type": "BPE", "vocab": {}, "unk_token": "x"})


def test_vocab_json_round_trip(tmp_path: Path) -> None:
    model = WordLevel({"é": 1, "a": 0, "<unk>": 2})
    [path] = model.save(str(tmp_path), "wl")
    assert Path(path).name == "wl-vocab.json"
    assert Path(path).read_text(encoding="utf-8") == '{"a":0,"é":1,"<unk>":2}'
    assert WordLevel.read_file(path) == {"a": 0, "é": 1, "<unk>": 2}
    assert WordLevel.from_file(path, unk_token="a").unk_token == "a"
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": 1.5}', encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="bad.json"):
        WordLevel.read_file(str(bad))
    bad.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="Bad vocabulary"):
        WordLevel.read_file(str(bad))
