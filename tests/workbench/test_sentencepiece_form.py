"""sentencepiece's trainer in the Train tab's form: its options under its own names, each read from
the trainer's JSON and written back as the engine reads it, the Trainer choice between HF's and
sentencepiece's for BPE and Unigram (switching keeps the size and the special tokens), and step
mode naming its tables after the model a SentencePieceTrainer trains."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QCheckBox, QDoubleSpinBox, QLabel, QLineEdit, QSpinBox, QWidget
from pytestqt.qtbot import QtBot
from window_support import header_text, step_and_wait

from engine import trainers
from engine.schema import JsonValue
from engine.trainers.records import MergeStep, RoundStep
from workbench.core.components import (
    HF_TOKENIZERS,
    SENTENCEPIECE,
    TRAINER_DEFAULTS,
    trainer_algorithm,
    trainer_for,
)
from workbench.window.main_window import MainWindow
from workbench.window.views.sentencepiece_fields import SHARED_OPTIONS, UNIGRAM_OPTIONS
from workbench.window.views.trainer_fields import TrainerFields


def shown_rows(fields: TrainerFields) -> set[str]:
    """The trainer-specific rows the form shows: HF's by their keys, sentencepiece's by option name."""
    rows = {name for name, widget in fields._optional_rows().items() if fields.form.isRowVisible(widget)}
    return rows | {name for name, widget in fields.sentencepiece.fields.items() if fields.form.isRowVisible(widget)}


def label_of(fields: TrainerFields, widget: QWidget) -> str:
    label = fields.form.labelForField(widget)
    assert isinstance(label, QLabel)
    return label.text()


def special_names(trainer: dict[str, JsonValue]) -> list[str]:
    tokens = trainer.get("special_tokens")
    assert isinstance(tokens, list)
    return [token if isinstance(token, str) else str(token["content"]) for token in tokens if isinstance(token, (str, dict))]


@pytest.mark.parametrize(
    ("trainer", "algorithm"),
    [
        ({"type": "BpeTrainer"}, "BPE"),
        ({"type": "UnigramTrainer"}, "Unigram"),
        ({"type": "WordPieceTrainer"}, "WordPiece"),
        ({"type": "WordLevelTrainer"}, "WordLevel"),
        ({"type": "SentencePieceTrainer", "model_type": "bpe"}, "BPE"),
        ({"type": "SentencePieceTrainer", "model_type": "unigram"}, "Unigram"),
        ({"type": "SentencePieceTrainer"}, "Unigram"),  # (sentencepiece's default model_type)
        ({"type": "SentencePieceTrainer", "model_type": "char"}, ""),
        ({"type": "NoSuchTrainer"}, ""),
    ],
)
def test_trainer_algorithm_names_the_model_a_trainer_trains(trainer: dict[str, JsonValue], algorithm: str) -> None:
    assert trainer_algorithm(trainer) == algorithm


def test_trainer_for_keeps_what_both_trainers_have() -> None:
    unigram = {**TRAINER_DEFAULTS["UnigramTrainer"], "vocab_size": 500, "special_tokens": ["<unk>", "<pad>"], "seed_size": 9}
    unigram.update({"unk_token": "<u>", "shrinking_factor": 0.5, "max_piece_length": 8, "n_sub_iterations": 3})
    spm = trainer_for(unigram, "Unigram", SENTENCEPIECE)
    expected = {**TRAINER_DEFAULTS["SentencePieceTrainer"], "vocab_size": 500, "special_tokens": ["<unk>", "<pad>"]}
    expected.update({"unk_piece": "<u>", "shrinking_factor": 0.5, "max_sentencepiece_length": 8, "num_sub_iterations": 3})
    expected["seed_sentencepiece_size"] = 9
    assert spm == expected
    assert trainer_for(spm, "Unigram", HF_TOKENIZERS) == unigram  # (and back)
    # the same library for another model: only the model_type changes
    assert trainer_for(spm, "BPE", SENTENCEPIECE) == {**expected, "model_type": "bpe"}
    # sentencepiece does not train WordPiece: HF's trainer, the size and special tokens kept
    wordpiece = trainer_for(spm, "WordPiece", SENTENCEPIECE)
    assert wordpiece == {**TRAINER_DEFAULTS["WordPieceTrainer"], "vocab_size": 500, "special_tokens": ["<unk>", "<pad>"]}
    # UnigramTrainer's unk_token may be null; sentencepiece's unk_piece keeps its default then
    assert trainer_for({**unigram, "unk_token": None}, "Unigram", SENTENCEPIECE)["unk_piece"] == "<unk>"
    for made in (spm, wordpiece, trainer_for(unigram, "BPE", SENTENCEPIECE)):
        assert trainers.from_dict(made).to_dict()["vocab_size"] == 500  # (the engine takes each)


def test_the_form_shows_sentencepieces_options_by_their_names(window: MainWindow) -> None:
    window.new_project()
    form = window.train_tab.form
    fields = form.trainer
    window.document.add_preset("sentencepiece-unigram", vocab_size=500)
    assert fields.kind == "SentencePieceTrainer" and form.trainable_reason() == ""
    assert fields.library.currentText() == "sentencepiece" and fields.library.isEnabled()
    assert not fields.form.isRowVisible(fields.library_note)
    assert shown_rows(fields) == set(SHARED_OPTIONS + UNIGRAM_OPTIONS)
    for name, widget in fields.sentencepiece.fields.items():
        assert label_of(fields, widget) == name
        assert "sentencepiece's default: " in widget.toolTip()
    spm = fields.sentencepiece
    assert spm.character_coverage.toolTip().endswith("sentencepiece's default: 0.9995.")
    assert spm.character_coverage.decimals() == 4 and (spm.character_coverage.minimum(), spm.character_coverage.maximum()) == (0.0, 1.0)
    assert spm.split_digits.toolTip().endswith("default: off.") and spm.split_by_whitespace.toolTip().endswith("default: on.")
    assert spm.max_sentence_length.toolTip().endswith("default: 4,192.")
    assert spm.input_sentence_size.text() == "all lines" and spm.input_sentence_size.toolTip().endswith("0 (all lines).")
    assert spm.character_coverage.value() == 0.9995 and spm.unk_piece.text() == "<unk>"
    assert spm.split_by_unicode_script.isChecked() and not spm.byte_fallback.isChecked()
    assert spm.seed_sentencepiece_size.value() == 1_000_000 and spm.num_sub_iterations.value() == 2
    # min frequency: there, but disabled and saying why
    assert not fields.min_frequency.isEnabled() and "sentencepiece" in fields.min_frequency.text()
    assert "no minimum frequency" in fields.min_frequency.toolTip()
    configuration = form.configuration()
    assert configuration is not None and "min_frequency" not in configuration[1]

    window.document.add_preset("sentencepiece-bpe", vocab_size=500)
    assert fields.kind == "SentencePieceTrainer" and fields.library.currentText() == "sentencepiece"
    assert shown_rows(fields) == set(SHARED_OPTIONS)  # (no seed, pruning or EM for BPE)
    assert not fields.min_frequency.isEnabled()
    configuration = form.configuration()
    assert configuration is not None and configuration[1]["model_type"] == "bpe"


def test_every_option_set_in_the_form_is_the_trainer_the_engine_reads(window: MainWindow) -> None:
    window.new_project()
    form = window.train_tab.form
    fields = form.trainer
    spm = fields.sentencepiece
    window.document.add_preset("sentencepiece-unigram", vocab_size=500)
    fields.vocab_size.setValue(640)
    fields.special_tokens.setText("<unk>, <s>, </s>")
    values: dict[str, JsonValue] = {
        "unk_piece": "<s-unk>",
        "character_coverage": 0.9876,
        "split_by_unicode_script": False,
        "split_by_number": False,
        "split_by_whitespace": False,
        "split_digits": True,
        "max_sentencepiece_length": 12,
        "byte_fallback": True,
        "input_sentence_size": 250_000,
        "max_sentence_length": 8000,
        "seed_sentencepiece_size": 50_000,
        "shrinking_factor": 0.6,
        "num_sub_iterations": 4,
    }
    assert set(values) == set(spm.fields)
    for name, value in values.items():
        widget = spm.fields[name]
        if isinstance(widget, QLineEdit):
            assert isinstance(value, str)
            widget.setText(value)
            widget.editingFinished.emit()
        elif isinstance(widget, QCheckBox):
            assert isinstance(value, bool) and widget.isChecked() != value
            widget.setChecked(value)  # (toggled: the form is edited)
        elif isinstance(widget, (QSpinBox, QDoubleSpinBox)):
            widget.setValue(value)  # type: ignore[arg-type]
            widget.editingFinished.emit()
    configuration = form.configuration()
    assert configuration is not None
    trainer = configuration[1]
    expected = trainers.SentencePieceTrainer("unigram", 640, special_tokens=["<unk>", "<s>", "</s>"], **values)  # type: ignore[arg-type]
    assert trainers.from_dict(trainer).to_dict() == expected.to_dict()
    assert {name: trainer[name] for name in values} == values
    # the untrained tokenizer takes the settings as they are edited
    entry = window.document.active
    assert entry is not None and entry.trainer == trainer

    # the engine's JSON, shown and read back unchanged (its special tokens' flags too)
    engine_json = expected.to_dict()
    fields.set_trainer(engine_json)
    assert fields.trainer() == engine_json
    # a value the fields cannot show as it is stays as it is until edited; so do the Unigram
    # options a BPE trainer does not show
    finer = {**engine_json, "model_type": "bpe", "character_coverage": 0.99995, "max_sentencepiece_length": 3_000_000_000}
    fields.set_trainer(finer)
    assert not fields.form.isRowVisible(spm.seed_sentencepiece_size)
    assert spm.character_coverage.value() == 1.0 and fields.trainer() == finer
    spm.character_coverage.setValue(0.9)
    assert fields.trainer() == {**finer, "character_coverage": 0.9}


def test_the_trainer_choice_and_the_model_keep_the_size_and_special_tokens(window: MainWindow) -> None:
    window.new_project()
    form = window.train_tab.form
    fields = form.trainer
    spm = fields.sentencepiece
    window.document.add_preset("hf-sentencepiece-unigram", vocab_size=700)
    assert fields.kind == "UnigramTrainer" and fields.library.currentText() == "HF tokenizers"
    fields.special_tokens.setText("<unk>, <pad>")
    fields.seed_size.setValue(5000)
    fields.shrinking_factor.setValue(0.5)

    def configured() -> dict[str, JsonValue]:
        configuration = form.configuration()
        assert configuration is not None
        pipeline, trainer = configuration
        model = pipeline["model"]
        assert isinstance(model, dict) and trainer_algorithm(trainer) == model["type"]
        assert trainer["vocab_size"] == 700 and special_names(trainer) == ["<unk>", "<pad>"]
        return trainer

    fields.library.setCurrentText("sentencepiece")
    assert fields.kind == "SentencePieceTrainer" and configured()["model_type"] == "unigram"
    assert spm.seed_sentencepiece_size.value() == 5000 and spm.shrinking_factor.value() == 0.5
    assert spm.unk_piece.text() == "<unk>" and shown_rows(fields) == set(SHARED_OPTIONS + UNIGRAM_OPTIONS)
    spm.character_coverage.setValue(0.98)

    # a BPE model: still sentencepiece's trainer, for BPE, its options kept
    form.model.combo.setCurrentText("BPE")
    trainer = configured()
    assert fields.kind == "SentencePieceTrainer" and trainer["model_type"] == "bpe"
    assert trainer["character_coverage"] == 0.98 and trainer["seed_sentencepiece_size"] == 5000
    assert shown_rows(fields) == set(SHARED_OPTIONS)
    form.model.combo.setCurrentText("Unigram")
    assert configured()["model_type"] == "unigram" and spm.seed_sentencepiece_size.value() == 5000

    # WordPiece and WordLevel have HF's trainers only: the choice is disabled, saying why
    form.model.combo.setCurrentText("WordPiece")
    assert fields.kind == "WordPieceTrainer" and configured()["type"] == "WordPieceTrainer"
    assert not fields.library.isEnabled() and fields.form.isRowVisible(fields.library_note)
    assert "BPE and Unigram" in fields.library_note.text()
    form.model.combo.setCurrentText("WordLevel")
    assert fields.kind == "WordLevelTrainer" and not fields.library.isEnabled()
    form.model.combo.setCurrentText("BPE")
    assert fields.kind == "BpeTrainer" and fields.library.currentText() == "HF tokenizers" and fields.library.isEnabled()
    assert configured()["type"] == "BpeTrainer" and fields.min_frequency.isEnabled()

    fields.library.setCurrentText("sentencepiece")
    assert configured()["model_type"] == "bpe" and not fields.min_frequency.isEnabled()
    fields.library.setCurrentText("HF tokenizers")
    assert configured()["type"] == "BpeTrainer"


def test_step_mode_steps_a_sentencepiece_trainer_as_its_model(qtbot: QtBot, window: MainWindow) -> None:
    window.new_project()
    panel = window.train_tab.step_panel
    window.document.add_preset("sentencepiece-bpe", vocab_size=60)
    assert header_text(panel.candidates, 0) == "Left" and panel.merges_heading.label.text() == "Merges so far"
    step_and_wait(qtbot, panel, 3)
    assert [header_text(panel.candidates, c) for c in range(3)] == ["Left", "Right", "Count"]
    assert panel.merges.merges.rowCount() == 3 and all(isinstance(s, MergeStep) for s in panel.merges.merges.steps)
    assert "3 merges" in panel.status.text()

    window.document.add_preset("sentencepiece-unigram", vocab_size=40)
    assert header_text(panel.candidates, 0) == "Piece" and panel.merges_heading.label.text() == "Rounds so far"
    step_and_wait(qtbot, panel, 2)  # the seed round, then an EM round
    assert [header_text(panel.candidates, c) for c in range(4)] == ["Piece", "Split into", "Uses", "Loss"]
    assert panel.merges.merges.shows_rounds and all(isinstance(s, RoundStep) for s in panel.merges.merges.rounds)

    # the model made BPE in the form: the same trainer steps by merges
    window.train_tab.form.model.combo.setCurrentText("BPE")
    assert header_text(panel.candidates, 0) == "Left" and panel.merges_heading.label.text() == "Merges so far"
    assert not panel.plots._rounds
