"""The training process: trains through the real child process exactly as the engine does in
process, streams progress and steps, cancels, and reports a killed or failing child."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from pytestqt.qtbot import QtBot
from window_support import TRAINING_TIMEOUT_MS

from engine import Tokenizer
from engine.analysis.size_curve import held_out_words, round_point, rounds_curve
from engine.analysis.token_counts import EXAMPLES_PER_TOKEN
from engine.analysis.vocabulary import token_examples, token_frequencies
from engine.corpus.units import FileSlice
from engine.models.unigram.training_run import UnigramTrainingRun
from engine.progress import TrainProgress
from engine.project.result import _expanded_history, bounded_examples, vocabulary_from_dict
from engine.trainers.records import MergeStep, TrainHistory
from workbench.core import presets
from workbench.core.held_out import characters_per_token, held_out_split
from workbench.jobs.children.training import STAGE_BUILD, STAGE_FINISH, TrainingJob, TrainingResult
from workbench.jobs.runners.training import TrainingRunner


def job_for(path: Path, key: str = "bpe", vocab_size: int = 700, held_out: float = 0.0) -> TrainingJob:
    tokenizer, trainer = presets.build(key, vocab_size)
    return TrainingJob(tokenizer.to_str(), trainer.to_dict(), [str(path)], held_out, 1)


def test_the_child_trains_exactly_like_the_engine_in_process(qtbot: QtBot, small_corpus: Path) -> None:
    runner = TrainingRunner()
    progress: list[TrainProgress] = []
    steps: list[MergeStep] = []
    runner.progressed.connect(progress.append)
    runner.stepped.connect(steps.extend)
    with qtbot.waitSignal(runner.finished, timeout=TRAINING_TIMEOUT_MS) as blocker:
        runner.start(job_for(small_corpus, "gpt2"))
    qtbot.waitUntil(runner.is_idle, timeout=20_000)
    result = blocker.args[0]
    assert isinstance(result, TrainingResult)
    expected, trainer = presets.build("gpt2", 700)
    report = expected.train([str(small_corpus)], trainer, processes=1)
    assert json.loads(result.tokenizer_json) == json.loads(expected.to_str())
    assert result.report.history == report.history
    assert steps == report.history.merges  # every step streamed, in order
    stages = [event.stage for event in progress]
    assert stages[0] == "Pre-processing files" and "Compute merges" in stages
    final = [event for event in progress if event.stage == "Compute merges"][-1]
    assert final.current == final.total == len(report.history)
    # what the vocabulary view shows, made in the child once: the engine's own answers
    counts = expected.count_words([str(small_corpus)])
    frequencies, examples = vocabulary_from_dict(json.loads(result.vocabulary_part.content), "vocabulary")
    assert frequencies == token_frequencies(expected, counts)
    assert examples == bounded_examples(token_examples(expected, counts, EXAMPLES_PER_TOKEN))
    assert TrainHistory.from_dict(_expanded_history(json.loads(result.history_part.content))) == report.history
    # packed in the child: saving the project deflates nothing again
    assert all(part.packed is not None for part in (result.tokenizer_part, result.history_part, result.vocabulary_part))
    # every stage after the last merge is named while it runs
    finish = [event.detail for event in progress if event.stage == STAGE_FINISH]
    assert finish == ["making the vocabulary table", "packing the result", "sending the result"]
    build = [event.detail for event in progress if event.stage == STAGE_BUILD]
    assert build == ["filling the model", "measuring the held-out text", "built"]
    order = list(dict.fromkeys(stages))
    assert order[order.index("Compute merges") :] == ["Compute merges", STAGE_BUILD, "Count tokens", STAGE_FINISH]
    # the time reported is the time waited, from the start of the process to the result
    assert result.report.seconds >= report.seconds


def test_the_held_out_text_is_not_trained_on_and_is_measured(qtbot: QtBot, small_corpus: Path) -> None:
    runner = TrainingRunner()
    evaluations: list[tuple[int, float]] = []
    runner.evaluated.connect(lambda done, value: evaluations.append((done, value)))
    with qtbot.waitSignal(runner.finished, timeout=TRAINING_TIMEOUT_MS) as blocker:
        runner.start(job_for(small_corpus, held_out=0.05))
    qtbot.waitUntil(runner.is_idle, timeout=20_000)
    result = blocker.args[0]
    assert isinstance(result, TrainingResult)
    slices, held_out = held_out_split([str(small_corpus)], 0.05)
    assert result.held_out_bytes == len(held_out.encode("utf-8")) > 0
    assert slices == [FileSlice(str(small_corpus), 0, small_corpus.stat().st_size - result.held_out_bytes)]
    tokenizer, trainer = presets.build("bpe", 700)
    report = tokenizer.train(slices, trainer, processes=1)
    assert result.report.history == report.history
    assert evaluations == result.evaluations and len(evaluations) >= 2
    assert evaluations[-1][1] > evaluations[0][1]  # merges compress the held-out text
    assert evaluations[-1][0] == len(report.history)


def test_a_unigram_run_s_rounds_are_measured_uncut_on_the_held_out_lines(qtbot: QtBot, small_corpus: Path) -> None:
    """The seed, every round that changed the size and the last: each point is what the
    tokenizer of that round gives on the held-out lines, as the same training stepped here
    measures it; the last is the trained tokenizer's."""
    runner = TrainingRunner()
    with qtbot.waitSignal(runner.finished, timeout=TRAINING_TIMEOUT_MS) as blocker:
        runner.start(job_for(small_corpus, "sentencepiece-unigram", 400, held_out=0.05))
    qtbot.waitUntil(runner.is_idle, timeout=20_000)
    result = blocker.args[0]
    assert isinstance(result, TrainingResult)
    rounds = result.report.history.rounds
    points = result.round_points
    resized = [step.index for step in rounds if step.removed > 0 or step.phase in ("seed", "finalize")]
    assert [index for index, _, _, _ in points] == resized
    assert resized[0] == 0 and resized[-1] == rounds[-1].index == len(rounds) - 1 and len(resized) < len(rounds)

    slices, held_out = held_out_split([str(small_corpus)], 0.05)
    tokenizer, trainer = presets.build("sentencepiece-unigram", 400)
    run = trainer.start(tokenizer.count_words(slices, sentences=True))  # (sentencepiece's trainer reads lines)
    assert isinstance(run, UnigramTrainingRun)
    measured = {index: (size, tokens, characters) for index, size, tokens, characters in points}
    words: dict[str, int] = {}
    while (step := run.step()) is not None:
        if step.index == 0:
            tokenizer.apply_training(trainer, run)
            words, characters = held_out_words(tokenizer, held_out.splitlines())
        size, tokens = round_point(tokenizer, run, words)
        if step.index in measured:  # (the others kept their size)
            assert measured[step.index] == (size, tokens, characters)
    trained = Tokenizer.from_str(result.tokenizer_json)
    lines = [line for line in held_out.split("\n") if line.strip()]
    size, tokens, characters = measured[rounds[-1].index]
    assert size == trained.get_vocab_size(True) == 400
    assert characters / tokens == characters_per_token(trained, lines) == result.evaluations[-1][1]
    curve = rounds_curve(rounds, points)
    assert curve is not None and curve.sizes[curve.trained_index] == 400 and curve.sizes[-1] == points[0][1]


def test_cancel_stops_the_child_and_sends_cancelled(qtbot: QtBot, corpora: Path) -> None:
    runner = TrainingRunner()
    with qtbot.waitSignal(runner.progressed, timeout=TRAINING_TIMEOUT_MS):
        runner.start(job_for(corpora / "shakespeare.txt", vocab_size=30_000))
    with qtbot.waitSignal(runner.cancelled, timeout=30_000):
        runner.cancel()
    qtbot.waitUntil(runner.is_idle, timeout=20_000)
    assert not runner.is_running()


def test_a_killed_child_is_reported(qtbot: QtBot, corpora: Path) -> None:
    runner = TrainingRunner()
    with qtbot.waitSignal(runner.progressed, timeout=TRAINING_TIMEOUT_MS):
        runner.start(job_for(corpora / "shakespeare.txt", vocab_size=30_000))
    pid = runner.pid
    assert pid is not None
    with qtbot.waitSignal(runner.failed, timeout=30_000) as blocker:
        os.kill(pid, signal.SIGKILL)
    qtbot.waitUntil(runner.is_idle, timeout=20_000)
    message = str(blocker.args[0])
    assert "stopped unexpectedly: killed (SIGKILL) by another program, or by the system when it ran out of memory" in message
    assert "it was using" in message and "the project is unchanged" in message


def test_a_bad_corpus_file_fails_with_its_name(qtbot: QtBot, tmp_path: Path) -> None:
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("caf\xe9 au lait\n".encode("latin-1"))
    runner = TrainingRunner()
    with qtbot.waitSignal(runner.failed, timeout=TRAINING_TIMEOUT_MS) as blocker:
        runner.start(job_for(bad))
    qtbot.waitUntil(runner.is_idle, timeout=20_000)
    assert str(bad) in str(blocker.args[0]) and "UTF-8" in str(blocker.args[0])


def test_a_new_job_cancels_the_running_one(qtbot: QtBot, corpora: Path, small_corpus: Path) -> None:
    runner = TrainingRunner()
    with qtbot.waitSignal(runner.progressed, timeout=TRAINING_TIMEOUT_MS):
        runner.start(job_for(corpora / "shakespeare.txt", vocab_size=30_000))
    with qtbot.waitSignal(runner.finished, timeout=TRAINING_TIMEOUT_MS) as blocker:
        runner.start(job_for(small_corpus, vocab_size=300))
    qtbot.waitUntil(runner.is_idle, timeout=20_000)
    result = blocker.args[0]
    assert isinstance(result, TrainingResult)
    assert Tokenizer.from_str(result.tokenizer_json).get_vocab_size() == 300
