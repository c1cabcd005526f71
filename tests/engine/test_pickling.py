"""pickle and copy round-trip every model, trainer, AddedToken, Tokenizer and Project, in the pure
and the compiled build (a mypyc native class has no default way to rebuild itself): each goes
through its JSON form, as HF's objects do, and HF's copies encode as ours do."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable
from pathlib import Path

import pytest
import tokenizers

from engine import AddedToken, Tokenizer, models, trainers
from engine.project.entry import TokenizerEntry
from engine.project.facts import CorpusFile
from engine.project.project_file import Project
from engine.project.result import TrainedResult

COPIES: dict[str, Callable[[object], object]] = {
    "pickle": lambda obj: pickle.loads(pickle.dumps(obj)),
    "deepcopy": copy.deepcopy,
    "copy": copy.copy,
}
BPE_VOCAB = {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "[UNK]": 5}
BPE_MERGES = [("a", "b"), ("ab", "c")]
UNIGRAM_VOCAB = [("<unk>", 0.0), ("a", -1.0), ("b", -1.5), ("ab", -1.25), ("c", -3.0)]
WORDPIECE_VOCAB = {"[UNK]": 0, "a": 1, "##b": 2, "ab": 3, "##c": 4}


def our_models() -> dict[str, models.Model]:
    return {
        "BPE": models.BPE(dict(BPE_VOCAB), list(BPE_MERGES), unk_token="[UNK]", dropout=None, fuse_unk=True),
        "Unigram": models.Unigram(list(UNIGRAM_VOCAB), 0, False),
        "WordPiece": models.WordPiece(dict(WORDPIECE_VOCAB), unk_token="[UNK]", max_input_chars_per_word=7),
        "WordLevel": models.WordLevel({"a": 0, "abc": 1, "[UNK]": 2}, unk_token="[UNK]"),
    }


def their_models() -> dict[str, tokenizers.models.Model]:
    """`our_models()` made by HF, argument for argument."""
    hf = tokenizers.models
    return {
        "BPE": hf.BPE(dict(BPE_VOCAB), list(BPE_MERGES), unk_token="[UNK]", dropout=None, fuse_unk=True),
        "Unigram": hf.Unigram(list(UNIGRAM_VOCAB), 0, False),
        "WordPiece": hf.WordPiece(dict(WORDPIECE_VOCAB), unk_token="[UNK]", max_input_chars_per_word=7),
        "WordLevel": hf.WordLevel({"a": 0, "abc": 1, "[UNK]": 2}, unk_token="[UNK]"),
    }


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("kind", ["BPE", "Unigram", "WordPiece", "WordLevel"])
def test_models_round_trip_and_encode_as_hf_s_copies(kind: str, how: str) -> None:
    ours = our_models()[kind]
    theirs = their_models()[kind]
    ours.tokenize("abcab")  # a used model holds caches (of vecs, which do not pickle)
    our_copy = COPIES[how](ours)
    their_copy = COPIES[how](theirs)
    assert type(our_copy) is type(ours) and our_copy is not ours
    assert our_copy.to_dict() == ours.to_dict()
    assert isinstance(their_copy, tokenizers.models.Model)
    for text in ["abc", "abcab", "cab", "xabc", ""]:
        assert [token.id for token in our_copy.tokenize(text)] == [token.id for token in their_copy.tokenize(text)], text


@pytest.mark.parametrize("how", COPIES)
def test_added_token_round_trips(how: str) -> None:
    for token in (AddedToken("<s>", special=True), AddedToken(" w", single_word=True, lstrip=True, rstrip=True, normalized=False)):
        copied = COPIES[how](token)
        assert isinstance(copied, AddedToken)
        assert repr(copied) == repr(token)
        assert copied.to_dict() == token.to_dict()
    # a `normalized` left unset stays unset: it still follows `special` after the copy
    copied = COPIES[how](AddedToken("x"))
    assert isinstance(copied, AddedToken)
    copied.special = True
    assert copied.normalized is False
    theirs = COPIES[how](tokenizers.AddedToken(" w", single_word=True, lstrip=True, rstrip=True, normalized=False))
    assert repr(theirs) == repr(AddedToken(" w", single_word=True, lstrip=True, rstrip=True, normalized=False))


@pytest.mark.parametrize("how", COPIES)
def test_trainers_round_trip_with_their_special_tokens(how: str) -> None:
    specials: list[str | AddedToken] = ["<s>", AddedToken("<pad>", lstrip=True)]
    for trainer in (
        trainers.BpeTrainer(vocab_size=300, min_frequency=2, special_tokens=specials, limit_alphabet=50,
                            initial_alphabet=["x", "y"], continuing_subword_prefix="##", max_token_length=9),
        trainers.WordPieceTrainer(vocab_size=400, special_tokens=specials),
        trainers.UnigramTrainer(vocab_size=500, special_tokens=specials, unk_token="<s>", shrinking_factor=0.5),
        trainers.WordLevelTrainer(vocab_size=600, min_frequency=3, special_tokens=specials),
    ):
        copied = COPIES[how](trainer)
        assert type(copied) is type(trainer)
        assert copied.to_dict() == trainer.to_dict()
    # HF pickles a BpeTrainer with special tokens too
    theirs = COPIES[how](tokenizers.trainers.BpeTrainer(special_tokens=["<s>", tokenizers.AddedToken("<pad>", lstrip=True)]))
    assert isinstance(theirs, tokenizers.trainers.BpeTrainer)
    assert [token.content for token in theirs.special_tokens] == ["<s>", "<pad>"]


@pytest.mark.parametrize("how", COPIES)
def test_tokenizer_round_trips_with_its_pipeline(how: str) -> None:
    tokenizer = Tokenizer(models.BPE(dict(BPE_VOCAB), list(BPE_MERGES), unk_token="[UNK]"))
    tokenizer.add_special_tokens(["<s>"])
    tokenizer.enable_padding(length=8)
    copied = COPIES[how](tokenizer)
    assert isinstance(copied, Tokenizer)
    assert copied.to_str() == tokenizer.to_str()
    assert copied.encode("abc<s>ab").ids == tokenizer.encode("abc<s>ab").ids == [4, 6, 3, 0, 0, 0, 0, 0]


@pytest.mark.parametrize("how", COPIES)
def test_project_round_trips(how: str, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("a b c\n", encoding="utf-8")
    project = Project("mine")
    project.corpus.append(CorpusFile(str(corpus), 6, 1, "00" * 32, "", "text"))
    tokenizer = Tokenizer(models.BPE(dict(BPE_VOCAB), list(BPE_MERGES)))
    trainer = trainers.BpeTrainer(vocab_size=30, special_tokens=["<s>"])
    entry = TokenizerEntry("BPE", "bpe", json.loads(tokenizer.to_str()), trainer.to_dict())
    entry.result = TrainedResult(tokenizer.to_str(), None, [3, 2, 1], {0: [("a", 1)]})
    project.tokenizers.append(entry)
    project.active = 0
    copied = COPIES[how](project)
    assert isinstance(copied, Project)
    assert copied.to_dict(str(tmp_path)) == project.to_dict(str(tmp_path))
    assert copied.corpus[0].path == str(corpus)
