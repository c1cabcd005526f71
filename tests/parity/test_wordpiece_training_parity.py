"""WordPieceTrainer(scoring="frequency") against HF's WordPieceTrainer, which trains BPE by pair
count with the "##" prefix and reads the result as WordPiece; the other two scorings' vocabularies
in HF's WordPiece.

HF numbers the "##x" symbols in hash-map order (HF issue #1794), so which of two equally
frequent pairs it merges first, and so its vocabulary, changes from run to run. Listing every
"##x" symbol as a special token gives them fixed ids on both sides; then HF is deterministic,
and its vocabulary must equal ours, id for id.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tokenizers

from engine import Tokenizer, models, normalizers, pre_tokenizers
from engine.models.wordpiece.trainer import WordPieceTrainer
from support import corpus_path


def pinned_specials(path: Path) -> list[str]:
    text = normalizers.BertNormalizer(lowercase=True).normalize_str(path.read_text(encoding="utf-8"))
    chars = sorted(set(text) - set(" \t\n\r"))
    return ["[UNK]", "[CLS]", "[SEP]"] + ["##" + ch for ch in chars]


def hf_vocab(path: Path, vocab_size: int, specials: list[str]) -> dict[str, int]:
    hf = tokenizers.Tokenizer(tokenizers.models.WordPiece(unk_token="[UNK]"))
    hf.normalizer = tokenizers.normalizers.BertNormalizer(lowercase=True)
    hf.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    trainer = tokenizers.trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=specials, show_progress=False)
    hf.train([str(path)], trainer)
    vocab: dict[str, int] = hf.get_vocab()
    return vocab


def ours(path: Path, vocab_size: int, specials: list[str], scoring: str) -> Tokenizer:
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = WordPieceTrainer(vocab_size=vocab_size, special_tokens=specials, show_progress=False, scoring=scoring)
    tokenizer.train([str(path)], trainer)
    return tokenizer


@pytest.mark.parametrize(("name", "vocab_size"), [("botchan.txt", 4000), ("shakespeare.txt", 8000)])
def test_frequency_scoring_gives_hfs_vocabulary(name: str, vocab_size: int) -> None:
    path = corpus_path(name)
    specials = pinned_specials(path)
    expected = hf_vocab(path, vocab_size, specials)
    assert hf_vocab(path, vocab_size, specials) == expected  # HF is deterministic here
    assert ours(path, vocab_size, specials, "frequency").get_vocab() == expected


@pytest.mark.parametrize("scoring", ["likelihood", "likelihood_gain"])
def test_a_scored_vocabulary_loads_and_encodes_alike_in_hf(scoring: str) -> None:
    path = corpus_path("botchan.txt")
    tokenizer = ours(path, 3000, ["[UNK]", "[CLS]", "[SEP]"], scoring)
    hf = tokenizers.Tokenizer.from_str(tokenizer.to_str())
    lines = path.read_text(encoding="utf-8").splitlines()
    for line in lines:
        mine = tokenizer.encode(line)
        theirs = hf.encode(line)
        assert (mine.ids, mine.offsets) == (theirs.ids, theirs.offsets), line
    # A scored vocabulary differs from the frequency one: the ratio prefers pieces whose parts
    # rarely occur apart, the gain weighs that by how often the pair occurs, frequency takes
    # the most common pairs.
    frequency = ours(path, 3000, ["[UNK]", "[CLS]", "[SEP]"], "frequency")
    assert set(tokenizer.get_vocab()) != set(frequency.get_vocab())


@pytest.mark.parametrize("scoring", ["frequency", "likelihood", "likelihood_gain"])
def test_a_vocabulary_below_the_alphabet_comes_out_as_large_as_it_needs(scoring: str) -> None:
    # HF keeps every character and its ## form, whatever vocab_size says; so does the engine,
    # and its run's alphabet_need counts exactly those tokens (the workbench refuses them).
    # (HF gives the ## forms ids in hash order: the tokens are compared, not their ids.)
    path = corpus_path("botchan.txt")
    specials = ["[UNK]", "[CLS]", "[SEP]"]
    expected = hf_vocab(path, 10, specials)
    tokenizer = ours(path, 10, specials, scoring)
    assert set(tokenizer.get_vocab()) == set(expected)
    counts = tokenizer.count_words([str(path)])
    need = WordPieceTrainer(vocab_size=10, special_tokens=specials, scoring=scoring).start(counts).alphabet_need()
    assert need.required == len(expected) > 10
    assert need.special == 3 and need.forms == len([token for token in expected if token.startswith("##")])
    assert need.forms_name == "continuing forms (##x)"
