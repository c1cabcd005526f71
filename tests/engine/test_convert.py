"""engine.formats.convert: which format a path holds, loading and saving any of them, and the
dry run the window's Export menu uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Tokenizer
from engine.errors import TokenizerFileError
from engine.formats import convert
from support import corpus_path, sentencepiece_style, train_byte_level

LINES = ["First Citizen:", "Before we proceed any further, hear me speak.", "naïve café ☃"]


def test_every_format_round_trips_through_save_detect_load(tmp_path: Path) -> None:
    byte_level = train_byte_level(corpus_path("botchan.txt").read_text(encoding="utf-8").splitlines()[:2000], 600)
    bert = Tokenizer.from_file(str(corpus_path("bert_uncased_tokenizer.json")))
    bert.no_padding()  # (vocab.txt keeps no padding settings: the export's notes say so)
    cases = [
        (byte_level, convert.HF, tmp_path / "t.json"),
        (byte_level, convert.GPT2, tmp_path / "gpt2"),
        (byte_level, convert.TIKTOKEN, tmp_path / "t.tiktoken"),
        (bert, convert.BERT_VOCAB, tmp_path / "vocab.txt"),
        (sentencepiece_style(), convert.SENTENCEPIECE, tmp_path / "u.model"),
    ]
    for tokenizer, kind, path in cases:
        convert.save(tokenizer, kind, str(path))
        for written in convert.written_paths(kind, str(path)):
            assert Path(written).is_file(), written
        assert convert.detect(str(path)) == kind
        loaded = convert.load(str(path))
        for line in LINES:
            assert loaded.encode(line, add_special_tokens=False).ids == tokenizer.encode(line, add_special_tokens=False).ids, kind


def test_gpt2_files_pair_up_by_name(tmp_path: Path) -> None:
    tokenizer = train_byte_level(["hello world"] * 10, 300)
    convert.save(tokenizer, convert.GPT2, str(tmp_path / "small-vocab.json"))
    assert (tmp_path / "small-merges.txt").is_file()
    assert convert.detect(str(tmp_path / "small-merges.txt")) == convert.GPT2
    assert convert.load(str(tmp_path / "small-merges.txt")).encode("hello").ids == tokenizer.encode("hello").ids
    (tmp_path / "small-merges.txt").unlink()
    with pytest.raises(TokenizerFileError, match="small-merges.txt"):
        convert.load(str(tmp_path / "small-vocab.json"))


def test_a_folder_is_read_by_what_it_holds(tmp_path: Path) -> None:
    with pytest.raises(TokenizerFileError, match="without tokenizer.json"):
        convert.detect(str(tmp_path))
    tokenizer = train_byte_level(["hello world"] * 10, 300)
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    assert convert.detect(str(tmp_path)) == convert.HF
    assert convert.load(str(tmp_path)).get_vocab() == tokenizer.get_vocab()


def test_check_answers_as_save_would_and_writes_nothing(tmp_path: Path) -> None:
    unigram = sentencepiece_style()
    assert convert.check(unigram, convert.SENTENCEPIECE) == convert.save(unigram, convert.SENTENCEPIECE, str(tmp_path / "u.model"))
    bert = Tokenizer.from_file(str(corpus_path("bert_uncased_tokenizer.json")))
    with pytest.raises(TokenizerFileError, match="WordPiece"):
        convert.check(bert, convert.SENTENCEPIECE)
    with pytest.raises(TokenizerFileError):
        convert.check(unigram, convert.BERT_VOCAB)
    assert convert.check(bert, convert.BERT_VOCAB)  # notes: what vocab.txt loses
    assert sorted(p.name for p in tmp_path.iterdir()) == ["u.model", "u.vocab"]
