"""WordPiece model: greedy longest-match-first (BERT's "unaffable"), unk rules, files and JSON form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.models.bpe.model import BPE
from engine.errors import EngineError, SchemaError
from engine.models.wordpiece.model import WordPiece

VOCAB = {"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3, "##a": 4, "a": 5, "##ff": 6}


def pieces(model: WordPiece, text: str) -> list[tuple[str, int, int]]:
    """Tokens with the CHARACTER offsets the pipeline uses (`tokenize` counts bytes, as HF)."""
    return [(t.value, t.start, t.end) for t in model.tokenize_run(text).tokens()]


def test_tokenize_counts_bytes_like_hf() -> None:
    model = WordPiece({"[UNK]": 0, "st": 1, "##raße": 2})
    assert [(t.value, t.offsets) for t in model.tokenize("straße")] == [("st", (0, 2)), ("##raße", (2, 7))]
    assert pieces(model, "straße") == [("st", 0, 2), ("##raße", 2, 6)]


def test_greedy_longest_match_first() -> None:
    model = WordPiece(VOCAB)
    assert pieces(model, "unaffable") == [("un", 0, 2), ("##aff", 2, 5), ("##able", 5, 9)]
    # "##aff" is preferred over "##a" + "##ff": the longest piece wins at each step.
    assert pieces(model, "aaff") == [("a", 0, 1), ("##aff", 1, 4)]
    assert model.tokenize("") == []


def test_a_word_that_cannot_be_covered_is_one_unk() -> None:
    model = WordPiece(VOCAB)
    assert pieces(model, "unx") == [("[UNK]", 0, 3)]


def test_max_input_chars_per_word_counts_chars() -> None:
    model = WordPiece({"[UNK]": 0, "é": 1, "##é": 2}, max_input_chars_per_word=3)
    assert pieces(model, "ééé") == [("é", 0, 1), ("##é", 1, 2), ("##é", 2, 3)]
    assert pieces(model, "éééé") == [("[UNK]", 0, 4)]


def test_missing_unk_is_an_error() -> None:
    model = WordPiece({"a": 0})
    with pytest.raises(EngineError, match="Missing \\[UNK\\] token"):
        model.tokenize("b")


def test_custom_prefix_and_unk() -> None:
    model = WordPiece({"<?>": 0, "un": 1, "@@aff": 2}, unk_token="<?>", continuing_subword_prefix="@@")
    assert pieces(model, "unaff") == [("un", 0, 2), ("@@aff", 2, 5)]
    assert pieces(model, "zz") == [("<?>", 0, 2)]


def test_from_bpe_keeps_vocab_unk_and_prefix() -> None:
    bpe = BPE({"[UNK]": 0, "a": 1, "##b": 2, "a##b": 3}, [], unk_token="[UNK]", continuing_subword_prefix="##")
    model = WordPiece.from_bpe(bpe)
    assert model.get_vocab() == bpe.get_vocab()
    assert model.unk_token == "[UNK]" and model.continuing_subword_prefix == "##"
    plain = WordPiece.from_bpe(BPE({"a": 0}, []))
    assert plain.unk_token == "[UNK]" and plain.continuing_subword_prefix == "##"


def test_to_dict_matches_hf_layout() -> None:
    model = WordPiece({"[UNK]": 1, "a": 0}, continuing_subword_prefix="")
    assert json.dumps(model.to_dict(), separators=(",", ":")) == (
        '{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"",'
        '"max_input_chars_per_word":100,"vocab":{"a":0,"[UNK]":1}}'
    )
    assert WordPiece.from_dict(model.to_dict()).to_dict() == model.to_dict()
    with pytest.raises(SchemaError, match="missing field 'max_input_chars_per_word'"):
        WordPiece.from_dict({"type": "WordPiece", "vocab": {}, "unk_token": "[UNK]", "continuing_subword_prefix": "##"})


def test_vocab_txt_round_trip(tmp_path: Path) -> None:
    model = WordPiece(VOCAB)
    [path] = model.save(str(tmp_path))
    assert Path(path).name == "vocab.txt"
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    assert lines == ["[UNK]", "un", "##aff", "##able", "##a", "a", "##ff", ""]
    assert WordPiece.read_file(path) == VOCAB
    assert WordPiece.from_file(path, unk_token="un").unk_token == "un"
    assert WordPiece(path).get_vocab() == VOCAB


def test_read_file_trims_like_rust(tmp_path: Path) -> None:
    path = tmp_path / "vocab.txt"
    # CRLF endings, trailing spaces, and \x1c (not whitespace for Rust, kept).
    path.write_bytes("a \r\nb\t\r\n\nc\x1c\n".encode("utf-8"))
    assert WordPiece.read_file(str(path)) == {"a": 0, "b": 1, "": 2, "c\x1c": 3}
