"""Training parity with HF `tokenizers`: the same corpus and settings give the same merges, in the
same order, and the same vocabulary ids. Word counts have no HF API; they are checked through
WordLevel training (ids = count order) and, implicitly, by identical merges on whole corpora.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypedDict, Unpack

import pytest
import tokenizers

from engine.corpus import counting
from engine.models.bpe.model import BPE
from engine.models.bpe.trainer import BpeTrainer
from engine.corpus.counting import PipelineWords
from engine.normalizers import Lowercase, Normalizer
from engine.pre_tokenizers import BertPreTokenizer, ByteLevel, PreTokenizer, Whitespace
from engine.progress import SilentProgress
from engine.models.wordlevel.model import WordLevel
from engine.models.wordlevel.trainer import WordLevelTrainer


CORPORA = ["shakespeare.txt", "botchan.txt"]


class BpeOptions(TypedDict, total=False):
    """BpeTrainer options, each the same for HF's trainer and ours."""

    vocab_size: int
    min_frequency: int
    special_tokens: list[str]
    limit_alphabet: int
    initial_alphabet: list[str]
    max_token_length: int


class WordLevelOptions(TypedDict):
    vocab_size: int
    min_frequency: int
    special_tokens: list[str]


def hf_model(tokenizer: tokenizers.Tokenizer) -> dict[str, Any]:
    model: dict[str, Any] = json.loads(tokenizer.to_str())["model"]
    return model


def hf_bpe(
    files: list[str],
    pre_tokenizer: tokenizers.pre_tokenizers.PreTokenizer,
    normalizer: tokenizers.normalizers.Normalizer | None = None,
    unk: str | None = None,
    **options: Unpack[BpeOptions],
) -> dict[str, Any]:
    tokenizer = tokenizers.Tokenizer(tokenizers.models.BPE(unk_token=unk))
    tokenizer.pre_tokenizer = pre_tokenizer
    if normalizer is not None:
        tokenizer.normalizer = normalizer
    tokenizer.train(files, tokenizers.trainers.BpeTrainer(show_progress=False, **options))
    return hf_model(tokenizer)


def our_bpe(
    files: list[str],
    pre_tokenizer: PreTokenizer,
    normalizer: Normalizer | None = None,
    unk: str | None = None,
    **options: Unpack[BpeOptions],
) -> dict[str, Any]:
    counts = counting.count_words(files, PipelineWords(normalizer, pre_tokenizer), SilentProgress())
    model = BPE(unk_token=unk)
    BpeTrainer(show_progress=False, **options).train(counts, model, SilentProgress())
    return {"merges": [list(pair) for pair in json.loads(json.dumps(model.to_dict()["merges"]))], "vocab": model.get_vocab()}


def assert_same(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    our_merges = [list(pair) for pair in ours["merges"]]
    their_merges = [list(pair) for pair in theirs["merges"]]
    if our_merges != their_merges:
        first = next(i for i, (a, b) in enumerate(zip(our_merges + [None], their_merges + [None])) if a != b)
        pytest.fail(f"merges differ from merge {first}: ours {our_merges[first:first + 3]}, HF {their_merges[first:first + 3]}")
    assert ours["vocab"] == theirs["vocab"]


@pytest.mark.slow
@pytest.mark.parametrize("name", CORPORA)
@pytest.mark.parametrize("vocab_size", [5000, 30000])
def test_whitespace_bpe(corpora: Path, name: str, vocab_size: int) -> None:
    files = [str(corpora / name)]
    options: BpeOptions = {"vocab_size": vocab_size, "special_tokens": ["[UNK]", "[PAD]"]}
    theirs = hf_bpe(files, tokenizers.pre_tokenizers.Whitespace(), unk="[UNK]", **options)
    ours = our_bpe(files, Whitespace(), unk="[UNK]", **options)
    assert_same(ours, theirs)


@pytest.mark.slow
@pytest.mark.parametrize("name", CORPORA)
@pytest.mark.parametrize("vocab_size", [1000, 32000])
def test_byte_level_bpe(corpora: Path, name: str, vocab_size: int) -> None:
    files = [str(corpora / name)]
    theirs = hf_bpe(
        files,
        tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False),
        vocab_size=vocab_size,
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(),
    )
    ours = our_bpe(files, ByteLevel(add_prefix_space=False), vocab_size=vocab_size, initial_alphabet=ByteLevel.alphabet())
    assert_same(ours, theirs)


@pytest.mark.slow
def test_lowercase_bert_words_with_min_frequency(corpora: Path) -> None:
    files = [str(corpora / "botchan.txt")]
    options: BpeOptions = {"vocab_size": 8000, "min_frequency": 3, "special_tokens": ["[UNK]"]}
    theirs = hf_bpe(files, tokenizers.pre_tokenizers.BertPreTokenizer(), tokenizers.normalizers.Lowercase(), unk="[UNK]", **options)
    ours = our_bpe(files, BertPreTokenizer(), Lowercase(), unk="[UNK]", **options)
    assert_same(ours, theirs)
    assert len(ours["vocab"]) < 8000  # stopped by min_frequency


@pytest.mark.slow
def test_max_token_length(corpora: Path) -> None:
    files = [str(corpora / "shakespeare.txt")]
    options: BpeOptions = {"vocab_size": 6000, "max_token_length": 4}
    theirs = hf_bpe(files, tokenizers.pre_tokenizers.Whitespace(), **options)
    ours = our_bpe(files, Whitespace(), **options)
    assert_same(ours, theirs)


@pytest.mark.slow
def test_limit_alphabet(corpora: Path) -> None:
    files = [str(corpora / "shakespeare.txt")]
    counts = counting.count_words(files, PipelineWords(None, Whitespace()), SilentProgress())
    frequency: dict[str, int] = {}
    for word, count in counts.items():
        for ch in word:
            frequency[ch] = frequency.get(ch, 0) + count
    ranked = sorted(frequency.values(), reverse=True)
    # HF breaks ties among equally rare chars in hash order: cut where there is no tie.
    limit = next(n for n in range(40, len(ranked)) if ranked[n - 1] != ranked[n])
    options: BpeOptions = {"vocab_size": 3000, "limit_alphabet": limit}
    theirs = hf_bpe(files, tokenizers.pre_tokenizers.Whitespace(), **options)
    ours = our_bpe(files, Whitespace(), **options)
    assert_same(ours, theirs)
    assert len([token for token in ours["vocab"] if len(token) == 1]) == limit


@pytest.mark.slow
def test_train_from_iterator(corpora: Path) -> None:
    lines = (corpora / "botchan.txt").read_text(encoding="utf-8").splitlines()
    tokenizer = tokenizers.Tokenizer(tokenizers.models.BPE())
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tokenizer.train_from_iterator(lines, tokenizers.trainers.BpeTrainer(vocab_size=3000, show_progress=False), length=len(lines))
    counts = counting.count_words_from_iterator(iter(lines), PipelineWords(None, Whitespace()), SilentProgress(), len(lines))
    model = BPE()
    BpeTrainer(vocab_size=3000).train(counts, model, SilentProgress())
    assert_same({"merges": model.to_dict()["merges"], "vocab": model.get_vocab()}, hf_model(tokenizer))


@pytest.mark.slow
@pytest.mark.parametrize("name", CORPORA)
@pytest.mark.parametrize("kind", ["whitespace", "byte-level"])
def test_word_counts_through_word_level_training(corpora: Path, name: str, kind: str) -> None:
    # WordLevel keeps every word (vocab_size is huge) ordered by count, then by word: equal vocabs
    # mean the same set of words in the same count order.
    files = [str(corpora / name)]
    tokenizer = tokenizers.Tokenizer(tokenizers.models.WordLevel(unk_token="[UNK]"))
    if kind == "whitespace":
        tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
        ours_pre: PreTokenizer = Whitespace()
    else:
        tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
        ours_pre = ByteLevel(add_prefix_space=False)
    tokenizer.train(files, tokenizers.trainers.WordLevelTrainer(vocab_size=10**7, show_progress=False))
    counts = counting.count_words(files, PipelineWords(None, ours_pre), SilentProgress())
    model = WordLevel(unk_token="[UNK]")
    WordLevelTrainer(vocab_size=10**7).train(counts, model, SilentProgress())
    assert model.get_vocab() == hf_model(tokenizer)["vocab"]


@pytest.mark.slow
def test_word_level_with_special_tokens_and_min_frequency(corpora: Path) -> None:
    files = [str(corpora / "shakespeare.txt")]
    tokenizer = tokenizers.Tokenizer(tokenizers.models.WordLevel(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    options: WordLevelOptions = {"vocab_size": 2000, "min_frequency": 2, "special_tokens": ["[UNK]", "[PAD]"]}
    tokenizer.train(files, tokenizers.trainers.WordLevelTrainer(show_progress=False, **options))
    counts = counting.count_words(files, PipelineWords(None, Whitespace()), SilentProgress())
    model = WordLevel(unk_token="[UNK]")
    WordLevelTrainer(**options).train(counts, model, SilentProgress())
    assert model.get_vocab() == hf_model(tokenizer)["vocab"]


@pytest.mark.parametrize("limit_alphabet", [None, 40])
def test_a_vocabulary_below_the_alphabet_comes_out_as_large_as_it_needs(corpora: Path, limit_alphabet: int | None) -> None:
    # HF keeps the whole alphabet and returns more tokens than asked for; so does the engine's
    # trainer, and its run's alphabet_need counts exactly those tokens (the workbench refuses them)
    files = [str(corpora / "botchan.txt")]
    options: BpeOptions = {"vocab_size": 10, "special_tokens": ["[UNK]", "[PAD]"]}
    if limit_alphabet is not None:
        options["limit_alphabet"] = limit_alphabet
    theirs = hf_bpe(files, tokenizers.pre_tokenizers.Whitespace(), unk="[UNK]", **options)
    ours = our_bpe(files, Whitespace(), unk="[UNK]", **options)
    assert_same(ours, theirs)
    counts = counting.count_words(files, PipelineWords(None, Whitespace()), SilentProgress())
    need = BpeTrainer(**options).start(counts).alphabet_need()
    assert need.required == len(theirs["vocab"]) > 10 and theirs["merges"] == []
    assert need.special == 2 and need.forms == 0
    if limit_alphabet is not None:
        assert need.characters == limit_alphabet and need.hint == "lower limit_alphabet"
