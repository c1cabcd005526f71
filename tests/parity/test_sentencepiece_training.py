"""SentencePieceTrainer against `sentencepiece`'s own trainer, on the same lines with the same
options: sentencepiece never makes a piece our rules refuse (so ours are no stricter), both keep
the same characters (character_coverage, max_sentence_length), most pieces are the same ones,
and a model trained with byte_fallback, written as `.model`, encodes every line identically.
benchmarks/bench_sentencepiece_presets.py measures the share of pieces in common at scale."""

from __future__ import annotations

from pathlib import Path

import pytest
import sentencepiece as spm

from engine import Tokenizer
from engine.formats import sentencepiece as spf
from engine.trainers.piece_rules import PieceRules
from support import corpus_path, train_sentencepiece_preset

VOCAB_SIZE = 1500
# sentencepiece's meta pieces, which the presets do not all have (<s>, </s>)
META = {"<unk>", "<s>", "</s>"}
NUMBERS = [f"Act {n}, scene {n % 7}: {n * 37} lines, 1{n}2 ducats and ４５ yen." for n in range(60)]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    english = corpus_path("shakespeare.txt").read_text(encoding="utf-8").splitlines()[:2500]
    japanese = corpus_path("wagahaiwa_nekodearu.txt").read_text(encoding="utf-8").splitlines()[:150]
    lines = [line for line in english + japanese + NUMBERS if line.strip()]
    path = tmp_path_factory.mktemp("corpus") / "mixed.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, lines


def _theirs(path: Path, folder: Path, model_type: str, **options: object) -> spm.SentencePieceProcessor:
    spm.SentencePieceTrainer.train(
        input=str(path), model_prefix=str(folder / "spm"), vocab_size=VOCAB_SIZE, model_type=model_type,
        minloglevel=2, num_threads=1, **options,  # type: ignore[arg-type]
    )  # fmt: skip
    return spm.SentencePieceProcessor(model_file=str(folder / "spm.model"))


def _pieces(processor: spm.SentencePieceProcessor) -> set[str]:
    return {processor.id_to_piece(i) for i in range(processor.get_piece_size())} - META


def _ours(path: Path, model_type: str, **options: object) -> Tokenizer:
    return train_sentencepiece_preset(path, model_type, VOCAB_SIZE, **options)


OPTION_SETS = [
    {},
    {"split_digits": True},
    {"split_by_number": False},
    {"split_by_unicode_script": False},
    {"max_sentencepiece_length": 6},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(o) or "defaults")
@pytest.mark.parametrize("model_type", ["unigram", "bpe"])
def test_sentencepiece_makes_no_piece_our_rules_refuse(
    model_type: str, options: dict[str, object], corpus: tuple[Path, list[str]], tmp_path: Path
) -> None:
    path, _ = corpus
    theirs = _pieces(_theirs(path, tmp_path, model_type, **options))
    rules = PieceRules(**options)  # type: ignore[arg-type]
    assert [piece for piece in sorted(theirs) if not rules.valid(piece)] == []
    ours = set(_ours(path, model_type, **options).get_vocab()) - META
    assert [piece for piece in sorted(ours) if not rules.valid(piece)] == []
    # the same characters kept (character_coverage): every one is a piece of its own
    assert {piece for piece in ours if len(piece) == 1} == {piece for piece in theirs if len(piece) == 1}
    # and nearly all pieces the same (98-99.9% here when this was written; the full corpora:
    # see the benchmark)
    common = len(ours & theirs) / len(theirs)
    assert common > 0.93, f"{common:.1%} of sentencepiece's pieces in common"


@pytest.mark.parametrize("coverage", [0.98, 0.9995, 1.0])
def test_both_keep_the_same_characters(coverage: float, corpus: tuple[Path, list[str]], tmp_path: Path) -> None:
    path, _ = corpus
    theirs = _pieces(_theirs(path, tmp_path, "unigram", character_coverage=coverage))
    ours = set(_ours(path, "unigram", character_coverage=coverage).get_vocab()) - META
    assert {p for p in ours if len(p) == 1} == {p for p in theirs if len(p) == 1}


@pytest.mark.parametrize("model_type", ["unigram", "bpe"])
def test_a_byte_fallback_model_encodes_every_line_as_sentencepiece_does(
    model_type: str, corpus: tuple[Path, list[str]], tmp_path: Path
) -> None:
    path, lines = corpus
    tokenizer = _ours(path, model_type, byte_fallback=True, character_coverage=0.995)
    out = tmp_path / "ours.model"
    spf.write(tokenizer, str(out))
    written = spm.SentencePieceProcessor(model_file=str(out))
    rare = ["ж and ☃ and 𝄞", "日本語の文章です。", "emoji 👩\u200d👩\u200d👧"]
    checked = lines[::7] + rare
    differ = [line for line in checked if written.encode(line) != tokenizer.encode(line, add_special_tokens=False).ids]
    # An exact score tie (the same pieces in another order, as a run of 55 "-" in a fresh
    # clone's stand-in corpus) may go the other way in sentencepiece's float32 sums: at most two.
    ties = [line for line in differ if sorted(written.encode(line)) == sorted(tokenizer.encode(line).ids)]
    assert [line for line in differ if line not in ties] == []
    assert len(ties) <= 2, ties
    assert "<0xE2>" in written.encode("☃", out_type=str)
