"""WordPiece and Unigram in the window: the BERT and SentencePiece-style presets train through
the training process, the Train tab draws their steps (likelihood scores; rounds with their
phases), the form shows each trainer's own options, and step mode names what each step does."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from support import edit_saved_index
from window_support import cell_text, header_text, shown_vocabulary, step_and_wait, train_and_wait, wait_for_view

from engine.analysis.vocabulary import TokenStyle
from engine.corpus.checks import check_file
from engine.trainers.records import MergeStep, RoundStep, TrainHistory
from workbench.core.settings import Settings
from workbench.window.main_window import MainWindow
from workbench.window.prompts import ScriptedPrompts
from workbench.core.training_text import steps_text
from workbench.window.views.merges_table import MergesModel


def trained(qtbot: QtBot, window: MainWindow, corpus: Path, key: str, vocab_size: int) -> None:
    window.new_project()
    window.document.add_checked_files([check_file(str(corpus))])
    window.document.add_preset(key, vocab_size=vocab_size)
    window.train_tab.held_out.setValue(5.0)
    train_and_wait(qtbot, window)


def test_the_form_shows_each_trainers_own_options(window: MainWindow) -> None:
    window.new_project()
    form = window.train_tab.form
    fields = form.trainer
    window.document.add_preset("bert", vocab_size=500)
    assert fields.kind == "WordPieceTrainer" and form.trainable_reason() == ""
    shown = {name for name, widget in fields._optional_rows().items() if fields.form.isRowVisible(widget)}
    assert shown == {"limit_alphabet", "continuing_subword_prefix", "scoring", "scoring_note"}
    # the three scorings, named for people, each note saying its formula; the preset's is the gain
    labels = [fields.scoring.itemText(i) for i in range(fields.scoring.count())]
    assert labels == ["ratio (the HF course)", "likelihood gain (the WordPiece paper)", "frequency (HF's WordPieceTrainer)"]
    assert fields.scoring.currentText() == labels[1] and fields.scoring_value() == "likelihood_gain"
    assert "log-likelihood" in fields.scoring_note.text() and "log(count(ab) × N" in fields.scoring_note.text()
    fields.scoring.setCurrentIndex(0)
    assert "count(ab) / (count(a) × count(b))" in fields.scoring_note.text()
    configuration = form.configuration()
    assert configuration is not None and configuration[1]["scoring"] == "likelihood"
    fields.scoring.setCurrentIndex(2)
    assert "HF" in fields.scoring_note.text()
    configuration = form.configuration()
    assert configuration is not None and configuration[1]["scoring"] == "frequency"
    assert configuration[1]["continuing_subword_prefix"] == "##"

    # (HF's UnigramTrainer: the sentencepiece presets' trainer is test_sentencepiece_form's)
    window.document.add_preset("hf-sentencepiece-unigram", vocab_size=500)
    assert fields.kind == "UnigramTrainer"
    shown = {name for name, widget in fields._optional_rows().items() if fields.form.isRowVisible(widget)}
    assert shown == {"unk_token", "shrinking_factor", "max_piece_length", "n_sub_iterations", "seed_size"}
    # min frequency: there, but disabled and saying why
    assert not fields.min_frequency.isEnabled() and "prunes" in fields.min_frequency.toolTip()
    assert "Unigram" in fields.min_frequency.text()
    fields.shrinking_factor.setValue(0.5)
    fields.n_sub_iterations.setValue(3)
    configuration = form.configuration()
    assert configuration is not None
    trainer = configuration[1]
    assert trainer["shrinking_factor"] == 0.5 and trainer["n_sub_iterations"] == 3 and trainer["unk_token"] == "<unk>"
    assert "min_frequency" not in trainer and "limit_alphabet" not in trainer

    # switching the model switches the trainer, keeping what both have
    form.model.combo.setCurrentText("BPE")
    assert fields.kind == "BpeTrainer" and fields.vocab_size.value() == 500 and fields.min_frequency.isEnabled()
    form.model.combo.setCurrentText("WordPiece")
    assert fields.kind == "WordPieceTrainer" and form.configuration() is not None


def test_bert_wordpiece_trains_in_the_window_and_plots_likelihood(qtbot: QtBot, window: MainWindow, small_corpus: Path) -> None:
    trained(qtbot, window, small_corpus, "bert", 400)
    entry = window.document.active
    assert entry is not None and entry.is_trained and entry.report is not None
    history = entry.report.history
    assert history.score_name == "likelihood gain" and history.merges and not history.rounds
    tab = window.train_tab
    steps, evaluations = tab.plots.point_counts()
    assert steps == len(history.merges) and evaluations >= 1
    assert "likelihood gain" in tab.plots.score.getPlotItem().titleLabel.text
    assert tab.plots.score.getPlotItem().ctrl.logYCheck.isChecked()  # gains span decades: a log scale
    model = tab.merges.merges
    assert model.rowCount() == len(history.merges)
    assert model.headerData(4, Qt.Orientation.Horizontal) == "Likelihood gain"
    assert "log-likelihood" in str(model.headerData(4, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole))
    last = history.merges[-1]
    assert last.score is not None and last.left_count is not None
    assert model.data(model.index(model.rowCount() - 1, 4)) == f"{last.score:.3e}"  # (one format down the column)
    counts = model.data(model.index(model.rowCount() - 1, 5))
    assert isinstance(counts, str) and counts.startswith(f"{last.count:,} · {last.left_count:,}")
    assert shown_vocabulary(window).rowCount() == 400


def test_a_project_opens_with_the_scoring_it_was_saved_with(
    qtbot: QtBot, window: MainWindow, prompts: ScriptedPrompts, small_corpus: Path, tmp_path: Path
) -> None:
    # A BERT tokenizer trained before the likelihood gain existed says "likelihood" (the course's
    # ratio): the form shows the ratio and writes back what it read, so the trained result is
    # not taken for edited settings.
    trained(qtbot, window, small_corpus, "bert", 400)
    path = tmp_path / "before.tokproj"
    prompts.answers["save_project"] = str(path)
    assert window.save_as()
    edit_saved_index(path, with_ratio_scoring)
    again = MainWindow(Settings(), ScriptedPrompts(confirm=True, save_changes="discard"))
    qtbot.addWidget(again)
    assert again.open_file(str(path))
    entry = again.document.active
    assert entry is not None and entry.is_trained and entry.trainer is not None
    assert entry.trainer["scoring"] == "likelihood"
    fields = again.train_tab.form.trainer
    assert fields.scoring.currentText() == "ratio (the HF course)" and fields.scoring_value() == "likelihood"
    assert again.train_tab.form.configuration() == (entry.pipeline, entry.trainer)
    again.shutdown()


def with_ratio_scoring(index: dict[str, object]) -> None:
    """`edit_saved_index`'s edit: the tokenizer's trainer as projects saved it before the gain."""
    tokenizers = index["tokenizers"]
    assert isinstance(tokenizers, list)
    trainer = tokenizers[0]["trainer"]
    assert trainer["scoring"] == "likelihood_gain"
    trainer["scoring"] = "likelihood"


def test_plots_behind_another_tab_are_drawn_for_the_tokenizer_shown_when_they_show(
    qtbot: QtBot, window: MainWindow, small_corpus: Path
) -> None:
    trained(qtbot, window, small_corpus, "bert", 400)
    window.document.add_preset("sentencepiece-unigram", vocab_size=400)
    train_and_wait(qtbot, window)
    plots = window.train_tab.plots
    title = plots.score.getPlotItem().titleLabel
    assert "Log-likelihood" in title.text
    bert = window.document.project.tokenizers[0]
    assert bert.report is not None and bert.report.history.merges

    window.tabs.setCurrentWidget(window.vocab_tab)
    window.document.set_active(0)
    wait_for_view(qtbot, window)
    assert shown_vocabulary(window).rowCount() == 400
    # (hidden: the plots wait, rather than drawing what nobody sees)
    assert not plots.isVisible() and "Log-likelihood" in title.text

    window.tabs.setCurrentWidget(window.train_tab)
    assert plots.isVisible()
    assert "likelihood" in title.text and "Log-likelihood" not in title.text
    assert plots.point_counts()[0] == len(bert.report.history.merges)
    assert not any(legend.isVisible() for legend in plots._legends)
    x, y = plots._score_curve.getData()
    assert x is not None and len(x) > 0 and y is not None


def test_sentencepiece_unigram_trains_in_the_window_and_plots_rounds(qtbot: QtBot, window: MainWindow, small_corpus: Path) -> None:
    trained(qtbot, window, small_corpus, "sentencepiece-unigram", 400)
    entry = window.document.active
    assert entry is not None and entry.is_trained and entry.report is not None
    rounds = entry.report.history.rounds
    assert rounds and {step.phase for step in rounds} >= {"seed", "EM", "prune", "finalize"}
    tab = window.train_tab
    assert tab.plots.point_counts()[0] == len(rounds)
    assert "Log-likelihood" in tab.plots.score.getPlotItem().titleLabel.text
    assert all(legend.isVisible() for legend in tab.plots._legends)
    tab.plots.redraw()  # (the plots redraw on a timer)
    assert tab.plots._score_curve.opts["symbol"] == [
        {"seed": "star", "EM": "o", "prune": "t", "finalize": "s"}[step.phase] for step in rounds
    ]
    model = tab.merges.merges
    assert model.shows_rounds and model.rowCount() == len(rounds)
    assert tab.merges_heading.label.text() == "Rounds"
    assert [model.data(model.index(row, 1)) for row in range(model.rowCount())] == [step.phase for step in rounds]
    assert shown_vocabulary(window).rowCount() == 400
    # the held-out compression is measured at rounds' numbers, the last at the finalize round
    assert entry.evaluations and entry.evaluations[-1][0] == rounds[-1].index == len(rounds) - 1
    assert f"the seed and {len(rounds) - 1} rounds" in tab.message.text()
    # the log-likelihood rises with EM (it is what EM maximises)
    em = [step.log_likelihood for step in rounds if step.phase == "EM" and step.log_likelihood is not None]
    assert em and em[1] >= em[0]


def test_step_mode_names_wordpiece_scores_and_unigram_pieces(qtbot: QtBot, window: MainWindow) -> None:
    window.new_project()
    window.document.add_preset("bert", vocab_size=200)
    panel = window.train_tab.step_panel
    step_and_wait(qtbot, panel, 3)
    headers = [header_text(panel.candidates, c) for c in range(4)]
    assert headers == ["Left", "Right", "Likelihood gain", "ab · a · b"]
    assert not panel.candidates.isColumnHidden(3) and panel.candidates.rowCount() > 0
    assert " · " in cell_text(panel.candidates, 0, 3)
    assert panel.merges.merges.rowCount() == 3 and all(isinstance(s, MergeStep) for s in panel.merges.merges.steps)

    window.document.add_preset("sentencepiece-unigram", vocab_size=40)
    step_and_wait(qtbot, panel, 2)  # the seed round, then an EM round
    headers = [header_text(panel.candidates, c) for c in range(4)]
    assert headers == ["Piece", "Split into", "Uses", "Loss"]
    assert panel.candidates_heading.label.text().startswith("Pieces the next prune")
    assert panel.merges.merges.shows_rounds and panel.merges.merges.rowCount() == 2
    assert "the seed and 1 round" in panel.status.text() and "EM" in panel.status.text()
    assert all(isinstance(s, RoundStep) for s in panel.merges.merges.rounds)
    panel.run_to_end()
    qtbot.waitUntil(lambda: not panel.is_stepping(), timeout=60_000)
    assert "final" in panel.status.text()
    assert panel.plots.point_counts()[0] == panel.merges.merges.rowCount()


def test_the_rounds_table_says_what_finalizing_puts_back(qtbot: QtBot) -> None:
    model = MergesModel()
    rounds = [
        RoundStep(0, "seed", 27_000, 0, -490_000.0),
        RoundStep(1, "prune", 2_200, 24_800, -459_013.2),
        RoundStep(2, "finalize", 2_000, 223, -466_614.5),
    ]
    model.reset([], TokenStyle(), rounds=rounds)
    removed = model.index(2, 3)
    assert model.data(removed) == "223 (23 back in)"  # 2,200 - 223 + 23 = 2,000
    assert "2,200 − 223 + 23 = 2,000" in str(model.data(removed, Qt.ItemDataRole.ToolTipRole))
    assert model.data(model.index(1, 3)) == "24,800"
    assert steps_text(TrainHistory("Unigram", "", rounds=rounds)) == "the seed and 2 rounds"
    assert steps_text(TrainHistory("BPE", "count", merges=[])) == "0 merges"
