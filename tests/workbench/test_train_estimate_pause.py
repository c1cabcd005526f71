"""The Train tab before and during a training: the estimate beside the Train button, pause and
resume (the training process stopped by signal), cancel while paused, continuing a BPE or
SentencePiece run to a larger vocabulary from its kept counts, and the estimate vs actual costs in the history."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot
from window_support import SAMPLE, TRAINING_TIMEOUT_MS, train_and_wait

from engine import Tokenizer
from engine.corpus.checks import check_file
from engine.corpus.word_counts import read_counts
from engine.corpus.sources import source_of
from engine.progress import STAGE_COMPUTE_MERGES, TrainProgress
from engine.project.project_file import Project
from workbench.core import presets
from workbench.jobs.runners.training import CAN_PAUSE, _descendants
from workbench.window.main_window import MainWindow
from workbench.window.prompts import ScriptedPrompts
from workbench.window.views.stage_progress import StageProgress

ESTIMATE_TIMEOUT_MS = 30_000


def project_with(window: MainWindow, files: list[Path], key: str = "bpe", vocab_size: int = 600) -> None:
    window.new_project()
    window.document.add_checked_files([check_file(str(path)) for path in files])
    window.document.add_preset(key, vocab_size=vocab_size)


def wait_for_estimate(qtbot: QtBot, window: MainWindow, input_bytes: int) -> None:
    tab = window.train_tab
    qtbot.waitUntil(
        lambda: tab.estimate is not None and tab.estimate.input_bytes == input_bytes, timeout=ESTIMATE_TIMEOUT_MS
    )


def process_state(pid: int) -> str:
    """The state letter of /proc/PID/stat ("T" when stopped)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0]


def test_the_estimate_appears_and_follows_the_corpus_and_settings(qtbot: QtBot, window: MainWindow, small_corpus: Path, corpora: Path) -> None:
    project_with(window, [small_corpus])
    tab = window.train_tab
    wait_for_estimate(qtbot, window, small_corpus.stat().st_size)
    assert tab.estimate_label.text().startswith(("Estimate: ~", "Estimate: under 1 s")) and " MB" in tab.estimate_label.text()
    assert "distinct words expected" in tab.estimate_label.toolTip()
    first = tab.estimate
    assert first is not None
    # another file: remade for the bigger corpus
    window.document.add_checked_files([check_file(str(corpora / "shakespeare.txt"))])
    total = small_corpus.stat().st_size + (corpora / "shakespeare.txt").stat().st_size
    wait_for_estimate(qtbot, window, total)
    assert tab.estimate is not None and tab.estimate.distinct_words > first.distinct_words
    # a bigger vocabulary: remade, costs more
    before = tab.estimate
    tab.form.trainer.vocab_size.setValue(20_000)
    tab.form.trainer.vocab_size.editingFinished.emit()
    qtbot.waitUntil(lambda: tab.estimate is not None and tab.estimate is not before, timeout=ESTIMATE_TIMEOUT_MS)
    assert tab.estimate is not None and tab.estimate.train_seconds > before.train_seconds
    # no corpus: no estimate
    window.document.remove_files([0, 1])
    qtbot.waitUntil(lambda: tab.estimate_label.text() == "", timeout=ESTIMATE_TIMEOUT_MS)


def test_stale_estimates_are_dropped(qtbot: QtBot, window: MainWindow, small_corpus: Path, corpora: Path) -> None:
    project_with(window, [small_corpus])
    tab = window.train_tab
    qtbot.waitUntil(tab.estimate_label.job.is_running, timeout=ESTIMATE_TIMEOUT_MS)
    # the corpus changes while an estimate is being made: that child is stopped, its answer never
    # shown, and a new estimate made for the new corpus
    window.document.add_checked_files([check_file(str(corpora / "botchan.txt"))])
    tab.estimate_label.start_now()
    wait_for_estimate(qtbot, window, small_corpus.stat().st_size + (corpora / "botchan.txt").stat().st_size)
    shown = tab.estimate
    qtbot.wait(500)
    assert tab.estimate is shown


def test_a_json_lines_file_is_estimated_with_its_text_field(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    path = tmp_path / "code.jsonl"
    texts = [f"def f{i}(x):\n    return x * {i % 7}  # lines of code {i % 13}\n" for i in range(400)]
    path.write_text("".join(json.dumps({"id": i, "content": t, "lang": "python"}) + "\n" for i, t in enumerate(texts)), encoding="utf-8")
    window.new_project()
    window.document.add_checked_files([check_file(str(path), "content")])
    assert window.document.set_field(0, "content")
    window.document.add_preset("bpe", vocab_size=600)
    tab = window.train_tab
    wait_for_estimate(qtbot, window, path.stat().st_size)
    assert tab.estimate_label.text().startswith(("Estimate: ~", "Estimate: under 1 s")), tab.estimate_label.toolTip()
    tokenizer = presets.build("bpe", 600)[0]
    content = len(tokenizer.count_words([source_of(str(path), "content")], None, 1))
    assert tab.estimate is not None and tab.estimate.distinct_words == content  # read whole, the field's words
    # another field: estimated again, from that field's words ("python" only)
    first = tab.estimate
    assert window.document.set_field(0, "lang")
    qtbot.waitUntil(lambda: tab.estimate is not None and tab.estimate is not first, timeout=ESTIMATE_TIMEOUT_MS)
    assert tab.estimate is not None and tab.estimate.distinct_words == 1 < content


def test_the_history_keeps_the_estimate_and_the_actual_costs(qtbot: QtBot, window: MainWindow, small_corpus: Path, tmp_path: Path) -> None:
    project_with(window, [small_corpus], "bpe", 500)
    tab = window.train_tab
    wait_for_estimate(qtbot, window, small_corpus.stat().st_size)
    estimate = tab.estimate
    assert estimate is not None
    train_and_wait(qtbot, window)
    entry = window.document.active
    assert entry is not None and entry.report is not None
    report = entry.report
    assert report.estimated_seconds == estimate.seconds and report.estimated_peak_bytes == estimate.peak_bytes
    assert report.peak_bytes is not None and report.peak_bytes > 10 << 20
    assert "Estimated" in tab.message.text() and "peak memory" in tab.message.text()
    # kept in the project file, and shown where the history is shown when it is reopened
    path = tmp_path / "p.tokproj"
    window.document.project.save(str(path))
    again = Project.load(str(path)).tokenizers[0].report
    assert again is not None and (again.peak_bytes, again.estimated_seconds) == (report.peak_bytes, report.estimated_seconds)
    window.document.replace(Project.load(str(path)), str(path))
    assert "Last trained" in tab.message.text() and "Estimated" in tab.message.text() and "peak memory" in tab.message.text()


def test_stage_rates_are_measured_on_the_runners_clock_which_stands_still_while_paused(window: MainWindow) -> None:
    # the Train tab's stage rows read the runner's clock, not the wall clock
    assert window.train_tab.stages.clock == window.train_tab.runner.elapsed_seconds
    times = iter([10.0, 12.0])  # two seconds of training between the events, however long a pause
    stages = StageProgress(clock=lambda: next(times))
    stages.update_stage(TrainProgress(STAGE_COMPUTE_MERGES, 0, 400, "merges"))
    stages.update_stage(TrainProgress(STAGE_COMPUTE_MERGES, 100, 400, "merges"))
    assert "50/s · 6 s left" in stages.rows[STAGE_COMPUTE_MERGES].detail.text()


def long_corpus(folder: Path) -> Path:
    """12 MB of real text (the shipped sample, over and over): long enough to pause while the
    counting processes run, short enough to finish."""
    sample = SAMPLE.read_bytes()
    corpus = folder / "plays-12mb.txt"
    corpus.write_bytes(sample * ((12 << 20) // len(sample) + 1))
    return corpus


@pytest.mark.skipif(not CAN_PAUSE or not os.path.isdir("/proc/self"), reason="pause needs POSIX signals and /proc")
def test_pause_stops_the_training_processes_and_resume_finishes_normally(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    project_with(window, [long_corpus(tmp_path)], "bpe", 2000)
    tab = window.train_tab
    tab.processes.setValue(2)
    with qtbot.waitSignal(tab.runner.progressed, timeout=TRAINING_TIMEOUT_MS):
        tab.train_button.click()
    assert tab.pause_button.isEnabled() and tab.pause_button.text() == "Pause"
    pid = tab.runner.pid
    assert pid is not None
    tab.pause_button.click()
    assert tab.runner.is_paused() and tab.pause_button.text() == "Resume"
    qtbot.waitUntil(lambda: process_state(pid) == "T", timeout=10_000)
    for child in _descendants(pid):  # the counting processes are stopped too
        qtbot.waitUntil(lambda: process_state(child) == "T", timeout=10_000)
    assert tab.message.text().startswith("Paused after")
    frozen = tab.runner.elapsed_seconds()
    qtbot.wait(300)
    assert tab.runner.elapsed_seconds() == frozen and tab.message.text().startswith("Paused after")
    with qtbot.waitSignal(tab.runner.finished, timeout=TRAINING_TIMEOUT_MS):
        tab.pause_button.click()
        assert not tab.runner.is_paused() and process_state(pid) != "T" and tab.pause_button.text() == "Pause"
    qtbot.waitUntil(tab.runner.is_idle, timeout=20_000)
    entry = window.document.active
    assert entry is not None and entry.is_trained and entry.report is not None
    assert len(entry.report.history) > 0


@pytest.mark.skipif(not CAN_PAUSE or not os.path.isdir("/proc/self"), reason="pause needs POSIX signals and /proc")
def test_cancel_while_paused_and_closing_while_paused(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    project_with(window, [long_corpus(tmp_path)], "bpe", 2000)
    before = window.document.project.to_json("/")
    tab = window.train_tab
    with qtbot.waitSignal(tab.runner.progressed, timeout=TRAINING_TIMEOUT_MS):
        tab.train_button.click()
    pid = tab.runner.pid
    assert pid is not None
    tab.pause_training()
    qtbot.waitUntil(lambda: process_state(pid) == "T", timeout=10_000)
    with qtbot.waitSignal(tab.runner.cancelled, timeout=30_000):
        tab.cancel_button.click()
    qtbot.waitUntil(tab.runner.is_idle, timeout=20_000)
    assert window.document.project.to_json("/") == before and tab.train_button.isEnabled()
    # closing the window while paused does not hang: the process is continued and stopped
    with qtbot.waitSignal(tab.runner.progressed, timeout=TRAINING_TIMEOUT_MS):
        tab.train_button.click()
    second = tab.runner.pid  # (a new name: the lambda above holds `pid`)
    assert second is not None
    tab.pause_training()
    qtbot.waitUntil(lambda: process_state(second) == "T", timeout=10_000)
    tab.shutdown()
    assert tab.runner.is_idle()


@pytest.mark.parametrize("key", ["bpe", "sentencepiece-bpe", "sentencepiece-unigram"])
def test_continue_gives_the_merges_of_one_run_to_the_larger_size(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, small_corpus: Path, key: str
) -> None:
    project_with(window, [small_corpus], key, 500)
    tab = window.train_tab
    tab.held_out.setValue(0.0)
    train_and_wait(qtbot, window)
    entry = window.document.active
    assert entry is not None and entry.counts_file and os.path.isfile(entry.counts_file)
    # the counts kept are what the trainer read: sentencepiece's whole lines, BPE's words
    kept = read_counts(entry.counts_file)
    assert ("▁First▁Citizen:" in kept) is key.startswith("sentencepiece") and ("First" in kept) is (key == "bpe")
    assert tab.continue_reason() == "" and tab.continue_box.isVisibleTo(tab)
    assert "merges are recomputed from the start" in tab.continue_button.toolTip()
    assert "Unigram's rounds run again from the seed" in tab.continue_button.toolTip()
    # it replaces the trained result: asked first (no: nothing happens)
    tab.continue_training(900)
    assert not tab.runner.is_running() and "Continue it to 900 tokens" in prompts.questions("confirm")[-1]
    prompts.answers["confirm"] = True
    with qtbot.waitSignal(tab.runner.finished, timeout=TRAINING_TIMEOUT_MS):
        tab.continue_training(900)
    qtbot.waitUntil(tab.runner.is_idle, timeout=20_000)
    assert entry.trainer is not None and entry.trainer["vocab_size"] == 900
    assert entry.trained_on is not None and entry.trained_on.continued_from
    # the time reported is this training's, waited for now, not the first one's
    assert entry.report is not None and f"Trained in {entry.report.seconds:.1f} s" in tab.message.text()
    direct, trainer = presets.build(key, 900)
    direct.train([str(small_corpus)], trainer, processes=1)
    continued = Tokenizer.from_str(entry.trained_json or "")
    assert continued.get_vocab() == direct.get_vocab() and len(direct.get_vocab()) == 900
    # BPE's merges; a Unigram's pieces with their scores (as trained: not read back, which
    # parses a score as HF's serde does, not always to the same last bit)
    assert json.loads(entry.trained_json or "")["model"] == json.loads(direct.to_str())["model"]


def test_stale_word_counts_are_never_continued_from(qtbot: QtBot, window: MainWindow, small_corpus: Path) -> None:
    project_with(window, [small_corpus], "bpe", 400)
    tab = window.train_tab
    train_and_wait(qtbot, window)
    assert tab.continue_reason() == ""
    # the corpus file changed since: its size and SHA-256 differ from what the counts were made of
    with small_corpus.open("a", encoding="utf-8") as stream:
        stream.write("a new line of words\n")
    window.document.relocate_file(0, check_file(str(small_corpus)))
    assert "changed" in tab.continue_reason() and not tab.continue_box.isVisibleTo(tab)
    tab.continue_training(800)
    assert not tab.runner.is_running() and "changed" in tab.message.text()


def test_saving_never_deletes_files_and_closing_removes_only_the_counts_this_window_made(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, small_corpus: Path, tmp_path: Path
) -> None:
    project = tmp_path / "p.tokproj"
    prompts.answers["save_project"] = str(project)
    project_with(window, [small_corpus], "bpe", 400)
    assert window.save_as()
    # files that look like ours but are the user's (or another project's of the same name)
    theirs = [tmp_path / "p.counts-ba9876543210.tsv", tmp_path / "p.counts-my-notes.tsv", tmp_path / "q.counts-0123456789ab.tsv"]
    for path in theirs:
        path.write_text("a\t1\n", encoding="utf-8")
    train_and_wait(qtbot, window)
    entry = window.document.active
    assert entry is not None and entry.counts_file and os.path.dirname(entry.counts_file) == str(tmp_path)
    first = entry.counts_file
    window.document.add_checked_files([check_file(str(small_corpus))])  # (an edit: the project is dirty)
    prompts.answers["confirm"] = True
    window.train_tab.held_out.setValue(2.0)  # other counts (another held-out share)
    train_and_wait(qtbot, window)
    second = entry.counts_file
    assert second != first and os.path.isfile(first) and os.path.isfile(second)
    assert window.save()
    assert all(path.exists() for path in theirs) and os.path.isfile(first)  # saving deletes nothing
    window.document.undo_stack.undo()  # (undo brings back the first result, which names its counts)
    assert entry.counts_file == first and window.train_tab.continue_reason() == ""
    window.document.undo_stack.redo()
    window.new_project()  # the project closes: the counts nothing saved names go, nothing else
    assert not os.path.exists(first) and os.path.isfile(second)
    assert all(path.exists() for path in theirs)


def test_sampling_lines_trains_on_a_sample_says_so_and_keeps_no_counts(
    qtbot: QtBot, window: MainWindow, small_corpus: Path
) -> None:
    project_with(window, [small_corpus], "bpe", 400)
    tab = window.train_tab
    tab.held_out.setValue(0.0)
    wait_for_estimate(qtbot, window, small_corpus.stat().st_size)
    whole = tab.estimate
    tab.sample_lines.setValue(500)
    assert not tab.processes.isEnabled() and "one process" in tab.processes.toolTip()
    qtbot.waitUntil(lambda: tab.estimate is not None and tab.estimate is not whole, timeout=ESTIMATE_TIMEOUT_MS)
    assert tab.estimate is not None and whole is not None and tab.estimate.distinct_words < whole.distinct_words
    train_and_wait(qtbot, window)
    entry = window.document.active
    assert entry is not None and entry.report is not None
    assert entry.report.sampled_lines == 500 and entry.report.read_lines == 2000
    assert "sampled 500 of 2,000 lines" in tab.message.text()
    # the same sample as the engine's own sampled training (seed 0)
    direct, trainer = presets.build("bpe", 400)
    direct.train([str(small_corpus)], trainer, processes=1, sample_lines=500)
    assert Tokenizer.from_str(entry.trained_json or "").get_vocab() == direct.get_vocab()
    assert not entry.counts_file and "sampled 500 of 2,000 lines" in tab.continue_reason()
    tab.sample_lines.setValue(0)
    assert tab.processes.isEnabled() and tab.sample_lines.text() == "all lines"
