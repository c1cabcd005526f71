"""`train --trainer-option NAME=VALUE`: the preset trainer's own options from the command line
(sentencepiece's for the sentencepiece presets), one line naming the option for a bad one; and
`count`/`train` count whole lines for the sentencepiece presets, as their trainer reads them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_support import assert_one_line_error, run_cli
from engine import Tokenizer, trainers
from engine.corpus.word_counts import read_counts
from support import ROOT
from workbench.core import presets

SAMPLE = ROOT / "resources" / "sample" / "shakespeare.txt"


def numbers_corpus(folder: Path) -> Path:
    """2,000 lines of the shipped sample, then 300 lines full of numbers (1500-1539, 0-96, 2024)."""
    lines = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)[:2000]
    numbers = [f"In {1500 + i % 40} the page was {i % 97} of 2024.\n" for i in range(300)]
    path = folder / "numbers.txt"
    path.write_text("".join(lines + numbers), encoding="utf-8")
    return path


def pieces(path: Path) -> list[str]:
    vocab = json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]
    return [item[0] for item in vocab]


def digits(piece: str) -> int:
    return sum(1 for c in piece if c.isdigit())


def test_sentencepiece_options_reach_its_trainer(tmp_path: Path) -> None:
    corpus = numbers_corpus(tmp_path)
    plain = tmp_path / "plain.json"
    result = run_cli("train", "--preset", "sentencepiece-unigram", "--vocab-size", "600", "-q", "-o", str(plain), str(corpus))
    assert result.returncode == 0, result.stderr
    assert any(digits(piece) > 1 for piece in pieces(plain))  # ("▁20", "24", "▁151"...)
    out = tmp_path / "split.json"
    result = run_cli(
        "train", "--preset", "sentencepiece-unigram", "--vocab-size", "600", "-q", "-o", str(out),
        "--trainer-option", "character_coverage=0.98", "--trainer-option", "split_digits=true", str(corpus),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "unique lines" in result.stderr  # (sentencepiece's trainer reads whole lines)
    found = pieces(out)
    assert len(found) == 600 and any(digits(piece) == 1 for piece in found)
    assert not any(digits(piece) > 1 for piece in found)
    # exactly the engine's training with those options
    tokenizer, trainer = presets.build("sentencepiece-unigram", 600)
    settings = trainer.to_dict()
    settings.update({"character_coverage": 0.98, "split_digits": True, "show_progress": False})
    tokenizer.train([str(corpus)], trainers.from_dict(settings), processes=1)
    assert found == list(Tokenizer.from_str(tokenizer.to_str()).get_vocab())


@pytest.mark.parametrize(
    ("option", "fragments"),
    [
        ("character_covrage=0.9", ["--trainer-option character_covrage: SentencePieceTrainer has no option", "character_coverage"]),
        ("character_coverage=2", ["--trainer-option character_coverage=2: character_coverage must be in [0, 1]"]),
        ("split_digits=maybe", ["--trainer-option split_digits=maybe:", "'split_digits' must be true or false"]),
        ("split_digits", ["--trainer-option 'split_digits': give NAME=VALUE"]),
        ("vocab_size=9", ["--trainer-option vocab_size: the vocabulary size is --vocab-size"]),
        ("type=BpeTrainer", ["--trainer-option type: the preset chooses the trainer"]),
        ("model_type=bpe", ["--trainer-option model_type=bpe:", "can only train a BPE model, not Unigram"]),
        ("model_type=wordpiece", ["--trainer-option model_type=wordpiece: model_type must be one of unigram, bpe"]),
    ],
)
def test_a_bad_trainer_option_is_one_line_naming_it(tmp_path: Path, option: str, fragments: list[str]) -> None:
    corpus = tmp_path / "text.txt"
    corpus.write_text("a few words\n", encoding="utf-8")
    out = tmp_path / "t.json"
    result = run_cli("train", "--preset", "sentencepiece-unigram", "--vocab-size", "50", "-q", "-o", str(out), "--trainer-option", option, str(corpus))
    assert_one_line_error(result, *fragments)
    assert not out.exists()


def test_another_presets_trainer_has_its_own_options(tmp_path: Path) -> None:
    corpus = tmp_path / "text.txt"
    corpus.write_text("a few words of text\n" * 20, encoding="utf-8")
    out = tmp_path / "t.json"
    result = run_cli("train", "--preset", "bpe", "--vocab-size", "50", "-q", "-o", str(out), "--trainer-option", "character_coverage=0.9", str(corpus))
    assert_one_line_error(result, "--trainer-option character_coverage: BpeTrainer has no option", "limit_alphabet")
    result = run_cli(
        "train", "--preset", "bpe", "--vocab-size", "30", "-q", "-o", str(out),
        "--trainer-option", "initial_alphabet=[\"z\", \"q\"]", str(corpus),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert {"z", "q"} <= set(json.loads(out.read_text(encoding="utf-8"))["model"]["vocab"])  # (not in the text)


def test_a_vocabulary_below_the_alphabet_names_character_coverage(tmp_path: Path) -> None:
    corpus = ROOT / "resources" / "sample" / "wagahaiwa_nekodearu.txt"  # (1,275 distinct characters)
    out = tmp_path / "t.json"
    result = run_cli("train", "--preset", "sentencepiece-unigram", "--vocab-size", "1000", "-q", "-o", str(out), str(corpus))
    assert_one_line_error(result, "--vocab-size 1,000 is smaller than the ", ", or lower character_coverage (--trainer-option)")
    # that way out: fewer characters kept, and the vocabulary trains
    result = run_cli(
        "train", "--preset", "sentencepiece-unigram", "--vocab-size", "1000", "-q", "-o", str(out),
        "--trainer-option", "character_coverage=0.9", str(corpus),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert len(pieces(out)) == 1000


def test_input_sentence_size_is_the_trainers_option_too(tmp_path: Path) -> None:
    corpus = numbers_corpus(tmp_path)
    by_option, by_flag = tmp_path / "option.json", tmp_path / "flag.json"
    common = ["train", "--preset", "sentencepiece-bpe", "--vocab-size", "400", "-q"]
    result = run_cli(*common, "-o", str(by_option), "--trainer-option", "input_sentence_size=500", str(corpus))
    assert result.returncode == 0, result.stderr
    assert "sampled 500 of 2,300 lines" in result.stderr
    result = run_cli(*common, "-o", str(by_flag), "--input-sentence-size", "500", str(corpus))
    assert result.returncode == 0, result.stderr
    assert by_option.read_text(encoding="utf-8") == by_flag.read_text(encoding="utf-8")
    result = run_cli(*common, "-o", str(by_flag), "--force", "--input-sentence-size", "400", "--trainer-option", "input_sentence_size=500", str(corpus))
    assert_one_line_error(result, "--input-sentence-size 400 and --trainer-option input_sentence_size=500 disagree")
    table = tmp_path / "counts.tsv"
    table.write_text("▁a\t1\n", encoding="utf-8")
    result = run_cli(*common, "-o", str(tmp_path / "t.json"), "--trainer-option", "input_sentence_size=500", "--counts", str(table))
    assert_one_line_error(result, "--trainer-option input_sentence_size samples the lines of FILEs")


@pytest.mark.parametrize(("preset", "size"), [("sentencepiece-bpe", 600), ("sentencepiece-unigram", 600)])
def test_count_tables_a_sentencepiece_presets_lines_and_train_counts_trains_the_same(
    tmp_path: Path, preset: str, size: int
) -> None:
    table = tmp_path / "counts.tsv"
    result = run_cli("count", "--preset", preset, "-q", "-o", str(table), str(SAMPLE))
    assert result.returncode == 0, result.stderr
    tokenizer, _ = presets.build(preset)
    lines = tokenizer.count_words([str(SAMPLE)], processes=1, sentences=True)
    assert read_counts(str(table)) == lines and lines["▁First▁Citizen:"] > 1
    assert f"Counted {sum(lines.values()):,} lines ({len(lines):,} distinct)" in result.stderr
    from_table, from_files = tmp_path / "from_table.json", tmp_path / "from_files.json"
    result = run_cli("train", "--preset", preset, "--vocab-size", str(size), "-q", "--counts", str(table), "-o", str(from_table))
    assert result.returncode == 0, result.stderr
    result = run_cli("train", "--preset", preset, "--vocab-size", str(size), "-q", "-o", str(from_files), str(SAMPLE))
    assert result.returncode == 0, result.stderr
    assert from_table.read_text(encoding="utf-8") == from_files.read_text(encoding="utf-8")
