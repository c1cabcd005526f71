"""The workbench counts what the trainer reads: whole normalized lines for sentencepiece's trainer
(the sentencepiece presets), words for the others, in the training process, Step by Step and the
estimate; kept line counts are never handed to a word trainer (their key says so); the trainer's
input_sentence_size is the training's sample (the Sample field shows it, disabled)."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot
from window_support import SAMPLE, step_and_wait, train_and_wait

from engine import Tokenizer
from engine.corpus.checks import check_file
from engine.corpus.sources import source_of
from engine.corpus.word_counts import read_counts
from engine.project.facts import CorpusFile
from engine.schema import JsonValue
from workbench.core import presets
from workbench.core.step_session import count_typed
from workbench.core.trainer_counting import counts_sentences, keeps_counts, sample_lines_for, trainer_sample_lines
from workbench.core.word_count_cache import counts_key
from workbench.jobs.children.estimate import estimate_payload
from workbench.jobs.children.stepping import count_source, step_payload
from workbench.jobs.children.training import TrainingJob, train
from workbench.jobs.runners.training_plans import plan_training
from workbench.window.main_window import MainWindow
from workbench.window.tabs.training_page import SAMPLE_HINT

# A line of the corpus as sentencepiece's trainer reads it: normalized by nmt_nfkc, "▁" for spaces.
QUESTION = "▁To▁be,▁or▁not▁to▁be:▁that▁is▁the▁question."
HAMLET = [
    "To be, or not to be: that is the question.",
    "Whether 'tis nobler in the mind to suffer",
    "The slings and arrows of outrageous fortune,",
    "Or to take arms against a sea of troubles",
]


class Messages:
    """Stands in for the pipe to the window."""

    def send(self, message: tuple[object, ...]) -> None:
        pass


def hamlet(folder: Path) -> Path:
    """The first 1,500 lines of the shipped sample, and Hamlet's four lines three times."""
    path = folder / "hamlet.txt"
    lines = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)[:1500]
    path.write_text("".join(lines) + "\n".join(HAMLET * 3) + "\n", encoding="utf-8")
    return path


def sentencepiece_trainer(model_type: str, **options: JsonValue) -> dict[str, JsonValue]:
    settings: dict[str, JsonValue] = {"type": "SentencePieceTrainer", "model_type": model_type, "vocab_size": 300}
    settings.update(options)
    return settings


def test_what_a_trainers_settings_ask_of_the_counting() -> None:
    assert counts_sentences({"type": "SentencePieceTrainer", "model_type": "bpe"})
    assert counts_sentences({"type": "SentencePieceTrainer", "model_type": "unigram"})
    assert not counts_sentences({"type": "BpeTrainer"}) and not counts_sentences({"type": "UnigramTrainer"})
    assert not counts_sentences(None) and not counts_sentences({})  # (no trainer: nothing counts lines)
    assert not counts_sentences({"type": "SentencePieceTrainer", "model_type": "wordpiece"})  # (cannot train)
    assert trainer_sample_lines({"type": "SentencePieceTrainer", "input_sentence_size": 500}) == 500
    assert trainer_sample_lines({"type": "SentencePieceTrainer"}) == 0
    assert trainer_sample_lines({"type": "BpeTrainer", "input_sentence_size": 500}) == 0
    assert sample_lines_for({"type": "SentencePieceTrainer", "input_sentence_size": 500}, 200) == 500  # the trainer's wins
    assert sample_lines_for({"type": "SentencePieceTrainer", "input_sentence_size": 0}, 200) == 200
    assert sample_lines_for({"type": "BpeTrainer"}, 200) == 200
    assert [keeps_counts({"type": kind}) for kind in ("BpeTrainer", "SentencePieceTrainer", "UnigramTrainer", "WordPieceTrainer")] == [
        True, True, False, False,
    ]  # fmt: skip


def test_line_counts_have_a_key_of_their_own_and_word_counts_keep_theirs() -> None:
    corpus = [CorpusFile("/c/a.txt", 10, 1, "ab")]
    pipeline: dict[str, JsonValue] = {"normalizer": None}
    words = counts_key(corpus, {}, pipeline, 0.01)
    lines = counts_key(corpus, {}, pipeline, 0.01, sentences=True)
    # (the key every project saved before kept: its word counts stay valid)
    old = hashlib.sha256(json.dumps([[[10, "ab"]], pipeline, 0.01], sort_keys=True).encode()).hexdigest()
    assert words == old and lines != words and len(lines) == 64


@pytest.mark.parametrize(("key", "size"), [("sentencepiece-unigram", 400), ("sentencepiece-bpe", 400)])
def test_a_sentencepiece_training_counts_and_keeps_whole_lines(tmp_path: Path, key: str, size: int) -> None:
    corpus = hamlet(tmp_path)
    tokenizer, trainer = presets.build(key, size)
    kept = tmp_path / "counts.tsv"
    job = TrainingJob(tokenizer.to_str(), trainer.to_dict(), [str(corpus)], 0.0, 1, counts_out=str(kept))
    result = train(job, Messages(), multiprocessing.Event())
    counts = read_counts(str(kept))
    assert counts == tokenizer.count_words([str(corpus)], processes=1, sentences=True)
    assert counts[QUESTION] == 3 and counts["▁First▁Citizen:"] > 1 and "▁To" not in counts and "▁be," not in counts
    assert result.counts_file == str(kept) and result.report.unique_words == len(counts)
    # the tokenizer the engine trains itself (it counts the lines for this trainer too)
    expected, expected_trainer = presets.build(key, size)
    expected.train([str(corpus)], expected_trainer, processes=1)
    assert Tokenizer.from_str(result.tokenizer_json).get_vocab() == expected.get_vocab()


@pytest.mark.parametrize(("key", "word"), [("bpe", "slings"), ("hf-sentencepiece-unigram", "▁slings")])
def test_other_trainings_still_count_words(tmp_path: Path, key: str, word: str) -> None:
    corpus = hamlet(tmp_path)
    tokenizer, trainer = presets.build(key, 400)
    kept = tmp_path / "counts.tsv"
    job = TrainingJob(tokenizer.to_str(), trainer.to_dict(), [str(corpus)], 0.0, 1, counts_out=str(kept) if key == "bpe" else "")
    result = train(job, Messages(), multiprocessing.Event())
    words = tokenizer.count_words([str(corpus)], processes=1)
    lines = tokenizer.count_words([str(corpus)], processes=1, sentences=True)
    assert words[word] == 3 and result.report.unique_words == len(words) != len(lines)
    if key == "bpe":
        assert read_counts(str(kept)) == words and not any(" " in line for line in words)


def test_step_by_step_counts_lines_for_sentencepiece_typed_or_in_a_file(tmp_path: Path) -> None:
    corpus = hamlet(tmp_path)
    tokenizer, trainer = presets.build("sentencepiece-unigram", 300)
    pipeline = presets.pipeline_json(tokenizer)
    text = "\n".join(HAMLET)
    assert count_typed(pipeline, text, sentences=True) == {
        QUESTION: 1,
        "▁Whether▁'tis▁nobler▁in▁the▁mind▁to▁suffer": 1,
        "▁The▁slings▁and▁arrows▁of▁outrageous▁fortune,": 1,
        "▁Or▁to▁take▁arms▁against▁a▁sea▁of▁troubles": 1,
    }
    assert count_typed(pipeline, text)["▁to"] == 3  # (words, for a word trainer)
    # a file: counted in the Step by Step process, with the trainer's unit
    configuration = (pipeline, trainer.to_dict())
    word_trainer = presets.build("bpe", 300)[1].to_dict()
    for settings, sentences in ((trainer.to_dict(), True), (word_trainer, False)):
        counts, sample, from_file = count_source(step_payload((pipeline, settings), source_of(str(corpus)), ""))
        assert from_file and sample.startswith("First Citizen:")
        assert counts == tokenizer.count_words([str(corpus)], processes=1, sentences=sentences)
        assert (QUESTION in counts) is sentences
    # a typed text: the same counting as count_typed
    assert count_source(step_payload(configuration, None, text)) == (count_typed(pipeline, text, sentences=True), text, False)


def project_with(window: MainWindow, files: list[Path], key: str, vocab_size: int) -> None:
    window.new_project()
    window.document.add_checked_files([check_file(str(path)) for path in files])
    window.document.add_preset(key, vocab_size=vocab_size)


def test_the_step_panel_counts_a_files_lines_for_sentencepiece(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    corpus = hamlet(tmp_path)
    project_with(window, [corpus], "sentencepiece-bpe", 300)
    panel = window.train_tab.step_panel
    qtbot.waitUntil(lambda: panel.source.count() == 2, timeout=5_000)
    panel.source.setCurrentIndex(1)
    panel.start()
    step_and_wait(qtbot, panel)
    started = panel.started
    assert started is not None and started.from_file and started.units == "lines"
    tokenizer, _ = presets.build("sentencepiece-bpe", 300)
    lines = tokenizer.count_words([str(corpus)], processes=1, sentences=True)
    assert lines[QUESTION] == 3
    assert (started.distinct, started.total) == (len(lines), sum(lines.values()))
    assert f"{len(lines):,} distinct lines" in panel.status.text()


def test_the_trainers_input_sentence_size_is_the_sample_and_the_field_shows_it(
    qtbot: QtBot, window: MainWindow, small_corpus: Path
) -> None:
    project_with(window, [small_corpus], "sentencepiece-unigram", 500)
    tab = window.train_tab
    tab.held_out.setValue(0.0)
    tab.sample_lines.setValue(300)  # (the user's own sample, given back below)
    entry = window.document.active
    assert entry is not None and entry.trainer is not None
    pipeline, trainer = entry.pipeline, dict(entry.trainer)
    trainer["input_sentence_size"] = 800
    window.document.set_configuration(pipeline, trainer)
    tab.blocked_reason()  # (the tab shows the settings now)
    assert not tab.sample_lines.isEnabled() and tab.sample_lines.value() == 800
    assert "input_sentence_size" in tab.sample_lines.toolTip() and "800" in tab.sample_lines.toolTip()
    assert not tab.processes.isEnabled()  # (a sample is counted in one process)
    train_and_wait(qtbot, window)
    assert entry.report is not None and (entry.report.sampled_lines, entry.report.read_lines) == (800, 2000)
    assert not entry.counts_file and "sampled 800 of 2,000 lines" in tab.continue_reason()
    direct, direct_trainer = presets.build("sentencepiece-unigram", 500)
    direct.train([str(small_corpus)], direct_trainer, processes=1, sample_lines=800)
    assert Tokenizer.from_str(entry.trained_json or "").get_vocab() == direct.get_vocab()
    # the trainer samples no more: the field is the user's again
    trainer["input_sentence_size"] = 0
    window.document.set_configuration(pipeline, trainer)
    tab.blocked_reason()
    assert tab.sample_lines.isEnabled() and tab.sample_lines.value() == 300 and tab.sample_lines.toolTip() == SAMPLE_HINT
    # the estimate is made for the sample the training takes
    payload = estimate_payload("{}", sentencepiece_trainer("bpe", input_sentence_size=1000), [], {}, 1, 0)
    assert payload["sample_lines"] == 1000


def test_line_counts_and_word_counts_of_one_pipeline_are_kept_apart(window: MainWindow, small_corpus: Path) -> None:
    project_with(window, [small_corpus], "sentencepiece-bpe", 400)
    entry = window.document.active
    assert entry is not None and entry.trainer is not None
    project = window.document.project
    # the same pipeline trained by sentencepiece's trainer (lines) and by HF's BPE trainer (words)
    lines = plan_training(project, {}, None, entry, (entry.pipeline, entry.trainer), 0.01, 1, 0)
    words = plan_training(project, {}, None, entry, (entry.pipeline, presets.build("bpe", 400)[1].to_dict()), 0.01, 1, 0)
    assert lines.job.counts_out and words.job.counts_out and lines.job.counts_out != words.job.counts_out
    assert lines.counts_key == counts_key(project.corpus, {}, entry.pipeline, 0.01, sentences=True)
    assert words.counts_key == counts_key(project.corpus, {}, entry.pipeline, 0.01)  # (the key word counts always had)


def test_a_trainer_that_keeps_no_counts_says_which_can_be_continued(qtbot: QtBot, window: MainWindow, small_corpus: Path) -> None:
    project_with(window, [small_corpus], "hf-sentencepiece-unigram", 400)
    tab = window.train_tab
    train_and_wait(qtbot, window)
    entry = window.document.active
    assert entry is not None and entry.is_trained and not entry.counts_file
    assert tab.continue_reason() == "Only BPE and SentencePiece trainings can be continued."
    assert not tab.continue_box.isVisibleTo(tab)
